/* pipeline.c - pipelines (LANGUAGE.md §8) in the library: a stage's kernel
 * specialised with the sizes its arguments give it, where each of its
 * parameters comes from, and the launch of the whole: the scratch buffers
 * allocated on the caller's stream (stream-ordered, so launches on several
 * streams never share them) and zeroed, the stages launched in order, the
 * scratch freed behind them. The `tilec` command specialises stages
 * through the same calls (driver/pipeline.c). */
#include <stdlib.h>
#include <string.h>

#include "lib.h"

KernelInfo *lib_specialise_stage(Ctx *c, Node *prog, const KernelInfo *p, const PipelineStage *ps, bool specialise,
                                  const char *arch) {
    Override *ov = xcalloc((size_t)(ps->nsizes + p->values.len) + 1, sizeof *ov);
    int n = 0;
    for (int i = 0; i < ps->nsizes; i++) ov[n++] = ps->sizes[i];
    /* the pipeline's own values (--set included) reach the stage's `where`
     * constants of the same names: `--set causal=1` changes every stage */
    for (int i = 0; i < p->values.len; i++) {
        const Sym *v = p->values.items[i];
        if ((v->kind != SYM_WHERE && v->kind != SYM_SIZE) || !v->has_value || v->dynamic) continue;
        bool bound = false;
        for (int j = 0; j < ps->nsizes; j++) bound |= !strcmp(ps->sizes[j].name, v->name->s);
        if (bound) continue;
        ov[n++] = (Override){.name = v->name->s, .is_float = v->value_float, .i = v->value_float ? 0 : v->value.i,
                             .f = v->value_float ? v->value.f : 0, .where_only = true};
    }
    int errors = c->errors;
    SemaOptions so = {.overrides = ov, .n_overrides = n, .only_kernel = ps->kernel->s, .specialise = specialise,
                      .arch = arch};
    PtrVec ks = sema_check(c, prog, &so);
    for (int i = 0; i < n; i++)
        if (ov[i].invalid)
            diag_error(c, ps->call->loc, "stage '%s' cannot take %s = %lld from %s: %s", ps->kernel->s, ov[i].name,
                       (long long)ov[i].i, ov[i].where_only ? "the pipeline's value" : "the shapes passed", ov[i].invalid);
    free(ov);
    if (c->errors == errors && ks.len == 1) return ks.items[0];
    diag_note(c, ps->call->loc, "in this stage of pipeline '%s'", p->name->s);
    return NULL;
}

KernelInfo *lib_only_pipeline(const PtrVec *kernels) {
    KernelInfo *only = NULL;
    for (int i = 0; i < kernels->len; i++) {
        KernelInfo *k = kernels->items[i];
        if (!k->pipeline) continue;
        if (only) return NULL;
        only = k;
    }
    return kernels->len > 1 ? only : NULL;
}

void lib_stage_bind(const KernelInfo *p, const PipelineStage *ps, int nparams, LibArg *args) {
    for (int a = 0; a < nparams; a++) {
        LibArg *g = &args[a];
        *g = (LibArg){.buffer = -1, .scalar = -1, .value = ps->value[a]};
        int tensors = 0, scalars = 0;
        for (int i = 0; i < p->params.len; i++) {
            const Sym *s = p->params.items[i];
            if (ps->tensor[a] == s) g->buffer = tensors;
            if (g->value && g->value->kind == N_NAME && g->value->sym == s) g->scalar = scalars;
            tensors += s->kind == SYM_TENSOR;
            scalars += s->kind == SYM_SCALAR;
        }
        for (int i = 0; i < p->scratch.len; i++)
            if (ps->tensor[a] == p->scratch.items[i]) g->buffer = tensors + i;
    }
}

enum { MAX_STAGE_PARAMS = 64, MAX_SCRATCH = 64 };

int lib_launch_pipeline(tilec_kernel *k, const tilec_tensor *tensors, int ntensors, const double *scalars, int nscalars,
                        void *stream, FILE *out) {
    int64_t dims[RT_MAX_DYNAMIC] = {0};
    long long grid[3];
    int rc = lib_check_args(k, tensors, ntensors, scalars, nscalars, dims, grid, out);
    if (rc != LIB_OK) return rc;
    if (k->nscratch > MAX_SCRATCH) {
        fprintf(out, "tilec: pipeline '%s' has %d scratch buffers; tilec_launch takes at most %d\n", k->name, k->nscratch,
                MAX_SCRATCH);
        return LIB_USAGE;
    }
    /* the scratch, at this launch's sizes */
    uint64_t ptr[MAX_SCRATCH] = {0};
    int64_t shape[MAX_SCRATCH][MAX_RANK];
    char err[256];
    for (int i = 0; i < k->nscratch && rc == LIB_OK; i++) {
        const LibScratch *s = &k->scratch[i];
        size_t bytes = (size_t)dtype_bytes(s->dtype);
        for (int d = 0; d < s->rank; d++) {
            shape[i][d] = s->dyn[d] >= 0 ? dims[s->dyn[d]] : s->shape[d];
            bytes *= (size_t)shape[i][d];
        }
        if (!rt_malloc_async(&ptr[i], bytes, stream, err) || !rt_memset8_async(ptr[i], 0, bytes, stream, err)) {
            fprintf(out, "tilec: pipeline '%s': %s\n", k->name, err);
            rc = LIB_CUDA;
        }
    }
    for (int st = 0; st < k->nstages && rc == LIB_OK; st++) {
        const LibStage *s = &k->stages[st];
        tilec_tensor t[MAX_STAGE_PARAMS];
        double v[MAX_STAGE_PARAMS];
        int nt = 0, nv = 0;
        for (int a = 0; a < s->k->nparams && a < MAX_STAGE_PARAMS; a++) {
            const LibArg *g = &s->arg[a];
            if (g->buffer >= 0 && g->buffer < ntensors) t[nt++] = tensors[g->buffer];
            else if (g->buffer >= 0) {
                int i = g->buffer - ntensors;
                t[nt++] = (tilec_tensor){(void *)(uintptr_t)ptr[i], k->scratch[i].rank, shape[i]};
            } else {
                v[nv++] = g->scalar >= 0 ? scalars[g->scalar] : s->value[a];
            }
        }
        LibText diag;
        rc = lib_launch(s->k, t, nt, v, nv, stream, lib_text_open(&diag));
        char *text = NULL;
        lib_text_close(&diag, &text);
        if (rc != LIB_OK) fprintf(out, "tilec: pipeline '%s', stage %d: %s", k->name, st + 1, text && *text ? text : "failed\n");
        free(text);
    }
    for (int i = 0; i < k->nscratch; i++) rt_free_async(ptr[i], stream);
    return rc;
}
