#!/usr/bin/env bash
# compile_all.sh TILEC DIR... - every kernel of every .tile file in the
# directories compiles with NVRTC for sm_80 and sm_90a (no GPU needed);
# prints registers and spills from the ptxas log for each, and fails on a
# ptxas "Potential Performance Loss" remark (serialised wgmma).
set -u
tilec=$1
shift
pass=0
fail=0
spilled=0
out=$(mktemp)
# check LABEL NO_SPILLS COMMAND...: runs the compile command and judges
# its ptxas log. A failure fails, and so does a "Potential Performance
# Loss" remark: ptxas serialising wgmmas (C7514/C7520...) is a code
# generation bug on the Hopper path. Spills fail when NO_SPILLS is 1 and
# are counted otherwise.
check() {
    local label=$1 no_spills=$2
    shift 2
    if ! "$@" > "$out.log" 2>&1; then
        fail=$((fail + 1))
        echo "FAIL $label:"
        head -20 "$out.log"
        return
    fi
    local line
    line=$(grep -m1 ' registers, ' "$out.log" | sed 's/^tilec: //')
    local spills=0
    case "$line" in *" 0 bytes spill stores"*) ;; *) spills=1 ;; esac
    if grep -q "Potential Performance Loss" "$out.log"; then
        fail=$((fail + 1))
        echo "FAIL $label: $(grep -m1 'Potential Performance Loss' "$out.log")"
    elif [ "$spills" = 1 ] && [ "$no_spills" = 1 ]; then
        fail=$((fail + 1))
        echo "FAIL $label: spills: $line"
    else
        pass=$((pass + 1))
        spilled=$((spilled + spills))
        echo "ok   $label: $line"
    fi
}
for dir in "$@"; do
    for f in "$dir"/*.tile; do
        for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
            for arch in sm_80 sm_90a; do
                check "$f $k $arch" 0 "$tilec" -v --no-cache --kernel "$k" --arch "$arch" --emit-cubin -o "$out" "$f"
            done
        done
    done
done
rm -f "$out" "$out.log"
echo "$pass passed, $fail failed ($spilled with spills)"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
