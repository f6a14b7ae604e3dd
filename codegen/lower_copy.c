/* lower_copy.c - copy, fill and atomic_add between global, shared,
 * fragment and local memory.
 *
 * A copy is a walk over the elements of its tile. When a fragment takes
 * part, each thread walks the registers it holds; otherwise the threads
 * deal the tile out in chunks, consecutive threads taking consecutive
 * chunks (coalesced). Chunks are 16 bytes where alignment is provable from
 * the specialised sizes: one vector access (or one cp.async) per chunk,
 * and one bounds test per chunk, since a chunk then lies wholly inside or
 * wholly outside the tensor. */
#include <string.h>

#include "codegen.h"

static Arena *arena(Cg *g) { return &g->k->c->arena; }

int64_t cg_region_total(const IrRegion *r) {
    int64_t n = 1;
    for (int d = 0; d < r->buf->rank; d++) n *= r->ext[d];
    return n;
}

/* Coordinates in r's buffer of the element at linear position `lin` of the
 * region (row-major over the region's extents). */
static void region_coords(Cg *g, const IrRegion *r, const char *lin, char **coords) {
    int64_t inner = 1;
    for (int d = r->buf->rank - 1; d >= 0; d--) {
        const char *start = r->idx[d] ? cg_expr_str(g, r->idx[d]) : "0";
        if (r->ext[d] == 1) coords[d] = arena_printf(arena(g), "(%s)", start);
        else if (inner == 1 && d == 0) coords[d] = arena_printf(arena(g), "(%s + (%s))", start, lin);
        else if (d == 0) coords[d] = arena_printf(arena(g), "(%s + (%s) / %lld)", start, lin, (long long)inner);
        else coords[d] = arena_printf(arena(g), "(%s + (%s) / %lld %% %lld)", start, lin, (long long)inner, (long long)r->ext[d]);
        inner *= r->ext[d];
    }
}

/* Coordinates in r's buffer of the tile element whose coordinates in a
 * fragment tile of `rank` dims and extents `shape` (the same number of
 * elements) are fc. Direct when r's extents are that shape (possibly with
 * leading 1s); through the linear index otherwise. */
static void coords_from_frag(Cg *g, const IrRegion *r, int rank, const int64_t *shape, char **fc, char **coords) {
    int lead = region_lead(r, rank, shape);
    if (lead >= 0) {
        for (int d = 0; d < r->buf->rank; d++) {
            const char *start = r->idx[d] ? cg_expr_str(g, r->idx[d]) : "0";
            coords[d] = d < lead ? arena_printf(arena(g), "(%s)", start)
                                 : arena_printf(arena(g), "(%s + %s)", start, fc[d - lead]);
        }
        return;
    }
    char *lin = fc[0];
    for (int d = 1; d < rank; d++) lin = arena_printf(arena(g), "(%s) * %lld + %s", lin, (long long)shape[d], fc[d]);
    region_coords(g, r, lin, coords);
}

/* For a part fr of a fragment: the coordinates fc of a register in the
 * whole fragment made relative to the part (in place), and the condition
 * that the register lies in it (NULL for the whole fragment). */
static char *frag_part(Cg *g, const IrRegion *fr, char **fc) {
    char *in = NULL;
    for (int d = 0; d < fr->buf->rank; d++) {
        if (expr_is_zero(fr->idx[d]) && fr->ext[d] == fr->buf->shape[d]) continue;
        const char *lo = fr->idx[d] ? cg_expr_str(g, fr->idx[d]) : "0";
        fc[d] = arena_printf(arena(g), "(%s - (%s))", fc[d], lo);
        char *c = arena_printf(arena(g), "(unsigned)%s < %lldu", fc[d], (long long)fr->ext[d]);
        in = in ? arena_printf(arena(g), "%s && %s", in, c) : c;
    }
    return in;
}

/* An element of a non-fragment region as a C lvalue; cond: bounds (global). */
/* Row `rel` of a gather region: the tensor row element rel of its index
 * buffer names (shared or local). */
static char *gathered_row(Cg *g, const IrBuf *rows, char *rel) {
    const char *at = rows->scope == SCOPE_SHARED ? cg_shared_offset(g, rows, &rel) : rel;
    return arena_printf(arena(g), "((long long)%s[%s])", rows->cname, at);
}

