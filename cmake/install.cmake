# install.cmake - what `cmake --install build --prefix P` puts under P:
# include/tilec.h, lib/libtilec.a, lib/libtilec.so, lib/pkgconfig/tilec.pc,
# lib/cmake/tilec/ (find_package(tilec) gives tilec::tilec) and bin/tilec.
# The prefix is only known at install time, so the .pc file and the CMake
# files find it relative to where they lie.
include(CMakePackageConfigHelpers)

set_target_properties(tilec_static PROPERTIES EXPORT_NAME tilec_static)
set_target_properties(tilec_shared PROPERTIES EXPORT_NAME tilec_shared)
install(TARGETS tilec_static tilec_shared EXPORT tilecTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
# the llvm backend's library, which both libtilec's and tilec need beside them
if(TILEC_HAVE_LLVM)
  install(TARGETS tilec_llvm EXPORT tilecTargets LIBRARY DESTINATION lib)
  set_target_properties(tilec_shared tilec PROPERTIES INSTALL_RPATH "$ORIGIN:$ORIGIN/../lib;${CUDAToolkit_LIBRARY_DIR}")
endif()
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/tilec.h DESTINATION include)
install(TARGETS tilec RUNTIME DESTINATION bin)
install(EXPORT tilecTargets NAMESPACE tilec:: DESTINATION lib/cmake/tilec)

# The link needs of the static library: NVRTC from the toolkit, pthread,
# dl and m (never libcuda: the driver is opened at run time).
set(TILEC_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lnvrtc -lpthread -ldl -lm")
if(TILEC_HAVE_LLVM) # libtilec.a calls the llvm backend in libtilec_llvm.so
  string(PREPEND TILEC_PC_LIBS "-ltilec_llvm ")
endif()
set(TILEC_PC_CFLAGS "")
if(TILEC_SANITIZE)
  string(PREPEND TILEC_PC_LIBS "-fsanitize=address,undefined ")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilec.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tilec.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilec.pc DESTINATION lib/pkgconfig)

configure_file(${CMAKE_CURRENT_LIST_DIR}/tilecConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tilecConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilecConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilecConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tilecConfigVersion.cmake
        DESTINATION lib/cmake/tilec)
