/* pipeline.c - a pipeline (LANGUAGE.md §8) on the GPU: its tensors
 * generated as a kernel's are, its scratch buffers allocated by tilec,
 * every stage's module loaded with its arguments bound to those buffers,
 * the stages launched in order on one stream; `--run` verifies the
 * outputs against the pipeline's reference, `--profile` also times the
 * whole and each stage and reports them. */
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

typedef struct PipeSession {
    KernelInfo *p;
    StageRun *st;
    int nst;
    HostTensor *in;        /* the pipeline's tensors (prof_supply) */
    HostTensor *got;       /* their results (out and inout) */
    int n;
    int nbuf;              /* n tensors, then the scratch buffers */
    uint64_t *dev;
    size_t *bytes;
    RtModule **mod;
    RtKernel *fn;
    long long (*grid)[3];  /* per stage, after the persistent limit */
    void ***params;        /* per stage: its argument pointers */
    unsigned char **maps;  /* per stage: its TMA tensor maps */
    void *stream;          /* NULL: the default stream */
} PipeSession;

static void session_close(PipeSession *s) {
    for (int b = 0; s->dev && b < s->nbuf; b++) rt_free(s->dev[b]);
    for (int t = 0; s->got && t < s->n; t++) free(s->got[t].storage);
    if (s->in) prof_tensors_free(s->in, s->n);
    for (int i = 0; i < s->nst; i++) {
        if (s->params) free(s->params[i]);
        if (s->maps) free(s->maps[i]);
        if (s->mod) rt_module_unload(s->mod[i]);
    }
    free(s->dev), free(s->bytes), free(s->got), free(s->mod), free(s->fn), free(s->grid), free(s->params), free(s->maps);
    memset(s, 0, sizeof *s);
}

static int fail(PipeSession *s, const char *err) {
    fprintf(stderr, "tilec: %s\n", err);
    session_close(s);
    return 4;
}

/* Stage i's module and arguments, bound to the session's buffers. */
static bool open_stage(PipeSession *s, int i, char err[256]) {
    StageRun *st = &s->st[i];
    const LaunchSpec *l = &st->launch;
    if (!rt_module_load(st->cubin, st->cubin_size, &s->mod[i], err) || !rt_kernel_get(s->mod[i], st->symbol, &s->fn[i], err))
        return false;
    for (int d = 0; d < 3; d++) s->grid[i][d] = l->grid[d];
    if (l->persistent) s->grid[i][0] = rt_persistent_blocks(&s->fn[i], l->block, l->smem, l->cluster, l->grid[0]);
    void **params = s->params[i] = xcalloc((size_t)(st->nparams + l->ndynamic + l->ntma + 1), sizeof *params);
    for (int a = 0; a < st->nparams; a++) params[a] = st->buffer[a] >= 0 ? (void *)&s->dev[st->buffer[a]] : (void *)&st->scalar[a];
    for (int d = 0; d < l->ndynamic; d++) params[st->nparams + d] = (void *)&l->dynamic_value[d];
    if (l->ntma > 0) {
        s->maps[i] = aligned_alloc(64, (size_t)l->ntma * RT_TENSOR_MAP_BYTES);
        if (!s->maps[i]) die("out of memory");
    }
    for (int m = 0; m < l->ntma; m++) {
        const RtTensorMapSpec *spec = &l->tma[m];
        void *map = s->maps[i] + (size_t)m * RT_TENSOR_MAP_BYTES;
        if (!rt_tensor_map_encode(spec, s->dev[st->buffer[spec->param]], map, err)) return false;
        params[st->nparams + l->ndynamic + m] = map;
    }
    return true;
}

