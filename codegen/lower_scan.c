/* lower_scan.c - cumsum's scan (IR_SCAN), in place in shared memory,
 * where ir/build.c copies the fragment in the sum's type. A warp takes a
 * sequence (a row for dim 1, a column for dim 0) 32 * V consecutive
 * elements at a time, V consecutive ones a lane: one 16-byte vector of a
 * row (32 lanes, 512 contiguous bytes: no bank conflict; the swizzle
 * moves whole 16-byte chunks), one element of a column. The lane sums its
 * V elements in order, the warp scans the lanes' totals by shuffles
 * (Hillis-Steele: each lane adds the value d lanes below, d = 1, 2, ...
 * 16), and element k of a lane becomes carry + (lanes before + its own
 * first k + 1), the carry being the groups before, taken from lane 31.
 * Sequences go round-robin over the warps. The additions happen in one
 * fixed order, so runs agree bit for bit; llvm_scan.c does the same. (A
 * lane a whole contiguous chunk of a row needs fewer shuffles, but its
 * lanes read one bank: 32-way conflicts, 0.10x copy bandwidth on the
 * H200.) */
#include "codegen.h"

const char *cg_scan_plan(const IrKernel *k, const IrStmt *s, CgScanPlan *p) {
    const IrBuf *b = s->src.buf;
    if (k->threads % 32 != 0) return "cumsum needs whole warps: threads must be a multiple of 32";
    int64_t rows = b->rank == 2 ? b->shape[0] : 1, cols = b->shape[b->rank - 1];
    p->rows = b->rank == 1 || s->dim == 1;
    p->nseq = p->rows ? rows : cols;
    p->len = p->rows ? cols : rows;
    /* a row's 16-byte chunks lie whole and aligned in every shared layout */
    int eb = dtype_bytes(b->dtype);
    p->vec = p->rows && p->len % (32 * (16 / eb)) == 0 ? 16 / eb : 1;
    p->groups = (p->len + 32 * p->vec - 1) / (32 * p->vec);
    p->warps = (int)(k->threads / 32);
    return NULL;
}

void cg_scan(Cg *g, IrStmt *s) {
    CgScanPlan p;
    const char *why = cg_scan_plan(g->k, s, &p);
    if (why) {
        cg_error(g, s->loc, "%s", why);
        return;
    }
    Arena *a = &g->k->c->arena;
    const IrBuf *b = s->src.buf;
    const char *t = cg_compute_type(b->dtype);
    const char *sq = cg_tmp(g, "sq"), *e = cg_tmp(g, "e"), *q = cg_tmp(g, "q"), *x = cg_tmp(g, "x");
    const char *carry = cg_tmp(g, "carry"), *d = cg_tmp(g, "d"), *y = cg_tmp(g, "y"), *w = cg_tmp(g, "w");
    const char *part = cg_tmp(g, "s"), *before = cg_tmp(g, "before");
    int v = p.vec;
    /* the lane's first element q; its lowest address (from the end where
     * reverse: the vector's elements then run backwards) */
    const char *pos = s->reverse ? arena_printf(a, "(%lld - %s)", (long long)(p.len - v), q) : q;
    char *coords[2];
    if (b->rank == 1) coords[0] = (char *)pos;
    else if (p.rows) coords[0] = (char *)sq, coords[1] = (char *)pos;
    else coords[0] = (char *)pos, coords[1] = (char *)sq;
    const char *at = arena_printf(a, "%s[%s]", b->cname, cg_shared_offset(g, b, coords));
    cg_line(g, "for (int %s = warp; %s < %lld; %s += %d) {  // cumsum: a warp a %s", sq, sq, (long long)p.nseq, sq, p.warps,
            p.rows ? "row" : "column");
    g->ind++;
    cg_line(g, "%s %s = 0;  // the groups before", t, carry);
    /* two groups' shuffles in flight (fully unrolled, NVRTC spilled at
     * --specialise sizes) */
    cg_line(g, "#pragma unroll 2");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {  // %d elements at a time, %d a lane", e, e, (long long)p.groups, e,
            32 * v, v);
    g->ind++;
    cg_line(g, "const int %s = (%s * 32 + lane) * %d;", q, e, v);
    /* part[k]: the lane's elements up to and with its k-th */
    cg_line(g, "%s %s[%d];", t, part, v);
    if (v > 1) {
        cg_line(g, "union { %s v; %s e[%d]; } %s;", cg_vector_type(16), cg_storage_type(b->dtype), v, w);
        cg_line(g, "%s.v = *(const %s *)&%s;", w, cg_vector_type(16), at);
        for (int k = 0; k < v; k++) {
            int i = s->reverse ? v - 1 - k : k;
            if (k == 0) cg_line(g, "%s[0] = %s.e[%d];", part, w, i);
            else cg_line(g, "%s[%d] = %s[%d] + %s.e[%d];", part, k, part, k - 1, w, i);
        }
    } else {
        cg_line(g, "%s[0] = %s < %lld ? %s : (%s)0;", part, q, (long long)p.len, at, t);
    }
    cg_line(g, "%s %s = %s[%d];  // the lanes' totals up to and with this lane's", t, x, part, v - 1);
    cg_line(g, "for (int %s = 1; %s < 32; %s *= 2) {", d, d, d);
    cg_line(g, "    const %s %s = __shfl_up_sync(0xffffffffu, %s, %s);", t, y, x, d);
    cg_line(g, "    if (lane >= %s) %s += %s;", d, x, y);
    cg_line(g, "}");
    if (v > 1 || s->exclusive) {
        cg_line(g, "%s %s = __shfl_up_sync(0xffffffffu, %s, 1);  // the lanes before", t, before, x);
        cg_line(g, "if (lane == 0) %s = 0;", before);
    }
    /* element k: carry + (before + part[k]); exclusive: part[k - 1], and
     * carry + before for the first. One a lane: carry + the scan. */
    for (int k = 0; k < v; k++) {
        const char *value = s->exclusive && k == 0 ? arena_printf(a, "%s + %s", carry, before)
                          : v == 1 ? arena_printf(a, "%s + %s", carry, x)
                          : arena_printf(a, "%s + (%s + %s[%d])", carry, before, part, s->exclusive ? k - 1 : k);
        if (v > 1) cg_line(g, "%s.e[%d] = %s;", w, s->reverse ? v - 1 - k : k, value);
        else cg_line(g, "if (%s < %lld) %s = %s;", q, (long long)p.len, at, value);
    }
    if (v > 1) cg_line(g, "*(%s *)&%s = %s.v;", cg_vector_type(16), at, w);
    cg_line(g, "%s += __shfl_sync(0xffffffffu, %s, 31);", carry, x);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}
