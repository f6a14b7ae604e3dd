/* sema_race.c - the race checker of parallel loops: an element stored
 * inside `parallel` that two iterations (which run in different threads)
 * store, update or read across, where that is certain from the loop
 * variables' values (check_parallel_store). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* Whether e names sym, directly or through the lets it names. `maybe`
 * says what to answer where that cannot be told: a var or an element read
 * (whose value may be sym's, as in `var row = i; Y[row] = ...`), more
 * than *budget nodes to look at (let a2 = a1 + a1; ... doubles them).
 * Constants and the branches the specialisation never takes name nothing. */
static bool names_sym(const Node *e, const Sym *sym, bool maybe, int *budget) {
    if (!e || e->is_const) return false;
    if (--*budget < 0) return maybe;
    switch (e->kind) {
    case N_NAME: {
        if (e->sym == sym) return true;
        if (!e->sym || e->sym->broken) return false;
        /* a var declared outside sym's parallel loop cannot change in it */
        if (e->sym->kind == SYM_VAR) return maybe && e->sym->parallel_depth >= sym->parallel_depth;
        const Node *let = e->sym->kind == SYM_LET && e->sym->decl && e->sym->decl->kind == N_LET ? e->sym->decl->u.decl.value
                                                                                              : NULL;
        return names_sym(let, sym, maybe, budget);
    }
    case N_INDEX:
        if (maybe) return true; /* Y[perm[i]] */
        for (int i = 0; i < e->u.index.idx.len; i++)
            if (names_sym(e->u.index.idx.items[i], sym, maybe, budget)) return true;
        return false;
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++)
            if (names_sym(e->u.call.args.items[i], sym, maybe, budget)) return true;
        return false;
    case N_NAMED_ARG: return names_sym(e->u.named.value, sym, maybe, budget);
    case N_UNARY: return names_sym(e->u.op.a, sym, maybe, budget);
    /* (`flag == 1 && x` that the specialisation decides is a constant: check_binary) */
    case N_BINARY: return names_sym(e->u.op.a, sym, maybe, budget) || names_sym(e->u.op.b, sym, maybe, budget);
    case N_COND: {
        const Node *c = e->u.cond.c;
        if (c->is_const) /* the branch the specialisation takes */
            return names_sym(node_const_true(c) ? e->u.cond.a : e->u.cond.b, sym, maybe, budget);
        return names_sym(c, sym, maybe, budget) || names_sym(e->u.cond.a, sym, maybe, budget) ||
               names_sym(e->u.cond.b, sym, maybe, budget);
    }
    default: return maybe;
    }
}

/* An open hash table from elements (the values of an index's dims) to the
 * first value of a parallel variable that gave each. */
enum { MAX_KEY_DIMS = 8 };
typedef struct ElementTable {
    size_t slots;
    int n;
    int64_t *keys, *first;
    bool *used;
} ElementTable;

static void table_free(ElementTable *t) {
    free(t->keys);
    free(t->first);
    free(t->used);
}

/* false (nothing left allocated) where memory runs out */
static bool table_init(ElementTable *t, int64_t values, int n) {
    t->slots = (size_t)values * 2;
    t->n = n;
    t->keys = malloc(t->slots * (size_t)n * sizeof(int64_t));
    t->first = malloc(t->slots * sizeof(int64_t));
    t->used = calloc(t->slots, 1);
    if (t->keys && t->first && t->used) return true;
    table_free(t);
    return false;
}

/* The variable's value that gave key (true), or, with add, key entered for x. */
static bool table_find(ElementTable *t, const int64_t *key, bool add, int64_t x, int64_t *found) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the dims' values */
    for (int d = 0; d < t->n; d++) h = (h ^ (uint64_t)key[d]) * 1099511628211ull;
    for (size_t slot = h % t->slots;; slot = (slot + 1) % t->slots) {
        if (!t->used[slot]) {
            if (add) {
                t->used[slot] = true;
                memcpy(t->keys + slot * (size_t)t->n, key, sizeof(int64_t) * (size_t)t->n);
                t->first[slot] = x;
            }
            return false;
        }
        if (!memcmp(t->keys + slot * (size_t)t->n, key, sizeof(int64_t) * (size_t)t->n))
            return *found = t->first[slot], true;
    }
}

