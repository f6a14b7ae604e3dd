#!/usr/bin/env bash
# gpu_profile_tools.sh TILEC ROOT - the profiler's comparison tools on the
# GPU: a --baseline round trip on two configurations of the GEMM example
# (the smaller tiles are called slower, and --fail-if-slower exits 5), a
# pipeline compared stage by stage, a --sweep of the GEMM over four sizes
# (one compile: M is dynamic) with its CSV, plot and JSON array, and the
# split-K example, whose float atomics make runs differ bitwise, profiled
# with exit 0, and (where ncu is installed) --ncu --lines naming a line
# inside flash attention's loop. Exits 77 (skipped) without a GPU. With
# TILEC_TEST_KEEP set to a folder, the reports are copied there (for the
# examples of docs/profiling.md).
set -u
tilec=$1
root=$2
probe=$("$tilec" --run "$root/examples/add.tile" --set N=1024 2>&1)
if [ $? = 4 ] && printf '%s' "$probe" | grep -qiE "no CUDA|GPU"; then
    echo "no GPU: $probe"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TILEC_CACHE_DIR=$tmp/cache
fail=0
check() { # what, then a command that must succeed
    local what=$1
    shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
gemm=$root/examples/gemm.tile
p="--max-time 1 --consistency 2"

"$tilec" --profile $p --json "$tmp/base.json" "$gemm" > "$tmp/base.txt" 2>&1
check "the baseline run" test $? = 0
"$tilec" --profile $p --set BM=64,BN=64 --baseline "$tmp/base.json" --report "$tmp/slow.md" --json "$tmp/slow.json" \
    "$gemm" > "$tmp/slow.txt" 2>&1
check "the smaller tiles run against it" test $? = 0
check "they are called slower" grep -q "verdict: slower" "$tmp/slow.txt"
check "the markdown report has the table" grep -q "| Metric | Previous | Current | Change |" "$tmp/slow.md"
check "the JSON has the verdict" grep -q '"verdict": "slower"' "$tmp/slow.json"
"$tilec" --profile $p --set BM=64,BN=64 --baseline "$tmp/base.json" --fail-if-slower 2 "$gemm" > /dev/null 2>&1
check "--fail-if-slower exits 5" test $? = 5
"$tilec" --profile $p --baseline "$tmp/base.json" "$root/examples/softmax.tile" > "$tmp/other.txt" 2>&1
check "another kernel's baseline exits 2, the run still reported" test $? = 2
check "... with the report" grep -q "Timings" "$tmp/other.txt"

dec=$root/examples/flash_decoding.tile
"$tilec" --profile $p --json "$tmp/dec.json" "$dec" > /dev/null 2>&1
check "a pipeline's baseline run" test $? = 0
"$tilec" --profile $p --baseline "$tmp/dec.json" "$dec" > "$tmp/dec2.txt" 2>&1
check "a pipeline against its baseline" test $? = 0
check "... stage by stage" grep -q "stage 2" "$tmp/dec2.txt"

# (a cache of its own: the runs above compiled the same dynamic kernel)
TILEC_CACHE_DIR=$tmp/sweep_cache "$tilec" --profile $p --compare cublas --sweep M=1024,2048,3072,4096 --csv "$tmp/s.csv" --plot "$tmp/s.svg" \
    --json "$tmp/s.json" "$gemm" > "$tmp/sweep.txt" 2>&1
check "a sweep over four sizes" test $? = 0
check "... compiles once" grep -q "4 points, 1 compiled" "$tmp/sweep.txt"
check "... a CSV row per point" test "$(wc -l < "$tmp/s.csv")" = 5
check "... a plot with the peer" grep -q 'class="peer"' "$tmp/s.svg"
check "... a JSON array of four" python3 -c "import json,sys; a=json.load(open(sys.argv[1])); sys.exit(len(a)!=4 or a[3]['values']['M']!=4096)" "$tmp/s.json"

"$tilec" --profile $p "$root/examples/gemm_splitk.tile" > "$tmp/splitk.txt" 2>&1
check "the split-K kernel profiles with exit 0" test $? = 0
check "... its runs compared within the tolerance" grep -q "within the verification tolerance" "$tmp/splitk.txt"
# --ncu --lines on flash attention: its hottest line lies in the key loop
if command -v ncu > /dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
    fa=$root/examples/flash_attn.tile
    "$tilec" --profile $p --ncu --lines --json "$tmp/fa.json" "$fa" > "$tmp/fa.txt" 2>&1
    check "--ncu --lines on flash attention" grep -q "Hot lines" "$tmp/fa.txt"
    check "... its hottest line inside the loop" python3 - "$fa" "$tmp/fa.json" <<'PY'
import json, re, sys
src = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(src) if "pipelined" in l) + 1   # 1-based line of the loop
depth, end = 0, None
for i in range(start - 1, len(src)):
    depth += src[i].count("{") - src[i].count("}")
    if depth == 0 and i >= start:
        end = i + 1
        break
lines = json.load(open(sys.argv[2])).get("lines") or []
sys.exit(0 if lines and start <= lines[0]["line"] <= end else 1)
PY
else
    echo "skip --ncu --lines: no ncu on this machine"
fi
[ -z "${TILEC_TEST_KEEP:-}" ] || { mkdir -p "$TILEC_TEST_KEEP" && cp "$tmp"/*.txt "$tmp"/*.md "$tmp"/*.csv "$tmp"/*.svg "$tmp"/*.json "$TILEC_TEST_KEEP"; }
[ $fail = 0 ] || { cat "$tmp"/*.txt | head -150; }
exit $fail
