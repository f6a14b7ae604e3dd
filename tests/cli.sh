#!/usr/bin/env bash
# cli.sh TILEC ROOT - the command line's exit codes and messages, on a
# machine with or without a GPU.
set -u
tilec=$1
root=$2
ex=$root/examples/gemm.tile
pass=0
fail=0
expect() {  # expected-exit description command...
    local want=$1 what=$2
    shift 2
    out=$("$@" 2>&1)
    local rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $what: exit $rc, expected $want"; echo "$out" | head -5; fi
}
tmp=$(mktemp -d)
expect 0 "--check of an example" "$tilec" --check "$ex"
expect 0 "--help" "$tilec" --help
expect 0 "--version" "$tilec" --version
expect 2 "unknown option" "$tilec" --frobnicate "$ex"
expect 2 "no input file" "$tilec"
expect 2 "two input files" "$tilec" "$ex" "$ex"
expect 2 "missing file" "$tilec" "$tmp/none.tile"
expect 2 "--emit-cubin without -o" "$tilec" --emit-cubin "$ex"
expect 2 "bad --arch" "$tilec" --arch sm_xx --emit-ptx "$ex"
expect 2 "--arch older than sm_80" "$tilec" --arch sm_75 --emit-ptx "$ex"
expect 2 "bad --set" "$tilec" --set M "$ex"
expect 2 "--set of an unknown name" "$tilec" --set FOO=1 "$ex"
expect 2 "--set of a size to 0" "$tilec" --set M=0 "$ex"
expect 2 "--kernel of an unknown kernel" "$tilec" --kernel nope "$ex"
expect 2 "bad --supply" "$tilec" --supply gaussian --run "$ex"
expect 2 "bad --print-ir-after" "$tilec" --print-ir-after=nope --emit-ir "$ex"
expect 2 "a kernel must be chosen to lower" "$tilec" --emit-cuda "$root/tests/frontend/valid/v_multi_kernel.tile"
expect 0 "--emit-cuda" "$tilec" --emit-cuda "$ex"
expect 0 "--backend nvrtc" "$tilec" --backend nvrtc --emit-cuda "$ex"
expect 2 "--emit-cuda of the llvm backend" "$tilec" --backend llvm --emit-cuda "$ex"
expect 2 "--emit-llvm with --backend nvrtc" "$tilec" --emit-llvm --backend nvrtc "$ex"
# --emit-llvm of a pipeline: each stage's module under its stage line (the
# text is kept for --emit-llvm only); exit 2 where tilec has no LLVM
out=$("$tilec" --emit-llvm "$root/examples/flash_decoding.tile" 2>&1); rc=$?
case "$rc:$(printf '%s\n' "$out" | grep -cE '^define ptx_kernel|^;; ---- stage [12] of pipeline')" in
    0:4|2:0) pass=$((pass + 1)) ;;
    *) fail=$((fail + 1)); echo "FAIL --emit-llvm of a pipeline: exit $rc"; printf '%s\n' "$out" | head -3 ;;
