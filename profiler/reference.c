/* reference.c - the CPU evaluator of a kernel's `reference` block
 * (LANGUAGE.md §5): f64 arithmetic, element by element, on demand.
 *
 * prof_ref_new compiles the checked syntax tree into a small expression tree
 * of its own (CE) with everything resolved: index variables become slots of
 * a per-thread environment, tensor reads point at the input values,
 * temporaries at their definitions. Evaluation walks that tree.
 *
 * Speed: temporaries (and outputs read by later statements) of at most
 * PROF_MEMO_MAX elements are memoised (a value and an atomic "done" flag per
 * element, filled lazily by whichever thread needs them first); bigger ones
 * are recomputed, with a per-thread direct-mapped cache of recent elements.
 * Every reduction keeps, per thread, its last result keyed by the values of
 * the index variables its body depends on. `sum(k: A[.., k, ..] * B[..])`
 * with plain index variables (or indices that do not depend on k) runs as
 * a strided dot-product loop; where one factor is something else (a
 * temporary, an expression of k) its values for every k are computed into
 * a row of the thread's, kept while its other index variables keep their
 * values: attention's O[b, h, i, d] = sum(j: p[b, h, i, j] * V[..]) then
 * computes the row of p once for all d, not once per d. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* ---- the compiled form ---- */

typedef enum Op {
    O_CONST, O_SLOT, O_LET, O_READ_IN, O_READ_DEF,
    O_NEG, O_NOT, O_INT1,
    O_ADD, O_SUB, O_MUL, O_DIV, O_INT2,
    O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_LAND, O_LOR, O_COND,
    O_FN1, O_MIN2, O_MAX2, O_POW, O_FMA, O_CEILDIV, O_CAST, O_RANDOM,
    O_SUM, O_RMAX, O_RMIN,
} Op;

typedef enum Fn1 {
    F_EXP, F_EXP2, F_LOG, F_LOG2, F_SQRT, F_RSQRT, F_TANH, F_SIGMOID, F_ERF, F_FLOOR, F_CEIL, F_SIN, F_COS, F_ABS,
} Fn1;

static const char *const fn1_names[] = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh",
                                        "sigmoid", "erf", "floor", "ceil", "sin", "cos", "abs", NULL};

typedef struct CE CE;

/* One factor of a dot-product reduction: values[base + sum(env[slot] *
 * stride) + sum(expr * expr_stride) + k * kstride], where the expressions
 * are indices that do not depend on k (`h / (H / HK)`), evaluated once a
 * reduction; one outside its dimension makes the factor 0, as a read there. */
typedef struct DotFactor {
    const double *values;
    int n;
    int slot[MAX_RANK];
    int64_t stride[MAX_RANK];
    int nexpr;
    const CE *expr[MAX_RANK];
    int64_t expr_stride[MAX_RANK], expr_dim[MAX_RANK];
    int64_t kstride;
    /* Or any other expression of k (attention's p[b, h, i, j], a
     * gradient's e / l): its values for every k, computed into a row of
     * the thread's (TCtx.rows[row]) and kept while the slots it depends on
     * (key_slot) keep their values, so that the next output element of
     * the same row (another d) reuses them. */
    const CE *materialised;
    int row, kslot, nkey;
    int *key_slot;
    int64_t range;
} DotFactor;

struct CE {
    Op op;
    int fn;            /* O_FN1 */
    AstOp iop;         /* O_INT1, O_INT2: the integer operator */
    Dtype to, from;    /* O_CAST */
    double k;          /* O_CONST */
    int slot;          /* O_SLOT */
    int target;        /* O_READ_IN: input; O_READ_DEF: definition; O_LET: let */
    bool narrow;       /* contains a cast that rounds to a narrower float */
    CE *a, *b, *c;
    int nidx;          /* reads */
    CE **idx;
    bool all_slots;    /* reads: every index is a plain slot in its dimension's range */
    /* reductions */
    int nvars;
    int *vslot;
    int64_t *vrange;
    CE *body;
    int rc;            /* reduction cache id */
    int nfree;
    int *free_slots;
    int64_t key_off;   /* where its key lives in a context's rc_key */
    int ndot;          /* 1 or 2: runs as a dot product */
    DotFactor dot[2];
};

typedef struct Input {
    Sym *sym;
    const double *values;
    int rank;
    int64_t shape[MAX_RANK], stride[MAX_RANK];
} Input;

typedef struct Def {
    Sym *sym;
    int rank;
    int64_t shape[MAX_RANK], stride[MAX_RANK];
    int64_t elems;
    int slots[MAX_RANK];
    CE *rhs;
    bool read;          /* read by a later statement */
    bool memo;
    _Atomic uint64_t *mval;
    _Atomic unsigned char *mdone;
    int cache;          /* element cache id (big definitions that are read), else -1 */
    double cost;        /* per element, -1 until computed */
} Def;

typedef struct Let {
    Node *decl;   /* the `let` statement (its symbol's decl) */
    CE *val;
    double v;
} Let;

enum { EC_BITS = 13, EC_SIZE = 1 << EC_BITS };
/* A materialised dot factor's values (DotFactor.materialised). */
typedef struct RowBuf {
    bool ok;
    int64_t *key;
    double v[];
} RowBuf;
typedef struct ElemCache {
    int64_t key[EC_SIZE];
    double val[EC_SIZE];
} ElemCache;

/* What one thread needs to evaluate: the index variables' values, the
 * reduction caches and the element caches. */
typedef struct TCtx {
    int64_t *env;
    unsigned char *rc_ok;
    double *rc_val;
    int64_t *rc_key;
    ElemCache **ec;
    struct RowBuf **rows;
    bool in_use;        /* held by a thread (under RefEval.mu) */
    struct TCtx *next;
} TCtx;

typedef struct Block {
    struct Block *next;
    size_t used, cap;
    max_align_t data[];
} Block;

struct RefEval {
    KernelInfo *k;
    uint64_t id;
    Block *mem;
    Input *ins;
    int nins;
    Def *defs;
    int ndefs;
    Let *lets;
    int nlets;
    Sym **slot_sym;
    int64_t *slot_range;
    int nslots, slot_cap;
    int nrc;
    int64_t rc_keys;
    int nec;
    int nrows;          /* materialised dot factors */
    const CE **row_of;  /* per row: the read it holds (shared by identical reads), or NULL */
    int *row_kslot;
    pthread_mutex_t mu;
    TCtx *ctxs;
    bool failed;
};

/* ---- memory ---- */

static void *ralloc(RefEval *r, size_t n) {
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!r->mem || r->mem->used + n > r->mem->cap) {
        size_t cap = n > 65536 ? n : 65536;
        Block *b = xmalloc(sizeof *b + cap);
        b->next = r->mem;
        b->used = 0;
        b->cap = cap;
        r->mem = b;
    }
    void *p = (char *)r->mem->data + r->mem->used;
    r->mem->used += n;
    memset(p, 0, n);
    return p;
}

