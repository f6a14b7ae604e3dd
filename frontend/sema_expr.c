/* sema_expr.c - typing and folding scalar expressions (LANGUAGE.md §4,
 * "Expressions"): names, elements, operators, built-in functions, casts. */
#include <math.h>
#include <string.h>

#include "sema.h"

static bool name_is(const Name *n, const char *s) { return n && strcmp(n->s, s) == 0; }

static const char *const math1[] = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh",
                                    "sigmoid", "erf", "floor", "ceil", "sin", "cos", NULL};
static const char *const tile_ops[] = {"copy", "gemm", "clear", "fill", "reduce_sum", "reduce_max",
                                       "reduce_min", "reduce_absmax", "cumsum", "atomic_add", "use_swizzle",
                                       "sync_threads", "print", "alloc_shared", "alloc_fragment",
                                       "alloc_local", "range", "pipelined", "parallel", "unroll", NULL};

static int in_table(const char *const *t, const Name *n) {
    for (int i = 0; t[i]; i++)
        if (name_is(n, t[i])) return i;
    return -1;
}

static const char *const random_fns[] = {"rand", "randn", "randint", NULL};

bool is_builtin_function(const Name *n) {
    return in_table(math1, n) >= 0 || in_table(random_fns, n) >= 0 || name_is(n, "abs") || name_is(n, "min") ||
           name_is(n, "max") || name_is(n, "pow") || name_is(n, "fma") || name_is(n, "ceildiv");
}
bool is_tile_op(const Name *n) { return in_table(tile_ops, n) >= 0; }
bool is_reduction_name(const Name *n) { return name_is(n, "sum") || name_is(n, "max") || name_is(n, "min"); }

static double apply_math1(int which, double x) {
    switch (which) {
    case 0: return exp(x);
    case 1: return exp2(x);
    case 2: return log(x);
    case 3: return log2(x);
    case 4: return sqrt(x);
    case 5: return 1.0 / sqrt(x);
    case 6: return tanh(x);
    case 7: return 1.0 / (1.0 + exp(-x));
    case 8: return erf(x);
    case 9: return floor(x);
    case 10: return ceil(x);
    case 11: return sin(x);
    default: return cos(x);
    }
}

/* The first name in e that keeps it from being a compile-time constant, for
 * "... is not a compile-time constant (it depends on 'bx', a block index)". */
static const Node *runtime_part(const Node *e) {
    if (!e) return NULL;
    switch (e->kind) {
    case N_NAME: return e->sym && !e->is_const ? e : NULL;
    case N_INDEX: return e;
    case N_UNARY: return runtime_part(e->u.op.a);
    case N_BINARY: {
        const Node *r = runtime_part(e->u.op.a);
        return r ? r : runtime_part(e->u.op.b);
    }
    case N_COND: {
        const Node *r = runtime_part(e->u.cond.c);
        if (!r) r = runtime_part(e->u.cond.a);
        return r ? r : runtime_part(e->u.cond.b);
    }
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++) {
            const Node *r = runtime_part(e->u.call.args.items[i]);
            if (r) return r;
        }
        return NULL;
    default: return NULL;
    }
}

const char *sym_kind_name(SymKind k) {
    switch (k) {
    case SYM_CONST: return "constant";
    case SYM_SIZE: return "size";
    case SYM_SCALAR: return "scalar parameter";
    case SYM_TENSOR: return "tensor parameter";
    case SYM_WHERE: return "where constant";
    case SYM_TUNE: return "tunable";
    case SYM_BLOCK_IDX: return "block index";
    case SYM_LET: return "let value";
    case SYM_BUFFER: return "buffer";
    case SYM_VAR: return "var";
    case SYM_LOOP: return "loop variable";
    case SYM_REF_INDEX: return "index variable";
    case SYM_REF_TEMP: return "temporary";
    case SYM_REF_LET: return "reference let";
    }
    return "name";
}

static bool compile_time(const Sema *s) { return s->mode == EM_CONST || s->mode == EM_GRID || s->mode == EM_HOST; }

/* A dynamic size: a kernel argument in the body and the grid; its value
 * (where it has one) for the reference and flops/bytes, which tilec
 * evaluates for a run at those sizes; never folded into the code. */
static bool check_dynamic_size(Sema *s, Node *e, Sym *sym) {
    if (s->mode == EM_CONST) {
        diag_error(s->c, e->loc, "'%s' is a dynamic size, passed at launch; buffer shapes, parallel and unroll extents, "
                   "threads and where and tune values cannot depend on it", sym->name->s);
        return false;
    }
    if ((s->mode == EM_REFERENCE || s->mode == EM_HOST) && (sym->value_expr || sym->overridden)) {
        if (!sym_value(s, sym, e->loc)) return false;
        e->dtype = DT_INT_LIT;
        const_set_int(e, sym->value.i);
        return true;
    }
    /* 1 to 2^31 - 1: an int holds it, as it holds the block indices */
    e->dtype = s->mode == EM_REFERENCE ? DT_I64 : DT_I32;
    return true;
}

