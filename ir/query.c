/* query.c - pure queries of IR and syntax-tree data that the passes and
 * code generation share: sizes of buffers, element accesses, regions,
 * layouts, and the conditionals a specialisation decided. Nothing here
 * decides anything for a pass. */
#include "ir.h"

const Node *expr_decided(const Node *e) {
    while (e && !e->is_const) {
        if (e->kind == N_COND && e->u.cond.c->is_const) {
            const Node *c = e->u.cond.c;
            e = node_const_true(c) ? e->u.cond.a : e->u.cond.b;
        } else if (e->kind == N_BINARY && (e->u.op.op == OP_LAND || e->u.op.op == OP_LOR)) {
            /* a constant side that decides would have made e constant */
            const Node *a = e->u.op.a, *b = e->u.op.b;
            if (a->is_const && !a->const_float && b->dtype == DT_BOOL) e = b;
            else if (b->is_const && !b->const_float && a->dtype == DT_BOOL && (e->u.op.op == OP_LAND) == (b->cval.i != 0))
                e = a;
            else break;
        } else {
            break;
        }
    }
    return e;
}

int64_t buf_elems(const IrBuf *b) {
    int64_t n = 1;
    for (int i = 0; i < b->rank; i++) n *= b->shape[i];
    return n;
}

int64_t buf_bytes(const IrBuf *b) { return buf_elems(b) * dtype_bytes(b->dtype); }

Dtype scan_sum_dtype(Dtype t) {
    if (t == DT_F64) return DT_F64;
    if (dtype_is_float(t)) return DT_F32;
    if (dtype_bytes(t) == 8) return t;
    return dtype_is_signed(t) ? DT_I32 : DT_U32;
}

typedef struct Uses {
    const IrBuf *buf;
    int count;
} Uses;

static void count_element(Node *e, void *arg) {
    Uses *u = arg;
    if (e->sym == u->buf->sym) u->count++;
}

static void count_uses(IrStmt *s, void *arg) {
    Uses *u = arg;
    const IrRegion *regions[] = {&s->src, &s->dst, &s->a, &s->b, &s->c};
    for (int i = 0; i < 5; i++)
        if (regions[i]->buf == u->buf || regions[i]->gather == u->buf) u->count++;
    expr_visit_indices(s->value, count_element, u);
    expr_visit_indices(s->target, count_element, u);
}

int buf_use_count(IrBlock *b, const IrBuf *buf) {
    Uses u = {.buf = buf};
    ir_walk(b, count_uses, &u);
    return u.count;
}

typedef struct Written {
    const IrBuf *buf;
    bool yes;
} Written;

static void note_write(IrStmt *s, void *arg) {
    Written *w = arg;
    const IrRegion *out = s->op == IR_SCAN && !s->dst.buf ? &s->src : s->op == IR_GEMM ? &s->c : &s->dst;
    if (out->buf == w->buf) w->yes = true;
    if ((s->op == IR_STORE || s->op == IR_ATOMIC) && s->target->kind == N_INDEX && s->target->sym == w->buf->sym)
        w->yes = true;
}

bool buf_written_in(IrBlock *b, const IrBuf *buf) {
    Written w = {buf, false};
    ir_walk(b, note_write, &w);
    return w.yes;
}

void expr_visit_indices(Node *e, IndexVisit fn, void *arg) {
    if (!e) return;
    switch (e->kind) {
    case N_INDEX:
        fn(e, arg);
        for (int i = 0; i < e->u.index.idx.len; i++) expr_visit_indices(e->u.index.idx.items[i], fn, arg);
        break;
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++) expr_visit_indices(e->u.call.args.items[i], fn, arg);
        break;
    case N_NAMED_ARG: expr_visit_indices(e->u.named.value, fn, arg); break;
    case N_UNARY: expr_visit_indices(e->u.op.a, fn, arg); break;
    case N_BINARY:
        expr_visit_indices(e->u.op.a, fn, arg);
        expr_visit_indices(e->u.op.b, fn, arg);
        break;
    case N_COND:
        expr_visit_indices(e->u.cond.c, fn, arg);
        expr_visit_indices(e->u.cond.a, fn, arg);
        expr_visit_indices(e->u.cond.b, fn, arg);
        break;
    case N_SLICE:
        expr_visit_indices(e->u.slice.lo, fn, arg);
        expr_visit_indices(e->u.slice.hi, fn, arg);
        break;
    default: break;
    }
}

const Node *expr_find(const Node *e, ExprPred pred, const void *arg) {
    if (!e) return NULL;
    if (pred(e, arg)) return e;
    const Node *kids[3] = {0};
    switch (e->kind) {
    case N_INDEX:
        for (int i = 0; i < e->u.index.idx.len; i++) {
            const Node *f = expr_find(e->u.index.idx.items[i], pred, arg);
            if (f) return f;
        }
        return NULL;
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++) {
            const Node *f = expr_find(e->u.call.args.items[i], pred, arg);
            if (f) return f;
        }
        return NULL;
    case N_NAMED_ARG: kids[0] = e->u.named.value; break;
    case N_UNARY: kids[0] = e->u.op.a; break;
    case N_BINARY: kids[0] = e->u.op.a, kids[1] = e->u.op.b; break;
    case N_COND: kids[0] = e->u.cond.c, kids[1] = e->u.cond.a, kids[2] = e->u.cond.b; break;
    case N_SLICE: kids[0] = e->u.slice.lo, kids[1] = e->u.slice.hi; break;
    default: return NULL;
    }
    for (int i = 0; i < 3; i++) {
        const Node *f = expr_find(kids[i], pred, arg);
        if (f) return f;
    }
    return NULL;
}