static CE *ce_new(RefEval *r, Op op) {
    CE *n = ralloc(r, sizeof *n);
    n->op = op;
    n->rc = -1;
    return n;
}

static CE *ce_const(RefEval *r, double v) {
    CE *n = ce_new(r, O_CONST);
    n->k = v;
    return n;
}

/* ---- scalar semantics ---- */

static inline double bits2d(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
static inline uint64_t d2bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static bool as_i64(double v, int64_t *out) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return false;
    *out = (int64_t)v;
    return true;
}

static int int_bits(Dtype t) { return dtype_bytes(t) * 8; }

/* An integer-valued double converted to the integer dtype t: wraps modulo
 * 2^bits (C's conversion between integer types). */
static double int_wrap(Dtype t, double v) {
    int64_t x;
    if (!as_i64(v, &x)) return prof_round_to(t, v); /* beyond int64: saturate */
    int bits = int_bits(t);
    if (bits >= 64) return t == DT_U64 ? (double)(uint64_t)x : (double)x;
    uint64_t u = (uint64_t)x & ((1ULL << bits) - 1);
    if (dtype_is_signed(t) && (u >> (bits - 1))) return (double)((int64_t)u - (int64_t)(1ULL << bits));
    return (double)u;
}

static double do_cast(Dtype to, Dtype from, double v) {
    if (to == DT_BOOL) return v != 0;
    if (dtype_is_float(to)) return prof_round_to(to, v);
    if (dtype_is_int(to)) {
        if (dtype_is_int(from) || from == DT_BOOL) return int_wrap(to, v);
        return prof_round_to(to, v); /* from a float: truncate toward zero, saturate, NaN -> 0 */
    }
    return v;
}

static double do_fn1(int fn, double x) {
    switch (fn) {
    case F_EXP: return exp(x);
    case F_EXP2: return exp2(x);
    case F_LOG: return log(x);
    case F_LOG2: return log2(x);
    case F_SQRT: return sqrt(x);
    case F_RSQRT: return 1.0 / sqrt(x);
    case F_TANH: return tanh(x);
    case F_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case F_ERF: return erf(x);
    case F_FLOOR: return floor(x);
    case F_CEIL: return ceil(x);
    case F_SIN: return sin(x);
    case F_COS: return cos(x);
    default: return fabs(x);
    }
}

static double do_ceildiv(double a, double b) {
    int64_t x, y;
    if (as_i64(a, &x) && as_i64(b, &y) && y != 0 && !(x == INT64_MIN && y == -1))
        return (double)(x / y + ((x % y != 0) && ((x < 0) == (y < 0)) ? 1 : 0));
    return ceil(a / b);
}

/* A seed or an offset as the generated code takes it: the integer as a
 * 64-bit unsigned value (a negative one wrapped). */
static uint64_t random_arg(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775808.0) return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
    return v < -9223372036854775808.0 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)v;
}

/* randint, rand, randn (kind 0, 1, 2): frontend/random.c, as the GPU draws them */
static double do_random(int kind, double seed, double offset) {
    uint64_t s = random_arg(seed), o = random_arg(offset);
    return kind == 0 ? (double)random_int(s, o) : kind == 1 ? (double)random_uniform(s, o) : (double)random_normal(s, o);
}

/* The integer operators (O_INT1, O_INT2) compute what C computes on int64,
 * through the front end's int_binop/int_unop, so that the reference agrees
 * with constant folding; where C leaves the result undefined (overflow, a
 * shift count outside 0..63, a left shift of a negative value, division by
 * zero) the result is NaN. Operands beyond int64 (u64 values from 2^63)
 * take f64 arithmetic for + - * /, NaN for the others. */
static double do_int2(AstOp op, double a, double b) {
    int64_t x, y, r;
    if (as_i64(a, &x) && as_i64(b, &y)) return int_binop(op, x, y, &r) ? (double)r : NAN;
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return trunc(a / b);
    default: return NAN;
    }
}

static double do_int1(AstOp op, double a) {
    int64_t x, r;
    if (as_i64(a, &x)) return int_unop(op, x, &r) ? (double)r : NAN;
    return op == OP_NEG ? -a : NAN;
}

/* ---- evaluation ---- */

static double eval(RefEval *r, TCtx *t, const CE *n);

static double def_element(RefEval *r, TCtx *t, Def *d, const int64_t *ix, bool cached) {
    int64_t flat = 0;
    for (int j = 0; j < d->rank; j++) {
        if ((uint64_t)ix[j] >= (uint64_t)d->shape[j]) return 0;
        flat += ix[j] * d->stride[j];
    }
    if (d->memo) {
        if (atomic_load_explicit(&d->mdone[flat], memory_order_acquire))
            return bits2d(atomic_load_explicit(&d->mval[flat], memory_order_relaxed));
    } else if (cached && d->cache >= 0) {
        ElemCache *c = t->ec[d->cache];
        if (!c) {
            c = t->ec[d->cache] = xmalloc(sizeof *c);
            for (int i = 0; i < EC_SIZE; i++) c->key[i] = -1;
        }
        /* a multiplicative hash: a column of a definition (attention's
         * ds[b, h, i, j] over i, a stride of S) must not land on the same
         * few slots, as flat & (EC_SIZE - 1) puts it */
        int h = (int)(((uint64_t)flat * 0x9e3779b97f4a7c15ULL) >> (64 - EC_BITS));
        if (c->key[h] == flat) return c->val[h];
        for (int j = 0; j < d->rank; j++) t->env[d->slots[j]] = ix[j];
        double v = eval(r, t, d->rhs);
        c->key[h] = flat;
        c->val[h] = v;
        return v;
    }
    for (int j = 0; j < d->rank; j++) t->env[d->slots[j]] = ix[j];
    double v = eval(r, t, d->rhs);
    if (d->memo) {
        atomic_store_explicit(&d->mval[flat], d2bits(v), memory_order_relaxed);
        atomic_store_explicit(&d->mdone[flat], 1, memory_order_release);
    }
    return v;
}

/* The index values of a read; false when one is not a number in int64. */
static inline bool eval_indices(RefEval *r, TCtx *t, const CE *n, int64_t *ix) {
    for (int j = 0; j < n->nidx; j++) {
        const CE *e = n->idx[j];
        if (e->op == O_SLOT) {
            ix[j] = t->env[e->slot];
        } else if (!as_i64(eval(r, t, e), &ix[j])) {
            return false;
        }
    }
    return true;
}


/* Where factor f's values start for this reduction, and their stride
 * along k: a single 0 (stride 0) where an index lies outside its
 * dimension, so that every product is 0 * the other factor, as in the
 * element-by-element evaluation. */
