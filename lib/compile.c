/* compile.c - tilec_compile: the `tilec` command's compile path on a
 * string. Source from memory, parse, check with the `set` values, choose the
 * kernel, the target (the GPU present, or the arch's preset), build the IR,
 * run the passes, generate CUDA C, and the cubin from the disk cache or
 * NVRTC. Everything the compile says goes to *diagnostics. */
#include <stdlib.h>
#include <string.h>

#include "lib.h"

enum { MAX_SET = 64 };

/* What tilec_options asks for, checked. */
typedef struct Request {
    const char *arch;          /* as given, NULL: the device's or sm_90a */
    const char *cache_dir;
    Override ov[MAX_SET];
    int nov;
    RtDevice dev;
    bool have_device;
    Target target;
    PlanOptions plan;
    CgBackend backend;
} Request;

static int read_options(Ctx *c, const tilec_options *opt, Request *r) {
    char err[300];
    r->backend = CG_NVRTC;
    if (opt && opt->backend && !lib_parse_backend(opt->backend, &r->backend, err)) {
        fprintf(c->err, "tilec: backend: %s\n", err);
        return LIB_USAGE;
    }
    r->arch = opt ? opt->arch : NULL;
    r->cache_dir = opt ? opt->cache_dir : NULL;
    if (r->arch && !lib_check_arch(r->arch, err)) {
        fprintf(c->err, "tilec: arch: %s\n", err);
        return LIB_USAGE;
    }
    if (opt && opt->set) {
        char *list = arena_strndup(&c->arena, opt->set, strlen(opt->set)); /* the overrides point into it */
        if (!lib_parse_set(list, "set", r->ov, MAX_SET, &r->nov, err)) {
            fprintf(c->err, "tilec: %s\n", err);
            return LIB_USAGE;
        }
    }
    /* the device, where there is one, gives the arch and the target's figures */
    char why[256];
    r->have_device = rt_device_open(&r->dev, why);
    lib_choose_target(r->arch, r->have_device ? &r->dev : NULL, &r->target, &r->arch);
    r->plan = plan_defaults();
    return LIB_OK;
}

/* The source into c, as tilec reads a file: at most LIMIT_SOURCE_BYTES, a
 * UTF-8 byte-order mark left out. */
static int load_source(Ctx *c, const char *source, const char *file) {
    size_t len = strlen(source);
    if (len > LIMIT_SOURCE_BYTES) {
        fprintf(c->err, "%s:1:1: error: the source is larger than the 16 MiB limit for source files\n", file);
        return LIB_SOURCE;
    }
    if (len >= 3 && !memcmp(source, "\xEF\xBB\xBF", 3)) source += 3, len -= 3;
    source_from_string(&c->src, file, source, len);
    return LIB_OK;
}

/* Parse and check; *info is the one kernel (or pipeline) to compile. */
static int check_program(Ctx *c, const char *name, Request *r, KernelInfo **info, Node **program) {
    Node *prog = *program = fe_parse(c);
    if (c->errors) return LIB_SOURCE;
    if (name && !lib_kernel_found(c->err, prog, name, c->src.name)) return LIB_USAGE;
    SemaOptions so = {.overrides = r->ov, .n_overrides = r->nov, .only_kernel = name, .arch = r->arch};
    PtrVec kernels = sema_check(c, prog, &so);
    for (int i = 0; i < r->nov; i++)
        if (r->ov[i].invalid) return lib_overrides_used(c->err, "set", r->ov, r->nov, &kernels, name != NULL);
    if (c->errors) return LIB_SOURCE;
    int rc = lib_overrides_used(c->err, "set", r->ov, r->nov, &kernels, name != NULL);
    if (rc != LIB_OK) return rc;
    if (kernels.len == 0) {
        fprintf(c->err, "tilec: %s has no kernel\n", c->src.name);
        return LIB_SOURCE;
    }
    KernelInfo *only = name ? NULL : lib_only_pipeline(&kernels);
    if (only) {
        *info = only;
        return LIB_OK;
    }
    if (kernels.len != 1) {
        fprintf(c->err, "tilec: %s has %d kernels; choose one by name:", c->src.name, kernels.len);
        for (int i = 0; i < kernels.len; i++) fprintf(c->err, " %s", ((KernelInfo *)kernels.items[i])->name->s);
        fputc('\n', c->err);
        return LIB_USAGE;
    }
    *info = kernels.items[0];
    return LIB_OK;
}

