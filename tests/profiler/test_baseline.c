/* test_baseline.c - --baseline without a GPU: the verdict on synthetic
 * sample sets (same, faster, slower, noisy), the rank test, a --json
 * written by the report writer and read back, and the refusals (another
 * kernel, another device, another schema, a truncated or foreign file). */
#include <unistd.h>

#include "profiler.h"
#include "test_util.h"

/* n samples around `median`, spread by `rel` (a deterministic hash
 * instead of a random generator: a uniform spread of +-rel*sqrt(3) has
 * relative standard deviation rel). */
static void fill(double *s, int n, double median, double rel, unsigned seed) {
    for (int i = 0; i < n; i++) {
        unsigned h = (unsigned)i * 2654435761u ^ seed * 40503u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
        double u = (h % 100000) / 100000.0 * 2 - 1;
        s[i] = median * (1 + rel * 1.7320508 * u);
    }
}

static TimeChange compare(double m0, double r0, double m1, double r1, int n) {
    static double a[4000], b[4000];
    fill(a, n, m0, r0, 1);
    fill(b, n, m1, r1, 2);
    TimingSet prev = {m0, r0, a, n}, cur = {m1, r1, b, n};
    return prof_compare_times(&prev, &cur);
}

static void test_verdicts(void) {
    TimeChange c = compare(1.0, 0.004, 1.002, 0.004, 200);
    CHECK(c.verdict == VERDICT_SAME, "0.2%% within 0.4%% noise: %s", prof_verdict_name(c.verdict));
    c = compare(1.0, 0.004, 0.90, 0.004, 200);
    CHECK(c.verdict == VERDICT_FASTER && near(c.change, -0.10, 1e-9), "10%% faster: %s %g", prof_verdict_name(c.verdict), c.change);
    CHECK(c.p_value < 1e-10, "the rank test separates them: p %g", c.p_value);
    c = compare(1.0, 0.004, 1.07, 0.004, 200);
    CHECK(c.verdict == VERDICT_SLOWER, "7%% slower: %s", prof_verdict_name(c.verdict));
    c = compare(1.0, 0.10, 1.04, 0.10, 200);
    CHECK(c.verdict == VERDICT_NOISY, "4%% inside 10%% noise: %s", prof_verdict_name(c.verdict));
    c = compare(1.0, 0.002, 1.008, 0.002, 200);
    CHECK(c.verdict == VERDICT_SAME, "under the 1%% floor: %s", prof_verdict_name(c.verdict));
    /* without samples: the medians and deviations alone */
    TimingSet prev = {2.0, 0.003, NULL, 0}, cur = {2.2, 0.003, NULL, 0};
    c = prof_compare_times(&prev, &cur);
    CHECK(c.verdict == VERDICT_SLOWER && isnan(c.p_value), "slower without samples: %s", prof_verdict_name(c.verdict));
    /* a change beyond the deviations that the rank test cannot confirm (few, overlapping samples) */
    double a[3] = {1.0, 1.2, 0.8}, b[3] = {1.05, 1.25, 0.85};
    TimingSet pa = {1.0, 0.004, a, 3}, pb = {1.05, 0.004, b, 3};
    c = prof_compare_times(&pa, &pb);
    CHECK(c.verdict == VERDICT_SAME && c.p_value > 0.01, "rank test unconvinced: %s p %g", prof_verdict_name(c.verdict),
          c.p_value);
    /* the rank test: identical sets, and every sample equal */
    double same[5] = {1, 2, 3, 4, 5}, flat[4] = {1, 1, 1, 1};
    CHECK(prof_rank_test(same, 5, same, 5) > 0.99, "identical sets: p %g", prof_rank_test(same, 5, same, 5));
    CHECK(prof_rank_test(flat, 4, flat, 4) == 1, "all equal: p 1");
    CHECK(isnan(prof_rank_test(flat, 1, flat, 4)), "one sample: no test");
}

