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
 * H200.)
 *
 * A scan plan_scan moved into registers (IR_SCAN from a fragment to one
 * laid out alike, ScanRegs) runs on the chunks each thread holds: each
 * thread scans its chunks, the runs of `seg` threads that hold one slice
 * of a row scan the chunks' totals by shuffles (and across their warps
 * through the scratch), and each thread adds the row's earlier slices,
 * which it holds too. Reverse scans mirror every step. llvm_scan.c makes
 * the same additions in the same order. */
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

static void scan_registers(Cg *g, IrStmt *s);

void cg_scan(Cg *g, IrStmt *s) {
    if (s->dst.buf) {
        scan_registers(g, s);
        return;
    }
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

/* IR_SCAN in registers (plan_scan.c), forward or mirrored: element k of
 * chunk q ends as (carry of the row's earlier slices + (the run's earlier
 * warps + the warp's earlier lanes)) + the chunk's own elements up to k.
 * Threads past the fragment's last chunk (a partial last round of short
 * rows) make up whole runs of their own: what they add up reaches no
 * other run's threads, and their registers hold no element. */
static void scan_registers(Cg *g, IrStmt *s) {
    ScanRegs p;
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    const char *why = scan_in_registers(src, dst, s->dim, g->k->threads, &p);
    if (why) {
        cg_error(g, s->loc, "cumsum in registers: %s", why);
        return;
    }
    Arena *a = &g->k->c->arena;
    const Layout *l = &src->layout;
    Dtype sum = scan_sum_dtype(src->dtype);
    const char *t = cg_compute_type(sum);
    int64_t Q = l->chunks, V = l->vec, w = p.seg < 32 ? p.seg : 32, wps = p.seg / 32;
    bool rev = s->reverse;
    const char *part = cg_tmp(g, "s"), *x = cg_tmp(g, "x"), *before = cg_tmp(g, "before"), *q = cg_tmp(g, "q");
    const char *d = cg_tmp(g, "d"), *y = cg_tmp(g, "y");
    cg_line(g, "{  // cumsum in registers: a row is %lld run%s of %lld threads", (long long)p.slices, p.slices > 1 ? "s" : "",
            (long long)p.seg);
    g->ind++;
    /* each chunk's elements in order (from its end where reverse) */
    cg_line(g, "%s %s[%lld];", t, part, (long long)(Q * V));
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
    for (int64_t i = 0; i < V; i++) {
        int64_t k = rev ? V - 1 - i : i;
        char *in = arena_printf(a, "(%s)%s(%s[%s * %lld + %lld])", t, cg_load_wrap(src->dtype), src->cname, q, (long long)V,
                                (long long)k);
        if (i == 0) cg_line(g, "    %s[%s * %lld + %lld] = %s;", part, q, (long long)V, (long long)k, in);
        else
            cg_line(g, "    %s[%s * %lld + %lld] = %s[%s * %lld + %lld] + %s;", part, q, (long long)V, (long long)k, part, q,
                    (long long)V, (long long)(rev ? k + 1 : k - 1), in);
    }
    cg_line(g, "}");
    /* the chunks' totals scanned over the lanes of each run (of its warp) */
    const char *shfl = rev ? "__shfl_down_sync" : "__shfl_up_sync";
    cg_line(g, "%s %s[%lld], %s[%lld];  // the lanes' totals with each one's, the lanes' before it", t, x, (long long)Q, before,
            (long long)Q);
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s[%s] = %s[%s * %lld + %lld];", q, q, (long long)Q, q, x, q, part, q,
            (long long)V, (long long)(rev ? 0 : V - 1));
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 1; %s < %lld; %s *= 2) {", d, d, (long long)w, d);
    cg_line(g, "    #pragma unroll");
    cg_line(g, "    for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
    cg_line(g, "        const %s %s = %s(0xffffffffu, %s[%s], %s);", t, y, shfl, x, q, d);
    cg_line(g, "        if (lane %% %lld %s) %s[%s] = %s[%s] + %s;", (long long)w,
            rev ? arena_printf(a, "< %lld - %s", (long long)w, d) : arena_printf(a, ">= %s", d), x, q, x, q, y);
    cg_line(g, "    }");
    cg_line(g, "}");
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
    cg_line(g, "    %s[%s] = %s(0xffffffffu, %s[%s], 1);", before, q, shfl, x, q);
    cg_line(g, "    if (lane %% %lld == %lld) %s[%s] = 0;", (long long)w, (long long)(rev ? w - 1 : 0), before, q);
    cg_line(g, "}");
    /* a run's total, for the row's other slices: over its warps through
     * the scratch (which also gives the warps before), else from its last
     * lane (the first where reverse) */
    const char *total = cg_tmp(g, "total");
    if (p.slices > 1) cg_line(g, "%s %s[%lld];  // each chunk's run's total", t, total, (long long)Q);
    const char *sc = sum == DT_F64 ? "tl_scratch" : arena_printf(a, "((%s *)tl_scratch)", t);
    if (p.seg > 32) {
        cg_line(g, "if (lane == %d) {", rev ? 0 : 31);
        cg_line(g, "    #pragma unroll");
        cg_line(g, "    for (int %s = 0; %s < %lld; ++%s) %s[warp * %lld + %s] = %s[%s];", q, q, (long long)Q, q, sc, (long long)Q, q,
                x, q);
        cg_line(g, "}");
        cg_sync(g);
        const char *ws = cg_tmp(g, "w"), *i = cg_tmp(g, "i"), *v = cg_tmp(g, "v");
        const char *warps = cg_tmp(g, "warps"), *all = cg_tmp(g, "all");
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
        cg_line(g, "    %s %s = 0;", t, warps);
        if (p.slices > 1) cg_line(g, "    %s %s = 0;", t, all);
        cg_line(g, "    #pragma unroll");
        cg_line(g, "    for (int %s = 0; %s < %lld; ++%s) {  // the run's warps", i, i, (long long)wps, i);
        cg_line(g, "        const int %s = warp / %lld * %lld + %s;", ws, (long long)wps, (long long)wps, i);
        cg_line(g, "        const %s %s = %s[%s * %lld + %s];", t, v, sc, ws, (long long)Q, q);
        cg_line(g, "        if (%s %s warp) %s = %s + %s;", ws, rev ? ">" : "<", warps, warps, v);
        if (p.slices > 1) cg_line(g, "        %s = %s + %s;", all, all, v);
        cg_line(g, "    }");
        cg_line(g, "    %s[%s] = %s + %s[%s];", before, q, warps, before, q);
        if (p.slices > 1) cg_line(g, "    %s[%s] = %s;", total, q, all);
        cg_line(g, "}");
        cg_sync(g);
    } else if (p.slices > 1) {
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s[%s] = __shfl_sync(0xffffffffu, %s[%s], %d);", q, q, (long long)Q, q,
                total, q, x, q, rev ? 0 : 31);
    }
    /* the row's earlier slices (later where reverse): a running carry */
    if (p.slices > 1) {
        const char *carry = cg_tmp(g, "carry");
        cg_line(g, "%s %s = 0;", t, carry);
        cg_line(g, "#pragma unroll");
        if (rev) cg_line(g, "for (int %s = %lld; %s >= 0; --%s) {", q, (long long)(Q - 1), q, q);
        else cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
        cg_line(g, "    if (%s %% %lld == %lld) %s = 0;", q, (long long)p.slices, (long long)(rev ? p.slices - 1 : 0), carry);
        cg_line(g, "    %s[%s] = %s + %s[%s];", before, q, carry, before, q);
        cg_line(g, "    %s = %s + %s[%s];", carry, carry, total, q);
        cg_line(g, "}");
    }
    /* element k: before + the chunk's elements up to k (exclusive: up to
     * the one before k, and before alone for the first) */
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)Q, q);
    for (int64_t i = 0; i < V; i++) {
        int64_t k = rev ? V - 1 - i : i, prev = rev ? k + 1 : k - 1;
        const char *value = s->exclusive && i == 0 ? arena_printf(a, "%s[%s]", before, q)
                          : arena_printf(a, "%s[%s] + %s[%s * %lld + %lld]", before, q, part, q, (long long)V,
                                         (long long)(s->exclusive ? prev : k));
        cg_line(g, "    %s[%s * %lld + %lld] = %s;", dst->cname, q, (long long)V, (long long)k, cg_convert(g, dst->dtype, value));
    }
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}