static bool check_name(Sema *s, Node *e) {
    Sym *sym = sym_lookup(e->u.name);
    if (!sym) {
        undefined_name(s, e->loc, e->u.name);
        return false;
    }
    e->sym = sym;
    sym->used = true;
    switch (sym->kind) {
    case SYM_SCALAR:
        /* a kernel argument: read at run time, never folded into the code */
        if (compile_time(s)) {
            diag_error(s->c, e->loc, "'%s' is a scalar parameter, a run-time value; sizes, shapes, extents, the grid, "
                       "threads and tune values cannot depend on it (a value to fold into the code goes in `where`)",
                       sym->name->s);
            return false;
        }
        e->dtype = sym->dtype;
        return true;
    case SYM_SIZE:
        if (sym->dynamic) return check_dynamic_size(s, e, sym);
        /* fall through */
    case SYM_CONST: case SYM_WHERE: case SYM_TUNE:
        if (!sym_value(s, sym, e->loc)) return false;
        e->dtype = sym->kind == SYM_SCALAR ? sym->dtype
                 : sym->dtype != DT_NONE ? sym->dtype
                 : sym->value_float ? DT_FLOAT_LIT : DT_INT_LIT;
        if (sym->value_float) const_set_float(e, sym->value.f);
        else const_set_int(e, sym->value.i);
        return true;
    case SYM_BLOCK_IDX:
    case SYM_LOOP:
        if (s->mode == EM_REFERENCE) {
            /* the reference is the math, over whole tensors: no blocks */
            diag_error(s->c, e->loc, "'%s' is the kernel's %s; a reference uses index variables, sizes and constants",
                       sym->name->s, sym_kind_name(sym->kind));
            return false;
        }
        if (compile_time(s)) {
            diag_error(s->c, e->loc, "'%s' is a %s, not a compile-time constant", sym->name->s,
                       sym_kind_name(sym->kind));
            return false;
        }
        e->dtype = DT_I32;
        return true;
    case SYM_LET:
    case SYM_VAR:
    case SYM_REF_LET:
        e->dtype = sym->dtype;
        if (sym->has_value) {
            if (sym->value_float) const_set_float(e, sym->value.f);
            else const_set_int(e, sym->value.i);
        }
        return true;
    case SYM_REF_INDEX:
        e->dtype = DT_I64;
        return true;
    case SYM_TENSOR: case SYM_BUFFER: case SYM_REF_TEMP:
        diag_error(s->c, e->loc, "'%s' is a %s, not a scalar; index it (%s[...]) to use an element",
                   sym->name->s, sym_kind_name(sym->kind), sym->name->s);
        return false;
    }
    return false;
}

void undefined_name(Sema *s, Loc loc, const Name *name) {
    for (int i = 0; i < s->undefined.len; i++)
        if (s->undefined.items[i] == name) return;
    vec_push(&s->c->arena, &s->undefined, (void *)name);
    bool block_name = s->k && s->k->block_idx.len == 0 && name->len == 2 && name->s[0] == 'b' && name->s[1] >= 'x' &&
                      name->s[1] <= 'z';
    diag_error(s->c, loc, "undefined name '%s'%s", name->s,
               block_name ? " (block indices come from the kernel's grid(...) as (bx, ...) clause, which it lacks)" : "");
}

bool out_read_ok(Sema *s, Loc loc, const Sym *t) {
    /* (a branch the specialisation never takes reads nothing either) */
    if (t->kind != SYM_TENSOR || t->mode != MODE_OUT || t->body_written || s->dead) return true;
    diag_error(s->c, loc, "'%s' is an out tensor and nothing before this writes it: its old values are undefined "
               "(declare it inout to read them)", t->name->s);
    return false;
}

/* *to += x * scale; false where that overflows 64 bits */
static bool add_scaled(int64_t *to, int64_t x, int64_t scale) {
    int64_t t;
    return !__builtin_mul_overflow(x, scale, &t) && !__builtin_add_overflow(*to, t, to);
}

void affine_add(Affine *r, const Affine *a, int64_t scale) {
    if (!a->ok || !add_scaled(&r->c, a->c, scale)) { r->ok = false; return; }
    r->opaque |= a->opaque;
    for (int i = 0; i < a->n; i++) {
        int j = 0;
        while (j < r->n && r->var[j] != a->var[i]) j++;
        if (j == r->n) {
            if (r->n == 8) { r->ok = false; return; }
            r->var[r->n] = a->var[i];
            r->coef[r->n++] = 0;
        }
        if (!add_scaled(&r->coef[j], a->coef[i], scale)) { r->ok = false; return; }
    }
}

