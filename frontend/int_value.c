/* int_value.c - the value of an integer expression at compile time, its
 * names bound by the caller: sema's parallel-store check binds a loop
 * variable to each of its values (passes/int_eval.c binds block indices to
 * a tile's). Constants, + - * / % << >> & | ^ (as C computes them),
 * comparisons, && || ! ~, unary minus, ?:, min, max, ceildiv, abs and casts
 * to integer types. */
#include <stdint.h>
#include <string.h>

#include "frontend.h"
#include "parse.h"

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
    int op = e->u.op.op;
    int64_t a, b;
    if (!value_of(v, e->u.op.a, &a)) return false;
    if (op == TK_ANDAND && !a) return *out = 0, true; /* the right side is not evaluated */
    if (op == TK_OROR && a) return *out = 1, true;
    if (!value_of(v, e->u.op.b, &b)) return false;
    switch (op) { /* (what would overflow is not told) */
    case TK_PLUS: return !__builtin_add_overflow(a, b, out);
    case TK_MINUS: return !__builtin_sub_overflow(a, b, out);
    case TK_STAR: return !__builtin_mul_overflow(a, b, out);
    case TK_SLASH: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a / b, true);
    case TK_PERCENT: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a % b, true);
    case TK_SHL: return b >= 0 && b < 63 && a >= 0 && a <= (INT64_MAX >> b) && (*out = a << b, true);
    case TK_SHR: return b >= 0 && b < 64 && (*out = a >> b, true);
    case TK_AMP: return *out = a & b, true;
    case TK_PIPE: return *out = a | b, true;
    case TK_CARET: return *out = a ^ b, true;
    case TK_LT: return *out = a < b, true;
    case TK_LE: return *out = a <= b, true;
    case TK_GT: return *out = a > b, true;
    case TK_GE: return *out = a >= b, true;
    case TK_EQ: return *out = a == b, true;
    case TK_NE: return *out = a != b, true;
    case TK_ANDAND: case TK_OROR: return *out = b != 0, true;
    default: return false;
    }
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
        if (!value_of(v, e->u.op.a, &a)) return false;
        if (e->u.op.op == TK_MINUS) return a != INT64_MIN && (*out = -a, true);
        if (e->u.op.op == TK_BANG) return *out = !a, true;
        if (e->u.op.op == TK_TILDE) return *out = ~a, true;
        return false;
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
