/* llvm_schedule.c - which tile a block works on, for the LLVM backend:
 * the block indices (from blockIdx, in panels, in clusters of two), the
 * persistent blocks' loop over the grid's tiles in the schedule's order
 * (snake, longest first with the producer drawing tiles from a counter,
 * idle warpgroups last, half tiles) and split tiles with their partial
 * sums added pairwise in global memory. emit.c's cg_block_indices,
 * tile_order.c and lower_split.c are the model; every figure comes from
 * the same plan (cg_tile_order_plan). All of this arithmetic is on
 * non-negative ints, as the CUDA C's is. */
#include "llvm_codegen.h"

static LLVMValueRef c32(Lg *g, int64_t v) { return LLVMConstInt(g->i32, (unsigned long long)v, 0); }
static LgVal int_val(LLVMValueRef v) { return (LgVal){v, LT_INT}; }
static LgVal bin(Lg *g, AstOp op, LgVal a, LgVal b) { return lg_binary(g, op, a, b); }
static LgVal binc(Lg *g, AstOp op, LgVal a, int64_t c) { return lg_binc(g, op, a, c); }
static LgVal select_int(Lg *g, LLVMValueRef cond, LgVal a, LgVal b) {
    return int_val(LLVMBuildSelect(g->b, cond, lg_cast(g, a, LT_INT).v, lg_cast(g, b, LT_INT).v, ""));
}

/* ---- atomics, fences, barriers ---- */

/* __threadfence(): membar.gl, a fence.sc at GPU scope since sm_70 */
void lg_threadfence(Lg *g) { lg_asm(g, NULL, "membar.gl;", "~{memory}", NULL, 0, true); }

/* CUDA's atomicAdd / atomicExch: relaxed read-modify-writes */
LLVMValueRef lg_atomic(Lg *g, LLVMAtomicRMWBinOp op, LLVMValueRef ptr, LLVMValueRef v) {
    return LLVMBuildAtomicRMW(g->b, op, ptr, v, LLVMAtomicOrderingMonotonic, 0);
}

LLVMValueRef lg_shfl0(Lg *g, LLVMValueRef v) {
    LLVMValueRef args[4] = {c32(g, 0xffffffff), v, c32(g, 0), c32(g, 0x1f)};
    return lg_intrinsic(g, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, args, 4);
}

LLVMValueRef lg_warpgroup_leader(Lg *g) {
    return LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildURem(g->b, g->tid, c32(g, 128), ""), c32(g, 0), "");
}

void lg_named_bar(Lg *g, const char *op, LLVMValueRef id, int threads) {
    char text[64];
    snprintf(text, sizeof text, "bar.%s %%0, %d;", op, threads);
    lg_asm(g, NULL, text, "r,~{memory}", &id, 1, true);
}

/* ---- the block indices ---- */

/* Grid dimension d's extent: compiled in, or its expression at these
 * sizes (the run-time grid of a persistent kernel of dynamic sizes). */
static LgVal grid_extent(Lg *g, int d) {
    int64_t n = g->k->grid[d];
    return lg_cast(g, n >= 0 ? lg_int(g, n) : lg_expr(g, g->k->info->grid_expr[d]), LT_LL);
}

/* The same in units of the persistent loop: along the cluster dimension of
 * a kernel of clusters of two, its pairs (of dynamic sizes rounded up: the
 * last pair's second tile past the end where the count is odd). */
static LgVal grid_pairs(Lg *g, int d) {
    const IrKernel *k = g->k;
    if (!k->sched.cluster || d != k->sched.cluster_dim) return grid_extent(g, d);
    if (k->grid[d] >= 0) return lg_cast(g, lg_int(g, k->grid[d] / 2), LT_LL);
    return binc(g, OP_DIV, binc(g, OP_ADD, grid_extent(g, d), 1), 2);
}

