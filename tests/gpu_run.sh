#!/usr/bin/env bash
# gpu_run.sh TILEC ROOT [BACKEND [I/N [REGEX]]] - every example and every program of
# the contract runs on the GPU and verifies against its reference, at its
# default sizes and at ragged ones (sizes that are not multiples of the
# tiles), through code generator BACKEND (nvrtc, the default, or llvm).
# I/N runs shard I of N (files round-robin, the schedule checks in shard
# 0), so that N processes share the work; REGEX keeps only the files whose
# names match it (a rerun of some; "schedules" names the schedule checks
# below). Exits 77 (skipped) when there is no GPU.
set -u
tilec=$1
root=$2
backend=${3:-nvrtc}
shard=${4:-0/1}
shard_i=${shard%/*}
shard_n=${shard#*/}
only=${5:-}
probe=$("$tilec" --run "$root/examples/add.tile" --set N=1024 2>&1)
if [ $? = 4 ] && printf '%s' "$probe" | grep -qiE "no CUDA|GPU"; then
    echo "no GPU: $probe"
    exit 77
fi
pass=0
fail=0
run() {  # file kernel args...
    local f=$1 k=$2
    shift 2
    local log
    log=$(timeout 300 "$tilec" --run --backend "$backend" --kernel "$k" "$@" "$f" 2>&1)
    local rc=$?
    if [ $rc = 0 ]; then
        pass=$((pass + 1))
        echo "ok   $(basename "$f") $k $* :: $(printf '%s' "$log" | grep -m1 'verify:' | cut -c1-150)"
    else
        fail=$((fail + 1))
        echo "FAIL $(basename "$f") $k $* (exit $rc)"
        printf '%s\n' "$log" | head -30
    fi
}
# ragged sizes per kernel name (non-multiples of every default tile); the
# file is the second argument. Sizes that break a dynamic size's `%`
# promise run with --specialise (compiled in, as the promise-free code).
ragged() {
    case $1 in
    # T: the tiles the schedule checks below were written for (the sm_90a
    # defaults); lines without it run the tiles the tile model picks for
    # their sizes (driver/tile_choice.c)
    gemm|gemm_bf16|gemm_bias_gelu) T=BM=128,BN=256,BK=64,stages=3
        echo "--set M=1000,N=1016,K=1000"; echo "--set M=999,N=1001,K=997 --specialise"
        echo "--set M=3000,N=2000,K=1000 --profile --consistency 3"; echo "--set M=1000,N=1500,K=700 --specialise"
        # 256 tiles, rows aligned (no clusters), persistent: warpgroup 2 of the
        # last row of tiles (120 rows) idle (plan_idle)
        echo "--set M=3000,N=2000,K=1024,BM=192,BN=128"
        echo "--set M=1000,N=1016,K=1000,BN=96,BK=32"  # B's 192-byte rows: 64-byte swizzle spans
        # split tiles (plan_split, sizes compiled in): 36 tiles in 3 pieces
        # (gemm; the last row's warpgroup 1 idle), and 32 in 4
        # (gemm_bias_gelu: 64 in 2), where every launch after the first must
        # find the counters reset
        echo "--set M=1080,N=1016,K=4096,$T --specialise"; echo "--set M=1024,N=1024,K=8192,$T --specialise --profile --consistency 3"
        # half tiles (plan_halves): the second wave's tiles in halves of their
        # columns, compiled in: in persistent clusters (K = 1000) with the
        # last row's warpgroup 1 idle, and without clusters (K = 1024), idle
        # tiles last; decided at launch (dynamic sizes): a second wave of 60
        # tiles, and 1450 x 4096 (a second wave of more than half: whole
        # tiles)
        echo "--set M=3000,N=2000,K=1000,$T --specialise --profile --consistency 3"
        echo "--set M=1450,N=4096,K=1024,$T --specialise"
        echo "--set M=3000,N=2000,K=1000,$T --profile --consistency 3"
        echo "--set M=1450,N=4096,K=1024,$T"
        echo "--set M=1080,N=1016,K=4096,$T"
        # the split variant, taken by launches whose grid fills less than a
        # wave (dynamic sizes; in clusters along M a pair of tiles splits
        # alike): 20 pairs in 3 pieces, the last pair's second tile past
        # the end (1080 x 1016 x 4096, above); 16 pairs in 4 (every launch after the first must find the
        # counters reset); 9 in 7 (a node without a partner at two levels);
        # one pair in 16; 16 pairs of 47 iterations in 2; 16 pairs of 16
        # iterations: too short, the halves variant (and the base kernel,
        # whole tiles, with --halves=off). Forced variants where the sizes
        # suit another: split at a full wave (whole tiles), halves past half
        # a wave (every tile in halves), base below it.
        echo "--set M=1024,N=1024,K=8192,$T --profile --consistency 3"
        echo "--set M=768,N=768,K=8192,$T"; echo "--set M=256,N=256,K=16384,$T"
        echo "--set M=1000,N=1016,K=3000,$T"; echo "--set M=1024,N=1024,K=1024,$T"
        echo "--set M=1024,N=1024,K=1024,$T --halves=off"; echo "--set M=1080,N=1016,K=4096,$T --halves=off"
        echo "--set M=1024,N=1024,K=8192,$T --halves=off --profile --consistency 3"
        echo "--variant=split --set M=3000,N=2000,K=1000,$T"; echo "--variant=halves --set M=3000,N=2000,K=1000,$T"
        echo "--variant=halves --set M=1000,N=1504,K=704,$T --profile --consistency 3"
        echo "--variant=base --set M=1000,N=1504,K=704,$T"; echo "--variant=base --set M=1024,N=1024,K=8192,$T"
        # dynamic sizes in clusters of two along M with an odd tile count
        # there: the last pair's second tile past the end (25 rows of
        # tiles, whole; 9 rows, every pair in halves)
        echo "--set M=3100,N=2000,K=1000,$T"; echo "--set M=1100,N=1016,K=1000,$T --profile --consistency 3"
        # A's rows not of 16-byte units: the producer's threads copy it with
        # cp.async, B by TMA (1400 bytes: 8-byte chunks; 2044: 4-byte ones;
        # 32 tiles of 128 iterations split)
        echo "--set M=1000,N=1504,K=700,$T --specialise"; echo "--set M=999,N=1016,K=1022,$T --specialise"
        echo "--set M=1024,N=1024,K=8180,$T --specialise --profile --consistency 3" ;;
    add) echo "--set N=1000003 --specialise"; echo "--set N=1000008" ;;
    softmax|layernorm) echo "--set M=1001,N=3000"
        # the examples' tunables: rows padded to a pitch (blocked layout) for
        # the row reductions (the contract's lang_softmax has no BM)
        if grep -q 'tune BM' "$2"; then echo "--set M=1001,N=4000,BM=2"; echo "--set M=999,N=1000,BM=2,NT=256"; fi ;;
    row_reduce|rmsnorm) echo "--set M=1001,N=3000" ;;
    swiglu|transpose) echo "--set M=1001,N=999 --specialise"; echo "--set M=1000,N=1000" ;;
    flash_attn|flash_fwd) echo "--set B=1,H=3,S=1000"; echo "--set B=1,H=2,S=777,causal=1"
        echo "--set B=2,H=9,S=2000,causal=1"  # 288 tiles: persistent, longest first (plan_schedule), a partial last query tile
        # longest first in two sections (5 heads, then 15); --profile: every
        # launch after the first must find the tile counter reset (the
        # consistency runs must give the verified output again)
        echo "--set BM=192,BN=96,B=1,H=20,S=4096,causal=1 --profile --consistency 3"
        # three consumer warpgroups (P packed from its halves), partial tiles
        echo "--set D=64,BM=192,BN=128,B=1,H=3,S=1000"; echo "--set D=64,BM=192,BN=128,B=1,H=2,S=777,causal=1"
        echo "--set BM=192,BN=96,B=1,H=3,S=1000"; echo "--set BM=192,BN=96,B=1,H=2,S=777,causal=1"  # D=128 as bench/run.sh times it
        # head dims whose rows are 64- and 32-byte swizzle spans (192- and 160-byte rows)
        echo "--set D=96,B=1,H=3,S=1000"; echo "--set D=96,BM=192,BN=128,B=1,H=2,S=777,causal=1"
        echo "--set D=80,B=1,H=2,S=777,causal=1" ;;
    gemm_regs) echo "--set M=200,N=136,K=100" ;;  # partial tiles of both operands in registers
    gemm_b_regs|gemm_bt_regs|gemm_at_regs) echo "--set M=200,N=136,K=100" ;;  # B staged from registers, partial tiles
    split_store) echo "--set M=500,N=300,K=200" ;;  # parts of the accumulator at partial tiles
    rows|halves_in) echo "--set M=999" ;;
    axpy) echo "--set L=777"; echo "--set L=4096 --profile --consistency 3" ;;  # a pipeline: its stages resized
    # slices of 63 keys (the last short) in tiles of 64, a short sequence
    flash_decoding) echo "--set B=3,S=1000"; echo "--set B=2,S=100,SPLITS=4" ;;
    layernorm_bwd) echo "--set M=1000"; echo "--set M=3,N=1024" ;;
    dropout) echo "--set M=7,p=0.5" ;;
    moe_gemm) echo "--set T=1000,K=512,N=1000,P=1024" ;;  # N past the tiles, indices -1 (padding) in the rows
    gemm_splitk) echo "--set M=333,N=200,K=1000"; echo "--set M=333,N=200,K=999 --specialise" ;;  # the last split past K
    gemm_two_outputs) echo "--profile --consistency 20" ;;  # two stores of one accumulator (f16, f32) through one staging tile
    two_half|half_b) echo "--set M=200,N=136" ;;  # gemm on parts of buffers, partial tiles
    mlp) echo "--set M=1000" ;;
    attn_simple) echo "--set S=200" ;;
    frag_local_copy) echo "--set M=1001" ;;
    flip|row_shift) echo "--set M=500" ;;  # other threads' elements through shared copies, partial tiles
    rope) echo "--set S=1000" ;;
    transpose_tile) echo "--set N=500" ;;
    scale_cols) echo "--set M=1001" ;;
    scale_then_max) echo "--set M=200" ;;
    acc_flip) echo "--set M=500,N=500,K=200" ;;
    local_rows) echo "--set M=1000" ;;
    gemm_k40) echo "--set M=200,N=136,K=190" ;;  # the multiply-add fallback, partial tiles
    gemm_f32_in) echo "--set M=100,N=70,K=50" ;;
    gemm_f16_acc) echo "--set M=100,N=70" ;;
    col_sum_wide) echo "--set N=1000" ;;  # results spread over the threads, partial tiles
    max_first_dim) echo "--set B=1000" ;;
    pad_copy) echo "--set M=200" ;;
    rows_atomic|rows_update|rows_count) echo "--set M=1000,N=100" ;;  # one effect an iteration, partial tiles
    gemm_row_sums) echo "--set M=500,N=300,K=100" ;;
    let_corner|var_corner|var_set_corner) echo "--set M=200,N=136,K=200" ;;  # corners through names, partial tiles
    rowvec|two_rowmax|relu_then_gemm|row_scaled_gemm) echo "--set M=200" ;;  # row vectors through shared memory, partial tiles
    col_stats) echo "--set BN=128"; echo "--set M=64,N=100" ;;
    fp8_gelu) echo "--set M=999" ;;
    fp8_gemm_nt) echo "--set M=200,N=136,K=200"; echo "--arch sm_90 --set M=200,N=136,K=200" ;;  # the second: mma.sync m16n8k32
    narrow_casts|narrow_vars) echo "--set N=999" ;;
    gemm_a) echo "--set M=100,N=200,K=100" ;;
    let_extent) echo "--set M=100,K=200" ;;
    narrow_consts) echo "--set N=999" ;;
    sum_slices) echo "--set M=7,K=3,N=1000" ;;
    gemm_s8) echo "--set M=200,N=136,K=496"  # TMA boxes past every edge
        echo "--arch sm_90"; echo "--arch sm_90 --set M=200,N=136,K=496" ;;  # mma.sync m16n8k32, partial tiles
    mma8_u8_kn|mma8_fp8_tt|mma8_fp8_nn) echo "--set M=200,N=136,K=200"; echo "--arch sm_90" ;;
    # heads after the sequence: TMA boxes of rows H * D elements apart, GQA
    flash_attn_bshd_gqa) echo "--set B=1,S=1000"; echo "--set B=2,S=777,causal=1"; echo "--set BM=192,BN=96,B=1,S=1000,causal=1"
        echo "--set B=1,S=1000,H=12,HK=4,D=64"; echo "--arch sm_90 --set B=1,S=777,causal=1" ;;
    flash_attn_bwd) echo "--set B=1,H=2,S=200"; echo "--set B=1,H=2,S=333,causal=1 --specialise"; echo "--set B=1,H=2,S=332,causal=1"
        echo "--set B=1,H=2,S=256,D=128,causal=1"; echo "--set B=1,H=2,S=1000,D=128,causal=1" ;;
    attn_fwd) echo "--set B=1,H=2,S=200"; echo "--set B=1,H=2,S=332,causal=1"; echo "--set B=1,H=2,S=1000,D=128,causal=1" ;;
    mla_decode) echo "--set B=2,S=1000,H=100"; echo "--set B=1,S=77,SPLITS=4" ;;  # a partial head block, short slices
    gemm_w4a16) echo "--set M=16"; echo "--set M=100,N=200,K=512"; echo "--set M=1000,N=1000,K=1024,BN=64,BM=64" ;;
    gemm_w4a16_decode) echo "--set M=1"; echo "--set M=33,N=1000,K=1024" ;;
    gemm_ta|gemm_tt_192) echo "--set M=200,N=136,K=200"; echo "--arch sm_90 --set M=200,N=136,K=200"  # M-major A: TMA boxes past every edge; mma.sync
        echo "--set M=1000,N=1000,K=1000 --clusters=on" ;;
    gemm_u8_dequant) echo "--set M=100,N=200,K=240"; echo "--arch sm_90 --set M=100,N=200,K=240" ;;
    fp8_e5m2_gemm) echo "--set M=200,N=136,K=496"  # TMA boxes past every edge (rows of 496 bytes)
        echo "--arch sm_90 --set M=200,N=136,K=496" ;;  # mma.sync m16n8k32
    # T: its sm_90a default tiles, which the schedule lines were written for
    gemm_fp8) T=BM=128,BN=192,BK=128,stages=3
        echo "--set M=1000,N=1016,K=4096,$T --atol 3e-2"  # split tiles: 64 in 2 pieces (sums of 4096 fp8 products near 0: 1-3 of 37160 past atol 1e-2, as without the split)
        echo "--set M=1000,N=1016,K=1008"; echo "--set M=999,N=1001,K=997 --specialise"  # the second: rows TMA cannot take
        echo "--set M=1000,N=1016,K=1008,BK=256,stages=2"  # K tiles of two promotion runs
        echo "--set M=1100,N=1016,K=1008,$T"  # clusters of two, 9 rows of tiles: the last pair's second past the end
        echo "--set M=1024,N=1024,K=8192,$T --atol 3e-2 --profile --consistency 3"  # the split variant: 16 pairs in 4 pieces (sums of 8192 fp8 products: atol as at K 4096)
        # rows of 1000 and 3000 bytes, which TMA cannot address: the producer
        # warpgroup's threads copy both tiles with 8-byte cp.asyncs (the
        # second: 1024 tiles, persistent; the third split tiles)
        echo "--set M=1000,N=1016,K=1000,$T --specialise"; echo "--set M=4096,N=4096,K=1000,$T --specialise --atol 3e-2"
        echo "--set M=1024,N=1024,K=3000,$T --specialise --atol 3e-2 --profile --consistency 3" ;;
    fp8_gemm_k160) echo "--set M=200,N=136,K=1120" ;;  # partial tiles
    fp8_casts) echo "--set N=1000" ;;
    f64_gemm) echo "--set M=100,N=70,K=50" ;;  # the multiply-add path in f64, partial tiles
    saturating_casts) echo "--set N=1000" ;;
    row_sum_48) echo "--set M=7,N=1000" ;;  # a partial last warp, a ragged row
    attn_default_policies) echo "--set B=1,H=2,S=512" ;;
    bmm) echo "--set K=704,N=1504" ;;
    # the cp.async producer: dynamic sizes (a tile inside the tensors and
    # tiles across every edge; the split variant forced), 4-byte chunks
    ring_dynamic) echo "--set M=3000,N=2000,K=1004"; echo "--variant=split --set M=512,N=512,K=4092 --profile --consistency 3" ;;
    ring_mixed) echo "--set M=1000,N=520,K=3002" ;;  # rows of 16-byte units: the sm_90a path with rank-3 TMA copies
    bias_scale) echo "--set M=1001,N=1000" ;;      # vectors of 4, partial tiles both ways
    scale_inplace) echo "--set N=999" ;;
    shifted) echo "--set N=1000"; echo "--set N=1001" ;;  # vectorised; element by element
    widen3) echo "--set A=3,B=50,C=200" ;;
    flags) echo "--set N=8000" ;;
    col_walk) echo "--set M=200,N=300,K=200" ;;  # pipelined loops inside a range loop, partial tiles
    maybe_gemm) echo "--set M=200,N=136,K=100"; echo "--set use_gemm=0" ;;
    two_halves) echo "--set M=100,N=200" ;;
    # the sm_90a consumers' own tiles: TMA boxes past every edge (208-byte rows)
    dequant_gemm|dequant_frag_gemm|vector_gemm) echo "--set M=200,N=136,K=208" ;;
    offset_vector) echo "--set M=200,N=136" ;;
    *) ;;
    esac
}
# tolerances where the default of the output's dtype does not fit
tolerance() {
    case $1 in
    # an f32 result of products of values rounded to f16 (sums of 64 normal
    # products, up to ~30): where the kernel's f32 sum and the reference's
    # exact one round to neighbouring f16 values, that one ulp (1/64 near 20)
    # times a row of W (up to ~4) moves a whole output row by up to ~0.06,
    # against outputs of typical size ~40
    relu_then_gemm) echo "--rtol 1e-2 --atol 6e-2" ;;
    # sums of 96 products accumulated in f16: partial sums up to ~10, where
    # each add rounds by up to 0.004 (half an ulp); ~0.02 typical, ~0.09 at
    # the tail of 27 k outputs
    gemm_a_regs_f16_acc) echo "--rtol 1e-2 --atol 1e-1" ;;
    # f32 sums of 1600 fp8 products (of size ~40) through the tensor cores'
    # fp8 adds (about 14 mantissa bits), promoted every 128: ~0.03 off at
    # most on the H200 (rel. Frobenius error 1.2e-4; docs/decisions.md,
    # "fp8 sums promoted to f32 every 128 products")
    fp8_gemm_k160) echo "--rtol 1e-3 --atol 6e-2" ;;
    *) ;;
    esac
}
nfile=0
for f in "$root"/examples/*.tile "$root"/tests/frontend/valid/*.tile; do
    nfile=$((nfile + 1))
    [ $(((nfile - 1) % shard_n)) = "$shard_i" ] || continue
    [ -z "$only" ] || [[ $(basename "$f") =~ $only ]] || continue
    # a file's `// run-args:` line: values its runs need (a size or scalar
    # that the program leaves to its caller)
    # shellcheck disable=SC2046
    set -- $(sed -n 's#^// run-args: ##p' "$f" | head -1)
    for k in $(sed -n 's/^\(kernel\|pipeline\) \([A-Za-z_][A-Za-z0-9_]*\).*/\2/p' "$f"); do
        every="$(tolerance "$k") $*"  # tolerances and run-args: every run of the kernel
        run "$f" "$k" $every
        while read -r extra; do
            [ -n "$extra" ] && run "$f" "$k" $every $extra
        done < <(ragged "$k" "$f")
    done
