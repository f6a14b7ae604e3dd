/* lower_parallel.c - parallel loops: each thread runs the iterations whose
 * elements it holds. With a driving fragment that means its registers (an
 * unrolled loop, so register indices are constants); without one, the
 * iterations are dealt round-robin, consecutive threads taking consecutive
 * elements so global accesses coalesce. */
#include "codegen.h"

/* Coordinates of register `reg` (a C expression, constant after unrolling). */
void cg_frag_coords(Cg *g, const IrBuf *b, const char *reg, char **coords, char **valid) {
    Arena *a = &g->k->c->arena;
    const Layout *l = &b->layout;
    *valid = NULL;
    switch (l->kind) {
    case LAYOUT_ACC:
        /* mma.sync m16n8k16 accumulator: lane = 4 * g + t holds rows g and
         * g + 8, columns 2t and 2t + 1 of each 16x8 tile */
        coords[0] = arena_printf(a, "(warp / %d * %lld + (%s) / %d * 16 + ((%s) / 2 %% 2) * 8 + lane / 4)", l->wn,
                                 (long long)l->wtm, reg, l->ni * 4, reg);
        coords[1] = arena_printf(a, "(warp %% %d * %lld + (%s) / 4 %% %d * 8 + (lane %% 4) * 2 + (%s) %% 2)", l->wn,
                                 (long long)l->wtn, reg, l->ni, reg);
        return;
    case LAYOUT_ROW:
        coords[0] = arena_printf(a, "(warp / %d * %lld + (%s) / 2 * 16 + (%s) %% 2 * 8 + lane / 4)", l->wn,
                                 (long long)l->wtm, reg, reg);
        return;
    case LAYOUT_BLOCKED: {
        int64_t total = buf_elems(b), t = g->k->threads;
        char *e = arena_printf(a, "((tid + (%s) / %d * %lld) * %d + (%s) %% %d)", reg, l->vec, (long long)t, l->vec,
                               reg, l->vec);
        if (total % (t * l->vec) != 0) *valid = arena_printf(a, "%s < %lld", e, (long long)total);
        for (int d = b->rank - 1; d >= 0; d--) {
            int64_t inner = 1;
            for (int j = d + 1; j < b->rank; j++) inner *= b->shape[j];
            coords[d] = d == 0 ? arena_printf(a, "(%s / %lld)", e, (long long)inner)
                               : arena_printf(a, "(%s / %lld %% %lld)", e, (long long)inner, (long long)b->shape[d]);
        }
        return;
    }
    default: {
        int64_t inner = 1;
        for (int d = b->rank - 1; d >= 0; d--) {
            coords[d] = arena_printf(a, "((%s) / %lld %% %lld)", reg, (long long)inner, (long long)b->shape[d]);
            inner *= b->shape[d];
        }
        return;
    }
    }
}

void cg_parallel(Cg *g, IrStmt *s) {
    const IrBuf *d = s->driver;
    const char *saved_reg = g->reg;
    const IrBuf *saved_driver = g->driver;
    int saved_bind = g->nbind;
    cg_line(g, "{");
    g->ind++;
    if (d) {
        const char *r = cg_tmp(g, "r");
        char *coords[MAX_RANK], *valid;
        cg_frag_coords(g, d, r, coords, &valid);
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", r, r, (long long)d->layout.regs, r);
        g->ind++;
        if (valid) cg_line(g, "if (!(%s)) continue;", valid);
        for (int i = 0; i < s->nvars; i++) {
            const char *v = ir_cname(g->k->c, s->vars[i]->name);
            cg_line(g, "const int %s = %s;", v, coords[i]);
        }
        g->driver = d;
        g->reg = r;
    } else {
        int64_t total = 1, t = g->k->threads;
        for (int i = 0; i < s->nvars; i++) total *= s->extents[i];
        const char *q = cg_tmp(g, "q"), *e = cg_tmp(g, "e");
        int64_t rounds = (total + t - 1) / t;
        if (rounds <= 64) cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)rounds, q);
        g->ind++;
        cg_line(g, "const long long %s = tid + (long long)%s * %lld;", e, q, (long long)t);
        if (total % t) cg_line(g, "if (%s >= %lld) break;", e, (long long)total);
        int64_t inner = 1;
        for (int i = s->nvars - 1; i >= 0; i--) {
            const char *v = ir_cname(g->k->c, s->vars[i]->name);
            if (i == 0) cg_line(g, "const int %s = (int)(%s / %lld);", v, e, (long long)inner);
            else cg_line(g, "const int %s = (int)(%s / %lld %% %lld);", v, e, (long long)inner, (long long)s->extents[i]);
            inner *= s->extents[i];
        }
        g->driver = NULL;
        g->reg = NULL;
    }
    cg_block(g, &s->body);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
    g->driver = saved_driver;
    g->reg = saved_reg;
    g->nbind = saved_bind;
}