static char *region_ref(Cg *g, const IrRegion *r, char **coords, char **cond) {
    const IrBuf *b = r->buf;
    *cond = NULL;
    if (r->gather) coords[0] = gathered_row(g, r->gather, coords[0]); /* the region's row: its start is 0 */
    if (b->scope == SCOPE_GLOBAL) {
        *cond = cg_global_inbounds(g, b, coords);
        return arena_printf(arena(g), "%s[%s]", b->cname, cg_global_offset(g, b, coords));
    }
    if (b->scope == SCOPE_SHARED) return arena_printf(arena(g), "%s[%s]", b->cname, cg_shared_offset(g, b, coords));
    char *lin = coords[0];
    for (int d = 1; d < b->rank; d++) lin = arena_printf(arena(g), "(%s) * %lld + %s", lin, (long long)b->shape[d], coords[d]);
    return arena_printf(arena(g), "%s[%s]", b->cname, lin);
}


/* Whether `vec` consecutive elements along the last dim of region r form
 * one aligned vector access. */
static bool vector_ok(const IrRegion *r, int vec) {
    const IrBuf *b = r->buf;
    int last = b->rank - 1, bytes = vec * dtype_bytes(b->dtype);
    if (vec == 1) return true;
    if (!cg_vector_type(bytes) || r->ext[last] % vec != 0 || !expr_multiple_of(r->idx[last], vec)) return false;
    if (b->scope == SCOPE_GLOBAL) return buf_dim_multiple_of(b, last, vec);
    if (b->scope == SCOPE_SHARED) return 16 % bytes == 0 && b->shape[last] % vec == 0;
    return false;
}

/* ---- copies with a fragment on one side ---- */

/* A whole fragment into one laid out otherwise (two gemms' accumulators
 * split over warps differently, ...): the elements go to the shared
 * scratch, row-major, in the source's type, each written by one of the
 * threads that hold it; then every thread reads the destination's. */
static void copy_relayout(Cg *g, IrStmt *s) {
    const IrBuf *a = s->src.buf, *b = s->dst.buf;
    const char *st = cg_storage_type(a->dtype);
    char *area = arena_printf(arena(g), "((%s *)tl_scratch)", st);
    const char *r = cg_tmp(g, "r");
    char *ac[MAX_RANK], *avalid, *bc[MAX_RANK], *bvalid;
    cg_frag_coords(g, a, r, ac, &avalid);
    const char *cond = cg_and(g, avalid, cg_element_owner(g, a, r));
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s)", r, r, (long long)a->layout.regs, r);
    cg_line(g, "    %s%s[%s] = %s[%s];", cond ? arena_printf(arena(g), "if (%s) ", cond) : "", area, cg_frag_linear(g, a, ac),
            a->cname, r);
    cg_sync(g);
    const char *q = cg_tmp(g, "r");
    cg_frag_coords(g, b, q, bc, &bvalid);
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s)", q, q, (long long)b->layout.regs, q);
    cg_line(g, "    %s%s[%s] = %s;", bvalid ? arena_printf(arena(g), "if (%s) ", bvalid) : "", b->cname, q,
            cg_convert_elem(g, b->dtype, a->dtype, arena_printf(arena(g), "%s[%s]", area, cg_frag_linear(g, b, bc))));
    cg_sync(g); /* the scratch is free again */
}

static void copy_frag_frag(Cg *g, IrStmt *s) {
    const IrBuf *a = s->src.buf, *b = s->dst.buf;
    /* register i of one holds element i of the other only whole: a part
     * of either is staged through shared memory (stage_operands) */
    if (!region_is_whole(&s->src) || !region_is_whole(&s->dst)) {
        cg_error(g, s->loc, "compiler bug: a copy between parts of fragments ('%s' to '%s') was not staged",
                 a->sym->name->s, b->sym->name->s);
        return;
    }
    if (copy_relayouts(s)) {
        copy_relayout(g, s);
        return;
    }
    const char *r = cg_tmp(g, "r");
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s[%s] = %s;", r, r, (long long)a->layout.regs, r, b->cname, r,
            cg_convert_elem(g, b->dtype, a->dtype, arena_printf(arena(g), "%s[%s]", a->cname, r)));
}

