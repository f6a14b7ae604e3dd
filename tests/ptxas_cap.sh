#!/usr/bin/env bash
# ptxas_cap.sh TILEC ROOT - kernels that ptxas, given only their block size,
# capped below the register limit and made spill (sm_80): tilec builds them
# again asking for one resident block an SM and keeps the build without
# spills; -v says so, and --emit-ptx shows the PTX that was assembled (with
# .minnctapersm 1); a kernel that does not spill is built once and its PTX
# has no such request. Needs NVRTC (and ptxas for the llvm lines), not a
# GPU; exits 77 (skipped) without them.
set -u
tilec=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tilec" --emit-ptx --arch sm_80 "$root/examples/add.tile" > /dev/null 2> "$tmp/err" || { echo "no NVRTC: $(head -1 "$tmp/err")"; exit 77; }
have_llvm=1
"$tilec" --emit-ptx --backend llvm --arch sm_80 "$root/examples/add.tile" > /dev/null 2>&1 || have_llvm=0
fail=0
# backend file kernel  expected: "again" (a second build kept) or "once"
check() {
    local b=$1 f=$2 k=$3 want=$4 name="$1 $(basename "$2") $3"
    "$tilec" -w -v --no-cache --emit-cubin -o "$tmp/k.cubin" --backend "$b" --arch sm_80 --kernel "$k" "$root/$f" 2> "$tmp/v.log" ||
        { echo "FAIL $name: $(grep -m1 error "$tmp/v.log")"; fail=1; return; }
    "$tilec" -w --no-cache --emit-ptx --backend "$b" --arch sm_80 --kernel "$k" "$root/$f" > "$tmp/k.ptx" 2> /dev/null
    local spills again directive
    spills=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' "$tmp/v.log")
    again=$(grep -c "built again asking for one resident block" "$tmp/v.log")
    directive=$(grep -c '^\.minnctapersm 1' "$tmp/k.ptx")
    local what="spill stores $spills, second build $again, .minnctapersm in PTX $directive"
    if [ "$spills" != 0 ] || [ "$directive" != "$again" ] || { [ "$want" = again ] && [ "$again" != 1 ]; } ||
       { [ "$want" = once ] && [ "$again" != 0 ]; }; then
        echo "FAIL $name: $what (want $want)"; fail=1
    else
        echo "ok   $name: $what"
    fi
}
check nvrtc tests/frontend/valid/v_cumsum.tile cumsum_row_vectors once  # spilled under the cap while its scans ran in shared memory
check nvrtc tests/frontend/valid/v_reference_forms.tile clipped_range again
check nvrtc examples/softmax.tile softmax once
if [ $have_llvm = 1 ]; then
    check llvm tests/frontend/valid/v_gemm_a_regs_types.tile gemm_a_regs_i8 again
    check llvm tests/frontend/valid/v_hopper_epilogues.tile gemm_two_outputs again
    check llvm examples/softmax.tile softmax once
fi
exit $fail
