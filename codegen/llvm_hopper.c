/* llvm_hopper.c - the warp-specialised sm_90a pipeline for the LLVM
 * backend (lower_hopper.c is the model, and its comments the why): one
 * producer warpgroup whose first thread issues the TMA copies into a ring
 * of slots guarded by mbarriers, consumer warpgroups that wait for a slot,
 * run the body with its gemms as wgmma on shared-memory descriptors and
 * release the slot; the epilogue's TMA stores; the warpgroups with
 * nothing to store; setmaxnreg between the two kinds. The device helpers
 * of tilec_device.cuh section 10 are inline PTX here, written per use. */
#include <stdlib.h>
#include <string.h>

#include "llvm_codegen.h"

static LLVMValueRef c32(Lg *g, int64_t v) { return LLVMConstInt(g->i32, (unsigned long long)v, 0); }
static void push_ring_stages(Lg *g, LgVal slot);
static LgVal int_val(LLVMValueRef v) { return (LgVal){v, LT_INT}; }
static Arena *arena(Lg *g) { return &g->k->c->arena; }

/* A byte offset from a shared pointer. */
static LLVMValueRef byte_gep(Lg *g, LLVMValueRef p, LLVMValueRef off) {
    return LLVMBuildInBoundsGEP2(g->b, g->i8, p, &off, 1, "");
}

/* ---- mbarriers (tl_mbar_* in tilec_device.cuh) ---- */

static LLVMValueRef mbar(Lg *g, LLVMValueRef ring, LLVMValueRef slot) {
    return LLVMBuildInBoundsGEP2(g->b, g->i64, ring, &slot, 1, "");
}

/* An mbarrier operation on bar with one 32-bit operand v (NULL: none). */
static void mbar_op(Lg *g, const char *text, LLVMValueRef bar, LLVMValueRef v) {
    LLVMValueRef args[2] = {lg_shared_addr(g, bar), v};
    lg_asm(g, NULL, text, v ? "r,r,~{memory}" : "r,~{memory}", args, v ? 2 : 1, true);
}

static void mbar_init(Lg *g, LLVMValueRef bar, int64_t count) {
    mbar_op(g, "mbarrier.init.shared::cta.b64 [%0], %1;", bar, c32(g, count));
}

/* one arrival that also announces `bytes` of TMA data for the phase */
static void mbar_expect(Lg *g, LLVMValueRef bar, LLVMValueRef bytes) {
    mbar_op(g, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;", bar, bytes);
}

static void mbar_arrive(Lg *g, LLVMValueRef bar) { mbar_op(g, "mbarrier.arrive.shared::cta.b64 _, [%0];", bar, NULL); }

/* One arrival for the whole warp: its lane 0's. */
static void warp_arrive(Lg *g, LLVMValueRef bar) {
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, g->lane, c32(g, 0), ""));
    mbar_arrive(g, bar);
    lg_end_if(g, after);
}

/* Until the phase of this parity has completed: the loop inside the PTX
 * (a branch between wgmma groups in flight would make ptxas serialise
 * every wgmma), its label local to the braces. */
static void mbar_wait(Lg *g, LLVMValueRef bar, LLVMValueRef parity) {
    mbar_op(g,
            "{\n.reg .pred done;\nwait_again:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
            "@!done bra wait_again;\n}",
            bar, parity);
}

/* One arrival on the mbarrier at bar's offset in cluster block `rank`
 * (default semantics: .release.cluster costs a GPU-wide membar each). */
static void mbar_arrive_cluster(Lg *g, LLVMValueRef bar, LLVMValueRef rank) {
    mbar_op(g,
            "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
            "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
            bar, rank);
}

static void plain_asm(Lg *g, const char *text) { lg_asm(g, NULL, text, "~{memory}", NULL, 0, true); }

static void cluster_sync(Lg *g) { plain_asm(g, "barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;"); }

/* ---- TMA ---- */

int lg_hopper_nparams(const IrKernel *k) { return k->ws_loop ? k->tma_copies.len + k->tma_stores.len : 0; }

void lg_hopper_params(Lg *g) {
    const IrKernel *k = g->k;
    unsigned first = (unsigned)(k->info->params.len + k->info->dynamic.len);
    for (int i = 0; i < lg_hopper_nparams(k) && i < CG_MAX_TMA; i++) {
        LLVMValueRef p = LLVMGetParam(g->fn, first + (unsigned)i);
        char name[32];
        snprintf(name, sizeof name, "tl_tmap%d", i);
        LLVMSetValueName2(p, name, strlen(name));
        /* a __grid_constant__ parameter: its generic address (cvta.param) */
        g->tmap[i] = LLVMBuildPtrToInt(g->b, p, g->i64, "");
    }
}

/* A box's element coordinates, innermost first (tma_coords): region r's
 * corner, col_off more columns (and the half unit's with `half`), the
 * rows shifted by row_extra (NULL: none). */
static int tma_coords(Lg *g, const IrRegion *r, int64_t col_off, bool half, const LgVal *row_extra, LLVMValueRef *out) {
    int rank = r->buf->rank, n = 0;
    for (int d = rank - 1; d >= 0; d--) {
        LgVal v = lg_cast(g, r->idx[d] ? lg_expr(g, r->idx[d]) : lg_int(g, 0), LT_INT);
        if (d == rank - 1) {
            v = lg_binary(g, OP_ADD, v, lg_int(g, col_off));
            if (half) v = lg_binary(g, OP_ADD, v, g->tile_hcol);
        }
        if (d == region_row_dim(r) && row_extra) v = lg_binary(g, OP_ADD, v, *row_extra);
        out[n++] = lg_cast(g, v, LT_INT).v;
    }
    return n;
}

/* The box at coords into shared memory at dst, completing on bar; with
 * multicast, into both blocks of the cluster (mask 0b11). */
static void tma_load(Lg *g, int map, LLVMValueRef dst, LLVMValueRef bar, bool multicast, LLVMValueRef *coords, int rank) {
    LLVMValueRef args[4 + MAX_RANK];
    int n = 0;
    args[n++] = lg_shared_addr(g, dst);
    args[n++] = g->tmap[map];
    args[n++] = lg_shared_addr(g, bar);
    if (multicast) args[n++] = LLVMConstInt(g->i16, 3, 0);
    char list[64] = "", cons[96] = "r,l,r";
    if (multicast) strcat(cons, ",h");
    for (int i = 0; i < rank; i++) {
        char one[16];
        snprintf(one, sizeof one, "%s%%%d", i ? ", " : "", n);
        strcat(list, one);
        strcat(cons, ",r");
        args[n++] = coords[i];
    }
    strcat(cons, ",~{memory}");
    const char *text = arena_printf(arena(g),
                                    "cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes%s"
                                    " [%%0], [%%1, {%s}], [%%2]%s;",
                                    rank, multicast ? ".multicast::cluster" : "", list, multicast ? ", %3" : "");
    lg_asm(g, NULL, text, cons, args, n, true);
}