/* e as a sum of constant multiples of names plus a constant. A let stands
 * for its value (depth: how many lets deep), so `let ke = kb + 64` makes
 * ke - kb 64; not where the value reads a var, which may have changed
 * since the let, or is not affine: there the let stands for itself. */
static Affine affine_at(const Node *e, int depth) {
    Affine r = {.ok = true};
    if (e->is_const && !e->const_float) { r.c = e->cval.i; return r; }
    if (e->kind == N_NAME && e->sym) {
        const Sym *v = e->sym;
        if (v->kind == SYM_LET && v->decl && v->decl->kind == N_LET && v->decl->u.decl.value && depth < 16) {
            Affine x = affine_at(v->decl->u.decl.value, depth + 1);
            if (x.ok) return x;
            r.opaque = true;
        } else if (v->kind == SYM_VAR && depth > 0) {
            r.ok = false;
            return r;
        }
        r.n = 1; r.var[0] = v; r.coef[0] = 1;
        return r;
    }
    if (e->kind == N_UNARY && e->u.op.op == OP_NEG) {
        Affine a = affine_at(e->u.op.a, depth), z = {.ok = true};
        affine_add(&z, &a, -1);
        return z;
    }
    if (e->kind == N_BINARY) {
        const Node *a = e->u.op.a, *b = e->u.op.b;
        AstOp op = e->u.op.op;
        if (op == OP_ADD || op == OP_SUB) {
            Affine x = affine_at(a, depth), y = affine_at(b, depth);
            affine_add(&r, &x, 1);
            affine_add(&r, &y, op == OP_ADD ? 1 : -1);
            return r;
        }
        if (op == OP_MUL && (a->is_const || b->is_const)) {
            const Node *k = a->is_const ? a : b, *v = a->is_const ? b : a;
            if (k->const_float) { r.ok = false; return r; }
            Affine x = affine_at(v, depth);
            affine_add(&r, &x, k->cval.i);
            return r;
        }
    }
    r.ok = false;
    return r;
}

Affine affine_of(const Node *e) { return affine_at(e, 0); }

/* Binds loop variable var to x, and lets to their values. */
typedef struct AtValue {
    const Sym *var;
    int64_t x;
} AtValue;

static bool at_value_name(void *ctx, const Sym *sym, int64_t *value, const Node **expr) {
    const AtValue *at = ctx;
    if (sym == at->var) return *value = at->x, true;
    if (sym->kind != SYM_LET || !sym->decl || sym->decl->kind != N_LET) return false;
    return *expr = sym->decl->u.decl.value, true;
}

/* The value of integer expression e at var = x, where e names nothing but
 * var, constants and lets of those. */
bool value_at(const Node *e, const Sym *var, int64_t x, int *budget, int64_t *out) {
    AtValue at = {.var = var, .x = x};
    return e && node_int_value(e, at_value_name, &at, budget, out);
}

/* The one loop variable e names (through lets), or NULL where it names none,
 * several, or anything else that is not a constant. */
static const Sym *only_loop_var(const Node *e, const Sym *found, int *budget, bool *ok) {
    if (!e || !*ok || e->is_const) return found;
    if (--*budget < 0) return *ok = false, found;
    switch (e->kind) {
    case N_NAME:
        if (!e->sym) return *ok = false, found;
        if (e->sym->kind == SYM_LOOP) {
            if (found && found != e->sym) *ok = false;
            return e->sym;
        }
        if (e->sym->kind == SYM_LET && e->sym->decl && e->sym->decl->kind == N_LET)
            return only_loop_var(e->sym->decl->u.decl.value, found, budget, ok);
        return *ok = false, found;
    case N_UNARY: return only_loop_var(e->u.op.a, found, budget, ok);
    case N_BINARY: return only_loop_var(e->u.op.b, only_loop_var(e->u.op.a, found, budget, ok), budget, ok);
    case N_COND:
        found = only_loop_var(e->u.cond.c, found, budget, ok);
        return only_loop_var(e->u.cond.b, only_loop_var(e->u.cond.a, found, budget, ok), budget, ok);
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++) found = only_loop_var(e->u.call.args.items[i], found, budget, ok);
        return found;
    default: return *ok = false, found;
    }
}

/* The range of an index of one loop variable that is not affine (j << 1,
 * (i + 1) % 65, abs(i - 64), i < 32 ? i + 40 : i): its values over all of
 * the variable's (at most 2^16 of them). */
