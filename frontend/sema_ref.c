/* sema_ref.c - the reference block (LANGUAGE.md §5): element definitions
 * of outputs and temporaries, index variables and their inferred ranges,
 * reductions, and the rules on shadowing and definition order. */
#include <string.h>

#include "sema.h"

static void describe_dim(char *buf, size_t n, const Sym *dim_sym, int64_t extent) {
    if (dim_sym) snprintf(buf, n, "%s (= %lld)", dim_sym->name->s, (long long)extent);
    else snprintf(buf, n, "%lld", (long long)extent);
}

/* Index variable v indexes a dimension of the given extent directly: that
 * gives (or must agree with) its range. Dimensions named by different size
 * variables are different ranges even when their values happen to agree. */
static bool unify_range(Sema *s, Sym *v, int64_t extent, Sym *dim_sym, Loc loc) {
    if (!v->range_known) {
        v->range_known = true;
        v->range = extent;
        v->range_dim_sym = dim_sym;
        v->range_loc = loc;
        return true;
    }
    bool differ = v->range != extent || (v->range_dim_sym && dim_sym && v->range_dim_sym != dim_sym);
    if (!differ) return true;
    char here[96], before[96];
    describe_dim(here, sizeof here, dim_sym, extent);
    describe_dim(before, sizeof before, v->range_dim_sym, v->range);
    if (v->range == extent) /* the same value, but two sizes that --set could part: likely swapped indices */
        diag_error(s->c, loc, "inconsistent range for index '%s': it indexes a dimension of size %s here but of size %s "
                   "before (equal now, but different sizes: are two indices swapped?)", v->name->s, here, before);
    else
        diag_error(s->c, loc, "inconsistent range for index '%s': it indexes a dimension of size %s here but of size %s "
                   "before", v->name->s, here, before);
    diag_note(s->c, v->range_loc, "'%s' got its range here", v->name->s);
    return false;
}

static Sym *declare_index(Sema *s, Node *n, const char *role) {
    if (n->kind != N_NAME) {
        diag_error(s->c, n->loc, "%s must be a plain index variable", role);
        return NULL;
    }
    Sym *old = sym_lookup(n->u.name);
    if (old && old->kind != SYM_BLOCK_IDX) { /* sym_declare: block indices mean nothing here */
        diag_error(s->c, n->loc, "%s '%s' shadows the %s '%s'", role, n->u.name->s, sym_kind_name(old->kind),
                   old->name->s);
        diag_note(s->c, old->loc, "'%s' is defined here", old->name->s);
        return NULL;
    }
    Sym *v = sym_new(s, SYM_REF_INDEX, n->u.name, n->loc);
    v->decl = n;
    v->dtype = DT_I64;
    n->sym = v;
    sym_declare(s, v);
    return v;
}

/* The statement of the reference that defines `name`, if any. */
static Node *definition_of(Sema *s, const Name *name) {
    Node *ref = s->k->node->u.kernel.ref;
    for (int i = 0; ref && i < ref->u.list.len; i++) {
        Node *st = ref->u.list.items[i];
        if (st->kind == N_ASSIGN && st->u.assign.lhs->kind == N_INDEX && st->u.assign.lhs->u.index.name == name)
            return st;
    }
    return NULL;
}

/* Whether a statement of the reference assigns to `name` at all (NAME[...]
 * or NAME, with = or another operator). */
static bool meant_definition(Sema *s, const Name *name) {
    Node *ref = s->k->node->u.kernel.ref;
    for (int i = 0; ref && i < ref->u.list.len; i++) {
        const Node *st = ref->u.list.items[i];
        if (st->kind != N_ASSIGN) continue;
        const Node *lhs = st->u.assign.lhs;
        if ((lhs->kind == N_INDEX && lhs->u.index.name == name) || (lhs->kind == N_NAME && lhs->u.name == name))
            return true;
    }
    return false;
}