void cg_frag_copy_plan(const IrStmt *s, bool frag_is_src, CgFragCopyPlan *p) {
    const IrBuf *f = frag_is_src ? s->src.buf : s->dst.buf;
    const IrRegion *fr = frag_is_src ? &s->src : &s->dst, *o = frag_is_src ? &s->dst : &s->src;
    /* a part of the fragment: each register tests that it lies in the part,
     * one element at a time */
    p->part = !region_is_whole(fr);
    /* (row and replicated layouts hold an element in several threads:
     * each loads it, one of them stores it) */
    /* Elements held in consecutive registers and consecutive columns. */
    p->group = f->layout.kind == LAYOUT_BLOCKED ? f->layout.vec : f->layout.kind == LAYOUT_ACC ? 2 : 1;
    /* the widest aligned vector access (at most 16 bytes) within a group */
    int vec = p->group;
    while (vec > 1 && (!cg_vector_type(vec * dtype_bytes(o->buf->dtype)) || !vector_ok(o, vec))) vec /= 2;
    if (!(o->buf->scope == SCOPE_GLOBAL || o->buf->scope == SCOPE_SHARED) || p->part) vec = 1;
    p->vec = vec;
    p->groups = f->layout.regs / p->group;
}

static void copy_with_frag(Cg *g, IrStmt *s, bool frag_is_src) {
    const IrBuf *f = frag_is_src ? s->src.buf : s->dst.buf;
    const IrRegion *fr = frag_is_src ? &s->src : &s->dst, *o = frag_is_src ? &s->dst : &s->src;
    CgFragCopyPlan p;
    cg_frag_copy_plan(s, frag_is_src, &p);
    bool part = p.part;
    int group = p.group, vec = p.vec;
    const char *q = cg_tmp(g, "q");
    int64_t groups = p.groups;
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)groups, q);
    g->ind++;
    for (int start = 0; start < group; start += vec) {
        const char *reg = arena_printf(arena(g), "(%s * %d + %d)", q, group, start);
        char *fc[MAX_RANK], *valid, *coords[MAX_RANK], *cond;
        cg_frag_coords(g, f, reg, fc, &valid);
        coords_from_frag(g, o, f->rank, f->shape, fc, coords);
        char *ref = region_ref(g, o, coords, &cond);
        cond = cg_and(g, valid, cond);
        if (vec > 1) {
            if (frag_is_src) cond = cg_and(g, cg_element_owner(g, f, reg), cond);
            /* one vector access through a union, which keeps it in registers
             * (taking the address of a local would put it in memory) */
            int bytes = vec * dtype_bytes(o->buf->dtype);
            const char *vt = cg_vector_type(bytes), *ot = cg_storage_type(o->buf->dtype), *v = cg_tmp(g, "v");
            cg_line(g, "{");
            g->ind++;
            cg_line(g, "union { %s v; %s e[%d]; } %s;", vt, ot, vec, v);
            if (frag_is_src) {
                for (int u = 0; u < vec; u++)
                    cg_line(g, "%s.e[%d] = %s;", v, u,
                            cg_convert_elem(g, o->buf->dtype, f->dtype, arena_printf(arena(g), "%s[%s + %d]", f->cname, reg, u)));
                cg_line(g, "if (%s) *(%s *)&%s = %s.v;", cond ? cond : "true", vt, ref, v);
            } else {
                cg_line(g, "%s.v = %s;", v, cg_vector_zero(bytes));
                cg_line(g, "if (%s) %s.v = *(const %s *)&%s;", cond ? cond : "true", v, vt, ref);
                for (int u = 0; u < vec; u++)
                    cg_line(g, "%s[%s + %d] = %s;", f->cname, reg, u,
                            cg_convert_elem(g, f->dtype, o->buf->dtype, arena_printf(arena(g), "%s.e[%d]", v, u)));
            }
            g->ind--;
            cg_line(g, "}");
            continue;
        }
        for (int u = start; u < start + vec; u++) {
            const char *r1 = arena_printf(arena(g), "(%s * %d + %d)", q, group, u);
            char *fc1[MAX_RANK], *valid1, *c1[MAX_RANK], *cond1;
            cg_frag_coords(g, f, r1, fc1, &valid1);
            char *in = part ? frag_part(g, fr, fc1) : NULL;
            coords_from_frag(g, o, f->rank, fr->ext, fc1, c1);
            char *ref1 = region_ref(g, o, c1, &cond1);
            cond1 = cg_and(g, valid1, cond1);
            if (frag_is_src) {
                cond1 = cg_and(g, in, cg_and(g, cg_element_owner(g, f, r1), cond1));
                char *val = cg_convert_elem(g, o->buf->dtype, f->dtype, arena_printf(arena(g), "%s[%s]", f->cname, r1));
                if (cond1) cg_line(g, "if (%s) %s = %s;", cond1, ref1, val);
                else cg_line(g, "%s = %s;", ref1, val);
            } else {
                /* registers outside the part keep their values */
                char *val = arena_printf(arena(g), "%s(%s)", cg_load_wrap(o->buf->dtype), ref1);
                if (cond1) val = arena_printf(arena(g), "((%s) ? %s : 0)", cond1, val);
                cg_line(g, "%s%s[%s] = %s;", in ? arena_printf(arena(g), "if (%s) ", in) : "", f->cname, r1,
                        cg_convert(g, f->dtype, val));
            }
        }
    }
    g->ind--;
    cg_line(g, "}");
}