static bool enumerated_range(const Sema *s, const Node *e, int64_t *lo, int64_t *hi) {
    int budget = 1 << 12;
    bool ok = true;
    const Sym *v = only_loop_var(e, NULL, &budget, &ok);
    if (!ok || !v || !v->range_known || v->range < 1 || v->range > (1 << 16) || s->guarded != v->range_guard)
        return false;
    budget = 1 << 22;
    for (int64_t x = v->range_lo; x < v->range_lo + v->range; x++) {
        int64_t y;
        if (!value_at(e, v, x, &budget, &y)) return false;
        if (x == v->range_lo || y < *lo) *lo = y;
        if (x == v->range_lo || y > *hi) *hi = y;
    }
    return true;
}

bool index_range(const Sema *s, const Node *e, int64_t *lo, int64_t *hi) {
    const int64_t BIG = SEMA_INDEX_LIMIT;
    Affine a = affine_of(e);
    if (!a.ok || a.opaque) return enumerated_range(s, e, lo, hi);
    if (a.c <= -BIG || a.c >= BIG) return false;
    *lo = *hi = a.c;
    for (int i = 0; i < a.n; i++) {
        const Sym *v = a.var[i];
        int64_t reach;
        if (a.coef[i] == 0) continue; /* i - i */
        if (v->kind != SYM_LOOP || !v->range_known || v->range < 1 || v->range > BIG || s->guarded != v->range_guard ||
            a.coef[i] <= -BIG || a.coef[i] >= BIG || __builtin_mul_overflow(a.coef[i], v->range - 1, &reach))
            return false;
        int64_t first;
        if (__builtin_mul_overflow(a.coef[i], v->range_lo, &first) || first <= -BIG || first >= BIG) return false;
        *lo += first;
        *hi += first;
        if (reach < 0) *lo += reach;
        else *hi += reach;
        if (*lo <= -BIG || *hi >= BIG) return false;
    }
    return true;
}

/* An element of a tensor or buffer in the kernel body. */
/* An index of a shared, fragment or local buffer that is certainly outside
 * it: a constant, or loop variables (index_range) whose values reach past
 * the dimension. (Past a global tensor's edge reads give 0 and writes do
 * nothing; past a buffer's, they would reach other memory.) Branches the
 * specialisation never takes are not checked. */
static bool index_in_bounds(Sema *s, const Sym *sym, int d, const Node *ix) {
    if (sym->kind != SYM_BUFFER || sym->broken || s->dead || d >= sym->rank) return true;
    int64_t n = sym->shape[d];
    if (ix->is_const && !ix->const_float) {
        if (ix->cval.i >= 0 && ix->cval.i < n) return true;
        diag_error(s->c, ix->loc, "index %lld is outside '%s': its dimension %d has %lld element%s", (long long)ix->cval.i,
                   sym->name->s, d, (long long)n, n == 1 ? "" : "s");
        return false;
    }
    int64_t lo, hi;
    if (!index_range(s, ix, &lo, &hi) || (lo >= 0 && hi < n)) return true;
    if (ix->kind == N_NAME && ix->sym->kind == SYM_LOOP && lo >= 0)
        diag_error(s->c, ix->loc, "'%s' runs to %lld, outside '%s': its dimension %d has %lld element%s",
                   ix->sym->name->s, (long long)hi, sym->name->s, d, (long long)n, n == 1 ? "" : "s");
    else if (ix->kind == N_NAME && ix->sym->kind == SYM_LOOP)
        diag_error(s->c, ix->loc, "'%s' runs from %lld to %lld, outside '%s': its dimension %d has %lld element%s",
                   ix->sym->name->s, (long long)lo, (long long)hi, sym->name->s, d, (long long)n, n == 1 ? "" : "s");
    else
        diag_error(s->c, ix->loc, "this index runs from %lld to %lld, outside '%s': its dimension %d has %lld element%s",
                   (long long)lo, (long long)hi, sym->name->s, d, (long long)n, n == 1 ? "" : "s");
    return false;
}

static bool check_element(Sema *s, Node *e) {
    Sym *sym = sym_lookup(e->u.index.name);
    if (!sym) {
        undefined_name(s, e->loc, e->u.index.name);
        return false;
    }
    e->sym = sym;
    sym->used = true;
    if (sym->kind != SYM_TENSOR && sym->kind != SYM_BUFFER) {
        if (!sym->broken) /* a let whose value had errors: those are enough */
            diag_error(s->c, e->loc, "'%s' is a %s; only tensors and buffers can be indexed", sym->name->s,
                       sym_kind_name(sym->kind));
        return false;
    }
    if (compile_time(s)) {
        diag_error(s->c, e->loc, "an element of '%s' is not a compile-time constant", sym->name->s);
        return false;
    }
    bool ok = true;
    if (sym->broken) { /* its declaration's errors are enough */
        e->dtype = sym->dtype;
        return false;
    }
    if (!s->writing) ok = out_read_ok(s, e->loc, sym);
    s->writing = false; /* the indices are reads */
    if (e->u.index.idx.len != sym->rank) {
        diag_error(s->c, e->loc, "'%s' has %d dimension%s but %d ind%s given", sym->name->s, sym->rank,
                   sym->rank == 1 ? "" : "s", e->u.index.idx.len, e->u.index.idx.len == 1 ? "ex is" : "ices are");
        ok = false;
    }
    for (int i = 0; i < e->u.index.idx.len; i++) {
        Node *ix = e->u.index.idx.items[i];
        if (ix->kind == N_SLICE) {
            diag_error(s->c, ix->loc, "a range 'a : b' selects a region; only tile operations take regions");
            ok = false;
            continue;
        }
        if (check_int(s, ix, "an index")) ok &= index_in_bounds(s, sym, i, ix);
        else ok = false;
    }
    e->dtype = sym->dtype;
    return ok;
}

