/* lower_scan.c - cumsum's scan (IR_SCAN), in place in shared memory,
 * where ir/build.c copies the fragment in the sum's type. A warp takes a
 * sequence (a row for dim 1, a column for dim 0) 32 consecutive elements
 * at a time, one a lane (a row's neighbours lie in different banks): it
 * scans the group by shuffles (Hillis-Steele: each lane adds the value d
 * lanes below, d = 1, 2, ... 16), adds the carry of the groups before and
 * takes the group's total from lane 31 into the carry. Sequences go
 * round-robin over the warps. The additions happen in one fixed order, so
 * runs agree bit for bit; llvm_scan.c does the same. (A lane a contiguous
 * chunk needs fewer shuffles, but its lanes read one bank: 32-way
 * conflicts, 0.10x copy bandwidth on the H200.) */
#include "codegen.h"

const char *cg_scan_plan(const IrKernel *k, const IrStmt *s, CgScanPlan *p) {
    const IrBuf *b = s->src.buf;
    if (k->threads % 32 != 0) return "cumsum needs whole warps: threads must be a multiple of 32";
    int64_t rows = b->rank == 2 ? b->shape[0] : 1, cols = b->shape[b->rank - 1];
    p->rows = b->rank == 1 || s->dim == 1;
    p->nseq = p->rows ? rows : cols;
    p->len = p->rows ? cols : rows;
    p->groups = (p->len + 31) / 32;
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
    const IrBuf *b = s->src.buf;
    const char *t = cg_compute_type(b->dtype);
    const char *sq = cg_tmp(g, "sq"), *e = cg_tmp(g, "e"), *q = cg_tmp(g, "q"), *x = cg_tmp(g, "x");
    const char *carry = cg_tmp(g, "carry"), *d = cg_tmp(g, "d"), *y = cg_tmp(g, "y"), *v = cg_tmp(g, "v");
    /* element q of sequence sq, from the end where reverse */
    const char *pos = s->reverse ? arena_printf(&g->k->c->arena, "(%lld - %s)", (long long)(p.len - 1), q) : q;
    char *coords[2];
    if (b->rank == 1) coords[0] = (char *)pos;
    else if (p.rows) coords[0] = (char *)sq, coords[1] = (char *)pos;
    else coords[0] = (char *)pos, coords[1] = (char *)sq;
    const char *at = arena_printf(&g->k->c->arena, "%s[%s]", b->cname, cg_shared_offset(g, b, coords));
    cg_line(g, "for (int %s = warp; %s < %lld; %s += %d) {  // cumsum: a warp a %s", sq, sq, (long long)p.nseq, sq, p.warps,
            p.rows ? "row" : "column");
    g->ind++;
    cg_line(g, "%s %s = 0;  // the groups before", t, carry);
    cg_line(g, "#pragma unroll 1");  /* unrolled, NVRTC spilled at --specialise sizes */
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {  // 32 elements at a time", e, e, (long long)p.groups, e);
    g->ind++;
    cg_line(g, "const int %s = %s * 32 + lane;", q, e);
    cg_line(g, "const %s %s = %s < %lld ? %s : (%s)0;", t, v, q, (long long)p.len, at, t);
    cg_line(g, "%s %s = %s;  // up to and with this lane's", t, x, v);
    cg_line(g, "for (int %s = 1; %s < 32; %s *= 2) {", d, d, d);
    cg_line(g, "    const %s %s = __shfl_up_sync(0xffffffffu, %s, %s);", t, y, x, d);
    cg_line(g, "    if (lane >= %s) %s += %s;", d, x, y);
    cg_line(g, "}");
    if (s->exclusive) { /* the lanes before this one */
        cg_line(g, "%s %s = __shfl_up_sync(0xffffffffu, %s, 1);", t, y, x);
        cg_line(g, "if (lane == 0) %s = 0;", y);
        cg_line(g, "if (%s < %lld) %s = %s + %s;", q, (long long)p.len, at, carry, y);
    } else {
        cg_line(g, "if (%s < %lld) %s = %s + %s;", q, (long long)p.len, at, carry, x);
    }
    cg_line(g, "%s += __shfl_sync(0xffffffffu, %s, 31);", carry, x);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}
