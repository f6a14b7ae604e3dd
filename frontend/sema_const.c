/* sema_const.c - constant folding with checked arithmetic, and the lazy
 * evaluation of named compile-time values (sizes, scalars, where, tune,
 * const) in whatever order they reference each other. */
#include <math.h>

#include "sema.h"

void const_set_int(Node *e, int64_t v) {
    e->is_const = true;
    e->const_float = false;
    e->cval.i = v;
}

void const_set_float(Node *e, double v) {
    e->is_const = true;
    e->const_float = true;
    e->cval.f = v;
}

double const_as_float(const Node *e) {
    return e->const_float ? e->cval.f : (double)e->cval.i;
}

/* Reports why int_binop refused x op y (ops.c lists its cases). */
static bool int_fault(Sema *s, Node *e, AstOp op, int64_t y) {
    if ((op == OP_DIV || op == OP_MOD) && y == 0)
        diag_error(s->c, e->loc, "division by zero in constant expression ('%s')", op_spelling(op));
    else if ((op == OP_SHL || op == OP_SHR) && (y < 0 || y > 63))
        diag_error(s->c, e->loc, "shift by %lld is out of range (0 to 63)", (long long)y);
    else
        diag_error(s->c, e->loc, "integer overflow in constant expression ('%s')", op_spelling(op));
    return false;
}

/* Folds a op b; both are constants of known type, e->dtype is already the
 * result type. */
bool const_binary(Sema *s, Node *e, AstOp op, const Node *a, const Node *b) {
    bool fl = a->const_float || b->const_float;
    if (op == OP_LAND || op == OP_LOR) {
        bool x = node_const_true(a), y = node_const_true(b);
        const_set_int(e, op == OP_LAND ? (x && y) : (x || y));
        return true;
    }
    if (fl) {
        double x = const_as_float(a), y = const_as_float(b);
        switch (op) {
        case OP_ADD: const_set_float(e, x + y); return true;
        case OP_SUB: const_set_float(e, x - y); return true;
        case OP_MUL: const_set_float(e, x * y); return true;
        case OP_DIV: const_set_float(e, x / y); return true; /* IEEE: inf/nan */
        case OP_EQ: const_set_int(e, x == y); return true;
        case OP_NE: const_set_int(e, x != y); return true;
        case OP_LT: const_set_int(e, x < y); return true;
        case OP_LE: const_set_int(e, x <= y); return true;
        case OP_GT: const_set_int(e, x > y); return true;
        case OP_GE: const_set_int(e, x >= y); return true;
        default: return false; /* integer-only operators were rejected by typing */
        }
    }
    int64_t r;
    if (!int_binop(op, a->cval.i, b->cval.i, &r)) return int_fault(s, e, op, b->cval.i);
    const_set_int(e, r);
    return true;
}

bool const_unary(Sema *s, Node *e, AstOp op, const Node *a) {
    if (op == OP_NOT) {
        const_set_int(e, a->const_float ? a->cval.f == 0 : a->cval.i == 0);
        return true;
    }
    if (a->const_float) {
        if (op != OP_NEG) return false;
        const_set_float(e, -a->cval.f);
        return true;
    }
    int64_t r;
    if (!int_unop(op, a->cval.i, &r)) return int_fault(s, e, op, 0);
    const_set_int(e, r);
    return true;
}

bool const_fits(Sema *s, const Node *e, Dtype to, Loc loc, const char *what) {
    if (dtype_is_float(to) || to == DT_BOOL) return true;
    if (e->const_float) {
        diag_error(s->c, loc, "%s must be an integer, not %g", what, e->cval.f);
        return false;
    }
    bool ok = dtype_int_fits(to, e->cval.i);
    if (!ok) diag_error(s->c, loc, "%s = %lld does not fit in %s", what, (long long)e->cval.i, dtype_name(to));
    return ok;
}

