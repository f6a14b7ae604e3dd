/* launch_shape.h - what the host computes at each launch of a kernel with
 * dynamic sizes, as plain data: the code generator fills it in
 * (codegen.h), the library, the profiler and the launchers --emit-lib
 * writes evaluate it. No other dependency, so every layer can include it.
 *
 * A grid dimension that uses dynamic sizes is a small postfix program over
 * the sizes' values (the kernel's `dynamic` clause order), e.g. ceildiv(N,
 * 256) is [DIM 1, CONST 256, CEILDIV]. Integer semantics are C's on int64,
 * as the kernel computes the same expression. */
#ifndef TILEC_LAUNCH_SHAPE_H
#define TILEC_LAUNCH_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

enum { RT_MAX_DYNAMIC = 8, RT_MAX_GRID_OPS = 32 };

#define RT_GRID_OPS(X)                                                                     \
    X(CONST) X(DIM)                                       /* push value / size value[i] */ \
    X(ADD) X(SUB) X(MUL) X(DIV) X(MOD) X(SHL) X(SHR)      /* binary, C semantics */        \
    X(AND) X(OR) X(XOR) X(LT) X(LE) X(GT) X(GE) X(EQ) X(NE) X(LAND) X(LOR)                  \
    X(MIN) X(MAX) X(CEILDIV)                                                               \
    X(NEG) X(NOT) X(BNOT) X(ABS)                          /* unary */                      \
    X(SELECT)                                             /* c ? a : b, pushed c a b */

typedef enum RtGridOpKind {
#define X(id) RT_GOP_##id,
    RT_GRID_OPS(X)
#undef X
} RtGridOpKind;

typedef struct RtGridOp {
    int op;          /* RtGridOpKind */
    int64_t value;   /* CONST: the value; DIM: which dynamic size */
} RtGridOp;

/* One grid dimension: n == 0 when it is the compiled constant. */
typedef struct RtGridExpr {
    int n;
    RtGridOp ops[RT_MAX_GRID_OPS];
} RtGridExpr;

/* The value of e for the dynamic sizes' values dims[]; false where it is
 * undefined (division by zero, overflow, a malformed program). */
static inline bool rt_grid_eval(const RtGridExpr *e, const int64_t *dims, int64_t *out) {
    int64_t st[RT_MAX_GRID_OPS];
    int sp = 0;
    for (int i = 0; i < e->n; i++) {
        const RtGridOp *o = &e->ops[i];
        int64_t a, b, r;
        if (o->op == RT_GOP_CONST || o->op == RT_GOP_DIM) {
            if (sp == RT_MAX_GRID_OPS || (o->op == RT_GOP_DIM && (o->value < 0 || o->value >= RT_MAX_DYNAMIC))) return false;
            st[sp++] = o->op == RT_GOP_CONST ? o->value : dims[o->value];
            continue;
        }
        if (o->op >= RT_GOP_NEG && o->op <= RT_GOP_ABS) {
            if (sp < 1) return false;
            a = st[sp - 1];
            if ((o->op == RT_GOP_NEG || o->op == RT_GOP_ABS) && a == INT64_MIN) return false;
            st[sp - 1] = o->op == RT_GOP_NEG ? -a : o->op == RT_GOP_NOT ? !a : o->op == RT_GOP_BNOT ? ~a : a < 0 ? -a : a;
            continue;
        }
        if (o->op == RT_GOP_SELECT) {
            if (sp < 3) return false;
            st[sp - 3] = st[sp - 3] ? st[sp - 2] : st[sp - 1];
            sp -= 2;
            continue;
        }
        if (sp < 2) return false;
        a = st[sp - 2], b = st[sp - 1];
        switch (o->op) {
        case RT_GOP_ADD: if (__builtin_add_overflow(a, b, &r)) return false; break;
        case RT_GOP_SUB: if (__builtin_sub_overflow(a, b, &r)) return false; break;
        case RT_GOP_MUL: if (__builtin_mul_overflow(a, b, &r)) return false; break;
        case RT_GOP_DIV: case RT_GOP_MOD: case RT_GOP_CEILDIV:
            if (b == 0 || (a == INT64_MIN && b == -1)) return false;
            r = o->op == RT_GOP_DIV ? a / b : o->op == RT_GOP_MOD ? a % b : a / b + (a % b > 0); /* as sema folds it */
            break;
        case RT_GOP_SHL: if (b < 0 || b > 62 || a < 0 || a > (INT64_MAX >> b)) return false; r = a << b; break;
        case RT_GOP_SHR: if (b < 0 || b > 63) return false; r = a >> b; break;
        case RT_GOP_AND: r = a & b; break;
        case RT_GOP_OR: r = a | b; break;
        case RT_GOP_XOR: r = a ^ b; break;
        case RT_GOP_LT: r = a < b; break;
        case RT_GOP_LE: r = a <= b; break;
        case RT_GOP_GT: r = a > b; break;
        case RT_GOP_GE: r = a >= b; break;
        case RT_GOP_EQ: r = a == b; break;
        case RT_GOP_NE: r = a != b; break;
        case RT_GOP_LAND: r = a && b; break;
        case RT_GOP_LOR: r = a || b; break;
        case RT_GOP_MIN: r = a < b ? a : b; break;
        case RT_GOP_MAX: r = a > b ? a : b; break;
        default: return false;
        }
        st[sp - 2] = r;
        sp--;
    }
    if (sp != 1) return false;
    *out = st[0];
    return true;
}