static const double *dot_start(RefEval *r, TCtx *t, const DotFactor *f, int64_t *kstride) {
    static const double zero = 0.0;
    if (f->materialised) {
        RowBuf *b = t->rows[f->row];
        if (!b) {
            b = t->rows[f->row] = xmalloc(sizeof *b + (size_t)f->range * sizeof(double));
            b->ok = false;
            b->key = xcalloc((size_t)(f->nkey ? f->nkey : 1), sizeof *b->key);
        }
        bool same = b->ok;
        for (int i = 0; i < f->nkey && same; i++) same = b->key[i] == t->env[f->key_slot[i]];
        if (!same) {
            for (int64_t k = 0; k < f->range; k++) {
                t->env[f->kslot] = k;
                b->v[k] = eval(r, t, f->materialised);
            }
            for (int i = 0; i < f->nkey; i++) b->key[i] = t->env[f->key_slot[i]];
            b->ok = true;
        }
        *kstride = 1;
        return b->v;
    }
    int64_t o = 0;
    for (int j = 0; j < f->n; j++) o += t->env[f->slot[j]] * f->stride[j];
    for (int j = 0; j < f->nexpr; j++) {
        int64_t v;
        if (!as_i64(eval(r, t, f->expr[j]), &v) || (uint64_t)v >= (uint64_t)f->expr_dim[j]) {
            *kstride = 0;
            return &zero;
        }
        o += v * f->expr_stride[j];
    }
    *kstride = f->kstride;
    return f->values + o;
}

static double eval_dot(RefEval *r, TCtx *t, const CE *n) {
    const int64_t range = n->vrange[0];
    int64_t s0, s1;
    const double *p0 = dot_start(r, t, &n->dot[0], &s0);
    double acc = 0;
    if (n->ndot == 1) {
        for (int64_t k = 0; k < range; k++) acc += p0[k * s0];
        return acc;
    }
    const double *p1 = dot_start(r, t, &n->dot[1], &s1);
    if (s0 == 1 && s1 == 1) {
        for (int64_t k = 0; k < range; k++) acc += p0[k] * p1[k];
    } else {
        for (int64_t k = 0; k < range; k++) acc += p0[k * s0] * p1[k * s1];
    }
    return acc;
}

static double eval_reduce(RefEval *r, TCtx *t, const CE *n) {
    int64_t *key = t->rc_key + n->key_off;
    if (t->rc_ok[n->rc]) {
        bool same = true;
        for (int i = 0; i < n->nfree && same; i++) same = key[i] == t->env[n->free_slots[i]];
        if (same) return t->rc_val[n->rc];
    }
    double acc;
    if (n->ndot) {
        acc = eval_dot(r, t, n);
    } else {
        bool empty = false;
        for (int i = 0; i < n->nvars; i++) {
            t->env[n->vslot[i]] = 0;
            if (n->vrange[i] <= 0) empty = true;
        }
        acc = n->op == O_SUM ? 0.0 : n->op == O_RMAX ? -INFINITY : INFINITY;
        bool first = true;
        int64_t *env = t->env;
        const int last = n->nvars - 1;
        while (!empty) {
            double v = eval(r, t, n->body);
            if (n->op == O_SUM) acc += v;
            else if (first) acc = v;
            else if (n->op == O_RMAX) acc = fmax(acc, v);
            else acc = fmin(acc, v);
            first = false;
            int i = last;
            while (i >= 0 && ++env[n->vslot[i]] >= n->vrange[i]) env[n->vslot[i--]] = 0;
            if (i < 0) break;
        }
    }
    for (int i = 0; i < n->nfree; i++) key[i] = t->env[n->free_slots[i]];
    t->rc_val[n->rc] = acc;
    t->rc_ok[n->rc] = 1;
    return acc;
}

static double eval(RefEval *r, TCtx *t, const CE *n) {
    double a, b;
    switch (n->op) {
    case O_CONST: return n->k;
    case O_SLOT: return (double)t->env[n->slot];
    case O_LET: return r->lets[n->target].v;
    case O_READ_IN: {
        const Input *in = &r->ins[n->target];
        int64_t flat = 0;
        if (n->all_slots) {
            for (int j = 0; j < n->nidx; j++) flat += t->env[n->idx[j]->slot] * in->stride[j];
            return in->values[flat];
        }
        int64_t ix[MAX_RANK];
        if (!eval_indices(r, t, n, ix)) return 0;
        for (int j = 0; j < n->nidx; j++) {
            if ((uint64_t)ix[j] >= (uint64_t)in->shape[j]) return 0;
            flat += ix[j] * in->stride[j];
        }
        return in->values[flat];
    }
    case O_READ_DEF: {
        int64_t ix[MAX_RANK];
        if (!eval_indices(r, t, n, ix)) return 0;
        return def_element(r, t, &r->defs[n->target], ix, true);
    }
    case O_NEG: return -eval(r, t, n->a);
    case O_NOT: return eval(r, t, n->a) == 0;
    case O_INT1: return do_int1(n->iop, eval(r, t, n->a));
    case O_LAND: return eval(r, t, n->a) != 0 && eval(r, t, n->b) != 0;
    case O_LOR: return eval(r, t, n->a) != 0 || eval(r, t, n->b) != 0;
    case O_COND: return eval(r, t, n->a) != 0 ? eval(r, t, n->b) : eval(r, t, n->c);
    case O_FN1: return do_fn1(n->fn, eval(r, t, n->a));
    case O_CAST: return do_cast(n->to, n->from, eval(r, t, n->a));
    case O_FMA: {
        a = eval(r, t, n->a);
        b = eval(r, t, n->b);
        return fma(a, b, eval(r, t, n->c));
    }
    case O_SUM: case O_RMAX: case O_RMIN: return eval_reduce(r, t, n);
    default: break;
    }
    a = eval(r, t, n->a);
    b = eval(r, t, n->b);
    switch (n->op) {
    case O_ADD: return a + b;
    case O_SUB: return a - b;
    case O_MUL: return a * b;
    case O_DIV: return a / b;
    case O_INT2: return do_int2(n->iop, a, b);
    case O_EQ: return a == b;
    case O_NE: return a != b;
    case O_LT: return a < b;
    case O_LE: return a <= b;
    case O_GT: return a > b;
    case O_GE: return a >= b;
    case O_MIN2: return fmin(a, b);
    case O_MAX2: return fmax(a, b);
    case O_POW: return pow(a, b);
    case O_CEILDIV: return do_ceildiv(a, b);
    case O_RANDOM: return do_random(n->fn, a, b);
    default: return NAN;
    }
}

/* ---- per-thread contexts ---- */

static _Atomic uint64_t next_eval_id = 1;

