/* plan_warpgroups.c - the Hopper (sm_90a) GEMM path, chosen when the kernel
 * has its shape: a top-level pipelined loop whose body is only TMA-able
 * copies of global tiles into shared buffers and one f16/bf16 gemm of those
 * buffers into an f32 fragment. Then:
 *
 * - the copies become TMA copies (mech COPY_TMA) completing on mbarriers,
 *   issued by one producer warpgroup that runs ahead by `stages` buffers;
 * - the gemm becomes wgmma.mma_async: each consumer warpgroup (128 threads)
 *   computes 64 rows of the tile, warp w of it rows 16w..16w+15 - exactly the
 *   mma.sync accumulator layout with one warp per 16-row band (wn = 1), so
 *   layout inference, the epilogue and reductions need nothing new;
 * - the block becomes BM/64 consumer warpgroups plus the producer; `threads`
 *   (the Ampere path's block size) is replaced by the consumer count.
 *
 * Everything else keeps the Ampere path, from the same source. Runs before
 * infer_layout, which then sees the consumer thread count. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* wgmma reads K-major tiles with rows of 32, 64 or 128 bytes through the
 * matching swizzle; a row is the K extent of the tile. */
static int kmajor_swizzle(int64_t row_bytes) {
    return row_bytes == 128 || row_bytes == 64 || row_bytes == 32 ? (int)row_bytes : 0;
}

static bool whole(const IrRegion *r) {
    for (int d = 0; d < r->buf->rank; d++) {
        if (r->idx[d] && !(r->idx[d]->is_const && !r->idx[d]->const_float && r->idx[d]->cval.i == 0)) return false;
        if (r->ext[d] != r->buf->shape[d]) return false;
    }
    return true;
}

/* Only the loop variable, block indices and constants in a copy's corner:
 * the producer warpgroup computes it without running the consumers' code. */
static bool producer_computable(const IrKernel *k, const IrStmt *loop, const Node *e) {
    if (!e) return true;
    switch (e->kind) {
    case N_NAME: {
        if (e->is_const || e->sym == loop->sym) return true;
        for (int i = 0; i < k->info->block_idx.len; i++)
            if (e->sym == k->info->block_idx.items[i]) return true;
        return false;
    }
    case N_INT: case N_FLOAT: return true;
    case N_UNARY: return producer_computable(k, loop, e->u.op.a);
    case N_BINARY: return producer_computable(k, loop, e->u.op.a) && producer_computable(k, loop, e->u.op.b);
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++)
            if (!producer_computable(k, loop, e->u.call.args.items[i])) return false;
        return true;
    default: return e->is_const;
    }
}

/* A global -> shared copy TMA can do: rank-2 f16/bf16 tensor whose rows
 * are whole 16-byte units (TMA strides), the tile whole. */
static bool tma_copy_ok(const IrKernel *k, const IrStmt *loop, const IrStmt *c) {
    const IrBuf *g = c->src.buf, *s = c->dst.buf;
    if (g->scope != SCOPE_GLOBAL || s->scope != SCOPE_SHARED || g->rank != 2 || s->rank != 2) return false;
    if (g->dtype != s->dtype || (g->dtype != DT_F16 && g->dtype != DT_BF16)) return false;
    if ((g->shape[1] * 2) % 16 != 0 || !whole(&c->dst)) return false;
    for (int d = 0; d < 2; d++)
        if (c->src.ext[d] != s->shape[d] || !producer_computable(k, loop, c->src.idx[d])) return false;
    return true;
}

static IrStmt *find_copy_into(IrStmt *loop, const IrBuf *b) {
    IrStmt *found = NULL;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op == IR_COPY && s->dst.buf == b) {
            if (found) return NULL;
            found = s;
        }
    }
    return found;
}

typedef struct Reads {
    const IrBuf *a, *b;
    const IrStmt *loop;
    bool outside;
} Reads;