void lg_block_indices(Lg *g, const LgVal *lin_in) {
    IrKernel *k = g->k;
    KernelInfo *info = k->info;
    static const char *const ctaid[3] = {"ctaid.x", "ctaid.y", "ctaid.z"};
    static const char *const nctaid[3] = {"nctaid.x", "nctaid.y", "nctaid.z"};
    int64_t grid[3] = {k->grid[0], k->grid[1], k->grid[2]};
    LgVal val[3], extent[3], lin = {0};
    bool have_lin = lin_in != NULL;
    if (have_lin) lin = *lin_in;
    int nidx = info->block_idx.len;
    if (k->sched.cluster) {
        /* the hardware grid is linear: pair blockIdx.x / 2 is a tile of the
         * grid halved along the cluster dimension, the rank its low bit */
        g->cta_rank = int_val(lg_sreg(g, "cluster.ctarank"));
        if (grid[k->sched.cluster_dim] >= 0) grid[k->sched.cluster_dim] /= 2;
        if (!have_lin) lin = (LgVal){LLVMBuildLShr(g->b, lg_sreg(g, "ctaid.x"), c32(g, 1), ""), LT_UINT};
        have_lin = true;
    }
    /* lin is decoded by the grid's extents: compiled in, or in a persistent
     * kernel of dynamic sizes (no clusters: plan_schedule) at these sizes */
    bool run_time = have_lin && kernel_grid_dynamic(k);
    /* ... in 32 bits, unsigned: its tile numbers are ints (the launch
     * refuses more tiles: rt_launch_units), and a 64-bit division by a
     * run-time value is a long subroutine (cg_block_indices) */
    LgVal ext0 = run_time ? lg_cast(g, grid_pairs(g, 0), LT_UINT) : lg_int(g, grid[0]);
    LgVal ext1 = run_time ? lg_cast(g, grid_pairs(g, 1), LT_UINT) : lg_int(g, grid[1]);
    LgVal lin_d = run_time ? lg_cast(g, lin, LT_UINT) : lin;
    for (int d = 0; d < nidx; d++) {
        if (!have_lin) val[d] = (LgVal){lg_sreg(g, ctaid[d]), LT_UINT};
        else if (d == 0) val[d] = lg_cast(g, bin(g, OP_MOD, lin_d, ext0), LT_INT);
        else if (d == 1) val[d] = lg_cast(g, bin(g, OP_MOD, bin(g, OP_DIV, lin_d, ext0), ext1), LT_INT);
        else val[d] = lg_cast(g, bin(g, OP_DIV, lin_d, bin(g, OP_MUL, ext0, ext1)), LT_INT);
        /* a grid of dynamic sizes launched as it is: gridDim holds its
         * extents (the whole grid's, before clusters halve it) */
        int64_t whole = k->grid[d];
        extent[d] = whole >= 0 ? lg_cast(g, lg_int(g, whole), LT_LL)
                    : run_time ? grid_extent(g, d)
                               : lg_cast(g, (LgVal){lg_sreg(g, nctaid[d]), LT_UINT}, LT_LL);
    }
    bool panels = k->swizzle_panel > 0 && k->grid_rank >= 2 && nidx >= 2;
    if (panels) {
        /* the linear block number cut into panels of swizzle_panel along a
         * (in a kernel of clusters, of the grid of pairs lin numbers) */
        int a = k->swizzle_col ? 1 : 0, b = 1 - a;
        LgType wide = run_time ? LT_UINT : LT_LL; /* a launched grid numbers its blocks past 2^32 */
        LgVal pairs[2];
        for (int d = 0; d < 2; d++)
            pairs[d] = k->grid[d] < 0 && run_time ? lg_cast(g, grid_pairs(g, d), wide)
                     : grid[d] == k->grid[d]      ? lg_cast(g, extent[d], wide)
                                                  : lg_cast(g, lg_int(g, grid[d]), wide);
        LgVal whole = lg_cast(g, bin(g, OP_MUL, ext0, ext1), wide);
        LgVal n = have_lin ? bin(g, OP_MOD, lg_cast(g, lin, wide), whole)
                           : bin(g, OP_ADD, bin(g, OP_MUL, lg_cast(g, (LgVal){lg_sreg(g, "ctaid.y"), LT_UINT}, LT_LL),
                                                lg_cast(g, (LgVal){lg_sreg(g, "nctaid.x"), LT_UINT}, LT_LL)),
                                 lg_cast(g, (LgVal){lg_sreg(g, "ctaid.x"), LT_UINT}, LT_LL));
        LgVal panel = lg_cast(g, lg_int(g, k->swizzle_panel), wide);
        LgVal per_panel = bin(g, OP_MUL, panel, pairs[b]);
        LgVal first = bin(g, OP_MUL, bin(g, OP_DIV, n, per_panel), panel);
        LgVal rem = bin(g, OP_MOD, n, per_panel);
        LgVal left = bin(g, OP_SUB, pairs[a], first);
        LgVal width = {LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, panel.v, left.v, ""), panel.v, left.v, ""), wide};
        val[a] = lg_cast(g, bin(g, OP_ADD, first, bin(g, OP_MOD, rem, width)), LT_INT);
        val[b] = lg_cast(g, bin(g, OP_DIV, rem, width), LT_INT);
    }
    if (k->sched.cluster && k->sched.cluster_dim < nidx) {
        int d = k->sched.cluster_dim;
        val[d] = bin(g, OP_ADD, binc(g, OP_MUL, lg_cast(g, val[d], LT_INT), 2), g->cta_rank);
    }
    for (int i = 0; i < nidx; i++) {
        LgVal v = lg_cast(g, lg_cast(g, val[i], LT_INT), g->index_type);
        lg_bind(g, info->block_idx.items[i], v);
        /* block index i runs over [0, grid[i]): the compiler may drop the
         * bounds tests of tiles that divide the tensor */
        LgVal ext = lg_cast(g, extent[i], g->index_type);
        if (k->sched.cluster && i == k->sched.cluster_dim && k->grid[i] < 0) /* a cluster's tile past the end */
            ext = lg_binc(g, OP_ADD, ext, 1);
        lg_assume(g, LLVMBuildICmp(g->b, LLVMIntSGE, v.v, lg_const_int(g, g->index_type, 0), ""));
        lg_assume(g, LLVMBuildICmp(g->b, LLVMIntSLT, v.v, ext.v, ""));
    }
}