/* A context for the calling thread: one another thread handed back, or a new one. */
static TCtx *ctx_take(RefEval *r) {
    pthread_mutex_lock(&r->mu);
    for (TCtx *t = r->ctxs; t; t = t->next)
        if (!t->in_use) {
            t->in_use = true;
            pthread_mutex_unlock(&r->mu);
            return t;
        }
    pthread_mutex_unlock(&r->mu);
    TCtx *t = xcalloc(1, sizeof *t);
    t->in_use = true;
    t->env = xcalloc((size_t)r->nslots, sizeof *t->env);
    t->rc_ok = xcalloc((size_t)r->nrc, 1);
    t->rc_val = xcalloc((size_t)r->nrc, sizeof *t->rc_val);
    t->rc_key = xcalloc((size_t)r->rc_keys, sizeof *t->rc_key);
    t->ec = xcalloc((size_t)r->nec, sizeof *t->ec);
    t->rows = xcalloc((size_t)(r->nrows ? r->nrows : 1), sizeof *t->rows);
    pthread_mutex_lock(&r->mu);
    t->next = r->ctxs;
    r->ctxs = t;
    pthread_mutex_unlock(&r->mu);
    return t;
}

static void tctx_free(RefEval *r, TCtx *t) {
    for (int i = 0; i < r->nec; i++) free(t->ec[i]);
    free(t->ec);
    for (int i = 0; i < r->nrows; i++)
        if (t->rows[i]) {
            free(t->rows[i]->key);
            free(t->rows[i]);
        }
    free(t->rows);
    free(t->env);
    free(t->rc_ok);
    free(t->rc_val);
    free(t->rc_key);
    free(t);
}

enum { TL_SLOTS = 4 };
static _Thread_local struct { uint64_t id; TCtx *ctx; } tl_ctx[TL_SLOTS];
static _Thread_local unsigned tl_next;

static TCtx *ctx_get(RefEval *r) {
    for (int i = 0; i < TL_SLOTS; i++)
        if (tl_ctx[i].id == r->id) return tl_ctx[i].ctx;
    TCtx *t = ctx_take(r);
    unsigned s = tl_next++ % TL_SLOTS;
    tl_ctx[s].id = r->id;
    tl_ctx[s].ctx = t;
    return t;
}

void prof_ref_thread_done(RefEval *r) {
    for (int i = 0; i < TL_SLOTS; i++)
        if (tl_ctx[i].id == r->id) {
            pthread_mutex_lock(&r->mu);
            tl_ctx[i].ctx->in_use = false;
            pthread_mutex_unlock(&r->mu);
            tl_ctx[i].id = 0;
            tl_ctx[i].ctx = NULL;
        }
}

/* ---- compiling the syntax tree ---- */

static bool cfail(RefEval *r, const Node *e, const char *what) {
    if (!r->failed)
        fprintf(stderr, "tilec: internal error: the reference evaluator cannot handle %s (line %u)\n", what,
                e ? e->loc.line : 0);
    r->failed = true;
    return false;
}

static int slot_of(RefEval *r, Sym *s) {
    for (int i = r->nslots - 1; i >= 0; i--)
        if (r->slot_sym[i] == s) return i;
    if (r->nslots == r->slot_cap) {
        r->slot_cap = r->slot_cap ? 2 * r->slot_cap : 16;
        r->slot_sym = xrealloc(r->slot_sym, (size_t)r->slot_cap * sizeof *r->slot_sym);
        r->slot_range = xrealloc(r->slot_range, (size_t)r->slot_cap * sizeof *r->slot_range);
    }
    r->slot_sym[r->nslots] = s;
    r->slot_range[r->nslots] = s->range_known ? s->range : 0;
    return r->nslots++;
}

static int find_input(RefEval *r, const Sym *s) {
    for (int i = 0; i < r->nins; i++)
        if (r->ins[i].sym == s) return i;
    return -1;
}

static int find_def(RefEval *r, const Sym *s) {
    for (int i = 0; i < r->ndefs; i++)
        if (r->defs[i].sym == s) return i;
    return -1;
}

static int find_let(RefEval *r, const Sym *s) {
    for (int i = 0; i < r->nlets; i++)
        if (r->lets[i].decl == s->decl) return i;
    return -1;
}

static bool is_narrow_float(Dtype t) {
    return t == DT_F16 || t == DT_BF16 || t == DT_F32 || t == DT_F8E4M3 || t == DT_F8E5M2;
}

static bool ce_is_const(const CE *n) { return n && n->op == O_CONST; }

static CE *compile(RefEval *r, Node *e);

/* A constant-folded node when every operand is constant (with this file's
 * semantics), else n itself. */
static CE *fold(RefEval *r, CE *n) {
    switch (n->op) {
    case O_CONST: case O_SLOT: case O_LET: case O_READ_IN: case O_READ_DEF: case O_SUM: case O_RMAX: case O_RMIN:
        return n;
    default: break;
    }
    if ((n->a && !ce_is_const(n->a)) || (n->b && !ce_is_const(n->b)) || (n->c && !ce_is_const(n->c))) return n;
    CE *k = ce_const(r, eval(r, NULL, n));
    k->narrow = n->narrow;
    return k;
}

static CE *unary(RefEval *r, Op op, CE *a) {
    CE *n = ce_new(r, op);
    n->a = a;
    n->narrow = a->narrow;
    return fold(r, n);
}

static CE *binary(RefEval *r, Op op, CE *a, CE *b) {
    CE *n = ce_new(r, op);
    n->a = a;
    n->b = b;
    n->narrow = a->narrow || b->narrow;
    return fold(r, n);
}

/* An integer operator (O_INT2 with b, else O_INT1). */
static CE *int_op(RefEval *r, AstOp iop, CE *a, CE *b) {
    CE *n = ce_new(r, b ? O_INT2 : O_INT1);
    n->iop = iop;
    n->a = a;
    n->b = b;
    n->narrow = a->narrow || (b && b->narrow);
    return fold(r, n);
}