/* The TMA copies of c into the tile at dst (one per column block): a
 * multicast copy loads its block's half of the rows into both blocks; a
 * half unit loads the first half of B's column blocks only. */
static void issue_tma(Lg *g, const IrStmt *c, LLVMValueRef dst, LLVMValueRef bar) {
    const IrBuf *d = c->dst.buf;
    int map = cg_tma_index(g->k, c), rank = c->src.buf->rank;
    if (d->rank == 1) { /* a vector: one box */
        LLVMValueRef coords[MAX_RANK];
        tma_coords(g, &c->src, 0, false, NULL, coords);
        tma_load(g, map, dst, bar, false, coords, rank);
        return;
    }
    int64_t cols = cg_tma_blk_cols(d), blocks = d->shape[1] / cols, half = d->shape[0] / 2;
    LgVal rows = {0}, bytes = lg_int(g, 0);
    if (c->multicast) {
        rows = lg_binc(g, OP_MUL, g->cta_rank, half);
        bytes = lg_binc(g, OP_MUL, g->cta_rank, half * cg_tma_blk_row_bytes(d));
    }
    bool halves = cg_hopper_half_copy(g->k, c);
    LLVMBasicBlockRef after = NULL;
    for (int64_t j = 0; j < blocks; j++) {
        if (halves && j == blocks / 2)
            after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, g->tile_half.v, c32(g, 0), ""));
        LgVal off = lg_binary(g, OP_ADD, lg_int(g, j * cg_tma_blk_bytes(d)), bytes);
        LLVMValueRef coords[MAX_RANK];
        tma_coords(g, &c->src, j * cols, halves, c->multicast ? &rows : NULL, coords);
        tma_load(g, map, byte_gep(g, dst, lg_cast(g, off, LT_LL).v), bar, c->multicast, coords, rank);
    }
    if (after) lg_end_if(g, after);
}

/* ---- the producer ---- */

static void producer_lets(Lg *g) {
    IrKernel *k = g->k;
    for (int i = 0; i < k->body.len && k->body.items[i] != k->ws_loop; i++)
        if (k->body.items[i]->producer_too) lg_block_emit(g, &(IrBlock){.items = &k->body.items[i], .len = 1});
}

static void setmaxnreg(Lg *g, const char *dir, int regs) {
    char text[64];
    snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %d;", dir, regs);
    plain_asm(g, text);
}

/* One of the producer's cp.async copies into the ring slot: where the
 * tile lies wholly inside the tensor, one cp.async a chunk at constant
 * offsets from the thread's first addresses (lower_hopper.c's
 * ring_async_copy), else the copy's general code. */
static void ring_async_copy(Lg *g, IrStmt *c) {
    IrBlock one = {.items = &c, .len = 1};
    CgCoopCopyPlan p;
    if (!cg_ring_copy_plan(g->k, c, &p)) {
        lg_block_emit(g, &one);
        return;
    }
    const IrRegion *src = &c->src;
    const IrBuf *G = src->buf, *S = c->dst.buf;
    int rk = G->rank, esize = dtype_bytes(G->dtype);
    int outer = g->di_line;
    lg_debug_line(g, (int)c->loc.line);
    LgVal first = lg_binc(g, OP_MUL, int_val(g->tid), p.vec);
    LgVal tr = lg_binc(g, OP_DIV, first, p.C), tc = lg_binc(g, OP_MOD, first, p.C);
    LgVal gc[MAX_RANK];
    LLVMValueRef inside = NULL;
    for (int d = 0; d < rk; d++) {
        LgVal start = src->idx[d] ? lg_expr(g, src->idx[d]) : lg_int(g, 0);
        gc[d] = d == rk - 2 ? lg_binary(g, OP_ADD, start, tr) : d == rk - 1 ? lg_binary(g, OP_ADD, start, tc) : start;
        LLVMValueRef s0 = lg_cast(g, start, LT_LL).v;
        LLVMValueRef end = LLVMBuildAdd(g->b, s0, LLVMConstInt(g->i64, (unsigned long long)src->ext[d], 0), "");
        LLVMValueRef in = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, s0, LLVMConstInt(g->i64, 0, 0), ""),
                                       LLVMBuildICmp(g->b, LLVMIntSLE, end, lg_global_dim(g, G, d), ""), "");
        inside = inside ? LLVMBuildAnd(g->b, inside, in, "") : in;
    }
    LLVMBasicBlockRef fast = lg_block(g, "ring_inside"), edge = lg_block(g, "ring_edge"), done = lg_block(g, "ring_done");
    LLVMBuildCondBr(g->b, inside, fast, edge);
    LLVMPositionBuilderAtEnd(g->b, fast);
    LLVMValueRef gp = lg_gep(g, lg_storage_type(g, G->dtype), lg_buf_base(g, G), lg_global_offset(g, G, gc));
    LgVal sc[2] = {tr, tc};
    LLVMValueRef sp = lg_gep(g, lg_storage_type(g, S->dtype), lg_buf_base(g, S),
                             lg_cast(g, lg_shared_offset(g, S, sc, &tr), LT_LL).v);
    LLVMValueRef gstep = LLVMBuildMul(g->b, lg_global_dim(g, G, rk - 1),
                                      LLVMConstInt(g->i64, (unsigned long long)(p.rpr * esize), 0), "");
    for (int64_t q = 0; q < p.rounds; q++) {
        LLVMValueRef goff = LLVMBuildMul(g->b, gstep, LLVMConstInt(g->i64, (unsigned long long)q, 0), "");
        LLVMValueRef soff = LLVMConstInt(g->i64, (unsigned long long)(q * p.rpr * cg_tma_blk_row_bytes(S)), 0);
        lg_cp_async(g, p.vec * esize, byte_gep(g, sp, soff), byte_gep(g, gp, goff), NULL, NULL);
    }
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, edge);
    lg_block_emit(g, &one);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    lg_debug_line(g, outer);
}

