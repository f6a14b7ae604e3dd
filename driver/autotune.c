/* autotune.c - `tilec --autotune`: search the kernel's `tune` space.
 *
 * 1. every combination of the tune lists (less what --set fixes) is
 *    specialised, lowered and pruned when it cannot fit the target (threads,
 *    shared memory, shapes the instructions need: the same checks as a
 *    normal compile, errors kept quiet);
 * 2. the survivors compile in parallel (NVRTC, or ptxas for the LLVM
 *    backend's PTX), one a thread, as any compile does (lib_build);
 * 3. each is verified against the reference on the GPU (wrong ones are
 *    reported, never chosen) and timed with the profiler's method, briefly;
 * 4. the fastest verified configuration goes into the cache, keyed by the
 *    source, the kernel's other values, the target and the GPU's name;
 *    later --run and --profile use it unless --set says otherwise. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>

#include "driver.h"

enum { MAX_CONFIGS = 4096 };
/* slower than this times the best so far after a short look: not timed further */
static const double EARLY_STOP_RATIO = 1.25;

typedef struct Candidate {
    Override ov[TUNE_MAX_VARS];
    int n;
    char label[256];
    const char *status;     /* why it was dropped, or "ok" */
    CgKernel ck;
    RtCompileResult res;
    bool compiled;
    double median_ms;
    bool verified, correct;
    bool early_stopped;     /* clearly slower than the best so far: the short look's median */
    bool is_default;        /* the values a plain --run or --profile takes (the target's defaults) */
    int registers, spills;
} Candidate;

typedef struct CompileJobs {
    Candidate *cand;
    int n, next;
    const char *arch;
    pthread_mutex_t lock;
} CompileJobs;

static void *compile_worker(void *arg) {
    CompileJobs *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->n) return NULL;
        Candidate *c = &j->cand[i];
        if (strcmp(c->status, "ok") != 0) continue;
        c->compiled = lib_build(&c->ck, j->arch, false, &c->res, NULL);
        if (!c->compiled) c->status = c->ck.backend == CG_LLVM ? "ptxas failed (a tilec bug)" : "NVRTC failed (a tilec bug)";
    }
}

QuietSpan quiet_begin(Ctx *c, FILE *quiet) {
    QuietSpan s = {c->err, c->errors};
    if (quiet) c->err = quiet;
    return s;
}

bool quiet_end(Ctx *c, QuietSpan s) {
    bool clean = c->errors == s.errors;
    c->err = s.err;
    c->errors = s.errors;
    c->too_many = false;
    return clean;
}

/* Specialises kernel with user overrides plus a candidate's values; a
 * candidate that cannot fit only drops out (quiet_begin). */
KernelInfo *tune_specialise(Ctx *c, Node *prog, const char *kernel, const Override *user, int n_user,
                            const Override *cand, int n_cand, bool sizes_compiled_in, const char *arch, FILE *quiet) {
    Override all[TUNE_MAX_VARS + 64];
    int n = 0;
    for (int i = 0; i < n_user && n < 64; i++) all[n++] = user[i];
    for (int i = 0; i < n_cand && i < TUNE_MAX_VARS; i++) all[n++] = cand[i];
    QuietSpan q = quiet_begin(c, quiet);
    SemaOptions so = {.overrides = all, .n_overrides = n, .only_kernel = kernel, .specialise = sizes_compiled_in,
                      .arch = arch};
    PtrVec ks = sema_check(c, prog, &so);
    bool ok = quiet_end(c, q) && ks.len == 1;
    for (int i = 0; i < n; i++) ok &= all[i].invalid == NULL;
    return ok ? ks.items[0] : NULL;
}

static bool overridden_by_user(const char *name, const Override *user, int n_user) {
    for (int i = 0; i < n_user; i++)
        if (!strcmp(user[i].name, name)) return true;
    return false;
}

int tune_space(KernelInfo *k, const Override *user, int n_user, Sym **tun, int64_t *space) {
    int nt = 0;
    *space = 1;
    for (int i = 0; i < k->values.len && nt < TUNE_MAX_VARS; i++) {
        Sym *v = k->values.items[i];
        if (v->kind != SYM_TUNE || !v->decl->u.tunable.has_choices || overridden_by_user(v->name->s, user, n_user)) continue;
        tun[nt++] = v;
        *space *= v->decl->u.tunable.choices.len;
    }
    return nt;
}

