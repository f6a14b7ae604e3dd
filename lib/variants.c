/* variants.c - the kernels of a persistent grid of dynamic sizes
 * (PlanOptions.variant, docs/decisions.md "Variants chosen at launch"):
 * the base kernel carries whole tiles and a last wave in halves; its
 * halves variant runs every tile in halves, its split variant splits
 * tiles along the loop. Each is correct at every size and carries only
 * its own case's code; the library compiles the family and each launch
 * takes the variant its sizes suit, the command builds the one its --set
 * sizes suit. */
#include "lib.h"

/* Kernel `info` through the passes as variant v of plan, where the base
 * kernel has one; else NULL. */
static IrKernel *variant_ir(Ctx *c, KernelInfo *info, const Target *t, const PlanOptions *plan, const IrKernel *base,
                            LaunchVariant v) {
    if (v == VARIANT_HALVES && !base->sched.half_slots) return NULL;
    if (v == VARIANT_SPLIT && plan->split_max < 2) return NULL;
    PlanOptions p = *plan;
    p.variant = v;
    IrKernel *k = ir_build(c, info, t, &p);
    /* the base kernel's passes succeeded: these run the same ones */
    if (!pass_run_all(k, NULL)) return NULL;
    return sched_variant(&k->sched) == v ? k : NULL;
}

int lib_variants(Ctx *c, KernelInfo *info, const Target *t, const PlanOptions *plan, const IrKernel *base,
                 IrKernel *out[VARIANT_COUNT - 1]) {
    if (!kernel_grid_dynamic(base) || !base->sched.persistent) return 0;
    static const LaunchVariant launch_order[VARIANT_COUNT - 1] = {VARIANT_SPLIT, VARIANT_HALVES};
    int n = 0;
    for (int i = 0; i < VARIANT_COUNT - 1; i++)
        if ((out[n] = variant_ir(c, info, t, plan, base, launch_order[i]))) n++;
    return n;
}

bool lib_variant_fits(IrKernel *k, const int64_t *dims) {
    CgKernel ck = {0};
    long long grid[3];
    if (!cg_launch_info(k, &ck)) return false;
    return rt_variant_fits(ck.grid, ck.grid_expr, dims, &ck.units, grid);
}
