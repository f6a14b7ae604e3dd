/* plan_shared.c - shared memory: swizzles, stage rings, offsets, scratch.
 *
 * XOR swizzle: a tile row is split into 16-byte chunks and chunk c of row r
 * is stored at c ^ f(r). ldmatrix reads one 16-byte chunk from each of 8
 * consecutive rows, and 16-byte cp.async writes are serviced 8 threads at a
 * time; both are conflict free when those 8 chunks land in 8 different
 * 16-byte slots of the 128-byte bank window, which the XOR guarantees for
 * rows of any power-of-two number of chunks (see cg_swizzle in codegen). */
#include "passes.h"

int64_t pass_swizzle_span(int64_t row_bytes) {
    for (int64_t span = 128; span >= 32; span /= 2)
        if (row_bytes % span == 0) return span;
    return 0;
}

int64_t pass_swizzle_cols(int64_t cols, int64_t esize) { return pass_swizzle_span(cols * esize) / esize; }

bool pass_clears(const IrStmt *s, const IrBuf *f) {
    const Node *v = s->value; /* clear(): NULL */
    return s->op == IR_FILL && s->dst.buf == f && region_is_whole(&s->dst) &&
           (!v || (v->is_const && (v->const_float ? v->cval.f == 0 : v->cval.i == 0)));
}

static int swizzle_for(const IrBuf *b) {
    int64_t row_bytes = b->shape[b->rank - 1] * dtype_bytes(b->dtype);
    if (row_bytes % 16 != 0) return 0;
    int64_t chunks = row_bytes / 16;
    if (chunks < 2 || (chunks & (chunks - 1)) != 0) return 0;
    int64_t rows = buf_elems(b) / b->shape[b->rank - 1];
    int period = chunks >= 8 ? 8 : (int)chunks;
    /* the pattern needs 8 rows of 16-byte chunks per 128-byte window */
    if (rows * chunks < 8) return 0;
    return period;
}

typedef struct Scratch {
    IrKernel *k;
    int64_t bytes;
} Scratch;

/* Reductions across warps exchange partial results through shared memory,
 * and copies between fragments laid out differently their elements. */
static void scratch_of(IrStmt *s, void *arg) {
    Scratch *sc = arg;
    if (copy_relayouts(s)) {
        int64_t need = buf_elems(s->src.buf) * dtype_bytes(s->src.buf->dtype);
        if (need > sc->bytes) sc->bytes = need;
        return;
    }
    if (s->op == IR_SCAN && s->dst.buf) {
        /* a scan in registers whose rows span several warps: their totals
         * of each of a thread's chunks (lower_scan.c) */
        ScanRegs p;
        if (!scan_in_registers(s->src.buf, s->dst.buf, s->dim, sc->k->threads, &p) && p.seg > 32) {
            int64_t need = sc->k->threads / 32 * s->src.buf->layout.chunks * dtype_bytes(scan_sum_dtype(s->src.buf->dtype));
            if (need > sc->bytes) sc->bytes = need;
        }
        return;
    }
    if (s->op != IR_REDUCE) return;
    const IrBuf *src = s->src.buf;
    int64_t warps = sc->k->threads / 32 > 0 ? sc->k->threads / 32 : 1;
    /* partials travel in the type the reduction computes in (lower_reduce.c):
     * 8 bytes for f64 and the 64-bit integers, 4 for the rest */
    int64_t esz = dtype_bytes(src->dtype) == 8 ? 8 : 4;
    int64_t need = 0;
    switch (reduce_path(s, sc->k->threads)) {
    case REDUCE_PATH_ACC_ROWS:
        if (src->layout.wn > 1) need = (int64_t)src->layout.wn * src->shape[0] * esz;
        break;
    case REDUCE_PATH_BLOCKED_ROWS: need = (warps + 1) * (buf_elems(src) / src->shape[src->rank - 1]) * esz; break;
    case REDUCE_PATH_STAGED: need = (buf_elems(src) + buf_elems(src) / src->shape[s->dim]) * esz; break; /* + the results */
    }
    if (need > sc->bytes) sc->bytes = need;
}

void pass_plan_shared(IrKernel *k) {
    int64_t off = 0;
    for (int i = 0; i < k->buffers.len; i++) {
        IrBuf *b = k->buffers.items[i];
        if (b->scope != SCOPE_SHARED) continue;
        b->swizzle_chunks = swizzle_for(b);
        b->stage_bytes = align_up(buf_bytes(b), 128);
        if (b->tma_layout) {
            /* TMA's swizzle is a function of address bits 4-9: each stage
             * starts on a 1024-byte boundary (of the aligned base) */
            b->stage_bytes = align_up(b->stage_bytes, 1024);
            off = align_up(off, 1024);
        }
        b->smem_offset = off;
        off += b->stage_bytes * b->stages;
    }
    Scratch sc = {.k = k};
    ir_walk(&k->body, scratch_of, &sc);
    k->scratch_offset = off;
    k->scratch_bytes = sc.bytes;
    off += sc.bytes;
    if (k->ws_loop) {
        /* a full and an empty mbarrier (8 bytes each) per stage, the
         * preload barriers (landed, free again), and room to round the
         * dynamic shared memory base up to 1024 bytes */
        off = align_up(off, 8);
        k->mbar_offset = off;
        off += 16 * k->ws_loop->stages + 16 + 1024;
    }
    k->smem_bytes = off;
    int64_t limit = k->target.smem_per_block;
    if (off > limit) {
        diag_error(k->c, k->info->node->loc,
                   "kernel '%s' needs %lld bytes of shared memory; sm_%d allows %lld per block", k->info->name->s,
                   (long long)off, k->arch, (long long)limit);
        for (int i = 0; i < k->buffers.len; i++) {
            IrBuf *b = k->buffers.items[i];
            if (b->scope == SCOPE_SHARED)
                diag_note(k->c, b->loc, "'%s' takes %lld bytes (%d stage%s)", b->sym->name->s,
                          (long long)(b->stage_bytes * b->stages), b->stages, b->stages == 1 ? "" : "s");
        }
    }
}
