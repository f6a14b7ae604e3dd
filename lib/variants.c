/* variants.c - the kernels of a persistent grid of dynamic sizes
 * (PlanOptions.variant, docs/decisions.md "Variants chosen at launch"):
 * the base kernel carries whole tiles and a last wave in halves; its
 * halves variant runs every tile in halves, its split variant splits
 * tiles along the loop. Each is correct at every size and carries only
 * its own case's code; the library compiles the family and each launch
 * takes the variant its sizes suit, the command builds the one its --set
 * sizes suit. */
#include "lib.h"

IrKernel *lib_variant_ir(Ctx *c, KernelInfo *info, const Target *t, const PlanOptions *plan, const IrKernel *base,
                         LaunchVariant v) {
    if (v == VARIANT_BASE || !kernel_grid_dynamic(base) || !base->sched.persistent) return NULL;
    if (v == VARIANT_HALVES && !base->sched.half_slots) return NULL;
    if (v == VARIANT_SPLIT && plan->split_max < 2) return NULL;
    PlanOptions p = *plan;
    p.variant = v;
    IrKernel *k = ir_build(c, info, t, &p);
    /* the base kernel's passes succeeded: these run the same ones */
    if (!pass_run_all(k, NULL)) return NULL;
    bool is_variant = v == VARIANT_SPLIT ? k->sched.split_slots > 0 : k->sched.half_all;
    return is_variant ? k : NULL;
}

bool lib_variant_fits(IrKernel *k, const int64_t *dims) {
    CgKernel ck = {0};
    if (!cg_launch_info(k, &ck)) return false;
    return rt_variant_fits(ck.grid, ck.grid_expr, dims, &ck.units);
}