esac
expect 2 "--backend of an unknown kind" "$tilec" --backend=gcc --emit-cuda "$ex"
expect 0 "--emit-ir" "$tilec" --emit-ir "$ex"
# the profiler's comparisons: every bad use refused before anything runs
expect 2 "--sweep without --profile" "$tilec" --run --sweep M=1024,2048 "$ex"
expect 2 "--sweep of an empty list" "$tilec" --profile --sweep M= "$ex"
expect 2 "--sweep without a list" "$tilec" --profile --sweep M "$ex"
expect 2 "--sweep of an unknown size" "$tilec" --profile --sweep Q=1,2 "$ex"
expect 2 "--sweep of too many points" "$tilec" --profile --sweep M=1..9 --sweep N=1..9 "$ex"
expect 2 "--sweep of a range that never ends" "$tilec" --profile --sweep M=64..1024*1 "$ex"
expect 2 "--sweep of a size twice" "$tilec" --profile --sweep M=64 --sweep M=128 "$ex"
expect 2 "--sweep and --set of one size" "$tilec" --profile --sweep M=64 --set M=128 "$ex"
expect 2 "--sweep of a value the size cannot take" "$tilec" --profile --sweep M=0 "$ex"
expect 2 "--sweep with --trace" "$tilec" --profile --sweep M=64 --trace "$tmp/t.json" "$ex"
expect 2 "--csv without --sweep" "$tilec" --profile --csv "$tmp/s.csv" "$ex"
expect 2 "--plot without --sweep" "$tilec" --profile --plot "$tmp/s.svg" "$ex"
expect 2 "--baseline without --profile" "$tilec" --run --baseline "$tmp/b.json" "$ex"
expect 2 "--baseline with --sweep" "$tilec" --profile --sweep M=64 --baseline "$tmp/b.json" "$ex"
expect 2 "--fail-if-slower without --baseline" "$tilec" --profile --fail-if-slower 5 "$ex"
expect 2 "--fail-if-slower of no percentage" "$tilec" --profile --baseline "$tmp/b.json" --fail-if-slower x "$ex"
expect 2 "--lines without --ncu" "$tilec" --profile --lines "$ex"
expect 2 "--bench-backend of an unknown kind" "$tilec" --profile --bench-backend fast "$ex"
expect 0 "--lineinfo" "$tilec" --emit-cuda --lineinfo "$ex"
# the schedule options: each value accepted, bad ones refused
for o in --clusters=auto --clusters=on --clusters=off --persistent=on --persistent=off --split=off --split=4 \
    --split=auto --halves=off --longest-first=off --idle-warpgroups=skip --idle-warpgroups=off --variant=auto \
    --variant=base --variant=halves --variant=split; do
    expect 0 "$o" "$tilec" --emit-cuda $o "$ex"
done
for o in --clusters=maybe --persistent=1 --split=1 --split=17 --split=x --halves=on --longest-first=on \
    --idle-warpgroups=last --variant=whole; do
    expect 2 "$o is refused" "$tilec" --emit-cuda $o "$ex"
done
expect 2 "--clusters without a value" "$tilec" "$ex" --clusters
# -v of the other actions names the variants a dynamic GEMM has
"$tilec" -v --emit-cuda --arch sm_90a "$ex" 2>&1 >/dev/null | grep -q "has a split and a halves variant" &&
    pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL -v --emit-cuda does not name the variants"; }
