/* int_value.c - the value of an integer expression at compile time, its
 * names bound by the caller: sema's parallel-store check binds a loop
 * variable to each of its values (passes/int_eval.c binds block indices to
 * a tile's). Constants, + - * / % << >> & | ^ (as C computes them),
 * comparisons, && || ! ~, unary minus, ?:, min, max, ceildiv, abs and casts
 * to integer types; the operators as int_binop (ops.c) computes them.
 * Also whether an expression is provably a multiple of a number. */
#include <stdint.h>
#include <string.h>

#include "frontend.h"

typedef struct IntValue {
    IntNameFn name;
    void *ctx;
    int *budget; /* nodes still to visit: let chains can double at every let */
} IntValue;

static bool value_of(IntValue *v, const Node *e, int64_t *out);

static bool call_value(IntValue *v, const Node *e, int64_t *out) {
    const NodeList *args = &e->u.call.args;
    int64_t a, b;
    if (!e->u.call.name) /* a cast to an integer type: the value, unwrapped */
        return dtype_is_int(e->u.call.cast) && args->len == 1 && value_of(v, args->items[0], out);
    const char *f = e->u.call.name->s;
    if (args->len == 1 && !strcmp(f, "abs"))
        return value_of(v, args->items[0], &a) && a != INT64_MIN && (*out = a < 0 ? -a : a, true);
    if (args->len != 2 || !value_of(v, args->items[0], &a) || !value_of(v, args->items[1], &b)) return false;
    if (!strcmp(f, "min")) return *out = a < b ? a : b, true;
    if (!strcmp(f, "max")) return *out = a > b ? a : b, true;
    if (!strcmp(f, "ceildiv")) return b > 0 && (*out = a / b + (a % b > 0), true);
    return false;
}

static bool binary_value(IntValue *v, const Node *e, int64_t *out) {
    AstOp op = e->u.op.op;
    int64_t a, b;
    if (!value_of(v, e->u.op.a, &a)) return false;
    if (op == OP_LAND && !a) return *out = 0, true; /* the right side is not evaluated */
    if (op == OP_LOR && a) return *out = 1, true;
    return value_of(v, e->u.op.b, &b) && int_binop(op, a, b, out); /* (what would overflow is not told) */
}

static bool value_of(IntValue *v, const Node *e, int64_t *out) {
    if (!e) return *out = 0, true;
    if (--*v->budget < 0) return false;
    if (e->is_const) return !e->const_float && (*out = e->cval.i, true);
    int64_t a;
    switch (e->kind) {
    case N_NAME: {
        const Node *bound = NULL;
        if (!e->sym || !v->name(v->ctx, e->sym, out, &bound)) return false;
        return !bound || value_of(v, bound, out);
    }
    case N_UNARY:
        return value_of(v, e->u.op.a, &a) && int_unop(e->u.op.op, a, out);
    case N_BINARY: return binary_value(v, e, out);
    case N_COND: return value_of(v, e->u.cond.c, &a) && value_of(v, a ? e->u.cond.a : e->u.cond.b, out);
    case N_CALL: return call_value(v, e, out);
    default: return false;
    }
}

bool node_int_value(const Node *e, IntNameFn name, void *ctx, int *budget, int64_t *out) {
    IntValue v = {.name = name, .ctx = ctx, .budget = budget};
    return value_of(&v, e, out);
}

bool expr_multiple_of(const Node *e, int64_t m) {
    if (!e) return true;
    if (e->is_const) return !e->const_float && e->cval.i % m == 0;
    /* a let's name: its value (lets never change) */
    if (e->kind == N_NAME && e->sym && e->sym->kind == SYM_LET && e->sym->decl && e->sym->decl->kind == N_LET)
        return expr_multiple_of(e->sym->decl->u.decl.value, m);
    /* a dynamic size: its promise */
    if (e->kind == N_NAME && e->sym && e->sym->dynamic) return e->sym->divisor % m == 0;
    if (e->kind != N_BINARY) return false;
    switch (e->u.op.op) {
    case OP_MUL: return expr_multiple_of(e->u.op.a, m) || expr_multiple_of(e->u.op.b, m);
    case OP_ADD:
    case OP_SUB: return expr_multiple_of(e->u.op.a, m) && expr_multiple_of(e->u.op.b, m);
    case OP_DIV: { /* by a positive constant c: a multiple of m * c divides exactly (k * BK / 2) */
        const Node *c = e->u.op.b;
        if (!c->is_const || c->const_float || c->cval.i <= 0 || c->cval.i > (INT64_MAX / 4) / m) return false;
        return expr_multiple_of(e->u.op.a, m * c->cval.i);
    }
    case OP_SHL: { /* by a constant c: 2^c times the left side */
        const Node *c = e->u.op.b;
        if (!c->is_const || c->const_float || c->cval.i < 0 || c->cval.i > 62) return false;
        int64_t p = (int64_t)1 << c->cval.i, rest = m;
        while (rest % 2 == 0 && p > 1) rest /= 2, p /= 2;
        return rest == 1 || expr_multiple_of(e->u.op.a, rest);
    }
    default: return false;
    }
}
