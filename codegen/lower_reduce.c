/* lower_reduce.c - reductions of fragments along a dimension.
 *
 * Accumulator layout, dim 1: each thread combines its columns, then the 4
 * lanes of a quad (which share rows) exchange with shuffles; with several
 * warps across the columns, partial rows meet in shared memory.
 * Blocked layout, last dim: rows are constant per register (infer_layout
 * guarantees it), so each thread keeps one partial per row, warps reduce
 * with shuffles, and the warps' results meet in shared memory; every
 * thread ends with every row (replicated result). */
#include <string.h>

#include "codegen.h"

static Arena *arena(Cg *g) { return &g->k->c->arena; }

/* The type a reduction computes in (cg_reduce_dtype), as C. */
typedef struct RedType {
    const char *c;  /* float, double, int, unsigned, long long, unsigned long long */
    bool flt, dbl, uns;
} RedType;

Dtype cg_reduce_dtype(Dtype t) {
    if (t == DT_F64) return DT_F64;
    if (dtype_is_float(t)) return DT_F32;
    if (t == DT_BOOL || dtype_bytes(t) < 4) return DT_I32;
    return t; /* i32, u32, i64, u64 */
}

static RedType red_type(Dtype t) {
    Dtype r = cg_reduce_dtype(t);
    return (RedType){cg_compute_type(r), dtype_is_float(r), r == DT_F64, r == DT_U32 || r == DT_U64};
}

static bool wide_int(RedType r) { return !r.flt && strstr(r.c, "long long"); }

static const char *identity(int kind, RedType r) {
    if (kind != REDUCE_MAX && kind != REDUCE_MIN) return "0";
    bool max = kind == REDUCE_MAX;
    if (r.dbl) return max ? "-__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0x7ff0000000000000LL)";
    if (r.flt) return max ? "-__int_as_float(0x7f800000)" : "__int_as_float(0x7f800000)";
    if (r.uns) return max ? "0" : wide_int(r) ? "0xffffffffffffffffull" : "0xffffffffu";
    if (wide_int(r)) return max ? "(-0x7fffffffffffffffLL - 1)" : "0x7fffffffffffffffLL";
    return max ? "(-0x7fffffff - 1)" : "0x7fffffff";
}

/* The shared scratch seen as the reduction's type: partials of an f32
 * reduction travel as floats (a double slot would cost two conversions a
 * partial and twice the shared-memory traffic); plan_shared sizes it with
 * 8 bytes an element for f64 and 64-bit integers, 4 for the others. */
static const char *scratch(Cg *g, RedType r) {
    return r.dbl ? "tl_scratch" : arena_printf(arena(g), "((%s *)tl_scratch)", r.c);
}

static char *combine(Cg *g, int kind, const char *a, const char *b, RedType r) {
    switch (kind) {
    case REDUCE_SUM: return arena_printf(arena(g), "%s + %s", a, b);
    case REDUCE_MIN: return arena_printf(arena(g), "%s(%s, %s)", r.flt ? (r.dbl ? "fmin" : "fminf") : "min", a, b);
    default: return arena_printf(arena(g), "%s(%s, %s)", r.flt ? (r.dbl ? "fmax" : "fmaxf") : "max", a, b);
    }
}

/* An element of b as the reduction's type. */
static char *as_red(Cg *g, const IrBuf *b, const char *reg, RedType r) {
    return arena_printf(arena(g), "(%s)%s(%s[%s])", r.c, cg_load_wrap(b->dtype),
                        b->cname, reg);
}

/* The value an element contributes (absmax takes magnitudes). */
static char *element(Cg *g, int kind, const IrBuf *b, const char *reg, RedType r) {
    char *v = as_red(g, b, reg, r);
    if (kind != REDUCE_ABSMAX || r.uns) return v;
    const char *abs = r.flt ? (r.dbl ? "fabs" : "fabsf") : wide_int(r) ? "llabs" : "abs";
    return arena_printf(arena(g), "%s(%s)", abs, v);
}

static void store_result(Cg *g, IrStmt *s, const char *reg, const char *v, RedType r) {
    const IrBuf *d = s->dst.buf;
    char *val = (char *)v;
    if (!s->clear)
        val = combine(g, s->reduce_kind == REDUCE_ABSMAX ? REDUCE_MAX : s->reduce_kind, as_red(g, d, reg, r), v, r);
    cg_line(g, "%s[%s] = %s;", d->cname, reg, cg_convert(g, d->dtype, val));
}