static CE *compile_read(RefEval *r, Node *e) {
    Sym *s = e->sym;
    NodeList *il = &e->u.index.idx;
    CE *n;
    const int64_t *shape;
    if (!s) {
        cfail(r, e, "an unresolved element");
        return NULL;
    }
    if (s->kind == SYM_TENSOR && s->mode != MODE_OUT) {
        int i = find_input(r, s);
        if (i < 0) {
            if (!r->failed)
                fprintf(stderr, "tilec: error: the reference reads '%s', but it has no input values\n", s->name->s);
            r->failed = true;
            return NULL;
        }
        n = ce_new(r, O_READ_IN);
        n->target = i;
        shape = r->ins[i].shape;
    } else if (s->kind == SYM_TENSOR || s->kind == SYM_REF_TEMP) {
        int d = find_def(r, s);
        if (d < 0) {
            cfail(r, e, "a read of a tensor before its definition");
            return NULL;
        }
        r->defs[d].read = true;
        n = ce_new(r, O_READ_DEF);
        n->target = d;
        shape = r->defs[d].shape;
    } else {
        cfail(r, e, "an element of something other than a tensor or temporary");
        return NULL;
    }
    if (il->len > MAX_RANK) {
        cfail(r, e, "a read with too many indices");
        return NULL;
    }
    n->nidx = il->len;
    n->idx = ralloc(r, (size_t)(il->len ? il->len : 1) * sizeof *n->idx);
    n->all_slots = true;
    for (int j = 0; j < il->len; j++) {
        CE *x = compile(r, il->items[j]);
        if (!x) return NULL;
        n->idx[j] = x;
        n->narrow |= x->narrow;
        if (x->op != O_SLOT || r->slot_range[x->slot] != shape[j] || shape[j] <= 0) n->all_slots = false;
    }
    return n;
}

/* Collects the slots an expression depends on (outside its own reductions'
 * variables) into set (a bitmap of nslots bytes). */
static void collect_slots(const CE *n, unsigned char *set) {
    if (!n) return;
    switch (n->op) {
    case O_SLOT: set[n->slot] = 1; return;
    case O_SUM: case O_RMAX: case O_RMIN:
        for (int i = 0; i < n->nfree; i++) set[n->free_slots[i]] = 1;
        return;
    default: break;
    }
    for (int j = 0; j < n->nidx; j++) collect_slots(n->idx[j], set);
    collect_slots(n->a, set);
    collect_slots(n->b, set);
    collect_slots(n->c, set);
}

/* A read of an input as a factor of a dot product over slot kslot: its
 * indices plain slots in their dimensions' ranges, or expressions that do
 * not depend on kslot. */
static bool dot_factor(RefEval *r, const CE *f, int kslot, DotFactor *out) {
    if (f->op != O_READ_IN) return false;
    const Input *in = &r->ins[f->target];
    out->values = in->values;
    out->n = out->nexpr = 0;
    out->kstride = 0;
    for (int j = 0; j < f->nidx; j++) {
        const CE *x = f->idx[j];
        bool plain = x->op == O_SLOT && r->slot_range[x->slot] == in->shape[j] && in->shape[j] > 0;
        if (plain && x->slot == kslot) {
            out->kstride += in->stride[j];
        } else if (plain) {
            out->slot[out->n] = x->slot;
            out->stride[out->n++] = in->stride[j];
        } else {
            unsigned char *set = xcalloc((size_t)r->nslots, 1);
            collect_slots(x, set);
            bool uses_k = set[kslot];
            free(set);
            if (uses_k) return false;
            out->expr[out->nexpr] = x;
            out->expr_stride[out->nexpr] = in->stride[j];
            out->expr_dim[out->nexpr++] = in->shape[j];
        }
    }
    return true;
}

/* Whether a (over slot ka) and b (over kb) read the same definition at
 * the same plain slots, ka where kb is (each reduction has a slot of its
 * own for its variable). */
static bool same_plain_read(const CE *a, int ka, const CE *b, int kb) {
    if (a->op != O_READ_DEF || b->op != O_READ_DEF || a->target != b->target || a->nidx != b->nidx) return false;
    for (int j = 0; j < a->nidx; j++) {
        if (a->idx[j]->op != O_SLOT || b->idx[j]->op != O_SLOT) return false;
        int sa = a->idx[j]->slot, sb = b->idx[j]->slot;
        if ((sa == ka) != (sb == kb) || (sa != ka && sa != sb)) return false;
    }
    return true;
}

/* The row of a materialised factor that already holds read f over
 * kslot, or -1. */
static int shared_row(RefEval *r, const CE *f, int kslot) {
    for (int i = 0; i < r->nrows; i++)
        if (r->row_of[i] && same_plain_read(r->row_of[i], r->row_kslot[i], f, kslot)) return i;
    return -1;
}

/* Factor f of a dot product over slot kslot, whatever it is, computed for
 * every k into a row of the thread's (DotFactor.materialised): where it
 * depends on k (else a plain loop is as good). Its values, and the order
 * of the sum, are those of the element-by-element loop. */
static bool materialise(RefEval *r, const CE *f, int kslot, int64_t range, DotFactor *out) {
    unsigned char *set = xcalloc((size_t)r->nslots, 1);
    collect_slots(f, set);
    if (!set[kslot]) {
        free(set);
        return false;
    }
    set[kslot] = 0;
    memset(out, 0, sizeof *out);
    out->materialised = f;
    out->kslot = kslot;
    out->range = range;
    for (int i = 0; i < r->nslots; i++) out->nkey += set[i];
    out->key_slot = ralloc(r, (size_t)(out->nkey ? out->nkey : 1) * sizeof *out->key_slot);
    for (int i = 0, m = 0; i < r->nslots; i++)
        if (set[i]) out->key_slot[m++] = i;
    free(set);
    /* the same read over the same k elsewhere (softmax's numerator and
     * denominator, both over p[b, h, i, j]) shares its row */
    out->row = shared_row(r, f, kslot);
    if (out->row >= 0) return true;
    out->row = r->nrows++;
    r->row_of = realloc(r->row_of, (size_t)r->nrows * sizeof *r->row_of);
    r->row_kslot = realloc(r->row_kslot, (size_t)r->nrows * sizeof *r->row_kslot);
    if (!r->row_of || !r->row_kslot) die("out of memory");
    r->row_of[out->row] = f->op == O_READ_DEF ? f : NULL;
    r->row_kslot[out->row] = kslot;
    return true;
}

