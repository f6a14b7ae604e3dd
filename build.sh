#!/usr/bin/env bash
# build.sh - installs what the build needs (when missing), configures and
# builds tilec into build/ (Release). Extra arguments go to cmake.
#   TILEC_BUILD_DIR  build folder (default: build)
set -euo pipefail
cd "$(dirname "$0")"
build=${TILEC_BUILD_DIR:-build}

# Debian packages the build uses; the CUDA toolkit is expected already.
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v re2c >/dev/null || need+=(re2c)
command -v lemon >/dev/null && [ -f /usr/share/lemon/lempar.c ] || need+=(lemon)
command -v cc >/dev/null || need+=(gcc)
command -v python3 >/dev/null || need+=(python3)
ls /usr/include/python3*/Python.h >/dev/null 2>&1 || need+=(python3-dev)  # the Python module's C fast path
command -v pkg-config >/dev/null || need+=(pkg-config)  # tests/install_check.sh
# the llvm backend: LLVM 19's static libraries and the static zstd they need
[ -f /usr/lib/llvm-19/lib/cmake/llvm/LLVMConfig.cmake ] || need+=(llvm-19-dev)
[ -f /usr/lib/x86_64-linux-gnu/libzstd.a ] || need+=(libzstd-dev)
[ -f /usr/lib/x86_64-linux-gnu/libz.a ] || need+=(zlib1g-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "build.sh: installing ${need[*]}"
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j2
# the Python module (pip install ./python) takes the C library from beside
# its package: an ignored copy of the default build's (and of the llvm
# backend's library, where built, which libtilec.so finds beside itself)
if [ "$build" = build ]; then
    cp -f "$build/libtilec.so" python/tilec/libtilec.so
    if [ -f "$build/libtilec_llvm.so" ]; then cp -f "$build/libtilec_llvm.so" python/tilec/; else rm -f python/tilec/libtilec_llvm.so; fi
    if [ -f "$build/_fastcall.abi3.so" ]; then cp -f "$build/_fastcall.abi3.so" python/tilec/; else rm -f python/tilec/_fastcall.abi3.so; fi
fi
exit 0
