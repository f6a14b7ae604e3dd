/* sema_ops.c - the tile operations of LANGUAGE.md §4: argument binding
 * (positional and named), regions and their shapes, and each operation's
 * rules (copy, gemm, reductions, allocation, loops ...). */
#include <string.h>

#include "sema.h"

/* ---- argument binding ---- */

enum { MAX_PARAMS = 8 };

typedef struct Signature {
    const char *name;
    const char *params[MAX_PARAMS];
    int required;     /* the first `required` params must be given */
    bool variadic;    /* print, parallel: any number of positional args */
} Signature;

static const Signature signatures[] = {
    {"copy", {"src", "dst"}, 2, false},
    {"gemm", {"A", "B", "C", "transpose_a", "transpose_b", "clear", "policy"}, 3, false},
    {"clear", {"buf"}, 1, false},
    {"fill", {"buf", "value"}, 2, false},
    {"reduce_sum", {"src", "dst", "dim", "clear"}, 2, false},
    {"reduce_max", {"src", "dst", "dim", "clear"}, 2, false},
    {"reduce_min", {"src", "dst", "dim", "clear"}, 2, false},
    {"reduce_absmax", {"src", "dst", "dim", "clear"}, 2, false},
    {"cumsum", {"src", "dst", "dim", "reverse", "exclusive"}, 2, false},
    {"atomic_add", {"dst", "src"}, 2, false},
    {"use_swizzle", {"panel", "order"}, 0, false},
    {"sync_threads", {0}, 0, false},
    {"print", {0}, 0, true},
    {"alloc_shared", {"shape", "dtype"}, 2, false},
    {"alloc_fragment", {"shape", "dtype"}, 2, false},
    {"alloc_local", {"shape", "dtype"}, 2, false},
    {"range", {"start", "stop", "step"}, 1, false},
    {"pipelined", {"start", "stop", "stages"}, 1, false},
    {"parallel", {0}, 1, true},
    {"unroll", {"n"}, 1, false},
};

static const Signature *find_signature(const Name *n) {
    for (size_t i = 0; i < sizeof signatures / sizeof *signatures; i++)
        if (strcmp(signatures[i].name, n->s) == 0) return &signatures[i];
    return NULL;
}

/* Binds a call's arguments to the signature's parameters; bound[i] is the
 * argument (value node) for params[i] or NULL. */
