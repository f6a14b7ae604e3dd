/* tilec.c - the command line (LANGUAGE.md §7): a thin layer over libtilec. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"

LibBuild build_options(const Options *opts, const char *arch) {
    return (LibBuild){.arch = arch, .target = &opts->target, .plan = &opts->plan, .cache_dir = opts->cache_dir,
                      .no_cache = opts->no_cache, .verbose = verbose, .err = stderr};
}

/* Whether paths a and b name one existing file. */
static bool same_file(const char *a, const char *b) {
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* What an --emit action made: to stdout, or to the -o file. */
static int emit_text(const char *out_path, const void *text, size_t len) {
    if (!out_path) {
        fwrite(text, 1, len, stdout);
        return EXIT_OK;
    }
    if (file_write_atomic(out_path, text, len)) return EXIT_OK;
    fprintf(stderr, "tilec: cannot write '%s'\n", out_path);
    return EXIT_USAGE;
}

/* The same for what a printer writes (the syntax tree, the IR). */
typedef void (*Printer)(FILE *out, const void *what);
static void print_ast(FILE *out, const void *program) { ast_print(out, program); }
static void print_ir(FILE *out, const void *kernel) { ir_print(out, kernel); }

static int emit_printed(const char *out_path, Printer print, const void *what) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) die("out of memory printing the output");
    print(m, what);
    fclose(m);
    int rc = emit_text(out_path, text, len);
    free(text);
    return rc;
}

/* When the run started and when the program was checked, for -v's split
 * of the compile time. */
static double started_s, checked_s;

/* -v: where the compile's time went, before the cubin step (said there). */
static void say_split(const CgKernel *ck, double passes_s, double codegen_s) {
    fprintf(stderr, "tilec: compile time: front end %.1f ms, passes %.1f ms", (checked_s - started_s) * 1e3, passes_s * 1e3);
    if (ck->backend == CG_LLVM)
        fprintf(stderr, ", LLVM module %.1f ms, libdevice %.1f ms, O3 %.1f ms, NVPTX %.1f ms\n", ck->build_s * 1e3,
                ck->link_s * 1e3, ck->opt_s * 1e3, ck->ptx_s * 1e3);
    else
        fprintf(stderr, ", CUDA C %.1f ms\n", codegen_s * 1e3);
}

/* -v: where each cumsum runs (plan_scan) */
static void say_scan(IrStmt *s, void *arg) {
    if (s->op != IR_SCAN) return;
    const char *kernel = arg;
    if (s->dst.buf) fprintf(stderr, "tilec: kernel '%s': the cumsum on line %u runs in registers\n", kernel, s->loc.line);
    else
        fprintf(stderr, "tilec: kernel '%s': the cumsum on line %u runs in shared memory: %s\n", kernel, s->loc.line,
                s->not_in_registers ? s->not_in_registers : "its fragments are not copied whole");
}

/* -v: the tunables whose defaults came from the target's `tune TARGET:`
 * clause (not from --set or an autotuned configuration). */
static void say_target_defaults(const KernelInfo *info, const char *arch) {
    char list[512] = "";
    size_t n = 0;
    for (int i = 0; i < info->values.len && n < sizeof list; i++) {
        const Sym *v = info->values.items[i];
        if (!v->target_default || v->overridden || !v->has_value) continue;
        n += v->value_float ? (size_t)snprintf(list + n, sizeof list - n, "%s%s = %g", n ? ", " : "", v->name->s, v->value.f)
                            : (size_t)snprintf(list + n, sizeof list - n, "%s%s = %lld", n ? ", " : "", v->name->s,
                                               (long long)v->value.i);
    }
    if (n) fprintf(stderr, "tilec: kernel '%s' takes its `tune %s:` defaults: %s\n", info->name->s, arch, list);
}

/* --run and --profile of a persistent grid of dynamic sizes: the variant
 * of the kernel that a launch at the --set sizes takes, as the library's
 * launch chooses it (split, then halves, else the base kernel). */
