#!/usr/bin/env bash
# dynamic.sh OUT [ROUNDS] - issue 33's speed figures for dynamic sizes, on
# the GPU machine after ./build.sh: each example's dynamic kernel (one
# compiled kernel, the sizes read at launch) against the same program with
# its sizes compiled in (--specialise), alternating in each round (ab.sh),
# the GEMMs with cuBLAS beside them. Targets: within 3 % of the specialised
# kernel at 4096^3 and 8192^3 and at S = 4096 and 16384; at least as fast
# at ragged sizes. The dynamic kernels run twice: a block per tile (the
# default) and persistent blocks over the run-time tiles (--persistent=on),
# which decides the default for dynamic grids.
set -u
out=$1
rounds=${2:-3}
here=$(dirname "$0")
t=build/tilec
specs=()
for mnk in M=4096,N=4096,K=4096 M=8192,N=8192,K=8192 M=3000,N=2000,K=1000 M=1000,N=1504,K=704; do
    specs+=("gemm_dyn_$mnk|$t|gemm|$mnk|--compare cublas" "gemm_dynp_$mnk|$t|gemm|$mnk|--compare cublas --persistent=on"
            "gemm_spec_$mnk|$t|gemm|$mnk|--compare cublas --specialise")
done
for bs in B=8,S=4096 B=2,S=16384; do
    specs+=("attn_dyn_$bs|$t|flash_attn|$bs|" "attn_dynp_$bs|$t|flash_attn|$bs|--persistent=on"
            "attn_spec_$bs|$t|flash_attn|$bs|--specialise")
done
specs+=("ln_dyn|$t|layernorm||" "ln_spec|$t|layernorm||--specialise" "sm_dyn|$t|softmax||" "sm_spec|$t|softmax||--specialise")
bash "$here/ab.sh" "$out" "$rounds" "${specs[@]}"