/* The parameters as tilec_launch checks them. */
static void record_params(tilec_kernel *k, const KernelInfo *info) {
    k->nparams = info->params.len;
    k->params = xcalloc((size_t)k->nparams + 1, sizeof *k->params);
    for (int i = 0; i < k->nparams; i++) {
        const Sym *s = info->params.items[i];
        LibParam *p = &k->params[i];
        p->name = xstrdup(s->name->s);
        p->tensor = s->kind == SYM_TENSOR;
        p->dtype = s->dtype;
        p->mode = s->mode;
        if (p->tensor) {
            k->ntensors++;
            p->rank = s->rank;
            for (int d = 0; d < s->rank; d++) {
                p->shape[d] = s->shape[d];
                p->dim_name[d] = s->dim_sym[d] ? xstrdup(s->dim_sym[d]->name->s) : NULL;
                p->dyn[d] = -1;
                for (int j = 0; j < info->dynamic.len; j++)
                    if (info->dynamic.items[j] == s->dim_sym[d]) p->dyn[d] = j;
            }
        } else {
            k->nscalars++; /* a run-time argument: any value of its dtype */
        }
    }
}

/* The parameters as JSON, for bindings (tilec_get "params"):
 * {"name": K, "params": [{"name", "kind": "tensor"|"scalar", "dtype",
 * "mode", "shape", "dims"}...], "dynamic": [{"name", "divisor"}...]}; a
 * literal dimension's name is null, and so is a dynamic one's extent. */