/* ---- the longest-first order's tiles (tl_tiles_* in tilec_device.cuh) ---- */

static LLVMValueRef global_array(Lg *g, const char *name, LLVMTypeRef elem, int64_t n, unsigned align) {
    LLVMValueRef v = LLVMGetNamedGlobal(g->mod, name);
    if (v) return v;
    LLVMTypeRef t = LLVMArrayType2(elem, (uint64_t)n);
    v = LLVMAddGlobalInAddressSpace(g->mod, t, name, 1);
    /* zeros take no room in the cubin: the module load clears them */
    LLVMSetInitializer(v, LLVMConstNull(t));
    LLVMSetAlignment(v, align);
    return v;
}

static LLVMValueRef tile_count(Lg *g, int word) {
    LLVMValueRef arr = LLVMGetNamedGlobal(g->mod, "tl_tile_count");
    LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), LLVMConstInt(g->i64, (unsigned long long)word, 0)};
    return LLVMBuildInBoundsGEP2(g->b, LLVMArrayType2(g->i32, 2), arr, idx, 2, "");
}

/* the consumers and the producer's warp meet at the slot's barriers */
static int slot_threads(const IrKernel *k) { return (int)(k->threads + 32); }

/* The block's next tile: gridDim.x + the launch's counter, incremented. */
static LgVal tiles_draw(Lg *g) {
    LLVMValueRef drawn = lg_atomic(g, LLVMAtomicRMWBinOpAdd, tile_count(g, 0), c32(g, 1));
    return int_val(LLVMBuildAdd(g->b, lg_sreg(g, "nctaid.x"), drawn, ""));
}

/* The producer hands tile `tile` (the n-th) to the consumers: once they
 * have taken tile n - 1, through the shared slot (an atomic: racecheck
 * does not see the barriers' order), then the `full` barrier. */
static void tiles_publish(Lg *g, LgVal n, LgVal tile) {
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntSGE, n.v, c32(g, 1), ""));
    lg_named_bar(g, "sync", c32(g, CG_BAR_TILE_EMPTY), slot_threads(g->k));
    lg_end_if(g, after);
    lg_atomic(g, LLVMAtomicRMWBinOpXchg, g->next_tile, lg_cast(g, tile, LT_INT).v);
    lg_named_bar(g, "arrive", c32(g, CG_BAR_TILE_FULL), slot_threads(g->k));
}

/* The consumers take the next tile (one read a warp); after the last
 * (`end`) nothing stays arrived at the empty barrier. */
static LLVMValueRef tiles_take(Lg *g, int64_t end) {
    lg_named_bar(g, "sync", c32(g, CG_BAR_TILE_FULL), slot_threads(g->k));
    LLVMBasicBlockRef before = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, g->lane, c32(g, 0), ""));
    LLVMValueRef read = lg_atomic(g, LLVMAtomicRMWBinOpAdd, g->next_tile, c32(g, 0));
    LLVMBasicBlockRef then = LLVMGetInsertBlock(g->b);
    lg_end_if(g, after);
    LLVMValueRef tile = LLVMBuildPhi(g->b, g->i32, "");
    LLVMValueRef vals[2] = {c32(g, 0), read};
    LLVMBasicBlockRef from[2] = {before, then};
    LLVMAddIncoming(tile, vals, from, 2);
    tile = lg_shfl0(g, tile);
    after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, tile, c32(g, end), ""));
    lg_named_bar(g, "arrive", c32(g, CG_BAR_TILE_EMPTY), slot_threads(g->k));
    lg_end_if(g, after);
    return tile;
}

/* The last producer done drawing sets the counter back to 0 for the next
 * launch (the fences order every other block's last draw before it). */
static void tiles_done(Lg *g) {
    lg_threadfence(g);
    LLVMValueRef done = lg_atomic(g, LLVMAtomicRMWBinOpAdd, tile_count(g, 1), c32(g, 1));
    LLVMValueRef last = LLVMBuildSub(g->b, lg_sreg(g, "nctaid.x"), c32(g, 1), "");
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, done, last, ""));
    lg_threadfence(g);
    lg_atomic(g, LLVMAtomicRMWBinOpXchg, tile_count(g, 0), c32(g, 0));
    lg_atomic(g, LLVMAtomicRMWBinOpXchg, tile_count(g, 1), c32(g, 0));
    lg_end_if(g, after);
}

/* ---- the tile orders (tile_order.c) ---- */

/* Unit u's digits below dimension `inner` and above it, with x between. */
static LgVal around(Lg *g, const TileOrderPlan *p, LgVal u, LgVal x) {
    if (p->inner == 1) return bin(g, OP_ADD, x, binc(g, OP_MUL, u, p->G));
    LgVal hi = bin(g, OP_ADD, x, binc(g, OP_MUL, binc(g, OP_DIV, u, p->inner), p->G));
    return bin(g, OP_ADD, binc(g, OP_MOD, u, p->inner), binc(g, OP_MUL, hi, p->inner));
}