static CE *compile_reduction(RefEval *r, Node *e) {
    const char *fn = e->u.call.name ? e->u.call.name->s : "";
    Op op = !strcmp(fn, "sum") ? O_SUM : !strcmp(fn, "max") ? O_RMAX : !strcmp(fn, "min") ? O_RMIN : O_CONST;
    if (op == O_CONST) {
        cfail(r, e, "a reduction other than sum, max and min");
        return NULL;
    }
    CE *n = ce_new(r, op);
    NodeList *vl = &e->u.call.reduce_vars;
    n->nvars = vl->len;
    n->vslot = ralloc(r, (size_t)(vl->len ? vl->len : 1) * sizeof *n->vslot);
    n->vrange = ralloc(r, (size_t)(vl->len ? vl->len : 1) * sizeof *n->vrange);
    for (int i = 0; i < vl->len; i++) {
        Node *v = vl->items[i];
        if (!v->sym || v->sym->kind != SYM_REF_INDEX) {
            cfail(r, v, "a reduction variable that is not an index variable");
            return NULL;
        }
        n->vslot[i] = slot_of(r, v->sym);
        n->vrange[i] = v->sym->range_known ? v->sym->range : 0;
    }
    n->body = compile(r, e->u.call.body);
    if (!n->body) return NULL;
    n->narrow = n->body->narrow;
    /* The variables the result depends on: the cache key. */
    unsigned char *set = xcalloc((size_t)r->nslots, 1);
    collect_slots(n->body, set);
    for (int i = 0; i < n->nvars; i++) set[n->vslot[i]] = 0;
    for (int i = 0; i < r->nslots; i++) n->nfree += set[i];
    n->free_slots = ralloc(r, (size_t)(n->nfree ? n->nfree : 1) * sizeof *n->free_slots);
    int m = 0;
    for (int i = 0; i < r->nslots; i++)
        if (set[i]) n->free_slots[m++] = i;
    free(set);
    n->rc = r->nrc++;
    n->key_off = r->rc_keys;
    r->rc_keys += n->nfree;
    /* sum(k: A[..] * B[..]) or sum(k: A[..]) with plain index variables or
     * indices free of k. */
    if (op == O_SUM && n->nvars == 1 && n->vrange[0] > 0) {
        const CE *b = n->body;
        /* (integer factors multiply in f64 there: exact while the sum stays below 2^53) */
        bool mul = b->op == O_MUL || (b->op == O_INT2 && b->iop == OP_MUL);
        int k = n->vslot[0];
        if (mul && dot_factor(r, b->a, k, &n->dot[0]) && dot_factor(r, b->b, k, &n->dot[1]))
            n->ndot = 2;
        else if (mul && dot_factor(r, b->b, k, &n->dot[1]))
            n->ndot = materialise(r, b->a, k, n->vrange[0], &n->dot[0]) ? 2 : 0;
        else if (mul && dot_factor(r, b->a, k, &n->dot[0]))
            n->ndot = materialise(r, b->b, k, n->vrange[0], &n->dot[1]) ? 2 : 0;
        else if (dot_factor(r, b, k, &n->dot[0]))
            n->ndot = 1;
        else if (b->op == O_READ_DEF && shared_row(r, b, k) >= 0 && materialise(r, b, k, n->vrange[0], &n->dot[0]))
            n->ndot = 1;
    }
    return n;
}

static CE *compile_call(RefEval *r, Node *e) {
    if (e->u.call.reduce_vars.len || e->u.call.body) return compile_reduction(r, e);
    NodeList *al = &e->u.call.args;
    CE *args[3] = {0};
    if (al->len > 3) {
        cfail(r, e, "a call with more than 3 arguments");
        return NULL;
    }
    bool narrow = false;
    for (int i = 0; i < al->len; i++) {
        args[i] = compile(r, al->items[i]);
        if (!args[i]) return NULL;
        narrow |= args[i]->narrow;
    }
    if (!e->u.call.name) { /* a cast */
        if (al->len != 1) {
            cfail(r, e, "a cast without exactly one argument");
            return NULL;
        }
        CE *n = ce_new(r, O_CAST);
        n->to = e->u.call.cast;
        n->from = al->items[0]->dtype;
        n->a = args[0];
        n->narrow = narrow || is_narrow_float(n->to);
        return fold(r, n);
    }
    const char *fn = e->u.call.name->s;
    for (int i = 0; fn1_names[i]; i++)
        if (!strcmp(fn, fn1_names[i]) && al->len == 1) {
            CE *n = ce_new(r, O_FN1);
            n->fn = i;
            n->a = args[0];
            n->narrow = narrow;
            return fold(r, n);
        }
    int random_kind = !strcmp(fn, "randint") ? 0 : !strcmp(fn, "rand") ? 1 : !strcmp(fn, "randn") ? 2 : -1;
    if (random_kind >= 0 && al->len == 2) {
        CE *n = ce_new(r, O_RANDOM);
        n->fn = random_kind;
        n->a = args[0];
        n->b = args[1];
        n->narrow = narrow;
        return fold(r, n);
    }
    Op op = !strcmp(fn, "min") ? O_MIN2 : !strcmp(fn, "max") ? O_MAX2 : !strcmp(fn, "pow") ? O_POW
          : !strcmp(fn, "ceildiv") ? O_CEILDIV : !strcmp(fn, "fma") ? O_FMA : O_CONST;
    if (op == O_CONST || al->len != (op == O_FMA ? 3 : 2)) {
        cfail(r, e, "this function call");
        return NULL;
    }
    CE *n = ce_new(r, op);
    n->a = args[0];
    n->b = args[1];
    n->c = args[2];
    n->narrow = narrow;
    return fold(r, n);
}

static CE *compile_name(RefEval *r, Node *e) {
    Sym *s = e->sym;
    if (!s) {
        cfail(r, e, "an unresolved name");
        return NULL;
    }
    switch (s->kind) {
    case SYM_REF_INDEX: {
        CE *n = ce_new(r, O_SLOT);
        n->slot = slot_of(r, s);
        return n;
    }
    case SYM_REF_LET: {
        if (e->is_const || s->has_value) break;
        int l = find_let(r, s);
        if (l < 0) {
            cfail(r, e, "a let used before its definition");
            return NULL;
        }
        CE *n = ce_new(r, O_LET);
        n->target = l;
        n->narrow = r->lets[l].val->narrow;
        return n;
    }
    case SYM_CONST: case SYM_SIZE: case SYM_SCALAR: case SYM_WHERE: case SYM_TUNE:
        break;
    default:
        cfail(r, e, "a name that the reference cannot use");
        return NULL;
    }
    if (e->is_const) return ce_const(r, e->const_float ? e->cval.f : (double)e->cval.i);
    if (s->has_value) return ce_const(r, s->value_float ? s->value.f : (double)s->value.i);
    cfail(r, e, "a name without a value");
    return NULL;
}