/* This producer thread's share of the loop's cp.async copies into ring
 * slot s (cooperative copies over the producer's threads, numbered from
 * 0), then its arrival on the slot's full barrier once they have landed. */
static void ring_async_copies(Lg *g, LgVal s, LLVMValueRef full) {
    IrKernel *k = g->k;
    int saved = g->nstage;
    push_ring_stages(g, s);
    LLVMValueRef tid = g->tid;
    g->tid = LLVMBuildSub(g->b, tid, c32(g, k->threads), "tl_ptid");
    for (int i = 0; i < k->ring_async_copies.len; i++) ring_async_copy(g, k->ring_async_copies.items[i]);
    g->tid = tid;
    g->nstage = saved;
    mbar_op(g, "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];", full, NULL);
}

/* The row indices of the ring's gathers for this tile, by the producer's
 * threads, between two barriers of theirs (lower_hopper.c). */
static void ring_index_copies(Lg *g) {
    IrKernel *k = g->k;
    if (!k->ring_index_copies.len) return;
    LLVMValueRef tid = g->tid;
    g->tid = LLVMBuildSub(g->b, tid, c32(g, k->threads), "tl_ptid");
    if (k->sched.persistent) lg_named_bar(g, "sync", c32(g, CG_BAR_PRODUCER), k->producer_threads);
    for (int i = 0; i < k->ring_index_copies.len; i++)
        lg_block_emit(g, &(IrBlock){.items = (IrStmt **)&k->ring_index_copies.items[i], .len = 1});
    lg_named_bar(g, "sync", c32(g, CG_BAR_PRODUCER), k->producer_threads);
    g->tid = tid;
}

/* The producer thread's loop: the preloads once (a persistent block's
 * next ones once the consumers have freed them), then the loop's copies
 * `stages` iterations ahead, each slot once the consumers released it. */
static void producer(Lg *g) {
    IrKernel *k = g->k;
    IrStmt *loop = k->ws_loop;
    int S = loop->stages;
    int saved = g->nbind;
    LLVMValueRef it = lg_entry_alloca(g, g->i32, "tl_it_producer");
    LLVMBuildStore(g->b, c32(g, 0), it);
    LgTileLoop tiles;
    if (k->sched.persistent) lg_tile_loop_begin(g, &tiles, true);
    producer_lets(g);
    ring_index_copies(g);
    int64_t pre_bytes = cg_hopper_preload_bytes(k);
    bool async = cg_hopper_ring_async(k);
    /* where every thread issues cp.asyncs: its first alone the TMA copies */
    LLVMValueRef first = async ? LLVMBuildICmp(g->b, LLVMIntEQ, g->tid, c32(g, k->threads), "") : NULL;
    if (pre_bytes) {
        LLVMBasicBlockRef first_done = async ? lg_begin_if(g, first) : NULL;
        if (k->sched.persistent) {
            LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntSGT, g->tile_n.v, c32(g, 0), ""));
            mbar_wait(g, g->preload_free, LLVMBuildAnd(g->b, LLVMBuildSub(g->b, g->tile_n.v, c32(g, 1), ""), c32(g, 1), ""));
            lg_end_if(g, after);
        }
        mbar_expect(g, g->preload, c32(g, pre_bytes));
        for (int i = 0; i < k->tma_copies.len; i++) {
            const IrStmt *c = k->tma_copies.items[i];
            if (!c->pipeline) issue_tma(g, c, lg_buf_base(g, c->dst.buf), g->preload);
        }
        if (first_done) lg_end_if(g, first_done);
    }
    LgVal n = lg_cast(g, lg_expr(g, loop->hi), LT_INT);
    LgLoop l;
    lg_split_loop_begin(g, &l, n, loop->sym);
    LgVal itv = int_val(LLVMBuildLoad2(g->b, g->i32, it, "tl_it"));
    LgVal s = lg_binc(g, OP_MOD, itv, S);
    for (int i = 0; i < loop->body.len; i++)
        if (loop->body.items[i]->op == IR_LET && loop->body.items[i]->producer_too)
            lg_block_emit(g, &(IrBlock){.items = &loop->body.items[i], .len = 1});
    /* the consumers freed the slot */
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntSGE, itv.v, c32(g, S), ""));
    mbar_wait(g, mbar(g, g->empty, s.v),
              lg_binc(g, OP_BAND, lg_binc(g, OP_SUB, lg_binc(g, OP_DIV, itv, S), 1), 1).v);
    lg_end_if(g, after);
    int64_t ring = cg_hopper_ring_bytes(k), halved = cg_hopper_halved_bytes(k);
    LLVMValueRef bytes = c32(g, ring);
    if (halved)
        bytes = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntNE, g->tile_half.v, c32(g, 0), ""), c32(g, ring - halved),
                                bytes, "");
    LLVMValueRef full = mbar(g, g->full, s.v);
    after = async ? lg_begin_if(g, first) : NULL;
    if (async && !ring) mbar_arrive(g, full); /* no TMA bytes */
    else mbar_expect(g, full, bytes);
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if (!c->pipeline) continue;
        LgVal off = lg_binc(g, OP_MUL, s, c->dst.buf->stage_bytes);
        issue_tma(g, c, byte_gep(g, lg_buf_base(g, c->dst.buf), lg_cast(g, off, LT_LL).v), full);
    }
    if (after) {
        lg_end_if(g, after);
        ring_async_copies(g, s, full);
    }
    lg_split_loop_end(g, &l, it);
    if (k->sched.persistent) lg_tile_loop_end(g, &tiles);
    if (async) plain_asm(g, "cp.async.wait_all;"); /* (lower_hopper.c) */
    g->nbind = saved;
}

/* ---- wgmma descriptors (tl_wgmma_desc, tl_wgmma_desc_at) ---- */

enum DescRole { DESC_A, DESC_MMAJOR_A, DESC_KMAJOR_B, DESC_NMAJOR_B };

/* start address, LBO and SBO (16-byte units, 14 bits each) and the
 * swizzle mode in bits 62-63 */
static LLVMValueRef wgmma_desc(Lg *g, LLVMValueRef p, int64_t lbo, int64_t sbo, int mode) {
    LLVMValueRef addr = LLVMBuildLShr(g->b, LLVMBuildAnd(g->b, lg_shared_addr(g, p), c32(g, 0x3FFFF), ""), c32(g, 4), "");
    uint64_t fields = ((uint64_t)((lbo & 0x3FFFF) >> 4) << 16) | ((uint64_t)((sbo & 0x3FFFF) >> 4) << 32) | ((uint64_t)mode << 62);
    return LLVMBuildOr(g->b, LLVMBuildZExt(g->b, addr, g->i64, ""), LLVMConstInt(g->i64, fields, 0), "");
}