/* CUDA's grid limits: 2^31 - 1 blocks in x, 65535 in y and z (and at least 1). */
static inline bool rt_grid_in_limits(const long long grid[3]) {
    static const long long limit[3] = {2147483647LL, 65535, 65535};
    for (int d = 0; d < 3; d++)
        if (grid[d] < 1 || grid[d] > limit[d]) return false;
    return true;
}

/* The units of a persistent loop over `tiles` tiles whose last wave runs
 * in halves of the tiles' columns (Schedule.half_slots): on `slots` block
 * slots, the whole waves' tiles, then, where the rest fills at most half a
 * wave, two units for each tile of the rest (else whole tiles). The
 * generated kernel computes the same from its run-time grid. */
static inline long long rt_half_units(long long tiles, long long slots) {
    if (slots < 1) return tiles;
    long long whole = tiles / slots * slots, rest = tiles - whole;
    return rest > 0 && 2 * rest <= slots ? whole + 2 * rest : tiles;
}

/* The pieces each of `tiles` tiles (pairs in clusters) runs as along a
 * loop of `trips` iterations, where the grid fills less than a wave of
 * `slots` (Schedule.split_slots): as many as the idle slots take, at most
 * `most`, each piece at least RT_SPLIT_MIN_TRIPS iterations; 1 (whole
 * tiles) where that is fewer than 2. The generated kernel computes the
 * same from its run-time grid and trip count. */
enum { RT_SPLIT_MIN_TRIPS = 16 };
static inline long long rt_split_ways(long long tiles, long long slots, long long trips, long long most) {
    if (slots < 1 || tiles < 1 || tiles >= slots) return 1;
    long long ways = slots / tiles;
    if (ways > most) ways = most;
    if (ways > trips / RT_SPLIT_MIN_TRIPS) ways = trips / RT_SPLIT_MIN_TRIPS;
    return ways < 2 ? 1 : ways;
}

/* How a persistent kernel of dynamic sizes counts the units of its loop
 * (CgKernel's fields of the same names). */
typedef struct RtUnits {
    int64_t half_slots; /* rt_half_units' slots (0: no half tiles) */
    bool half_all;      /* the halves variant: every unit in two halves */
    int cluster;        /* 2: clusters of two blocks along grid dimension cluster_dim (0: none) */
    int cluster_dim;
    /* split tiles decided at launch (rt_split_ways; 0: none): the slots a
     * wave has for the loop's units, the most pieces a tile, and the
     * loop's trip count at the dynamic sizes */
    int64_t split_slots;
    int split_max;
    RtGridExpr trips;
} RtUnits;