/* ---- copies without fragments: the block deals out chunks ---- */

/* The elements of a chunk of copy s: the widest aligned vector access
 * both sides allow, at most 16 bytes (1 with a local side). */
static int coop_vec(const IrStmt *s, bool local) {
    const IrRegion *src = &s->src, *dst = &s->dst;
    int64_t total = cg_region_total(src);
    if (local || src->buf->dtype != dst->buf->dtype || src->ext[src->buf->rank - 1] != dst->ext[dst->buf->rank - 1])
        return 1;
    for (int v = 16 / dtype_bytes(src->buf->dtype); v > 1; v /= 2)
        if (total % v == 0 && vector_ok(src, v) && vector_ok(dst, v)) return v;
    return 1;
}

/* The rounds of all the producer's cp.async copies into a ring slot, a
 * round of 4-byte chunks counted twice (it costs the registers of one of
 * 8 bytes for half the data: f16 rows of 2044 bytes spilled at 32). */
static int64_t ring_rounds(const IrKernel *k) {
    int64_t rounds = 0;
    for (int i = 0; i < k->ring_async_copies.len; i++) {
        const IrStmt *c = k->ring_async_copies.items[i];
        int vec = coop_vec(c, false);
        int64_t chunks = cg_region_total(&c->src) / vec;
        rounds += (chunks + k->producer_threads - 1) / k->producer_threads * (vec * dtype_bytes(c->src.buf->dtype) < 8 ? 2 : 1);
    }
    return rounds;
}