/* The descriptor `bytes` past desc's tile: a 32-bit add to the address
 * field, which never carries (shared memory ends below 2^18 bytes). */
static LLVMValueRef desc_at(Lg *g, LLVMValueRef desc, LgVal bytes) {
    LLVMValueRef lo = LLVMBuildAdd(g->b, LLVMBuildTrunc(g->b, desc, g->i32, ""),
                                   LLVMBuildLShr(g->b, lg_cast(g, bytes, LT_UINT).v, c32(g, 4), ""), "");
    return LLVMBuildOr(g->b, LLVMBuildAnd(g->b, desc, LLVMConstInt(g->i64, 0xFFFFFFFF00000000ull, 0), ""),
                       LLVMBuildZExt(g->b, lo, g->i64, ""), "");
}

static LLVMValueRef desc_base(Lg *g, const IrBuf *b, int role) {
    for (int i = 0; i < g->ndesc; i++)
        if (g->desc_buf[i] == b && g->desc_role[i] == role) return g->desc[i];
    return NULL;
}

static void declare_desc_base(Lg *g, const IrStmt *gm, const IrBuf *b, int role) {
    if (desc_base(g, b, role) || g->ndesc == 16) return;
    int64_t rb = cg_tma_blk_row_bytes(b);
    LLVMValueRef d;
    if (role == DESC_NMAJOR_B) {
        d = wgmma_desc(g, lg_buf_base(g, b), cg_tma_blk_bytes(b), 8 * rb, cg_tma_swizzle_mode(rb));
    } else { /* K-major, or an A tile from this warpgroup's part on (cg_wgmma_a_wg_bytes) */
        LLVMValueRef p = lg_buf_base(g, b);
        if (role != DESC_KMAJOR_B) p = byte_gep(g, p, lg_cast(g, lg_binc(g, OP_MUL, g->wg, cg_wgmma_a_wg_bytes(gm)), LT_LL).v);
        d = wgmma_desc(g, p, role == DESC_MMAJOR_A ? cg_tma_blk_bytes(b) : 16, 8 * rb, cg_tma_swizzle_mode(rb));
    }
    g->desc_buf[g->ndesc] = b;
    g->desc_role[g->ndesc] = role;
    g->desc[g->ndesc++] = d;
}

/* The warpgroup index through a shuffle (so it sits in a uniform
 * register, as wgmma wants its descriptors), and the descriptor bases. */
static void declare_desc_bases(Lg *g) {
    const IrBlock *body = &g->k->ws_loop->body;
    g->wg = int_val(lg_shfl0(g, LLVMBuildUDiv(g->b, g->tid, c32(g, 128), "")));
    for (int i = 0; i < body->len; i++) {
        const IrStmt *gm = body->items[i];
        if (gm->op != IR_GEMM || !gm->wgmma) continue;
        if (gm->a.buf->scope != SCOPE_FRAGMENT) declare_desc_base(g, gm, gm->a.buf, gm->trans_a ? DESC_MMAJOR_A : DESC_A);
        declare_desc_base(g, gm, gm->b.buf, gm->trans_b ? DESC_KMAJOR_B : DESC_NMAJOR_B);
    }
}

/* mbarriers, then the producer warpgroup's whole job (it returns); the
 * consumers go on with what the producer freed (setmaxnreg). */
void lg_hopper_split(Lg *g) {
    IrKernel *k = g->k;
    int S = k->ws_loop->stages;
    int64_t T = k->threads;
    g->full = byte_gep(g, g->smem, LLVMConstInt(g->i64, (unsigned long long)k->mbar_offset, 0));
    g->empty = mbar(g, g->full, c32(g, S));
    g->preload = mbar(g, g->full, c32(g, 2 * S));
    g->preload_free = mbar(g, g->full, c32(g, 2 * S + 1));
    LLVMBasicBlockRef after = lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, g->tid, c32(g, 0), ""));
    for (int s = 0; s < S; s++) {
        /* the producer's arrive + the TMA bytes (and each producer thread's
         * cp.asyncs landed) */
        mbar_init(g, mbar(g, g->full, c32(g, s)), 1 + (cg_hopper_ring_async(k) ? k->producer_threads : 0));
        /* one arrive per consumer warp (of both blocks of a cluster) */
        mbar_init(g, mbar(g, g->empty, c32(g, s)), (k->sched.cluster ? k->sched.cluster : 1) * T / 32);
    }
    mbar_init(g, g->preload, 1);
    mbar_init(g, g->preload_free, T / 32);
    plain_asm(g, "fence.mbarrier_init.release.cluster;");
    lg_end_if(g, after);
    /* the peer's mbarriers are ready before anything is multicast into them */
    if (k->sched.cluster) cluster_sync(g);
    else lg_syncthreads(g);
    int consumer_regs = cg_hopper_consumer_regs(k);
    LLVMBasicBlockRef prod = lg_block(g, "producer"), cons = lg_block(g, "consumers");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGE, g->tid, c32(g, T), ""), prod, cons);
    LLVMPositionBuilderAtEnd(g->b, prod);
    if (consumer_regs) setmaxnreg(g, "dec", cg_hopper_producer_regs(k));
    /* its first thread issues the TMA copies; every thread its cp.asyncs */
    after = cg_hopper_ring_async(k) ? NULL : lg_begin_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, g->tid, c32(g, T), ""));
    g->in_producer = true;
    producer(g);
    g->in_producer = false;
    if (after) lg_end_if(g, after);
    LLVMBuildRetVoid(g->b);
    LLVMPositionBuilderAtEnd(g->b, cons);
    if (consumer_regs) setmaxnreg(g, "inc", consumer_regs);
    declare_desc_bases(g);
    g->it = lg_entry_alloca(g, g->i32, "tl_it");
    LLVMBuildStore(g->b, c32(g, 0), g->it);
}

/* ---- the consumers ---- */

void lg_hopper_preload_wait(Lg *g) {
    LLVMValueRef parity = g->k->sched.persistent ? LLVMBuildAnd(g->b, g->tile_n.v, c32(g, 1), "") : c32(g, 0);
    mbar_wait(g, g->preload, parity);
}

/* Where operand b's tile starts in its buffer: its ring slot for the
 * loop's copies, 0 for preloads. */