static LgVal longest_first(Lg *g, const TileOrderPlan *p, LgVal t) {
    int64_t G = p->G, W = p->section, others = p->units / G, rem = others % W, WG = W * G;
    LgVal x, u;
    if (W >= others) {
        x = binc(g, OP_DIV, t, others);
        u = binc(g, OP_MOD, t, others);
    } else if (!rem) {
        LgVal r = binc(g, OP_MOD, t, WG);
        x = binc(g, OP_DIV, r, W);
        u = bin(g, OP_ADD, binc(g, OP_MUL, binc(g, OP_DIV, t, WG), W), binc(g, OP_MOD, r, W));
    } else {
        /* a first section of the remainder's rem units, then sections of W */
        LgVal s = binc(g, OP_SUB, t, rem * G);
        LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntSLT, s.v, c32(g, 0), "");
        LgVal w = select_int(g, first, lg_int(g, rem), lg_int(g, W));
        LgVal r = select_int(g, first, t, binc(g, OP_MOD, s, WG));
        x = bin(g, OP_DIV, r, w);
        LgVal start = select_int(g, first, lg_int(g, 0), bin(g, OP_ADD, lg_int(g, rem), binc(g, OP_MUL, binc(g, OP_DIV, s, WG), W)));
        u = bin(g, OP_ADD, start, bin(g, OP_MOD, r, w));
    }
    if (p->reverse) x = bin(g, OP_SUB, lg_int(g, G - 1), x);
    LgVal lin = around(g, p, u, x);
    tiles_publish(g, g->tile_n, lin);
    return lin;
}

/* The tiles with idle warpgroups (the end of dimension d) after the others. */
static LgVal idle_last(Lg *g, const TileOrderPlan *p, LgVal t) {
    int64_t G = p->G, first = p->tiles - p->tiles / G;
    LgVal hi = p->inner == 1 ? t : binc(g, OP_DIV, t, p->inner);
    LgVal inside = bin(g, OP_ADD, binc(g, OP_MOD, hi, G - 1), binc(g, OP_MUL, binc(g, OP_DIV, hi, G - 1), G));
    if (p->inner > 1) inside = bin(g, OP_ADD, binc(g, OP_MOD, t, p->inner), binc(g, OP_MUL, inside, p->inner));
    LgVal last = around(g, p, binc(g, OP_SUB, t, first), lg_int(g, G - 1));
    return select_int(g, LLVMBuildICmp(g->b, LLVMIntSLT, t.v, c32(g, first), ""), inside, last);
}

/* Split tiles: unit's tile and piece, and that tile's block indices. */
static void split_unit(Lg *g, LgVal unit) {
    int ways = g->k->sched.split_ways;
    g->tile_at = binc(g, OP_DIV, unit, ways);
    g->tile_piece = binc(g, OP_MOD, unit, ways);
    lg_block_indices(g, &g->tile_at);
}

/* A split decided at launch (rt_split_ways): this launch's pieces a tile
 * (g->tile_ways, 1 where the grid of `tiles` units fills a wave or the
 * loop is too short) from the run-time trip count; true where 2 or more. */
static LLVMValueRef split_ways(Lg *g, LgVal tiles) {
    const Schedule *sc = &g->k->sched;
    LgVal trips = lg_cast(g, lg_expr(g, g->k->ws_loop->hi), LT_INT), one = lg_int(g, 1);
    LgVal slots = lg_cast(g, lg_int(g, sc->split_slots), LT_LL);
    LLVMValueRef few = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, tiles.v, lg_cast(g, lg_int(g, 0), LT_LL).v, ""),
                                    LLVMBuildICmp(g->b, LLVMIntSLT, tiles.v, slots.v, ""), "");
    /* in int from here: tiles < slots where it counts (no division by 0) */
    LgVal w = bin(g, OP_DIV, lg_int(g, sc->split_slots), select_int(g, few, tiles, one));
    LgVal most = lg_int(g, sc->split_max), by_trips = binc(g, OP_DIV, trips, RT_SPLIT_MIN_TRIPS);
    w = select_int(g, LLVMBuildICmp(g->b, LLVMIntSLT, most.v, w.v, ""), most, w);
    w = select_int(g, LLVMBuildICmp(g->b, LLVMIntSLT, by_trips.v, w.v, ""), by_trips, w);
    LLVMValueRef split = LLVMBuildAnd(g->b, few, LLVMBuildICmp(g->b, LLVMIntSGE, w.v, c32(g, 2), ""), "");
    g->tile_ways = select_int(g, split, w, one);
    return split;
}

/* blockIdx.x or gridDim.x (sreg) in round-robin units: clusters of two
 * take their tiles in pairs. */
static LgVal round_robin(Lg *g, const char *sreg) {
    LLVMValueRef x = lg_sreg(g, sreg);
    return (LgVal){g->k->sched.cluster ? LLVMBuildLShr(g->b, x, c32(g, 1), "") : x, LT_UINT};
}