static void reduce_acc(Cg *g, IrStmt *s) {
    const IrBuf *src = s->src.buf;
    const Layout *l = &src->layout;
    int kind = s->reduce_kind, merge = kind == REDUCE_ABSMAX ? REDUCE_MAX : kind;
    RedType rt = red_type(src->dtype);
    const char *ty = rt.c;
    const char *p = cg_tmp(g, "p");
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "%s %s[%d];", ty, p, l->mi * 2);
    for (int mi = 0; mi < l->mi; mi++)
        for (int h = 0; h < 2; h++) {
            int row = mi * 2 + h;
            cg_line(g, "%s[%d] = %s;", p, row, identity(kind, rt));
            for (int ni = 0; ni < l->ni; ni++)
                for (int c = 0; c < 2; c++) {
                    char *reg = arena_printf(arena(g), "%d", (mi * l->ni + ni) * 4 + h * 2 + c);
                    char *cur = arena_printf(arena(g), "%s[%d]", p, row);
                    cg_line(g, "%s = %s;", cur, combine(g, merge, cur, element(g, kind, src, reg, rt), rt));
                }
            /* the quad's lanes hold the other columns of the same rows */
            for (int off = 1; off <= 2; off *= 2) {
                char *cur = arena_printf(arena(g), "%s[%d]", p, row);
                cg_line(g, "%s = %s;", cur,
                        combine(g, merge, cur, arena_printf(arena(g), "__shfl_xor_sync(0xffffffffu, %s, %d)", cur, off), rt));
            }
        }
    if (l->wn > 1) {
        /* warps side by side along the columns: meet in shared memory */
        int64_t rows = src->shape[0];
        cg_line(g, "if (lane %% 4 == 0) {");
        for (int r = 0; r < l->mi * 2; r++)
            cg_line(g, "    %s[warp %% %d * %lld + warp / %d * %lld + %d + lane / 4] = %s[%d];", scratch(g, rt), l->wn, (long long)rows,
                    l->wn, (long long)l->wtm, (r / 2) * 16 + (r % 2) * 8, p, r);
        cg_line(g, "}");
        cg_sync(g);
        for (int r = 0; r < l->mi * 2; r++) {
            char *cur = arena_printf(arena(g), "%s[%d]", p, r);
            cg_line(g, "%s = %s;", cur, identity(kind, rt));
            for (int w = 0; w < l->wn; w++)
                cg_line(g, "%s = %s;", cur,
                        combine(g, merge, cur,
                                arena_printf(arena(g), "(%s)%s[%lld + warp / %d * %lld + %d + lane / 4]", ty,
                                             scratch(g, rt), (long long)(w * rows), l->wn, (long long)l->wtm, (r / 2) * 16 + (r % 2) * 8),
                                rt));
        }
        cg_sync(g);
    }
    for (int r = 0; r < l->mi * 2; r++)
        store_result(g, s, arena_printf(arena(g), "%d", r), arena_printf(arena(g), "%s[%d]", p, r), rt);
    g->ind--;
    cg_line(g, "}");
}

CgReduceChunk cg_reduce_chunk(const IrBuf *src, int64_t threads, int64_t q) {
    const Layout *l = &src->layout;
    int64_t cols = src->shape[src->rank - 1], total = buf_elems(src), rows = total / cols;
    int64_t pitch = l->pitch ? l->pitch : cols, span = threads * l->vec;
    /* chunk q covers row q*threads*vec / pitch for every thread; with a
     * pitch, columns from `at` on, the padding's past cols */
    CgReduceChunk c = {.row = rows == 1 ? 0 : q * span / pitch, .at = q * span % pitch};
    c.partial = l->pitch ? c.at + span > cols : total % span != 0 && q == l->chunks - 1;
    return c;
}