int tune_values(Sym *const *tun, int nt, int64_t idx, Override *ov) {
    int n = 0;
    for (int t = nt - 1; t >= 0; t--) {
        NodeList *ch = &tun[t]->decl->u.tunable.choices;
        Node *v = ch->items[idx % ch->len];
        idx /= ch->len;
        Override *o = &ov[n++];
        memset(o, 0, sizeof *o);
        o->name = tun[t]->name->s;
        o->is_float = v->const_float;
        if (v->const_float) o->f = v->cval.f;
        else o->i = v->cval.i;
    }
    return n;
}

void tune_label(char *out, size_t size, const Override *ov, int n) {
    size_t len = 0;
    out[0] = 0;
    for (int t = n - 1; t >= 0; t--) {
        const Override *o = &ov[t];
        len += (size_t)snprintf(out + len, size - len, "%s%s=", len ? "," : "", o->name);
        if (len >= size) len = size - 1;
        len += (size_t)(o->is_float ? snprintf(out + len, size - len, "%g", o->f)
                                    : snprintf(out + len, size - len, "%lld", (long long)o->i));
        if (len >= size) len = size - 1;
    }
}

static bool lower(Ctx *c, KernelInfo *k, const char *file, const Options *opts, CgKernel *ck, FILE *quiet) {
    QuietSpan q = quiet_begin(c, quiet);
    IrKernel *ir = ir_build(c, k, &opts->target, &opts->plan);
    bool ok = pass_run_all(ir, NULL) && lib_generate(ir, file, opts->backend, ck) == LIB_OK;
    return quiet_end(c, q) && ok;
}

/* The cache key of a tuning result: source file, kernel, its values other
 * than tunables, target (its name and figures), GPU name and the schedule
 * options. */
static void tune_key(Ctx *c, KernelInfo *k, const char *arch, const Options *opts, char key[HASH_KEY_SIZE]) {
    char *vals = arena_printf(&c->arena, "%s", "");
    for (int i = 0; i < k->values.len; i++) {
        Sym *v = k->values.items[i];
        if (v->kind == SYM_TUNE) continue;
        vals = v->value_float ? arena_printf(&c->arena, "%s%s=%.17g,", vals, v->name->s, v->value.f)
                              : arena_printf(&c->arena, "%s%s=%lld,", vals, v->name->s, (long long)v->value.i);
    }
    char target[256], plan[256];
    target_describe(&opts->target, target, sizeof target);
    plan_describe(&opts->plan, plan, sizeof plan);
    const char *parts[] = {c->src.text, k->name->s, vals, arch, target, plan, lib_backend_name(opts->backend),
                           opts->device.name, TILEC_VERSION, "autotune"};
    hash_key(key, parts, 9);
}


typedef struct TuneReport {
    const char *kernel;
    const Candidate *cand;
    int64_t n;
    int best; /* -1: none ran correctly */
} TuneReport;

/* The --json file of a search: one line for each candidate, with why it
 * dropped out or its time. */
