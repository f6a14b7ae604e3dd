/* host_program.c - an integer expression of dynamic sizes as the postfix
 * program the host evaluates at launch (launch_shape.h): a grid dimension
 * (the checked one of the grid clause: sema allows nothing else there), or
 * the trip count of a loop a launch splits (Schedule.split_slots). Integer
 * constants, the kernel's dynamic sizes, and the integer operators,
 * ceildiv, min, max, abs and ?: over them; anything else is refused. */
#include <string.h>

#include "ir.h"

static bool push(RtGridExpr *out, int op, int64_t value) {
    if (out->n == RT_MAX_GRID_OPS) return false;
    out->ops[out->n].op = op;
    out->ops[out->n++].value = value;
    return true;
}

static int binary_op(AstOp op) {
    switch (op) {
    case OP_ADD: return RT_GOP_ADD;
    case OP_SUB: return RT_GOP_SUB;
    case OP_MUL: return RT_GOP_MUL;
    case OP_DIV: return RT_GOP_DIV;
    case OP_MOD: return RT_GOP_MOD;
    case OP_SHL: return RT_GOP_SHL;
    case OP_SHR: return RT_GOP_SHR;
    case OP_BAND: return RT_GOP_AND;
    case OP_BOR: return RT_GOP_OR;
    case OP_BXOR: return RT_GOP_XOR;
    case OP_LT: return RT_GOP_LT;
    case OP_LE: return RT_GOP_LE;
    case OP_GT: return RT_GOP_GT;
    case OP_GE: return RT_GOP_GE;
    case OP_EQ: return RT_GOP_EQ;
    case OP_NE: return RT_GOP_NE;
    case OP_LAND: return RT_GOP_LAND;
    case OP_LOR: return RT_GOP_LOR;
    default: return -1;
    }
}

static bool program(const Node *e, const PtrVec *dynamic, RtGridExpr *out) {
    if (e->is_const) return !e->const_float && push(out, RT_GOP_CONST, e->cval.i);
    switch (e->kind) {
    case N_NAME:
        for (int i = 0; i < dynamic->len; i++)
            if (dynamic->items[i] == e->sym) return push(out, RT_GOP_DIM, i);
        return false;
    case N_UNARY: {
        int op = e->u.op.op == OP_NEG ? RT_GOP_NEG : e->u.op.op == OP_NOT ? RT_GOP_NOT : e->u.op.op == OP_BNOT ? RT_GOP_BNOT : -1;
        return op >= 0 && program(e->u.op.a, dynamic, out) && push(out, op, 0);
    }
    case N_BINARY: {
        int op = binary_op(e->u.op.op);
        return op >= 0 && program(e->u.op.a, dynamic, out) && program(e->u.op.b, dynamic, out) && push(out, op, 0);
    }
    case N_COND:
        return program(e->u.cond.c, dynamic, out) && program(e->u.cond.a, dynamic, out) &&
               program(e->u.cond.b, dynamic, out) && push(out, RT_GOP_SELECT, 0);
    case N_CALL: {
        const NodeList *a = &e->u.call.args;
        if (!e->u.call.name) return a->len == 1 && program(a->items[0], dynamic, out); /* an integer cast */
        const char *f = e->u.call.name->s;
        if (!strcmp(f, "abs")) return a->len == 1 && program(a->items[0], dynamic, out) && push(out, RT_GOP_ABS, 0);
        int op = !strcmp(f, "ceildiv") ? RT_GOP_CEILDIV : !strcmp(f, "min") ? RT_GOP_MIN : !strcmp(f, "max") ? RT_GOP_MAX : -1;
        if (op < 0 || a->len < 2 || !program(a->items[0], dynamic, out)) return false;
        for (int i = 1; i < a->len; i++)
            if (!program(a->items[i], dynamic, out) || !push(out, op, 0)) return false;
        return true;
    }
    default: return false;
    }
}

bool ir_host_program(const Node *e, const PtrVec *dynamic, RtGridExpr *out) {
    memset(out, 0, sizeof *out);
    return program(e, dynamic, out);
}
