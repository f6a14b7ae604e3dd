#!/usr/bin/env bash
# install_check.sh BUILD SOURCE - libtilec as its users get it:
# `cmake --install BUILD` into a temporary prefix, then a tiny C program that
# includes tilec.h, compiles a kernel from a string and prints its cubin's
# size, built three ways: with `cc $(pkg-config --cflags --libs tilec)`,
# and by a CMake project (find_package(tilec)) against the shared and the
# static library. All three must run (no GPU needed). The header must also
# compile as C++, and nothing may link libcuda.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
export TILEC_CACHE_DIR=$tmp/cache
fail=0
say() { printf '%s\n' "$*"; }
bad() { say "FAIL $*"; fail=$((fail + 1)); }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/tilec.h lib/libtilec.a lib/libtilec.so lib/pkgconfig/tilec.pc \
         lib/cmake/tilec/tilecConfig.cmake lib/cmake/tilec/tilecConfigVersion.cmake; do
    if [ -e "$prefix/$f" ]; then say "ok   installed $f"; else bad "not installed: $f"; fi
done
# (the tools' output is read whole first: with pipefail, grep -q closing the
# pipe early would fail the writer with SIGPIPE)
needed=$(readelf -d "$prefix/lib/libtilec.so")
if grep -q 'libcuda\.so' <<< "$needed"; then bad "libtilec.so needs libcuda"; fi
if grep -q -- '-lcuda\b' "$prefix/lib/pkgconfig/tilec.pc"; then bad "tilec.pc links libcuda"; fi
exported=$(nm -D --defined-only "$prefix/lib/libtilec.so" | awk '{print $3}' | grep -v '^tilec_' || true)
[ -z "$exported" ] || bad "libtilec.so exports more than tilec_*: $(echo $exported | head -c 200)"

# The program: a kernel of its own, compiled from a string.
cat > "$tmp/hello.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <tilec.h>

static const char source[] =
    "kernel add(X: f16[N], Y: f16[N], out Z: f16[N])\n"
    "    where N = 4096\n"
    "    grid(ceildiv(N, 256)) as (bx)\n"
    "    threads 256\n"
    "{\n"
    "    for (i) in parallel(256) { Z[bx * 256 + i] = X[bx * 256 + i] + Y[bx * 256 + i]; }\n"
    "}\n"
    "reference { Z[i] = X[i] + Y[i]; }\n";

int main(void) {
    tilec_options opt = {.arch = "sm_80"};
    tilec_kernel *k = NULL;
    char *diag = NULL;
    int rc = tilec_compile(source, "add.tile", "add", &opt, &k, &diag);
    if (rc != 0) {
        fprintf(stderr, "tilec_compile: %d\n%s", rc, diag);
        tilec_free_string(diag);
        return 1;
    }
    tilec_free_string(diag);
    const void *cubin, *cuda;
    size_t size, cuda_size;
    if (tilec_get(k, "cubin", &cubin, &size) != 0 || tilec_get(k, "cuda", &cuda, &cuda_size) != 0) return 1;
    printf("tilec %s: kernel 'add' compiled for sm_80: %zu bytes of cubin, %zu of CUDA C\n", tilec_version(), size,
           cuda_size);
    tilec_kernel_free(k);
    return strcmp(tilec_version(), TILEC_VERSION) != 0;
}
EOF

# C++ sees the same declarations (extern "C")
if command -v c++ >/dev/null; then
    if c++ -x c++ -I"$prefix/include" -fsyntax-only "$tmp/hello.c" 2>"$tmp/cxx.log"; then say "ok   tilec.h compiles as C++"
    else bad "tilec.h as C++: $(cat "$tmp/cxx.log")"; fi
fi

run() { # NAME COMMAND...: runs a built program, which must print its kernel
    local name=$1 out
    shift
    if out=$("$@" 2>&1) && [[ $out == *"kernel 'add' compiled"* ]]; then say "ok   $name: $out"
    else bad "$name: $out"; fi
}

# 1. pkg-config (the shared library, which cc prefers)
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
if cc -o "$tmp/hello_pc" "$tmp/hello.c" $(pkg-config --cflags --libs tilec) 2>"$tmp/pc.log"; then
    run "pkg-config build" env LD_LIBRARY_PATH="$prefix/lib" "$tmp/hello_pc"
else
    bad "cc \$(pkg-config --cflags --libs tilec): $(cat "$tmp/pc.log")"
fi

# 2. CMake: find_package(tilec), tilec::tilec (shared) and tilec::tilec_static
mkdir -p "$tmp/proj"
cp "$tmp/hello.c" "$tmp/proj/"
cat > "$tmp/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(hello C)
find_package(tilec 0.1 REQUIRED)
add_executable(hello_shared hello.c)
target_link_libraries(hello_shared PRIVATE tilec::tilec)
add_executable(hello_static hello.c)
target_link_libraries(hello_static PRIVATE tilec::tilec_static)
EOF
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if cmake -S "$tmp/proj" -B "$tmp/proj/build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 &&
   cmake --build "$tmp/proj/build" >>"$tmp/cmake.log" 2>&1; then
    run "CMake build, shared" "$tmp/proj/build/hello_shared"
    run "CMake build, static" "$tmp/proj/build/hello_static"
    deps=$(ldd "$tmp/proj/build/hello_shared")
    grep -q 'libtilec\.so' <<< "$deps" || bad "hello_shared does not use libtilec.so"
    deps=$(ldd "$tmp/proj/build/hello_static")
    if grep -q 'libtilec\.so' <<< "$deps"; then bad "hello_static uses libtilec.so"; fi
else
    bad "the CMake project: $(tail -20 "$tmp/cmake.log")"
fi

if [ $fail -eq 0 ]; then say "install_check: all passed"; else say "install_check: $fail failed"; fi
[ $fail -eq 0 ]
