/* fuzz_compile.c - a libFuzzer target over the whole compile path: parse,
 * check, build the IR, run the passes, generate CUDA C (and LLVM's PTX)
 * for each kernel and its variants;
 * a pipeline's stages specialised as the command specialises them, after
 * the kernels. Any crash, hang, leak or sanitizer report is a bug;
 * diagnostics are the expected outcome for most inputs. Build and run:
 * see tests/fuzz/README.md. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"
#include "lib.h"

static FILE *sink;

static void emit(IrKernel *k) {
    CgKernel ck;
    if (cg_emit(k, "fuzz.tile", &ck)) cg_kernel_free(&ck);
#ifdef TILEC_HAVE_LLVM
    if (cg_llvm_emit(k, "fuzz.tile", &ck)) cg_kernel_free(&ck);
#endif
}

/* The kernel and, where it has them, its variants (lib_variants), as
 * the library compiles them. */
static void lower(Ctx *c, KernelInfo *info, const Target *target, const PlanOptions *plan) {
    IrKernel *k = ir_build(c, info, target, plan);
    if (!pass_run_all(k, NULL)) return;
    emit(k);
    IrKernel *var[VARIANT_COUNT - 1];
    int n = lib_variants(c, info, target, plan, k, var);
    for (int i = 0; i < n; i++) emit(var[i]);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (!sink) sink = fopen("/dev/null", "w");
    Ctx c;
    ctx_init(&c, sink);
    source_from_string(&c.src, "fuzz.tile", (const char *)data, size);
    Node *prog = fe_parse(&c);
    if (!c.errors) {
        SemaOptions opt = {.arch = "sm_90a"};
        PtrVec kernels = sema_check(&c, prog, &opt);
        Target target;
        target_preset("sm_90a", &target);
        PlanOptions plan = plan_defaults();
        for (int i = 0; i < kernels.len && !c.errors; i++)
            if (!((KernelInfo *)kernels.items[i])->pipeline) lower(&c, kernels.items[i], &target, &plan);
        for (int i = 0; i < kernels.len && !c.errors; i++) {
            KernelInfo *p = kernels.items[i];
            for (int s = 0; p->pipeline && s < p->stages.len && !c.errors; s++) {
                KernelInfo *stage = lib_specialise_stage(&c, prog, p, p->stages.items[s], false, "sm_90a");
                if (stage) lower(&c, stage, &target, &plan);
            }
        }
    }
    ctx_free(&c);
    return 0;
}