static int session_open(PipeSession *s, KernelInfo *p, StageRun *stages, int n, const RunOptions *o) {
    memset(s, 0, sizeof *s);
    s->p = p, s->st = stages, s->nst = n;
    char err[256];
    if (!prof_supply(p, o->supply, o->seed, &s->in, &s->n)) return 4;
    s->nbuf = s->n + p->scratch.len;
    s->dev = xcalloc((size_t)s->nbuf + 1, sizeof *s->dev);
    s->bytes = xcalloc((size_t)s->nbuf + 1, sizeof *s->bytes);
    s->got = xcalloc((size_t)s->n + 1, sizeof *s->got);
    for (int t = 0; t < s->n; t++) {
        s->bytes[t] = s->in[t].storage_bytes;
        s->got[t] = s->in[t];
        s->got[t].values = NULL;
        s->got[t].storage = NULL;
    }
    for (int b = 0; b < p->scratch.len; b++) {
        const Sym *t = p->scratch.items[b];
        size_t elems = 1;
        for (int d = 0; d < t->rank; d++) elems *= (size_t)t->shape[d];
        s->bytes[s->n + b] = elems * (size_t)dtype_bytes(t->dtype);
    }
    for (int b = 0; b < s->nbuf; b++)
        if (!rt_malloc(&s->dev[b], s->bytes[b], err)) return fail(s, err);
    s->mod = xcalloc((size_t)n + 1, sizeof *s->mod);
    s->fn = xcalloc((size_t)n + 1, sizeof *s->fn);
    s->grid = xcalloc((size_t)n + 1, sizeof *s->grid);
    s->params = xcalloc((size_t)n + 1, sizeof *s->params);
    s->maps = xcalloc((size_t)n + 1, sizeof *s->maps);
    for (int i = 0; i < n; i++)
        if (!open_stage(s, i, err)) return fail(s, err);
    return 0;
}

/* Inputs to their generated values, outputs poisoned (0xFF: NaN for
 * floats), scratch zeroed. */
static bool session_reset(PipeSession *s, char err[256]) {
    if (!prof_tensors_to_device(s->in, s->dev, s->n, err)) return false;
    for (int b = s->n; b < s->nbuf; b++)
        if (!rt_memset8(s->dev[b], 0, s->bytes[b], err)) return false;
    return true;
}

static bool launch_stage(PipeSession *s, int i, void *stream, char err[256]) {
    return rt_launch(&s->fn[i], s->grid[i], s->st[i].launch.block, s->st[i].launch.smem, s->params[i], stream, err);
}

static bool launch_all(void *arg, void *stream, char err[256]) {
    PipeSession *s = arg;
    for (int i = 0; i < s->nst; i++)
        if (!launch_stage(s, i, stream, err)) return false;
    return true;
}

/* The outputs of the last run to the host (got). */
static bool copy_back(PipeSession *s, char err[256]) { return prof_outputs_to_host(s->in, s->got, s->dev, s->n, err); }