static bool fold_cast(Sema *s, Node *e, const Node *a, Dtype to) {
    if (!a->is_const) return true;
    if (dtype_is_float(to)) { /* f16(0.1) is 0.0999755859375 */
        const_set_float(e, dtype_round_float(to, const_as_float(a)));
        return true;
    }
    if (to == DT_BOOL) {
        const_set_int(e, node_const_true(a));
        return true;
    }
    if (a->const_float) {
        double v = trunc(a->cval.f);
        if (!(v >= -9.2e18 && v <= 9.2e18)) {
            diag_error(s->c, e->loc, "%g cannot be converted to %s", a->cval.f, dtype_name(to));
            return false;
        }
        const_set_int(e, (int64_t)v);
        return const_fits(s, e, to, e->loc, "the converted value");
    }
    /* an integer to a narrower one wraps, as the generated code's
     * conversions do (i32(u8(300)) is 44) */
    int bits = dtype_bytes(to) * 8;
    uint64_t u = (uint64_t)a->cval.i;
    if (bits < 64) {
        u &= (UINT64_C(1) << bits) - 1;
        if (dtype_is_signed(to) && (u >> (bits - 1))) u |= ~((UINT64_C(1) << bits) - 1);
    }
    const_set_int(e, (int64_t)u);
    return true;
}

/* The positional arguments of a value function; named ones are errors. */
static bool plain_args(Sema *s, Node *e, const char *fname, int min, int max);

/* rand(seed, offset) -> f32 in [0, 1), randn -> f32, randint -> u32
 * (frontend/random.c): both arguments integers, taken as 64-bit unsigned
 * values; a seed is what makes them random, so there is no default. */
static bool check_random(Sema *s, Node *e, const Name *fn) {
    NodeList *args = &e->u.call.args;
    if (args->len == 1 && args->items[0]->kind != N_NAMED_ARG) {
        diag_error(s->c, e->loc, "%s takes a seed and an offset: %s(seed, offset) (a seed parameter, `seed: u64`, "
                   "makes each run's numbers differ)", fn->s, fn->s);
        return false;
    }
    if (!plain_args(s, e, fn->s, 2, 2)) return false;
    static const char *const what[] = {"the seed", "the offset"};
    for (int i = 0; i < 2; i++) {
        const Node *a = args->items[i];
        if (!dtype_is_int(a->dtype) && a->dtype != DT_BOOL) {
            diag_error(s->c, a->loc, "%s of %s must be an integer, not %s", what[i], fn->s, dtype_name(a->dtype));
            return false;
        }
    }
    bool is_int = name_is(fn, "randint");
    e->dtype = is_int ? DT_U32 : DT_F32;
    const Node *seed = args->items[0], *offset = args->items[1];
    if (seed->is_const && offset->is_const) {
        uint64_t sv = (uint64_t)seed->cval.i, ov = (uint64_t)offset->cval.i;
        if (is_int) const_set_int(e, random_int(sv, ov));
        else const_set_float(e, name_is(fn, "rand") ? random_uniform(sv, ov) : random_normal(sv, ov));
    }
    return true;
}

static bool plain_args(Sema *s, Node *e, const char *fname, int min, int max) {
    NodeList *args = &e->u.call.args;
    bool ok = true;
    for (int i = 0; i < args->len; i++) {
        Node *a = args->items[i];
        if (a->kind == N_NAMED_ARG) {
            diag_error(s->c, a->loc, "%s takes no named arguments", fname);
            return false;
        }
        ok &= check_expr(s, a);
    }
    if (args->len < min || args->len > max) {
        if (min == max)
            diag_error(s->c, e->loc, "%s takes %d argument%s, not %d", fname, min, min == 1 ? "" : "s", args->len);
        else
            diag_error(s->c, e->loc, "%s takes %d to %d arguments, not %d", fname, min, max, args->len);
        return false;
    }
    return ok;
}

static Dtype float_result(Dtype t) {
    return dtype_is_float(t) ? t : DT_F32;
}

