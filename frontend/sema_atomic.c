/* sema_atomic.c - atomics on one element that return its old value
 * (LANGUAGE.md §8): `let old = atomic_cas(lock[g], 0, 1);`, and
 * atomic_max/min/exch/cas as statements. The element is one of a global
 * tensor the kernel writes; outside a parallel loop the block makes the
 * atomic once (every thread gets the old value), inside one each iteration
 * makes its own. The old value goes into a let, whole: an atomic is an
 * effect, so it may not hide inside a larger expression, where C would
 * leave its order open. (atomic_add of a tile or of one value in a
 * parallel loop, returning nothing, is a tile operation: sema_ops.c.) */
#include <string.h>

#include "sema.h"

static const char *const atomic_names[] = {"atomic_add", "atomic_max", "atomic_min", "atomic_exch", "atomic_cas", NULL};

bool is_atomic_name(const Name *n) {
    for (int i = 0; n && atomic_names[i]; i++)
        if (!strcmp(n->s, atomic_names[i])) return true;
    return false;
}

/* The dtypes the hardware's atomics (or tilec's compare-and-swap loops
 * for float maxima and minima) take. */
static bool dtype_ok(const char *op, Dtype t) {
    bool word = t == DT_I32 || t == DT_U32 || t == DT_I64 || t == DT_U64;
    if (!strcmp(op, "atomic_cas")) return word;
    return word || t == DT_F32 || t == DT_F64;
}

bool check_atomic(Sema *s, Node *call, bool stmt) {
    const char *op = call->u.call.name->s;
    bool cas = !strcmp(op, "atomic_cas");
    NodeList *args = &call->u.call.args;
    if (s->mode != EM_BODY) {
        diag_error(s->c, call->loc, "%s belongs in a kernel's body", op);
        return false;
    }
    if (!stmt && call != s->let_value) {
        diag_error(s->c, call->loc, "bind the old value of %s with a let of its own (let old = %s(...);)", op, op);
        return false;
    }
    int want = cas ? 3 : 2;
    if (args->len != want) {
        diag_error(s->c, call->loc, "%s takes %d arguments, %s, not %d", op, want,
                   cas ? "an element, the value to compare and the new value" : "an element and a value", args->len);
        return false;
    }
    for (int i = 0; i < args->len; i++)
        if (args->items[i]->kind == N_NAMED_ARG) {
            diag_error(s->c, args->items[i]->loc, "the arguments of %s are positional", op);
            return false;
        }
    Node *dst = args->items[0];
    Sym *t = dst->kind == N_INDEX ? sym_lookup(dst->u.index.name) : dst->kind == N_NAME ? sym_lookup(dst->u.name) : NULL;
    if (!t || t->kind != SYM_TENSOR || dst->kind != N_INDEX) {
        diag_error(s->c, dst->loc, "%s works on one element of a global tensor: %s(T[i], ...)%s", op, op,
                   cas ? "" : "; on a whole tile, atomic_add(T[...], tile) adds and returns nothing");
        return false;
    }
    if (t->mode == MODE_IN) {
        diag_error(s->c, dst->loc, "%s cannot write '%s': it is an input (declare it `out` or `inout`)", op, t->name->s);
        return false;
    }
    if (!dtype_ok(op, t->dtype)) {
        diag_error(s->c, dst->loc, "%s of a %s element: it takes %s", op, dtype_name(t->dtype),
                   cas ? "i32, u32, i64 and u64 (compare-and-swap compares bits)" : "i32, u32, i64, u64, f32 and f64");
        return false;
    }
    NodeList *idx = &dst->u.index.idx;
    if (idx->len != t->rank) {
        diag_error(s->c, dst->loc, "'%s' has %d dimension%s but %d ind%s given", t->name->s, t->rank,
                   t->rank == 1 ? "" : "s", idx->len, idx->len == 1 ? "ex is" : "ices are");
        return false;
    }
    bool ok = true;
    for (int i = 0; i < idx->len; i++) {
        Node *ix = idx->items[i];
        if (ix->kind == N_SLICE) {
            diag_error(s->c, ix->loc, "%s works on one element: an index, not a range", op);
            return false;
        }
        ok &= check_int(s, ix, "an index");
    }
    for (int i = 1; i < args->len; i++) {
        Node *v = args->items[i];
        if (!check_expr(s, v)) return false;
        if (!dtype_is_int(v->dtype) && !dtype_is_float(v->dtype) && v->dtype != DT_BOOL) {
            diag_error(s->c, v->loc, "%s needs a number here", op);
            return false;
        }
        if (dtype_is_float(v->dtype) && !dtype_is_float(t->dtype)) {
            diag_error(s->c, v->loc, "'%s' is %s, and this is a float: convert it (%s(...))", t->name->s,
                       dtype_name(t->dtype), dtype_name(t->dtype));
            return false;
        }
    }
    if (!ok) return false;
    dst->sym = t;
    t->used = true;
    if (!s->dead) t->body_written = true;
    if (!strcmp(op, "atomic_add") && dtype_is_float(t->dtype) && !s->dead && !s->k->float_atomic)
        s->k->float_atomic = call;
    call->dtype = t->dtype;
    return true;
}