static LgVal operand_slot(Lg *g, const IrBuf *b, LgVal slot) {
    return cg_ring_buf(g->k, b) ? lg_binc(g, OP_MUL, slot, b->stage_bytes) : lg_int(g, 0);
}

/* The bytes from the start of operand r's buffer to r's (region_bytes of
 * lower_hopper.c): 0 for the whole buffer. */
static LgVal region_bytes(Lg *g, const IrRegion *r) {
    if (region_is_whole(r)) return lg_int(g, 0);
    const IrBuf *b = r->buf;
    LgVal blocks = lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, lg_expr(g, r->idx[1]), cg_tma_blk_cols(b)), cg_tma_blk_bytes(b));
    return lg_binary(g, OP_ADD, blocks, lg_binc(g, OP_MUL, lg_expr(g, r->idx[0]), cg_tma_blk_row_bytes(b)));
}

/* Gemm gm's A fragment as wgmma's A registers, [K/16][4] f16 (bf16)
 * pairs: rows g and g+8 of n8 tiles 2kk and 2kk+1 (pack_a_regs). */
static bool pack_a_regs(Lg *g, const IrStmt *gm, LLVMValueRef *regs) {
    const IrBuf *A = gm->a.buf, *C = gm->c.buf;
    if (A->layout.kind != LAYOUT_ACC || A->layout.wn != 1 || A->layout.mi != 1 || C->layout.mi != 1) {
        lg_error(g, gm->loc, "gemm: '%s' in registers is not in the layout wgmma reads (one warp per 16 rows)",
                 A->sym->name->s);
        return false;
    }
    Dtype half = A->dtype == DT_BF16 ? DT_BF16 : DT_F16;
    LLVMTypeRef pair_type = LLVMVectorType(lg_storage_type(g, half), 2);
    for (int64_t kk = 0; kk < A->shape[1] / 16; kk++)
        for (int h = 0; h < 4; h++) {
            int64_t t = (2 * kk + h / 2) * 4 + (h % 2) * 2;
            LLVMValueRef pair = LLVMGetUndef(pair_type);
            for (int i = 0; i < 2; i++) { /* the first in the low half */
                LLVMValueRef p = lg_frag_reg_ptr(g, A, LLVMConstInt(g->i64, (unsigned long long)(t + i), 0));
                LgVal v = lg_from_storage(g, A->dtype, LLVMBuildLoad2(g->b, lg_storage_type(g, A->dtype), p, ""));
                pair = LLVMBuildInsertElement(g->b, pair, lg_to_storage(g, half, v), c32(g, i), "");
            }
            regs[kk * 4 + h] = LLVMBuildBitCast(g->b, pair, g->i32, "");
        }
    return true;
}

/* One wgmma into the registers at acc (n/2 of them from the first), A
 * from a descriptor or four registers, scale_d 0 to ignore the old
 * values. The accumulators are outputs tied to inputs (LLVM has no "+f"). */
static void wgmma(Lg *g, const IrStmt *gm, int64_t n, const IrBuf *acc_buf, LLVMValueRef acc, LLVMValueRef *a, int na,
                  LLVMValueRef b, int scale_d) {
    int64_t regs = n / 2;
    bool ints = cg_wgmma_int(gm);
    LLVMTypeRef et = ints ? g->i32 : g->f32;
    char *text = arena_printf(arena(g), "{\n.reg .pred p;\nsetp.ne.b32 p, %%%lld, 0;\n%s\n}", (long long)(regs + na + 1),
                              cg_wgmma_instr(arena(g), gm, n));
    size_t cap = (size_t)(regs * 8 + 64);
    char *cons = arena_alloc(arena(g), cap);
    cons[0] = 0;
    size_t len = 0;
    for (int64_t r = 0; r < regs; r++) len += (size_t)snprintf(cons + len, cap - len, "%s=%c", r ? "," : "", ints ? 'r' : 'f');
    for (int i = 0; i < na; i++) len += (size_t)snprintf(cons + len, cap - len, ",%c", na == 1 ? 'l' : 'r');
    len += (size_t)snprintf(cons + len, cap - len, ",l,r");
    for (int64_t r = 0; r < regs; r++) len += (size_t)snprintf(cons + len, cap - len, ",%lld", (long long)r);
    snprintf(cons + len, cap - len, ",~{memory}");
    LLVMValueRef *args = arena_alloc(arena(g), sizeof(LLVMValueRef) * (size_t)(regs + na + 2));
    LLVMValueRef *ptrs = arena_alloc(arena(g), sizeof(LLVMValueRef) * (size_t)regs);
    LLVMTypeRef *fields = arena_alloc(arena(g), sizeof(LLVMTypeRef) * (size_t)regs);
    int nargs = 0;
    for (int i = 0; i < na; i++) args[nargs++] = a[i];
    args[nargs++] = b;
    args[nargs++] = c32(g, scale_d);
    for (int64_t r = 0; r < regs; r++) {
        ptrs[r] = acc_buf ? lg_frag_reg_ptr(g, acc_buf, LLVMConstInt(g->i64, (unsigned long long)r, 0))
                          : LLVMBuildInBoundsGEP2(g->b, et, acc, (LLVMValueRef[]){LLVMConstInt(g->i64, (unsigned long long)r, 0)}, 1, "");
        args[nargs++] = LLVMBuildLoad2(g->b, et, ptrs[r], "");
        fields[r] = et;
    }
    LLVMValueRef out = lg_asm(g, LLVMStructTypeInContext(g->ctx, fields, (unsigned)regs, 0), text, cons, args, nargs, true);
    for (int64_t r = 0; r < regs; r++) LLVMBuildStore(g->b, LLVMBuildExtractValue(g->b, out, (unsigned)r, ""), ptrs[r]);
}

/* Keeps the compiler from moving an access to register p across a wgmma
 * fence or wait: the hardware writes it asynchronously (tl_pin). */
static void pin(Lg *g, LLVMTypeRef et, LLVMValueRef p) {
    LLVMValueRef v = LLVMBuildLoad2(g->b, et, p, "");
    v = lg_asm(g, et, "", et == g->f32 ? "=f,0,~{memory}" : "=r,0,~{memory}", &v, 1, true);
    LLVMBuildStore(g->b, v, p);
}

/* Waits until gm's group is done and pins its accumulator. */
static void wgmma_wait(Lg *g, const IrStmt *gm) {
    plain_asm(g, "wgmma.wait_group.sync.aligned 0;");
    const IrBuf *C = gm->c.buf;
    for (int64_t r = 0; r < C->layout.regs; r++)
        pin(g, lg_storage_type(g, C->dtype), lg_frag_reg_ptr(g, C, LLVMConstInt(g->i64, (unsigned long long)r, 0)));
}