# --run of a dynamic GEMM builds the variant a launch at its --set sizes
# takes, -v says which (with or without a GPU to run it on); the default
# tiles given, as the tile model would choose others at these sizes
for case in "M=1024,N=1024,K=8192 split" "M=1000,N=1504,K=704 halves" "M=4096,N=4096,K=4096 none" \
    "M=1024,N=1024,K=1024 halves"; do
    set -- $case
    said=$("$tilec" --run -v --arch sm_90a --set "$1,BM=128,BN=256,BK=64,stages=3" "$ex" 2>&1 | grep -o "its [a-z]* variant, which a launch" | cut -d' ' -f2)
    if [ "${said:-none}" = "$2" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL --run at $1: the ${said:-base} kernel, not $2"; fi
done
# the options change the code and nothing else reads them: the same text twice, another with an option
# (clusters need a tile count known when compiling: the sizes compiled in)
if [ "$("$tilec" --emit-cuda "$ex" | md5sum)" = "$("$tilec" --emit-cuda "$ex" | md5sum)" ] &&
    [ "$("$tilec" --emit-cuda --specialise "$ex" | md5sum)" != "$("$tilec" --emit-cuda --specialise --clusters=on "$ex" | md5sum)" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --clusters=on does not change the generated code, or runs differ"
fi
# scalar parameters are run-time arguments: one generated kernel for every value
scalar=$root/examples/layernorm.tile
if [ "$("$tilec" --emit-cuda --set eps=1e-5 "$scalar" | md5sum)" = "$("$tilec" --emit-cuda --set eps=0.25 "$scalar" | md5sum)" ] &&
    "$tilec" --emit-cuda "$scalar" | grep -q 'const float eps = (tl_arg_eps);'; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --set of a scalar changes the generated code"
fi
novalue=$root/tests/frontend/valid/v_scalar_without_value.tile
expect 0 "a scalar without a value compiles" "$tilec" --emit-cuda "$novalue"
expect 2 "--run of a scalar without a value" "$tilec" --run "$novalue"
if "$tilec" --run "$novalue" 2>&1 | grep -q "scalar parameter 'eps' of kernel 'rms' has no value to run with"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --run of a scalar without a value: message"
fi
# dynamic sizes are run-time arguments: --set changes the run, not the code
dyn=$root/tests/frontend/valid/v_dynamic_without_value.tile
if [ "$("$tilec" --emit-cuda --set M=1,N=8 "$dyn" | md5sum)" = "$("$tilec" --emit-cuda --set M=3000,N=4104 "$dyn" | md5sum)" ] &&
    [ "$("$tilec" --emit-cuda "$root/examples/gemm.tile" | md5sum)" = \
      "$("$tilec" --emit-cuda --set M=1000,N=1016,K=704 "$root/examples/gemm.tile" | md5sum)" ] &&
    "$tilec" --emit-cuda "$dyn" | grep -q 'const int M = tl_dim_M;  // a dynamic size'; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --set of a dynamic size changes the generated code"
fi
expect 2 "--run of a dynamic size without a value" "$tilec" --run --set N=512 "$dyn"
expect 2 "--set breaking a dynamic size's promise" "$tilec" --emit-cuda --set M=4,N=500 "$dyn"
expect 2 "--set of a dynamic size past 2^31 - 1" "$tilec" --emit-cuda --set M=2147483648,N=512 "$dyn"
if [ "$("$tilec" --emit-cuda --specialise --set M=4,N=512 "$dyn" | md5sum)" != "$("$tilec" --emit-cuda --set M=4,N=512 "$dyn" | md5sum)" ] &&
    "$tilec" --emit-cuda --specialise --set M=4,N=512 "$dyn" | grep -q '// values: M=4 N=512'; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --specialise does not compile the dynamic sizes in"
fi
expect 0 "--emit-cubin" "$tilec" --no-cache --emit-cubin -o "$tmp/k.cubin" "$ex"
expect 2 "--emit-cubin to an unwritable path" "$tilec" --no-cache --emit-cubin -o /dev/null/k.cubin "$ex"
# -o writes what each --emit action prints, and nothing else takes it
expect 0 "--emit-cuda -o" "$tilec" --emit-cuda -o "$tmp/k.cu" "$ex"
grep -q '^extern "C"' "$tmp/k.cu" || { fail=$((fail + 1)); echo "FAIL --emit-cuda -o wrote no kernel"; }
expect 0 "--emit-ir -o" "$tilec" --emit-ir -o "$tmp/k.ir" "$ex"
[ -s "$tmp/k.ir" ] || { fail=$((fail + 1)); echo "FAIL --emit-ir -o wrote nothing"; }
expect 2 "-o with --check" "$tilec" --check -o "$tmp/x" "$ex"
cp "$ex" "$tmp/self.tile"
expect 2 "-o naming the input file" "$tilec" --emit-cubin -o "$tmp/self.tile" "$tmp/self.tile"
cmp -s "$ex" "$tmp/self.tile" || { fail=$((fail + 1)); echo "FAIL -o overwrote the input file"; }
# a pipe (or a device: -o /dev/null) stays one: written to, never renamed over
mkfifo "$tmp/pipe"
timeout 20 cat "$tmp/pipe" > "$tmp/piped" &
expect 0 "--emit-cuda -o a pipe" "$tilec" --emit-cuda -o "$tmp/pipe" "$ex"
wait
[ -p "$tmp/pipe" ] && grep -q '^extern "C"' "$tmp/piped" || { fail=$((fail + 1)); echo "FAIL -o to a pipe replaced it"; }
# an input FIFO nobody writes is read as empty, it does not block; one with
# a writer (bash's <(...)) is read
expect 0 "a FIFO without a writer as input" timeout 10 "$tilec" --check "$tmp/pipe"
expect 0 "a pipe with a writer as input" timeout 10 "$tilec" --check <(cat "$ex")
expect 2 "--set of a tensor's name" "$tilec" --check --set A=4 "$ex"
case $out in *"'A' is a tensor"*) ;; *) fail=$((fail + 1)); echo "FAIL --set A=4 does not say A is a tensor: $out" ;; esac
: > "$tmp/empty.tile"
expect 1 "--emit-cuda of a file without kernels" "$tilec" --emit-cuda "$tmp/empty.tile"
case $out in *"has no kernel"*) ;; *) fail=$((fail + 1)); echo "FAIL empty file: $out" ;; esac
# a float scalar --set beyond its dtype's range is refused, as an integer one is
printf 'kernel s(X: f16[N], out Y: f16[N], beta: f16)\n    where N = 256, beta = 1.0\n    grid(2) as (bx)\n{\n    for (i) in parallel(128) { Y[bx * 128 + i] = X[bx * 128 + i] * beta; }\n}\n' > "$tmp/beta.tile"
expect 2 "--set of an f16 scalar to 70000" "$tilec" --check --set beta=70000 "$tmp/beta.tile"
case $out in *"does not fit the parameter's dtype"*) ;; *) fail=$((fail + 1)); echo "FAIL f16 scalar overflow: $out" | head -3 ;; esac
# classic Mac line ends (CR alone): lines count as the editor shows them
printf 'kernel k(X: f32[N], out Y: f32[N])\r    where N = 1024\r    grid(ceildiv(N, 128)) as (bx)\r{\r    for (i) in parallel(128) { Y[bx * 128 + i] = q; }\r}\r' > "$tmp/cr.tile"
expect 1 "a CR-only file with an error on line 5" "$tilec" --check "$tmp/cr.tile"
case $out in *"cr.tile:5:50: error: undefined name 'q'"*) ;; *) fail=$((fail + 1)); echo "FAIL CR line ends: $out" | head -3 ;; esac
expect 2 "--arch NVRTC cannot target" "$tilec" --arch sm_999 --emit-ptx "$ex"
expect 2 "--arch sm_80a (arch-specific targets start at sm_90a)" "$tilec" --arch sm_80a --check "$ex"
expect 2 "--set of a size to a float" "$tilec" --set M=4096.0 "$ex"
case $out in *"undefined name"*) fail=$((fail + 1)); echo "FAIL --set float: errors that follow from it: $out" | head -3 ;; esac
# -v says which path a GEMM takes on sm_90a, and why not the Hopper one
expect 0 "-v on the sm_90a path" "$tilec" -v --arch sm_90a --emit-ir "$ex"
case $out in *"takes the sm_90a path"*) ;; *) fail=$((fail + 1)); echo "FAIL -v path message: $out" | head -3 ;; esac
expect 0 "-v off the sm_90a path" "$tilec" -v --arch sm_90a --emit-ir "$root/tests/passes/plan_warpgroups/gemm_odd_k.tile"
case $out in *"takes the Ampere path on sm_90a: a copy into a gemm operand is neither one TMA can do"*) ;;
    *) fail=$((fail + 1)); echo "FAIL -v declined message: $out" | head -3 ;; esac
