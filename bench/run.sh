#!/usr/bin/env bash
# run.sh [OUTDIR] - every benchmark of bench/RESULTS.md in one go, on the GPU
# machine: `tilec --profile --json` for each workload, then the peers
# (bench/peers.py: cuBLAS, a Triton matmul, torch SDPA, copy, torch.softmax,
# F.rms_norm, F.layer_norm) in the same run, then bench/tabulate.py writes the
# markdown section (ratios, date, card, clocks) to OUTDIR/RESULTS-section.md
# for bench/RESULTS.md; the raw files go into OUTDIR/raw.tar.gz. TILEC
# selects the binary (default build/tilec); ONLY, an extended regular
# expression, the workloads (e.g. ONLY=attn: the attention rows), and
# PEERS the peer groups of bench/peers.py (default: all of them).
set -u
out=${1:-bench-out}
tilec=${TILEC:-build/tilec}
here=$(dirname "$0")
mkdir -p "$out"
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$(mktemp -d)}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
    --format=csv > "$out/gpu-before.csv" 2>&1

# name | file | --set values | extra options
# (gemm_bias_gelu at BN=256 and attention at BN=128: faster on the H200's
# sm_90a path, but the examples keep the tiles that compile without
# spills for sm_80 too as their defaults; the ragged GEMM also at BN=192:
# 24 x 11 = 264 tiles, two full waves of 132 SMs, instead of 192; and at
# 192 x 128 with 4 stages: 16 x 16 tiles in clusters of two, persistent,
# A's misaligned rows multicast (session 12: 0.97x cuBLAS); fp8 at 8192^3
# with BN=192 (1.04-1.07x cuBLAS, BN=128 ran throttled) and atol 0.05: the
# tensor cores' fp8 sums leave a few outputs near zero off by up to 0.03,
# as cuBLAS's do (0.026 % of them past the default 1e-2, session 12);
# attention with BM=192, three consumer warpgroups: at D=64 with BN=128
# 7-13 % faster than BM=128; at D=128 with BN=96 (BN=128 spills there)
# 3-9 % faster (session 9), S=16384 causal included: 9-15 % at full clock
# against BM=128 with BN=128 in session 22's interleaved A/B; layernorm
# also at softmax's 32768 rows, 256 MB each way, where the launch and the
# ramp no longer count)
workloads='
gemm_f16_4096|gemm|M=4096,N=4096,K=4096|--compare cublas
gemm_f16_8192|gemm|M=8192,N=8192,K=8192|--compare cublas
gemm_bf16_4096|gemm_bf16|M=4096,N=4096,K=4096|--compare cublas
gemm_bf16_8192|gemm_bf16|M=8192,N=8192,K=8192|--compare cublas
gemm_f16_ragged_3000x2000x1000|gemm|M=3000,N=2000,K=1000|--compare cublas
gemm_f16_ragged_3000x2000x1000_bn192|gemm|M=3000,N=2000,K=1000,BN=192|--compare cublas
gemm_f16_ragged_3000x2000x1000_bm192|gemm|M=3000,N=2000,K=1000,BM=192,BN=128,stages=4|--compare cublas
gemm_f16_split_1024x1024x8192|gemm|M=1024,N=1024,K=8192|--compare cublas
gemm_f16_split_1080x1016x4096|gemm|M=1080,N=1016,K=4096|--compare cublas
gemm_bias_gelu_4096|gemm_bias_gelu|M=4096,N=4096,K=4096,BN=256|
gemm_fp8_4096|gemm_fp8|M=4096,N=4096,K=4096|
gemm_fp8_8192|gemm_fp8|M=8192,N=8192,K=8192,BN=192|--atol 0.05
attn_f16_s4096_d128|flash_attn|causal=0,BM=192,BN=96|
attn_f16_s4096_d128_causal|flash_attn|causal=1,BM=192,BN=96|
attn_f16_s16384_d128|flash_attn|B=2,S=16384,causal=0,BM=192,BN=96|
attn_f16_s16384_d128_causal|flash_attn|B=2,S=16384,causal=1,BM=192,BN=96|
attn_f16_s4096_d64|flash_attn|D=64,causal=0,BM=192,BN=128|
attn_f16_s4096_d64_causal|flash_attn|D=64,causal=1,BM=192,BN=128|
attn_f16_s4096_d96|flash_attn|D=96,causal=0,BM=192,BN=128|
attn_f16_s4096_d96_causal|flash_attn|D=96,causal=1,BM=192,BN=128|
softmax_f16_32768x4096|softmax||
rmsnorm_bf16_16384x8192|rmsnorm||
layernorm_f16_8192x4096|layernorm||
layernorm_f16_32768x4096|layernorm|M=32768|
add_f16_2e26|add||
swiglu_f16_8192x11008|swiglu||
'
# The card throttles its clock when hot (1450-1660 MHz instead of 1980 in
# session 5's suite): before each workload, wait up to COOL_S seconds
# (default 15) for it to come down to COOL_C degrees (default 50).
cool() {
    local i
    for ((i = 0; i < ${COOL_S:-15}; i++)); do
        t=$(nvidia-smi --query-gpu=temperature.gpu --format=csv,noheader,nounits 2>/dev/null | head -1)
        [ -n "$t" ] && [ "$t" -le "${COOL_C:-50}" ] && return
        sleep 1
    done
}
while IFS='|' read -r name file values extra; do
    [ -n "$name" ] || continue
    [[ $name =~ ${ONLY:-.} ]] || continue
    cool
    set -- --profile --consistency 3 --json "$out/$name.json"
    [ -n "$values" ] && set -- "$@" --set "$values"
    # shellcheck disable=SC2086
    timeout 300 "$tilec" "$@" $extra "$here/../examples/$file.tile" > "$out/$name.txt" 2>&1
    echo "$name: exit $? $(grep -m1 '^  median' "$out/$name.txt")"
done <<< "$workloads"

cool
# shellcheck disable=SC2086
python3 "$here/peers.py" ${PEERS:-gemm fp8 triton copy softmax norm attn} > "$out/peers.jsonl" 2> "$out/peers.err"
echo "peers: exit $?"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
    --format=csv > "$out/gpu-after.csv" 2>&1
ONLY=${ONLY:-.} PEERS=${PEERS:-gemm fp8 triton copy softmax norm attn} python3 "$here/tabulate.py" "$out" > "$out/RESULTS-section.md"
cat "$out/RESULTS-section.md"
# one archive for the per-workload files (the device tool brings back a
# limited number of files), the section and the peers beside it
(cd "$out" && tar czf raw.tar.gz ./*.json ./*.txt ./*.csv ./peers.err 2>/dev/null &&
    rm -f ./*.json ./*.txt ./*.csv ./peers.err)