void lg_tile_loop_begin(Lg *g, LgTileLoop *l, bool producer) {
    const IrKernel *k = g->k;
    TileOrderPlan p;
    cg_tile_order_plan(k, &p);
    bool longest = p.order == ORDER_LONGEST_FIRST;
    l->producer = producer;
    LLVMValueRef first = longest && !producer ? tiles_take(g, p.units) : lg_cast(g, round_robin(g, "ctaid.x"), LT_INT).v;
    /* the units: compiled in, or the run-time grid's tiles (plan_schedule: the snake order only) */
    LLVMValueRef units = c32(g, p.units);
    LgVal half_from = lg_int(g, p.half_from);
    if (kernel_grid_dynamic(k)) {
        LgVal tiles = bin(g, OP_MUL, bin(g, OP_MUL, grid_pairs(g, 0), grid_pairs(g, 1)), grid_pairs(g, 2)), all = tiles;
        LgVal zero = lg_cast(g, lg_int(g, 0), LT_LL);
        if (k->sched.split_slots) { /* this launch's pieces a tile */
            LLVMValueRef split = split_ways(g, tiles);
            all = select_int(g, split, bin(g, OP_MUL, tiles, lg_cast(g, g->tile_ways, LT_LL)), tiles);
        } else if (k->sched.half_all) { /* the halves variant: every tile in two halves */
            all = binc(g, OP_MUL, tiles, 2);
        } else if (p.half_slots) { /* rt_half_units, as the launch counts them */
            LgVal rest = binc(g, OP_MOD, tiles, p.half_slots);
            LgVal slots = lg_cast(g, lg_int(g, p.half_slots), LT_LL);
            LLVMValueRef halves = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, rest.v, zero.v, ""),
                                               LLVMBuildICmp(g->b, LLVMIntSLE, binc(g, OP_MUL, rest, 2).v, slots.v, ""), "");
            half_from = select_int(g, halves, bin(g, OP_SUB, tiles, rest), tiles);
            all = select_int(g, halves, bin(g, OP_ADD, tiles, rest), tiles);
        }
        units = lg_cast(g, all, LT_INT).v;
    }
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    l->head = lg_block(g, "tiles");
    LLVMBasicBlockRef body = lg_block(g, "tile");
    l->latch = lg_block(g, "next_tile");
    l->exit = lg_block(g, "tiles_done");
    LLVMBuildBr(g->b, l->head);
    LLVMPositionBuilderAtEnd(g->b, l->head);
    l->n = LLVMBuildPhi(g->b, g->i32, "tl_n");
    l->tile = LLVMBuildPhi(g->b, g->i32, "tl_tile");
    LLVMValueRef zero = c32(g, 0);
    LLVMAddIncoming(l->n, &zero, &pre, 1);
    LLVMAddIncoming(l->tile, &first, &pre, 1);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, l->tile, units, ""), body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    g->tile_n = int_val(l->n);
    g->tile_next = l->latch;
    LgVal tile = int_val(l->tile);
    if (longest && !producer) { /* the tiles in grid order, as the producer hands them on */
        lg_block_indices(g, &tile);
        return;
    }
    if (k->sched.split_slots) { /* split tiles: which piece of which */
        g->tile_piece = bin(g, OP_MOD, tile, g->tile_ways);
        tile = bin(g, OP_DIV, tile, g->tile_ways);
    }
    if (p.half_tiles || p.half_slots) { /* the last wave's tiles in halves of their columns */
        LgVal from = half_from, off = bin(g, OP_SUB, tile, from);
        /* the halves variant's a constant: LLVM drops the whole-tile code */
        LLVMValueRef half = k->sched.half_all ? LLVMConstInt(g->i1, 1, 0)
                                              : LLVMBuildICmp(g->b, LLVMIntSGE, tile.v, from.v, "");
        g->tile_half = int_val(LLVMBuildZExt(g->b, half, g->i32, "tl_half"));
        g->tile_hcol = select_int(g, half, binc(g, OP_MUL, binc(g, OP_MOD, off, 2), p.half_cols), lg_int(g, 0));
        tile = select_int(g, half, bin(g, OP_ADD, from, binc(g, OP_DIV, off, 2)), tile);
    }
    if (p.order == ORDER_SNAKE) {
        if (p.split_ways) split_unit(g, tile);
        else lg_block_indices(g, &tile);
        /* where the tile's partial sums go: in clusters, the pair's tile of this block */
        if (k->sched.split_slots) g->tile_at = k->sched.cluster ? bin(g, OP_ADD, binc(g, OP_MUL, tile, 2), g->cta_rank) : tile;
        return;
    }
    LgVal lin = longest ? longest_first(g, &p, tile) : idle_last(g, &p, tile);
    lg_block_indices(g, &lin);
}