static IrKernel *launch_variant(Ctx *c, KernelInfo *info, IrKernel *base, PlanOptions *plan, const Options *opts) {
    int64_t dims[RT_MAX_DYNAMIC] = {0};
    for (int i = 0; i < info->dynamic.len && i < RT_MAX_DYNAMIC; i++) dims[i] = ((const Sym *)info->dynamic.items[i])->value.i;
    IrKernel *var[VARIANT_COUNT - 1];
    int n = lib_variants(c, info, &opts->target, plan, base, var);
    for (int i = 0; i < n; i++) {
        if (!lib_variant_fits(var[i], dims)) continue;
        var[i]->line_directives = base->line_directives;
        plan->variant = sched_variant(&var[i]->sched);
        if (verbose)
            fprintf(stderr, "tilec: kernel '%s': its %s variant, which a launch at these sizes takes (--variant)\n",
                    info->name->s, plan_variant_name(plan->variant));
        return var[i];
    }
    return base;
}

/* -v of the other actions: the variants the kernel has, which its
 * launches may take instead of it. */
static void say_variants(Ctx *c, KernelInfo *info, IrKernel *base, const PlanOptions *plan, const Options *opts) {
    IrKernel *var[VARIANT_COUNT - 1];
    int n = lib_variants(c, info, &opts->target, plan, base, var);
    if (n)
        fprintf(stderr, "tilec: kernel '%s' has a %s%s%s variant, which launches take where their sizes suit it "
                        "(--variant shows it)\n", info->name->s, plan_variant_name(sched_variant(&var[0]->sched)),
                n == 2 ? " and a " : "", n == 2 ? plan_variant_name(sched_variant(&var[1]->sched)) : "");
}

