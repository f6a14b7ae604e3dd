/* plan_store.c - the fragment stores of a warp-specialised sm_90a kernel
 * through shared memory and TMA (mech COPY_TMA_STORE).
 *
 * Written straight from the wgmma accumulator, a tile's store is one
 * 4-byte access per thread and element pair: each warp instruction covers
 * 8 rows x 16 bytes, half of every 32-byte sector it touches, and the
 * tensor cores wait while every block of the grid does it at about the
 * same time (the 4096^3 GEMM: ~7 us a tile of its 50). Instead each
 * consumer warpgroup writes its 64 rows into a staging tile in shared
 * memory, in the swizzled layout TMA reads (conflict-free for the
 * accumulator's pattern, 8 rows of one 16-byte chunk: every swizzle span
 * puts them in 8 bank groups), and one thread hands them to the TMA unit
 * (cp.async.bulk.tensor, global <- shared): whole lines, bounds clipped by
 * the hardware, and asynchronous, so the warpgroup goes on to its next
 * tile while the stores drain. Before the staging tile is written again
 * that thread waits until the previous stores have read it.
 *
 * A copy qualifies when it is a top-level statement after the pipelined
 * loop, from a whole accumulator in the wgmma layout (warp w owns rows
 * 16w..16w+15, so warpgroup g owns rows 64g..64g+63) to a tile of an f16,
 * bf16 or f32 tensor whose rows TMA can address (row pitch a multiple of
 * 16 bytes) and that no later statement reads or writes (the store is
 * still in flight then), and the staging tile still fits in shared memory.
 *
 * An atomic_add of such an accumulator into an f32 tensor, at the top
 * level of the pipelined loop or after it, goes the same way as a TMA
 * reduction (cp.reduce.async.bulk.tensor .add): the L2 adds whole lines,
 * where one red.global.add a register pair costs an L2 atomic each
 * (attention backward's dQ: 64 x 128 of them a block and iteration, which
 * the L2's atomic units made three times the kernel's tensor work). No
 * other statement of the loop or after it may use that tensor. */
#include "passes.h"

/* a tensor map each: with plan_warpgroups' eight loads, codegen.h's CG_MAX_TMA */
enum { MAX_TMA_STORES = 3 };

/* Whether s stores or atomically adds a whole fragment into global memory. */
static bool fragment_store(const IrStmt *s) {
    return (s->op == IR_COPY || (s->op == IR_ATOMIC_ADD && !s->value)) && s->src.buf->scope == SCOPE_FRAGMENT &&
           s->dst.buf->scope == SCOPE_GLOBAL;
}

/* Why fragment store s cannot be a TMA store (or reduction), or NULL;
 * `uses` is how many statements of `after` may use its tensor (s itself,
 * where it is among them). */
static const char *why_not(IrKernel *k, const IrStmt *s, IrBlock *after, int uses) {
    const IrBuf *f = s->src.buf, *t = s->dst.buf;
    if (s->op == IR_ATOMIC_ADD && t->dtype != DT_F32) return "an atomic_add into a tensor other than f32";
    if (f->rank != 2 || f->layout.kind != LAYOUT_ACC || f->layout.wn != 1 || f->layout.mi != 1 ||
        f->shape[0] != k->threads / 32 * 16)
        return "the fragment is not in the wgmma accumulator layout";
    for (int d = 0; d < 2; d++)
        if (s->src.idx[d] || s->src.ext[d] != f->shape[d]) return "a part of the fragment";
    if (t->dtype != DT_F16 && t->dtype != DT_BF16 && t->dtype != DT_F32) return "not an f16, bf16 or f32 tensor";
    if (t->rank < 2 || t->rank > 5) return "the tensor's rank";
    int rows = region_row_dim(&s->dst); /* any dimension: TMA takes its pitch */
    for (int d = 0; d < t->rank - 1; d++)
        if (d != rows && s->dst.ext[d] != 1) return "the region is not a 2-D tile";
    if (s->dst.ext[rows] != f->shape[0] || s->dst.ext[t->rank - 1] != f->shape[1])
        return "the region is not the fragment's shape";
    int64_t esize = dtype_bytes(t->dtype), row_bytes = f->shape[1] * esize;
    if (!buf_row_bytes_multiple_of(t, 16)) return "its row pitch is not a multiple of 16 bytes (TMA)";
    if (!pass_swizzle_span(row_bytes)) return "the tile's row is not a multiple of 32 bytes";
    if (buf_use_count(after, t) > uses) return "a later statement uses the tensor";
    return NULL;
}

/* s as a TMA store (or reduction) if the staging tile, shared by all of
 * them, still fits; its running size in *staging. */
static void take(IrKernel *k, IrStmt *s, int64_t *staging) {
    int64_t bytes = buf_elems(s->src.buf) * dtype_bytes(s->dst.buf->dtype);
    /* one staging tile for all the stores, in front of the mbarriers'
     * end room (plan_shared: 1024 bytes to align the base) */
    int64_t need = bytes > *staging ? bytes : *staging;
    int64_t at = align_up(k->smem_bytes - 1024, 1024);
    if (at + need + 1024 > k->target.smem_per_block) {
        if (!k->store_declined) k->store_declined = "no shared memory left for the staging tile";
        return;
    }
    s->mech = COPY_TMA_STORE;
    vec_push(&k->c->arena, &k->tma_stores, s);
    *staging = need;
    k->store_offset = at;
}

void pass_plan_store(IrKernel *k) {
    if (!k->ws_loop) return;
    int at = 0;
    while (at < k->body.len && k->body.items[at] != k->ws_loop) at++;
    IrBlock after = {.items = k->body.items + at + 1, .len = k->body.len - at - 1};
    /* the loop's atomics: nothing else in the loop or after it may use the tensor */
    IrBlock *body = &k->ws_loop->body;
    int64_t staging = 0;
    for (int i = 0; i < body->len && k->tma_stores.len < MAX_TMA_STORES; i++) {
        IrStmt *s = body->items[i];
        if (s->op != IR_ATOMIC_ADD || !fragment_store(s)) continue;
        const char *why = why_not(k, s, body, 1);
        if (!why && buf_use_count(&after, s->dst.buf)) why = "a later statement uses the tensor";
        if (!why) take(k, s, &staging);
        else if (!k->store_declined) k->store_declined = why;
    }
    for (int i = 0; i < after.len && k->tma_stores.len < MAX_TMA_STORES; i++) {
        IrStmt *s = after.items[i];
        if (!fragment_store(s)) continue;
        IrBlock rest = {.items = after.items + i + 1, .len = after.len - i - 1};
        const char *why = why_not(k, s, &rest, 0);
        if (!why) take(k, s, &staging);
        else if (!k->store_declined) k->store_declined = why;
    }
    k->store_bytes = staging;
    if (staging) k->smem_bytes = k->store_offset + staging + 1024;
}