/* The values of dims at var = x. */
static bool element_at(const Node *const *dims, int n, const Sym *var, int64_t x, int *budget, int64_t *key) {
    for (int d = 0; d < n; d++)
        if (!value_at(dims[d], var, x, budget, &key[d])) return false;
    return true;
}

/* Two of the values xs of parallel variable var at which the store's index
 * (its dims that name var, each made of var and constants only) is the
 * same element: *x0 < *x1; false where there are none or it cannot be
 * told (an index that names anything else, more than 2^16 values, the
 * file's evaluation budget spent). */
static bool index_collides(const Node *lhs, const Sym *var, const int64_t *xs, int64_t nx, int *budget, int64_t *x0,
                           int64_t *x1) {
    if (var->range > (1 << 16) || nx < 2) return false;
    const Node *dims[MAX_KEY_DIMS];
    int n = 0;
    for (int i = 0; i < lhs->u.index.idx.len; i++) {
        const Node *e = lhs->u.index.idx.items[i];
        int names = 1 << 12;
        if (!names_sym(e, var, true, &names)) continue;
        if (n == MAX_KEY_DIMS) return false;
        dims[n++] = e;
    }
    ElementTable t;
    if (n == 0 || !table_init(&t, nx, n)) return false;
    bool known = true, found = false;
    for (int64_t i = 0; known && !found && i < nx; i++) {
        int64_t key[MAX_KEY_DIMS];
        known = element_at(dims, n, var, xs[i], budget, key);
        found = known && table_find(&t, key, true, xs[i], x0);
        if (found) *x1 = xs[i];
    }
    table_free(&t);
    return known && found;
}

/* Whether dim d of two accesses is the one value for both whatever var is:
 * the same constant, or the same name (another loop's variable). */
static bool same_dim(const Node *a, const Node *b) {
    if (a->is_const && b->is_const) return !a->const_float && !b->const_float && a->cval.i == b->cval.i;
    return a->kind == N_NAME && b->kind == N_NAME && a->sym && a->sym == b->sym;
}

typedef struct OtherRead {
    const Node *lhs;
    const Sym *var;
    const int64_t *xs;
    int64_t nx;
    int *budget;
    bool found;
    int64_t reader, writer;
} OtherRead;

/* Whether read r of the stored tensor, at var = x, is the element another
 * value of var stores: its dims and the store's are the same where they do
 * not name var, and made of var and constants where they do. */
static void check_other_read(OtherRead *o, const Node *r) {
    const NodeList *w = &o->lhs->u.index.idx, *rd = &r->u.index.idx;
    if (o->found || w->len != rd->len || o->var->range > (1 << 16)) return;
    const Node *wd[MAX_KEY_DIMS], *rdd[MAX_KEY_DIMS];
    int n = 0;
    for (int d = 0; d < w->len; d++) {
        int b1 = 1 << 12, b2 = 1 << 12;
        bool wn = names_sym(w->items[d], o->var, true, &b1), rn = names_sym(rd->items[d], o->var, true, &b2);
        if (!wn && !rn) {
            if (!same_dim(w->items[d], rd->items[d])) return;
            continue;
        }
        if (n == MAX_KEY_DIMS) return;
        wd[n] = w->items[d];
        rdd[n++] = rd->items[d];
    }
    ElementTable t;
    if (n == 0 || !table_init(&t, o->nx, n)) return;
    bool known = true;
    for (int64_t i = 0; known && i < o->nx; i++) {
        int64_t key[MAX_KEY_DIMS], ignored;
        known = element_at(wd, n, o->var, o->xs[i], o->budget, key);
        if (known) table_find(&t, key, true, o->xs[i], &ignored);
    }
    for (int64_t i = 0; known && !o->found && i < o->nx; i++) {
        int64_t key[MAX_KEY_DIMS], writer;
        known = element_at(rdd, n, o->var, o->xs[i], o->budget, key);
        if (known && table_find(&t, key, false, 0, &writer) && writer != o->xs[i]) {
            o->found = true;
            o->reader = o->xs[i];
            o->writer = writer;
        }
    }
    table_free(&t);
}

