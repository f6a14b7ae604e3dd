#!/usr/bin/env bash
# llvm_ptx.sh TILEC ROOT - the llvm backend against NVRTC on every kernel
# of tests/llvm (gemms with operands put in shared memory by parallel
# loops, reductions):
# for sm_80, the PTX of --backend llvm assembles (ptxas), has as many
# mma.sync and ldmatrix instructions as NVRTC's, and no local memory
# where NVRTC's has none; the register counts of both are printed. Needs
# the llvm backend, NVRTC and ptxas, not a GPU; exits 77 (skipped)
# without them.
set -u
tilec=$1
root=$2
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[ -x "$ptxas" ] || { echo "no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
probe="$root/tests/llvm/gemm_f16.tile"
"$tilec" --emit-ptx --backend llvm --arch sm_80 "$probe" > /dev/null 2> "$tmp/err"
[ $? = 2 ] && { echo "no llvm backend: $(head -1 "$tmp/err")"; exit 77; }
"$tilec" --emit-ptx --arch sm_80 "$probe" > /dev/null 2> "$tmp/err" || { echo "no NVRTC: $(head -1 "$tmp/err")"; exit 77; }
fail=0
count() { grep -c "$1" "$2"; }
# ptxas -v: "<r> <stack bytes>"
assemble() {
    "$ptxas" -arch=sm_80 -v "$1" -o "$1.cubin" 2> "$1.log" || return 1
    echo "$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$1.log") $(sed -n 's/^.* \([0-9]*\) bytes stack frame.*/\1/p' "$1.log")"
}
for f in "$root"/tests/llvm/*.tile; do
  for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
    name="$(basename "$f" .tile) $k"
    for b in llvm nvrtc; do
        "$tilec" --emit-ptx --backend $b --arch sm_80 --kernel "$k" "$f" 2> "$tmp/$b.err" | tr -d '\0' > "$tmp/$b.ptx"
    done
    if [ -s "$tmp/llvm.err" ] || [ ! -s "$tmp/llvm.ptx" ]; then
        echo "FAIL $name: $(head -1 "$tmp/llvm.err")"; fail=1; continue
    fi
    l=$(assemble "$tmp/llvm.ptx") || { echo "FAIL $name: ptxas: $(grep -m1 error "$tmp/llvm.ptx.log")"; fail=1; continue; }
    n=$(assemble "$tmp/nvrtc.ptx") || { echo "FAIL $name: ptxas on NVRTC's PTX"; fail=1; continue; }
    set -- $l $n
    lm=$(count mma.sync "$tmp/llvm.ptx"); nm=$(count mma.sync "$tmp/nvrtc.ptx")
    ll=$(count ldmatrix "$tmp/llvm.ptx"); nl=$(count ldmatrix "$tmp/nvrtc.ptx")
    what="mma.sync $lm/$nm, ldmatrix $ll/$nl, registers $1/$3, stack $2/$4 (llvm/nvrtc)"
    if [ "$lm" != "$nm" ] || [ "$ll" != "$nl" ] || { [ "$2" != 0 ] && [ "$4" = 0 ]; }; then
        echo "FAIL $name: $what"; fail=1
    else
        echo "ok   $name: $what"
    fi
  done
done
exit $fail
