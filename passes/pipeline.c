/* pipeline.c - the passes, in order. `specialize` happened in the front end
 * (values bound and folded while checking), `rasterize` is the block order
 * use_swizzle asks for, applied by the code generator's prologue. */
#include <string.h>

#include "passes.h"

typedef struct Pass {
    const char *name;
    void (*run)(IrKernel *k);
} Pass;

static const Pass passes[] = {
    {"stage_operands", pass_stage_operands},
    {"plan_warpgroups", pass_plan_warpgroups},
    {"infer_layout", pass_infer_layout},
    {"stage_elements", pass_stage_elements},
    {"plan_scan", pass_plan_scan},
    {"plan_pipeline", pass_plan_pipeline},
    {"plan_shared", pass_plan_shared},
    {"plan_store", pass_plan_store},
    {"insert_sync", pass_insert_sync},
    {"plan_schedule", pass_plan_schedule},
    {"warn_fast_paths", pass_warn_fast_paths},
};
enum { NPASSES = sizeof passes / sizeof *passes };

bool pass_exists(const char *name) {
    for (int i = 0; i < NPASSES; i++)
        if (!strcmp(passes[i].name, name)) return true;
    return false;
}

const char *pass_names(void) { return "stage_operands, plan_warpgroups, infer_layout, stage_elements, plan_scan, plan_pipeline, plan_shared, plan_store, insert_sync, plan_schedule, warn_fast_paths"; }

static bool wanted(const char *list, const char *name) {
    if (!list) return false;
    if (!strcmp(list, "all")) return true;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
    return false;
}

bool pass_run_all(IrKernel *k, const PassOptions *opt) {
    int errors = k->c->errors;
    for (int i = 0; i < NPASSES; i++) {
        passes[i].run(k);
        if (k->c->errors != errors) return false;
#ifndef NDEBUG
        ir_verify(k, passes[i].name);
#endif
        if (opt && wanted(opt->print_after, passes[i].name)) {
            fprintf(opt->print_to, "// ---- IR after %s ----\n", passes[i].name);
            ir_print(opt->print_to, k);
        }
    }
    return true;
}