typedef struct ReadVisit {
    OtherRead *o;
    const Sym *target;
} ReadVisit;

/* Checks every read of v->target in e, through the lets e names. */
static void visit_target_reads(const Node *e, const ReadVisit *v, int *budget) {
    if (!e || e->is_const || v->o->found || --*budget < 0) return;
    switch (e->kind) {
    case N_INDEX:
        if (e->sym == v->target) check_other_read(v->o, e);
        for (int i = 0; i < e->u.index.idx.len; i++) visit_target_reads(e->u.index.idx.items[i], v, budget);
        return;
    case N_NAME:
        if (e->sym && e->sym->kind == SYM_LET && e->sym->decl && e->sym->decl->kind == N_LET)
            visit_target_reads(e->sym->decl->u.decl.value, v, budget);
        return;
    case N_UNARY: visit_target_reads(e->u.op.a, v, budget); return;
    case N_BINARY:
        visit_target_reads(e->u.op.a, v, budget);
        visit_target_reads(e->u.op.b, v, budget);
        return;
    case N_COND:
        visit_target_reads(e->u.cond.c, v, budget);
        visit_target_reads(e->u.cond.a, v, budget);
        visit_target_reads(e->u.cond.b, v, budget);
        return;
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++) visit_target_reads(e->u.call.args.items[i], v, budget);
        return;
    default: return;
    }
}

/* The values of parallel variable var that reach the statement: those
 * where every guard inside var's loop that names var holds (evaluated from
 * var alone), in a malloc'd array of *n; NULL where a guard that names var
 * cannot be evaluated so (it may pick one iteration: `if (X[i] > 0)`), or
 * var has more than 2^16 values and a guard names it. */
static int64_t *reaching_values(Sema *s, const Sym *var, int64_t *n) {
    enum { MAX_VALUES = 1 << 16 };
    const Node *conds[32];
    int senses[32], nc = 0;
    for (int g = var->range_guard; g < s->guards.len; g++) {
        int budget = 4096;
        const Node *c = s->guards.items[g];
        if (!names_sym(c, var, true, &budget)) continue;
        if (nc == 32 || (intptr_t)s->guard_senses.items[g] < 0) return NULL;
        conds[nc] = c;
        senses[nc++] = (int)(intptr_t)s->guard_senses.items[g];
    }
    if (var->range > MAX_VALUES) {
        if (nc) return NULL;
        *n = var->range; /* (not listed: only the count is used) */
        return calloc(1, 1);
    }
    int64_t *xs = malloc(sizeof(int64_t) * (size_t)var->range);
    *n = 0;
    for (int64_t x = var->range_lo; xs && x < var->range_lo + var->range; x++) {
        bool reach = true;
        for (int i = 0; i < nc && reach; i++) {
            int64_t v;
            if (!value_at(conds[i], var, x, &s->collide_budget, &v)) {
                free(xs);
                return NULL;
            }
            reach = (v != 0) == (senses[i] == 1);
        }
        if (reach) xs[(*n)++] = x;
    }
    return xs;
}

/* An element stored inside parallel loops at an index that does not move
 * with one of their variables (with more than one value): every iteration
 * along it writes the one element, and they run in different threads. With
 * `+=` and the like updates are lost; with `=` which value lands is a race
 * where the value moves with the variable (the same value from every
 * iteration is harmless). Only where that is certain: not where the index
 * may take the variable's value through a var or an element read, not
 * where a run-time condition inside the loop may pick one iteration (one
 * that names the variable, or may: `if (i == 0)`, `if (X[i] > 0)`; a
 * bounds test `if (j < N)` does not tell the i apart), not for local arrays
 * (a thread's own). */
