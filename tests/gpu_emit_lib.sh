#!/usr/bin/env bash
# gpu_emit_lib.sh TILEC ROOT CUDA_INCLUDE - what `tilec --emit-lib` writes,
# linked into a C program with -lcuda and nothing of tilec, runs and
# verifies on the GPU (tests/emit_lib/run_gemm_layernorm.c; a GEMM of
# dynamic sizes emitted once and run at several sizes,
# tests/emit_lib/run_gemm_dynamic.c; a pipeline, tests/emit_lib/run_axpy.c).
# Exit 77 without a GPU.
set -u
tilec=$1
root=$2
cuda_include=$3
"$tilec" --run --set N=1000 "$root/examples/add.tile" > /dev/null 2>&1
[ $? = 4 ] && { echo "no GPU"; exit 77; }
out=$(mktemp -d)
"$tilec" --emit-lib "$out" --set M=256,N=256,K=256 "$root/examples/gemm.tile" || exit 1
"$tilec" --emit-lib "$out" --set M=64,N=1024 "$root/examples/layernorm.tile" || exit 1
# link against the driver stub where the toolkit has one; the real
# libcuda.so.1 is what runs
stubs=$(dirname "$cuda_include")/lib64/stubs
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -I"$cuda_include" -I"$out" "$root/tests/emit_lib/run_gemm_layernorm.c" \
    "$out/gemm.c" "$out/layernorm.c" -L"$stubs" -lcuda -lpthread -lm -o "$out/run" || exit 1
"$out/run"
rc=$?
"$tilec" --emit-lib "$out" "$root/tests/emit_lib/gemm_dyn.tile" || exit 1
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -I"$cuda_include" -I"$out" "$root/tests/emit_lib/run_gemm_dynamic.c" \
    "$out/gemm_dyn.c" -L"$stubs" -lcuda -lpthread -lm -o "$out/run_dynamic" || exit 1
"$out/run_dynamic" || rc=1
# a pipeline: its stages' launchers and its scratch in one file
"$tilec" --emit-lib "$out" --set L=5000 "$root/tests/frontend/valid/v_pipeline.tile" || exit 1
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -I"$cuda_include" -I"$out" "$root/tests/emit_lib/run_axpy.c" \
    "$out/axpy.c" -L"$stubs" -lcuda -lpthread -lm -o "$out/run_axpy" || exit 1
"$out/run_axpy" || rc=1
rm -rf "$out"
exit $rc