/* A timed single-kernel profile on an H200-like device. */
static void make_profile(Profile *p, KernelInfo *k, BenchSample *samples, int n, double median, double rel) {
    memset(p, 0, sizeof *p);
    p->kernel = "scale";
    p->info = k;
    p->arch = "sm_90a";
    snprintf(p->device.name, sizeof p->device.name, "NVIDIA H200");
    p->device.sms = 132;
    double *ms = malloc(sizeof *ms * (size_t)n);
    fill(ms, n, median, rel, (unsigned)(median * 1000));
    for (int i = 0; i < n; i++) samples[i] = (BenchSample){.ms = ms[i], .sm_clock_mhz = 1980};
    free(ms);
    p->bench = (BenchResult){.samples = n, .sample = samples, .median_ms = median, .rel_stddev = rel,
                             .min_ms = median * 0.99, .max_ms = median * 1.01, .p95_ms = median * 1.01,
                             .sm_clock_mhz = 1980};
    p->res = (Resources){.registers = 40, .spill_bytes = 0, .blocks_per_sm = 8, .occupancy = 1};
    prof_derive_work(k, &p->derived);
}

static void test_round_trip(KernelInfo *k) {
    char dir[] = "/tmp/tilec_test_baseline_XXXXXX";
    if (!mkdtemp(dir)) exit(1);
    char path[200], bad[200];
    snprintf(path, sizeof path, "%s/prev.json", dir);
    static BenchSample s0[300], s1[300];
    Profile prev, cur;
    make_profile(&prev, k, s0, 300, 0.100, 0.003);
    char err[256];
    CHECK(prof_write_json(path, &prev, err), "writes %s: %s", path, err);

    Baseline b;
    CHECK(prof_baseline_load(path, &b, err), "reads it back: %s", err);
    CHECK(b.schema == 1 && !strcmp(b.kernel, "scale") && !strcmp(b.device, "NVIDIA H200"), "schema %d kernel %s", b.schema,
          b.kernel);
    CHECK(b.time.n == 300 && near(b.time.samples[7], s0[7].ms, 0), "samples kept exactly: %d", b.time.n);
    CHECK(near(b.time.median_ms, 0.1, 0) && b.registers == 40 && b.spill_bytes == 0, "median %g", b.time.median_ms);
    prof_baseline_free(&b);

    /* 8% slower: slower, exit 5 past --fail-if-slower 5, 0 under it */
    make_profile(&cur, k, s1, 300, 0.108, 0.003);
    ProfileOptions o = {.baseline = path, .fail_if_slower = -1};
    int rc = prof_apply_baseline(&cur, &o, &b);
    CHECK(rc == 0 && cur.baseline && cur.vs_baseline.verdict == VERDICT_SLOWER, "slower: rc %d %s", rc,
          prof_verdict_name(cur.vs_baseline.verdict));
    prof_baseline_free(&b);
    o.fail_if_slower = 5;
    CHECK(prof_apply_baseline(&cur, &o, &b) == 5, "exit 5 past 5%%");
    prof_baseline_free(&b);
    o.fail_if_slower = 10;
    CHECK(prof_apply_baseline(&cur, &o, &b) == 0, "exit 0 under 10%%");
    /* the report's section and the JSON carry it */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    prof_report_terminal(m, &cur);
    fclose(m);
    CHECK(strstr(text, "Previous") && strstr(text, "verdict: slower by 8.0%"), "report:\n%s", text);
    CHECK(strstr(text, "duration (ms, median)                   0.1          0.108  +8.0% slower") &&
              strstr(text, "registers per thread                     40             40  +0"),
          "the table's values:\n%s", text);
    free(text);
    char out[200];
    snprintf(out, sizeof out, "%s/cur.json", dir);
    CHECK(prof_write_json(out, &cur, err), "writes the comparison");
    text = read_file(out);
    CHECK(strstr(text, "\"verdict\": \"slower\""), "JSON verdict:\n%.400s", text);
    free(text);
    prof_baseline_free(&b);
    remove(out);

    /* the same run again: same */
    make_profile(&cur, k, s1, 300, 0.1001, 0.003);
    o.fail_if_slower = 0;
    CHECK(prof_apply_baseline(&cur, &o, &b) == 0 && cur.vs_baseline.verdict == VERDICT_SAME, "same: %s",
          prof_verdict_name(cur.vs_baseline.verdict));
    prof_baseline_free(&b);

    /* refusals: exit 2, no comparison */
    Profile other = cur;
    other.baseline = NULL;
    other.kernel = "another";
    CHECK(prof_apply_baseline(&other, &o, &b) == 2 && !other.baseline, "another kernel refused");
    other.kernel = "scale";
    snprintf(other.device.name, sizeof other.device.name, "NVIDIA A100");
    CHECK(prof_apply_baseline(&other, &o, &b) == 2 && !other.baseline, "another device refused");
    other = cur;
    other.baseline = NULL;
    other.nstages = 2; /* a pipeline's run against a kernel's file */
    CHECK(prof_apply_baseline(&other, &o, &b) == 2 && !other.baseline, "another schema refused");

    text = read_file(path);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    /* truncated; no kernel; not an object; another schema; empty; a schema no int holds (the fuzzer's) */
    static const char *const broken[] = {NULL, "{\"schema\": 1}", "[1, 2]", "{\"schema\": 3, \"kernel\": \"scale\"}", "",
                                         "{\"schema\": 2555555555555555555555555555555555555555, \"kernel\": \"scale\"}"};
    for (int i = 0; i < 6; i++) {
        FILE *f = fopen(bad, "w");
        if (i == 0) fwrite(text, 1, strlen(text) / 2, f); /* truncated */
        else fputs(broken[i], f);
        fclose(f);
        o.baseline = bad;
        CHECK(prof_apply_baseline(&cur, &o, &b) == 2, "broken file %d refused", i);
    }
    o.baseline = "/nonexistent/prev.json";
    CHECK(prof_apply_baseline(&cur, &o, &b) == 2, "a missing file refused");
    free(text);
    remove(bad);
    remove(path);
    rmdir(dir);
}

