/* int_eval.c - the value of an integer expression of a kernel for given
 * block indices, at compile time: a tile's row start (plan_idle), its
 * loop's trip count (plan_schedule). After specialisation such
 * expressions are made of constants, block indices and the top-level lets
 * before the pipelined loop (`let n_blocks = min(ceildiv((bx + 1) * BM,
 * BN), ceildiv(S, BN))`), which this follows where asked. */
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "passes.h"

typedef struct IntEval {
    const IrKernel *k;
    const int64_t *at;
    bool lets;  /* follow the lets before the loop */
    int budget; /* nodes still to visit: let chains can double at every let */
} IntEval;

/* The top-level let before the kernel's pipelined loop that defines sym. */
static const IrStmt *let_before_loop(const IrKernel *k, const Sym *sym) {
    for (int i = 0; i < k->body.len && k->body.items[i] != k->ws_loop; i++) {
        const IrStmt *s = k->body.items[i];
        if (s->op == IR_LET && s->sym == sym) return s;
    }
    return NULL;
}

static bool int_of(IntEval *v, const Node *e, int64_t *out);

static bool call_of(IntEval *v, const Node *e, int64_t *out) {
    const NodeList *args = &e->u.call.args;
    int64_t a, b;
    if (!e->u.call.name) /* a cast to an integer type: the value, unwrapped */
        return dtype_is_int(e->u.call.cast) && args->len == 1 && int_of(v, args->items[0], out);
    const char *f = e->u.call.name->s;
    if (args->len == 1 && !strcmp(f, "abs"))
        return int_of(v, args->items[0], &a) && a != INT64_MIN && (*out = a < 0 ? -a : a, true);
    if (args->len != 2 || !int_of(v, args->items[0], &a) || !int_of(v, args->items[1], &b)) return false;
    if (!strcmp(f, "min")) return *out = a < b ? a : b, true;
    if (!strcmp(f, "max")) return *out = a > b ? a : b, true;
    if (!strcmp(f, "ceildiv")) return b > 0 && (*out = a / b + (a % b > 0), true);
    return false;
}

static bool binary_of(IntEval *v, const Node *e, int64_t *out) {
    int op = e->u.op.op;
    int64_t a, b;
    if (!int_of(v, e->u.op.a, &a)) return false;
    if (op == TK_ANDAND && !a) return *out = 0, true; /* the right side is not evaluated */
    if (op == TK_OROR && a) return *out = 1, true;
    if (!int_of(v, e->u.op.b, &b)) return false;
    switch (op) { /* (what would overflow is not told) */
    case TK_PLUS: return !__builtin_add_overflow(a, b, out);
    case TK_MINUS: return !__builtin_sub_overflow(a, b, out);
    case TK_STAR: return !__builtin_mul_overflow(a, b, out);
    case TK_SLASH: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a / b, true);
    case TK_PERCENT: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a % b, true);
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

static bool int_of(IntEval *v, const Node *e, int64_t *out) {
    e = expr_decided(e);
    if (!e) return *out = 0, true;
    if (--v->budget < 0) return false;
    if (e->is_const) return !e->const_float && (*out = e->cval.i, true);
    switch (e->kind) {
    case N_NAME: {
        for (int d = 0; v->at && d < v->k->info->block_idx.len; d++)
            if (e->sym == v->k->info->block_idx.items[d]) return *out = v->at[d], true;
        const IrStmt *let = v->lets ? let_before_loop(v->k, e->sym) : NULL;
        return let && int_of(v, let->value, out);
    }
    case N_UNARY: {
        int64_t a;
        if (!int_of(v, e->u.op.a, &a)) return false;
        if (e->u.op.op == TK_MINUS) return a != INT64_MIN && (*out = -a, true);
        if (e->u.op.op == TK_BANG) return *out = !a, true;
        return false;
    }
    case N_BINARY: return binary_of(v, e, out);
    case N_COND: {
        int64_t c;
        return int_of(v, e->u.cond.c, &c) && int_of(v, c ? e->u.cond.a : e->u.cond.b, out);
    }
    case N_CALL: return call_of(v, e, out);
    default: return false;
    }
}

bool int_eval(const IrKernel *k, const Node *e, const int64_t *at, bool lets, int64_t *out) {
    IntEval v = {.k = k, .at = at, .lets = lets, .budget = 4096};
    return int_of(&v, e, out);
}