/* Lowers one checked kernel to CUDA C (or LLVM's PTX) and acts on it. */
static int generate(Ctx *c, KernelInfo *info, Action act, const char *file, const char *arch, const char *out_path,
                    const char *print_after, const Options *opts) {
    double t0 = rt_now_s();
    PlanOptions plan = opts->plan;
    if (opts->variant >= 0) plan.variant = (LaunchVariant)opts->variant;
    IrKernel *k = ir_build(c, info, &opts->target, &plan);
    k->line_directives = opts->lineinfo;
    k->llvm_text = act == ACT_LLVM;
    PassOptions po = {.print_after = print_after, .print_to = stderr};
    if (!pass_run_all(k, &po)) return EXIT_SOURCE;
    if (opts->variant < 0 && (act == ACT_RUN || act == ACT_PROFILE)) k = launch_variant(c, info, k, &plan, opts);
    else if (opts->variant < 0 && verbose) say_variants(c, info, k, &plan, opts);
    if (sched_variant(&k->sched) != plan.variant)
        fprintf(stderr, "tilec: kernel '%s' has no %s variant (a persistent grid of dynamic sizes on the sm_90a path "
                        "that can %s); this is the kernel itself\n", info->name->s, plan_variant_name(plan.variant),
                plan.variant == VARIANT_SPLIT ? "split its tiles along its loop" : "halve its tiles");
    double passes_s = rt_now_s() - t0;
    if (verbose) say_target_defaults(info, arch);
    if (verbose) ir_walk(&k->body, say_scan, (void *)info->name->s);
    if (verbose && k->ws_loop) {
        fprintf(stderr, "tilec: kernel '%s' takes the sm_90a path: a producer warpgroup issuing %d TMA cop%s%s, wgmma in "
                        "%lld consumer threads; %d store%s (or reduction%s) through shared memory and TMA\n", info->name->s,
                k->tma_copies.len, k->tma_copies.len == 1 ? "y" : "ies",
                k->ring_async_copies.len
                    ? arena_printf(&c->arena, " and %d cp.async cop%s (rows TMA cannot address: gathered, or not "
                                              "whole 16-byte units)",
                                   k->ring_async_copies.len, k->ring_async_copies.len == 1 ? "y" : "ies")
                    : "",
                (long long)k->threads, k->tma_stores.len, k->tma_stores.len == 1 ? "" : "s", k->tma_stores.len == 1 ? "" : "s");
        if (k->store_declined)
            fprintf(stderr, "tilec: kernel '%s': a store of a fragment stays a direct one: %s\n", info->name->s, k->store_declined);
        if (k->sched.persistent || k->sched.cluster || k->sched.split_ways)
            fprintf(stderr, "tilec: kernel '%s':%s%s%s%s\n", info->name->s, k->sched.persistent ? " persistent blocks" : "",
                    k->sched.cluster ? " in clusters of two (TMA multicast)" : "",
                    k->sched.split_ways ? arena_printf(&c->arena, ", every tile in %d pieces along the loop", k->sched.split_ways)
                    : k->sched.split_slots ? arena_printf(&c->arena, ", a grid of less than a wave (of %lld slots) in up to %d "
                                                          "pieces a tile along the loop", (long long)k->sched.split_slots,
                                                          k->sched.split_max)
                                           : "",
                    k->sched.half_tiles ? arena_printf(&c->arena, ", the last %lld tiles in halves of their columns",
                                                 (long long)(k->sched.half_tiles * (k->sched.cluster ? 2 : 1)))
                    : k->sched.half_slots ? arena_printf(&c->arena, ", a last wave filled at most half (of %lld slots) in halves "
                                                         "of its tiles' columns", (long long)k->sched.half_slots)
                                          : "");
    } else if (verbose && k->hopper_declined)
        fprintf(stderr, "tilec: kernel '%s' takes the Ampere path on sm_90a: %s\n", info->name->s, k->hopper_declined);
    if (act == ACT_IR) return emit_printed(out_path, print_ir, k);
    CgKernel ck;
    double t1 = rt_now_s();
    int rc = lib_generate(k, file, opts->backend, &ck);
    if (rc != EXIT_OK) return rc;
    if (verbose) say_split(&ck, passes_s, rt_now_s() - t1);
    if (act == ACT_CUDA) {
        rc = emit_text(out_path, ck.source, ck.source_len);
    } else if (act == ACT_LLVM) {
        rc = emit_text(out_path, ck.llvm_ir, ck.llvm_ir_len);
    } else if (act == ACT_PTX) {
        LibBuild b = build_options(opts, arch);
        b.plan = &plan; /* the variant built */
        char *ptx;
        size_t size;
        rc = lib_obtain_ptx(c, &ck, &b, &ptx, &size);
        if (rc == EXIT_OK) rc = emit_text(out_path, ptx, size);
        free(ptx);
    } else if (act == ACT_CUBIN || act == ACT_SASS || act == ACT_RUN || act == ACT_PROFILE) {
        LibBuild b = build_options(opts, arch);
        b.plan = &plan; /* the variant built */
        LibBinary bin;
        rc = lib_obtain_cubin(c, &ck, &b, &bin);
        if (rc == EXIT_OK) rc = warn_spills(c, info, &bin, arch);
        if (rc == EXIT_OK && act == ACT_SASS) rc = sass_print(bin.cubin, bin.size, stdout);
        if (rc == EXIT_OK && (act == ACT_RUN || act == ACT_PROFILE) && !opts->have_device) {
            /* everything up to the launch works without a GPU */
            fprintf(stderr, "tilec: %s needs a GPU to run: %s (the kernel was checked and compiled for %s)\n",
                    act == ACT_RUN ? "--run" : "--profile", opts->device_err, arch);
            rc = EXIT_CUDA;
        }
        if (rc == EXIT_OK && act == ACT_CUBIN) rc = emit_text(out_path, bin.cubin, bin.size);
        LaunchSpec launch;
        if (rc == EXIT_OK && (act == ACT_RUN || act == ACT_PROFILE) && !launch_of(&ck, info, &launch)) {
            fprintf(stderr, "tilec: the grid of kernel '%s' is undefined at these sizes (a division by zero or an "
                            "overflow)\n", info->name->s);
            rc = EXIT_USAGE;
        }
        if (rc == EXIT_OK && act == ACT_RUN) rc = prof_run(info, ck.name, bin.cubin, bin.size, &launch, &opts->run);
        if (rc == EXIT_OK && act == ACT_PROFILE) {
            ProfileTarget t = {.file = file, .symbol = ck.name, .arch = arch, .cubin = bin.cubin, .cubin_size = bin.size,
                               .launch = launch, .cache_hit = bin.cache_hit, .compile_s = bin.compile_s,
                               .spill_bytes = bin.spill_bytes};
            ProfileOptions po2 = opts->profile;
            po2.run = opts->run;
            SourceLines lines;
            if (opts->ncu && opts->ncu_lines) { /* before the report, which shows them */
                ncu_source_lines(opts->argc, opts->argv, ck.name, file, &lines);
                po2.lines = &lines;
                po2.source = &c->src;
            }
            rc = prof_profile(info, &t, &opts->device, &po2);
            SassCounts sc;
            if (rc == EXIT_OK && verbose && sass_count(bin.cubin, bin.size, &sc))
                sass_print_counts(stdout, "SASS (static counts): ", &sc);
            if (rc == EXIT_OK && opts->ncu) rc = ncu_report(opts->argc, opts->argv, ck.name);
        }
        free(bin.cubin);
    }
    cg_kernel_free(&ck);
    return rc;
}