static bool check_call_value(Sema *s, Node *e) {
    Name *fn = e->u.call.name;
    if (e->u.call.body || e->u.call.reduce_vars.len) {
        if (s->mode == EM_REFERENCE) return check_ref_reduction(s, e);
        diag_error(s->c, e->loc, "reductions like '%s(k: ...)' are only allowed in the reference block",
                   fn ? fn->s : "sum");
        return false;
    }
    if (!fn) { /* cast */
        Dtype to = e->u.call.cast;
        if (!plain_args(s, e, dtype_name(to), 1, 1)) return false;
        Node *a = e->u.call.args.items[0];
        if (!dtype_is_int(a->dtype) && !dtype_is_float(a->dtype) && a->dtype != DT_BOOL) {
            diag_error(s->c, a->loc, "cannot convert this to %s", dtype_name(to));
            return false;
        }
        e->dtype = to;
        return fold_cast(s, e, a, to);
    }
    if (in_table(random_fns, fn) >= 0) return check_random(s, e, fn);
    if (is_atomic_name(fn)) return check_atomic(s, e, false);
    if (is_builtin_function(fn)) {
        int m1 = in_table(math1, fn);
        NodeList *args = &e->u.call.args;
        if (m1 >= 0 || name_is(fn, "abs")) {
            if (!plain_args(s, e, fn->s, 1, 1)) return false;
            Node *a = args->items[0];
            if (!dtype_is_int(a->dtype) && !dtype_is_float(a->dtype)) {
                diag_error(s->c, a->loc, "%s needs a number", fn->s);
                return false;
            }
            if (m1 < 0) { /* abs keeps the type */
                e->dtype = a->dtype;
                if (a->is_const) {
                    if (a->const_float) const_set_float(e, fabs(a->cval.f));
                    else if (a->cval.i == INT64_MIN) diag_error(s->c, e->loc, "integer overflow in abs");
                    else const_set_int(e, a->cval.i < 0 ? -a->cval.i : a->cval.i);
                }
                return true;
            }
            e->dtype = a->dtype == DT_INT_LIT ? DT_FLOAT_LIT : float_result(a->dtype);
            if (a->is_const) const_set_float(e, apply_math1(m1, const_as_float(a)));
            return true;
        }
        bool is_minmax = name_is(fn, "min") || name_is(fn, "max");
        int n = name_is(fn, "fma") ? 3 : 2;
        if (!plain_args(s, e, fn->s, n, n)) return false;
        Node *a = args->items[0], *b = args->items[1];
        for (int i = 0; i < n; i++) {
            Node *x = args->items[i];
            if (!dtype_is_int(x->dtype) && !dtype_is_float(x->dtype)) {
                diag_error(s->c, x->loc, "%s needs numbers", fn->s);
                return false;
            }
        }
        if (name_is(fn, "ceildiv")) {
            if (!dtype_is_int(a->dtype) || !dtype_is_int(b->dtype)) {
                diag_error(s->c, e->loc, "ceildiv needs integer arguments");
                return false;
            }
            e->dtype = dtype_join(a->dtype, b->dtype);
            if (b->is_const && b->cval.i <= 0) {
                diag_error(s->c, b->loc, "ceildiv by %lld: the divisor must be positive", (long long)b->cval.i);
                return false;
            }
            if (a->is_const && b->is_const) {
                int64_t x = a->cval.i, y = b->cval.i;
                /* x / y rounded up, without the overflow of (x + y - 1) / y */
                const_set_int(e, x / y + (x % y > 0 ? 1 : 0));
            }
            return true;
        }
        Dtype t = dtype_join(a->dtype, b->dtype);
        if (n == 3) t = dtype_join(t, args->items[2]->dtype);
        if (is_minmax) {
            e->dtype = t;
            if (a->is_const && b->is_const) {
                bool mx = name_is(fn, "max");
                if (a->const_float || b->const_float) {
                    double x = const_as_float(a), y = const_as_float(b);
                    const_set_float(e, mx ? fmax(x, y) : fmin(x, y));
                } else {
                    const_set_int(e, mx ? (a->cval.i > b->cval.i ? a->cval.i : b->cval.i)
                                        : (a->cval.i < b->cval.i ? a->cval.i : b->cval.i));
                }
            }
            return true;
        }
        e->dtype = t == DT_INT_LIT ? DT_FLOAT_LIT : float_result(t);
        bool all = a->is_const && b->is_const && (n == 2 || args->items[2]->is_const);
        if (all) {
            double x = const_as_float(a), y = const_as_float(b);
            const_set_float(e, n == 3 ? fma(x, y, const_as_float(args->items[2])) : pow(x, y));
        }
        return true;
    }
    if (is_tile_op(fn)) {
        diag_error(s->c, e->loc, "'%s' is a tile operation: it is a statement, not a value", fn->s);
        return false;
    }
    if (is_reduction_name(fn) && s->mode == EM_REFERENCE) {
        diag_error(s->c, e->loc, "%s over index variables is written %s(k: expr)", fn->s, fn->s);
        return false;
    }
    if (name_is(fn, "alloc_global")) {
        diag_error(s->c, e->loc, "alloc_global makes scratch memory for a pipeline's stages: it belongs in a pipeline's "
                   "body, and a kernel takes the buffer as a tensor parameter");
        return false;
    }
    diag_error(s->c, e->loc, "unknown function '%s'", fn->s);
    return false;
}

