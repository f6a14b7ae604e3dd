/* pipeline.c - the command's actions on a pipeline (LANGUAGE.md §8): each
 * stage's kernel specialised with the sizes its arguments give it
 * (lib_specialise_stage), lowered and compiled as any kernel; --check
 * lowers them, the --emit actions print every stage's output under a
 * header line, --run and --profile run the stages in order on the
 * pipeline's buffers (profiler/pipeline.c). */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

typedef struct Stage {
    const PipelineStage *ps;
    KernelInfo *k;   /* the kernel specialised for this stage (valid until the next specialisation) */
    CgKernel ck;
    bool generated;
    LibBinary bin;
    StageRun run;
} Stage;

/* The kernel of stage s lowered into s->ck; EXIT_OK or the failure's code. */
static int lower_stage(Ctx *c, Stage *s, const char *file, const Options *o, FILE *ir_out, bool llvm_text) {
    IrKernel *ir = ir_build(c, s->k, &o->target, &o->plan);
    ir->line_directives = o->lineinfo;
    ir->llvm_text = llvm_text;
    if (!pass_run_all(ir, NULL)) return EXIT_SOURCE;
    if (ir_out) ir_print(ir_out, ir);
    int rc = lib_generate(ir, file, o->backend, &s->ck);
    s->generated = rc == EXIT_OK;
    return rc;
}

/* Where stage s's parameters come from (lib_stage_bind): the pipeline's
 * tensors (in parameter order), then its scratch buffers; scalars by value. */
static void bind_stage(Ctx *c, const KernelInfo *p, Stage *s) {
    StageRun *r = &s->run;
    const PipelineStage *ps = s->ps;
    r->kernel = ps->kernel->s;
    r->nparams = s->k->params.len;
    r->float_atomic = s->k->float_atomic;
    r->buffer = arena_alloc(&c->arena, sizeof(int) * (size_t)(r->nparams + 1));
    r->scalar = arena_alloc(&c->arena, sizeof(ScalarArg) * (size_t)(r->nparams + 1));
    LibArg *args = arena_alloc(&c->arena, sizeof(LibArg) * (size_t)(r->nparams + 1));
    lib_stage_bind(p, ps, r->nparams, args);
    for (int a = 0; a < r->nparams; a++) {
        const Sym *kp = s->k->params.items[a];
        r->buffer[a] = args[a].buffer;
        if (args[a].buffer >= 0) continue;
        const Node *v = args[a].value;
        const Sym *from = args[a].scalar >= 0 ? v->sym : NULL; /* the pipeline's scalar, else a constant */
        if (from) prof_scalar_arg(kp->dtype, from->value_float, from->value.f, from->value.i, &r->scalar[a]);
        else prof_scalar_arg(kp->dtype, v->const_float, v->cval.f, v->cval.i, &r->scalar[a]);
    }
    /* its work, for the Stages table (the strings are metrics.c's until its next call) */
    prof_derive_work(s->k, &r->work);
    if (r->work.flop_model) r->work.flop_model = arena_printf(&c->arena, "%s", r->work.flop_model);
    if (r->work.byte_model) r->work.byte_model = arena_printf(&c->arena, "%s", r->work.byte_model);
}

static void stages_free(Stage *st, int n) {
    for (int i = 0; i < n; i++) {
        if (st[i].generated) cg_kernel_free(&st[i].ck);
        free(st[i].bin.cubin);
    }
    free(st);
}