static CE *compile_inner(RefEval *r, Node *e) {
    switch (e->kind) {
    case N_INT: return ce_const(r, e->is_const && !e->const_float ? (double)e->cval.i : (double)e->u.ival);
    case N_FLOAT: return ce_const(r, e->u.fval.v);
    case N_BOOL: return ce_const(r, e->u.bval ? 1.0 : 0.0);
    case N_INF: return ce_const(r, INFINITY);
    case N_NAME: return compile_name(r, e);
    case N_INDEX: return compile_read(r, e);
    case N_CALL: return compile_call(r, e);
    case N_UNARY: {
        CE *a = compile(r, e->u.op.a);
        if (!a) return NULL;
        switch (e->u.op.op) {
        case OP_NEG: return dtype_is_int(e->dtype) ? int_op(r, OP_NEG, a, NULL) : unary(r, O_NEG, a);
        case OP_NOT: return unary(r, O_NOT, a);
        case OP_BNOT: return int_op(r, OP_BNOT, a, NULL);
        default: cfail(r, e, "this unary operator"); return NULL;
        }
    }
    case N_BINARY: {
        CE *a = compile(r, e->u.op.a);
        CE *b = a ? compile(r, e->u.op.b) : NULL;
        if (!b) return NULL;
        bool ints = dtype_is_int(e->dtype);
        Op op;
        switch (e->u.op.op) {
        case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
            if (ints) return int_op(r, e->u.op.op, a, b);
            op = e->u.op.op == OP_ADD ? O_ADD : e->u.op.op == OP_SUB ? O_SUB : e->u.op.op == OP_MUL ? O_MUL : O_DIV;
            break;
        case OP_MOD: case OP_SHL: case OP_SHR: case OP_BAND: case OP_BOR: case OP_BXOR:
            return int_op(r, e->u.op.op, a, b); /* integer (or bool) operands only */
        case OP_EQ: op = O_EQ; break;
        case OP_NE: op = O_NE; break;
        case OP_LT: op = O_LT; break;
        case OP_LE: op = O_LE; break;
        case OP_GT: op = O_GT; break;
        case OP_GE: op = O_GE; break;
        case OP_LAND: op = O_LAND; break;
        case OP_LOR: op = O_LOR; break;
        default: cfail(r, e, "this binary operator"); return NULL;
        }
        /* Short circuits with a constant left side. */
        if ((op == O_LAND || op == O_LOR) && ce_is_const(a)) {
            bool av = a->k != 0;
            if (op == O_LAND && !av) return ce_const(r, 0);
            if (op == O_LOR && av) return ce_const(r, 1);
            return unary(r, O_NOT, unary(r, O_NOT, b));
        }
        return binary(r, op, a, b);
    }
    case N_COND: {
        CE *c = compile(r, e->u.cond.c);
        CE *a = c ? compile(r, e->u.cond.a) : NULL;
        CE *b = a ? compile(r, e->u.cond.b) : NULL;
        if (!b) return NULL;
        if (ce_is_const(c)) return c->k != 0 ? a : b;
        CE *n = ce_new(r, O_COND);
        n->a = c;
        n->b = a;
        n->c = b;
        n->narrow = a->narrow || b->narrow || c->narrow;
        return n;
    }
    default:
        cfail(r, e, "this kind of expression");
        return NULL;
    }
}

/* Sema's folded constant is used where the subtree has no cast to a
 * narrower float (sema folds f16(x) as x; this file rounds). */
static CE *compile(RefEval *r, Node *e) {
    if (!e) {
        cfail(r, NULL, "a missing expression");
        return NULL;
    }
    CE *n = compile_inner(r, e);
    if (!n) return NULL;
    if (e->is_const && !n->narrow && n->op != O_CONST)
        return ce_const(r, e->const_float ? e->cval.f : (double)e->cval.i);
    return n;
}

/* ---- the evaluator ---- */

static double def_cost(RefEval *r, Def *d);

static void strides(int rank, const int64_t *shape, int64_t *stride) {
    int64_t s = 1;
    for (int j = rank - 1; j >= 0; j--) {
        stride[j] = s;
        s *= shape[j] > 0 ? shape[j] : 1;
    }
}

