/* ops.c - the operators of expressions (AST_OPS): their spelling, and the
 * one definition of what the integer operators compute, which constant
 * folding (sema_const.c), the bound-name evaluator (int_value.c) and the
 * reference evaluator (profiler/reference.c) all call, so that they agree. */
#include <stdint.h>

#include "frontend.h"

static const char *const spellings[OP_COUNT] = {
    [OP_NONE] = "?",
#define X(id, sp) [OP_##id] = sp,
    AST_OPS(X)
#undef X
};

const char *op_spelling(AstOp op) {
    return op > OP_NONE && op < OP_COUNT ? spellings[op] : "?";
}

AstOp op_assign_binary(AstOp op) {
    switch (op) {
    case OP_ADD_ASSIGN: return OP_ADD;
    case OP_SUB_ASSIGN: return OP_SUB;
    case OP_MUL_ASSIGN: return OP_MUL;
    case OP_DIV_ASSIGN: return OP_DIV;
    default: return OP_NONE;
    }
}

/* a << b and a >> b: a count of 0 to 63 (C17 6.5.7 leaves others
 * undefined). a << b is a * 2^b where that fits, negative a included: C
 * defines the non-negative case so, and C++20 (which CUDA compiles) and the
 * GPU's shift the negative one too. a >> b of a negative a shifts in sign
 * bits (what C leaves to the implementation, and what every target does). */
static bool shift(bool left, int64_t a, int64_t b, int64_t *out) {
    if (b < 0 || b > 63) return false;
    if (!left) {
        *out = a >> b;
        return true;
    }
    if (a < (INT64_MIN >> b) || a > (INT64_MAX >> b)) return false; /* bits lost */
    *out = (int64_t)((uint64_t)a << b);
    return true;
}

bool int_binop(AstOp op, int64_t a, int64_t b, int64_t *out) {
    switch (op) {
    case OP_ADD: return !__builtin_add_overflow(a, b, out);
    case OP_SUB: return !__builtin_sub_overflow(a, b, out);
    case OP_MUL: return !__builtin_mul_overflow(a, b, out);
    case OP_DIV:
    case OP_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1)) return false;
        *out = op == OP_DIV ? a / b : a % b; /* truncation toward zero */
        return true;
    case OP_SHL: return shift(true, a, b, out);
    case OP_SHR: return shift(false, a, b, out);
    case OP_BAND: *out = a & b; return true;
    case OP_BOR: *out = a | b; return true;
    case OP_BXOR: *out = a ^ b; return true;
    case OP_EQ: *out = a == b; return true;
    case OP_NE: *out = a != b; return true;
    case OP_LT: *out = a < b; return true;
    case OP_LE: *out = a <= b; return true;
    case OP_GT: *out = a > b; return true;
    case OP_GE: *out = a >= b; return true;
    case OP_LAND: *out = a != 0 && b != 0; return true;
    case OP_LOR: *out = a != 0 || b != 0; return true;
    default: return false;
    }
}

bool int_unop(AstOp op, int64_t a, int64_t *out) {
    switch (op) {
    case OP_NEG: return !__builtin_sub_overflow((int64_t)0, a, out);
    case OP_NOT: *out = a == 0; return true;
    case OP_BNOT: *out = ~a; return true;
    default: return false;
    }
}