bool check_ref_index(Sema *s, Node *e) {
    Sym *sym = sym_lookup(e->u.index.name);
    if (!sym) {
        Node *def = definition_of(s, e->u.index.name);
        if (def && e->u.index.name == s->ref_defining) {
            diag_error(s->c, e->loc, "'%s' is used in its own definition: a reference defines each value once, from "
                       "others (a running sum is sum(k: ...))", e->u.index.name->s);
            return false;
        }
        /* an earlier statement that defines it failed its checks and has
         * said so: one error is enough */
        if (def && def->loc.off < e->loc.off) return false;
        if (def) {
            diag_error(s->c, e->loc, "'%s' is used before the statement that defines it", e->u.index.name->s);
            diag_note(s->c, def->u.assign.lhs->loc, "'%s' is defined here", e->u.index.name->s);
        } else {
            undefined_name(s, e->loc, e->u.index.name);
        }
        return false;
    }
    e->sym = sym;
    sym->used = true;
    if (sym->kind != SYM_TENSOR && sym->kind != SYM_REF_TEMP) {
        diag_error(s->c, e->loc, "'%s' is a %s; only tensors and temporaries can be indexed", sym->name->s,
                   sym_kind_name(sym->kind));
        return false;
    }
    if (sym->kind == SYM_TENSOR && sym->mode == MODE_OUT && !sym->ref_defined) {
        diag_error(s->c, e->loc, "'%s' is an output with no value yet: the reference reads it before defining it",
                   sym->name->s);
        return false;
    }
    NodeList *idx = &e->u.index.idx;
    if (idx->len != sym->rank) {
        diag_error(s->c, e->loc, "'%s' has %d dimension%s but %d ind%s given", sym->name->s, sym->rank,
                   sym->rank == 1 ? "" : "s", idx->len, idx->len == 1 ? "ex is" : "ices are");
        return false;
    }
    bool ok = true;
    for (int j = 0; j < idx->len; j++) {
        Node *ix = idx->items[j];
        if (ix->kind == N_SLICE) {
            diag_error(s->c, ix->loc, "ranges 'a : b' are not allowed in the reference");
            ok = false;
            continue;
        }
        if (!check_int(s, ix, "an index")) { ok = false; continue; }
        if (ix->kind == N_NAME && ix->sym && ix->sym->kind == SYM_REF_INDEX)
            ok &= unify_range(s, ix->sym, sym->shape[j], sym->dim_sym[j], ix->loc);
    }
    e->dtype = sym->kind == SYM_TENSOR ? sym->dtype : DT_F64;
    return ok;
}

bool check_ref_reduction(Sema *s, Node *e) {
    Name *fn = e->u.call.name;
    if (!fn || !is_reduction_name(fn)) {
        diag_error(s->c, e->loc, "only sum, max and min reduce over index variables ('%s(k: ...)' is not one)",
                   fn ? fn->s : "?");
        return false;
    }
    scope_push(s);
    bool ok = true;
    PtrVec vars = {0};
    for (int i = 0; i < e->u.call.reduce_vars.len; i++) {
        Sym *v = declare_index(s, e->u.call.reduce_vars.items[i], "reduction variable");
        if (!v) { ok = false; continue; }
        vec_push(&s->c->arena, &vars, v);
    }
    Node *body = e->u.call.body;
    /* with a variable that could not be declared (it shadows one), its
     * uses in the body would bind to the outer one and fail for that */
    if (ok && check_expr(s, body)) {
        if (!dtype_is_int(body->dtype) && !dtype_is_float(body->dtype) && body->dtype != DT_BOOL) {
            diag_error(s->c, body->loc, "%s needs a numeric expression", fn->s);
            ok = false;
        }
    } else {
        ok = false;
    }
    for (int i = 0; ok && i < vars.len; i++) {
        Sym *v = vars.items[i];
        if (!v->used) {
            diag_error(s->c, v->loc, "reduction variable '%s' is not used in the expression it reduces", v->name->s);
            ok = false;
        } else if (!v->range_known) {
            diag_error(s->c, v->loc, "cannot infer the range of '%s': it never indexes a tensor dimension directly "
                       "(as in X[%s])", v->name->s, v->name->s);
            ok = false;
        }
    }
    scope_pop(s);
    e->dtype = DT_F64;
    return ok;
}