bool expr_any(const Node *e, ExprPred pred, const void *arg) { return expr_find(e, pred, arg) != NULL; }

bool block_any_expr(const IrBlock *b, ExprPred pred, const void *arg) {
    for (int i = 0; i < b->len; i++) {
        const IrStmt *s = b->items[i];
        if (expr_any(s->value, pred, arg) || expr_any(s->compare, pred, arg) || expr_any(s->target, pred, arg))
            return true;
        if (block_any_expr(&s->body, pred, arg) || block_any_expr(&s->els, pred, arg)) return true;
    }
    return false;
}

void block_visit_indices(IrBlock *b, IndexVisit fn, void *arg) {
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        expr_visit_indices(s->value, fn, arg);
        expr_visit_indices(s->compare, fn, arg);
        expr_visit_indices(s->target, fn, arg);
        for (int a = 0; a < s->print_args.len; a++) expr_visit_indices(s->print_args.items[a], fn, arg);
        block_visit_indices(&s->body, fn, arg);
        block_visit_indices(&s->els, fn, arg);
    }
}

bool layout_equal(const Layout *a, const Layout *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case LAYOUT_ACC: return a->wm == b->wm && a->wn == b->wn && a->wtm == b->wtm && a->wtn == b->wtn;
    /* a row layout only depends on how warps split the rows */
    case LAYOUT_ROW: return a->wm == b->wm && a->wn == b->wn && a->wtm == b->wtm;
    case LAYOUT_BLOCKED: return a->vec == b->vec && a->chunks == b->chunks && a->pitch == b->pitch;
    default: return true;
    }
}

const char *layout_describe(Ctx *c, const Layout *l) {
    switch (l->kind) {
    case LAYOUT_ACC:
        return arena_printf(&c->arena, "the mma accumulator layout with %dx%d warps of %lldx%lld", l->wm, l->wn,
                            (long long)l->wtm, (long long)l->wtn);
    case LAYOUT_ROW:
        return arena_printf(&c->arena, "one value per row of a %dx%d-warp mma accumulator", l->wm, l->wn);
    case LAYOUT_BLOCKED:
        return l->pitch ? arena_printf(&c->arena, "a blocked layout (%d elements per chunk, rows padded to %lld)", l->vec,
                                       (long long)l->pitch)
                        : arena_printf(&c->arena, "a blocked layout (%d elements per chunk)", l->vec);
    case LAYOUT_REPLICATED: return "a replicated layout (every thread holds every element)";
    default: return "no layout";
    }
}

bool buf_dim_dynamic(const IrBuf *b, int d) { return b->scope == SCOPE_GLOBAL && b->dyn[d] != NULL; }

bool buf_dim_multiple_of(const IrBuf *b, int d, int64_t m) {
    if (m <= 1) return true;
    return buf_dim_dynamic(b, d) ? b->dyn[d]->divisor % m == 0 : b->shape[d] % m == 0;
}

bool buf_row_bytes_multiple_of(const IrBuf *b, int64_t bytes) {
    int last = b->rank - 1;
    int64_t unit = buf_dim_dynamic(b, last) ? b->dyn[last]->divisor : b->shape[last];
    return unit * dtype_bytes(b->dtype) % bytes == 0;
}

bool kernel_grid_dynamic(const IrKernel *k) { return k->grid[0] < 0 || k->grid[1] < 0 || k->grid[2] < 0; }

bool expr_is_zero(const Node *e) { return !e || (e->is_const && !e->const_float && e->cval.i == 0); }

int region_lead(const IrRegion *r, int rank, const int64_t *shape) {
    int lead = r->buf->rank - rank;
    if (lead < 0) return -1;
    for (int d = 0; d < lead; d++)
        if (r->ext[d] != 1) return -1;
    for (int d = 0; d < rank; d++)
        if (r->ext[lead + d] != shape[d]) return -1;
    return lead;
}

bool region_is_whole(const IrRegion *r) {
    for (int d = 0; d < r->buf->rank; d++)
        if (!expr_is_zero(r->idx[d]) || r->ext[d] != r->buf->shape[d] || buf_dim_dynamic(r->buf, d)) return false;
    return true;
}

int region_row_dim(const IrRegion *r) {
    for (int d = r->buf->rank - 2; d >= 0; d--)
        if (r->ext[d] != 1) return d;
    return r->buf->rank - 2;
}

int64_t gemm_k(const IrStmt *s) { return s->a.buf->shape[s->trans_a ? 0 : 1]; }

bool block_has_gemm(const IrBlock *b) {
    for (int i = 0; i < b->len; i++) {
        const IrStmt *s = b->items[i];
        if (s->op == IR_GEMM || block_has_gemm(&s->body) || block_has_gemm(&s->els)) return true;
    }
    return false;
}