static void params_json(tilec_kernel *k) {
    LibText t;
    JsonWriter w;
    json_init(&w, lib_text_open(&t), 0);
    json_object(&w, JSON_COMPACT);
    json_key(&w, "name");
    json_string(&w, k->name);
    json_key(&w, "params");
    json_array(&w, JSON_COMPACT);
    static const char *const modes[] = {"in", "out", "inout"};
    for (int i = 0; i < k->nparams; i++) {
        const LibParam *p = &k->params[i];
        json_object(&w, JSON_COMPACT);
        json_key(&w, "name");
        json_string(&w, p->name);
        json_key(&w, "kind");
        json_string(&w, p->tensor ? "tensor" : "scalar");
        json_key(&w, "dtype");
        json_string(&w, dtype_name(p->dtype));
        if (p->tensor) {
            json_key(&w, "mode");
            json_string(&w, modes[p->mode]);
            json_key(&w, "shape");
            json_array(&w, JSON_COMPACT);
            for (int d = 0; d < p->rank; d++) { /* a dynamic dimension: any extent (null) */
                if (p->dyn[d] >= 0) json_string(&w, NULL);
                else json_int(&w, p->shape[d]);
            }
            json_end(&w);
            json_key(&w, "dims");
            json_array(&w, JSON_COMPACT);
            for (int d = 0; d < p->rank; d++) json_string(&w, p->dim_name[d]);
            json_end(&w);
        }
        json_end(&w);
    }
    json_end(&w);
    json_key(&w, "dynamic"); /* [{"name", "divisor"}...] in argument order */
    json_array(&w, JSON_COMPACT);
    for (int i = 0; i < k->ndynamic; i++) {
        json_object(&w, JSON_COMPACT);
        json_key(&w, "name");
        json_string(&w, k->dynamic_name[i]);
        json_key(&w, "divisor");
        json_int(&w, k->dynamic_divisor[i]);
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
    lib_text_close(&t, &k->params_json);
    k->params_json_len = k->params_json ? strlen(k->params_json) : 0;
}

/* The kernel object: what the passes and codegen made, and the cubin. */
static tilec_kernel *kernel_new(const KernelInfo *info, const CgKernel *ck, const char *arch, LibBinary *bin) {
    tilec_kernel *k = xcalloc(1, sizeof *k);
    pthread_mutex_init(&k->lock, NULL);
    k->name = xstrdup(info->name->s);
    k->symbol = xstrdup(ck->name);
    k->arch = xstrdup(arch);
    k->cuda = xmalloc(ck->source_len + 1);
    memcpy(k->cuda, ck->source, ck->source_len);
    k->cuda[ck->source_len] = 0;
    k->cuda_len = ck->source_len;
    k->cubin = bin->cubin;
    k->cubin_size = bin->size;
    bin->cubin = NULL;
    for (int d = 0; d < 3; d++) k->grid[d] = ck->grid[d];
    memcpy(k->grid_expr, ck->grid_expr, sizeof k->grid_expr);
    k->ndynamic = ck->ndynamic;
    for (int i = 0; i < ck->ndynamic; i++) {
        k->dynamic_name[i] = xstrdup(ck->dynamic_name[i]);
        k->dynamic_divisor[i] = ck->dynamic_divisor[i];
    }
    k->block = ck->block;
    k->smem = ck->smem_bytes;
    k->ntma = ck->ntma;
    memcpy(k->tma, ck->tma, sizeof k->tma);
    k->persistent = ck->persistent;
    k->cluster = ck->cluster;
    k->units = ck->units;
    record_params(k, info);
    params_json(k);
    return k;
}

/* One kernel of a family being lowered: its code, then its cubin, built
 * on a thread of its own beside the others' (NVRTC and ptxas take most of
 * a compile), with a context of its own for the build's scratch and
 * messages. */
typedef struct LowerJob {
    CgKernel ck;
    PlanOptions plan;
    LibBuild b;
    LibBinary bin;
    int rc;
    Ctx c;
    LibText log;
} LowerJob;

static void *build_job(void *arg) {
    LowerJob *j = arg;
    j->rc = lib_obtain_cubin(&j->c, &j->ck, &j->b, &j->bin);
    return NULL;
}

/* IR, passes, CUDA C, cubin: the kernel and, where its grid is persistent
 * and of dynamic sizes, its variants (lib_variants), which the launch
 * chooses among (lib_launch). */
static int lower(Ctx *c, KernelInfo *info, Request *r, tilec_kernel **out) {
    IrKernel *ir[VARIANT_COUNT];
    ir[0] = ir_build(c, info, &r->target, &r->plan);
    if (!pass_run_all(ir[0], NULL)) return LIB_SOURCE;
    int n = 1 + lib_variants(c, info, &r->target, &r->plan, ir[0], &ir[1]);
    LowerJob *job = xcalloc((size_t)n, sizeof *job);
    int rc = LIB_OK, generated = 0;
    for (; generated < n && rc == LIB_OK; generated++) {
        LowerJob *j = &job[generated];
        rc = lib_generate(ir[generated], c->src.name, r->backend, &j->ck);
        if (rc != LIB_OK) break;
        j->plan = r->plan;
        j->plan.variant = sched_variant(&ir[generated]->sched);
        ctx_init(&j->c, lib_text_open(&j->log));
        j->b = (LibBuild){.arch = r->arch, .target = &r->target, .plan = &j->plan, .cache_dir = r->cache_dir, .err = j->c.err};
    }
    if (rc == LIB_OK) {
        pthread_t thread[VARIANT_COUNT];
        bool started[VARIANT_COUNT] = {false};
        for (int i = 1; i < n; i++) started[i] = !pthread_create(&thread[i], NULL, build_job, &job[i]);
        build_job(&job[0]);
        for (int i = 1; i < n; i++) {
            if (started[i]) pthread_join(thread[i], NULL);
            else build_job(&job[i]); /* no thread to be had: here */
        }
    }
    for (int i = 0; i < generated; i++) { /* the jobs whose build was set up */
        LowerJob *j = &job[i];
        if (rc == LIB_OK && j->rc != LIB_OK) rc = j->rc;
        char *said = NULL;
        lib_text_close(&j->log, &said);
        if (said) fputs(said, c->err);
        free(said);
        ctx_free(&j->c);
    }
    if (rc == LIB_OK) {
        tilec_kernel *k = kernel_new(info, &job[0].ck, r->arch, &job[0].bin);
        k->cache_dir = lib_strdup(r->cache_dir);
        LibText irtext;
        ir_print(lib_text_open(&irtext), ir[0]);
        lib_text_close(&irtext, &k->ir);
        k->ir_len = strlen(k->ir);
        for (int i = 1; i < n; i++) {
            tilec_kernel *v = kernel_new(info, &job[i].ck, r->arch, &job[i].bin);
            v->variant = sched_variant(&ir[i]->sched);
            k->partner[k->npartners++] = v;
        }
        *out = k;
    }
    for (int i = 0; i < n; i++) {
        free(job[i].bin.cubin);
        cg_kernel_free(&job[i].ck);
    }
    free(job);
    return rc;
}

/* A pipeline: each stage specialised and compiled into a kernel of its
 * own; the pipeline's object has their code (each under a header line),
 * the pipeline's parameters and scratch, and no module. */
static int lower_pipeline(Ctx *c, Node *prog, KernelInfo *p, Request *r, tilec_kernel **out) {
    tilec_kernel *k = xcalloc(1, sizeof *k);
    pthread_mutex_init(&k->lock, NULL);
    k->name = xstrdup(p->name->s);
    k->arch = xstrdup(r->arch);
    k->cache_dir = lib_strdup(r->cache_dir);
    k->grid[0] = k->grid[1] = k->grid[2] = 1;
    k->ndynamic = p->dynamic.len;
    for (int i = 0; i < p->dynamic.len; i++) {
        const Sym *v = p->dynamic.items[i];
        k->dynamic_name[i] = xstrdup(v->name->s);
        k->dynamic_divisor[i] = v->divisor;
    }
    record_params(k, p);
    k->nscratch = p->scratch.len;
    k->scratch = xcalloc((size_t)k->nscratch + 1, sizeof *k->scratch);
    for (int i = 0; i < k->nscratch; i++) {
        const Sym *t = p->scratch.items[i];
        LibScratch *s = &k->scratch[i];
        s->dtype = t->dtype, s->rank = t->rank;
        for (int d = 0; d < t->rank; d++) {
            s->shape[d] = t->shape[d];
            s->dyn[d] = -1;
            for (int j = 0; j < p->dynamic.len; j++)
                if (p->dynamic.items[j] == t->dim_sym[d]) s->dyn[d] = j;
        }
    }
    k->stages = xcalloc((size_t)p->stages.len + 1, sizeof *k->stages);
    LibText cuda, ir;
    FILE *cf = lib_text_open(&cuda), *irf = lib_text_open(&ir);
    int rc = LIB_OK;
    for (int i = 0; i < p->stages.len && rc == LIB_OK; i++) {
        const PipelineStage *ps = p->stages.items[i];
        KernelInfo *info = lib_specialise_stage(c, prog, p, ps, false, r->arch);
        if (!info) {
            rc = LIB_SOURCE;
            break;
        }
        LibStage *s = &k->stages[k->nstages];
        s->arg = xcalloc((size_t)info->params.len + 1, sizeof *s->arg);
        s->value = xcalloc((size_t)info->params.len + 1, sizeof *s->value);
        lib_stage_bind(p, ps, info->params.len, s->arg);
        for (int a = 0; a < info->params.len; a++) {
            const Node *v = s->arg[a].value;
            if (s->arg[a].buffer < 0 && s->arg[a].scalar < 0) s->value[a] = v->const_float ? v->cval.f : (double)v->cval.i;
            s->arg[a].value = NULL; /* the syntax tree goes with the compile's arena; the constant is in value[a] */
        }
        rc = lower(c, info, r, &s->k);
        if (rc != LIB_OK) break;
        k->nstages++;
        fprintf(cf, "// ---- stage %d of pipeline '%s': %s ----\n%s", i + 1, k->name, s->k->name, s->k->cuda);
        fprintf(irf, "// ---- stage %d of pipeline '%s': %s ----\n%s", i + 1, k->name, s->k->name, s->k->ir);
    }
    lib_text_close(&cuda, &k->cuda);
    lib_text_close(&ir, &k->ir);
    k->cuda_len = k->cuda ? strlen(k->cuda) : 0;
    k->ir_len = k->ir ? strlen(k->ir) : 0;
    params_json(k);
    if (rc != LIB_OK) {
        tilec_kernel_free(k);
        return rc;
    }
    *out = k;
    return LIB_OK;
}

int tilec_compile(const char *source, const char *filename, const char *name, const tilec_options *opt,
                  tilec_kernel **out, char **diagnostics) {
    if (out) *out = NULL;
    LibText diag;
    Ctx c;
    ctx_init(&c, lib_text_open(&diag));
    int rc = LIB_OK;
    if (!source || !out) {
        fprintf(c.err, "tilec: tilec_compile needs %s\n", !source ? "a source text" : "a place for the kernel");
        rc = LIB_USAGE;
    }
    const char *file = filename ? filename : "<string>";
    Request *r = xcalloc(1, sizeof *r);
    KernelInfo *info = NULL;
    Node *prog = NULL;
    if (rc == LIB_OK) rc = read_options(&c, opt, r);
    if (rc == LIB_OK) rc = load_source(&c, source, file);
    if (rc == LIB_OK) rc = check_program(&c, name, r, &info, &prog);
    if (rc == LIB_OK) rc = info->pipeline ? lower_pipeline(&c, prog, info, r, out) : lower(&c, info, r, out);
    free(r);
    ctx_free(&c);
    lib_text_close(&diag, diagnostics);
    return rc;
}