void cg_coop_copy_plan(const IrKernel *k, const IrStmt *s, CgCoopCopyPlan *p) {
    const IrRegion *src = &s->src, *dst = &s->dst;
    int64_t total = cg_region_total(src);
    bool local = src->buf->scope == SCOPE_LOCAL || dst->buf->scope == SCOPE_LOCAL;
    int vec = coop_vec(s, local);
    p->total = total;
    p->local = local;
    p->vec = vec;
    int chunk_bytes = vec * dtype_bytes(src->buf->dtype);
    bool ring = s->mech == COPY_RING_ASYNC;
    p->async = ((s->mech == COPY_CP_ASYNC && chunk_bytes == 16) || (ring && chunk_bytes >= 4)) &&
               src->buf->scope == SCOPE_GLOBAL && dst->buf->scope == SCOPE_SHARED;
    int64_t chunks = total / vec, t = local ? 1 : cg_copy_by_producer_threads(s) ? k->producer_threads : k->threads;
    p->chunks = chunks;
    p->t = t;
    p->rounds = (chunks + t - 1) / t;
    p->unroll = ring && ring_rounds(k) > 32 ? 4 : p->rounds <= 64 ? 0 : 1;
    /* Tiles whose rows are a whole number of rounds apart: each thread's
     * column is fixed and its row advances by a constant per round, so the
     * addresses are one per-thread base plus constants. */
    int64_t C = src->ext[src->buf->rank - 1];
    bool rows_form = !local && src->buf->rank >= 2 && dst->buf->rank >= 2 && (t * vec) % C == 0 && C % vec == 0;
    for (int d = 0; rows_form && d < src->buf->rank - 2; d++) rows_form = src->ext[d] == 1;
    for (int d = 0; rows_form && d < dst->buf->rank - 2; d++) rows_form = dst->ext[d] == 1;
    p->C = C;
    p->rows_form = rows_form;
    p->rpr = rows_form ? t * vec / C : 0;
    const IrRegion *sides[2] = {src, dst};
    for (int side = 0; side < 2; side++) {
        const IrRegion *r = sides[side];
        /* a shared tile starting at row 0, rows advancing by multiples of
         * 8: the swizzle only needs the thread's first row */
        p->xor_first_row[side] =
            rows_form && r->buf->scope == SCOPE_SHARED && p->rpr % 8 == 0 && r->buf->rank == 2 && !r->idx[0];
    }
}

bool cg_ring_copy_plan(const IrKernel *k, const IrStmt *c, CgCoopCopyPlan *p) {
    cg_coop_copy_plan(k, c, p);
    return p->async && p->rows_form && p->xor_first_row[1] && p->chunks % p->t == 0 && !c->src.gather;
}

static void copy_cooperative(Cg *g, IrStmt *s) {
    const IrRegion *src = &s->src, *dst = &s->dst;
    CgCoopCopyPlan p;
    cg_coop_copy_plan(g->k, s, &p);
    int64_t total = p.total, chunks = p.chunks, t = p.t, rounds = p.rounds, C = p.C, rpr = p.rpr;
    bool local = p.local, async = p.async, rows_form = p.rows_form;
    int vec = p.vec;
    if (s->mech == COPY_RING_ASYNC && !async) {
        cg_error(g, s->loc, "compiler bug: a copy the producer issues as cp.async has chunks of %d bytes",
                 vec * dtype_bytes(src->buf->dtype));
        return;
    }
    const char *tid = cg_copy_by_producer_threads(s) ? "tl_ptid" : "tid"; /* the producer's threads count from 0 */
    const char *q = cg_tmp(g, "q"), *l = cg_tmp(g, "l");
    const char *tr = NULL, *tc = NULL;
    if (rows_form) {
        tr = cg_tmp(g, "tr");
        tc = cg_tmp(g, "tc");
        cg_line(g, "const int %s = %s * %d / %lld, %s = %s * %d %% %lld;", tr, tid, vec, (long long)C, tc, tid, vec,
                (long long)C);
    }
    if (p.unroll == 0) cg_line(g, "#pragma unroll");
    else if (p.unroll > 1) cg_line(g, "#pragma unroll %d", p.unroll);
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)rounds, q);
    g->ind++;
    if (local) cg_line(g, "const long long %s = (long long)%s * %d;", l, q, vec);
    else cg_line(g, "const long long %s = (%s + (long long)%s * %lld) * %d;", l, tid, q, (long long)t, vec);
    if (!local && chunks % t) cg_line(g, "if (%s >= %lld) break;", l, (long long)total);
    char *sc[MAX_RANK], *dc[MAX_RANK], *scond, *dcond;
    const IrRegion *sides[2] = {src, dst};
    char **coords[2] = {sc, dc};
    for (int side = 0; side < 2; side++) {
        const IrRegion *r = sides[side];
        if (!rows_form) {
            region_coords(g, r, l, coords[side]);
            continue;
        }
        int rk = r->buf->rank;
        for (int d = 0; d < rk; d++) {
            const char *start = r->idx[d] ? cg_expr_str(g, r->idx[d]) : "0";
            coords[side][d] = d < rk - 2 ? arena_printf(arena(g), "(%s)", start)
                            : d == rk - 2 ? arena_printf(arena(g), "(%s + %s + %s * %lld)", start, tr, q, (long long)rpr)
                                          : arena_printf(arena(g), "(%s + %s)", start, tc);
        }
    }
    char *sref, *dref;
    for (int side = 0; side < 2; side++) {
        const IrRegion *r = sides[side];
        char **cs = coords[side], **cond = side ? &dcond : &scond, **ref = side ? &dref : &sref;
        if (p.xor_first_row[side]) {
            *cond = NULL;
            *ref = arena_printf(arena(g), "%s[%s]", r->buf->cname, cg_shared_offset_x(g, r->buf, cs, tr));
        } else {
            *ref = region_ref(g, r, cs, cond);
        }
    }
    if (async) {
        /* src-size 0 makes cp.async write zeros: chunks past the edge */
        /* with src-size 0 nothing is read, but keep the address valid anyway */
        int bytes = vec * dtype_bytes(src->buf->dtype);
        if (scond) cg_line(g, "tl_cp_async%d(tl_smem_addr(&%s), (%s) ? (const void *)&%s : (const void *)%s, %s);", bytes,
                           dref, scond, sref, src->buf->cname, scond);
        else cg_line(g, "tl_cp_async%d(tl_smem_addr(&%s), &%s, true);", bytes, dref, sref);
    } else if (vec > 1) {
        int bytes = vec * dtype_bytes(src->buf->dtype);
        const char *vt = cg_vector_type(bytes), *v = cg_tmp(g, "v");
        cg_line(g, "%s %s = %s;", vt, v, cg_vector_zero(bytes));
        cg_line(g, "if (%s) %s = *(const %s *)&%s;", scond ? scond : "true", v, vt, sref);
        cg_line(g, "if (%s) *(%s *)&%s = %s;", dcond ? dcond : "true", vt, dref, v);
    } else {
        char *val = cg_convert_elem(g, dst->buf->dtype, src->buf->dtype, sref);
        if (scond) /* zero past the source's edge, in the compute type */
            val = cg_convert(g, dst->buf->dtype,
                             arena_printf(arena(g), "((%s) ? %s(%s) : 0)", scond, cg_load_wrap(src->buf->dtype), sref));
        if (dcond) cg_line(g, "if (%s) %s = %s;", dcond, dref, val);
        else cg_line(g, "%s = %s;", dref, val);
    }
    g->ind--;
    cg_line(g, "}");
}

