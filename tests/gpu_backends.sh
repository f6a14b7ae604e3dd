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
same=0
fail=0
listed=0
digest() {  # backend file kernel; the file's `// run-args:` (gpu_run.sh) too
    # shellcheck disable=SC2046
    timeout 300 "$tilec" --run --backend "$1" --kernel "$3" $(sed -n 's#^// run-args: ##p' "$2" | head -1) "$2" 2>&1 |
        sed -n 's/^outputs: digest \([0-9a-f]*\).*/\1/p'
}
nfile=0
for f in "$root"/examples/*.tile "$root"/tests/frontend/valid/*.tile; do
    nfile=$((nfile + 1))
    [ $(((nfile - 1) % shard_n)) = "$shard_i" ] || continue
    for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
        label="$(basename "$f") $k"
        n=$(digest nvrtc "$f" "$k")
        l=$(digest llvm "$f" "$k")
        if [ -z "$n" ] || [ -z "$l" ]; then
            fail=$((fail + 1))
            echo "FAIL $label: no digest (nvrtc '${n}', llvm '${l}'); see tilec --run --backend llvm --kernel $k $f"
            continue
        fi
        if grep -qxF "$label" <<< "$varies"; then
            listed=$((listed + 1))
            echo "vary $label (listed, not compared): nvrtc $n, llvm $l"
            continue
        fi
        is_listed=0
        grep -qxF "$label" <<< "$known" && is_listed=1
        if [ "$n" = "$l" ] && [ "$is_listed" = 1 ]; then
            fail=$((fail + 1))
            echo "FAIL $label: bitwise the same now; remove it from $(basename "$list")"
        elif [ "$n" = "$l" ]; then
            same=$((same + 1))
            echo "ok   $label: $n"
        elif [ "$is_listed" = 1 ]; then
            listed=$((listed + 1))
            echo "diff $label (listed): nvrtc $n, llvm $l"
        else
            fail=$((fail + 1))
            echo "FAIL $label: nvrtc $n, llvm $l"
        fi
    done
done
echo "$same bitwise the same, $listed listed as different, $fail failed"
[ "$fail" = 0 ]
