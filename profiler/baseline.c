/* baseline.c - `--baseline FILE.json`: this run against a saved --json of
 * an earlier one. The verdict on the duration comes from both runs'
 * samples, as nvbench's compare decides it: a change that the noise of
 * either run can explain is no change. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* A change under this is "same" whatever the samples say: the same binary
 * timed twice on one GPU moves about this much between runs (clocks,
 * placement in memory). */
static const double MIN_CHANGE = 0.01;
/* A run whose relative standard deviation exceeds this cannot show a
 * change smaller than its noise: "noisy", not "same". */
static const double NOISY = 0.05;
/* The rank test's level: a larger p means the samples cannot be told apart. */
static const double P_LEVEL = 0.01;

const char *prof_verdict_name(Verdict v) {
    static const char *const names[] = {"same", "faster", "slower", "noisy"};
    return names[v];
}

typedef struct Ranked {
    double v;
    bool prev;
} Ranked;

static int by_value(const void *a, const void *b) {
    double x = ((const Ranked *)a)->v, y = ((const Ranked *)b)->v;
    return (x > y) - (x < y);
}

double prof_rank_test(const double *a, int na, const double *b, int nb) {
    if (na < 2 || nb < 2) return NAN;
    int n = na + nb;
    Ranked *all = xmalloc(sizeof *all * (size_t)n);
    for (int i = 0; i < na; i++) all[i] = (Ranked){a[i], true};
    for (int i = 0; i < nb; i++) all[na + i] = (Ranked){b[i], false};
    qsort(all, (size_t)n, sizeof *all, by_value);
    double rank_sum = 0, ties = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && all[j].v == all[i].v) j++;
        double t = j - i, rank = (i + 1 + j) / 2.0; /* the average of ranks i+1 .. j */
        for (int k = i; k < j; k++)
            if (all[k].prev) rank_sum += rank;
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double u = rank_sum - na * (na + 1.0) / 2, mu = (double)na * nb / 2;
    double var = (double)na * nb / 12.0 * ((n + 1.0) - ties / ((double)n * (n - 1)));
    if (!(var > 0)) return 1; /* every sample equal */
    double z = (u - mu) / sqrt(var);
    return erfc(fabs(z) / sqrt(2.0));
}

TimeChange prof_compare_times(const TimingSet *prev, const TimingSet *cur) {
    TimeChange c = {.verdict = VERDICT_SAME, .change = NAN, .p_value = NAN};
    c.change = cur->median_ms / prev->median_ms - 1;
    double noise = fmax(prev->rel_stddev > 0 ? prev->rel_stddev : 0, cur->rel_stddev > 0 ? cur->rel_stddev : 0);
    c.threshold = fmax(noise, MIN_CHANGE);
    if (prev->samples && cur->samples) c.p_value = prof_rank_test(prev->samples, prev->n, cur->samples, cur->n);
    bool apart = fabs(c.change) > c.threshold && !(c.p_value >= P_LEVEL);
    if (apart) c.verdict = c.change < 0 ? VERDICT_FASTER : VERDICT_SLOWER;
    else c.verdict = noise > NOISY ? VERDICT_NOISY : VERDICT_SAME;
    return c;
}

/* ---- reading the file ---- */

static double *samples_of(const JsonValue *arr, int *n) {
    *n = 0;
    if (!arr || arr->type != JSON_ARRAY_V || arr->len < 1) return NULL;
    double *s = xmalloc(sizeof *s * (size_t)arr->len);
    for (int i = 0; i < arr->len; i++) {
        s[i] = json_number_or(arr->items[i], NAN);
        if (!(s[i] > 0)) { /* not a time: the set is unusable */
            free(s);
            return NULL;
        }
    }
    *n = arr->len;
    return s;
}

static TimingSet timing_of(const JsonValue *obj, const char *samples_key) {
    TimingSet t = {.median_ms = json_number_or(json_member(obj, "median_ms"), NAN),
                   .rel_stddev = json_number_or(json_member(obj, "rel_stddev"), NAN)};
    t.samples = samples_of(json_member(obj, samples_key), &t.n);
    return t;
}

bool prof_baseline_load(const char *path, Baseline *b, char err[256]) {
    memset(b, 0, sizeof *b);
    Source src;
    const char *why;
    if (!source_read(&src, path, &why)) {
        snprintf(err, 256, "cannot read '%.150s': %s", path, why);
        return false;
    }
    bool ok = prof_baseline_parse(src.text, src.len, path, b, err);
    free(src.text);
    return ok;
}