void cg_copy(Cg *g, IrStmt *s) {
    if (s->mech == COPY_TMA) { /* the producer warpgroup issued it */
        cg_hopper_preload_wait(g, s);
        return;
    }
    if (s->mech == COPY_TMA_STORE) {
        cg_hopper_tma_store(g, s);
        return;
    }
    if (s->mech == COPY_RING_INDEX && !g->in_producer) return; /* the producer's (cg_hopper_split) */
    bool fs = s->src.buf->scope == SCOPE_FRAGMENT, fd = s->dst.buf->scope == SCOPE_FRAGMENT;
    if (fs && fd) copy_frag_frag(g, s);
    else if (fs || fd) {
        /* local -> fragment: each thread fills its registers from its own
         * local copy (fragment -> local was staged through shared memory) */
        copy_with_frag(g, s, fs);
    } else {
        copy_cooperative(g, s);
    }
}

/* ---- fill ---- */

void cg_fill(Cg *g, IrStmt *s) {
    const IrBuf *b = s->dst.buf;
    const char *value = s->value ? cg_value_str(g, s->value, s->dst.buf->dtype) : "0";
    if (b->scope == SCOPE_FRAGMENT) {
        const char *r = cg_tmp(g, "r");
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s[%s] = %s;", r, r, (long long)b->layout.regs, r, b->cname, r,
                cg_convert(g, b->dtype, value));
        return;
    }
    int64_t total = cg_region_total(&s->dst), t = b->scope == SCOPE_LOCAL ? 1 : g->k->threads;
    const char *l = cg_tmp(g, "l");
    cg_line(g, "for (long long %s = %s; %s < %lld; %s += %lld) {", l, t == 1 ? "0" : "tid", l, (long long)total, l,
            (long long)t);
    g->ind++;
    char *coords[MAX_RANK], *cond;
    region_coords(g, &s->dst, l, coords);
    char *ref = region_ref(g, &s->dst, coords, &cond);
    if (cond) cg_line(g, "if (%s) %s = %s;", cond, ref, cg_convert(g, b->dtype, value));
    else cg_line(g, "%s = %s;", ref, cg_convert(g, b->dtype, value));
    g->ind--;
    cg_line(g, "}");
}

