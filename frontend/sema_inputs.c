/* sema_inputs.c - the `inputs` clause (LANGUAGE.md §8): how `--run` fills
 * a tensor parameter instead of --supply, for kernels whose inputs must be
 * valid indices, permutations or offsets to be verified at all. Checked
 * after specialisation: the arguments are values of the run (sizes,
 * dynamic ones at their values), and the values they ask for must be ones
 * the tensor's dtype holds exactly. */
#include <math.h>
#include <string.h>

#include "sema.h"

static const struct {
    const char *name;
    int args;
    bool real; /* the arguments are reals (else integers) */
} dists[] = {
    [INPUT_INTEGERS] = {"integers", 2, false}, [INPUT_PERMUTATION] = {"permutation", 1, false},
    [INPUT_OFFSETS] = {"offsets", 1, false},   [INPUT_UNIFORM] = {"uniform", 2, true},
    [INPUT_NORMAL] = {"normal", 2, true},      [INPUT_CONSTANT] = {"constant", 1, true},
};
enum { NDISTS = sizeof dists / sizeof *dists };

const char *input_dist_name(InputDist d) { return (unsigned)d < NDISTS ? dists[d].name : "?"; }

/* The tensor parameter an inputs binding names, or NULL after an error. */
static Sym *input_tensor(Sema *s, const Node *b) {
    Sym *t = sym_lookup(b->u.named.name);
    if (!t || t->scope_depth != 1 || t->kind != SYM_TENSOR) {
        diag_error(s->c, b->loc, "'%s' is not a tensor parameter of this kernel; `inputs` says how --run fills tensors",
                   b->u.named.name->s);
        return NULL;
    }
    if (t->mode == MODE_OUT) {
        diag_error(s->c, b->loc, "'%s' is an out tensor: the kernel writes it, --run does not fill it", t->name->s);
        return NULL;
    }
    if (t->input) {
        diag_error(s->c, b->loc, "'%s' is given an input distribution twice", t->name->s);
        diag_note(s->c, t->input->loc, "the first one is here");
        return NULL;
    }
    return t;
}

/* The distribution a binding's value names, its arguments checked and
 * evaluated into spec; false after an error. */
static bool read_dist(Sema *s, KernelInfo *k, Node *v, InputSpec *spec) {
    int d = -1;
    if (v->kind == N_CALL && v->u.call.name)
        for (int i = 0; i < NDISTS && d < 0; i++)
            if (!strcmp(v->u.call.name->s, dists[i].name)) d = i;
    if (d < 0) {
        diag_error(s->c, v->loc, "an input distribution is one of integers(lo, hi), permutation(n), offsets(total), "
                   "uniform(lo, hi), normal(mean, std) or constant(value)");
        return false;
    }
    spec->dist = (InputDist)d;
    NodeList *args = &v->u.call.args;
    if (args->len != dists[d].args) {
        diag_error(s->c, v->loc, "%s takes %d argument%s, not %d", dists[d].name, dists[d].args,
                   dists[d].args == 1 ? "" : "s", args->len);
        return false;
    }
    bool valueless = false;
    for (int i = 0; i < args->len; i++) {
        Node *a = args->items[i];
        if (a->kind == N_NAMED_ARG) {
            diag_error(s->c, a->loc, "the arguments of %s are positional", dists[d].name);
            return false;
        }
        if (!check_expr(s, a)) return false;
        if (!dtype_is_int(a->dtype) && !(dists[d].real && dtype_is_float(a->dtype))) {
            diag_error(s->c, a->loc, "the arguments of %s must be %s", dists[d].name, dists[d].real ? "numbers" : "integers");
            return false;
        }
        if (!a->is_const) {
            /* a dynamic size without a value: there is no run to fill */
            bool dyn_unknown = false;
            for (int j = 0; j < k->dynamic.len; j++) dyn_unknown |= !((const Sym *)k->dynamic.items[j])->has_value;
            if (dyn_unknown) {
                valueless = true;
                continue;
            }
            diag_error(s->c, a->loc, "the arguments of %s must be values known before the run (sizes, constants, "
                       "`where` values)", dists[d].name);
            return false;
        }
        if (dists[d].real) spec->x[i] = const_as_float(a);
        else spec->n[i] = a->cval.i;
    }
    spec->known = !valueless;
    return true;
}

/* Whether tensor t can take the distribution spec describes; its errors
 * at the binding's value v. */