expect 0 "-v: rows TMA cannot address" "$tilec" -v --arch sm_90a --emit-ir "$root/tests/passes/plan_warpgroups/gemm_ragged_k.tile"
case $out in *"issuing 1 TMA copy and 1 cp.async copy (rows TMA cannot address"*) ;;
    *) fail=$((fail + 1)); echo "FAIL -v cp.async producer message: $out" | head -3 ;; esac
expect 0 "-v: a store TMA cannot do" "$tilec" -v --arch sm_90a --emit-ir "$root/tests/passes/plan_store/gemm_bt_pitch.tile"
case $out in *"a store of a fragment stays a direct one: its row pitch is not a multiple of 16 bytes"*) ;;
    *) fail=$((fail + 1)); echo "FAIL -v store message: $out" | head -3 ;; esac
expect 0 "-v: an atomic_add TMA cannot reduce" "$tilec" -v --arch sm_90a --emit-ir "$root/tests/passes/plan_store/reduce_in_loop.tile"
case $out in *"1 store (or reduction) through shared memory and TMA"*"stays a direct one: an atomic_add into a tensor other than f32"*) ;;
    *) fail=$((fail + 1)); echo "FAIL -v reduction message: $out" | head -3 ;; esac
# -v says where each cumsum runs, and why not in registers
expect 0 "-v: a cumsum in registers" "$tilec" -v --emit-ir "$root/tests/passes/plan_scan/rows.tile"
case $out in *"the cumsum on line 12 runs in registers"*) ;; *) fail=$((fail + 1)); echo "FAIL -v scan message: $out" | head -3 ;; esac
expect 0 "-v: a cumsum in shared memory" "$tilec" -v --emit-ir "$root/tests/passes/plan_scan/ragged.tile"
case $out in *"the cumsum on line 11 runs in shared memory: the threads holding a row are not a power of two or whole warps"*) ;;
    *) fail=$((fail + 1)); echo "FAIL -v staged scan message: $out" | head -3 ;; esac
