#!/usr/bin/env bash
# emit_lib_check.sh TILEC ROOT CUDA_INCLUDE - `tilec --emit-lib` writes, for
# every example and each kernel of dynamic sizes in tests/emit_lib, a header
# and a C file that compile with a C compiler against the CUDA headers
# alone, warning-free; bad uses exit 2. No GPU.
set -u
tilec=$1
root=$2
cuda_include=$3
cc=${CC:-cc}
out=$(mktemp -d)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# the examples, and the kernels of dynamic sizes of tests/emit_lib
for f in "$root"/examples/*.tile "$root"/tests/emit_lib/*.tile; do
    name=$(basename "$f" .tile)
    # a pipeline: each stage's launcher in the one file, a cubin for each
    # arch of each stage, and the pipeline's launcher
    stages=$(sed -n '/^pipeline /,/^}/p' "$f" | grep -c '^    [a-z_0-9]*(.*);$')
    grep -q '^pipeline ' "$f" || stages=1
    if ! "$tilec" --emit-lib "$out" "$f" > "$out/log" 2>&1; then bad "$name: --emit-lib: $(head -3 "$out/log")"; continue; fi
    if "$cc" -std=c11 -Wall -Wextra -Werror -c -I"$cuda_include" -I"$out" "$out/$name.c" -o "$out/$name.o" > "$out/log" 2>&1
    then ok; else bad "$name: the C file does not compile: $(head -5 "$out/log")"; fi
    # one launcher for both GPU generations: a cubin each (and one for each
    # variant of a kernel that has them)
    [ "$(grep '^/\* sm_' "$out/$name.c" | grep -Evc '_(split|halves) \*/$')" = $((2 * stages)) ] && ok || bad "$name: not two cubins a stage"
done
# a kernel of dynamic sizes: its header names them in the shapes, and the
# launcher computes the grid from them; a kernel of fixed sizes does not
grep -q '^ \*   A f16\[M, K % 64\]$' "$out/gemm_dyn.h" && grep -q 'the dynamic sizes M, N, K read from these shapes' \
    "$out/gemm_dyn.h" && ok || bad "gemm_dyn.h does not list the dynamic sizes: $(grep '^ \* ' "$out/gemm_dyn.h")"
grep -q 'grid\[1\] = tl_ceildiv(s\[0\], 128LL, &ok);' "$out/gemm_dyn.c" && ok || bad "gemm_dyn.c: no grid of M"
# the dynamic GEMM's variants on sm_90a, after its kernel: split, then halves
[ "$(grep '^/\* sm_90a' "$out/gemm.c" | awk '{print $3}' | sed -E 's/^tilec_gemm_[0-9a-f]{8}//' | tr '\n' ' ')" = \
  " _split _halves " ] && ok || bad "gemm.c: not the kernel then its split and halves variants: $(grep '^/\* sm_' "$out/gemm.c")"
mkdir -p "$out/fixed"
"$tilec" --emit-lib "$out/fixed" --specialise "$root/examples/gemm.tile" > "$out/log" 2>&1 || bad "--specialise gemm: $(head -3 "$out/log")"
grep -q 'tl_grid_of' "$out/fixed/gemm.c" && bad "gemm.c --specialise computes a grid at launch" || ok
grep -q 'tl_grid_of' "$out/gemm.c" && ok || bad "gemm.c (dynamic M, N, K) computes no grid at launch"
# a C++ translation unit takes the header too
printf '#include "gemm.h"\nint f(void) { return gemm(0, 0, 0, 0, 0); }\n' > "$out/use.cpp"
if command -v c++ > /dev/null; then
    c++ -c -Wall -Werror -I"$cuda_include" -I"$out" "$out/use.cpp" -o "$out/use.o" && ok || bad "gemm.h from C++"
fi
# one --arch: one cubin
"$tilec" --emit-lib "$out" --arch sm_90a "$root/examples/softmax.tile" && [ "$(grep -c '^/\* sm_' "$out/softmax.c")" = 1 ] &&
    ok || bad "--arch sm_90a: not one cubin"
"$tilec" --emit-lib "$out/none" "$root/examples/add.tile" > "$out/log" 2>&1
[ $? = 2 ] && grep -q "is not a directory" "$out/log" && ok || bad "a missing directory: $(cat "$out/log")"
printf 'kernel s8(X: f32[N], out Y: f32[N], a: f8e4m3)\n    where N = 256, a = 1\n    grid(1) as (bx)\n    threads 256\n{\n    for (i) in parallel(256) { Y[i] = X[i] * f32(a); }\n}\n' > "$out/s8.tile"
"$tilec" --emit-lib "$out" "$out/s8.tile" > "$out/log" 2>&1
[ $? = 2 ] && grep -q "no fp8 conversion" "$out/log" && ok || bad "an fp8 scalar: $(cat "$out/log")"
"$tilec" --emit-lib > "$out/log" 2>&1
[ $? = 2 ] && ok || bad "--emit-lib without a directory"
rm -rf "$out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