static void reads_outside(IrStmt *s, void *arg) {
    Reads *r = arg;
    if (s == r->loop) return;
    for (int i = 0; i < r->loop->body.len; i++) /* (ir_walk goes on into the loop) */
        if (s == r->loop->body.items[i]) return;
    const IrRegion *regs[] = {&s->src, &s->dst, &s->a, &s->b, &s->c};
    for (int i = 0; i < 5; i++)
        if (regs[i]->buf && (regs[i]->buf == r->a || regs[i]->buf == r->b)) r->outside = true;
}

static bool plan(IrKernel *k, IrStmt *loop) {
    IrStmt *g = NULL;
    int copies = 0;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op == IR_GEMM && !g) g = s;
        else if (s->op == IR_COPY) copies++;
        else return false;
    }
    if (!g || copies != 2 || g->trans_a) return false;
    IrBuf *A = g->a.buf, *B = g->b.buf, *C = g->c.buf;
    if (A->scope != SCOPE_SHARED || B->scope != SCOPE_SHARED || C->scope != SCOPE_FRAGMENT) return false;
    if (A->dtype != B->dtype || (A->dtype != DT_F16 && A->dtype != DT_BF16) || C->dtype != DT_F32) return false;
    if (!whole(&g->a) || !whole(&g->b) || !whole(&g->c) || A->rank != 2 || B->rank != 2 || C->rank != 2) return false;
    int64_t bm = A->shape[0], bk = A->shape[1], bn = C->shape[1];
    /* one m64 wgmma per consumer warpgroup, at most 3 of them (4 warpgroups
     * of 128 threads: the register file holds 128 registers each); n at
     * most 256 (the largest wgmma), 8-aligned; the K row a swizzle span */
    if (bm % 64 != 0 || bm / 64 > 3 || bn % 8 != 0 || bn > 256 || bn < 8) return false;
    if (!kmajor_swizzle(bk * 2) || bk % 16 != 0) return false;
    if (g->trans_b) {
        if (B->shape[0] != bn || B->shape[1] != bk) return false;
    } else {
        /* N-major B: TMA boxes of 64 columns (128 bytes, the swizzle span) */
        if (B->shape[0] != bk || B->shape[1] != bn || bn % 64 != 0) return false;
    }
    /* the accumulator: 64 x bn f32 per warpgroup = bn / 2 registers a thread */
    if (bn / 2 > 128) return false;
    IrStmt *ca = find_copy_into(loop, A), *cb = find_copy_into(loop, B);
    if (!ca || !cb || !tma_copy_ok(k, loop, ca) || !tma_copy_ok(k, loop, cb)) return false;
    /* the buffers belong to the pipeline: nothing else touches them */
    Reads r = {.a = A, .b = B, .loop = loop};
    ir_walk(&k->body, reads_outside, &r);
    if (r.outside) return false;

    ca->mech = cb->mech = COPY_TMA;
    ca->pipeline = cb->pipeline = loop;
    A->stages = B->stages = loop->stages;
    g->wgmma = true;
    g->policy = POLICY_FULL_ROW; /* one warp per 16-row band: the wgmma layout */
    k->threads = bm * 2;         /* bm / 16 consumer warps */
    k->producer_threads = 128;
    k->ws_loop = loop;
    /* Persistent blocks (codegen: a tile loop per block, the producer
     * running into the next tile during the epilogue) measured 2-4% slower
     * than one block per tile on the H200 with this direct-store epilogue
     * (bench/RESULTS.md), so they are an experiment: TILEC_PERSISTENT=1. */
    const char *persistent = getenv("TILEC_PERSISTENT");
    k->persistent = persistent && !strcmp(persistent, "1");
    return true;
}

void pass_plan_warpgroups(IrKernel *k) {
    if (k->arch != 90 || !k->arch_specific) return;
    IrStmt *loop = NULL;
    for (int i = 0; i < k->body.len; i++) {
        IrStmt *s = k->body.items[i];
        if (s->op == IR_FOR && s->loop == LOOP_PIPELINED) {
            if (loop) return; /* one pipeline per kernel on this path */
            loop = s;
        }
    }
    if (loop && loop->stages >= 1) plan(k, loop);
}