void check_parallel_store(Sema *s, const Node *st, const Sym *target) {
    const Node *lhs = st->u.assign.lhs, *rhs = st->u.assign.rhs;
    if (s->dead || target->broken || (target->kind == SYM_BUFFER && target->scope == SCOPE_LOCAL)) return;
    for (int v = 0; v < s->parallel_vars.len; v++) {
        const Sym *var = s->parallel_vars.items[v];
        if (!var->range_known || var->range < 2) continue;
        enum { LOOK_AT = 4096 }; /* nodes, lets' values included */
        int lhs_budget = LOOK_AT, rhs_budget = LOOK_AT;
        /* the iterations the guards inside the loop let through: unknown
         * where one may tell them apart in a way that cannot be evaluated */
        int64_t nx;
        int64_t *xs = reaching_values(s, var, &nx);
        if (!xs) continue;
        bool uses = false;
        for (int i = 0; i < lhs->u.index.idx.len && !uses; i++)
            uses = names_sym(lhs->u.index.idx.items[i], var, true, &lhs_budget);
        bool update = st->u.assign.op != OP_ASSIGN;
        if (nx < 2 || (!update && !names_sym(rhs, var, false, &rhs_budget))) {
            free(xs);
            continue;
        }
        /* two iterations on one element: lost updates; with `=`, a race
         * where the values differ, known only for a value made of var and
         * constants (`y[i / 2] = x[i]` may store equal values) */
        int64_t x0, x1, v0, v1;
        int value_budget = LOOK_AT;
        bool collides = uses && index_collides(lhs, var, xs, nx, &s->collide_budget, &x0, &x1);
        /* a read of an element another iteration stores: which value it
         * reads is a race (Y[i] = Y[N - 1 - i]); not for a fragment, whose
         * other threads' elements a loop reads from a copy made before it
         * (stage_elements: rope's x[i, j] = f(x[i, j + D / 2])) */
        OtherRead other = {.lhs = lhs, .var = var, .xs = xs, .nx = nx, .budget = &s->collide_budget};
        ReadVisit rv = {.o = &other, .target = target};
        int read_budget = LOOK_AT;
        bool fragment = target->kind == SYM_BUFFER && target->scope == SCOPE_FRAGMENT;
        if (uses && !collides && !fragment) visit_target_reads(rhs, &rv, &read_budget);
        free(xs);
        if (other.found) {
            diag_error(s->c, lhs->loc,
                       "iteration %s = %lld of the parallel loop reads the element of '%s' that iteration %s = %lld "
                       "stores, and the iterations run in different threads (which value it reads is a race); read "
                       "a copy made before the loop",
                       var->name->s, (long long)other.reader, target->name->s, var->name->s, (long long)other.writer);
            return;
        }
        if (collides &&
            (update || (value_at(rhs, var, x0, &value_budget, &v0) && value_at(rhs, var, x1, &value_budget, &v1) && v0 != v1))) {
            diag_error(s->c, lhs->loc,
                       "iterations %s = %lld and %s = %lld of the parallel loop %s the same element of '%s' (its index "
                       "takes one value for both), and the iterations run in different threads (%s); index it so that "
                       "each iteration has its own element, or reduce (reduce_sum, reduce_max, atomic_add)",
                       var->name->s, (long long)x0, var->name->s, (long long)x1, update ? "update" : "write",
                       target->name->s, update ? "updates are lost" : "which value lands is a race");
            return;
        }
        if (uses) continue;
        diag_error(s->c, lhs->loc,
                   "every iteration of the parallel loop over '%s' %s this element of '%s': its index does not use '%s'%s, "
                   "and the iterations run in different threads (%s); index it by '%s', or reduce over it (reduce_sum, "
                   "reduce_max, atomic_add)",
                   var->name->s, update ? "updates" : "writes", target->name->s, var->name->s,
                   update ? "" : " while its value does", update ? "updates are lost" : "which value lands is a race",
                   var->name->s);
        return;
    }
}