/* --check's lowering: the passes and the code generator (no NVRTC) on
 * every checked kernel, so that what they refuse is found too; every
 * kernel is lowered, each one's first error reported. */
static int check_lowering(Ctx *c, const PtrVec *kernels, const char *file, const Options *opts) {
    int rc = EXIT_OK;
    for (int i = 0; i < kernels->len; i++) {
        if (((KernelInfo *)kernels->items[i])->pipeline) continue; /* its stages: check_pipeline_stages */
        int errors = c->errors;
        IrKernel *k = ir_build(c, kernels->items[i], &opts->target, &opts->plan);
        if (pass_run_all(k, NULL)) {
            CgKernel ck;
            int generated = lib_generate(k, file, opts->backend, &ck);
            if (generated == EXIT_OK) cg_kernel_free(&ck);
            else if (rc == EXIT_OK) rc = generated;
        }
        if (c->errors != errors) rc = EXIT_SOURCE;
    }
    return rc;
}

/* Every --set value was used, and validly: EXIT_OK, or said and EXIT_USAGE. */
static int overrides_used(const CmdLine *cl, const PtrVec *kernels) {
    return lib_overrides_used(stderr, "--set", cl->overrides, cl->n_overrides, kernels, cl->kernel != NULL);
}

/* The one checked kernel an action that lowers works on: autotuned, or
 * run with a stored autotuning result unless --set fixes it. */
static int act_on_kernel(Ctx *c, Node *prog, KernelInfo *k, CmdLine *cl) {
    if (cl->nsweeps > 0) return sweep_run(c, prog, k, cl, act_on_kernel);
    Options *o = &cl->opts;
    /* scalars are run-time arguments: tilec's own runs need their values */
    bool runs = cl->act == ACT_RUN || cl->act == ACT_PROFILE || cl->act == ACT_AUTOTUNE;
    const char *kind = k->pipeline ? "pipeline" : "kernel";
    for (int i = 0; i < k->params.len && runs; i++) {
        const Sym *p = k->params.items[i];
        if (p->kind == SYM_SCALAR && !p->has_value) {
            fprintf(stderr, "tilec: scalar parameter '%s' of %s '%s' has no value to run with: give it in `where` "
                            "(%s = ...) or with --set %s=...\n", p->name->s, kind, k->name->s, p->name->s, p->name->s);
            return EXIT_USAGE;
        }
    }
    for (int i = 0; i < k->dynamic.len && runs; i++) {
        const Sym *v = k->dynamic.items[i];
        if (!v->has_value) {
            fprintf(stderr, "tilec: dynamic size '%s' of %s '%s' has no value to run with: give it in `where` "
                            "(%s = ...) or with --set %s=...\n", v->name->s, kind, k->name->s, v->name->s, v->name->s);
            return EXIT_USAGE;
        }
    }
    if (k->pipeline) return act_on_pipeline(c, prog, k, cl);
    if (cl->act == ACT_LIB) {
        static const char *const both[] = {"sm_80", "sm_90a"};
        return emit_lib(c, prog, k, cl->overrides, cl->n_overrides, cl->file, cl->lib_dir, cl->narchs ? cl->archs : both,
                        cl->narchs ? cl->narchs : 2, o);
    }
    if (cl->act == ACT_AUTOTUNE)
        return autotune(c, prog, k, cl->file, cl->arch, cl->overrides, cl->n_overrides, o, o->profile.json);
    /* runs take a stored autotuning result, else tiles the model prices
     * best at their sizes; what is emitted is the same for every size */
    int added = 0;
    bool checked_again = false; /* the model checked other values: k's annotations are theirs */
    if (cl->act == ACT_RUN || cl->act == ACT_PROFILE) {
        added = autotune_lookup(c, k, cl->arch, o, cl->overrides, cl->n_overrides, MAX_OVERRIDES);
        if (!added) {
            added = tile_choice(c, prog, k, o, cl->overrides, cl->n_overrides, MAX_OVERRIDES, &checked_again);
            o->profile.tiles_for_sizes = added > 0;
        }
    }
    if (added || checked_again) {
        SemaOptions again = {.overrides = cl->overrides, .n_overrides = cl->n_overrides + added,
                             .only_kernel = cl->kernel, .specialise = o->specialise, .arch = cl->arch};
        PtrVec ks = sema_check(c, prog, &again);
        if (c->errors || ks.len != 1) return EXIT_SOURCE;
        k = ks.items[0];
    }
    return generate(c, k, cl->act, cl->file, cl->arch, cl->out_path, cl->print_after, o);
}