bool prof_baseline_parse(const char *text, size_t len, const char *path, Baseline *b, char err[256]) {
    memset(b, 0, sizeof *b);
    char perr[256];
    b->root = json_parse(text, len, perr);
    if (!b->root) {
        snprintf(err, 256, "'%.100s' is not a whole JSON file (%.100s)", path, perr);
        return false;
    }
    const JsonValue *r = b->root, *bench = json_member(r, "bench");
    double schema = json_number_or(json_member(r, "schema"), 0); /* any number: compared, never converted */
    b->schema = schema == 1 ? 1 : schema == 2 ? 2 : 0;
    b->kernel = json_string_or(json_member(r, "kernel"), NULL);
    b->device = json_string_or(json_member(json_member(r, "device"), "name"), NULL);
    b->time = timing_of(bench, "samples_ms");
    if (r->type != JSON_OBJECT_V || (b->schema != 1 && b->schema != 2) || !b->kernel) {
        snprintf(err, 256, "'%.150s' is not a tilec --json profile of schema 1 or 2", path);
        prof_baseline_free(b);
        return false;
    }
    if (!(b->time.median_ms > 0)) {
        snprintf(err, 256, "'%.150s' has no measured duration (its run was not timed)", path);
        prof_baseline_free(b);
        return false;
    }
    const JsonValue *compile = json_member(r, "compile"), *derived = json_member(r, "derived");
    b->sm_clock_mhz = json_number_or(json_member(bench, "sm_clock_mhz"), NAN);
    b->tflops = json_number_or(json_member(derived, "tflops"), NAN);
    b->gbps = json_number_or(json_member(derived, "gbps"), NAN);
    b->registers = json_number_or(json_member(compile, "registers"), NAN);
    b->spill_bytes = json_number_or(json_member(compile, "spill_bytes"), NAN);
    b->occupancy = json_number_or(json_member(compile, "occupancy"), NAN);
    const JsonValue *st = json_member(r, "stages");
    if (st && st->type == JSON_ARRAY_V && st->len > 0) {
        b->stages = xcalloc((size_t)st->len, sizeof *b->stages);
        b->nstages = st->len;
        for (int i = 0; i < st->len; i++) {
            b->stages[i].kernel = json_string_or(json_member(st->items[i], "kernel"), "");
            b->stages[i].time = timing_of(st->items[i], "samples_ms");
        }
    }
    b->path = path;
    return true;
}

void prof_baseline_free(Baseline *b) {
    free((double *)b->time.samples);
    for (int i = 0; i < b->nstages; i++) free((double *)b->stages[i].time.samples);
    free(b->stages);
    json_value_free(b->root);
    memset(b, 0, sizeof *b);
}

/* ---- against this run ---- */

static TimingSet timing_of_bench(const BenchResult *r, double *buf) {
    for (int i = 0; i < r->samples; i++) buf[i] = r->sample[i].ms;
    return (TimingSet){.median_ms = r->median_ms, .rel_stddev = r->rel_stddev, .samples = buf, .n = r->samples};
}

int prof_apply_baseline(Profile *p, const ProfileOptions *o, Baseline *b) {
    char err[256];
    memset(b, 0, sizeof *b);
    if (!o->baseline) return 0;
    if (!prof_baseline_load(o->baseline, b, err)) {
        fprintf(stderr, "tilec: --baseline: %s; no comparison made\n", err);
        return 2;
    }
    const char *why = NULL;
    int schema = p->nstages ? 2 : 1;
    if (strcmp(b->kernel, p->kernel) != 0)
        why = "it profiles another kernel";
    else if (b->schema != schema)
        why = schema == 2 ? "it is a single kernel's profile, this is a pipeline's" : "it is a pipeline's profile";
    else if (!b->device || strcmp(b->device, p->device.name) != 0)
        why = "it was measured on another device";
    else if (b->nstages != p->nstages)
        why = "its pipeline has another number of stages";
    if (why) {
        fprintf(stderr, "tilec: --baseline: '%s' cannot be compared with this run: %s (%s '%s' on %s); no comparison "
                        "made\n", o->baseline, why, b->schema == 2 ? "pipeline" : "kernel", b->kernel,
                b->device ? b->device : "an unknown device");
        prof_baseline_free(b);
        return 2;
    }
    double *buf = xmalloc(sizeof *buf * (size_t)(p->bench.samples + 1));
    TimingSet cur = timing_of_bench(&p->bench, buf);
    p->vs_baseline = prof_compare_times(&b->time, &cur);
    free(buf);
    for (int i = 0; i < p->nstages && i < MAX_BASELINE_STAGES; i++) {
        const BenchResult *sb = &p->stages[i].bench;
        buf = xmalloc(sizeof *buf * (size_t)(sb->samples + 1));
        cur = timing_of_bench(sb, buf);
        p->stage_vs_baseline[i] = prof_compare_times(&b->stages[i].time, &cur);
        free(buf);
    }
    p->baseline = b;
    if (o->fail_if_slower >= 0 && p->vs_baseline.verdict == VERDICT_SLOWER &&
        p->vs_baseline.change * 100 > o->fail_if_slower) {
        fprintf(stderr, "tilec: slower than the baseline by %.1f%% (more than --fail-if-slower %g%%)\n",
                p->vs_baseline.change * 100, o->fail_if_slower);
        return 5;
    }
    return 0;
}
