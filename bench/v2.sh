#!/usr/bin/env bash
# v2.sh [OUTDIR] - the version-2 workloads of issues 35 and 36 (flash
# decoding, BSHD GQA attention, attention backward, layer-norm backward,
# dropout, cumsum, the MoE expert GEMM, small and ragged GEMMs, fp8 at K
# 1000 and 3000, W4A16) on the GPU machine: `tilec --profile --consistency 3
# --json` for each, then `bench/peers.py v2` in the same run, then a
# markdown table of times side by side (OUTDIR/v2-section.md). Times, not
# rates: each peer does the same work as its workload (the MoE peer on rows
# already grouped; "copy, same bytes" copies what the workload must move),
# so peer / tilec is the speed-up, and the copy's is the fraction of copy
# bandwidth. TILEC selects the binary (default build/tilec), ONLY (an
# extended regular expression) the workloads; the peers all run.
set -u
out=${1:-bench-v2}
tilec=${TILEC:-build/tilec}
here=$(dirname "$0")
mkdir -p "$out"
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$(mktemp -d)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader > "$out/card.txt" 2>&1

# name (the peers' workload) | file | --set values | extra options
# (the fp8 GEMMs at K 1000 and 3000 with atol 3e-2: sums near zero of the
# tensor cores' narrow fp8 adds, as gpu_run.sh's; the pipelines by name)
workloads='
decode_gqa|flash_decoding||--kernel flash_decoding
gqa_bshd_s4096_d128|flash_attn_bshd_gqa|causal=0|
gqa_bshd_s4096_d128_causal|flash_attn_bshd_gqa|causal=1|
attn_bwd_s4096_d128|flash_attn_bwd|B=8,H=16,S=4096,D=128,causal=0|--kernel flash_attn_bwd
attn_bwd_s4096_d128_causal|flash_attn_bwd|B=8,H=16,S=4096,D=128,causal=1|--kernel flash_attn_bwd
layernorm_bwd_8192x4096|layernorm_bwd||--kernel layernorm_bwd
dropout_8192x4096|dropout||
cumsum_8192x4096|cumsum||
moe_gemm|moe_gemm||
gemm_f16_1000x1500x700|gemm|M=1000,N=1500,K=700|--specialise --compare cublas
gemm_f16_3000x2000x1000|gemm|M=3000,N=2000,K=1000|--compare cublas
gemm_f16_2048x2048x2048|gemm|M=2048,N=2048,K=2048|--compare cublas
gemm_fp8_4096x4096x1000|gemm_fp8|M=4096,N=4096,K=1000|--specialise --atol 3e-2
gemm_fp8_4096x4096x3000|gemm_fp8|M=4096,N=4096,K=3000|--specialise --atol 3e-2
gemm_w4a16_m16|gemm_w4a16_decode||
gemm_w4a16_m4096|gemm_w4a16|M=4096|
'
while IFS='|' read -r name file values extra; do
    [ -n "$name" ] || continue
    [[ $name =~ ${ONLY:-.} ]] || continue
    set -- --profile --consistency 3 --json "$out/$name.json"
    [ -n "$values" ] && set -- "$@" --set "$values"
    # shellcheck disable=SC2086
    timeout 400 "$tilec" "$@" $extra "$here/../examples/$file.tile" > "$out/$name.txt" 2>&1
    echo "$name: exit $? $(grep -m1 '^  median' "$out/$name.txt")"
done <<< "$workloads"

python3 "$here/peers.py" v2 > "$out/peers.jsonl" 2> "$out/peers.err"
echo "peers: exit $?"
python3 - "$out" > "$out/v2-section.md" <<'PY'
import json, os, sys
out = sys.argv[1]
peers = {}
for line in open(os.path.join(out, "peers.jsonl")):
    if line.startswith("{"):
        r = json.loads(line)
        peers.setdefault(r["workload"], []).append(r)
print(f"Card: {open(os.path.join(out, 'card.txt')).read().strip()}. `bench/v2.sh` (tilec `--profile --consistency 3`, "
      "then `bench/peers.py v2`, one run).\n")
print("| workload | tilec median (SM clock) | verified | peer median (SM clock) | peer / tilec |")
print("|---|---|---|---|---|")
for name in sorted({f[:-5] for f in os.listdir(out) if f.endswith(".json")}):
    t = json.load(open(os.path.join(out, name + ".json")))
    b = t.get("bench") or {}
    v = t.get("verify") or {}
    ms = b.get("median_ms")
    mine = f"{ms:.4g} ms ({b.get('sm_clock_mhz') or 0:.0f} MHz)" if ms else "not timed"
    ok = "yes" if v.get("passed") else "no"
    for p in peers.get(name, []) or [{}]:
        pm = p.get("median_ms")
        theirs = f"{p.get('peer', '-')} {pm:.4g} ms ({p.get('sm_clock_mhz') or 0:.0f} MHz)" if pm else "-"
        ratio = f"{pm / ms:.3f}x" if pm and ms else "-"
        print(f"| {name} | {mine} | {ok} | {theirs} | {ratio} |")
PY
cat "$out/v2-section.md"