static bool bind_args(Sema *s, Node *call, const Signature *sig, Node **bound) {
    int np = 0;
    while (np < MAX_PARAMS && sig->params[np]) np++;
    memset(bound, 0, sizeof(Node *) * MAX_PARAMS);
    bool ok = true, named_seen = false;
    int pos = 0;
    NodeList *args = &call->u.call.args;
    for (int i = 0; i < args->len; i++) {
        Node *a = args->items[i];
        if (a->kind != N_NAMED_ARG) {
            if (named_seen) {
                diag_error(s->c, a->loc, "positional argument after a named one in %s", sig->name);
                ok = false;
                continue;
            }
            if (sig->variadic) continue;
            if (pos >= np) {
                diag_error(s->c, a->loc, "too many arguments to %s (it takes %d)", sig->name, np);
                return false;
            }
            bound[pos++] = a;
            continue;
        }
        named_seen = true;
        int j = 0;
        while (j < np && strcmp(sig->params[j], a->u.named.name->s) != 0) j++;
        if (j == np) {
            char list[160] = "";
            size_t len = 0;
            for (int k = 0; k < np && len < sizeof list; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", sig->params[k]);
            if (np == 0) diag_error(s->c, a->loc, "%s takes no argument named '%s'", sig->name, a->u.named.name->s);
            else diag_error(s->c, a->loc, "%s has no argument named '%s' (its arguments: %s)", sig->name,
                            a->u.named.name->s, list);
            ok = false;
            continue;
        }
        if (bound[j]) {
            diag_error(s->c, a->loc, "argument '%s' of %s is given twice", sig->params[j], sig->name);
            ok = false;
            continue;
        }
        bound[j] = a->u.named.value;
    }
    if (!ok) return false;
    if (sig->variadic) {
        if (args->len < sig->required) {
            diag_error(s->c, call->loc, "%s needs at least %d argument%s", sig->name, sig->required,
                       sig->required == 1 ? "" : "s");
            return false;
        }
        return true;
    }
    for (int j = 0; j < sig->required; j++)
        if (!bound[j]) {
            diag_error(s->c, call->loc, "%s is missing its argument '%s'", sig->name, sig->params[j]);
            ok = false;
        }
    return ok;
}

/* ---- regions ---- */

/* A tile operand: a whole tensor/buffer, a point `T[i, j]` whose extents
 * come from the other operand, or explicit extents `T[a : b, c]`. */
typedef struct Region {
    Node *node;
    Sym *sym;
    bool point;              /* extents from the other operand */
    int rank;                /* of the region's shape (points dropped) */
    int64_t ext[MAX_RANK];
    Sym *gather;             /* a gather (scatter) region's row indices: X[rows, k] */
} Region;

static bool is_buffer_sym(const Sym *sym) { return sym && (sym->kind == SYM_TENSOR || sym->kind == SYM_BUFFER); }

static const char *scope_name(const Sym *sym) {
    if (sym->kind == SYM_TENSOR) return "global tensor";
    switch (sym->scope) {
    case SCOPE_SHARED: return "shared buffer";
    case SCOPE_FRAGMENT: return "fragment";
    case SCOPE_LOCAL: return "local buffer";
    default: return "global tensor";
    }
}

/* hi - lo when it is a compile-time constant. */
static bool const_extent(const Node *lo, const Node *hi, int64_t *ext) {
    if (lo->is_const && hi->is_const && !lo->const_float && !hi->const_float) {
        *ext = hi->cval.i - lo->cval.i;
        return true;
    }
    Affine d = {.ok = true}, a = affine_of(hi), b = affine_of(lo);
    affine_add(&d, &a, 1);
    affine_add(&d, &b, -1);
    if (!d.ok) return false;
    for (int i = 0; i < d.n; i++)
        if (d.coef[i] != 0) return false;
    *ext = d.c;
    return true;
}

static void format_shape(char *buf, size_t n, const int64_t *ext, int rank) {
    size_t len = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < rank && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld", i ? ", " : "", (long long)ext[i]);
    if (len < n) snprintf(buf + len, n - len, "]");
}

static void set_region_ext(Sema *s, Node *e, const int64_t *ext, int rank) {
    e->region_ext = arena_alloc(&s->c->arena, sizeof(int64_t) * MAX_RANK);
    memcpy(e->region_ext, ext, sizeof(int64_t) * (size_t)rank);
}

/* A region of a shared, fragment or local buffer must lie inside it where
 * its start is a constant: past a global tensor's edge reads give 0 and
 * writes do nothing, past a buffer's they would reach other memory. Its
 * extent in each dimension is region_ext (1 for a plain index). Branches
 * the specialisation never takes are not checked. */
static bool region_in_bounds(Sema *s, const Region *r) {
    const Node *e = r->node;
    if (r->sym->kind != SYM_BUFFER || s->dead || e->kind != N_INDEX || !e->region_ext) return true;
    const NodeList *idx = &e->u.index.idx;
    for (int d = 0; d < idx->len && d < r->sym->rank; d++) {
        const Node *ix = idx->items[d], *start = ix->kind == N_SLICE ? ix->u.slice.lo : ix;
        int64_t first, last, n = r->sym->shape[d]; /* the least and the greatest start */
        if (start->is_const && !start->const_float) first = last = start->cval.i;
        else if (!index_range(s, start, &first, &last)) continue; /* (past a buffer's end, other memory: loop starts too) */
        int64_t end = last + e->region_ext[d];
        if (first >= 0 && end <= n) continue;
        if (first == last)
            diag_error(s->c, ix->loc, "this region (%lld to %lld) lies outside '%s': its dimension %d has %lld element%s",
                       (long long)first, (long long)end, r->sym->name->s, d, (long long)n, n == 1 ? "" : "s");
        else
            diag_error(s->c, ix->loc, "this region reaches outside '%s': with the loop variables its start takes the "
                       "values %lld to %lld, so it spans %lld to %lld, and its dimension %d has %lld element%s",
                       r->sym->name->s, (long long)first, (long long)last, (long long)first, (long long)end, d,
                       (long long)n, n == 1 ? "" : "s");
        return false;
    }
    return true;
}

/* The row indices of a gather copy, X[rows, k]: a 1-D buffer of integers
 * (a fragment, or a shared or local buffer). */
static bool gather_rows(Sema *s, Node *ix, Sym *rows) {
    ix->sym = rows;
    rows->used = true;
    if (rows->broken) return false;
    if (rows->rank != 1 || !dtype_is_int(rows->dtype)) {
        diag_error(s->c, ix->loc, "a gather's row indices are a 1-D buffer of integers; '%s' is %s with %d dimension%s",
                   rows->name->s, dtype_name(rows->dtype), rows->rank, rows->rank == 1 ? "" : "s");
        return false;
    }
    return true;
}

/* Resolves a tile operand. `what` names it for errors ("the source of copy"). */
static bool get_region(Sema *s, Node *e, const char *what, Region *r) {
    memset(r, 0, sizeof *r);
    r->node = e;
    if (e->kind == N_NAME) {
        Sym *sym = sym_lookup(e->u.name);
        if (!sym) {
            undefined_name(s, e->loc, e->u.name);
            return false;
        }
        if (!is_buffer_sym(sym)) {
            if (!sym->broken) /* a let whose value had errors: those are enough */
                diag_error(s->c, e->loc, "%s must be a tensor or buffer, but '%s' is a %s", what, sym->name->s,
                           sym_kind_name(sym->kind));
            return false;
        }
        e->sym = sym;
        sym->used = true;
        r->sym = sym;
        if (sym->broken) return false; /* its declaration's errors are enough */
        for (int d = 0; d < sym->rank; d++)
            if (sym->kind == SYM_TENSOR && sym->dim_sym[d] && sym->dim_sym[d]->dynamic) {
                /* a tile operation's shape is compiled in; a tile of it at a corner is not */
                diag_error(s->c, e->loc, "'%s' has the dynamic size '%s' (dimension %d): a tile operation takes a "
                           "region of it of compile-time shape (%s[...] at a corner)", sym->name->s,
                           sym->dim_sym[d]->name->s, d, sym->name->s);
                return false;
            }
        r->rank = sym->rank;
        memcpy(r->ext, sym->shape, sizeof r->ext);
        set_region_ext(s, e, r->ext, r->rank);
        return true;
    }
    if (e->kind != N_INDEX) {
        diag_error(s->c, e->loc, "%s must be a tensor or buffer, or a region of one", what);
        return false;
    }
    Sym *sym = sym_lookup(e->u.index.name);
    if (!sym) {
        undefined_name(s, e->loc, e->u.index.name);
        return false;
    }
    if (!is_buffer_sym(sym)) {
        if (!sym->broken)
            diag_error(s->c, e->loc, "%s must be a tensor or buffer, but '%s' is a %s", what, sym->name->s,
                       sym_kind_name(sym->kind));
        return false;
    }
    e->sym = sym;
    sym->used = true;
    r->sym = sym;
    if (sym->broken) return false;
    NodeList *idx = &e->u.index.idx;
    if (idx->len != sym->rank) {
        diag_error(s->c, e->loc, "'%s' has %d dimension%s but %d ind%s given", sym->name->s, sym->rank,
                   sym->rank == 1 ? "" : "s", idx->len, idx->len == 1 ? "ex is" : "ices are");
        return false;
    }
    bool ok = true, any_slice = false;
    int64_t dim_ext[MAX_RANK];
    for (int i = 0; i < idx->len; i++) {
        Node *ix = idx->items[i];
        dim_ext[i] = 1;
        Sym *rows = i == 0 && sym->kind == SYM_TENSOR && ix->kind == N_NAME ? sym_lookup(ix->u.name) : NULL;
        if (rows && rows->kind == SYM_BUFFER) {
            if (!s->gather_ok) {
                diag_error(s->c, ix->loc, "rows picked by a buffer of indices (a gather) are for copy only");
                return false;
            }
            if (!gather_rows(s, ix, rows)) return false;
            r->gather = rows;
            continue;
        }
        if (ix->kind != N_SLICE) {
            ok &= check_int(s, ix, "an index");
            continue;
        }
        any_slice = true;
        bool lo = check_int(s, ix->u.slice.lo, "the start of a range");
        bool hi = check_int(s, ix->u.slice.hi, "the end of a range");
        if (!lo || !hi) { ok = false; continue; }
        int64_t ext;
        if (!const_extent(ix->u.slice.lo, ix->u.slice.hi, &ext)) {
            diag_error(s->c, ix->loc, "the extent of this range must be a compile-time constant");
            ok = false;
            continue;
        }
        if (ext <= 0) {
            diag_error(s->c, ix->loc, "this range is empty (extent %lld)", (long long)ext);
            ok = false;
            continue;
        }
        r->ext[r->rank++] = ext;
        dim_ext[i] = ext;
    }
    if (any_slice && r->gather) {
        diag_error(s->c, e->loc, "a gather region is written as a corner, X[rows, k], its shape the other operand's");
        return false;
    }
    if (any_slice) set_region_ext(s, e, dim_ext, idx->len);
    r->point = !any_slice;
    if (r->point) r->rank = 0;
    return ok && (r->point || region_in_bounds(s, r));
}

/* A point region of a tensor takes the other operand's shape on its last
 * dims. An extent larger than the dimension it lands on is a ragged tile
 * where the start steps in whole tiles (X[by * BM, 0] with BM > M: the
 * rows past M read zeros); anywhere else the shape was meant for other
 * dims (64 rows of q_s at Q[b, i, h, 0] landing on H = 8). A dynamic
 * dimension may take any size at launch, so only the fixed ones count. */
static bool region_fits(Sema *s, const Region *r) {
    const Sym *t = r->sym;
    if (t->kind != SYM_TENSOR || s->dead) return true;
    const NodeList *idx = &r->node->u.index.idx;
    for (int d = r->gather ? 1 : 0; d < t->rank; d++) {
        int64_t ext = r->ext[d], n = t->shape[d];
        if (ext <= n || (t->dim_sym[d] && t->dim_sym[d]->dynamic) || expr_multiple_of(idx->items[d], ext)) continue;
        const Sym *size = t->dim_sym[d];
        diag_error(s->c, idx->items[d]->loc,
                   "a region of %lld elements lands on dimension %d of '%s', which has %lld element%s%s%s%s: the other "
                   "operand's shape falls on the last dimensions of a point region; give this region's extents "
                   "(start : end) to lay it elsewhere",
                   (long long)ext, d, t->name->s, (long long)n, n == 1 ? "" : "s", size ? " (" : "",
                   size ? size->name->s : "", size ? ")" : "");
        return false;
    }
    return true;
}

/* Gives a point region the shape of `other` (LANGUAGE.md §4, "Regions"):
 * the trailing dims take the other's extents, extra leading dims are 1. */
static bool resolve_point(Sema *s, Region *r, const Region *other) {
    int rt = r->sym->rank, ro = other->rank;
    if (ro > rt) {
        for (int i = 0; i < ro - rt; i++)
            if (other->ext[i] != 1) {
                diag_error(s->c, r->node->loc, "'%s' has %d dimension%s; a region of it cannot take a %d-dimensional shape",
                           r->sym->name->s, rt, rt == 1 ? "" : "s", ro);
                return false;
            }
        r->rank = rt;
        memcpy(r->ext, other->ext + (ro - rt), sizeof(int64_t) * (size_t)rt);
    } else {
        r->rank = rt;
        for (int i = 0; i < rt - ro; i++) r->ext[i] = 1;
        memcpy(r->ext + (rt - ro), other->ext, sizeof(int64_t) * (size_t)ro);
    }
    r->point = false;
    set_region_ext(s, r->node, r->ext, r->rank);
    if (r->gather && r->gather->shape[0] != r->ext[0]) {
        diag_error(s->c, r->node->u.index.idx.items[0]->loc, "'%s' gives %lld row%s, but this region has %lld",
                   r->gather->name->s, (long long)r->gather->shape[0], r->gather->shape[0] == 1 ? "" : "s",
                   (long long)r->ext[0]);
        return false;
    }
    return region_fits(s, r) && region_in_bounds(s, r);
}

/* Shapes agree when they are equal after dropping extents of 1. */
static bool shapes_agree(const Region *a, const Region *b) {
    int i = 0, j = 0;
    for (;;) {
        while (i < a->rank && a->ext[i] == 1) i++;
        while (j < b->rank && b->ext[j] == 1) j++;
        if (i == a->rank || j == b->rank) return i == a->rank && j == b->rank;
        if (a->ext[i++] != b->ext[j++]) return false;
    }
}

static bool writable(Sema *s, const Region *r, const char *op) {
    if (r->sym->kind == SYM_TENSOR && r->sym->mode == MODE_IN) {
        diag_error(s->c, r->node->loc, "%s cannot write '%s': it is an input (declare it `out` or `inout`)", op,
                   r->sym->name->s);
        return false;
    }
    return true;
}

static bool pair_shapes(Sema *s, Node *call, const char *op, Region *a, Region *b) {
    if (a->point && b->point) {
        diag_error(s->c, call->loc, "%s: neither operand has a shape; give one of them explicit extents (T[a : b, ...])", op);
        return false;
    }
    if (a->point && !resolve_point(s, a, b)) return false;
    if (b->point && !resolve_point(s, b, a)) return false;
    if (!shapes_agree(a, b)) {
        char x[96], y[96];
        format_shape(x, sizeof x, a->ext, a->rank);
        format_shape(y, sizeof y, b->ext, b->rank);
        diag_error(s->c, call->loc, "%s: the shapes of '%s' %s and '%s' %s do not match", op, a->sym->name->s, x,
                   b->sym->name->s, y);
        return false;
    }
    return true;
}

/* A flag: true or false (a compile-time boolean), or 0 or 1. */
static bool const_bool_arg(Sema *s, Node *a, const char *what, bool *out) {
    if (!a) return true;
    const Sym *named = a->kind == N_NAME ? sym_lookup(a->u.name) : NULL;
    if (is_buffer_sym(named)) {
        diag_error(s->c, a->loc, "%s must be true or false, not the %s '%s'", what, scope_name(named), named->name->s);
        return false;
    }
    if (!check_expr(s, a)) return false;
    if (!a->is_const && (a->dtype == DT_BOOL || dtype_is_int(a->dtype))) {
        /* the same words as a run-time stages or dim */
        int64_t unused;
        return check_const_int(s, a, what, &unused);
    }
    if (!a->is_const || a->const_float || (a->dtype != DT_BOOL && a->cval.i != 0 && a->cval.i != 1)) {
        diag_error(s->c, a->loc, "%s must be true or false", what);
        return false;
    }
    *out = a->cval.i != 0;
    return true;
}

/* A bare name from a fixed set (policy = full_row, order = col). */
static int keyword_arg(Sema *s, Node *a, const char *what, const char *const *choices) {
    if (a->kind == N_NAME)
        for (int i = 0; choices[i]; i++)
            if (strcmp(a->u.name->s, choices[i]) == 0) return i;
    char list[128] = "";
    size_t len = 0;
    for (int i = 0; choices[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
    if (a->kind == N_NAME)
        diag_error(s->c, a->loc, "unknown %s '%s' (expected one of: %s)", what, a->u.name->s, list);
    else
        diag_error(s->c, a->loc, "%s must be one of: %s", what, list);
    return -1;
}

static bool require_onchip(Sema *s, const Region *r, const char *what) {
    if (r->sym->kind == SYM_BUFFER) return true;
    diag_error(s->c, r->node->loc, "%s must be a fragment, shared or local buffer, but '%s' is a global tensor", what,
               r->sym->name->s);
    return false;
}

static void check_gemm(Sema *s, Node *call, Node **arg) {
    Region A, B, C;
    bool ok = get_region(s, arg[0], "operand A of gemm", &A);
    ok &= get_region(s, arg[1], "operand B of gemm", &B);
    ok &= get_region(s, arg[2], "accumulator C of gemm", &C);
    bool ta = false, tb = false, clr = false;
    ok &= const_bool_arg(s, arg[3], "transpose_a", &ta);
    ok &= const_bool_arg(s, arg[4], "transpose_b", &tb);
    ok &= const_bool_arg(s, arg[5], "clear", &clr);
    static const char *const policies[] = {"square", "full_row", "full_col", NULL};
    if (arg[6] && keyword_arg(s, arg[6], "gemm policy", policies) < 0) ok = false;
    if (!ok) return;
    Region *ops[3] = {&A, &B, &C};
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        Region *r = ops[i];
        if (r->point) {
            diag_error(s->c, r->node->loc, "gemm operand %s needs a shape: pass the whole buffer or explicit extents",
                       names[i]);
            return;
        }
        if (r->sym->kind == SYM_TENSOR || (i < 2 && r->sym->scope == SCOPE_LOCAL)) {
            diag_error(s->c, r->node->loc, "gemm operand %s must be a shared buffer or a fragment, but '%s' is a %s",
                       names[i], r->sym->name->s, scope_name(r->sym));
            return;
        }
        if (r->rank != 2) {
            diag_error(s->c, r->node->loc, "gemm operand %s must be 2-dimensional, but '%s' has %d dimension%s",
                       names[i], r->sym->name->s, r->rank, r->rank == 1 ? "" : "s");
            return;
        }
    }
    if (C.sym->scope != SCOPE_FRAGMENT) {
        diag_error(s->c, C.node->loc, "the gemm accumulator C must be a fragment, but '%s' is a %s", C.sym->name->s,
                   scope_name(C.sym));
        return;
    }
    int64_t m = ta ? A.ext[1] : A.ext[0], ka = ta ? A.ext[0] : A.ext[1];
    int64_t kb = tb ? B.ext[1] : B.ext[0], n = tb ? B.ext[0] : B.ext[1];
    char sa[64], sb[64], sc[64];
    format_shape(sa, sizeof sa, A.ext, 2);
    format_shape(sb, sizeof sb, B.ext, 2);
    format_shape(sc, sizeof sc, C.ext, 2);
    if (ka != kb)
        diag_error(s->c, call->loc, "gemm: K of A (%lld, from '%s' %s%s) differs from K of B (%lld, from '%s' %s%s)",
                   (long long)ka, A.sym->name->s, sa, ta ? " transposed" : "", (long long)kb, B.sym->name->s, sb,
                   tb ? " transposed" : "");
    else if (m != C.ext[0])
        diag_error(s->c, call->loc, "gemm: M of A (%lld, from '%s' %s) differs from the rows of C ('%s' %s)",
                   (long long)m, A.sym->name->s, sa, C.sym->name->s, sc);
    else if (n != C.ext[1])
        diag_error(s->c, call->loc, "gemm: N of B (%lld, from '%s' %s) differs from the columns of C ('%s' %s)",
                   (long long)n, B.sym->name->s, sb, C.sym->name->s, sc);
    else if (A.sym->dtype != B.sym->dtype)
        diag_error(s->c, call->loc, "gemm: A is %s but B is %s; both operands must have one dtype",
                   dtype_name(A.sym->dtype), dtype_name(B.sym->dtype));
    else if (A.sym->dtype == DT_BOOL || C.sym->dtype == DT_BOOL)
        diag_error(s->c, call->loc, "gemm: '%s' is bool; a gemm multiplies and sums numbers",
                   (A.sym->dtype == DT_BOOL ? A : C).sym->name->s);
}

static void check_reduce(Sema *s, Node *call, Node **arg) {
    Region src, dst;
    bool ok = get_region(s, arg[0], "the source of a reduction", &src);
    ok &= get_region(s, arg[1], "the destination of a reduction", &dst);
    bool clr = true;
    ok &= const_bool_arg(s, arg[3], "clear", &clr);
    if (!ok) return;
    if (!require_onchip(s, &src, "the source of a reduction") ||
        !require_onchip(s, &dst, "the destination of a reduction"))
        return;
    if (src.point || dst.point) {
        diag_error(s->c, call->loc, "reductions take whole buffers or explicit regions");
        return;
    }
    int64_t dim = 1;
    if (arg[2] && !check_const_int(s, arg[2], "dim", &dim)) return;
    if (!arg[2] && src.rank == 1) dim = 0;
    if (dim < -src.rank || dim >= src.rank) {
        diag_error(s->c, arg[2] ? arg[2]->loc : call->loc, "dim = %lld is out of range for the %d-dimensional '%s' (0 to %d)",
                   (long long)dim, src.rank, src.sym->name->s, src.rank - 1);
        return;
    }
    if (dim < 0) dim += src.rank;
    Region want = {.rank = 0};
    for (int i = 0; i < src.rank; i++)
        if (i != dim) want.ext[want.rank++] = src.ext[i];
    if (want.rank == 0) want.ext[want.rank++] = 1;
    bool same = want.rank == dst.rank;
    for (int i = 0; same && i < dst.rank; i++) same = want.ext[i] == dst.ext[i];
    if (!same && !(want.rank == 1 && want.ext[0] == 1 && shapes_agree(&want, &dst))) {
        char a[96], b[96], w[96];
        format_shape(a, sizeof a, src.ext, src.rank);
        format_shape(b, sizeof b, dst.ext, dst.rank);
        format_shape(w, sizeof w, want.ext, want.rank);
        diag_error(s->c, call->loc, "reducing '%s' %s along dim %lld gives shape %s, but '%s' is %s",
                   src.sym->name->s, a, (long long)dim, w, dst.sym->name->s, b);
    }
}

/* cumsum(src, dst, dim = 1, reverse = false, exclusive = false): every
 * prefix (or suffix) sum of whole fragments of one shape, rank 1 or 2. */
static void check_cumsum(Sema *s, Node *call, Node **arg) {
    Region src, dst;
    bool ok = get_region(s, arg[0], "the source of cumsum", &src);
    ok &= get_region(s, arg[1], "the destination of cumsum", &dst);
    bool flag = false;
    ok &= const_bool_arg(s, arg[3], "reverse", &flag);
    ok &= const_bool_arg(s, arg[4], "exclusive", &flag);
    if (!ok) return;
    Region *ops[2] = {&src, &dst};
    for (int i = 0; i < 2; i++) {
        const Sym *b = ops[i]->sym;
        if (b->kind != SYM_BUFFER || b->scope != SCOPE_FRAGMENT || arg[i]->kind != N_NAME) {
            diag_error(s->c, arg[i]->loc, "cumsum scans whole fragments, and '%s' is %s", b->name->s,
                       b->kind == SYM_BUFFER && b->scope == SCOPE_FRAGMENT ? "a part of one" : "not one");
            return;
        }
        if (!dtype_is_int(b->dtype) && !dtype_is_float(b->dtype)) {
            diag_error(s->c, arg[i]->loc, "cumsum adds numbers; '%s' is %s", b->name->s, dtype_name(b->dtype));
            return;
        }
    }
    if (src.rank > 2) {
        diag_error(s->c, arg[0]->loc, "cumsum scans fragments of one or two dimensions; '%s' has %d", src.sym->name->s,
                   src.rank);
        return;
    }
    bool same = src.rank == dst.rank;
    for (int i = 0; same && i < src.rank; i++) same = src.ext[i] == dst.ext[i];
    if (!same) {
        char a[96], b[96];
        format_shape(a, sizeof a, src.ext, src.rank);
        format_shape(b, sizeof b, dst.ext, dst.rank);
        diag_error(s->c, call->loc, "cumsum keeps the shape: '%s' is %s but '%s' is %s", src.sym->name->s, a,
                   dst.sym->name->s, b);
        return;
    }
    int64_t dim = src.rank - 1;
    if (arg[2] && !check_const_int(s, arg[2], "dim", &dim)) return;
    if (dim < -src.rank || dim >= src.rank) {
        diag_error(s->c, arg[2]->loc, "dim = %lld is out of range for the %d-dimensional '%s' (0 to %d)", (long long)dim,
                   src.rank, src.sym->name->s, src.rank - 1);
        return;
    }
    if (!s->dead) dst.sym->body_written = true;
}

static void check_copy(Sema *s, Node *call, Node **arg) {
    Region src, dst;
    s->gather_ok = true;
    bool ok = get_region(s, arg[0], "the source of copy", &src);
    ok &= get_region(s, arg[1], "the destination of copy", &dst);
    s->gather_ok = false;
    if (ok && out_read_ok(s, arg[0]->loc, src.sym) && writable(s, &dst, "copy"))
        pair_shapes(s, call, "copy", &src, &dst);
    if (ok && !s->dead) dst.sym->body_written = true; /* a dead branch writes nothing */
}

/* clear(buf) and fill(buf, value). */
static void check_fill(Sema *s, Node *call, Node **arg, const char *name) {
    Region buf;
    bool ok = get_region(s, arg[0], "the buffer to fill", &buf);
    if (arg[1]) ok &= check_expr(s, arg[1]);
    if (ok && writable(s, &buf, name) && buf.point)
        diag_error(s->c, arg[0]->loc, "%s needs a whole buffer or explicit extents", name);
    else if (ok && arg[1])
        literal_fits(s, arg[1], buf.sym->dtype);
    if (ok && !s->dead) buf.sym->body_written = true;
}

/* atomic_add of a tile into a tensor's region, or of one value into one
 * element inside a parallel loop. */
static void check_atomic_add(Sema *s, Node *call, Node **arg) {
    Region dst;
    if (!get_region(s, arg[0], "the destination of atomic_add", &dst) || !writable(s, &dst, "atomic_add")) return;
    if (dst.sym->kind != SYM_TENSOR) {
        diag_error(s->c, arg[0]->loc, "atomic_add adds into global memory, but '%s' is a %s", dst.sym->name->s,
                   scope_name(dst.sym));
        return;
    }
    if (!out_read_ok(s, arg[0]->loc, dst.sym)) return; /* it adds to the old values */
    Dtype dt = dst.sym->dtype;
    if (dt == DT_BOOL || dtype_is_fp8(dt)) {
        /* the hardware adds integers, f16, bf16, f32 and f64 */
        diag_error(s->c, arg[0]->loc, "atomic_add cannot add into the %s tensor '%s': it adds into integer, f16, "
                   "bf16, f32 and f64 tensors", dtype_name(dt), dst.sym->name->s);
        return;
    }
    if (dtype_is_float(dt) && !s->dead && !s->k->float_atomic) s->k->float_atomic = call;
    Node *src = arg[1];
    Sym *ssym = src->kind == N_NAME ? sym_lookup(src->u.name) : NULL;
    bool tile_src = is_buffer_sym(ssym) || (src->kind == N_INDEX && !s->in_parallel);
    if (!tile_src) {
        /* one value into one element, inside a parallel loop */
        if (!s->in_parallel) {
            diag_error(s->c, src->loc, "atomic_add of a single value must be inside a parallel loop");
            return;
        }
        if (!dst.point) {
            diag_error(s->c, arg[0]->loc, "atomic_add of a single value needs one element: %s[i, j]", dst.sym->name->s);
            return;
        }
        check_expr(s, src);
        int64_t ones[MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1};
        set_region_ext(s, arg[0], ones, dst.sym->rank); /* one element */
        return;
    }
    Region sr;
    if (get_region(s, src, "the source of atomic_add", &sr)) pair_shapes(s, call, "atomic_add", &sr, &dst);
}

static void check_use_swizzle(Sema *s, Node *call, Node **arg) {
    int64_t panel = 8;
    if (s->in_loop || s->depth > 2) {
        diag_error(s->c, call->loc, "use_swizzle must be at the top level of the kernel body");
        return;
    }
    if (s->seen_swizzle) {
        diag_error(s->c, call->loc, "use_swizzle is given twice");
        return;
    }
    s->seen_swizzle = true;
    if (arg[0] && check_const_int(s, arg[0], "panel", &panel) && panel < 1)
        diag_error(s->c, arg[0]->loc, "panel must be at least 1, not %lld", (long long)panel);
    static const char *const orders[] = {"row", "col", "column", NULL};
    if (arg[1]) keyword_arg(s, arg[1], "use_swizzle order", orders);
}

static void check_print(Sema *s, Node *call) {
    NodeList *args = &call->u.call.args;
    for (int i = 0; i < args->len; i++) {
        Node *a = args->items[i];
        if (a->kind == N_STR) continue;
        if (a->kind == N_NAMED_ARG) {
            diag_error(s->c, a->loc, "print takes no named arguments");
            continue;
        }
        check_expr(s, a);
    }
}

void check_op_call(Sema *s, Node *call) {
    Name *fn = call->u.call.name;
    if (call->u.call.body || call->u.call.reduce_vars.len) {
        diag_error(s->c, call->loc, "reductions like '%s(k: ...)' are only allowed in the reference block",
                   fn ? fn->s : "sum");
        return;
    }
    if (fn && is_atomic_name(fn) && strcmp(fn->s, "atomic_add") != 0) { /* one element; atomic_add: below */
        check_atomic(s, call, true);
        return;
    }
    if (!fn || !is_tile_op(fn)) {
        if (fn && is_builtin_function(fn))
            diag_error(s->c, call->loc, "the result of %s(...) is unused; a statement must be an operation or an assignment", fn->s);
        else if (!fn)
            diag_error(s->c, call->loc, "the result of the conversion is unused");
        else
            diag_error(s->c, call->loc, "unknown operation '%s'", fn->s);
        return;
    }
    const char *name = fn->s;
    if (!strncmp(name, "alloc_", 6)) {
        diag_error(s->c, call->loc, "%s(...) must be bound to a name: let buf = %s(...);", name, name);
        return;
    }
    if (!strcmp(name, "range") || !strcmp(name, "pipelined") || !strcmp(name, "parallel") || !strcmp(name, "unroll")) {
        diag_error(s->c, call->loc, "%s(...) is a loop iterator: for i in %s(...) { ... }", name, name);
        return;
    }
    const Signature *sig = find_signature(fn);
    Node *arg[MAX_PARAMS];
    if (!bind_args(s, call, sig, arg)) return;
    bool elementwise_ok = !strcmp(name, "atomic_add") || !strcmp(name, "print");
    if (s->in_parallel && !elementwise_ok) {
        diag_error(s->c, call->loc, "%s works on whole tiles and cannot be used inside a parallel loop%s", name,
                   !strcmp(name, "copy") ? "; there, move elements one by one (w[t] = X[i + t] in a `for t in "
                                           "unroll(n)` loop fills a local array)"
                                         : "");
        return;
    }
    if (!strcmp(name, "copy")) check_copy(s, call, arg);
    else if (!strcmp(name, "gemm")) check_gemm(s, call, arg);
    else if (!strcmp(name, "clear") || !strcmp(name, "fill")) check_fill(s, call, arg, name);
    else if (!strncmp(name, "reduce_", 7)) check_reduce(s, call, arg);
    else if (!strcmp(name, "cumsum")) check_cumsum(s, call, arg);
    else if (!strcmp(name, "atomic_add")) check_atomic_add(s, call, arg);
    else if (!strcmp(name, "use_swizzle")) check_use_swizzle(s, call, arg);
    else if (!strcmp(name, "print")) check_print(s, call);
    /* sync_threads: nothing more to check */
}

Sym *check_alloc(Sema *s, Node *call, Name *name, Loc name_loc, bool *was_alloc) {
    *was_alloc = false;
    if (call->kind != N_CALL || !call->u.call.name || strncmp(call->u.call.name->s, "alloc_", 6) != 0 ||
        !is_tile_op(call->u.call.name))
        return NULL;
    *was_alloc = true;
    const char *fname = call->u.call.name->s;
    MemScope scope = !strcmp(fname, "alloc_shared") ? SCOPE_SHARED
                   : !strcmp(fname, "alloc_fragment") ? SCOPE_FRAGMENT : SCOPE_LOCAL;
    /* a block-wide buffer cannot be made per element; a thread's own array
     * can (one per thread, reused by the iterations it runs) */
    bool misplaced = s->in_parallel && scope != SCOPE_LOCAL;
    if (misplaced) diag_error(s->c, call->loc, "%s cannot be used inside a parallel loop (alloc_local can)", fname);
    Node *arg[MAX_PARAMS];
    Sym *sym = sym_new(s, SYM_BUFFER, name, name_loc);
    sym->scope = scope;
    sym->decl = call;
    sym->rank = 1;
    sym->shape[0] = 1;
    sym->dtype = DT_F32;
    if (!bind_args(s, call, find_signature(call->u.call.name), arg)) {
        sym->broken = true; /* declared even so: its uses bring no "undefined name" */
        return sym;
    }
    Node *shape = arg[0];
    Node *single[1] = {shape};
    Node **dims = single;
    int rank = 1;
    if (shape->kind == N_LIST) {
        dims = shape->u.list.items;
        rank = shape->u.list.len;
    }
    if (rank > MAX_RANK) {
        diag_error(s->c, shape->loc, "buffers have at most %d dimensions", MAX_RANK);
        sym->broken = true;
        return sym;
    }
    sym->rank = rank;
    int64_t elems = 1;
    int errors = s->c->errors;
    for (int i = 0; i < rank; i++) {
        int64_t d;
        sym->shape[i] = 1;
        if (!check_const_int(s, dims[i], "the shape of a buffer", &d)) continue;
        if (d < 1) {
            diag_error(s->c, dims[i]->loc, "buffer dimensions must be positive, not %lld", (long long)d);
            continue;
        }
        sym->shape[i] = d;
        if (__builtin_mul_overflow(elems, d, &elems) || elems > (INT64_C(1) << 40))
            diag_error(s->c, dims[i]->loc, "this buffer is absurdly large (more than 2^40 elements)");
    }
    Node *dt = arg[1];
    sym->dtype = dt->kind == N_DTYPE ? dt->u.dt : DT_F32;
    if (dt->kind != N_DTYPE) diag_error(s->c, dt->loc, "the second argument of %s must be a dtype (f16, f32, ...)", fname);
    /* declared even so, that its uses bring no "undefined name" */
    sym->broken = misplaced || s->c->errors != errors;
    return sym;
}

static const char *const loop_names[] = {"range", "pipelined", "parallel", "unroll"};

/* pipelined(n, 3) of a file written when the second positional argument
 * was the stages: a literal that could be a stage count, as the end of a
 * loop whose start is not known to lie below it. */
static bool stages_meant(const Node *start, const Node *end) {
    if (end->kind != N_INT || end->cval.i < 1 || end->cval.i > 16) return false;
    return !(start->is_const && !start->const_float && start->cval.i < end->cval.i);
}

int check_loop_iter(Sema *s, Node *stmt) {
    Node *it = stmt->u.loop.iter;
    int nvars = stmt->u.loop.vars.len;
    if (it->kind != N_CALL || !it->u.call.name) {
        diag_error(s->c, it->loc, "a for loop runs over range(...), pipelined(...), parallel(...) or unroll(...)");
        return -1;
    }
    int kind = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(it->u.call.name->s, loop_names[i])) kind = i;
    if (kind < 0) {
        diag_error(s->c, it->loc, "unknown loop iterator '%s' (expected range, pipelined, parallel or unroll)",
                   it->u.call.name->s);
        return -1;
    }
    Node *arg[MAX_PARAMS];
    if (!bind_args(s, it, find_signature(it->u.call.name), arg)) return -1;
    bool ok = true;
    switch (kind) {
    case LOOP_RANGE: {
        int n = 0;
        for (int i = 0; i < 3; i++)
            if (arg[i]) { ok &= check_int(s, arg[i], "a range bound"); n = i + 1; }
        if (n == 3 && arg[2]->is_const && arg[2]->cval.i == 0) {
            diag_error(s->c, arg[2]->loc, "the step of range must not be 0");
            ok = false;
        }
        break;
    }
    case LOOP_PIPELINED: {
        /* pipelined(n) counts 0 to n - 1, pipelined(a, b) a to b - 1;
         * stages only by name */
        int positional = 0;
        for (int i = 0; i < it->u.call.args.len; i++) positional += it->u.call.args.items[i]->kind != N_NAMED_ARG;
        if (positional > 2) {
            diag_error(s->c, arg[2]->loc, "pipelined takes a start and an end; the stages are named: pipelined(a, b, stages = %s)",
                       arg[2]->kind == N_INT ? arena_printf(&s->c->arena, "%lld", (long long)arg[2]->u.ival) : "s");
            return -1;
        }
        ok &= check_int(s, arg[0], arg[1] ? "the start of pipelined" : "the trip count of pipelined");
        if (arg[1]) ok &= check_int(s, arg[1], "the end of pipelined");
        if (ok && arg[1] && !arg[2] && stages_meant(arg[0], arg[1])) {
            diag_error(s->c, arg[1]->loc,
                       "the second argument of pipelined is the loop's end (pipelined(start, end)); if %lld is the "
                       "number of stages, name it: stages = %lld",
                       (long long)arg[1]->cval.i, (long long)arg[1]->cval.i);
            return -1;
        }
        int64_t stages = 3;
        if (arg[2] && check_const_int(s, arg[2], "stages", &stages)) {
            if (stages < 1 || stages > 16) {
                diag_error(s->c, arg[2]->loc, "stages must be between 1 and 16, not %lld", (long long)stages);
                ok = false;
            }
        } else if (arg[2]) {
            ok = false;
        }
        break;
    }
    case LOOP_PARALLEL: {
        NodeList *args = &it->u.call.args;
        /* each spreads its iterations over the block's threads: nested, a
         * thread would run one outer iteration and its own share of the
         * inner one */
        if (s->in_parallel) {
            diag_error(s->c, stmt->loc,
                       "a parallel loop cannot be inside a parallel loop: write one over all the dimensions "
                       "(for (i, j) in parallel(M, N)), or make the inner one sequential (range or unroll)");
            return -1;
        }
        if (args->len > MAX_RANK) {
            diag_error(s->c, it->loc, "parallel takes at most %d extents", MAX_RANK);
            return -1;
        }
        int64_t iterations = 1;
        for (int i = 0; i < args->len; i++) {
            Node *a = args->items[i];
            if (a->kind == N_NAMED_ARG) {
                diag_error(s->c, a->loc, "parallel takes no named arguments");
                ok = false;
                continue;
            }
            int64_t ext;
            if (!check_const_int(s, a, "a parallel extent", &ext)) { ok = false; continue; }
            if (ext < 1) {
                diag_error(s->c, a->loc, "a parallel extent must be positive, not %lld", (long long)ext);
                ok = false;
            } else if (__builtin_mul_overflow(iterations, ext, &iterations) || iterations > SEMA_INDEX_LIMIT) {
                /* the code counts them in 64 bits, over the block's threads */
                diag_error(s->c, a->loc, "this parallel loop has more than 2^40 iterations");
                ok = false;
                iterations = 1;
            }
        }
        if (args->len != nvars) {
            diag_error(s->c, stmt->loc, "%d loop variable%s for %d parallel extent%s", nvars, nvars == 1 ? "" : "s",
                       args->len, args->len == 1 ? "" : "s");
            return -1;
        }
        return ok ? kind : -1;
    }
    case LOOP_UNROLL: {
        int64_t n;
        if (!check_const_int(s, arg[0], "the trip count of unroll", &n)) ok = false;
        else if (n < 0) {
            diag_error(s->c, arg[0]->loc, "the trip count of unroll must not be negative");
            ok = false;
        }
        break;
    }
    }
    /* loop counters are 32-bit ints in the generated code (a stepped range
     * counts in 64 bits) */
    bool wide_counter = kind == LOOP_RANGE && it->u.call.args.len == 3;
    for (int i = 0; i < it->u.call.args.len && !wide_counter; i++) {
        const Node *a = it->u.call.args.items[i];
        if (a->kind != N_NAMED_ARG && a->is_const && !a->const_float && (a->cval.i > INT32_MAX || a->cval.i < -INT32_MAX)) {
            diag_error(s->c, a->loc, "%lld is past the 32-bit loop counters' range (2^31 - 1): split the loop",
                       (long long)a->cval.i);
            ok = false;
        }
    }
    if (nvars != 1) {
        diag_error(s->c, stmt->loc, "%s loops have one loop variable, not %d", loop_names[kind], nvars);
        return -1;
    }
    if (kind == LOOP_PIPELINED && s->in_parallel) {
        diag_error(s->c, stmt->loc, "a pipelined loop cannot be inside a parallel loop");
        return -1;
    }

    return ok ? kind : -1;
}