bool literal_fits(Sema *s, const Node *v, Dtype to) {
    if (s->dead) return true;
    if (v->kind == N_COND) {
        /* c ? 300 : x: a branch literal takes the conditional's type, which
         * is the target's where both branches are literals */
        Dtype t = v->dtype == DT_INT_LIT || v->dtype == DT_FLOAT_LIT ? to : v->dtype;
        const Node *c = v->u.cond.c;
        if (c->is_const) /* decided by the specialisation (the whole may be folded): the branch it takes */
            return literal_fits(s, node_const_true(c) ? v->u.cond.a : v->u.cond.b, t);
        bool a = literal_fits(s, v->u.cond.a, t);
        return literal_fits(s, v->u.cond.b, t) && a;
    }
    if (!v->is_const) return true;
    if (v->dtype == DT_INT_LIT && dtype_is_int(to) && !v->const_float && !dtype_int_fits(to, v->cval.i)) {
        diag_error(s->c, v->loc, "%lld does not fit in %s", (long long)v->cval.i, dtype_name(to));
        return false;
    }
    double f = v->const_float ? v->cval.f : (double)v->cval.i;
    if ((v->dtype == DT_FLOAT_LIT || v->dtype == DT_INT_LIT) && dtype_is_float(to) && isfinite(f) &&
        !isfinite(dtype_round_float(to, f))) {
        diag_error(s->c, v->loc, "the value %g does not fit in %s (it would be infinity)", f, dtype_name(to));
        return false;
    }
    return true;
}

bool sym_value(Sema *s, Sym *sym, Loc use) {
    if (sym->eval_state == 2) return sym->has_value;
    if (sym->eval_state == 1) {
        diag_error(s->c, use, "the value of '%s' depends on itself", sym->name->s);
        diag_note(s->c, sym->loc, "'%s' is defined here", sym->name->s);
        sym->eval_state = 2;
        return false;
    }
    if (sym->overridden) { /* --set gave it already (has_value false: unusable) */
        sym->eval_state = 2;
        return sym->has_value;
    }
    if (!sym->value_expr) {
        const char *what = sym->kind == SYM_SIZE ? "size" : "scalar parameter";
        diag_error(s->c, sym->loc, "%s '%s' has no value: give it in `where` (%s = ...) or with --set %s=...",
                   what, sym->name->s, sym->name->s, sym->name->s);
        sym->eval_state = 2;
        return false;
    }
    sym->eval_state = 1;
    /* Values are evaluated in the constant context, whatever the use. */
    ExprMode mode = s->mode;
    s->mode = EM_CONST;
    Node *e = sym->value_expr;
    bool ok = check_expr(s, e);
    s->mode = mode;
    if (ok && !e->is_const) {
        diag_error(s->c, e->loc, "the value of '%s' is not a compile-time constant", sym->name->s);
        ok = false;
    }
    if (ok && sym->kind == SYM_SCALAR)
        ok = const_fits(s, e, sym->dtype, e->loc, sym->name->s);
    if (ok && sym->kind == SYM_SIZE && (e->const_float || e->dtype == DT_BOOL || e->cval.i < 1)) {
        if (e->dtype == DT_BOOL)
            diag_error(s->c, e->loc, "size '%s' must be a positive integer, not the bool %s", sym->name->s,
                       e->cval.i ? "true" : "false");
        else if (e->const_float)
            diag_error(s->c, e->loc, "size '%s' must be a positive integer, not the float %g", sym->name->s, e->cval.f);
        else
            diag_error(s->c, e->loc, "size '%s' must be a positive integer, not %lld", sym->name->s,
                       (long long)e->cval.i);
        ok = false;
    }
    if (ok && sym->kind != SYM_SCALAR) sym->dtype = sym->kind == SYM_SIZE ? DT_INT_LIT : e->dtype;
    if (ok && sym->kind == SYM_SCALAR && dtype_is_float(sym->dtype) && !e->const_float) {
        /* an integer literal given for a float scalar */
        e->const_float = true;
        e->cval.f = (double)e->cval.i;
    }
    if (ok) {
        sym->value_float = e->const_float;
        sym->value.i = e->cval.i;
        if (e->const_float) sym->value.f = e->cval.f;
        /* a float scalar is the value its dtype holds (b: bf16 = 0.3 is
         * 0.30078125), in the kernel and in the reference alike */
        if (e->const_float && sym->kind == SYM_SCALAR) {
            sym->value.f = dtype_round_float(sym->dtype, sym->value.f);
            if (isfinite(e->cval.f) && !isfinite(sym->value.f)) {
                diag_error(s->c, e->loc, "%g does not fit the %s parameter '%s'", e->cval.f, dtype_name(sym->dtype),
                           sym->name->s);
                ok = false;
            }
        }
    }
    sym->eval_state = 2;
    sym->has_value = ok;
    return ok;
}
