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
        "$tilec" --emit-ptx -w --backend $b --arch sm_80 --kernel "$k" "$f" 2> "$tmp/$b.err" | tr -d '\0' > "$tmp/$b.ptx"
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
# for sm_90a, every kernel of the examples and tests that takes the
# warp-specialised path on NVRTC: the llvm backend's PTX has wgmma,
# cp.async.bulk.tensor (TMA loads and stores), cp.reduce.async.bulk.tensor
# (TMA reductions) and setmaxnreg where NVRTC's has them, and
# ptxas (whole program, as tilec runs it) gives it no performance warning
# (serialised wgmmas C7509/C7519, ignored setmaxnreg C7504, ...) that it
# does not give NVRTC's.
warnings() { grep -o 'C75[0-9][0-9]' "$1" | sort -u | tr '\n' ' '; }
for f in "$root"/examples/*.tile "$root"/tests/frontend/valid/*.tile; do
  for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f"); do
    name="$(basename "$f" .tile) $k sm_90a"
    "$tilec" --emit-ptx --arch sm_90a --kernel "$k" "$f" 2> /dev/null | tr -d '\0' > "$tmp/nvrtc.ptx"
    grep -q 'wgmma.mma_async' "$tmp/nvrtc.ptx" || continue
    "$tilec" --emit-ptx -w --backend llvm --arch sm_90a --kernel "$k" "$f" 2> "$tmp/llvm.err" > "$tmp/llvm.ptx"
    if [ ! -s "$tmp/llvm.ptx" ]; then
        echo "FAIL $name: $(head -1 "$tmp/llvm.err")"; fail=1; continue
    fi
    what=""
    for op in wgmma.mma_async cp.async.bulk.tensor cp.reduce.async.bulk.tensor setmaxnreg; do
        n=$(count "$op" "$tmp/nvrtc.ptx"); l=$(count "$op" "$tmp/llvm.ptx")
        what="$what$op $l/$n, "
        if [ "$n" != 0 ] && [ "$l" = 0 ]; then what="$what(missing) "; fail=1; fi
    done
    "$ptxas" -arch=sm_90a -v "$tmp/llvm.ptx" -o "$tmp/l.cubin" 2> "$tmp/l.log" || { echo "FAIL $name: ptxas: $(grep -m1 error "$tmp/l.log")"; fail=1; continue; }
    "$ptxas" -arch=sm_90a -v "$tmp/nvrtc.ptx" -o "$tmp/n.cubin" 2> "$tmp/n.log" || { echo "FAIL $name: ptxas on NVRTC's PTX"; fail=1; continue; }
    lw=$(warnings "$tmp/l.log"); nw=$(warnings "$tmp/n.log")
    what="${what}ptxas warnings [$lw]/[$nw] (llvm/nvrtc)"
    extra=""
    for w in $lw; do grep -qw "$w" <<< "$nw" || extra="$extra $w"; done
    if grep -q missing <<< "$what" || [ -n "$extra" ]; then
        echo "FAIL $name: $what"; fail=1
    else
        echo "ok   $name: $what"
    fi
  done
done
# attention on sm_90a, where the llvm path had a gap: P's f16 pairs reach
# wgmma's A registers as `mov.b32 %r, {%lo, %hi}`, the form ptxas folds
# with the two conversions into one F2FP (zero-extends, a shift and an or
# kept them apart: twice the conversions on the pipe the exponentials use);
# and at three consumer warpgroups (128 registers a thread) no setting of
# the example spills, causal or not, D 64 to 128 (loop strength reduction
# off: its induction variables spilled causal D 128).
for set in causal=0,D=128 causal=1,D=128 causal=1,D=96 causal=1,D=64 causal=1,D=128,BM=128,BN=128; do
    name="flash_attn sm_90a $set"
    "$tilec" --emit-ptx -w --backend llvm --arch sm_90a --set "$set" "$root/examples/flash_attn.tile" 2> "$tmp/llvm.err" > "$tmp/llvm.ptx"
    packs=$(grep -cE 'mov\.b32[[:space:]]+%r[0-9]+, \{%rs[0-9]+, %rs[0-9]+\}' "$tmp/llvm.ptx")
    widen=$(grep -c 'cvt\.u32\.u16' "$tmp/llvm.ptx")
    "$ptxas" -arch=sm_90a -v "$tmp/llvm.ptx" -o "$tmp/l.cubin" 2> "$tmp/l.log" || { echo "FAIL $name: ptxas: $(grep -m1 error "$tmp/l.log")"; fail=1; continue; }
    spill=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' "$tmp/l.log" | sort -n | tail -1)
    what="P packed by mov.b32 $packs, zero-extended halves $widen, spill stores ${spill:-?}"
    if [ "$packs" -lt 24 ] || [ "$widen" != 0 ] || [ "${spill:-1}" != 0 ]; then
        echo "FAIL $name: $what"; fail=1
    else
        echo "ok   $name: $what"
    fi
done
# W4A16's dequantisation loads each packed byte once (two weights a
# byte): NVRTC's PTX has no more byte loads from shared memory than LLVM's,
# which merges the loads of columns 2t and 2t + 1 itself (NVVM does since
# those columns' parity is or-ed: acc_coords in codegen/lower_parallel.c;
# before, 32 loads a k-step against LLVM's 16).
for fk in gemm_w4a16:gemm_w4a16 gemm_w4a16_decode:w4a16_split; do
  for arch in sm_80 sm_90a; do
    name="${fk#*:} $arch"
    for b in llvm nvrtc; do
        "$tilec" --emit-ptx -w --backend $b --arch $arch --kernel "${fk#*:}" "$root/examples/${fk%:*}.tile" 2> /dev/null > "$tmp/$b.ptx"
    done
    l=$(count 'ld.shared.u8' "$tmp/llvm.ptx"); n=$(count 'ld.shared.u8' "$tmp/nvrtc.ptx")
    if [ "$l" = 0 ] || [ "$n" -gt "$l" ]; then
        echo "FAIL $name: byte loads from shared memory $l/$n (llvm/nvrtc)"; fail=1
    else
        echo "ok   $name: byte loads from shared memory $l/$n (llvm/nvrtc)"
    fi
  done
done
# copysign is one PTX instruction on the llvm path too (use_ptx_copysign in
# codegen/llvm_target.c; LLVM 19 expanded it into seven, and on sm_80 the
# expansion in erf made gemm_bias_gelu spill): as many as NVRTC's.
for b in llvm nvrtc; do
    "$tilec" --emit-ptx -w --backend $b --arch sm_80 "$root/examples/gemm_bias_gelu.tile" 2> /dev/null > "$tmp/$b.ptx"
done
l=$(count 'copysign.f32' "$tmp/llvm.ptx"); n=$(count 'copysign.f32' "$tmp/nvrtc.ptx")
if [ "$n" = 0 ] || [ "$l" != "$n" ]; then
    echo "FAIL gemm_bias_gelu sm_80: copysign.f32 $l/$n (llvm/nvrtc)"; fail=1
else
    echo "ok   gemm_bias_gelu sm_80: copysign.f32 $l/$n (llvm/nvrtc)"
fi
exit $fail