void lg_tile_loop_end(Lg *g, LgTileLoop *l) {
    const IrKernel *k = g->k;
    bool longest = k->sched.order == ORDER_LONGEST_FIRST;
    LLVMBuildBr(g->b, l->latch);
    LLVMPositionBuilderAtEnd(g->b, l->latch);
    LLVMValueRef n = LLVMBuildAdd(g->b, l->n, c32(g, 1), "");
    LLVMValueRef next;
    if (longest) {
        next = l->producer ? tiles_draw(g).v : tiles_take(g, cg_loop_units(k));
    } else {
        /* round n takes units n * all .. n * all + all - 1, block b the b-th
         * in even rounds and the (all - 1 - b)-th in odd ones (the snake) */
        LgVal nn = int_val(n), a = round_robin(g, "nctaid.x"), m = round_robin(g, "ctaid.x");
        LgVal pick = (LgVal){LLVMBuildSelect(g->b, LLVMBuildTrunc(g->b, n, g->i1, ""),
                                             bin(g, OP_SUB, binc(g, OP_SUB, a, 1), m).v, m.v, ""), LT_UINT};
        next = lg_cast(g, bin(g, OP_ADD, bin(g, OP_MUL, nn, a), pick), LT_INT).v;
    }
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMAddIncoming(l->n, &n, &latch, 1);
    LLVMAddIncoming(l->tile, &next, &latch, 1);
    LLVMBuildBr(g->b, l->head);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
    g->tile_next = NULL;
    if (!l->producer || !longest) return;
    /* no more tiles; then the counter reads 0 again for the next launch */
    tiles_publish(g, int_val(l->n), lg_int(g, k->grid[0] * k->grid[1] * k->grid[2]));
    tiles_done(g);
}

/* ---- split tiles (lower_split.c) ---- */

void lg_split_loop_begin(Lg *g, LgLoop *l, LgVal n, const Sym *var) {
    const Schedule *sc = &g->k->sched;
    LgVal lo = lg_int(g, 0), hi = n;
    if (sched_has_split(sc)) { /* this piece's iterations */
        LgVal ways = sc->split_ways ? lg_int(g, sc->split_ways) : g->tile_ways;
        lo = bin(g, OP_DIV, bin(g, OP_MUL, g->tile_piece, n), ways);
        hi = bin(g, OP_DIV, bin(g, OP_MUL, binc(g, OP_ADD, g->tile_piece, 1), n), ways);
    }
    lg_loop_begin(g, l, lg_cast(g, lo, LT_INT), hi, lg_int(g, 1), false, "kt");
    if (var) lg_bind(g, var, l->var);
}

void lg_split_loop_end(Lg *g, LgLoop *l, LLVMValueRef it) {
    LLVMValueRef v = LLVMBuildLoad2(g->b, g->i32, it, "");
    LLVMBuildStore(g->b, LLVMBuildAdd(g->b, v, c32(g, 1), ""), it);
    lg_loop_end(g, l);
}

static int split_levels(int ways) {
    int levels = 0;
    while ((1 << levels) < ways) levels++;
    return levels;
}

void lg_schedule_globals(Lg *g) {
    const IrKernel *k = g->k;
    if (k->sched.order == ORDER_LONGEST_FIRST) {
        /* the tiles this launch's blocks have drawn, and the blocks done drawing */
        global_array(g, "tl_tile_count", g->i32, 2, 4);
        /* static shared, so the dynamic layout does not depend on the schedule */
        LLVMValueRef slot = LLVMAddGlobalInAddressSpace(g->mod, g->i32, "tl_next_tile_slot", 3);
        LLVMSetLinkage(slot, LLVMInternalLinkage);
        LLVMSetInitializer(slot, LLVMGetUndef(g->i32));
        LLVMSetAlignment(slot, 4);
        g->next_tile = slot;
    }
    if (sched_has_split(&k->sched)) {
        int64_t regs = cg_loop_gemm(k)->c.buf->layout.regs, W = k->threads / 128, units = cg_split_partial_units(k);
        global_array(g, "tl_split_partials", LLVMVectorType(g->f32, 4), units * k->threads * regs / 4, 16);
        global_array(g, "tl_split_count", g->i32, units * cg_split_max_levels(k) * W, 4);
    }
}

/* This warpgroup has written its partial sums; true for the second of
 * the two that meet at `count` (which sets it back to 0), in all of the
 * warpgroup's threads (bar.red.or). The fences make the first one's
 * writes visible to the second one's reads (tl_split_last). */
static LLVMValueRef split_last(Lg *g, LLVMValueRef count, LLVMValueRef bar) {
    lg_threadfence(g);
    lg_named_bar(g, "sync", bar, 128);
    LLVMBasicBlockRef before = LLVMGetInsertBlock(g->b);
    LLVMValueRef leader = lg_warpgroup_leader(g);
    LLVMBasicBlockRef count_it = lg_block(g, "count"), second = lg_block(g, "second"), join = lg_block(g, "counted");
    LLVMBuildCondBr(g->b, leader, count_it, join);
    LLVMPositionBuilderAtEnd(g->b, count_it);
    LLVMValueRef old = lg_atomic(g, LLVMAtomicRMWBinOpAdd, count, c32(g, 1));
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, old, c32(g, 1), ""), second, join);
    LLVMPositionBuilderAtEnd(g->b, second);
    lg_atomic(g, LLVMAtomicRMWBinOpXchg, count, c32(g, 0));
    lg_threadfence(g);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef last = LLVMBuildPhi(g->b, g->i32, "");
    LLVMValueRef vals[3] = {c32(g, 0), c32(g, 0), c32(g, 1)};
    LLVMBasicBlockRef from[3] = {before, count_it, second};
    LLVMAddIncoming(last, vals, from, 3);
    LLVMValueRef args[2] = {last, bar};
    LLVMValueRef any = lg_asm(g, g->i32,
                              "{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.or.pred p, %2, 128, p; selp.u32 %0, 1, 0, p; }",
                              "=r,r,r,~{memory}", args, 2, true);
    return LLVMBuildICmp(g->b, LLVMIntNE, any, c32(g, 0), "");
}