# tiles for the sizes a run is given (driver/tile_choice.c): at 3000 x 2000
# x 1000 the 128 x 256 defaults leave a second wave of 60 tiles, and the
# model takes 192 x 128; --set of the tiles, and emitted code, keep theirs
out=$("$tilec" -v --run --arch sm_90a --set M=3000,N=2000,K=1000 "$ex" 2>&1)
rc=$?
case "$rc:$out" in [04]:*"tile model for 'gemm' at these sizes: the defaults"*"tune values for these sizes: BM=192,BN=128,"*)
    pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL tile model choice (exit $rc): $out" | head -5 ;; esac
# where the model prices and keeps the defaults, and where it does not
# apply (attention), the kernel is checked again before it is lowered
for args in "--set M=2048,N=2048,K=2048 $ex" "--kernel attn_fwd --set B=1,H=2,S=200 $root/examples/flash_attn_bwd.tile"; do
    # shellcheck disable=SC2086
    "$tilec" --run --arch sm_90a $args > /dev/null 2>&1
    rc=$?
    case $rc in 0|4) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL --run $args after the tile model: exit $rc" ;; esac
done
out=$("$tilec" --run --arch sm_90a --set M=3000,N=2000,K=1000,BM=128,BN=256,BK=64,stages=3 "$ex" 2>&1)
case "$out" in *"tune values for these sizes"*) fail=$((fail + 1)); echo "FAIL tile model despite --set tiles" ;; *) pass=$((pass + 1)) ;; esac
# at the sizes the defaults were measured at (and larger), the model keeps them
for f in gemm gemm_bf16 gemm_bias_gelu; do for s in 4096 8192; do
    out=$("$tilec" -v --run --arch sm_90a --set M=$s,N=$s,K=$s "$root/examples/$f.tile" 2>&1)
    case "$out" in *"tune values for these sizes"*) fail=$((fail + 1)); echo "FAIL tile model at $f $s^3: $out" | head -3 ;;
        *) pass=$((pass + 1)) ;; esac