/* wgmma steps [lo, hi) of gm as one commit group, into its accumulator or
 * (promoting) into part, started from zero (cg_wgmma_steps). */
static void wgmma_steps(Lg *g, IrStmt *gm, LgVal slot, int64_t lo, int64_t hi, LLVMValueRef part, LLVMValueRef *aregs) {
    const IrBuf *A = gm->a.buf, *B = gm->b.buf, *C = gm->c.buf;
    int64_t n = cg_wgmma_n(gm, g->half);
    bool promotes = cg_wgmma_promotes(gm), a_regs = A->scope == SCOPE_FRAGMENT;
    if (lo == 0) {
        if (gm->sync_before) lg_sync(g);
        if (a_regs && !pack_a_regs(g, gm, aregs)) return;
    }
    LgVal a_slot = a_regs ? lg_int(g, 0) : operand_slot(g, A, slot);
    LgVal b_slot = lg_binary(g, OP_ADD, operand_slot(g, B, slot), region_bytes(g, &gm->b));
    plain_asm(g, "wgmma.fence.sync.aligned;"); /* the accumulator's earlier writes first */
    for (int64_t kk = lo; kk < hi; kk++) {
        LLVMValueRef a[4];
        int na = 1;
        if (a_regs) {
            for (int i = 0; i < 4; i++) a[i] = aregs[kk * 4 + i];
            na = 4;
        } else {
            a[0] = desc_at(g, desc_base(g, A, gm->trans_a ? DESC_MMAJOR_A : DESC_A),
                           lg_binc(g, OP_ADD, a_slot, cg_wgmma_step_bytes(A, !gm->trans_a, kk)));
        }
        LLVMValueRef b = desc_at(g, desc_base(g, B, gm->trans_b ? DESC_KMAJOR_B : DESC_NMAJOR_B),
                                 lg_binc(g, OP_ADD, b_slot, cg_wgmma_step_bytes(B, gm->trans_b, kk)));
        wgmma(g, gm, n, promotes ? NULL : C, part, a, na, b, (gm->clear || promotes) && kk == lo ? 0 : 1);
    }
    plain_asm(g, "wgmma.commit_group.sync.aligned;");
}

/* Gemm gm, waited for; a promoting one in runs of CG_WGMMA_PROMOTE_K
 * products, each added to the accumulator in f32. */
static void lg_wgmma(Lg *g, IrStmt *gm, LgVal slot) {
    const IrBuf *A = gm->a.buf, *C = gm->c.buf;
    int64_t steps = gemm_k(gm) / cg_wgmma_k(gm);
    LLVMValueRef *aregs = arena_alloc(arena(g), sizeof(LLVMValueRef) * (size_t)(A->shape[1] / 16 * 4 + 4));
    if (!cg_wgmma_promotes(gm)) {
        wgmma_steps(g, gm, slot, 0, steps, NULL, aregs);
        if (!g->failed) wgmma_wait(g, gm);
        return;
    }
    int64_t run = CG_WGMMA_PROMOTE_K / cg_wgmma_k(gm), regs = C->layout.regs;
    LLVMValueRef part = lg_entry_alloca(g, LLVMArrayType2(g->f32, (uint64_t)regs), "tl_part");
    for (int64_t lo = 0; lo < steps && !g->failed; lo += run) {
        wgmma_steps(g, gm, slot, lo, lo + run < steps ? lo + run : steps, part, aregs);
        wgmma_wait(g, gm);
        for (int64_t r = 0; r < regs; r++) {
            LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), LLVMConstInt(g->i64, (unsigned long long)r, 0)};
            LLVMValueRef pp = LLVMBuildInBoundsGEP2(g->b, LLVMArrayType2(g->f32, (uint64_t)regs), part, idx, 2, "");
            pin(g, g->f32, pp);
            LLVMValueRef cp = lg_frag_reg_ptr(g, C, LLVMConstInt(g->i64, (unsigned long long)r, 0));
            LLVMValueRef v = LLVMBuildLoad2(g->b, g->f32, pp, "");
            if (!(gm->clear && lo == 0)) v = LLVMBuildFAdd(g->b, LLVMBuildLoad2(g->b, g->f32, cp, ""), v, "");
            LLVMBuildStore(g->b, v, cp);
        }
    }
}

/* The ring slot's tiles have landed (the phase of iteration `it`). */
static void ring_wait(Lg *g, LgVal s, LgVal it) {
    mbar_wait(g, mbar(g, g->full, s.v), lg_binc(g, OP_BAND, lg_binc(g, OP_DIV, it, g->k->ws_loop->stages), 1).v);
}

/* Gives the slot back after iteration kt of n: one arrive a warp; in a
 * cluster, in both blocks (a block of one tile skips its last `stages`
 * releases: nobody waits for them and the peer may be gone). */
static void ring_release(Lg *g, LgVal s, LgVal kt, LgVal n) {
    const IrKernel *k = g->k;
    LLVMValueRef bar = mbar(g, g->empty, s.v);
    if (!k->sched.cluster) {
        warp_arrive(g, bar);
        return;
    }
    LLVMValueRef when = LLVMBuildICmp(g->b, LLVMIntULT, g->lane, c32(g, 2), "");
    if (!k->sched.persistent)
        when = LLVMBuildAnd(g->b, when,
                            LLVMBuildICmp(g->b, LLVMIntSLT, kt.v, lg_binc(g, OP_SUB, n, k->ws_loop->stages).v, ""), "");
    LLVMBasicBlockRef after = lg_begin_if(g, when);
    mbar_arrive_cluster(g, bar, g->lane);
    lg_end_if(g, after);
}

static void consumer_stmt(Lg *g, IrStmt **at, LgVal slot) {
    IrStmt *c = *at;
    if (c->op == IR_COPY && copy_by_producer(c)) return; /* the producer's */
    if (c->op == IR_GEMM && c->wgmma) {
        lg_wgmma(g, c, slot);
        return;
    }
    lg_block_emit(g, &(IrBlock){.items = at, .len = 1});
    if (cg_writes_consumer_operand(g->k, c)) plain_asm(g, "fence.proxy.async.shared::cta;"); /* visible to the wgmmas */
}

/* Element accesses to the loop's TMA'd tiles (those the consumers read
 * themselves) find them in ring slot `slot`. */
