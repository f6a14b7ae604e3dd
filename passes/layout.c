/* layout.c - decisions about layouts and lowerings that the passes and the
 * code generator share (the pure queries are ir/query.c). */
#include <string.h>

#include "passes.h"

/* Which lowering a reduction gets (lower_reduce.c): the accumulator's
 * rows with quad shuffles, a blocked fragment's rows with warp shuffles
 * (when every register's row is a compile-time constant), else staging the
 * source in shared memory. */
ReducePath reduce_path(const IrStmt *s, int64_t threads) {
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    if (src->layout.kind == LAYOUT_ACC && s->dim == 1 && dst->layout.kind == LAYOUT_ROW) {
        Layout rows = row_layout_of(&src->layout);
        if (layout_equal(&rows, &dst->layout)) return REDUCE_PATH_ACC_ROWS; /* else the rows of another accumulator */
    }
    if (src->layout.kind == LAYOUT_BLOCKED && s->dim == src->rank - 1 && dst->layout.kind == LAYOUT_REPLICATED) {
        int64_t cols = src->shape[src->rank - 1], rows = buf_elems(src) / cols;
        /* warp shuffles need whole warps: a partial last warp's missing
         * lanes would be read (their values are undefined) */
        int64_t pitch = src->layout.pitch ? src->layout.pitch : cols;
        if ((rows == 1 || pitch % (threads * src->layout.vec) == 0) && threads % 32 == 0) return REDUCE_PATH_BLOCKED_ROWS;
    }
    return REDUCE_PATH_STAGED;
}

const char *scan_in_registers(const IrBuf *src, const IrBuf *dst, int dim, int64_t threads, ScanRegs *p) {
    const Layout *a = &src->layout, *b = &dst->layout;
    if (src->scope != SCOPE_FRAGMENT || dst->scope != SCOPE_FRAGMENT) return "the source or destination is not a fragment";
    if (src->rank > 2 || dim != src->rank - 1) return "it runs down the columns";
    if (a->kind != LAYOUT_BLOCKED || b->kind != LAYOUT_BLOCKED) return "a fragment is not in a blocked layout";
    if (a->vec != b->vec || a->chunks != b->chunks || a->pitch != b->pitch || src->rank != dst->rank ||
        memcmp(src->shape, dst->shape, sizeof(int64_t) * (size_t)src->rank))
        return "the source and destination fragments are laid out differently";
    if (threads % 32) return "threads is not a multiple of 32";
    int64_t cols = src->shape[src->rank - 1];
    if (a->pitch) return "its rows are padded";
    if (cols % a->vec) return "a row is not whole chunks";
    int64_t per_row = cols / a->vec;
    if (per_row >= threads) {
        if (per_row % threads) return "a row is not whole rounds of the threads' chunks";
        p->seg = threads;
        p->slices = per_row / threads;
    } else {
        if (threads % per_row || (per_row < 32 ? 32 % per_row : per_row % 32))
            return "the threads holding a row are not a power of two or whole warps";
        p->seg = per_row;
        p->slices = 1;
    }
    return NULL;
}

bool copy_relayouts(const IrStmt *s) {
    const IrBuf *a = s->src.buf, *b = s->dst.buf;
    return s->op == IR_COPY && a->scope == SCOPE_FRAGMENT && b->scope == SCOPE_FRAGMENT && region_is_whole(&s->src) &&
           region_is_whole(&s->dst) && !layout_equal(&a->layout, &b->layout);
}

int acc_warp_rows(int64_t m, int64_t n, int warps, int policy) {
    int best_wm = -1;
    int64_t best_score = INT64_MAX;
    for (int wm = 1; wm <= warps; wm++) {
        if (warps % wm) continue;
        int wn = warps / wm;
        if (policy == POLICY_FULL_ROW && wn != 1) continue;
        if (policy == POLICY_FULL_COL && wm != 1) continue;
        if (m % (16 * wm) || n % (8 * wn)) continue;
        /* squarest warp tile: equal sides reuse loaded operands best */
        int64_t tm = m / wm, tn = n / wn;
        int64_t score = tm > tn ? tm - tn : tn - tm;
        if (score < best_score || (score == best_score && wm > best_wm)) {
            best_score = score;
            best_wm = wm;
        }
    }
    return best_wm;
}

bool indexed_by_loop_vars(const Node *e, const IrStmt *loop, int nvars) {
    if (e->u.index.idx.len != nvars) return false;
    for (int i = 0; i < nvars; i++) {
        const Node *ix = e->u.index.idx.items[i];
        if (ix->kind != N_NAME || ix->sym != loop->vars[i]) return false;
    }
    return true;
}