/* One thread's accumulator registers to (store) or added from (load)
 * partial-sum slot `slot`, four at a time through L2 (st.cg / ld.cg):
 * 16-byte accesses, a warp's 512 consecutive bytes. */
static void split_move(Lg *g, const IrBuf *acc, int64_t stride, LLVMValueRef base, LgVal slot, bool store) {
    LLVMTypeRef f4 = LLVMVectorType(g->f32, 4);
    LgVal at_slot = binc(g, OP_MUL, lg_cast(g, slot, LT_LL), stride);
    for (int64_t q = 0; q < acc->layout.regs; q += 4) {
        LLVMValueRef off = bin(g, OP_ADD, at_slot, lg_cast(g, lg_int(g, q / 4 * 128), LT_LL)).v;
        LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, f4, base, &off, 1, "");
        LLVMValueRef addr = LLVMBuildPtrToInt(g->b, p, g->i64, "");
        LLVMValueRef reg[4];
        for (int i = 0; i < 4; i++) reg[i] = lg_frag_reg_ptr(g, acc, LLVMConstInt(g->i64, (unsigned long long)(q + i), 0));
        if (store) {
            LLVMValueRef args[5] = {addr};
            for (int i = 0; i < 4; i++) args[i + 1] = LLVMBuildLoad2(g->b, g->f32, reg[i], "");
            lg_asm(g, NULL, "st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};", "l,f,f,f,f,~{memory}", args, 5, true);
        } else {
            LLVMTypeRef fields[4] = {g->f32, g->f32, g->f32, g->f32};
            LLVMValueRef w = lg_asm(g, LLVMStructTypeInContext(g->ctx, fields, 4, 0),
                                    "ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];", "=f,=f,=f,=f,l,~{memory}", &addr, 1, true);
            for (int i = 0; i < 4; i++) {
                LLVMValueRef sum = LLVMBuildFAdd(g->b, LLVMBuildLoad2(g->b, g->f32, reg[i], ""),
                                                 LLVMBuildExtractValue(g->b, w, (unsigned)i, ""), "");
                LLVMBuildStore(g->b, sum, reg[i]);
            }
        }
    }
}

/* The pieces' sums added pairwise, a level at a time (cg_split_sum): at
 * level l nodes 2m and 2m + 1 (of 2^l pieces) both write their sums, the
 * second to arrive adds the other's and goes up, the first goes on to its
 * next unit (`continue`). The piece left at the top runs the epilogue. */
static void split_sum_at_launch(Lg *g);

void lg_split_sum(Lg *g) {
    const IrKernel *k = g->k;
    if (!k->sched.split_ways) {
        split_sum_at_launch(g);
        return;
    }
    const IrBuf *acc = cg_loop_gemm(k)->c.buf;
    int ways = k->sched.split_ways, levels = split_levels(ways);
    int64_t regs = acc->layout.regs, W = k->threads / 128, stride = W * 32 * regs;
    LLVMTypeRef f4 = LLVMVectorType(g->f32, 4);
    LgVal start = bin(g, OP_ADD, binc(g, OP_MUL, lg_cast(g, g->tile_at, LT_LL), ways * W), lg_cast(g, g->wg, LT_LL));
    start = bin(g, OP_ADD, binc(g, OP_MUL, start, 32 * regs),
                lg_cast(g, (LgVal){LLVMBuildURem(g->b, g->tid, c32(g, 128), ""), LT_INT}, LT_LL));
    LLVMValueRef base = LLVMBuildInBoundsGEP2(g->b, f4, LLVMGetNamedGlobal(g->mod, "tl_split_partials"), &start.v, 1, "");
    LLVMValueRef counts = LLVMGetNamedGlobal(g->mod, "tl_split_count");
    for (int l = 0; l < levels; l++) {
        int nodes = (ways + (1 << l) - 1) >> l;
        LgVal node = l ? binc(g, OP_SHR, g->tile_piece, l) : g->tile_piece;
        LLVMBasicBlockRef after = NULL;
        if (nodes % 2) /* the last node has no partner at this level */
            after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntNE, node.v, c32(g, nodes - 1), ""));
        split_move(g, acc, stride, base, l ? binc(g, OP_SHL, node, l) : node, true);
        LgVal ci = bin(g, OP_ADD, binc(g, OP_MUL, binc(g, OP_ADD, binc(g, OP_MUL, g->tile_at, levels), l), ways),
                       binc(g, OP_DIV, node, 2));
        ci = bin(g, OP_ADD, binc(g, OP_MUL, ci, W), g->wg);
        LLVMValueRef ci64 = lg_cast(g, ci, LT_LL).v;
        LLVMValueRef count = LLVMBuildInBoundsGEP2(g->b, g->i32, counts, &ci64, 1, "");
        LLVMValueRef second = split_last(g, count, LLVMBuildAdd(g->b, c32(g, CG_BAR_WARPGROUP), g->wg.v, ""));
        LLVMBasicBlockRef go = lg_block(g, "second");
        LLVMBuildCondBr(g->b, second, go, g->tile_next);
        LLVMPositionBuilderAtEnd(g->b, go);
        LgVal partner = binc(g, OP_BXOR, node, 1);
        split_move(g, acc, stride, base, l ? binc(g, OP_SHL, partner, l) : partner, false);
        if (after) lg_end_if(g, after);
    }
}