static void push_ring_stages(Lg *g, LgVal slot) {
    for (int i = 0; i < g->k->buffers.len && g->nstage < LG_MAX_STAGE; i++) {
        const IrBuf *b = g->k->buffers.items[i];
        if (!cg_ring_buf(g->k, b)) continue;
        g->stage_buf[g->nstage] = b;
        g->stage_val[g->nstage++] = slot;
    }
}

/* The consumers' loop: each iteration waits for its slot, runs the body
 * and frees the slot; a half unit runs it with wgmmas of half the n. */
void lg_hopper_consumer(Lg *g, IrStmt *loop) {
    IrKernel *k = g->k;
    int S = loop->stages;
    LgVal n = lg_cast(g, lg_expr(g, loop->hi), LT_INT);
    LLVMBasicBlockRef join = NULL, other = NULL;
    for (int half = sched_has_halves(&k->sched) ? 1 : 0; half >= 0 && !g->failed; half--) {
        if (sched_has_halves(&k->sched) && half) {
            LLVMBasicBlockRef then = lg_block(g, "half_unit");
            other = lg_block(g, "whole_unit");
            join = lg_block(g, "units_done");
            LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, g->tile_half.v, c32(g, 0), ""), then, other);
            LLVMPositionBuilderAtEnd(g->b, then);
        } else if (sched_has_halves(&k->sched)) {
            LLVMBuildBr(g->b, join);
            LLVMPositionBuilderAtEnd(g->b, other);
        }
        g->half = half;
        int saved = g->nbind;
        LgLoop l;
        lg_split_loop_begin(g, &l, n, loop->sym);
        LgVal it = int_val(LLVMBuildLoad2(g->b, g->i32, g->it, "tl_it"));
        LgVal s = lg_binc(g, OP_MOD, it, S);
        ring_wait(g, s, it);
        /* the cp.async tiles, visible to the wgmmas (lower_hopper.c) */
        if (cg_hopper_ring_async(k)) plain_asm(g, "fence.proxy.async.shared::cta;");
        int saved_stage = g->nstage;
        push_ring_stages(g, s);
        for (int i = 0; i < loop->body.len && !g->failed; i++) consumer_stmt(g, &loop->body.items[i], s);
        g->nstage = saved_stage;
        ring_release(g, s, l.var, n);
        g->nbind = saved;
        lg_split_loop_end(g, &l, g->it);
    }
    g->half = false;
    if (join) {
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
    }
    /* the next tile's preloads may come */
    if (k->sched.persistent && cg_hopper_has_preloads(k)) warp_arrive(g, g->preload_free);
    if (sched_has_split(&k->sched)) lg_split_sum(g);
}

/* ---- warpgroups with nothing to store (schedule_idle) ---- */

/* A warpgroup whose rows lie past the edge of every store only keeps the
 * pipeline's protocol: the preloads' barrier and every slot waited for
 * and freed. The tile's code for the others follows (lg_hopper_idle_end
 * closes it). */
void lg_hopper_idle_begin(Lg *g) {
    IrKernel *k = g->k;
    IrStmt *loop = k->ws_loop;
    LLVMValueRef cond = NULL;
    for (int i = 0; i < k->sched.idle_stores.len; i++) {
        const IrStmt *st = k->sched.idle_stores.items[i];
        int d = region_lead(&st->dst, st->src.buf->rank, st->src.buf->shape); /* the rows' dimension */
        LgVal start = st->dst.idx[d] ? lg_expr(g, st->dst.idx[d]) : lg_int(g, 0);
        LgVal rows = lg_binary(g, OP_ADD, start, lg_binc(g, OP_MUL, g->wg, 64));
        LLVMValueRef past = lg_truth(g, lg_binary(g, OP_GE, rows, lg_int(g, st->dst.buf->shape[d])));
        cond = cond ? LLVMBuildAnd(g->b, cond, past, "") : past;
    }
    LLVMBasicBlockRef idle = lg_block(g, "idle"), busy = lg_block(g, "busy");
    g->idle_join = lg_block(g, "idle_done");
    LLVMBuildCondBr(g->b, cond, idle, busy);
    LLVMPositionBuilderAtEnd(g->b, idle);
    int saved = g->nbind;
    bool preload_free = k->sched.persistent && cg_hopper_has_preloads(k);
    if (preload_free) mbar_wait(g, g->preload, LLVMBuildAnd(g->b, g->tile_n.v, c32(g, 1), ""));
    producer_lets(g);
    LgVal n = lg_cast(g, lg_expr(g, loop->hi), LT_INT);
    LgLoop l;
    lg_split_loop_begin(g, &l, n, NULL);
    LgVal it = int_val(LLVMBuildLoad2(g->b, g->i32, g->it, "tl_it"));
    LgVal s = lg_binc(g, OP_MOD, it, loop->stages);
    ring_wait(g, s, it);
    ring_release(g, s, l.var, n);
    lg_split_loop_end(g, &l, g->it);
    if (preload_free) warp_arrive(g, g->preload_free);
    g->nbind = saved;
    LLVMBuildBr(g->b, g->idle_join);
    LLVMPositionBuilderAtEnd(g->b, busy);
}

void lg_hopper_idle_end(Lg *g) {
    LLVMBuildBr(g->b, g->idle_join);
    LLVMPositionBuilderAtEnd(g->b, g->idle_join);
}

/* ---- the epilogue's TMA stores (plan_store) ---- */

static void warpgroup_sync(Lg *g) {
    lg_named_bar(g, "sync", LLVMBuildAdd(g->b, c32(g, CG_BAR_WARPGROUP), g->wg.v, ""), 128);
}

/* Byte `byte` of row `row` in a 1024-byte aligned tile of row_bytes rows
 * as TMA swizzles it: the 16-byte chunk XORed with address bits 7 up. */
static LLVMValueRef tma_swizzle(Lg *g, LLVMValueRef row, LLVMValueRef byte, int64_t row_bytes) {
    LLVMValueRef o = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, row, c32(g, row_bytes), ""), byte, "");
    LLVMValueRef chunk = LLVMBuildAnd(g->b, LLVMBuildLShr(g->b, o, c32(g, 7), ""), c32(g, row_bytes / 16 - 1), "");
    return LLVMBuildXor(g->b, o, LLVMBuildShl(g->b, chunk, c32(g, 4), ""), "");
}

/* The box at coords from the tile at src: stored, or added into the
 * tensor where `add` (an atomic_add's TMA reduction). */
