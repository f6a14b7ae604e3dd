#!/usr/bin/env bash
# emit_lib_launch.sh TILEC ROOT CUDA_INCLUDE - the launchers `tilec
# --emit-lib` writes for the kernels of dynamic sizes in tests/emit_lib,
# linked with a stub of the CUDA driver (tests/emit_lib/cuda_stub.c) in
# place of libcuda, run without a GPU (tests/emit_lib/test_launch_stub.c):
# sizes from the shapes, promises and grid limits refused with 2, the grid
# (the variants' choice, split tiles and half tiles included), the int arguments and the tensor
# maps at each size; and a kernel of fixed sizes (examples/gemm.tile
# --specialise) launched as before.
set -u
tilec=$1
root=$2
cuda_include=$3
cc=${CC:-cc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# (gemm_dyn and its variants: the split one for a grid of less than a
# wave where the loop is long enough, the halves one for at most half a
# wave)
"$tilec" --emit-lib "$out" "$root/tests/emit_lib/gemm_dyn.tile" || { echo "FAIL: --emit-lib gemm_dyn.tile"; exit 1; }
for k in scale_rows grid_ops; do
    "$tilec" --emit-lib "$out" "$root/tests/emit_lib/$k.tile" || { echo "FAIL: --emit-lib $k.tile"; exit 1; }
done
# (the example's dynamic sizes compiled in: a kernel of fixed sizes)
"$tilec" --emit-lib "$out" --specialise --set M=256,N=256,K=256 "$root/examples/gemm.tile" || { echo "FAIL: --emit-lib gemm.tile"; exit 1; }
"$cc" -std=c11 -O1 -Wall -Wextra -Werror -I"$cuda_include" -I"$out" -I"$root/tests/emit_lib" \
    "$root/tests/emit_lib/test_launch_stub.c" "$root/tests/emit_lib/cuda_stub.c" \
    "$out/gemm_dyn.c" "$out/scale_rows.c" "$out/grid_ops.c" "$out/gemm.c" -lpthread -o "$out/test" || { echo "FAIL: build"; exit 1; }
"$out/test"
