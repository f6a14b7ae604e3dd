#!/usr/bin/env bash
# gpu_backends.sh TILEC ROOT LIST [I/N] - the two code generators give bitwise
# the same outputs: every kernel of the examples and of the contract
# programs runs once through each (`--run`, the same generated inputs) and
# the digests of their outputs (`outputs: digest ...`) must agree. Where
# the arithmetic is not done in the same order on both, LIST says so
# ("file kernel reason" per line, # comments); a listed kernel must differ
# (when it stops, its line goes), so the list only shrinks, except one
# whose reason starts "varies:" (float atomics from several blocks: its
# bits change from run to run on either backend), which is not compared.
# I/N runs
# shard I of N (files round-robin). Exits 77 (skipped) without a GPU or
# without the llvm backend.
set -u
tilec=$1
root=$2
list=$3
shard=${4:-0/1}
shard_i=${shard%/*}
shard_n=${shard#*/}
probe=$("$tilec" --run --set N=1024 "$root/examples/add.tile" 2>&1)
if [ $? = 4 ] && printf '%s' "$probe" | grep -qiE "no CUDA|GPU"; then
    echo "no GPU: $probe"
    exit 77
fi
"$tilec" --backend llvm --version > /dev/null 2>&1 || { echo "no llvm backend"; exit 77; }
known=$(sed 's/#.*//' "$list" | awk 'NF >= 2 && $3 != "varies:" {print $1 " " $2}')
varies=$(sed 's/#.*//' "$list" | awk 'NF >= 2 && $3 == "varies:" {print $1 " " $2}')
digest() {  # backend file kernel; the file's `// run-args:` (gpu_run.sh) too
    # shellcheck disable=SC2046
    timeout 300 "$tilec" --run --backend "$1" --kernel "$3" $(sed -n 's#^// run-args: ##p' "$2" | head -1) "$2" 2>&1 |
        sed -n 's/^outputs: digest \([0-9a-f]*\).*/\1/p'
}
compare() {  # file kernel: one line, ok / vary / diff / FAIL
    local f=$1 k=$2 label n l is_listed
    label="$(basename "$f") $k"
    n=$(digest nvrtc "$f" "$k")
    l=$(digest llvm "$f" "$k")
    if [ -z "$n" ] || [ -z "$l" ]; then
        echo "FAIL $label: no digest (nvrtc '${n}', llvm '${l}'); see tilec --run --backend llvm --kernel $k $f"
        return
    fi
    if grep -qxF "$label" <<< "$varies"; then
        echo "vary $label (listed, not compared): nvrtc $n, llvm $l"
        return
    fi
    is_listed=0
    grep -qxF "$label" <<< "$known" && is_listed=1
    if [ "$n" = "$l" ] && [ "$is_listed" = 1 ]; then
        echo "FAIL $label: bitwise the same now; remove it from $(basename "$list")"
    elif [ "$n" = "$l" ]; then
        echo "ok   $label: $n"
    elif [ "$is_listed" = 1 ]; then
        echo "diff $label (listed): nvrtc $n, llvm $l"
    else
        echo "FAIL $label: nvrtc $n, llvm $l"
    fi
}
# one job per kernel, TILEC_TEST_JOBS (default 4) at a time: the two
# compiles of each dominate, and one GPU runs several small kernels at once
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfile=0
njob=0
for f in "$root"/examples/*.tile "$root"/tests/frontend/valid/*.tile; do
    nfile=$((nfile + 1))
    [ $(((nfile - 1) % shard_n)) = "$shard_i" ] || continue
    for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
        while [ "$(jobs -rp | wc -l)" -ge "${TILEC_TEST_JOBS:-4}" ]; do wait -n; done
        compare "$f" "$k" > "$tmp/$(printf '%04d' $njob).out" &
        njob=$((njob + 1))
    done
done
wait
cat "$tmp"/[0-9]*.out 2>/dev/null
same=$(cat "$tmp"/[0-9]*.out 2>/dev/null | grep -c '^ok')
listed=$(cat "$tmp"/[0-9]*.out 2>/dev/null | grep -c -E '^(diff|vary)')
fail=$(cat "$tmp"/[0-9]*.out 2>/dev/null | grep -c '^FAIL')
echo "$same bitwise the same, $listed listed as different, $fail failed"
[ "$fail" = 0 ]