void prof_ref_free(RefEval *r) {
    if (!r) return;
    for (TCtx *t = r->ctxs, *nx; t; t = nx) {
        nx = t->next;
        tctx_free(r, t);
    }
    free(r->row_of);
    free(r->row_kslot);
    for (int i = 0; i < r->ndefs; i++) {
        free((void *)r->defs[i].mval);
        free((void *)r->defs[i].mdone);
    }
    for (Block *b = r->mem, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    pthread_mutex_destroy(&r->mu);
    free(r->ins);
    free(r->defs);
    free(r->lets);
    free(r->slot_sym);
    free(r->slot_range);
    free(r);
}

RefEval *prof_ref_new(KernelInfo *k, HostTensor *inputs, int n) {
    if (!k->has_reference || !k->node->u.kernel.ref) {
        fprintf(stderr, "tilec: kernel '%s' has no reference block\n", k->name->s);
        return NULL;
    }
    RefEval *r = xcalloc(1, sizeof *r);
    r->k = k;
    r->id = atomic_fetch_add(&next_eval_id, 1);
    pthread_mutex_init(&r->mu, NULL);
    /* Inputs: every in and inout tensor with values. */
    r->ins = xcalloc((size_t)(n > 0 ? n : 1), sizeof *r->ins);
    for (int i = 0; i < n; i++) {
        HostTensor *h = &inputs[i];
        if (!h->sym || h->sym->kind != SYM_TENSOR || h->sym->mode == MODE_OUT || !h->values) continue;
        Input *in = &r->ins[r->nins++];
        in->sym = h->sym;
        in->values = h->values;
        in->rank = h->rank;
        memcpy(in->shape, h->shape, sizeof in->shape);
        strides(h->rank, h->shape, in->stride);
    }
    Node *ref = k->node->u.kernel.ref;
    int nst = ref->u.list.len;
    r->defs = xcalloc((size_t)(nst ? nst : 1), sizeof *r->defs);
    r->lets = xcalloc((size_t)(nst ? nst : 1), sizeof *r->lets);
    for (int i = 0; i < nst && !r->failed; i++) {
        Node *st = ref->u.list.items[i];
        if (st->kind == N_LET) {
            CE *v = compile(r, st->u.decl.value);
            if (!v) break;
            Let *l = &r->lets[r->nlets++];
            l->decl = st;
            l->val = v;
            l->v = NAN;
            continue;
        }
        if (st->kind != N_ASSIGN || st->u.assign.lhs->kind != N_INDEX) {
            cfail(r, st, "a reference statement that is neither a let nor a definition");
            break;
        }
        Node *lhs = st->u.assign.lhs;
        NodeList *il = &lhs->u.index.idx;
        Def *d = &r->defs[r->ndefs];
        /* The target: an out/inout parameter, or the temporary this statement declares. */
        Sym *target = NULL;
        for (int p = 0; p < k->params.len && !target; p++) {
            Sym *ps = k->params.items[p];
            if (ps->kind == SYM_TENSOR && ps->name == lhs->u.index.name) target = ps;
        }
        for (int p = 0; p < k->ref_temps.len && !target; p++) {
            Sym *ts = k->ref_temps.items[p];
            if (ts->decl == st) target = ts;
        }
        if (!target || il->len != target->rank || il->len > MAX_RANK) {
            cfail(r, st, "a definition whose target is unknown");
            break;
        }
        d->sym = target;
        d->rank = target->rank;
        d->elems = 1;
        bool big = false;
        for (int j = 0; j < d->rank; j++) {
            d->shape[j] = target->shape[j] > 0 ? target->shape[j] : 0;
            if (d->shape[j] && d->elems > INT64_MAX / 4 / d->shape[j]) big = true;
            else d->elems *= d->shape[j];
        }
        if (big) d->elems = INT64_MAX / 4;
        strides(d->rank, d->shape, d->stride);
        for (int j = 0; j < d->rank; j++) {
            Node *v = il->items[j];
            if (v->kind != N_NAME || !v->sym || v->sym->kind != SYM_REF_INDEX) {
                cfail(r, st, "a definition whose indices are not index variables");
                break;
            }
            d->slots[j] = slot_of(r, v->sym);
        }
        if (r->failed) break;
        d->rhs = compile(r, st->u.assign.rhs);
        if (!d->rhs) break;
        d->cache = -1;
        d->cost = -1;
        r->ndefs++;
    }
    if (r->failed) {
        prof_ref_free(r);
        return NULL;
    }
    for (int i = 0; i < r->ndefs; i++) {
        Def *d = &r->defs[i];
        if (!d->read) continue;
        if (d->elems <= PROF_MEMO_MAX) {
            d->memo = true;
            d->mval = xcalloc((size_t)d->elems, sizeof *d->mval);
            d->mdone = xcalloc((size_t)d->elems, sizeof *d->mdone);
        } else {
            d->cache = r->nec++;
        }
    }
    /* Cost estimates now, so that prof_ref_cost only reads. */
    for (int i = 0; i < r->ndefs; i++) def_cost(r, &r->defs[i]);
    /* Let values, in order (a let may read earlier definitions). */
    TCtx *t = ctx_get(r);
    for (int i = 0; i < r->nlets; i++) r->lets[i].v = eval(r, t, r->lets[i].val);
    return r;
}

bool prof_ref_defines(RefEval *r, const Sym *out) { return find_def(r, out) >= 0; }

double prof_ref_element(RefEval *r, const Sym *out, const int64_t *idx) {
    int d = find_def(r, out);
    if (d < 0) {
        /* An inout the reference leaves alone keeps its old value. */
        int i = find_input(r, out);
        if (i < 0) return NAN;
        const Input *in = &r->ins[i];
        int64_t flat = 0;
        for (int j = 0; j < in->rank; j++) {
            if ((uint64_t)idx[j] >= (uint64_t)in->shape[j]) return 0;
            flat += idx[j] * in->stride[j];
        }
        return in->values[flat];
    }
    double v = def_element(r, ctx_get(r), &r->defs[d], idx, false);
    /* Outputs are converted (LANGUAGE.md section 5). For an integer or bool
     * output that is what storing the value there gives: an integral value
     * wraps modulo 2^bits, as the kernel's integer sums and atomics do, and a
     * fractional one truncates toward zero. A float output stays exact: the
     * tolerance is measured against the f64 value. */
    if (dtype_is_int(out->dtype) || out->dtype == DT_BOOL)
        return do_cast(out->dtype, v == trunc(v) ? DT_I64 : DT_F64, v);
    return v;
}

/* ---- cost estimate ---- */

/* Scalar operations per element of an expression. `top` is the definition
 * whose elements are evaluated in row-major order, when n sits directly in
 * its right side: a reduction there that depends only on some of top's
 * index variables is recomputed only when they change (the per-thread
 * reduction cache), so it costs in proportion to how often that is
 * (plus once per chunk of 4096 elements a thread takes). */
static double ce_cost(RefEval *r, const CE *n, const Def *top) {
    if (!n) return 0;
    double c = 0;
    switch (n->op) {
    case O_CONST: case O_SLOT: case O_LET: return 0;
    case O_READ_IN:
        for (int j = 0; j < n->nidx; j++) c += ce_cost(r, n->idx[j], top);
        return c + 1;
    case O_READ_DEF: {
        for (int j = 0; j < n->nidx; j++) c += ce_cost(r, n->idx[j], top);
        Def *d = &r->defs[n->target];
        return c + 1 + (d->memo ? 0 : def_cost(r, d));
    }
    case O_COND: {
        double a = ce_cost(r, n->b, top), b = ce_cost(r, n->c, top);
        return 1 + ce_cost(r, n->a, top) + (a > b ? a : b);
    }
    case O_SUM: case O_RMAX: case O_RMIN: {
        double m = 1;
        for (int i = 0; i < n->nvars; i++) m *= (double)(n->vrange[i] > 0 ? n->vrange[i] : 0);
        double full = m * (1 + ce_cost(r, n->body, NULL));
        if (!top || top->elems <= 0) return full;
        int last = -1;
        for (int i = 0; i < n->nfree; i++) {
            int at = -1;
            for (int j = 0; j < top->rank; j++)
                if (top->slots[j] == n->free_slots[i]) at = j;
            if (at < 0) return full;
            if (at > last) last = at;
        }
        double changes = 1;
        for (int j = 0; j <= last; j++) changes *= (double)top->shape[j];
        changes += (double)top->elems / 4096;
        return changes >= (double)top->elems ? full : full * changes / (double)top->elems;
    }
    default:
        return 1 + ce_cost(r, n->a, top) + ce_cost(r, n->b, top) + ce_cost(r, n->c, top);
    }
}

/* Per element evaluated on its own (no reuse between elements). */
static double def_cost(RefEval *r, Def *d) {
    if (d->cost < 0) d->cost = ce_cost(r, d->rhs, NULL);
    return d->cost;
}

/* Marks the memoised definitions an expression reaches, through on-demand
 * definitions and through other memoised ones. */
static void reach(RefEval *r, const CE *n, unsigned char *seen) {
    if (!n) return;
    if (n->op == O_READ_DEF && !seen[n->target]) {
        Def *d = &r->defs[n->target];
        if (d->memo) seen[n->target] = 1;
        else seen[n->target] = 2;
        reach(r, d->rhs, seen);
    }
    for (int j = 0; j < n->nidx; j++) reach(r, n->idx[j], seen);
    reach(r, n->a, seen);
    reach(r, n->b, seen);
    reach(r, n->c, seen);
    reach(r, n->body, seen);
}

double prof_ref_memo_cost(RefEval *r, const Sym *out) {
    int i = find_def(r, out);
    if (i < 0) return 0;
    double total = 0;
    unsigned char *seen = xcalloc((size_t)r->ndefs, 1);
    reach(r, r->defs[i].rhs, seen);
    for (int j = 0; j < r->ndefs; j++)
        if (seen[j] == 1) total += (double)r->defs[j].elems * (1 + ce_cost(r, r->defs[j].rhs, &r->defs[j]));
    free(seen);
    return total;
}

double prof_ref_cost(RefEval *r, const Sym *out, double n) {
    int i = find_def(r, out);
    if (i < 0) return n;
    Def *d = &r->defs[i];
    /* All elements in order (a full check) or scattered ones (a sample). */
    double per = n >= (double)d->elems ? ce_cost(r, d->rhs, d) : def_cost(r, d);
    return n * (1 + per) + prof_ref_memo_cost(r, out);
}
