/* lower_parallel.c - parallel loops: each thread runs the iterations whose
 * elements it holds. With a driving fragment that means its registers (an
 * unrolled loop, so register indices are constants); without one, the
 * iterations are dealt round-robin, consecutive threads taking consecutive
 * elements so global accesses coalesce. */
#include <stdint.h>
#include <string.h>

#include "codegen.h"

/* mma.sync m16n8k16 accumulator: lane = 4 * g + t holds rows g and g + 8,
 * columns 2t and 2t + 1 of each 16x8 tile. With or_parity the column's
 * last term (the register's parity) is or-ed instead of added (the rest
 * is even): see halves_column. */
static void acc_coords(Cg *g, const Layout *l, const char *reg, char **coords, bool or_parity) {
    Arena *a = &g->k->c->arena;
    coords[0] = arena_printf(a, "(warp / %d * %lld + (%s) / %d * 16 + ((%s) / 2 %% 2) * 8 + lane / 4)", l->wn,
                             (long long)l->wtm, reg, l->ni * 4, reg);
    coords[1] = arena_printf(a, "(warp %% %d * %lld + (%s) / 4 %% %d * 8 + (lane %% 4) * 2 %s (%s) %% 2)", l->wn,
                             (long long)l->wtn, reg, l->ni, or_parity ? "|" : "+", reg);
}

