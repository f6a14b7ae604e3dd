/* plan_store.c - the epilogue stores of a warp-specialised sm_90a kernel
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
 * still in flight then), and the staging tile still fits in shared memory. */
#include "passes.h"

enum { MAX_TMA_STORES = 2 };

/* Why s, statement `at` of the kernel's body, cannot be a TMA store, or NULL. */
static const char *why_not(IrKernel *k, int at) {
    const IrStmt *s = k->body.items[at];
    if (s->op != IR_COPY) return "not a copy";
    const IrBuf *f = s->src.buf, *t = s->dst.buf;
    if (f->scope != SCOPE_FRAGMENT || t->scope != SCOPE_GLOBAL) return "not a store of a fragment";
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
    IrBlock rest = {.items = k->body.items + at + 1, .len = k->body.len - at - 1};
    if (buf_use_count(&rest, t)) return "a later statement uses the tensor";
    return NULL;
}

void pass_plan_store(IrKernel *k) {
    if (!k->ws_loop) return;
    int i = 0;
    while (i < k->body.len && k->body.items[i] != k->ws_loop) i++;
    int64_t staging = 0;
    for (i++; i < k->body.len && k->tma_stores.len < MAX_TMA_STORES; i++) {
        IrStmt *s = k->body.items[i];
        const char *why = why_not(k, i);
        if (why) {
            if (s->op == IR_COPY && s->src.buf->scope == SCOPE_FRAGMENT && s->dst.buf->scope == SCOPE_GLOBAL &&
                !k->store_declined)
                k->store_declined = why;
            continue;
        }
        int64_t bytes = buf_elems(s->src.buf) * dtype_bytes(s->dst.buf->dtype);
        /* one staging tile for all the stores, in front of the mbarriers'
         * end room (plan_shared: 1024 bytes to align the base) */
        int64_t need = bytes > staging ? bytes : staging;
        int64_t at = align_up(k->smem_bytes - 1024, 1024);
        if (at + need + 1024 > k->target.smem_per_block) {
            if (!k->store_declined) k->store_declined = "no shared memory left for the staging tile";
            continue;
        }
        s->mech = COPY_TMA_STORE;
        vec_push(&k->c->arena, &k->tma_stores, s);
        staging = need;
        k->store_offset = at;
    }
    k->store_bytes = staging;
    if (staging) k->smem_bytes = k->store_offset + staging + 1024;
}