Layout row_layout_of(const Layout *acc) {
    Layout l = *acc;
    l.kind = LAYOUT_ROW;
    l.regs = (int64_t)acc->mi * 2;
    return l;
}

bool own_access_layout(const IrStmt *p, const IrBuf *b, const Node *e, Layout *l) {
    const IrBuf *d = p->driver;
    if (!d) return false;
    if (indexed_by_loop_vars(e, p, p->nvars) && b->rank == d->rank &&
        !memcmp(b->shape, d->shape, sizeof(int64_t) * (size_t)b->rank)) {
        *l = d->layout;
        return true;
    }
    /* one value per row of the driver, indexed by the row variable */
    if (b->rank != 1 || !indexed_by_loop_vars(e, p, 1) || b->shape[0] != p->extents[0]) return false;
    if (d->layout.kind == LAYOUT_ACC) *l = row_layout_of(&d->layout);
    else if (d->layout.kind == LAYOUT_ROW && p->nvars == 1) *l = d->layout;
    else return false;
    return true;
}

bool access_is_own(const IrStmt *p, const IrBuf *b, const Node *e) {
    Layout l;
    return b->layout.kind != LAYOUT_NONE && b->layout.kind != LAYOUT_REPLICATED && own_access_layout(p, b, e, &l) &&
           layout_equal(&b->layout, &l);
}

const char *mma_ptx_type(Dtype t) {
    switch (t) {
    case DT_F16: return "f16";
    case DT_BF16: return "bf16";
    case DT_I8: return "s8";
    case DT_U8: return "u8";
    case DT_F8E4M3: return "e4m3";
    case DT_F8E5M2: return "e5m2";
    default: return NULL;
    }
}

/* The mma.sync shapes (PTX ISA, "Matrix multiply-accumulate operation
 * using mma instruction"), for operands of one type (as gemm has):
 * m16n8k16 for f16/bf16 into f32, from sm_80; m16n8k32 for 8-bit integers
 * into s32, from sm_80, and for fp8 (e4m3, e5m2) into f32, from sm_89. */
bool gemm_mma_form(int arch, Dtype a, Dtype b, Dtype c, MmaForm *f) {
    const char *an = mma_ptx_type(a), *bn = mma_ptx_type(b);
    if (arch < 80 || !an || b != a) return false;
    bool half = (a == DT_F16 || a == DT_BF16) && c == DT_F32;
    bool ints = (a == DT_I8 || a == DT_U8) && c == DT_I32;
    bool fp8 = dtype_is_fp8(a) && c == DT_F32 && arch >= 89;
    if (!half && !ints && !fp8) return false;
    f->k = half ? 16 : 32;
    f->a = an;
    f->b = bn;
    f->c = ints ? "s32" : "f32";
    return true;
}

const char *gemm_mma_why_not(int arch, Dtype a, Dtype b, Dtype c, int64_t k, int64_t b_row, int64_t wtm, int64_t wtn) {
    if (arch < 80) return "the target is older than sm_80";
    MmaForm f;
    if (!gemm_mma_form(arch, a, b, c, &f)) {
        if (dtype_is_fp8(a) && c == DT_F32) return "fp8 tensor cores need sm_89 or newer";
        return "mma.sync multiplies f16 or bf16 into f32, 8-bit integers into i32, or fp8 into f32";
    }
    if (k % f.k != 0) return f.k == 16 ? "its K is not a multiple of 16" : "its K is not a multiple of 32";
    /* ldmatrix reads rows of 16 bytes */
    if (b_row * dtype_bytes(b) % 16 != 0) return "B's rows are not whole 16-byte units";
    if (wtm % 16 != 0 || wtn % 8 != 0) return "a warp's share of the accumulator is not whole 16 x 8 blocks";
    return NULL;
}

const char *gemm_stmt_mma_why_not(int arch, const IrStmt *s) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    const char *why = gemm_mma_why_not(arch, A->dtype, B->dtype, C->dtype, gemm_k(s), B->shape[1], C->layout.wtm,
                                       C->layout.wtn);
    if (!why && A->scope != SCOPE_FRAGMENT && A->shape[1] * dtype_bytes(A->dtype) % 16 != 0)
        why = "A's rows are not whole 16-byte units";
    return why;
}

bool gemm_mma_ok(int arch, Dtype a, Dtype b, Dtype c, int64_t k, int64_t b_row, int64_t wtm, int64_t wtn) {
    return !gemm_mma_why_not(arch, a, b, c, k, b_row, wtm, wtn);
}
