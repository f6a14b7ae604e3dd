#!/usr/bin/env bash
# llvm_compile_all.sh TILEC PENDING DIR... - every kernel of every .tile
# file in the directories, for sm_80 and sm_90a, through the llvm backend:
# LLVM's PTX must assemble (tilec's PTX assembler, -v) without spills. What the
# backend does not lower yet is listed in PENDING ("file kernel arch" per
# line, # comments): those must fail with the backend's located "does not
# lower ... yet" error, and one that now compiles fails the test until its
# line is removed, so the list only shrinks. A line "file kernel arch
# spills" is a known register-pressure gap: it must compile, and spill
# (when it stops, the line must go). Prints registers for each.
set -u
tilec=$1
pending_file=$2
shift 2
pass=0
fail=0
pending=0
out=$(mktemp)
trap 'rm -f "$out" "$out.log"' EXIT
pending_list=$(sed 's/#.*//' "$pending_file" | awk 'NF == 3 {print $1 " " $2 " " $3}')
spill_list=$(sed 's/#.*//' "$pending_file" | awk 'NF == 4 && $4 == "spills" {print $1 " " $2 " " $3}')
spilling=0
for dir in "$@"; do
    for f in "$dir"/*.tile; do
        name=$(basename "$f")
        for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
            for arch in sm_80 sm_90a; do
                label="$name $k $arch"
                is_pending=0 may_spill=0
                grep -qxF "$label" <<< "$pending_list" && is_pending=1
                grep -qxF "$label" <<< "$spill_list" && may_spill=1
                "$tilec" -v --no-cache --backend llvm --kernel "$k" --arch "$arch" --emit-cubin -o "$out" "$f" \
                    > "$out.log" 2>&1
                rc=$?
                line=$(grep -m1 ' registers, ' "$out.log" | sed 's/^tilec: //')
                if [ "$is_pending" = 1 ]; then
                    if [ "$rc" = 0 ]; then
                        fail=$((fail + 1))
                        echo "FAIL $label: compiles now; remove it from $(basename "$pending_file")"
                    elif [ "$rc" = 1 ] && grep -q "error: the llvm backend does not lower .* yet" "$out.log"; then
                        pending=$((pending + 1))
                        echo "pend $label: $(grep -m1 'does not lower' "$out.log" | sed 's/.*error: //')"
                    else
                        fail=$((fail + 1))
                        echo "FAIL $label (pending, but failed otherwise, exit $rc):"
                        head -10 "$out.log"
                    fi
                elif [ "$rc" != 0 ]; then
                    fail=$((fail + 1))
                    echo "FAIL $label (exit $rc):"
                    head -10 "$out.log"
                elif ! grep -q ' 0 bytes spill stores' <<< "$line"; then
                    if [ "$may_spill" = 1 ]; then
                        spilling=$((spilling + 1))
                        echo "spil $label (a known gap): $line"
                    else
                        fail=$((fail + 1))
                        echo "FAIL $label: spills: $line"
                    fi
                elif [ "$may_spill" = 1 ]; then
                    fail=$((fail + 1))
                    echo "FAIL $label: no longer spills; remove 'spills' line from $(basename "$pending_file")"
                else
                    pass=$((pass + 1))
                    echo "ok   $label: $line"
                fi
            done
        done
    done
done
echo "$pass compiled, $spilling spilling (known), $pending pending, $fail failed"
[ "$fail" = 0 ]