static bool is_number(Dtype t) { return dtype_is_int(t) || dtype_is_float(t) || t == DT_BOOL; }

static bool check_binary(Sema *s, Node *e) {
    Node *a = e->u.op.a, *b = e->u.op.b;
    AstOp op = e->u.op.op;
    bool ok = check_expr(s, a);
    /* the right side of && and || runs only when the left does not decide */
    bool lazy = op == OP_LAND || op == OP_LOR;
    bool decides = lazy && ok && a->is_const && !a->const_float && (op == OP_LAND) == (a->cval.i == 0);
    bool runtime = lazy && !(ok && a->is_const);
    s->dead += decides;
    guard_enter(s, a, runtime, op == OP_LAND); /* b runs where a is true for &&, false for || */
    ok &= check_expr(s, b);
    s->dead -= decides;
    guard_leave(s, runtime);
    if (!ok) return false;
    if (!is_number(a->dtype) || !is_number(b->dtype)) {
        diag_error(s->c, e->loc, "operator '%s' needs numbers", op_spelling(op));
        return false;
    }
    switch (op) {
    case OP_MOD: case OP_SHL: case OP_SHR: case OP_BAND: case OP_BOR: case OP_BXOR:
        for (int side = 0; side < 2; side++) {
            const Node *x = side ? b : a;
            if (dtype_is_int(x->dtype) || x->dtype == DT_BOOL) continue;
            diag_error(s->c, e->loc, "operator '%s' needs integer operands, not %s", op_spelling(op), dtype_name(x->dtype));
            if (s->mode == EM_REFERENCE && x->dtype == DT_F64)
                diag_note(s->c, x->loc, "a reference computes in f64, its temporaries too: convert with an integer type, "
                                        "as in u32(...)");
            return false;
        }
        e->dtype = dtype_join(a->dtype, b->dtype);
        break;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_LAND: case OP_LOR:
        e->dtype = DT_BOOL;
        break;
    default:
        e->dtype = dtype_join(a->dtype, b->dtype);
        if (e->dtype == DT_BOOL) e->dtype = DT_INT_LIT;
        /* h_f16 + 1e5 in the kernel: the literal takes f16 and would be
         * infinity (integer literals are left to C's arithmetic, which widens
         * them; a reference computes in f64) */
        if (s->mode != EM_REFERENCE && dtype_is_float(e->dtype) && dtype_bytes(e->dtype) < 4 &&
            !(literal_fits(s, a, e->dtype) && literal_fits(s, b, e->dtype)))
            return false;
        break;
    }
    if (a->is_const && b->is_const) return const_binary(s, e, op, a, b);
    /* A constant right side that makes the operation undefined in C (and so
     * on the device): integer division by zero, a shift by a negative count
     * or by the width or more (the width C computes in: int below 32 bits). */
    if (b->is_const && !b->const_float && dtype_is_int(e->dtype) && !s->dead) {
        int width = e->dtype == DT_INT_LIT || dtype_bytes(e->dtype) == 8 ? 64 : 32;
        if ((op == OP_DIV || op == OP_MOD) && b->cval.i == 0) {
            diag_error(s->c, b->loc, "integer %s by zero", op == OP_DIV ? "division" : "remainder");
            return false;
        }
        if ((op == OP_SHL || op == OP_SHR) && (b->cval.i < 0 || b->cval.i >= width)) {
            diag_error(s->c, b->loc, "a shift by %lld is undefined: %s values shift by 0 to %d", (long long)b->cval.i,
                       dtype_name(e->dtype == DT_INT_LIT ? DT_I64 : e->dtype), width - 1);
            return false;
        }
    }
    /* Short circuit with a constant left side that decides: `false && x` is false. */
    if (decides) const_set_int(e, a->cval.i != 0);
    return true;
}

static bool check_unary(Sema *s, Node *e) {
    Node *a = e->u.op.a;
    if (!check_expr(s, a)) return false;
    AstOp op = e->u.op.op;
    if (!is_number(a->dtype)) {
        diag_error(s->c, e->loc, "operator '%s' needs a number", op_spelling(op));
        return false;
    }
    if (op == OP_BNOT && !dtype_is_int(a->dtype)) {
        diag_error(s->c, e->loc, "operator '~' needs an integer, not %s", dtype_name(a->dtype));
        return false;
    }
    e->dtype = op == OP_NOT ? DT_BOOL : a->dtype == DT_BOOL ? DT_INT_LIT : a->dtype;
    if (a->is_const) return const_unary(s, e, op, a);
    return true;
}