/* The JSON reader on its own: escapes, nesting, numbers, and what it refuses. */
static void test_reader(void) {
    char err[256];
    const char *ok = "{\"a\": [1, -2.5e3, true, false, null], \"s\": \"q\\\"\\u00e9\\ud83d\\ude00\\n\", \"a\": 7}";
    JsonValue *v = json_parse(ok, strlen(ok), err);
    CHECK(v && v->type == JSON_OBJECT_V, "parses: %s", err);
    if (v) {
        CHECK(json_number_or(json_member(v, "a"), 0) == 7, "the last of repeated names");
        const JsonValue *arr = v->items[0];
        CHECK(arr->len == 5 && arr->items[1]->number == -2500 && arr->items[2]->boolean && !arr->items[3]->boolean &&
              arr->items[4]->type == JSON_NULL_V, "array members");
        CHECK(!strcmp(json_string_or(json_member(v, "s"), ""), "q\"\xc3\xa9\xf0\x9f\x98\x80\n"), "escapes: %s",
              json_string_or(json_member(v, "s"), ""));
    }
    json_value_free(v);
    static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\\ud800\"", "[1] 2",
                                      "nul", "\"a\nb\"", "-", "{\"a\":}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = json_parse(bad[i], strlen(bad[i]), err);
        CHECK(!v && err[0], "refuses '%s'", bad[i]);
        json_value_free(v);
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    v = json_parse(deep, sizeof deep, err);
    CHECK(!v && strstr(err, "deep"), "nesting limit: %s", err);
}

int main(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
                              "kernel scale(X: f32[N], out Y: f32[N]) where N = 1048576 grid(N / 256) as (bx) threads 256 {\n"
                              "  for i in parallel(256) { Y[bx * 256 + i] = 2 * X[bx * 256 + i]; }\n"
                              "}\nreference { Y[i] = 2 * X[i]; }\n",
                              NULL, 0);
    test_verdicts();
    test_reader();
    test_round_trip(k);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