static void check_definition(Sema *s, Node *st) {
    Node *lhs = st->u.assign.lhs, *rhs = st->u.assign.rhs;
    if (st->u.assign.op != OP_ASSIGN) {
        diag_error(s->c, st->loc, "the reference defines elements with '=', not '%s'", op_spelling(st->u.assign.op));
        return;
    }
    if (lhs->kind != N_INDEX) {
        diag_error(s->c, lhs->loc, "the reference defines tensor elements: write NAME[i, j, ...] = expression");
        return;
    }
    Name *name = lhs->u.index.name;
    Sym *target = sym_lookup(name);
    NodeList *idx = &lhs->u.index.idx;
    if (target) {
        if (target->kind == SYM_TENSOR && target->mode == MODE_IN) {
            diag_error(s->c, lhs->loc, "the reference cannot define '%s': it is an input", name->s);
            return;
        }
        if (target->kind == SYM_TENSOR && target->ref_defined) {
            diag_error(s->c, lhs->loc, "'%s' is defined twice in the reference", name->s);
            return;
        }
        if (target->kind == SYM_REF_TEMP) {
            diag_error(s->c, lhs->loc, "temporary '%s' is defined twice", name->s);
            diag_note(s->c, target->loc, "the first definition is here");
            return;
        }
        if (target->kind != SYM_TENSOR) {
            diag_error(s->c, lhs->loc, "'%s' is a %s; the reference defines outputs and temporaries", name->s,
                       sym_kind_name(target->kind));
            return;
        }
        if (idx->len != target->rank) {
            diag_error(s->c, lhs->loc, "'%s' has %d dimension%s but %d ind%s given", name->s, target->rank,
                       target->rank == 1 ? "" : "s", idx->len, idx->len == 1 ? "ex is" : "ices are");
            return;
        }
    } else if (idx->len > MAX_RANK) {
        diag_error(s->c, lhs->loc, "temporaries have at most %d dimensions", MAX_RANK);
        return;
    }
    scope_push(s);
    bool ok = true;
    Sym *vars[MAX_RANK] = {0};
    for (int j = 0; j < idx->len; j++) {
        Node *ix = idx->items[j];
        if (ix->kind != N_NAME) {
            diag_error(s->c, ix->loc, "indices on the left of a definition must be plain index variables");
            ok = false;
            continue;
        }
        for (int i = 0; i < j; i++)
            if (vars[i] && vars[i]->name == ix->u.name) {
                diag_error(s->c, ix->loc, "index variable '%s' appears twice on the left", ix->u.name->s);
                ok = false;
            }
        if (!ok) continue;
        vars[j] = declare_index(s, ix, "index variable");
        if (!vars[j]) { ok = false; continue; }
        if (target) unify_range(s, vars[j], target->shape[j], target->dim_sym[j], ix->loc);
    }
    s->ref_defining = name;
    bool rhs_ok = ok && check_expr(s, rhs);
    s->ref_defining = NULL;
    if (rhs_ok) {
        if (!dtype_is_int(rhs->dtype) && !dtype_is_float(rhs->dtype) && rhs->dtype != DT_BOOL) {
            diag_error(s->c, rhs->loc, "the defining expression must be a number");
            ok = false;
        }
    } else {
        ok = false;
    }
    for (int j = 0; ok && j < idx->len; j++)
        if (!vars[j]->range_known) {
            diag_error(s->c, vars[j]->loc,
                       "cannot infer the range of '%s': it never indexes a tensor dimension directly (as in X[%s])",
                       vars[j]->name->s, vars[j]->name->s);
            ok = false;
        }
    Sym *temp = NULL;
    if (!target && ok) {
        temp = sym_new(s, SYM_REF_TEMP, name, lhs->loc);
        temp->decl = st;
        temp->dtype = DT_F64;
        temp->rank = idx->len;
        for (int j = 0; j < idx->len; j++) {
            temp->shape[j] = vars[j]->range;
            temp->dim_sym[j] = vars[j]->range_dim_sym;
        }
    }
    scope_pop(s);
    if (target) target->ref_defined = true;
    if (temp) {
        temp->ref_defined = true;
        sym_declare(s, temp);
        vec_push(&s->c->arena, &s->k->ref_temps, temp);
    }
}

void check_reference(Sema *s, Node *ref) {
    scope_push(s);
    for (int i = 0; i < ref->u.list.len && !s->c->too_many; i++) {
        Node *st = ref->u.list.items[i];
        if (st->kind == N_LET) {
            Sym *sym = sym_new(s, SYM_REF_LET, st->u.decl.name, st->loc);
            sym->decl = st;
            Node *v = st->u.decl.value;
            if (check_expr(s, v)) {
                sym->dtype = v->dtype;
                sym_take_const(sym, v);
            } else {
                sym->dtype = DT_F64;
            }
            sym_declare(s, sym);
        } else if (st->kind == N_ASSIGN) {
            check_definition(s, st);
        } else {
            diag_error(s->c, st->loc, "a reference block holds only `let` and element definitions (NAME[i, ...] = ...)");
        }
    }
    for (int i = 0; i < s->k->params.len; i++) {
        Sym *p = s->k->params.items[i];
        /* (a statement that means to define it and has errors has said so) */
        if (p->kind == SYM_TENSOR && p->mode == MODE_OUT && !p->ref_defined && !meant_definition(s, p->name))
            diag_error(s->c, p->loc, "the reference does not define the output '%s'", p->name->s);
    }
    scope_pop(s);
}