/* ---- atomic_add ---- */

void cg_atomic_add(Cg *g, IrStmt *s) {
    if (s->mech == COPY_TMA_STORE) { /* a TMA reduction (plan_store) */
        cg_hopper_tma_store(g, s);
        return;
    }
    const IrBuf *d = s->dst.buf;
    if (s->value) { /* one value into one element */
        char *coords[MAX_RANK], *cond;
        for (int i = 0; i < d->rank; i++) coords[i] = s->dst.idx[i] ? cg_expr_str(g, s->dst.idx[i]) : "0";
        char *ref = region_ref(g, &s->dst, coords, &cond);
        cond = cg_and(g, g->owner, cond); /* one add an iteration */
        cg_line(g, "if (%s) tl_atomic_add(&%s, %s);", cond, ref, cg_convert(g, d->dtype, cg_value_str(g, s->value, d->dtype)));
        return;
    }
    const IrBuf *f = s->src.buf;
    if (f->scope == SCOPE_FRAGMENT) {
        const char *r = cg_tmp(g, "r");
        char *fc[MAX_RANK], *valid, *coords[MAX_RANK], *cond;
        if (f->layout.kind == LAYOUT_REPLICATED) {
            /* every thread holds every element: deal them out, or each
             * would be added once per thread */
            cg_line(g, "for (int %s = tid; %s < %lld; %s += %lld) {", r, r, (long long)f->layout.regs, r,
                    (long long)g->k->threads);
            cg_frag_coords(g, f, r, fc, &valid);
            coords_from_frag(g, &s->dst, f->rank, f->shape, fc, coords);
            char *ref = region_ref(g, &s->dst, coords, &cond);
            cg_line(g, "    if (%s) tl_atomic_add(&%s, %s);", cond, ref,
                    cg_convert(g, d->dtype, arena_printf(arena(g), "%s(%s[%s])", cg_load_wrap(f->dtype), f->cname, r)));
            cg_line(g, "}");
            return;
        }
        cg_frag_coords(g, f, r, fc, &valid);
        if (f->layout.kind == LAYOUT_ROW) /* rows repeat over a quad's lanes and the warps of a row band */
            valid = arena_printf(arena(g), "lane %% 4 == 0 && warp %% %d == 0", f->layout.wn);
        coords_from_frag(g, &s->dst, f->rank, f->shape, fc, coords);
        char *ref = region_ref(g, &s->dst, coords, &cond);
        cond = cg_and(g, valid, cond);
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s)", r, r, (long long)f->layout.regs, r);
        cg_line(g, "    if (%s) tl_atomic_add(&%s, %s);", cond, ref,
                cg_convert(g, d->dtype, arena_printf(arena(g), "%s(%s[%s])", cg_load_wrap(f->dtype), f->cname, r)));
        return;
    }
    int64_t total = cg_region_total(&s->src), t = f->scope == SCOPE_LOCAL ? 1 : g->k->threads;
    const char *l = cg_tmp(g, "l");
    cg_line(g, "for (long long %s = %s; %s < %lld; %s += %lld) {", l, t == 1 ? "0" : "tid", l, (long long)total, l,
            (long long)t);
    g->ind++;
    char *sc[MAX_RANK], *dc[MAX_RANK], *scond, *dcond;
    region_coords(g, &s->src, l, sc);
    region_coords(g, &s->dst, l, dc);
    char *sref = region_ref(g, &s->src, sc, &scond);
    char *dref = region_ref(g, &s->dst, dc, &dcond);
    cg_line(g, "if (%s) tl_atomic_add(&%s, %s);", dcond, dref,
            cg_convert(g, d->dtype, arena_printf(arena(g), "%s(%s)", cg_load_wrap(f->dtype), sref)));
    g->ind--;
    cg_line(g, "}");
}