static bool dist_fits(Sema *s, const Sym *t, const InputSpec *spec, const Node *v) {
    Dtype dt = t->dtype;
    int64_t row = t->rank ? t->shape[t->rank - 1] : 1;
    const char *name = t->name->s, *dn = dtype_name(dt);
    switch (spec->dist) {
    case INPUT_INTEGERS:
        if (spec->n[1] <= spec->n[0]) {
            diag_error(s->c, v->loc, "integers(%lld, %lld) has no values: it gives the integers from lo to hi - 1",
                       (long long)spec->n[0], (long long)spec->n[1]);
            return false;
        }
        if (!dtype_holds_ints(dt, spec->n[0], spec->n[1] - 1)) {
            diag_error(s->c, v->loc, "'%s' is %s, which does not hold every integer from %lld to %lld", name, dn,
                       (long long)spec->n[0], (long long)(spec->n[1] - 1));
            return false;
        }
        return true;
    case INPUT_PERMUTATION:
        if (spec->n[0] < 1) {
            diag_error(s->c, v->loc, "permutation(%lld): a permutation has at least one element", (long long)spec->n[0]);
            return false;
        }
        if (row > spec->n[0]) {
            diag_error(s->c, v->loc, "a row of '%s' has %lld elements, more than a permutation of %lld has", name,
                       (long long)row, (long long)spec->n[0]);
            return false;
        }
        if (!dtype_holds_ints(dt, 0, spec->n[0] - 1)) {
            diag_error(s->c, v->loc, "'%s' is %s, which does not hold every integer from 0 to %lld", name, dn,
                       (long long)(spec->n[0] - 1));
            return false;
        }
        return true;
    case INPUT_OFFSETS:
        if (spec->n[0] < 0) {
            diag_error(s->c, v->loc, "offsets(%lld): the total must not be negative", (long long)spec->n[0]);
            return false;
        }
        if (row < 2) {
            diag_error(s->c, v->loc, "offsets run from 0 to the total along the last dimension, which has %lld element "
                       "in '%s'", (long long)row, name);
            return false;
        }
        if (!dtype_holds_ints(dt, 0, spec->n[0])) {
            diag_error(s->c, v->loc, "'%s' is %s, which does not hold every integer from 0 to %lld", name, dn,
                       (long long)spec->n[0]);
            return false;
        }
        return true;
    case INPUT_UNIFORM:
    case INPUT_NORMAL:
        if (!dtype_is_float(dt)) {
            diag_error(s->c, v->loc, "'%s' is %s: %s gives reals; integers(lo, hi) gives integers", name, dn,
                       input_dist_name(spec->dist));
            return false;
        }
        if (!isfinite(spec->x[0]) || !isfinite(spec->x[1])) {
            diag_error(s->c, v->loc, "the arguments of %s must be finite", input_dist_name(spec->dist));
            return false;
        }
        if (spec->dist == INPUT_UNIFORM && !(spec->x[0] < spec->x[1])) {
            diag_error(s->c, v->loc, "uniform(%g, %g) is empty: the first bound must be below the second", spec->x[0],
                       spec->x[1]);
            return false;
        }
        if (spec->dist == INPUT_NORMAL && !(spec->x[1] > 0)) {
            diag_error(s->c, v->loc, "normal(%g, %g): the standard deviation must be positive", spec->x[0], spec->x[1]);
            return false;
        }
        return true;
    case INPUT_CONSTANT: {
        double x = spec->x[0];
        if (dtype_is_float(dt)) return true; /* rounded to the dtype, as any value */
        if (x != trunc(x) || x < -9.2e18 || x > 9.2e18 || !dtype_holds_ints(dt, (int64_t)x, (int64_t)x)) {
            diag_error(s->c, v->loc, "'%s' is %s, which does not hold %g", name, dn, x);
            return false;
        }
        return true;
    }
    }
    return false;
}

void check_inputs(Sema *s, KernelInfo *k, Node *c) {
    for (int i = 0; i < c->u.list.len; i++) {
        Node *b = c->u.list.items[i];
        Sym *t = input_tensor(s, b);
        if (!t) continue;
        InputSpec *spec = arena_alloc(&s->c->arena, sizeof *spec);
        spec->loc = b->loc;
        Node *v = b->u.named.value;
        if (!read_dist(s, k, v, spec)) continue;
        if (spec->known && !dist_fits(s, t, spec, v)) continue;
        t->input = spec;
    }
}