static bool check_cond(Sema *s, Node *e) {
    Node *c = e->u.cond.c, *a = e->u.cond.a, *b = e->u.cond.b;
    bool ok = check_expr(s, c);
    bool known = ok && c->is_const, take = known && node_const_true(c);
    guard_enter(s, c, !known, 1);
    s->dead += known && !take;
    ok &= check_expr(s, a);
    s->dead -= known && !take;
    guard_leave(s, !known);
    guard_enter(s, c, !known, 0);
    s->dead += take;
    ok &= check_expr(s, b);
    s->dead -= take;
    guard_leave(s, !known);
    if (!ok) return false;
    if (!is_number(c->dtype)) {
        diag_error(s->c, c->loc, "the condition of '?:' must be a boolean or a number");
        return false;
    }
    if (!is_number(a->dtype) || !is_number(b->dtype)) {
        diag_error(s->c, e->loc, "the branches of '?:' must be numbers");
        return false;
    }
    e->dtype = dtype_join(a->dtype, b->dtype);
    if (known) {
        const Node *x = take ? a : b;
        if (x->is_const) {
            if (x->const_float || dtype_is_float(e->dtype)) const_set_float(e, const_as_float(x));
            else const_set_int(e, x->cval.i);
        }
    }
    return true;
}

bool check_expr(Sema *s, Node *e) {
    switch (e->kind) {
    case N_INT: e->dtype = DT_INT_LIT; const_set_int(e, e->u.ival); return true;
    case N_FLOAT:
        e->dtype = e->u.fval.fsuffix ? DT_F32 : DT_FLOAT_LIT;
        const_set_float(e, e->u.fval.v);
        return true;
    case N_BOOL: e->dtype = DT_BOOL; const_set_int(e, e->u.bval); return true;
    case N_INF: e->dtype = DT_FLOAT_LIT; const_set_float(e, INFINITY); return true;
    case N_STR:
        diag_error(s->c, e->loc, "a string is only allowed as an argument of print");
        return false;
    case N_DTYPE:
        diag_error(s->c, e->loc, "the dtype '%s' is not a value (a conversion is written %s(x))",
                   dtype_name(e->u.dt), dtype_name(e->u.dt));
        return false;
    case N_NAME: return check_name(s, e);
    case N_INDEX: return s->mode == EM_REFERENCE ? check_ref_index(s, e) : check_element(s, e);
    case N_CALL: return check_call_value(s, e);
    case N_UNARY: return check_unary(s, e);
    case N_BINARY: return check_binary(s, e);
    case N_COND: return check_cond(s, e);
    case N_LIST:
        diag_error(s->c, e->loc, "a list [...] is only allowed as a shape argument");
        return false;
    case N_SLICE:
        diag_error(s->c, e->loc, "a range 'a : b' is only allowed in a region argument of a tile operation");
        return false;
    case N_NAMED_ARG:
        diag_error(s->c, e->loc, "a named argument is not a value");
        return false;
    default:
        diag_error(s->c, e->loc, "expected an expression");
        return false;
    }
}

bool check_int(Sema *s, Node *e, const char *what) {
    if (!check_expr(s, e)) return false;
    if (!dtype_is_int(e->dtype) && e->dtype != DT_BOOL) {
        diag_error(s->c, e->loc, "%s must be an integer, not %s", what, dtype_name(e->dtype));
        return false;
    }
    return true;
}

bool check_const_int(Sema *s, Node *e, const char *what, int64_t *out) {
    return check_int(s, e, what) && const_int_of(s, e, what, out);
}

bool const_int_of(Sema *s, const Node *e, const char *what, int64_t *out) {
    if (!e->is_const) {
        const Node *r = runtime_part(e);
        if (r && r->kind == N_NAME)
            diag_error(s->c, e->loc, "%s must be a compile-time constant, but it depends on '%s' (a %s)", what,
                       r->u.name->s, r->sym->dynamic ? "dynamic size, passed at launch" : sym_kind_name(r->sym->kind));
        else if (r && r->kind == N_INDEX)
            diag_error(s->c, e->loc, "%s must be a compile-time constant, but it reads '%s'", what, r->u.index.name->s);
        else
            diag_error(s->c, e->loc, "%s must be a compile-time constant", what);
        return false;
    }
    if (e->dtype == DT_BOOL) { /* true as an extent would be 1 */
        diag_error(s->c, e->loc, "%s must be an integer, not the bool %s", what, e->cval.i ? "true" : "false");
        return false;
    }
    *out = e->cval.i;
    return true;
}
