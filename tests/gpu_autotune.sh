#!/usr/bin/env bash
# gpu_autotune.sh TILEC ROOT - --autotune on every example with a tune list
# (at moderate sizes so the whole run takes minutes): each must find a
# verified best configuration, and a following --run must use it. Exits 77
# (skipped) without a GPU.
set -u
tilec=$1
root=$2
cache=$(mktemp -d)
"$tilec" --autotune --cache-dir "$cache" --set N=4096 "$root/examples/add.tile" > /dev/null 2>&1
[ $? = 4 ] && { echo "no GPU"; rm -rf "$cache"; exit 77; }
sizes() {
    case $1 in
    gemm|gemm_bf16|gemm_bias_gelu|gemm_fp8) echo "--set M=2048,N=2048,K=2048" ;;
    flash_attn) echo "--set B=2,H=4,S=1024" ;;
    add) echo "--set N=16777216" ;;
    # the version-2 examples' defaults (a 16384-token MoE, B 8 S 4096
    # attention, 8192-wide W4A16) made every candidate's run and check
    # long: the test is of the mechanism, not of these sizes' best tiles
    flash_attn_bshd_gqa) echo "--set B=1,S=1024" ;;
    gemm_w4a16) echo "--set M=256,N=2048,K=2048" ;;
    moe_gemm) echo "--set T=1024,K=1024,N=2048,P=2048" ;;
    mla_decode) echo "--set B=2,S=1024" ;;
    flash_decoding) echo "--set B=8,S=2048" ;;
    *) echo "" ;;
    esac
}
pass=0
fail=0
for f in "$root"/examples/*.tile; do
    grep -q ' in \[' "$f" || continue
    k=$(basename "$f" .tile)
    # a pipeline is tuned a stage at a time: its first kernel with a tune list
    pick=()
    if grep -q '^pipeline ' "$f"; then
        pick=(--kernel "$(awk '/^kernel /{split($2, n, "("); name = n[1]} /^ +tune /{print name; exit}' "$f")")
    fi
    out=$(timeout 300 "$tilec" --autotune --cache-dir "$cache" "${pick[@]}" $(sizes "$k") "$f" 2>&1)
    rc=$?
    best=$(printf '%s\n' "$out" | grep -m1 "best " || true)
    used=$("$tilec" --run --cache-dir "$cache" "${pick[@]}" $(sizes "$k") "$f" 2>&1 | grep -c "using the autotuned configuration")
    if [ $rc = 0 ] && [ -n "$best" ] && [ "$used" = 1 ]; then
        pass=$((pass + 1))
        echo "ok   $k: $best"
    else
        fail=$((fail + 1))
        echo "FAIL $k (exit $rc, used $used)"
        printf '%s\n' "$out" | tail -15
    fi
done
rm -rf "$cache"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