done; done
if [ "$("$tilec" --emit-cuda --arch sm_90a --set M=3000,N=2000,K=1000 "$ex" 2>&1 | md5sum)" = "$("$tilec" --emit-cuda --arch sm_90a "$ex" 2>&1 | md5sum)" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL --emit-cuda of a dynamic kernel depends on --set sizes"
fi
# --emit-sass: the SASS where cuobjdump exists, else one sentence and exit 4
if command -v cuobjdump > /dev/null || [ -x /usr/local/cuda/bin/cuobjdump ]; then
    expect 0 "--emit-sass" "$tilec" --no-cache --emit-sass "$ex"
else
    expect 4 "--emit-sass without cuobjdump" "$tilec" --no-cache --emit-sass "$ex"
    case $out in *"needs cuobjdump"*) ;; *) fail=$((fail + 1)); echo "FAIL --emit-sass message: $out" ;; esac
fi
expect 1 "an invalid program" "$tilec" --check "$root/tests/frontend/invalid/gemm_k_mismatch.tile"
# what the passes and the lowering refuse: exit 1 with a located error, e.g. a part of an accumulator
expect 1 "gemm into a part of its accumulator" "$tilec" --emit-cuda "$root/tests/passes/stage_operands/part_of_accumulator.tile"
# the cache: a miss, then a hit, in a fresh directory
out=$("$tilec" -v --cache-dir "$tmp/cache" --emit-cubin -o "$tmp/k.cubin" "$ex" 2>&1)
case "$out" in *"cache miss"*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL first compile is not a cache miss: $out" ;; esac
out=$("$tilec" -v --cache-dir "$tmp/cache" --emit-cubin -o "$tmp/k.cubin" "$ex" 2>&1)
case "$out" in *"cache hit"*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL second compile is not a cache hit: $out" ;; esac
# an unwritable cache directory degrades to a warning, not a failure
expect 0 "unusable cache directory" "$tilec" --cache-dir /dev/null/cache --emit-cubin -o "$tmp/k.cubin" "$ex"
# without a GPU, --run, --profile and --autotune say so in one line with exit 4
# (--run and --profile after checking and compiling the kernel)
for action in --run --profile --autotune; do
    "$tilec" $action --cache-dir "$tmp/cache" --set M=128,N=128,K=128 "$ex" > "$tmp/run.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then
        pass=$((pass + 1)) # a GPU is present and it worked
    elif [ "$rc" = 4 ] && [ "$(wc -l < "$tmp/run.out")" = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL $action without a GPU: exit $rc"; head -5 "$tmp/run.out"
    fi
done
# -v says which tunables took a `tune TARGET:` default: flash attention's
# on sm_90a (one of them where --set gives the other), none on sm_80
fa=$root/examples/flash_attn.tile
if "$tilec" -v --arch sm_90a --emit-ir "$fa" 2>&1 >/dev/null | grep -qF "takes its \`tune sm_90a:\` defaults: BM = 192, BN = 96" &&
    "$tilec" -v --arch sm_90a --set BM=128 --emit-ir "$fa" 2>&1 >/dev/null | grep -qF "defaults: BN = 96" &&
    ! "$tilec" -v --arch sm_80 --emit-ir "$fa" 2>&1 >/dev/null | grep -q "tune sm_"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL -v does not name the tune sm_90a: defaults as it should"
fi
# --emit-cuda's output compiles with nvcc as printed (LANGUAGE.md), also
# where nvcc -arch=sm_90a builds compute_90 PTX beside the sm_90a code
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
    for arch in sm_90a sm_80; do
        "$tilec" --emit-cuda --arch $arch "$ex" > "$tmp/k_$arch.cu"
        expect 0 "nvcc -arch=$arch -c of --emit-cuda" "$nvcc" -arch=$arch -c "$tmp/k_$arch.cu" -o "$tmp/k_$arch.o"
    done
fi
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