/* Checks the parsed program and does what the command line asks. */
static int act_on_program(Ctx *c, Node *prog, CmdLine *cl) {
    int rc = EXIT_OK;
    if (cl->act == ACT_AST) rc = emit_printed(cl->out_path, print_ast, prog);
    if (cl->kernel && !lib_kernel_found(stderr, prog, cl->kernel, cl->file)) return EXIT_USAGE;
    SemaOptions opt = {.overrides = cl->overrides, .n_overrides = cl->n_overrides, .only_kernel = cl->kernel,
                       .specialise = cl->opts.specialise, .arch = cl->arch};
    PtrVec kernels = sema_check(c, prog, &opt);
    for (int i = 0; i < cl->n_overrides; i++)
        if (cl->overrides[i].invalid) return overrides_used(cl, &kernels);
    if (c->errors) return EXIT_SOURCE;
    checked_s = rt_now_s();
    if (rc == EXIT_OK) rc = overrides_used(cl, &kernels);
    if (rc != EXIT_OK) return rc;
    if (cl->act == ACT_CHECK && !cl->print_after) {
        rc = check_lowering(c, &kernels, cl->file, &cl->opts);
        /* after every kernel: specialising a stage checks its kernel again
         * (and would repeat the errors found at its defaults) */
        for (int i = 0; i < kernels.len && !c->errors; i++) {
            KernelInfo *p = kernels.items[i];
            int r = p->pipeline ? check_pipeline_stages(c, prog, p, cl) : EXIT_OK;
            if (rc == EXIT_OK) rc = r;
        }
        return rc;
    }
    if (cl->act < ACT_IR && !cl->print_after) return rc;
    KernelInfo *only = cl->kernel ? NULL : lib_only_pipeline(&kernels);
    if (only) return act_on_kernel(c, prog, only, cl);
    if (kernels.len == 0) {
        fprintf(stderr, "tilec: %s has no kernel\n", cl->file);
        return EXIT_SOURCE;
    }
    if (kernels.len != 1) {
        fprintf(stderr, "tilec: %s has %d kernels; choose one with --kernel:", cl->file, kernels.len);
        for (int i = 0; i < kernels.len; i++) fprintf(stderr, " %s", ((KernelInfo *)kernels.items[i])->name->s);
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    return act_on_kernel(c, prog, kernels.items[0], cl);
}

int main(int argc, char **argv) {
    static CmdLine cl;
    started_s = rt_now_s();
    cmdline_init(&cl, argc, argv);
    int rc = cmdline_parse(&cl, argc, argv);
    if (rc >= 0) return rc;
    if (cl.out_path && same_file(cl.out_path, cl.file)) return usage_error("-o '%s' is the input file", cl.out_path);
    if (cl.act == ACT_RUN || cl.act == ACT_PROFILE || cl.act == ACT_AUTOTUNE)
        cl.opts.have_device = rt_device_open(&cl.opts.device, cl.opts.device_err);
    /* the device's own figures where tilec runs the kernel on it, else the --arch preset's */
    lib_choose_target(cl.arch, cl.opts.have_device ? &cl.opts.device : NULL, &cl.opts.target, &cl.arch);

    Ctx c;
    ctx_init(&c, stderr);
    c.no_warnings = cl.no_warnings;
    c.warnings_are_errors = cl.warnings_are_errors;
    const char *why;
    if (!source_read(&c.src, cl.file, &why)) {
        if (c.src.too_large) {
            /* A limit of the language, so a located source error. */
            fprintf(stderr, "%s:1:1: error: %s\n", cl.file, why);
            return EXIT_SOURCE;
        }
        fprintf(stderr, "tilec: error: cannot read '%s': %s\n", cl.file, why);
        return EXIT_USAGE;
    }
    Node *prog = fe_parse(&c);
    rc = c.errors ? EXIT_SOURCE : act_on_program(&c, prog, &cl);
    ctx_free(&c);
    return rc;
}