static void reduce_blocked(Cg *g, IrStmt *s) {
    const IrBuf *src = s->src.buf;
    const Layout *l = &src->layout;
    int kind = s->reduce_kind, merge = kind == REDUCE_ABSMAX ? REDUCE_MAX : kind;
    RedType rt = red_type(src->dtype);
    const char *ty = rt.c;
    int64_t cols = src->shape[src->rank - 1], rows = buf_elems(src) / cols, t = g->k->threads, warps = (t + 31) / 32;
    int64_t total = buf_elems(src);
    const char *p = cg_tmp(g, "p");
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "%s %s[%lld];", ty, p, (long long)rows);
    for (int64_t r = 0; r < rows; r++) cg_line(g, "%s[%lld] = %s;", p, (long long)r, identity(kind, rt));
    for (int64_t q = 0; q < l->chunks; q++) {
        CgReduceChunk ch = cg_reduce_chunk(src, t, q);
        int64_t row = ch.row;
        bool partial = ch.partial;
        /* whole chunks of one row in a row: one loop over their registers
         * (unrolled by NVRTC to the same instructions as written out);
         * runs of a few registers stay written out, which reads as well */
        int64_t last = q;
        while (!partial && last + 1 < l->chunks) {
            CgReduceChunk next = cg_reduce_chunk(src, t, last + 1);
            if (next.partial || next.row != row) break;
            last++;
        }
        if (!partial && (last - q + 1) * l->vec >= 8) {
            const char *e = cg_tmp(g, "e");
            char *cur = arena_printf(arena(g), "%s[%lld]", p, (long long)row);
            cg_line(g, "#pragma unroll");
            cg_line(g, "for (int %s = %lld; %s < %lld; ++%s) %s = %s;", e, (long long)(q * l->vec), e,
                    (long long)((last + 1) * l->vec), e, cur, combine(g, merge, cur, element(g, kind, src, e, rt), rt));
            q = last;
            continue;
        }
        if (partial && l->pitch) cg_line(g, "if (tid * %d + %lld < %lld) {", l->vec, (long long)ch.at, (long long)cols);
        else if (partial) cg_line(g, "if ((tid + %lld) * %d < %lld) {", (long long)(q * t), l->vec, (long long)total);
        for (int v = 0; v < l->vec; v++) {
            char *cur = arena_printf(arena(g), "%s[%lld]", p, (long long)row);
            char *reg = arena_printf(arena(g), "%lld", (long long)(q * l->vec + v));
            cg_line(g, "%s%s = %s;", partial ? "    " : "", cur, combine(g, merge, cur, element(g, kind, src, reg, rt), rt));
        }
        if (partial) cg_line(g, "}");
    }
    const char *r = cg_tmp(g, "row");
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", r, r, (long long)rows, r);
    char *cur = arena_printf(arena(g), "%s[%s]", p, r);
    for (int off = 16; off >= 1; off /= 2)
        cg_line(g, "    %s = %s;", cur,
                combine(g, merge, cur, arena_printf(arena(g), "__shfl_xor_sync(0xffffffffu, %s, %d)", cur, off), rt));
    cg_line(g, "    if (lane == 0) %s[warp * %lld + %s] = %s;", scratch(g, rt), (long long)rows, r, cur);
    cg_line(g, "}");
    cg_sync(g);
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", r, r, (long long)rows, r);
    cg_line(g, "    %s = %s;", cur, identity(kind, rt));
    const char *w = cg_tmp(g, "w");
    cg_line(g, "    for (int %s = 0; %s < %lld; ++%s) %s = %s;", w, w, (long long)warps, w, cur,
            combine(g, merge, cur, arena_printf(arena(g), "(%s)%s[%s * %lld + %s]", ty, scratch(g, rt), w, (long long)rows, r), rt));
    cg_line(g, "}");
    cg_sync(g);
    for (int64_t i = 0; i < rows; i++)
        store_result(g, s, arena_printf(arena(g), "%lld", (long long)i), arena_printf(arena(g), "%s[%lld]", p, (long long)i), rt);
    g->ind--;
    cg_line(g, "}");
}

int64_t cg_reduce_lanes(int64_t outputs, int64_t threads) {
    int64_t lanes = 1;
    if (threads % 32 == 0)
        while (lanes < 32 && lanes * 2 * outputs <= threads) lanes *= 2;
    return lanes;
}

/* Any layouts, any dim: the source goes to shared memory; the threads then
 * reduce it together, `lanes` of them an output (each a strided share of
 * the reduced extent, then shuffles), into a result area after the
 * source; each thread finally reads the destination elements it holds.
 * (Every output in one order: the same result at every run.) */