/* reset, the stages, results back, verification against the reference */
static int session_verify(PipeSession *s, const RunOptions *o, VerifyResult *res, bool *verified) {
    char err[256];
    *verified = false;
    memset(res, 0, sizeof *res);
    if (!session_reset(s, err) || !launch_all(s, NULL, err) || !rt_synchronize(err) || !copy_back(s, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        return 4;
    }
    return prof_check_outputs(s->p, s->in, s->got, s->n, o, res, verified);
}

int prof_pipeline_run(KernelInfo *p, StageRun *stages, int n, const RunOptions *o) {
    PipeSession s;
    int rc = session_open(&s, p, stages, n, o);
    if (rc) return rc;
    VerifyResult res;
    bool verified;
    rc = session_verify(&s, o, &res, &verified);
    if (rc != 4) {
        if (verified) prof_verify_print(stdout, &res);
        else printf("verify: not verified: pipeline '%s' has no reference block\n", p->name->s);
        prof_print_digest(s.in, s.got, s.n);
    }
    session_close(&s);
    return rc;
}

/* Races show up as runs that disagree: the whole pipeline again on the
 * same inputs, its outputs' digest each time against the verified run's.
 * Where a stage adds floats atomically (pr->consistency_tolerant is then
 * set) the runs are compared within the verification tolerance instead. */
static int consistency(PipeSession *s, int runs, const RunOptions *o, Profile *pr, FILE *out) {
    char err[256];
    size_t bytes;
    uint64_t want = prof_outputs_digest(s->in, s->got, s->n, &bytes);
    const Node *atomic = NULL;
    for (int i = 0; i < s->nst && !atomic; i++) atomic = s->st[i].float_atomic;
    /* the verified outputs, kept aside where the runs may differ by design */
    HostTensor *verified = xcalloc((size_t)s->n, sizeof *verified);
    for (int t = 0; t < s->n && atomic; t++)
        if (s->got[t].storage) {
            verified[t].storage = xmalloc(s->in[t].storage_bytes);
            memcpy(verified[t].storage, s->got[t].storage, s->in[t].storage_bytes);
        }
    int rc = 0;
    pr->consistent = true;
    for (int r = 1; r < runs && pr->consistent; r++) {
        if (!session_reset(s, err) || !launch_all(s, NULL, err) || !rt_synchronize(err) || !copy_back(s, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 4;
            break;
        }
        if (prof_outputs_digest(s->in, s->got, s->n, &bytes) == want) continue;
        pr->consistency_tolerant = atomic != NULL;
        pr->consistent = atomic && prof_outputs_within(s->in, verified, s->got, s->n, o, &pr->consistency_max_diff);
    }
    for (int t = 0; t < s->n; t++) free(verified[t].storage);
    free(verified);
    if (rc) return rc;
    prof_say_consistency(out, pr, atomic ? atomic->loc.line : 0);
    return 0;
}

/* The stages' spans inside one run of the whole: an event before the
 * first and after each stage on one stream (after a warm run). */
static bool stage_spans(PipeSession *s, StageProfile *sp, char err[256]) {
    RtEvent *ev = xcalloc((size_t)s->nst + 1, sizeof *ev);
    bool ok = true;
    for (int i = 0; i <= s->nst && ok; i++) ok = rt_event_create(&ev[i], err);
    ok = ok && launch_all(s, NULL, err) && rt_event_record(&ev[0], NULL, err);
    for (int i = 0; i < s->nst && ok; i++) ok = launch_stage(s, i, NULL, err) && rt_event_record(&ev[i + 1], NULL, err);
    ok = ok && rt_synchronize(err);
    double at = 0;
    for (int i = 0; i < s->nst && ok; i++) {
        float ms = 0;
        ok = rt_event_elapsed_ms(&ev[i], &ev[i + 1], &ms, err);
        sp[i].span_start_us = at;
        sp[i].span_us = ms * 1e3;
        at += ms * 1e3;
    }
    for (int i = 0; i <= s->nst; i++) rt_event_destroy(&ev[i]);
    free(ev);
    return ok;
}

typedef struct OneStage {
    PipeSession *s;
    int i;
} OneStage;

static bool launch_one(void *arg, void *stream, char err[256]) {
    const OneStage *o = arg;
    return launch_stage(o->s, o->i, stream, err);
}

/* The root cause and opportunities of a pipeline: where its time goes. */
static void diagnose(Profile *pr, const StageProfile *sp, int n) {
    int top = 0;
    for (int i = 1; i < n; i++)
        if (sp[i].share > sp[top].share) top = i;
    static char cause[512], opp[3][256];
    const Derived *d = &sp[top].derived;
    snprintf(cause, sizeof cause,
             "Stage %d (%s) takes %.0f%% of the pipeline's time%s%s. The whole runs at %.1f%% of peak bandwidth and "
             "%.1f%% of peak compute for the work of its reference.",
             top + 1, sp[top].kernel, 100 * sp[top].share, d->bound ? ", bound by " : "", d->bound ? d->bound : "",
             pr->derived.pct_peak_bandwidth, pr->derived.pct_peak_compute);
    pr->root_cause = cause;
    pr->n_opportunities = 0;
    for (int i = 0; i < n && pr->n_opportunities < 3; i++) {
        const Derived *e = &sp[i].derived;
        if (sp[i].share < 0.1 || !e->bound) continue;
        if (!strcmp(e->bound, "memory") && e->pct_peak_bandwidth < 70)
            snprintf(opp[pr->n_opportunities], sizeof opp[0], "stage %d (%s, %.0f%% of the time) moves its bytes at "
                     "%.1f%% of peak bandwidth", i + 1, sp[i].kernel, 100 * sp[i].share, e->pct_peak_bandwidth);
        else if (!strcmp(e->bound, "compute") && e->pct_peak_compute < 60)
            snprintf(opp[pr->n_opportunities], sizeof opp[0], "stage %d (%s, %.0f%% of the time) computes at %.1f%% of "
                     "peak", i + 1, sp[i].kernel, 100 * sp[i].share, e->pct_peak_compute);
        else if (!strcmp(e->bound, "latency"))
            snprintf(opp[pr->n_opportunities], sizeof opp[0], "stage %d (%s, %.0f%% of the time) is latency bound "
                     "(%.1f us): fuse it with a neighbour or give it more work", i + 1, sp[i].kernel,
                     100 * sp[i].share, sp[i].bench.median_ms * 1e3);
        else continue;
        pr->opportunities[pr->n_opportunities] = opp[pr->n_opportunities];
        pr->n_opportunities++;
    }
}

int prof_pipeline_profile(KernelInfo *p, StageRun *stages, int n, const ProfileTarget *t, const RtDevice *dev,
                          const ProfileOptions *o) {
    FILE *out = o->out ? o->out : stdout;
    Profile pr;
    memset(&pr, 0, sizeof pr);
    pr.file = t->file;
    pr.kernel = p->name->s;
    pr.arch = t->arch;
    pr.info = p;
    pr.cache_hit = t->cache_hit;
    pr.compile_s = t->compile_s;
    pr.res.registers = -1;
    PipeSession s;
    int rc = session_open(&s, p, stages, n, &o->run);
    if (rc) return rc;
    StageProfile *sp = xcalloc((size_t)n + 1, sizeof *sp);
    char err[256];
    rc = session_verify(&s, &o->run, &pr.verify, &pr.verified);
    if (rc == 4) goto done;
    if (pr.verified) prof_verify_print(out, &pr.verify);
    else fprintf(out, "verify: NOT VERIFIED: pipeline '%s' has no reference block; its output is timed unchecked\n", pr.kernel);
    if (rc == 3) {
        fprintf(out, "not timed: the output does not match the reference\n");
        goto done;
    }
    pr.consistent = true;
    if (o->consistency >= 2) {
        pr.consistency_runs = o->consistency;
        if ((rc = consistency(&s, o->consistency, &o->run, &pr, out))) goto done;
        if (!pr.consistent) {
            rc = 3;
            goto done;
        }
    }
    if (!prof_bench_launch(launch_all, &s, dev->l2_bytes, &o->bench, &pr.bench, err)) goto cuda_failed;
    prof_device_info(&pr.device, dev, prof_input_dtype(p));
    prof_derive_work(p, &pr.derived);
    prof_derive_rates(&pr.derived, &pr.device, pr.bench.median_ms);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        OneStage one = {&s, i};
        sp[i].kernel = stages[i].kernel;
        if (!prof_bench_launch(launch_one, &one, dev->l2_bytes, &o->bench, &sp[i].bench, err)) goto cuda_failed;
        sp[i].derived = stages[i].work;
        prof_derive_rates(&sp[i].derived, &pr.device, sp[i].bench.median_ms);
        sum += sp[i].bench.median_ms;
    }
    for (int i = 0; i < n; i++) sp[i].share = sum > 0 ? sp[i].bench.median_ms / sum : 0;
    if (!stage_spans(&s, sp, err)) goto cuda_failed;
    pr.stages = sp;
    pr.nstages = n;
    diagnose(&pr, sp, n);
    rc = prof_finish(&pr, o);
    goto done;
cuda_failed:
    fprintf(stderr, "tilec: %s\n", err);
    rc = 4;
done:
    prof_bench_free(&pr.bench);
    for (int i = 0; i < n; i++) prof_bench_free(&sp[i].bench);
    free(sp);
    session_close(&s);
    return rc;
}