static void tma_store_box(Lg *g, int map, LLVMValueRef src, LLVMValueRef *coords, int rank, bool add) {
    LLVMValueRef args[2 + MAX_RANK] = {g->tmap[map], lg_shared_addr(g, src)};
    char list[64] = "", cons[64] = "l,r";
    for (int i = 0; i < rank; i++) {
        char one[16];
        snprintf(one, sizeof one, "%s%%%d", i ? ", " : "", i + 2);
        strcat(list, one);
        strcat(cons, ",r");
        args[i + 2] = coords[i];
    }
    strcat(cons, ",~{memory}");
    lg_asm(g, NULL,
           arena_printf(arena(g), "cp.%sasync.bulk.tensor.%dd.global.shared::cta%s.bulk_group [%%0, {%s}], [%%1];",
                        add ? "reduce." : "", rank, add ? ".add.tile" : "", list),
           cons, args, rank + 2, true);
}

/* The accumulator through this warpgroup's 64 rows of the staging tile,
 * two columns at a time, then one thread stores each column block. */
static void tma_store(Lg *g, IrStmt *s) {
    const IrBuf *f = s->src.buf, *t = s->dst.buf;
    CgTmaStorePlan p;
    cg_tma_store_plan(g->k, s, &p);
    LgVal wg_off = lg_binary(g, OP_ADD, lg_int(g, g->k->store_offset), lg_binc(g, OP_MUL, g->wg, p.wg_bytes));
    LLVMValueRef st = byte_gep(g, g->smem, lg_cast(g, wg_off, LT_LL).v);
    LLVMValueRef leader = lg_warpgroup_leader(g);
    LLVMBasicBlockRef after = lg_begin_if(g, leader);
    plain_asm(g, "cp.async.bulk.wait_group.read 0;"); /* the previous stores have read the tile */
    lg_end_if(g, after);
    warpgroup_sync(g);
    LLVMTypeRef et = lg_storage_type(g, t->dtype), pair = LLVMVectorType(et, 2);
    for (int64_t q = 0; q < f->layout.regs / (g->half ? 2 : 1); q += 2) {
        LgVal fc[MAX_RANK];
        LLVMValueRef valid; /* NULL for the accumulator layout */
        lg_frag_coords(g, f, q, fc, &valid);
        LLVMValueRef row = lg_cast(g, lg_binc(g, OP_MOD, fc[0], 64), LT_UINT).v, col = lg_cast(g, fc[1], LT_UINT).v;
        LLVMValueRef v = LLVMGetUndef(pair);
        for (int u = 0; u < 2; u++) {
            LLVMValueRef reg = lg_frag_reg_ptr(g, f, LLVMConstInt(g->i64, (unsigned long long)(q + u), 0));
            LgVal x = lg_from_storage(g, f->dtype, LLVMBuildLoad2(g->b, lg_storage_type(g, f->dtype), reg, ""));
            v = LLVMBuildInsertElement(g->b, v, lg_to_storage(g, t->dtype, x), c32(g, u), "");
        }
        LLVMValueRef off = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, LLVMBuildUDiv(g->b, col, c32(g, p.cols), ""), c32(g, p.block_bytes), ""),
                                        tma_swizzle(g, row, LLVMBuildMul(g->b, LLVMBuildURem(g->b, col, c32(g, p.cols), ""), c32(g, p.esize), ""), p.row_bytes),
                                        "");
        LLVMValueRef store = LLVMBuildStore(g->b, v, byte_gep(g, st, LLVMBuildZExt(g->b, off, g->i64, "")));
        LLVMSetAlignment(store, (unsigned)(2 * p.esize));
    }
    plain_asm(g, "fence.proxy.async.shared::cta;"); /* the writes, visible to the TMA unit */
    warpgroup_sync(g);
    after = lg_begin_if(g, leader);
    LgVal rows = lg_binc(g, OP_MUL, g->wg, 64);
    for (int64_t j = 0; j < f->shape[1] / p.cols / (g->half ? 2 : 1); j++) {
        LLVMValueRef coords[MAX_RANK];
        int rank = tma_coords(g, &s->dst, j * p.cols, g->half, &rows, coords);
        tma_store_box(g, p.map, byte_gep(g, st, LLVMConstInt(g->i64, (unsigned long long)(j * p.block_bytes), 0)), coords, rank,
                      s->op == IR_ATOMIC_ADD);
    }
    plain_asm(g, "cp.async.bulk.commit_group;");
    lg_end_if(g, after);
}

void lg_hopper_tma_store(Lg *g, IrStmt *s) {
    if (!sched_has_halves(&g->k->sched)) {
        tma_store(g, s);
        return;
    }
    LLVMBasicBlockRef half = lg_block(g, "half_store"), whole = lg_block(g, "whole_store"), join = lg_block(g, "stored");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, g->tile_half.v, c32(g, 0), ""), half, whole);
    LLVMPositionBuilderAtEnd(g->b, half);
    g->half = true;
    tma_store(g, s);
    g->half = false;
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, whole);
    tma_store(g, s);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* The consumers' last stores are done before the block's shared memory
 * goes; in a persistent cluster, the peer's releases into it too (an
 * exited producer counts as arrived at the cluster barrier). */
void lg_hopper_finish(Lg *g) {
    if (g->k->tma_stores.len) {
        LLVMBasicBlockRef after = lg_begin_if(g, lg_warpgroup_leader(g));
        plain_asm(g, "cp.async.bulk.wait_group 0;");
        lg_end_if(g, after);
    }
    if (g->k->sched.cluster && g->k->sched.persistent) cluster_sync(g);
}

/* LLVM 19 prints no cluster directives: a kernel of clusters of two gets
 * them after its .maxntid, as __cluster_dims__(2, 1, 1) does. */
char *lg_hopper_ptx_directives(const IrKernel *k, char *ptx, size_t *len) {
    if (!k->sched.cluster) return ptx;
    char *at = strstr(ptx, "\n.maxntid");
    if (!at) return ptx;
    at = strchr(at + 1, '\n');
    if (!at) return ptx;
    static const char directives[] = "\n.explicitcluster\n.reqnctapercluster 2, 1, 1";
    size_t head = (size_t)(at - ptx), n = strlen(directives);
    char *out = xmalloc(*len + n + 1);
    memcpy(out, ptx, head);
    memcpy(out + head, directives, n);
    memcpy(out + head + n, at, *len - head + 1);
    free(ptx);
    *len += n;
    return out;
}