static void reduce_staged(Cg *g, IrStmt *s) {
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    int kind = s->reduce_kind, merge = kind == REDUCE_ABSMAX ? REDUCE_MAX : kind;
    RedType rt = red_type(src->dtype);
    const char *ty = rt.c;
    const char *r = cg_tmp(g, "r");
    char *coords[MAX_RANK], *valid;
    cg_frag_coords(g, src, r, coords, &valid);
    char *lin = cg_frag_linear(g, src, coords);
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s)", r, r, (long long)src->layout.regs, r);
    cg_line(g, "    %s%s[%s] = %s;", valid ? arena_printf(arena(g), "if (%s) ", valid) : "", scratch(g, rt), lin,
            element(g, kind, src, r, rt));
    cg_sync(g);
    /* output o (row-major over the dims kept) reads source elements
     * (o / inner) * extent * inner + k * inner + o % inner, k < extent */
    int64_t total = buf_elems(src), extent = src->shape[s->dim], outputs = total / extent, inner = 1;
    for (int d = s->dim + 1; d < src->rank; d++) inner *= src->shape[d];
    int64_t lanes = cg_reduce_lanes(outputs, g->k->threads), groups = g->k->threads / lanes;
    const char *o = cg_tmp(g, "o"), *k = cg_tmp(g, "k"), *v = cg_tmp(g, "v");
    /* every thread runs the same rounds: the shuffles need whole warps */
    cg_line(g, "for (int %s = tid%s; %s < %lld; %s += %lld) {", o, lanes > 1 ? arena_printf(arena(g), " / %lld", (long long)lanes) : "", o,
            (long long)((outputs + groups - 1) / groups * groups), o, (long long)groups);
    g->ind++;
    cg_line(g, "%s %s = %s;", ty, v, identity(kind, rt));
    char *at;
    if (inner == 1) /* the last dim: o's elements are a row */
        at = outputs > 1 ? arena_printf(arena(g), "%s * %lld + %s", o, (long long)extent, k) : (char *)k;
    else if (outputs == inner) /* the first dim: o is the inner part */
        at = arena_printf(arena(g), "%s * %lld + %s", k, (long long)inner, o);
    else
        at = arena_printf(arena(g), "%s / %lld * %lld + %s * %lld + %s %% %lld", o, (long long)inner,
                          (long long)(extent * inner), k, (long long)inner, o, (long long)inner);
    cg_line(g, "if (%s < %lld) {", o, (long long)outputs);
    cg_line(g, "    #pragma unroll 4");
    cg_line(g, "    for (int %s = %s; %s < %lld; %s += %lld) %s = %s;", k, lanes > 1 ? arena_printf(arena(g), "tid %% %lld", (long long)lanes) : "0",
            k, (long long)extent, k, (long long)lanes, v, combine(g, merge, v, arena_printf(arena(g), "(%s)%s[%s]", ty, scratch(g, rt), at), rt));
    cg_line(g, "}");
    for (int64_t off = lanes / 2; off >= 1; off /= 2)
        cg_line(g, "%s = %s;", v, combine(g, merge, v, arena_printf(arena(g), "__shfl_xor_sync(0xffffffffu, %s, %lld)", v, (long long)off), rt));
    cg_line(g, "if (%s%s < %lld) %s[%lld + %s] = %s;", lanes > 1 ? arena_printf(arena(g), "tid %% %lld == 0 && ", (long long)lanes) : "",
            o, (long long)outputs, scratch(g, rt), (long long)total, o, v);
    g->ind--;
    cg_line(g, "}");
    cg_sync(g);
    /* the destination's elements, row-major over its dims (the kept ones) */
    const char *dr = cg_tmp(g, "r");
    char *dc[MAX_RANK], *dvalid;
    cg_frag_coords(g, dst, dr, dc, &dvalid);
    char *dlin = outputs > 1 ? cg_frag_linear(g, dst, dc) : "0";
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", dr, dr, (long long)dst->layout.regs, dr);
    g->ind++;
    if (dvalid) cg_line(g, "if (!(%s)) continue;", dvalid);
    store_result(g, s, dr, arena_printf(arena(g), "(%s)%s[%lld + %s]", ty, scratch(g, rt), (long long)total, dlin), rt);
    g->ind--;
    cg_line(g, "}");
    cg_sync(g);
    g->ind--;
    cg_line(g, "}");
}

void cg_reduce(Cg *g, IrStmt *s) {
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    if (src->scope != SCOPE_FRAGMENT || dst->scope != SCOPE_FRAGMENT) {
        cg_error(g, s->loc, "reductions of shared or local buffers are not supported yet; reduce a fragment");
        return;
    }
    switch (reduce_path(s, g->k->threads)) {
    case REDUCE_PATH_ACC_ROWS: reduce_acc(g, s); break;
    case REDUCE_PATH_BLOCKED_ROWS: reduce_blocked(g, s); break;
    case REDUCE_PATH_STAGED: reduce_staged(g, s); break;
    }
}
