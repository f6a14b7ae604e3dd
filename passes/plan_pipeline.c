/* plan_pipeline.c - software pipelining of `pipelined(n, stages)` loops.
 *
 * Copies from global into shared memory at the top level of the loop body,
 * whose source depends only on the loop variable, values from outside the
 * loop and the loop's top-level lets made of those (IrStmt.producer_too:
 * code generation evaluates them for the iteration a copy is issued for),
 * become the loop's producers: code generation issues them
 * `stages - 1` iterations ahead into a ring of `stages` shared buffers
 * (cp.async on sm_80+, completed by commit groups), so the tensor cores
 * work on one stage while the next ones are in flight. */
#include <string.h>

#include "passes.h"

typedef struct Defs {
    Sym *syms[256];
    int n;
} Defs;

/* The names the loop body defines or changes: its lets, vars and loop
 * variables, and the vars from outside that it assigns (`off += BK`: a
 * copy issued ahead would read the value of an earlier iteration). */
static void collect_defs(IrStmt *s, void *arg) {
    Defs *d = arg;
    if ((s->op == IR_LET || s->op == IR_VAR || s->op == IR_FOR) && s->sym && d->n < 256) d->syms[d->n++] = s->sym;
    if (s->op == IR_STORE && s->target->kind == N_NAME && d->n < 256) d->syms[d->n++] = s->target->sym;
    for (int i = 0; s->op == IR_PARALLEL && i < s->nvars && d->n < 256; i++) d->syms[d->n++] = s->vars[i];
}

static void forget(Defs *d, const Sym *sym) {
    for (int i = 0; i < d->n; i++)
        if (d->syms[i] == sym) d->syms[i] = NULL;
}

/* A name the loop defines, or a memory read (the loop may change it). */
static bool loop_dependent(const Node *e, const void *arg) {
    const Defs *d = arg;
    if (e->kind == N_INDEX) return true;
    if (e->kind != N_NAME) return false;
    for (int i = 0; i < d->n; i++)
        if (e->sym == d->syms[i]) return true;
    return false;
}

static bool uses_any(const Node *e, const Defs *d) { return expr_any(e, loop_dependent, d); }

/* 16-byte cp.async needs every chunk contiguous and aligned: whole 16-byte
 * pieces of rows in both the tensor and the tile. NULL, or why not. */
static const char *cp_async_why_not(const IrKernel *k, const IrStmt *c) {
    const IrBuf *g = c->src.buf;
    int eb = dtype_bytes(g->dtype), vec = 16 / eb;
    if (k->arch < 80) return "cp.async needs sm_80";
    if (g->dtype != c->dst.buf->dtype) return "it converts between dtypes";
    int last = g->rank - 1;
    if (!buf_row_bytes_multiple_of(g, 16)) return "the tensor's rows are not whole 16-byte units";
    if (c->src.ext[last] % vec != 0) return "the tile's rows are not whole 16-byte units";
    /* the start of the row piece must be a multiple of vec elements */
    if (!expr_multiple_of(c->src.idx[last], vec))
        return "its column start is not provably a multiple of 16 bytes (write it as a multiple of a constant)";
    return NULL;
}

static void plan_loop(IrKernel *k, IrStmt *loop) {
    Defs defs = {0};
    defs.syms[defs.n++] = NULL; /* placeholder so the loop variable is not a def */
    ir_walk(&loop->body, collect_defs, &defs);
    /* top-level lets of the loop variable and outside values (`let k0 =
     * k * BK`): the issue of a copy ahead evaluates them for its iteration.
     * Among the body's first IR_MAX_LOOP_LETS lets, as plan_warpgroups
     * counts them, so that the two passes mark no more than that. */
    for (int i = 0, n = 0; i < loop->body.len && n < IR_MAX_LOOP_LETS; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op != IR_LET) continue;
        n++;
        if (uses_any(s->value, &defs)) continue;
        forget(&defs, s->sym);
        s->producer_too = true;
    }
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op != IR_COPY || s->src.buf->scope != SCOPE_GLOBAL || s->dst.buf->scope != SCOPE_SHARED) continue;
        if (copy_by_producer(s)) continue; /* planned by plan_warpgroups */
        const Node *dep = NULL;
        for (int d = 0; d < s->src.buf->rank && !dep; d++)
            if (s->src.idx[d]) dep = expr_find(s->src.idx[d], loop_dependent, &defs);
        if (!dep && s->src.gather && buf_written_in(&loop->body, s->src.gather)) {
            s->not_pipelined = arena_printf(&k->c->arena, "its rows come from '%s', which the loop writes",
                                            s->src.gather->sym->name->s);
            continue;
        }
        if (dep) {
            s->not_pipelined = dep->kind == N_INDEX
                ? arena_printf(&k->c->arena, "its corner reads memory ('%s[...]'), which an earlier iteration may change",
                               dep->sym ? dep->sym->name->s : "?")
                : arena_printf(&k->c->arena, "its corner uses '%s', which the loop's body sets", dep->sym->name->s);
            continue;
        }
        /* The ring of buffers is private to this copy: nothing else may
         * write it, and nothing outside the loop may read it. */
        if (buf_use_count(&k->body, s->dst.buf) != buf_use_count(&loop->body, s->dst.buf)) {
            s->not_pipelined = arena_printf(&k->c->arena, "'%s' is used outside the loop too", s->dst.buf->sym->name->s);
            continue;
        }
        bool written_elsewhere = false;
        for (int j = 0; j < loop->body.len; j++) {
            IrStmt *o = loop->body.items[j];
            if (o != s && o->op == IR_COPY && o->dst.buf == s->dst.buf) written_elsewhere = true;
        }
        if (written_elsewhere) {
            s->not_pipelined = arena_printf(&k->c->arena, "another copy in the loop writes '%s' too", s->dst.buf->sym->name->s);
            continue;
        }
        s->pipeline = loop;
        s->not_async = cp_async_why_not(k, s);
        s->mech = s->not_async ? COPY_SYNC : COPY_CP_ASYNC;
        s->dst.buf->stages = loop->stages;
    }
}

static void visit(IrStmt *s, void *arg) {
    if (s->op == IR_FOR && s->loop == LOOP_PIPELINED) plan_loop(arg, s);
}

void pass_plan_pipeline(IrKernel *k) { ir_walk(&k->body, visit, k); }