/* Coordinates of register `reg` (a C expression, constant after unrolling). */
void cg_frag_coords(Cg *g, const IrBuf *b, const char *reg, char **coords, char **valid) {
    Arena *a = &g->k->c->arena;
    const Layout *l = &b->layout;
    *valid = NULL;
    switch (l->kind) {
    case LAYOUT_ACC:
        acc_coords(g, l, reg, coords, false);
        return;
    case LAYOUT_ROW:
        coords[0] = arena_printf(a, "(warp / %d * %lld + (%s) / 2 * 16 + (%s) %% 2 * 8 + lane / 4)", l->wn,
                                 (long long)l->wtm, reg, reg);
        return;
    case LAYOUT_BLOCKED: {
        int64_t total = buf_elems(b), t = g->k->threads;
        char *e = arena_printf(a, "((tid + (%s) / %d * %lld) * %d + (%s) %% %d)", reg, l->vec, (long long)t, l->vec,
                               reg, l->vec);
        if (l->pitch) {
            /* rows padded to the pitch: the padding is no element */
            int64_t cols = b->shape[b->rank - 1];
            *valid = arena_printf(a, "%s %% %lld < %lld", e, (long long)l->pitch, (long long)cols);
            coords[b->rank - 1] = arena_printf(a, "(%s %% %lld)", e, (long long)l->pitch);
            char *row = arena_printf(a, "(%s / %lld)", e, (long long)l->pitch);
            for (int d = b->rank - 2; d >= 0; d--) {
                int64_t inner = 1;
                for (int j = d + 1; j < b->rank - 1; j++) inner *= b->shape[j];
                coords[d] = d == 0 ? arena_printf(a, "(%s / %lld)", row, (long long)inner)
                                   : arena_printf(a, "(%s / %lld %% %lld)", row, (long long)inner, (long long)b->shape[d]);
            }
            return;
        }
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

char *cg_frag_linear(Cg *g, const IrBuf *b, char **coords) {
    char *lin = b->rank ? coords[0] : "0";
    for (int d = 1; d < b->rank; d++)
        lin = arena_printf(&g->k->c->arena, "(%s) * %lld + %s", lin, (long long)b->shape[d], coords[d]);
    return lin;
}

/* ---- vectorised loops over global tensors ----
 * A loop with no driving fragment whose global accesses all step by one
 * element with its innermost variable (X[.., base + i]) runs V consecutive
 * iterations per thread: every such access becomes one 16-byte (or
 * narrower) vector load before the V iterations or one vector store after
 * them, and one bounds test per vector. That is sound when the V elements
 * of an access lie wholly inside or wholly outside the tensor (base, the
 * tensor's last dimension and the loop's innermost extent are multiples of
 * V), when no tensor is both read and written by the loop (a read hoisted
 * above the V iterations would miss a write of an earlier one), and when
 * every iteration writes its vector lanes (the body is assignments and
 * lets only). Loops that index shared memory with the innermost variable
 * keep the element-wise dealing their swizzle was chosen for. */

static bool names_sym(const Node *e, const void *v) { return e->kind == N_NAME && e->sym == v; }
static bool is_access(const Node *e, const void *arg) { return (void)arg, e->kind == N_INDEX; }
static bool mentions(const Node *e, const Sym *v) { return expr_any(e, names_sym, v); }
static bool has_access(const Node *e) { return expr_any(e, is_access, NULL); }

/* Whether e names a let of the body that cannot be hoisted. */
static bool mentions_lane_let(const Node *e, const CgVecPlan *p) {
    for (int i = 0; i < p->nlet; i++)
        if (!p->hoist[i] && mentions(e, p->let[i]->sym)) return true;
    return false;
}

/* Whether e is `iv + terms` (a sum in any order, minus allowed on the
 * terms) whose other terms, free of iv, are multiples of v. */
static bool unit_step(const Node *e, const Sym *iv, int64_t v, bool *seen) {
    if (e->kind == N_NAME && e->sym == iv && !*seen) return *seen = true;
    if (!mentions(e, iv)) return expr_multiple_of(e, v);
    if (e->kind != N_BINARY) return false;
    if (e->u.op.op == OP_ADD) return unit_step(e->u.op.a, iv, v, seen) && unit_step(e->u.op.b, iv, v, seen);
    if (e->u.op.op == OP_SUB)
        return !mentions(e->u.op.b, iv) && unit_step(e->u.op.a, iv, v, seen) && expr_multiple_of(e->u.op.b, v);
    return false;
}

static void note_access(Node *e, void *arg) {
    CgVecPlan *p = arg;
    if (!p->ok || !e->sym || !mentions(e, p->iv)) return;
    /* shared memory's swizzle was chosen for the iterations dealt one by
     * one (consecutive threads, consecutive elements); V-strided lanes
     * would meet in the same banks */
    if (e->sym->kind == SYM_BUFFER && e->sym->scope == SCOPE_SHARED) p->ok = false;
    if (e->sym->kind != SYM_TENSOR) return;
    for (int i = 0; i < p->n; i++)
        if (p->acc[i] == e) return;
    if (p->n == CG_MAX_LANE_ACCESSES) {
        p->ok = false;
        return;
    }
    p->acc[p->n++] = e;
}

/* The vector width for loop s (0: run it element by element). */
int cg_vector_width(const IrKernel *k, IrStmt *s, CgVecPlan *p) {
    if (s->driver || s->nvars < 1) return 0;
    *p = (CgVecPlan){.iv = s->vars[s->nvars - 1], .ok = true};
    for (int i = 0; i < s->body.len && p->ok; i++) {
        IrStmt *b = s->body.items[i];
        if (b->op == IR_STORE && b->target->kind == N_INDEX && b->target->sym->kind == SYM_TENSOR) {
            int before = p->n;
            note_access(b->target, p);
            /* a store every lane must make, to its own element */
            if (b->assign_op != OP_ASSIGN || p->n != before + 1) p->ok = false;
            else p->store[before] = true;
        } else if (b->op == IR_LET && p->nlet < CG_MAX_LANE_ACCESSES) {
            p->let[p->nlet] = b;
            p->hoist[p->nlet] = !mentions(b->value, p->iv) && !has_access(b->value) && !mentions_lane_let(b->value, p);
            p->nlet++;
        } else if (b->op != IR_STORE || b->target->kind != N_INDEX) {
            p->ok = false; /* control flow, a var, more lets than we track */
        }
        expr_visit_indices(b->value, note_access, p);
        if (b->target && b->target->kind == N_INDEX)
            for (int d = 0; d < b->target->u.index.idx.len; d++)
                expr_visit_indices(b->target->u.index.idx.items[d], note_access, p);
    }
    if (!p->ok || p->n == 0) return 0;
    int widest = 1;
    for (int i = 0; i < p->n; i++) {
        const Node *e = p->acc[i];
        const IrBuf *b = ir_buf_of((IrKernel *)k, e->sym);
        int last = e->u.index.idx.len - 1;
        for (int d = 0; d <= last; d++) {
            const Node *ix = e->u.index.idx.items[d];
            if (has_access(ix) || mentions_lane_let(ix, p) || (d < last && mentions(ix, p->iv))) return 0;
        }
        for (int j = 0; j < p->n; j++) /* read and written by the loop */
            if (p->store[i] != p->store[j] && p->acc[j]->sym == e->sym) return 0;
        if (dtype_bytes(b->dtype) > widest) widest = dtype_bytes(b->dtype);
    }
    for (int v = 16 / widest; v >= 2; v /= 2) {
        bool fits = s->extents[s->nvars - 1] % v == 0;
        for (int i = 0; i < p->n && fits; i++) {
            const Node *e = p->acc[i];
            const IrBuf *b = ir_buf_of((IrKernel *)k, e->sym);
            bool seen = false;
            fits = buf_dim_multiple_of(b, b->rank - 1, v) && unit_step(e->u.index.idx.items[b->rank - 1], p->iv, v, &seen) && seen;
        }
        if (fits) return v;
    }
    return 0;
}

/* Loads the vectors (lane 0 at the chunk's first iteration, its variables
 * already bound), binds every access to its lane `lane`. */
static void vector_accesses(Cg *g, const CgVecPlan *p, int v, const char *lane, const char **var, char **cond,
                            char **ref) {
    Arena *a = &g->k->c->arena;
    for (int i = 0; i < p->n; i++) {
        const Node *e = p->acc[i];
        const IrBuf *b = ir_buf_of(g->k, e->sym);
        char *coords[MAX_RANK];
        for (int d = 0; d < b->rank; d++) coords[d] = cg_expr_str(g, e->u.index.idx.items[d]);
        cond[i] = cg_global_inbounds(g, b, coords);
        ref[i] = arena_printf(a, "%s[%s]", b->cname, cg_global_offset(g, b, coords));
        var[i] = NULL;
        for (int j = 0; j < i; j++) /* the same element twice: one vector */
            if (p->store[j] == p->store[i] && !strcmp(ref[j], ref[i])) var[i] = var[j];
        int bytes = v * dtype_bytes(b->dtype);
        if (!var[i]) {
            var[i] = cg_tmp(g, p->store[i] ? "w" : "v");
            cg_line(g, "union { %s v; %s e[%d]; } %s;", cg_vector_type(bytes), cg_storage_type(b->dtype), v, var[i]);
            if (!p->store[i]) {
                cg_line(g, "%s.v = %s;", var[i], cg_vector_zero(bytes));
                cg_line(g, "if (%s) %s.v = *(const %s *)&%s;", cond[i], var[i], cg_vector_type(bytes), ref[i]);
            }
        }
        g->lane_node[g->nlane] = e;
        g->lane_ref[g->nlane++] = arena_printf(a, "%s.e[%s]", var[i], lane);
    }
}

bool cg_opaque_thread_index(int loops, int64_t rounds) { return loops > 0 && rounds >= 8; }

bool cg_deal_fits_int(int64_t rounds, int64_t threads, int per) { return rounds * threads * per <= INT32_MAX; }

/* Iterations dealt to the threads `per` at a time (consecutive threads
 * taking consecutive groups, so global accesses coalesce): opens the loop
 * over a thread's rounds and defines the loop variables at the group's
 * first iteration; the caller closes it. */
static void deal_rounds(Cg *g, IrStmt *s, int per) {
    int64_t total = 1, t = g->k->threads;
    for (int i = 0; i < s->nvars; i++) total *= s->extents[i];
    int64_t groups = total / per, rounds = (groups + t - 1) / t;
    const char *q = cg_tmp(g, "q"), *e = cg_tmp(g, "e"), *tid = "tid";
    if (cg_opaque_thread_index(g->loops, rounds)) {
        tid = cg_tmp(g, "tid");
        cg_line(g, "const int %s = tl_opaque(tid);  // addresses made here, not hoisted out of the loop", tid);
        /* the range the move hid: divisions by powers of two stay shifts */
        cg_line(g, "__builtin_assume(%s >= 0 && %s < %lld);", tid, tid, (long long)t);
    }
    if (rounds <= 64) cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", q, q, (long long)rounds, q);
    g->ind++;
    /* 32-bit arithmetic where the iterations' numbers fit */
    bool fits = cg_deal_fits_int(rounds, t, per);
    const char *et = fits ? "int" : "long long", *wide = fits ? "" : "(long long)";
    if (per == 1)
        cg_line(g, "const %s %s = %s + %s%s * %lld;", et, e, tid, wide, q, (long long)t);
    else
        cg_line(g, "const %s %s = (%s + %s%s * %lld) * %d;  // %d iterations a thread, one vector an access",
                et, e, tid, wide, q, (long long)t, per, per);
    if (groups % t) cg_line(g, "if (%s >= %lld) break;", e, (long long)total);
    int64_t inner = 1;
    for (int i = s->nvars - 1; i >= 0; i--) {
        const char *v = ir_sym_cname(g->k->c, s->vars[i]);
        if (i == 0) cg_line(g, "const int %s = (int)(%s / %lld);", v, e, (long long)inner);
        else cg_line(g, "const int %s = (int)(%s / %lld %% %lld);", v, e, (long long)inner, (long long)s->extents[i]);
        inner *= s->extents[i];
    }
}

/* One round of a vectorised loop (inside deal_rounds(g, s, v)): the vector
 * loads, the body once a lane, the vector stores. */
static void vector_round(Cg *g, IrStmt *s, const CgVecPlan *p, int v) {
    Arena *a = &g->k->c->arena;
    const char *l = cg_tmp(g, "l");
    const char *var[CG_MAX_LANE_ACCESSES];
    char *cond[CG_MAX_LANE_ACCESSES], *ref[CG_MAX_LANE_ACCESSES];
    int saved_lanes = g->nlane;
    for (int i = 0; i < p->nlet; i++)
        if (p->hoist[i]) cg_let(g, p->let[i]);
    vector_accesses(g, p, v, l, var, cond, ref);
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %d; ++%s) {", l, l, v, l);
    g->ind++;
    /* the lane's own value of the innermost variable */
    g->bind_sym[g->nbind] = s->vars[s->nvars - 1];
    g->bind_expr[g->nbind++] = arena_printf(a, "(%s + %s)", ir_sym_cname(g->k->c, s->vars[s->nvars - 1]), l);
    IrBlock lane_body = {.items = arena_alloc(a, sizeof(IrStmt *) * (size_t)s->body.len)};
    for (int i = 0; i < s->body.len; i++) {
        bool hoisted = false;
        for (int j = 0; j < p->nlet; j++) hoisted |= p->hoist[j] && p->let[j] == s->body.items[i];
        if (!hoisted) lane_body.items[lane_body.len++] = s->body.items[i];
    }
    cg_block(g, &lane_body);
    g->nbind--;
    g->ind--;
    cg_line(g, "}");
    g->nlane = saved_lanes;
    for (int i = 0; i < p->n; i++) {
        bool first = true;
        for (int j = 0; j < i; j++) first &= var[j] != var[i];
        if (p->store[i] && first)
            cg_line(g, "if (%s) *(%s *)&%s = %s.v;", cond[i], cg_vector_type(v * dtype_bytes(ir_buf_of(g->k, p->acc[i]->sym)->dtype)),
                    ref[i], var[i]);
    }
}

/* The thread that owns register `reg`'s element of fragment d for the
 * effects no other thread may repeat (Cg.owner), or NULL when d's layout
 * gives every element one thread: of a replicated fragment, element r's
 * owner is thread r mod threads (spreading the stores); of the row layout,
 * the first lane of the quad in the first warp of the row band. */
const char *cg_element_owner(Cg *g, const IrBuf *d, const char *reg) {
    Arena *a = &g->k->c->arena;
    if (d->layout.kind == LAYOUT_REPLICATED)
        return arena_printf(a, "(%s) %% %lld == tid", reg, (long long)g->k->threads);
    if (d->layout.kind == LAYOUT_ROW) return arena_printf(a, "lane %% 4 == 0 && warp %% %d == 0", d->layout.wn);
    return NULL;
}

/* Whether e divides `column` (or takes it modulo) by an even number. An
 * accumulator-layout loop whose body does gets its columns with the parity
 * or-ed (acc_coords): NVVM then sees that columns 2t and 2t + 1 share
 * c / 2 (W4A16's packed byte: one load, not two). Not everywhere: an or
 * keeps NVVM from folding the sum into addresses' offsets (gemm and
 * attention epilogues grew by up to 10 % of their instructions). */
static bool halves_column(const Node *e, const void *column) {
    if (e->kind != N_BINARY || (e->u.op.op != OP_DIV && e->u.op.op != OP_MOD)) return false;
    const Node *a = e->u.op.a, *b = e->u.op.b;
    return a->kind == N_NAME && a->sym == column && b->is_const && !b->const_float && b->cval.i > 0 &&
           b->cval.i % 2 == 0;
}

void cg_parallel(Cg *g, IrStmt *s) {
    const IrBuf *d = s->driver;
    const char *saved_reg = g->reg;
    const IrBuf *saved_driver = g->driver;
    const IrStmt *saved_par = g->par;
    const char *saved_owner = g->owner;
    int saved_bind = g->nbind, vw = 0;
    CgVecPlan plan;
    cg_line(g, "{");
    g->ind++;
    if (d) {
        const char *r = cg_tmp(g, "r");
        char *coords[MAX_RANK], *valid;
        if (d->layout.kind == LAYOUT_ACC && s->nvars == 2 && block_any_expr(&s->body, halves_column, s->vars[1])) {
            acc_coords(g, &d->layout, r, coords, true);
            valid = NULL;
        } else {
            cg_frag_coords(g, d, r, coords, &valid);
        }
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", r, r, (long long)d->layout.regs, r);
        g->ind++;
        if (valid) cg_line(g, "if (!(%s)) continue;", valid);
        for (int i = 0; i < s->nvars; i++) {
            const char *v = ir_sym_cname(g->k->c, s->vars[i]);
            cg_line(g, "const int %s = %s;", v, coords[i]);
        }
        g->driver = d;
        g->par = s;
        g->reg = r;
        g->owner = cg_element_owner(g, d, r);
    } else {
        vw = cg_vector_width(g->k, s, &plan);
        deal_rounds(g, s, vw ? vw : 1);
        g->driver = NULL;
        g->par = s; /* each iteration one thread's */
        g->reg = NULL;
        g->owner = NULL;
    }
    if (vw) vector_round(g, s, &plan, vw);
    else cg_block(g, &s->body);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
    g->driver = saved_driver;
    g->par = saved_par;
    g->owner = saved_owner;
    g->reg = saved_reg;
    g->nbind = saved_bind;
}