/* The same of a split decided at launch (split_sum_at_launch in
 * lower_split.c): a level for each the most pieces need, taken where 2^l
 * is below the launch's pieces, a node without a partner at the end of a
 * level going on as it is. The first of a pair to arrive branches to its
 * next unit after the level (the NVRTC path runs the rest of the tile
 * under a flag instead: there the branch makes ptxas serialise the
 * wgmmas, here it does not). */
static void split_sum_at_launch(Lg *g) {
    const IrKernel *k = g->k;
    const IrBuf *acc = cg_loop_gemm(k)->c.buf;
    int64_t regs = acc->layout.regs, W = k->threads / 128, stride = W * 32 * regs;
    int levels = cg_split_max_levels(k);
    LLVMTypeRef f4 = LLVMVectorType(g->f32, 4);
    LgVal ways = g->tile_ways, at = lg_cast(g, g->tile_at, LT_LL);
    LgVal start = bin(g, OP_ADD, binc(g, OP_MUL, bin(g, OP_MUL, at, lg_cast(g, ways, LT_LL)), W), lg_cast(g, g->wg, LT_LL));
    start = bin(g, OP_ADD, binc(g, OP_MUL, start, 32 * regs),
                lg_cast(g, (LgVal){LLVMBuildURem(g->b, g->tid, c32(g, 128), ""), LT_INT}, LT_LL));
    LLVMValueRef base = LLVMBuildInBoundsGEP2(g->b, f4, LLVMGetNamedGlobal(g->mod, "tl_split_partials"), &start.v, 1, "");
    LLVMValueRef counts = LLVMGetNamedGlobal(g->mod, "tl_split_count");
    LLVMValueRef top = lg_entry_alloca(g, g->i32, "tl_top");
    LLVMBuildStore(g->b, c32(g, 1), top);
    for (int l = 0; l < levels; l++) {
        LLVMBasicBlockRef level = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, c32(g, 1 << l), ways.v, ""));
        LgVal node = binc(g, OP_SHR, g->tile_piece, l);
        /* the last node, without a partner at this level, goes up as it is */
        LLVMValueRef alone = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, node.v, binc(g, OP_SHR, binc(g, OP_SUB, ways, 1), l).v, ""),
                                          LLVMBuildICmp(g->b, LLVMIntEQ, binc(g, OP_BAND, node, 1).v, c32(g, 0), ""), "");
        LLVMBasicBlockRef paired = lg_begin_if(g, LLVMBuildNot(g->b, alone, ""));
        split_move(g, acc, stride, base, binc(g, OP_SHL, node, l), true);
        LgVal ci = bin(g, OP_ADD, bin(g, OP_MUL, g->tile_at, ways), binc(g, OP_SHL, binc(g, OP_SHR, node, 1), l + 1));
        ci = bin(g, OP_ADD, binc(g, OP_MUL, binc(g, OP_ADD, binc(g, OP_MUL, ci, levels), l), W), g->wg);
        LLVMValueRef ci64 = lg_cast(g, ci, LT_LL).v;
        LLVMValueRef count = LLVMBuildInBoundsGEP2(g->b, g->i32, counts, &ci64, 1, "");
        LLVMValueRef second = split_last(g, count, LLVMBuildAdd(g->b, c32(g, CG_BAR_WARPGROUP), g->wg.v, ""));
        LLVMBuildStore(g->b, LLVMBuildZExt(g->b, second, g->i32, ""), top);
        LLVMBasicBlockRef go = lg_begin_if(g, second);
        split_move(g, acc, stride, base, binc(g, OP_SHL, binc(g, OP_BXOR, node, 1), l), false);
        lg_end_if(g, go);
        lg_end_if(g, paired);
        lg_end_if(g, level);
        LLVMBasicBlockRef on = lg_block(g, "still_top");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildLoad2(g->b, g->i32, top, ""), c32(g, 0), ""), on, g->tile_next);
        LLVMPositionBuilderAtEnd(g->b, on);
    }
}
