/* lower_atomic.c - atomics on one element that return the old value
 * (IR_ATOMIC: `let old = atomic_cas(lock[g], 0, 1);`, and atomic_max/min/
 * exch/cas statements). Inside a parallel loop each iteration makes its
 * own. Outside one, the block makes it once: thread 0, which puts the old
 * value in a shared slot that every thread reads after a barrier (and a
 * second barrier keeps the slot until all have, should the statement run
 * again in a loop). An element past the tensor's edge is not touched and
 * gives 0. The helpers are tilec_device.cuh's tl_atomic_*. */
#include "codegen.h"

static const char *const helper[] = {"tl_atomic_add", "tl_atomic_max", "tl_atomic_min", "tl_atomic_exch",
                                     "tl_atomic_cas"};

const char *cg_atomic_check(const IrStmt *s, bool shared_iterations) {
    if (shared_iterations && s->sym)
        return "an atomic's old value in a loop whose iterations several threads hold (a fragment of rows or one every "
               "thread keeps): only one of them could make it";
    return NULL;
}

void cg_atomic(Cg *g, IrStmt *s) {
    const char *why = cg_atomic_check(s, g->par && g->owner);
    if (why) {
        cg_error(g, s->loc, "%s", why);
        return;
    }
    Dtype t = s->target->sym->dtype;
    const char *ct = cg_storage_type(t);
    char *cond;
    char *ref = cg_element_ref(g, s->target, &cond);
    char *call = arena_printf(&g->k->c->arena, "%s(&%s, ", helper[s->atomic], ref);
    if (s->compare) call = arena_printf(&g->k->c->arena, "%s(%s)(%s), ", call, ct, cg_value_str(g, s->compare, t));
    call = arena_printf(&g->k->c->arena, "%s(%s)(%s))", call, ct, cg_value_str(g, s->value, t));
    const char *old = s->sym ? ir_sym_cname(g->k->c, s->sym) : NULL;
    if (g->par) { /* each iteration its own; the owner where several threads hold one */
        cond = cg_and(g, g->owner, cond);
        if (old) cg_line(g, "const %s %s = %s ? %s : (%s)0;", ct, old, cond ? cond : "true", call, ct);
        else if (cond) cg_line(g, "if (%s) %s;", cond, call);
        else cg_line(g, "%s;", call);
        return;
    }
    /* the block's one: thread 0's */
    cond = cg_and(g, "tid == 0", cond);
    if (!old) {
        cg_line(g, "if (%s) %s;", cond, call);
        return;
    }
    const char *slot = cg_tmp(g, "old");
    cg_line(g, "__shared__ %s %s;  // the old value, for every thread", ct, slot);
    cg_line(g, "if (tid == 0) %s = %s ? %s : (%s)0;", slot, cond, call, ct);
    cg_sync(g);
    cg_line(g, "const %s %s = %s;", ct, old, slot);
    cg_sync(g);
}