int act_on_pipeline(Ctx *c, Node *prog, KernelInfo *p, CmdLine *cl) {
    Options *o = &cl->opts;
    Action act = cl->act;
    if (act == ACT_LIB) {
        static const char *const both[] = {"sm_80", "sm_90a"};
        return cl->narchs ? emit_lib_pipeline(c, prog, p, cl->file, cl->lib_dir, cl->archs, cl->narchs, o)
                          : emit_lib_pipeline(c, prog, p, cl->file, cl->lib_dir, both, 2, o);
    }
    if (act == ACT_CUBIN || act == ACT_SASS || act == ACT_AUTOTUNE) {
        static const char *const what[] = {[ACT_CUBIN] = "--emit-cubin", [ACT_SASS] = "--emit-sass",
                                           [ACT_AUTOTUNE] = "--autotune"};
        fprintf(stderr, "tilec: %s works on one kernel; '%s' is a pipeline of %d: give a stage's kernel with --kernel\n",
                what[act], p->name->s, p->stages.len);
        return EXIT_USAGE;
    }
    bool runs = act == ACT_RUN || act == ACT_PROFILE;
    int n = p->stages.len, rc = EXIT_OK;
    Stage *st = xcalloc((size_t)n + 1, sizeof *st);
    LibText text;
    bool emits = act == ACT_IR || act == ACT_CUDA || act == ACT_LLVM || act == ACT_PTX;
    FILE *out = emits ? lib_text_open(&text) : NULL;
    double compile_s = 0;
    bool all_hit = true;
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        Stage *s = &st[i];
        s->ps = p->stages.items[i];
        double t0 = rt_now_s();
        s->k = lib_specialise_stage(c, prog, p, s->ps, o->specialise, o->target.name);
        if (!s->k) {
            rc = EXIT_SOURCE;
            break;
        }
        if (out) {
            fprintf(out, "%s ---- stage %d of pipeline '%s': %s ----\n", act == ACT_PTX || act == ACT_LLVM ? ";;" : "//",
                    i + 1, p->name->s, s->ps->kernel->s);
            fflush(out);
        }
        rc = lower_stage(c, s, cl->file, o, act == ACT_IR ? out : NULL, act == ACT_LLVM);
        if (rc != EXIT_OK) break;
        bind_stage(c, p, s);
        if (act == ACT_CUDA) fwrite(s->ck.source, 1, s->ck.source_len, out);
        if (act == ACT_LLVM) {
            if (s->ck.llvm_ir) fwrite(s->ck.llvm_ir, 1, s->ck.llvm_ir_len, out);
            else {
                fprintf(stderr, "tilec: --emit-llvm needs --backend llvm\n");
                rc = EXIT_USAGE;
            }
        }
        LibBuild b = build_options(o, cl->arch);
        if (act == ACT_PTX) {
            char *ptx;
            size_t size;
            rc = lib_obtain_ptx(c, &s->ck, &b, &ptx, &size);
            if (rc == EXIT_OK) fwrite(ptx, 1, size, out);
            free(ptx);
        }
        if (runs) {
            rc = lib_obtain_cubin(c, &s->ck, &b, &s->bin);
            if (rc == EXIT_OK) rc = warn_spills(c, s->k, &s->bin, cl->arch);
            if (rc != EXIT_OK) break;
            compile_s += s->bin.cache_hit ? rt_now_s() - t0 : s->bin.compile_s + (rt_now_s() - t0);
            all_hit &= s->bin.cache_hit;
            s->run.symbol = s->ck.name;
            s->run.cubin = s->bin.cubin;
            s->run.cubin_size = s->bin.size;
            if (!launch_of(&s->ck, s->k, &s->run.launch)) {
                fprintf(stderr, "tilec: the grid of stage %d (kernel '%s') is undefined at these sizes (a division by "
                                "zero or an overflow)\n", i + 1, s->ps->kernel->s);
                rc = EXIT_USAGE;
            }
        }
    }
    if (out) {
        char *all = NULL;
        lib_text_close(&text, &all);
        if (rc == EXIT_OK) {
            if (!cl->out_path) fputs(all, stdout);
            else if (!file_write_atomic(cl->out_path, all, strlen(all))) {
                fprintf(stderr, "tilec: cannot write '%s'\n", cl->out_path);
                rc = EXIT_USAGE;
            }
        }
        free(all);
    }
    if (rc == EXIT_OK && runs && !o->have_device) {
        fprintf(stderr, "tilec: %s needs a GPU to run: %s (the pipeline's %d stages were checked and compiled for %s)\n",
                act == ACT_RUN ? "--run" : "--profile", o->device_err, n, cl->arch);
        rc = EXIT_CUDA;
    }
    if (rc == EXIT_OK && runs) {
        StageRun *runs_of = xcalloc((size_t)n + 1, sizeof *runs_of);
        for (int i = 0; i < n; i++) runs_of[i] = st[i].run;
        if (act == ACT_RUN) {
            rc = prof_pipeline_run(p, runs_of, n, &o->run);
        } else {
            ProfileTarget t = {.file = cl->file, .arch = cl->arch, .cache_hit = all_hit, .compile_s = compile_s,
                               .spill_bytes = -1};
            ProfileOptions po = o->profile;
            po.run = o->run;
            rc = prof_pipeline_profile(p, runs_of, n, &t, &o->device, &po);
        }
        free(runs_of);
    }
    stages_free(st, n);
    return rc;
}

int check_pipeline_stages(Ctx *c, Node *prog, KernelInfo *p, CmdLine *cl) {
    int rc = EXIT_OK;
    for (int i = 0; i < p->stages.len; i++) {
        Stage s = {.ps = p->stages.items[i]};
        s.k = lib_specialise_stage(c, prog, p, s.ps, cl->opts.specialise, cl->opts.target.name);
        int r = s.k ? lower_stage(c, &s, cl->file, &cl->opts, NULL, false) : EXIT_SOURCE;
        if (s.generated) cg_kernel_free(&s.ck);
        if (r != EXIT_OK && rc == EXIT_OK) rc = r;
    }
    return rc;
}