static void write_tune_json(FILE *f, const void *arg) {
    const TuneReport *r = arg;
    JsonWriter w;
    json_init(&w, f, 2);
    json_object(&w, JSON_SPACED);
    json_key(&w, "schema");
    json_int(&w, 1);
    json_key(&w, "tilec");
    json_string(&w, TILEC_VERSION);
    json_key(&w, "kernel");
    json_string(&w, r->kernel);
    json_key(&w, "autotune");
    json_object(&w, JSON_SPACED);
    json_key(&w, "best");
    json_string(&w, r->best >= 0 ? r->cand[r->best].label : NULL);
    json_key(&w, "candidates");
    json_array(&w, JSON_LINES);
    for (int64_t i = 0; i < r->n; i++) {
        const Candidate *cd = &r->cand[i];
        json_object(&w, JSON_SPACED);
        json_key(&w, "config");
        json_string(&w, cd->label);
        json_key(&w, "status");
        json_string(&w, cd->correct ? "ok" : cd->status);
        json_key(&w, "verified");
        json_bool(&w, cd->correct);
        json_key(&w, "median_ms");
        json_number(&w, cd->median_ms > 0 ? cd->median_ms : NAN);
        json_key(&w, "early_stopped");
        json_bool(&w, cd->early_stopped);
        json_key(&w, "default");
        json_bool(&w, cd->is_default);
        json_key(&w, "registers");
        json_int(&w, cd->compiled ? cd->registers : -1);
        json_key(&w, "spill_bytes");
        json_int(&w, cd->compiled ? cd->spills : -1);
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
    json_end(&w);
    fputc('\n', f);
}

int autotune(Ctx *c, Node *prog, KernelInfo *k, const char *file, const char *arch, Override *user, int n_user,
             const Options *opts, const char *json_path) {
    if (!opts->have_device) {
        fprintf(stderr, "tilec: --autotune needs a GPU: %s\n", opts->device_err);
        return EXIT_CUDA;
    }
    /* The space: tunables with lists, minus those --set fixes. */
    Sym *tun[TUNE_MAX_VARS];
    int64_t space;
    int nt = tune_space(k, user, n_user, tun, &space);
    if (nt == 0) {
        fprintf(stderr, "tilec: kernel '%s' has no tune lists to search\n", k->name->s);
        return EXIT_USAGE;
    }
    if (space > MAX_CONFIGS) {
        fprintf(stderr, "tilec: the tune space of '%s' has %lld configurations; at most %d are searched (fix some with --set)\n",
                k->name->s, (long long)space, MAX_CONFIGS);
        return EXIT_USAGE;
    }
    const char *kernel = k->name->s;
    double t0 = rt_now_s();
    Candidate *cand = xcalloc((size_t)space, sizeof *cand);
    FILE *quiet = fopen("/dev/null", "w");
    int viable = 0;
    for (int64_t idx = 0; idx < space; idx++) {
        Candidate *cd = &cand[idx];
        cd->n = tune_values(tun, nt, idx, cd->ov);
        cd->is_default = true;
        for (int t = 0; t < nt; t++) { /* ov[t] holds tunable nt - 1 - t */
            const Sym *s = tun[nt - 1 - t];
            const Override *o = &cd->ov[t];
            cd->is_default &= s->has_value && (o->is_float ? s->value_float && s->value.f == o->f
                                                             : !s->value_float && s->value.i == o->i);
        }
        tune_label(cd->label, sizeof cd->label, cd->ov, cd->n);
        KernelInfo *ki =
            tune_specialise(c, prog, kernel, user, n_user, cd->ov, cd->n, opts->specialise, opts->target.name, quiet);
        if (!ki) cd->status = "invalid for these values (sema)";
        else if (!lower(c, ki, file, opts, &cd->ck, quiet)) cd->status = "does not fit the target (shared memory, layout or shape)";
        else {
            cd->status = "ok";
            viable++;
        }
    }
    printf("autotune %s: %lld configurations, %d viable after pruning\n", kernel, (long long)space, viable);

    /* Compile in parallel: NVRTC is thread-safe, one program per thread. */
    CompileJobs jobs = {.cand = cand, .n = (int)space, .arch = arch};
    pthread_mutex_init(&jobs.lock, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (int)ncpu;
    pthread_t th[32];
    for (int i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, compile_worker, &jobs);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    printf("autotune %s: compiled on %d threads in %.1f s\n", kernel, nthreads, rt_now_s() - t0);

    /* Verify and time each, briefly. */
    ProfileOptions po = opts->profile;
    po.bench.max_time_s = 0.25;
    po.bench.max_noise = 0.01;
    int best = -1, done = 0;
    for (int64_t i = 0; i < space; i++) {
        Candidate *cd = &cand[i];
        if (!cd->compiled) continue;
        cd->registers = cd->res.registers;
        cd->spills = cd->res.spill_store_bytes;
        /* the candidate's specialisation again: node annotations are per run */
        KernelInfo *ki =
            tune_specialise(c, prog, kernel, user, n_user, cd->ov, cd->n, opts->specialise, opts->target.name, quiet);
        Session s;
        LaunchSpec launch;
        int rc = ki && launch_of(&cd->ck, ki, &launch) ? prof_session_open(&s, ki, cd->ck.name, cd->res.cubin, cd->res.cubin_size, &launch, &opts->run) : 4;
        if (rc) {
            cd->status = "could not be loaded or run";
            continue;
        }
        VerifyResult vr;
        rc = prof_session_verify(&s, &opts->run, &vr, &cd->verified);
        cd->correct = rc == 0;
        char err[256];
        BenchResult br;
        /* Early stop: a short look first; a candidate clearly slower than
         * the best so far is not measured further. */
        BenchOptions quick = po.bench;
        quick.max_time_s = 0.02;
        bool timed = rc == 0 && prof_bench(&s.fn, s.grid, s.block, s.smem, s.params, opts->device.l2_bytes, &quick, &br, err);
        if (timed) {
            cd->median_ms = br.median_ms;
            prof_bench_free(&br);
            bool hopeless = best >= 0 && cd->median_ms > EARLY_STOP_RATIO * cand[best].median_ms;
            if (hopeless) {
                cd->early_stopped = true;
            } else if (prof_bench(&s.fn, s.grid, s.block, s.smem, s.params, opts->device.l2_bytes, &po.bench, &br, err)) {
                cd->median_ms = br.median_ms;
                prof_bench_free(&br);
            } else {
                timed = false;
            }
        }
        if (timed) {
            if (!cd->early_stopped && (best < 0 || cd->median_ms < cand[best].median_ms)) best = (int)i;
        } else if (rc == 3) {
            cd->status = "WRONG: does not match the reference";
        } else {
            cd->status = "failed on the GPU";
        }
        prof_session_close(&s);
        done++;
        if (isatty(fileno(stdout)))
            printf("\r  [%d/%d] %-60s %9.4f ms   best %9.4f ms", done, viable, cd->label, cd->median_ms,
                   best >= 0 ? cand[best].median_ms : 0.0);
        else
            printf("  [%d/%d] %s: %s%s%.4f ms%s, %d registers, %d B spills\n", done, viable, cd->label,
                   cd->correct ? "" : cd->status, cd->correct ? "" : " ", cd->median_ms,
                   cd->early_stopped ? " (early stop: clearly slower)" : "", cd->registers, cd->spills);
        fflush(stdout);
    }
    if (isatty(fileno(stdout))) putchar('\n');
    int rc = EXIT_OK;
    if (best < 0) {
        printf("autotune %s: no configuration ran correctly\n", kernel);
        rc = EXIT_VERIFY;
    } else {
        Candidate *b = &cand[best];
        printf("autotune %s: best %s at %.4f ms (%d configurations timed, %.1f s in all)\n", kernel, b->label,
               b->median_ms, done, rt_now_s() - t0);
        /* how far the default is from the best: what a user gets without --autotune */
        bool seen = false;
        for (int64_t i = 0; i < space; i++) {
            const Candidate *d = &cand[i];
            if (!d->is_default) continue;
            seen = true;
            if (d->correct && d->median_ms > 0)
                printf("autotune %s: the default %s at %.4f ms%s, %.2fx the best's time\n", kernel, d->label, d->median_ms,
                       d->early_stopped ? " (early stop: a short look)" : "", d->median_ms / b->median_ms);
            else
                printf("autotune %s: the default %s did not run correctly (%s)\n", kernel, d->label, d->status);
        }
        if (!seen) printf("autotune %s: the default configuration is not one of the tune lists' combinations\n", kernel);
        RtCache cache;
        char warn[256], key[HASH_KEY_SIZE];
        rt_cache_init(&cache, opts->cache_dir, opts->no_cache, warn);
        if (warn[0]) fprintf(stderr, "tilec: warning: %s\n", warn);
        tune_key(c, k, arch, opts, key);
        rt_cache_put(&cache, key, b->label, strlen(b->label) + 1);
        if (cache.enabled) printf("autotune %s: stored for later --run and --profile (%s)\n", kernel, key);
    }
    TuneReport report = {kernel, cand, space, best};
    if (json_path && !file_write_atomic_fn(json_path, 0666, write_tune_json, &report)) {
        fprintf(stderr, "tilec: cannot write '%s'\n", json_path);
        rc = EXIT_USAGE;
    }
    for (int64_t i = 0; i < space; i++) {
        cg_kernel_free(&cand[i].ck);
        rt_compile_result_free(&cand[i].res);
    }
    free(cand);
    fclose(quiet);
    return rc;
}

int autotune_lookup(Ctx *c, KernelInfo *k, const char *arch, const Options *opts, Override *ov, int n_ov, int max) {
    if (!opts->have_device) return 0;
    RtCache cache;
    char warn[256], key[HASH_KEY_SIZE];
    rt_cache_init(&cache, opts->cache_dir, opts->no_cache, warn);
    if (!cache.enabled) return 0;
    tune_key(c, k, arch, opts, key);
    void *data;
    size_t size;
    if (!rt_cache_get(&cache, key, &data, &size)) return 0;
    char *text = arena_strndup(&c->arena, data, size);
    const char *shown = arena_strndup(&c->arena, data, size);
    free(data);
    int added = 0;
    for (char *save = NULL, *item = strtok_r(text, ",", &save); item && n_ov + added < max;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = 0;
        bool fixed = false;
        for (int i = 0; i < n_ov; i++) fixed |= !strcmp(ov[i].name, item);
        if (fixed) continue; /* --set wins */
        Override *o = &ov[n_ov + added];
        memset(o, 0, sizeof *o);
        o->name = item;
        char *end;
        long long iv = strtoll(eq + 1, &end, 10);
        if (*end) {
            o->is_float = true;
            o->f = strtod(eq + 1, NULL);
        } else {
            o->i = iv;
        }
        added++;
    }
    if (added) fprintf(stderr, "tilec: using the autotuned configuration %s of kernel '%s' (--set overrides it)\n", shown,
                       k->name->s);
    return added;
}