done
# the sm_90a schedules the compiler does not choose by itself at these sizes
# (--clusters=on: clusters of two blocks with TMA multicast, persistent ones
# from more than a wave or where --persistent=on asks; --persistent=on:
# persistent blocks) must stay correct too: the GEMM-shaped examples and
# attention, at default sizes and at ragged ones with an even and an odd
# number of tiles
for xs in --clusters=on "--clusters=on --persistent=on" --persistent=on; do
    [ "$shard_i" = 0 ] || break
    [ -z "$only" ] || [[ schedules =~ $only ]] || break
    for args in "gemm" "gemm --set M=1000,N=1016,K=1000" "gemm --set M=999,N=1001,K=997,BN=128 --specialise" \
        "gemm --set M=3000,N=2000,K=1000,BM=192,BN=128" \
        "gemm_bf16" "gemm_fp8" "gemm_fp8 --set M=1000,N=1016,K=1008" "gemm_bias_gelu --set BN=256" "flash_attn --set BN=128" "flash_attn --set B=1,H=3,S=1000" \
        "flash_attn --set BN=128,B=2,H=3,S=640" "flash_attn --set BM=192,BN=96,B=1,H=3,S=1000" \
        "flash_attn --set B=1,H=2,S=777,causal=1" "flash_attn --set D=64,BM=192,BN=128,B=1,H=3,S=1000,causal=1"; do
        set -- $args
        f=$1
        shift
        # shellcheck disable=SC2086
        run "$root/examples/$f.tile" "$f" $xs "$@"
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