/* The units of a launch, before split or half tiles: grid[d], or where it
 * is -1, expr[d] evaluated for the dynamic sizes' values, in out[]; a
 * persistent kernel's (`linear`) in a line in out[0]: its tiles, or in
 * clusters pairs of them (the cluster dimension rounded up to whole
 * pairs). False where an expression is undefined or the count is more than
 * the kernel's int tile numbers hold. */
static inline bool rt_launch_units(const int64_t grid[3], const RtGridExpr expr[3], const int64_t *dims, bool linear,
                                   const RtUnits *units, long long out[3]) {
    for (int d = 0; d < 3; d++) {
        int64_t v = grid[d];
        if (v < 0 && !rt_grid_eval(&expr[d], dims, &v)) return false;
        out[d] = v;
    }
    if (!linear) return true;
    if (units && units->cluster == 2) out[units->cluster_dim] = out[units->cluster_dim] / 2 + out[units->cluster_dim] % 2;
    if (out[1] > 0 && out[0] > INT64_MAX / out[1]) return false;
    long long xy = out[0] * out[1];
    if (out[2] > 0 && xy > INT64_MAX / out[2]) return false;
    out[0] = xy * out[2];
    out[1] = out[2] = 1;
    /* the kernel's loop numbers its units in ints, two a tile (or pair)
     * where halved; split units are below a wave */
    return out[0] <= INT32_MAX / 2;
}

/* The pieces each of `n` units runs as (1: whole), from the trip count at
 * the dynamic sizes; false where that is undefined. */
static inline bool rt_unit_ways(const RtUnits *units, const int64_t *dims, long long n, long long *ways) {
    *ways = 1;
    if (!units || units->split_slots <= 0) return true;
    int64_t trips;
    if (!rt_grid_eval(&units->trips, dims, &trips)) return false;
    *ways = rt_split_ways(n, units->split_slots, trips, units->split_max);
    return true;
}

/* A persistent kernel's blocks for n units, each in `ways` pieces where
 * that is above 1 (below split_slots), else with units->half_slots what
 * rt_half_units makes of them (with half_all, two halves each), times the
 * blocks of a cluster. */
static inline long long rt_unit_blocks(const RtUnits *units, long long n, long long ways) {
    if (ways > 1) n *= ways;
    else if (units->half_all) n *= 2;
    else if (units->half_slots > 0) n = rt_half_units(n, units->half_slots);
    return units->cluster == 2 ? 2 * n : n;
}

/* The grid of a launch (rt_launch_units), a persistent kernel's in blocks
 * (rt_unit_blocks). */
static inline bool rt_launch_grid(const int64_t grid[3], const RtGridExpr expr[3], const int64_t *dims, bool linear,
                                  const RtUnits *units, long long out[3]) {
    if (!rt_launch_units(grid, expr, dims, linear, units, out)) return false;
    if (!linear || !units) return true;
    long long ways;
    if (!rt_unit_ways(units, dims, out[0], &ways)) return false;
    out[0] = rt_unit_blocks(units, out[0], ways);
    return true;
}

/* Whether a launch suits a variant (PlanOptions.variant) of units u: the
 * split one where it splits the grid's units, the halves one where they
 * fill at most half a wave (rt_half_units would halve them all); the base
 * one always. The launch takes the first that fits of split, halves,
 * base. Where it fits, out[] is its grid (as rt_launch_grid's; out is
 * scratch otherwise). False too where the grid is undefined (the base one
 * says so). */
static inline bool rt_variant_fits(const int64_t grid[3], const RtGridExpr expr[3], const int64_t *dims,
                                   const RtUnits *u, long long out[3]) {
    long long ways;
    if (!rt_launch_units(grid, expr, dims, true, u, out) || !rt_unit_ways(u, dims, out[0], &ways)) return false;
    if (u->split_slots > 0 ? ways < 2 : u->half_all && !(out[0] > 0 && 2 * out[0] <= u->half_slots)) return false;
    out[0] = rt_unit_blocks(u, out[0], ways);
    return true;
}

#endif
