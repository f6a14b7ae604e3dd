/* test_report.c - the profiler's derived metrics and report writers, on a
 * Profile built by hand (no GPU): FLOPs and bytes from references and
 * clauses, device peaks from their formulas, the bound, the diagnosis, and
 * the files --json, --trace, --report and --roofline write (parsed back with
 * tilec's JSON reader; also python3 -m json.tool when present).
 *
 *   test_report               run the tests (exit 0 when all pass)
 *   test_report --show DIR    print the sample report, write its files to DIR */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler.h"
#include "test_util.h"

static KernelInfo *load(Ctx *c, const char *src) { return load_with(c, src, NULL, 0); }


#define CHECK_STR(got, want) CHECK((got) && !strcmp((got), (want)), "got \"%s\", want \"%s\"", (got) ? (got) : "(null)", (want))

static char tmpdir[64];


static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t r;
    while ((r = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) s = realloc(s, cap *= 2);
    }
    fclose(f);
    s[n] = 0;
    if (len) *len = n;
    return s;
}

/* The terminal report of p, as a file would get it, into buf. */
static void terminal_text(const Profile *p, char *buf, size_t size) {
    FILE *f = tmpfile();
    prof_report_terminal(f, p);
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    fclose(f);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Files in tmpdir whose name contains `part`. */
static int count_files(const char *part) {
    DIR *d = opendir(tmpdir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, part)) n++;
    if (d) closedir(d);
    return n;
}

/* ---- the JSON read back with tilec's own reader (support/json_read.c) ---- */

typedef JsonValue JV;

/* The whole text must be one JSON value; NULL when it is not. */
static JV *tj_parse(const char *text) {
    char err[256];
    return json_parse(text, strlen(text), err);
}

static void tj_free(JV *v) { json_value_free(v); }

static JV *jfield(const JV *o, const char *key) { return (JV *)json_member(o, key); }

/* "a.b.c" */
static JV *jpath(const JV *root, const char *path) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const JV *v = root;
    for (char *save = NULL, *t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
        v = jfield(v, t);
        if (!v) return NULL;
    }
    return (JV *)v;
}

static bool have_python(void) { return system("command -v python3 >/dev/null 2>&1") == 0; }

static void check_python_json(const char *path) {
    if (!have_python()) return;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 -m json.tool '%s' >/dev/null", path);
    CHECK(system(cmd) == 0, "python3 -m json.tool rejects %s", path);
}

/* ---- FLOPs and bytes ---- */

static void test_work(void) {
    Ctx c;
    Derived d;
    /* Matmul: 2*M*N*K, bytes of A, B (f16) and C (f32). */
    KernelInfo *k = load(&c, "kernel mm(A: f16[M, K], B: f16[K, N], out C: f32[M, N])\n"
                             "    where M = 96, N = 80, K = 48 { }\n"
                             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n");
    prof_derive_work(k, &d);
    CHECK_NEAR(d.flops, 2.0 * 96 * 80 * 48, 0);
    CHECK_NEAR(d.bytes, 96.0 * 48 * 2 + 48.0 * 80 * 2 + 96.0 * 80 * 4, 0);
    CHECK(d.flop_model && !strncmp(d.flop_model, "derived from the reference", 26), "%s", d.flop_model);
    CHECK(d.byte_model && strstr(d.byte_model, "read once"), "%s", d.byte_model);
    CHECK(isnan(d.tflops) && !d.bound, "rates start unknown");
    CHECK(prof_input_dtype(k) == DT_F16, "input dtype %d", prof_input_dtype(k));
    ctx_free(&c);

    /* Softmax (LANGUAGE.md §6): max MN, subtract and exp 2MN, the row sum MN
     * (once per row element, not once per output element), divide MN. */
    k = load(&c, "kernel softmax(X: f16[M, N], out Y: f16[M, N])\n"
                 "    where M = 300, N = 200 { }\n"
                 "reference {\n"
                 "    m[i] = max(j: X[i, j]);\n"
                 "    e[i, j] = exp(X[i, j] - m[i]);\n"
                 "    Y[i, j] = e[i, j] / sum(k: e[i, k]);\n"
                 "}\n");
    prof_derive_work(k, &d);
    CHECK_NEAR(d.flops, 5.0 * 300 * 200, 0);
    CHECK_NEAR(d.bytes, 2.0 * 300 * 200 * 2, 0);
    ctx_free(&c);

    /* rmsnorm: the sum of squares 2MN, /N, +eps and sqrt per row, the
     * division and the product with W per element; scalars are not tensors. */
    k = load(&c, "kernel rmsnorm(X: bf16[M, N], W: bf16[N], out Y: bf16[M, N], eps: f32)\n"
                 "    where M = 64, N = 128, eps = 1e-6 { }\n"
                 "reference { Y[i, j] = X[i, j] / sqrt(sum(k: X[i, k] * X[i, k]) / N + eps) * W[j]; }\n");
    prof_derive_work(k, &d);
    CHECK_NEAR(d.flops, 4.0 * 64 * 128 + 3.0 * 64, 0);
    CHECK_NEAR(d.bytes, 2.0 * 64 * 128 * 2 + 128.0 * 2, 0);
    ctx_free(&c);

    /* Attention without a clause: the constant `scale` costs nothing, the
     * select is free (its costlier branch counts), index arithmetic is free. */
    k = load(&c, "kernel att(Q: f16[B, H, S, D], K: f16[B, H, S, D], V: f16[B, H, S, D], out O: f16[B, H, S, D])\n"
                 "    where B = 2, H = 3, S = 40, D = 16, causal = 0 { }\n"
                 "reference {\n"
                 "    let scale = 1.0 / sqrt(f64(D));\n"
                 "    s[b, h, i, j] = (causal == 0 || j <= i) ? scale * sum(d: Q[b, h, i, d] * K[b, h, j, d]) : -inf;\n"
                 "    m[b, h, i] = max(j: s[b, h, i, j]);\n"
                 "    p[b, h, i, j] = exp(s[b, h, i, j] - m[b, h, i]);\n"
                 "    O[b, h, i, d] = sum(j: p[b, h, i, j] * V[b, h, j, d]) / sum(j: p[b, h, i, j]);\n"
                 "}\n");
    prof_derive_work(k, &d);
    double B = 2, H = 3, S = 40, D = 16;
    CHECK_NEAR(d.flops, 4 * B * H * S * S * D + 5 * B * H * S * S + B * H * S * D, 0);
    CHECK_NEAR(d.bytes, 4 * B * H * S * D * 2, 0);
    ctx_free(&c);

    /* inout tensors count twice; fma is a multiply-add. */
    k = load(&c, "kernel axpy(X: f32[N], inout Y: f32[N], a: f32) where N = 1000, a = 2.0 { }\n"
                 "reference { Y[i] = fma(a, X[i], Y[i]); }\n");
    prof_derive_work(k, &d);
    CHECK_NEAR(d.flops, 2.0 * 1000, 0);
    CHECK_NEAR(d.bytes, 1000.0 * 4 + 2 * 1000.0 * 4, 0);
    ctx_free(&c);

    /* The clauses win over the reference, and the model quotes them. */
    k = load(&c, "kernel att(Q: f16[B, H, S, D], K: f16[B, H, S, D], V: f16[B, H, S, D], out O: f16[B, H, S, D])\n"
                 "    where B = 2, H = 3, S = 40, D = 16, causal = 1\n"
                 "    flops 4 * B * H * S * S * D / (causal + 1)\n"
                 "    bytes 2 * (4 * B * H * S * D) - (B - 1)\n"
                 "{ }\n"
                 "reference {\n"
                 "    let scale = 1.0 / sqrt(f64(D));\n"
                 "    s[b, h, i, j] = (causal == 0 || j <= i) ? scale * sum(d: Q[b, h, i, d] * K[b, h, j, d]) : -inf;\n"
                 "    m[b, h, i] = max(j: s[b, h, i, j]);\n"
                 "    p[b, h, i, j] = exp(s[b, h, i, j] - m[b, h, i]);\n"
                 "    O[b, h, i, d] = sum(j: p[b, h, i, j] * V[b, h, j, d]) / sum(j: p[b, h, i, j]);\n"
                 "}\n");
    prof_derive_work(k, &d);
    CHECK_NEAR(d.flops, 4 * B * H * S * S * D / 2, 0);
    CHECK_STR(d.flop_model, "flops clause: 4*B*H*S*S*D/(causal+1)");
    CHECK_NEAR(d.bytes, 2 * (4 * B * H * S * D) - (B - 1), 0);
    CHECK_STR(d.byte_model, "bytes clause: 2*(4*B*H*S*D)-(B-1)");
    ctx_free(&c);

    /* No reference and no clause: FLOPs unknown, bytes still from the tensors. */
    k = load(&c, "kernel cp(X: f16[N], out Y: f16[N]) where N = 10 { }\n");
    prof_derive_work(k, &d);
    CHECK(isnan(d.flops), "flops %g", d.flops);
    CHECK_NEAR(d.bytes, 40, 0);
    CHECK(d.flop_model && strstr(d.flop_model, "unknown"), "%s", d.flop_model);
    ctx_free(&c);
}

/* ---- peaks and the bound ---- */

static DeviceInfo h200_like(void) {
    DeviceInfo dev = {0};
    snprintf(dev.name, sizeof dev.name, "NVIDIA H200-like");
    dev.cc_major = 9;
    dev.sms = 132;
    dev.sm_clock_mhz = 1980;
    dev.mem_clock_mhz = 2619;
    dev.bus_width_bits = 5120;
    dev.l2_bytes = 60ll << 20;
    return dev;
}

static void test_peaks(void) {
    DeviceInfo dev = h200_like();
    prof_device_peaks(&dev, 9, 0, DT_F16);
    double gbps = 2 * dev.mem_clock_mhz * 1e6 * dev.bus_width_bits / 8 / 1e9;
    CHECK_NEAR(dev.peak_gbps, gbps, 1e-12);
    CHECK_NEAR(dev.peak_tflops, dev.sms * dev.sm_clock_mhz * 1e6 * 4096 / 1e12, 1e-12);
    CHECK(dev.peak_source && strstr(dev.peak_source, "whitepaper") && strstr(dev.peak_source, "4096"), "%s",
          dev.peak_source);
    /* 4096 FLOP/clk/SM reproduces the whitepaper's 989.4 TFLOPS at 132 SMs, 1830 MHz. */
    CHECK_NEAR(132 * 1830e6 * 4096 / 1e12, 989.4, 1e-3);
    double f16 = dev.peak_tflops;
    prof_device_peaks(&dev, 9, 0, DT_BF16);
    CHECK_NEAR(dev.peak_tflops, f16, 1e-12);
    prof_device_peaks(&dev, 9, 0, DT_F8E4M3);
    CHECK_NEAR(dev.peak_tflops, 2 * f16, 1e-12);
    prof_device_peaks(&dev, 9, 0, DT_F32);
    CHECK_NEAR(dev.peak_tflops, dev.sms * dev.sm_clock_mhz * 1e6 * 2 * 128 / 1e12, 1e-12);
    CHECK(strstr(dev.peak_source, "CUDA cores") != NULL, "%s", dev.peak_source);

    DeviceInfo a100 = {0};
    a100.sms = 108;
    a100.sm_clock_mhz = 1410;
    a100.mem_clock_mhz = 1215;
    a100.bus_width_bits = 5120;
    prof_device_peaks(&a100, 8, 0, DT_F16);
    CHECK_NEAR(a100.peak_tflops, 108 * 1410e6 * 2048 / 1e12, 1e-12);
    CHECK_NEAR(a100.peak_tflops, 312, 2e-3); /* the whitepaper's number */
    CHECK_NEAR(a100.peak_gbps, 2 * 1215e6 * 5120 / 8 / 1e9, 1e-12);
    prof_device_peaks(&a100, 8, 0, DT_F32);
    CHECK_NEAR(a100.peak_tflops, 19.5, 2e-3); /* 64 FP32 lanes per SM on GA100 */

    /* An architecture the table does not know: unknown, said so. */
    DeviceInfo t4 = {0};
    t4.sms = 40;
    t4.sm_clock_mhz = 1590;
    prof_device_peaks(&t4, 7, 5, DT_F16);
    CHECK(t4.peak_tflops == 0 && t4.peak_gbps == 0, "%g %g", t4.peak_tflops, t4.peak_gbps);
    CHECK(t4.peak_source && strstr(t4.peak_source, "sm_75"), "%s", t4.peak_source);
}

static void test_bound(void) {
    DeviceInfo dev = h200_like();
    prof_device_peaks(&dev, 9, 0, DT_F16);
    double ridge = dev.peak_tflops * 1e12 / (dev.peak_gbps * 1e9);
    Derived d = {0};

    /* 4096^3 GEMM: intensity above the ridge. */
    d.flops = 2.0 * 4096 * 4096 * 4096;
    d.bytes = 3.0 * 4096 * 4096 * 2;
    prof_derive_rates(&d, &dev, 0.25);
    CHECK_NEAR(d.tflops, d.flops / 0.25e-3 / 1e12, 1e-12);
    CHECK_NEAR(d.gbps, d.bytes / 0.25e-3 / 1e9, 1e-12);
    CHECK_NEAR(d.pct_peak_compute, 100 * d.tflops / dev.peak_tflops, 1e-12);
    CHECK_NEAR(d.pct_peak_bandwidth, 100 * d.gbps / dev.peak_gbps, 1e-12);
    CHECK_NEAR(d.arithmetic_intensity, d.flops / d.bytes, 1e-12);
    CHECK_NEAR(d.ridge_point, ridge, 1e-12);
    CHECK_STR(d.bound, "compute");

    /* A big elementwise add: below the ridge. */
    d.flops = 64e6;
    d.bytes = 3 * 64e6 * 2;
    prof_derive_rates(&d, &dev, 0.15);
    CHECK_STR(d.bound, "memory");

    /* A 4 us kernel: latency, whatever its intensity. */
    prof_derive_rates(&d, &dev, 0.004);
    CHECK_STR(d.bound, "latency");

    /* Far from both roofs on a long run: latency. */
    d.flops = 1e9;
    d.bytes = 1e8;
    prof_derive_rates(&d, &dev, 10);
    CHECK(d.pct_peak_compute < 10 && d.pct_peak_bandwidth < 10, "%g %g", d.pct_peak_compute, d.pct_peak_bandwidth);
    CHECK_STR(d.bound, "latency");

    /* Not timed, or peaks unknown: no bound, no invented rates. */
    prof_derive_rates(&d, &dev, 0);
    CHECK(!d.bound && isnan(d.tflops) && isnan(d.pct_peak_compute), "untimed");
    DeviceInfo none = {0};
    d.flops = 2.0 * 4096 * 4096 * 4096;
    d.bytes = 3.0 * 4096 * 4096 * 2;
    prof_derive_rates(&d, &none, 0.25);
    CHECK(!d.bound && isnan(d.pct_peak_compute) && isnan(d.ridge_point) && !isnan(d.tflops), "no peaks");
}

/* ---- a whole profile ---- */

static BenchSample samples[40];

static void make_profile(Profile *p, KernelInfo *k) {
    memset(p, 0, sizeof *p);
    p->file = "gemm.tile";
    p->kernel = "mm";
    p->kernel_symbol = "tilec_mm_0123abcd";
    p->arch = "sm_90a";
    p->info = k;
    p->cache_hit = false;
    p->compile_s = 0.84;
    p->verified = true;
    p->verify.passed = true;
    p->verify.checked = p->verify.total = 4096LL * 4096;
    p->verify.max_abs_err = 0.0039;
    p->verify.max_rel_err = 0.0021;
    p->verify.rel_fro_err = 1.5e-4;
    p->verify.rtol = 1e-2;
    p->verify.atol = 1e-2;
    p->consistent = true;
    p->consistency_runs = 10;
    BenchResult *b = &p->bench;
    b->backend = BENCH_EVENT;
    b->samples = 40;
    b->sample = samples;
    for (int i = 0; i < 40; i++) {
        samples[i].ms = 0.40 + 0.001 * (i % 5);
        samples[i].flush_us = 20;
        samples[i].start_us = 10 + 450.0 * i; /* the first flush starts before the benchmark's origin */
        samples[i].sm_clock_mhz = i % 10 == 0 ? 1980 : 0;
        samples[i].throttled = i == 30;
    }
    b->median_ms = 0.402;
    b->min_ms = 0.400;
    b->max_ms = 0.404;
    b->p95_ms = 0.404;
    b->mean_ms = 0.402;
    b->rel_stddev = 0.004;
    b->warmup_runs = 3;
    b->warmup_ms = 21.5;
    b->l2_flush = true;
    b->l2_flush_bytes = 60ll << 20;
    b->sm_clock_mhz = 0; /* not measured: null in JSON */
    b->throttled_samples = 1;
    b->stopped_on_noise = true;
    p->device = h200_like();
    snprintf(p->device.name, sizeof p->device.name, "NVIDIA \"H200\" \\ test\x01");
    prof_device_peaks(&p->device, 9, 0, prof_input_dtype(k));
    p->res.registers = 168;
    p->res.spill_bytes = 24;
    p->res.static_smem = 0;
    p->res.dynamic_smem = 98304;
    p->res.blocks_per_sm = 1;
    p->res.occupancy = 4.0 / 64;
    p->res.grid_blocks = 1024; /* 128x128 tiles */
    p->res.block_threads = 128;
    p->res.waves = 1024.0 / 132;
    prof_derive_work(k, &p->derived);
    prof_derive_rates(&p->derived, &p->device, b->median_ms);
    prof_diagnose(p);
}

/* Sentences end with '.' before a space or the end. */
static int sentences(const char *s) {
    int n = 0;
    for (; *s; s++)
        if (*s == '.' && (s[1] == ' ' || s[1] == 0)) n++;
    return n;
}

/* A healthy memory-bound kernel: 20 quiet samples of 1 ms at 90% of the
 * bandwidth, full occupancy, no spills. */
static void make_healthy(Profile *q, KernelInfo *k) {
    memset(q, 0, sizeof *q);
    q->info = k;
    q->device = h200_like();
    prof_device_peaks(&q->device, 9, 0, DT_F16);
    q->bench.samples = 20;
    q->bench.median_ms = 1.0;
    q->bench.rel_stddev = 0.001;
    q->bench.stopped_on_noise = true;
    q->res.registers = 32;
    q->res.occupancy = 1;
    q->res.blocks_per_sm = 8;
    q->res.waves = 20;
    q->derived.flops = 1e8;
    q->derived.bytes = 0.9 * q->device.peak_gbps * 1e9 * 1e-3; /* 90% of the bandwidth */
    prof_derive_rates(&q->derived, &q->device, 1.0);
}

static void test_diagnose(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    CHECK_STR(p.derived.bound, "compute");
    CHECK(p.root_cause && sentences(p.root_cause) == 2, "root cause: %s", p.root_cause ? p.root_cause : "(null)");
    CHECK(p.root_cause && strstr(p.root_cause, "Compute-bound"), "%s", p.root_cause);
    CHECK(p.n_opportunities == 3, "%d opportunities", p.n_opportunities);
    bool spill = false;
    for (int i = 0; i < p.n_opportunities; i++) {
        CHECK(p.opportunities[i] && strstr(p.opportunities[i], "trigger:"), "%s", p.opportunities[i]);
        if (strstr(p.opportunities[i], "spill_bytes=24")) spill = true;
    }
    CHECK(spill, "the spill is among the top three");

    /* Healthy memory-bound kernel: no opportunity invented. */
    Profile q;
    make_healthy(&q, k);
    prof_diagnose(&q);
    CHECK_STR(q.derived.bound, "memory");
    CHECK(q.n_opportunities == 0, "%d: %s", q.n_opportunities, q.n_opportunities ? q.opportunities[0] : "");
    CHECK(q.root_cause && sentences(q.root_cause) == 2, "%s", q.root_cause);

    /* Memory-bound at 35%: that is the top finding, with its estimate. */
    q.derived.bytes = 0.35 * q.device.peak_gbps * 1e9 * 1e-3;
    prof_derive_rates(&q.derived, &q.device, 1.0);
    prof_diagnose(&q);
    CHECK(q.n_opportunities >= 1 && strstr(q.opportunities[0], "bandwidth=35%"), "%s",
          q.n_opportunities ? q.opportunities[0] : "");
    CHECK(q.root_cause && strstr(q.root_cause, "Memory-bound") && sentences(q.root_cause) == 2, "%s", q.root_cause);

    /* A tiny grid on a short kernel. */
    q.bench.median_ms = 0.006;
    q.res.waves = 0.25;
    q.res.grid_blocks = 33;
    prof_derive_rates(&q.derived, &q.device, q.bench.median_ms);
    prof_diagnose(&q);
    CHECK_STR(q.derived.bound, "latency");
    CHECK(q.n_opportunities >= 2 && strstr(q.opportunities[0], "waves=0.25"), "%s",
          q.n_opportunities ? q.opportunities[0] : "");
}

/* The diagnosis branches test_diagnose does not reach: a faster peer, noisy
 * samples only, no timing, unknown FLOPs, a kernel without arithmetic. */
static void test_diagnose_more(KernelInfo *k) {
    Profile q;
    make_healthy(&q, k);
    q.compare = (CompareResult){.present = true, .name = "cublas", .median_ms = 0.5, .speedup = 0.5};
    prof_diagnose(&q);
    CHECK(q.n_opportunities == 1 && strstr(q.opportunities[0], "Close the gap to cublas (trigger: speedup=0.50x"),
          "%s", q.n_opportunities ? q.opportunities[0] : "");
    CHECK(q.root_cause && strstr(q.root_cause, "cublas solves the same problem 2.00x faster."), "%s", q.root_cause);

    /* Noise is about the measurement: an opportunity, never the root cause. */
    make_healthy(&q, k);
    q.bench.rel_stddev = 0.05;
    prof_diagnose(&q);
    CHECK(q.n_opportunities == 1 && strstr(q.opportunities[0], "Reduce timing noise (trigger: rel_stddev=5.0%"), "%s",
          q.n_opportunities ? q.opportunities[0] : "");
    CHECK(q.root_cause && strstr(q.root_cause, "No measured metric is outside its healthy range"), "%s", q.root_cause);

    make_healthy(&q, k);
    q.bench.samples = 0;
    prof_diagnose(&q);
    CHECK_STR(q.root_cause, "Not classified: the kernel was not timed. Nothing more can be said without a timing "
                            "and the device's peaks.");

    make_healthy(&q, k);
    q.derived.flops = NAN;
    prof_derive_rates(&q.derived, &q.device, 1.0);
    prof_diagnose(&q);
    CHECK(q.root_cause && strstr(q.root_cause, "Not classified: its FLOPs are unknown"), "%s", q.root_cause);

    make_healthy(&q, k);
    q.derived.flops = 0;
    q.device.peak_tflops = 0;
    prof_derive_rates(&q.derived, &q.device, 1.0);
    prof_diagnose(&q);
    CHECK(q.root_cause && strstr(q.root_cause, "Memory-bound: the kernel does no arithmetic and moves "), "%s",
          q.root_cause);
}

/* ---- the statistics of the samples ---- */

/* A run that reaches the card's power limit: its first samples at full
 * clock, the rest capped, as attention does on the H200. The median clock
 * is then the capped one, so no sample counts as throttled; the full-clock
 * median says what the kernel does before the cap. */
static void test_summarise(KernelInfo *k) {
    static BenchSample s[100];
    BenchResult r = {.samples = 100, .sample = s};
    for (int i = 0; i < 100; i++)
        s[i] = (BenchSample){.ms = i < 20 ? 1.70 + 0.001 * (i % 3) : 1.95 + 0.001 * (i % 5),
                             .sm_clock_mhz = i < 20 ? 1980 : 1660};
    char err[256];
    CHECK(prof_bench_summarise(&r, err), "%s", err);
    CHECK(r.sm_clock_mhz == 1660 && r.throttled_samples == 0, "median clock %g, %d throttled", r.sm_clock_mhz,
          r.throttled_samples);
    CHECK(r.full_clock_mhz == 1980 && r.full_clock_samples == 20, "%d samples at %g MHz", r.full_clock_samples,
          r.full_clock_mhz);
    CHECK(fabs(r.full_clock_median_ms - 1.701) < 1e-9 && fabs(r.median_ms - 1.951) < 1e-9, "full-clock median %g, median %g",
          r.full_clock_median_ms, r.median_ms);
    CHECK(prof_bench_part_at_full_clock(&r), "a part at full clock");

    /* a healthy kernel otherwise, so the measurement's finding is among the three */
    Profile p;
    make_healthy(&p, k);
    p.bench = r;
    p.bench.rel_stddev = 0.001;
    p.bench.stopped_on_noise = true;
    prof_diagnose(&p);
    bool found = false;
    for (int i = 0; i < p.n_opportunities; i++)
        if (strstr(p.opportunities[i], "80 below 95% of the fastest") && strstr(p.opportunities[i], "median of 1.701 ms"))
            found = true;
    CHECK(found, "the mixed clocks are a finding with the full-clock median");
    char buf[16384];
    terminal_text(&p, buf, sizeof buf);
    CHECK(strstr(buf, "20 of 100 samples at 1980 MHz or within 5%: median 1.701 ms"), "no full-clock row:\n%s", buf);

    /* One clock throughout: every sample at full clock, no extra row. */
    for (int i = 0; i < 100; i++) s[i].sm_clock_mhz = 1980;
    CHECK(prof_bench_summarise(&r, err), "%s", err);
    CHECK(r.full_clock_samples == 100 && !prof_bench_part_at_full_clock(&r), "%d at full clock", r.full_clock_samples);
    /* No clock measured: nothing at full clock. */
    for (int i = 0; i < 100; i++) s[i].sm_clock_mhz = 0;
    CHECK(prof_bench_summarise(&r, err), "%s", err);
    CHECK(r.full_clock_samples == 0 && r.full_clock_median_ms == 0 && !prof_bench_part_at_full_clock(&r),
          "no clock, %d at full clock", r.full_clock_samples);
}

static void test_json(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/p.json", tmpdir);
    CHECK(prof_write_json(path, &p, err), "%s", err);
    char *text = slurp(path, NULL);
    CHECK(text != NULL, "no %s", path);
    JV *j = text ? tj_parse(text) : NULL;
    CHECK(j && j->type == JSON_OBJECT_V, "the JSON does not parse:\n%s", text ? text : "");
    check_python_json(path);
    static const char *const fields[] = {
        "schema", "tilec", "kernel", "values", "device", "device.name", "device.arch", "device.sms",
        "device.peak_tflops", "device.peak_gbps", "compile", "compile.cache_hit", "compile.seconds",
        "compile.registers", "compile.shared_bytes", "compile.spill_bytes", "compile.occupancy", "verify",
        "verify.passed", "verify.checked", "verify.mismatches", "verify.max_abs_err", "verify.max_rel_err",
        "verify.rel_fro_err", "verify.rtol", "verify.atol", "consistent", "consistent.passed", "consistent.runs",
        "bench", "bench.backend", "bench.samples", "bench.median_ms", "bench.min_ms", "bench.max_ms", "bench.p95_ms",
        "bench.rel_stddev", "bench.l2_flush", "bench.sm_clock_mhz", "bench.throttled_samples",
        "bench.full_clock_median_ms", "bench.full_clock_samples", "derived", "derived.flops", "derived.bytes",
        "derived.flop_model", "derived.tflops", "derived.gbps", "derived.pct_peak_compute",
        "derived.pct_peak_bandwidth", "derived.bound", "compare",
    };
    for (size_t i = 0; j && i < sizeof fields / sizeof fields[0]; i++)
        CHECK(jpath(j, fields[i]) != NULL, "no field %s", fields[i]);
    /* Nothing beyond the schema. */
    static const char *const top[] = {"schema", "tilec", "kernel", "values", "device", "compile", "verify",
                                      "consistent", "bench", "derived", "compare"};
    CHECK(j && j->len == (int)(sizeof top / sizeof top[0]), "%d top-level fields", j ? j->len : -1);
    CHECK(jpath(j, "derived") && jpath(j, "derived")->len == 8, "derived has extra fields");
    JV *v;
    CHECK((v = jpath(j, "schema")) && v->type == JSON_NUMBER_V && v->number == 1, "schema");
    CHECK((v = jpath(j, "tilec")) && v->type == JSON_STRING_V && !strcmp(v->str, TILEC_VERSION), "tilec");
    CHECK((v = jpath(j, "kernel")) && v->type == JSON_STRING_V && !strcmp(v->str, "mm"), "kernel");
    CHECK((v = jpath(j, "values.M")) && v->type == JSON_NUMBER_V && v->number == 4096, "values.M");
    CHECK((v = jpath(j, "values.K")) && v->type == JSON_NUMBER_V && v->number == 2048, "values.K");
    CHECK((v = jpath(j, "values.alpha")) && v->type == JSON_NUMBER_V && v->number == 0.5, "values.alpha");
    CHECK((v = jpath(j, "values.BM")) && v->type == JSON_NUMBER_V && v->number == 64, "values.BM (a tunable)");
    CHECK((v = jpath(j, "device.name")) && v->type == JSON_STRING_V && !strcmp(v->str, p.device.name), "escaped device name");
    CHECK((v = jpath(j, "device.peak_tflops")) && v->type == JSON_NUMBER_V && v->number == p.device.peak_tflops, "peak exact");
    CHECK((v = jpath(j, "bench.sm_clock_mhz")) && v->type == JSON_NULL_V, "sm clock not measured -> null");
    CHECK((v = jpath(j, "bench.backend")) && v->type == JSON_STRING_V && !strcmp(v->str, "event"), "backend");
    CHECK((v = jpath(j, "bench.median_ms")) && v->type == JSON_NUMBER_V && v->number == 0.402, "median exact");
    CHECK((v = jpath(j, "compare")) && v->type == JSON_NULL_V, "compare not asked -> null");
    CHECK((v = jpath(j, "compile.shared_bytes")) && v->type == JSON_NUMBER_V && v->number == 98304, "shared bytes");
    CHECK((v = jpath(j, "derived.flops")) && v->type == JSON_NUMBER_V && v->number == 2.0 * 4096 * 4096 * 2048 + 4096 * 4096, "flops");
    CHECK((v = jpath(j, "derived.bound")) && v->type == JSON_STRING_V && !strcmp(v->str, "compute"), "bound");
    CHECK((v = jpath(j, "verify.checked")) && v->type == JSON_NUMBER_V && v->number == 4096.0 * 4096, "checked");
    tj_free(j);
    free(text);

    /* Without a reference, a timing, resources or clock: nulls, never zeros;
     * with --compare: the object. */
    p.verified = false;
    p.consistency_runs = 0;
    p.bench.samples = 0;
    p.res.registers = 0;
    p.compare.present = true;
    p.compare.name = "cublas";
    p.compare.median_ms = 0.35;
    p.compare.speedup = 0.35 / 0.402;
    prof_derive_rates(&p.derived, &p.device, 0);
    CHECK(prof_write_json(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    j = text ? tj_parse(text) : NULL;
    CHECK(j != NULL, "the JSON does not parse:\n%s", text ? text : "");
    for (size_t i = 0; j && i < sizeof fields / sizeof fields[0]; i++)
        CHECK(jpath(j, fields[i]) != NULL, "no field %s", fields[i]);
    CHECK((v = jpath(j, "verify.passed")) && v->type == JSON_NULL_V, "verify.passed null");
    CHECK((v = jpath(j, "consistent.passed")) && v->type == JSON_NULL_V, "consistent.passed null");
    CHECK((v = jpath(j, "bench.median_ms")) && v->type == JSON_NULL_V, "median null");
    CHECK((v = jpath(j, "derived.tflops")) && v->type == JSON_NULL_V, "tflops null");
    CHECK((v = jpath(j, "derived.bound")) && v->type == JSON_NULL_V, "bound null");
    CHECK((v = jpath(j, "compile.registers")) && v->type == JSON_NULL_V, "registers null");
    CHECK((v = jpath(j, "compare.name")) && v->type == JSON_STRING_V && !strcmp(v->str, "cublas"), "compare.name");
    CHECK((v = jpath(j, "compare.speedup")) && v->type == JSON_NUMBER_V && v->number == p.compare.speedup, "compare.speedup");
    CHECK(jpath(j, "compare.median_ms") != NULL, "compare.median_ms");
    tj_free(j);
    free(text);

    /* --compare asked for but not available: the object, numbers null. */
    p.compare.present = false;
    p.compare.note = "not implemented";
    CHECK(prof_write_json(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    j = text ? tj_parse(text) : NULL;
    CHECK((v = jpath(j, "compare.name")) && v->type == JSON_STRING_V && !strcmp(v->str, "cublas"), "compare.name");
    CHECK((v = jpath(j, "compare.median_ms")) && v->type == JSON_NULL_V, "compare.median_ms null");
    CHECK((v = jpath(j, "compare.speedup")) && v->type == JSON_NULL_V, "compare.speedup null");
    tj_free(j);
    free(text);
    CHECK(count_files(".tmp.") == 0, "a temporary file was left behind");
}

static void test_trace(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/p.trace.json", tmpdir);
    CHECK(prof_write_trace(path, &p, err), "%s", err);
    char *text = slurp(path, NULL);
    JV *j = text ? tj_parse(text) : NULL;
    CHECK(j != NULL, "the trace does not parse:\n%s", text ? text : "");
    check_python_json(path);
    JV *ev = jpath(j, "traceEvents");
    CHECK(ev && ev->type == JSON_ARRAY_V, "no traceEvents array");
    int x = 0, flushes = 0, kernels = 0, compiles = 0, warm = 0;
    double gpu_end = -1;
    for (int i = 0; ev && i < ev->len; i++) {
        JV *e = ev->items[i], *ph = jfield(e, "ph");
        CHECK(ph && ph->type == JSON_STRING_V, "event %d has no ph", i);
        if (!ph || strcmp(ph->str, "X")) continue;
        x++;
        static const char *const keys[] = {"name", "ph", "ts", "dur", "pid", "tid", "args"};
        for (size_t q = 0; q < sizeof keys / sizeof keys[0]; q++)
            CHECK(jfield(e, keys[q]) != NULL, "event %d has no %s", i, keys[q]);
        JV *name = jfield(e, "name"), *ts = jfield(e, "ts"), *dur = jfield(e, "dur"), *pid = jfield(e, "pid");
        if (!name || !ts || !dur || !pid || name->type != JSON_STRING_V || ts->type != JSON_NUMBER_V || dur->type != JSON_NUMBER_V) continue;
        CHECK(ts->number >= 0 && dur->number >= 0, "event %d at %g for %g", i, ts->number, dur->number);
        if (!strcmp(name->str, "compile")) {
            compiles++;
            CHECK_NEAR(dur->number, 0.84e6, 1e-9);
        }
        if (!strcmp(name->str, "warm-up")) warm++;
        if (!strcmp(name->str, "L2 flush")) flushes++;
        if (!strcmp(name->str, "mm")) {
            kernels++;
            CHECK(dur->number > 399 && dur->number < 405, "sample of %g us", dur->number);
        }
        if (pid->number == 2) { /* the GPU track: in order, never overlapping */
            CHECK(ts->number >= gpu_end - 1e-6, "event %d at %g overlaps the previous one (ends %g)", i, ts->number, gpu_end);
            gpu_end = ts->number + dur->number;
        }
    }
    CHECK(compiles == 1 && warm == 1 && flushes == 40 && kernels == 40 && x == 82,
          "compile %d, warm-up %d, flushes %d, kernels %d, X events %d", compiles, warm, flushes, kernels, x);
    tj_free(j);
    free(text);
}

/* A pipeline's profile: schema 2 with a stages array, a Stages section in
 * the terminal and one markdown row per stage, one trace span per stage
 * after the samples, none overlapping. */
static void test_stages(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    StageProfile sp[2];
    memset(sp, 0, sizeof sp);
    const char *names[2] = {"split_kv", "combine"};
    for (int i = 0; i < 2; i++) {
        sp[i].kernel = names[i];
        sp[i].bench.samples = 10;
        sp[i].bench.median_ms = i ? 0.01 : 0.3;
        sp[i].derived.flops = 1e9, sp[i].derived.bytes = 1e9;
        prof_derive_rates(&sp[i].derived, &p.device, sp[i].bench.median_ms);
        sp[i].span_start_us = i ? 300 : 0;
        sp[i].span_us = i ? 10 : 300;
    }
    sp[0].share = 0.3 / 0.31, sp[1].share = 0.01 / 0.31;
    p.stages = sp, p.nstages = 2, p.kernel_symbol = NULL;
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/stages.json", tmpdir);
    CHECK(prof_write_json(path, &p, err), "%s", err);
    char *text = slurp(path, NULL);
    JV *j = text ? tj_parse(text) : NULL, *v;
    CHECK((v = jpath(j, "schema")) && v->type == JSON_NUMBER_V && v->number == 2, "schema 2");
    JV *st = jpath(j, "stages");
    CHECK(st && st->type == JSON_ARRAY_V && st->len == 2, "two stages");
    for (int i = 0; st && i < st->len && i < 2; i++) {
        JV *s = st->items[i], *kn = jfield(s, "kernel"), *ms = jfield(s, "median_ms"), *ix = jfield(s, "index");
        CHECK(kn && kn->type == JSON_STRING_V && !strcmp(kn->str, names[i]) && ms && ms->type == JSON_NUMBER_V && ix && ix->number == i + 1,
              "stage %d", i);
        static const char *const keys[] = {"share", "flops", "bytes", "tflops", "gbps", "pct_peak_compute",
                                           "pct_peak_bandwidth", "bound"};
        for (size_t q = 0; q < sizeof keys / sizeof keys[0]; q++) CHECK(jfield(s, keys[q]) != NULL, "no %s", keys[q]);
    }
    CHECK(jpath(j, "bench.median_ms") != NULL && jpath(j, "derived.bound") != NULL, "schema 1 fields stay");
    tj_free(j);
    free(text);

    snprintf(path, sizeof path, "%s/stages.md", tmpdir);
    CHECK(prof_write_markdown(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    CHECK(text && strstr(text, "| 1. split_kv |") && strstr(text, "| 2. combine |") && strstr(text, "96.8% of the pipeline"),
          "markdown stages:\n%s", text ? text : "");
    free(text);

    snprintf(path, sizeof path, "%s/stages.trace.json", tmpdir);
    CHECK(prof_write_trace(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    j = text ? tj_parse(text) : NULL;
    JV *ev = jpath(j, "traceEvents");
    int spans = 0;
    double gpu_end = -1;
    for (int i = 0; ev && i < ev->len; i++) {
        JV *e = ev->items[i], *cat = jfield(e, "cat"), *ts = jfield(e, "ts"), *dur = jfield(e, "dur"), *pid = jfield(e, "pid");
        if (!cat || !ts || !dur || !pid) continue;
        if (pid->number == 2) {
            CHECK(ts->number >= gpu_end - 1e-6, "event %d at %g overlaps the previous one (ends %g)", i, ts->number, gpu_end);
            gpu_end = ts->number + dur->number;
        }
        if (cat->type == JSON_STRING_V && !strcmp(cat->str, "stage")) spans++;
    }
    CHECK(spans == 2, "%d stage spans", spans);
    tj_free(j);
    free(text);

    char *term = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&term, &len);
    prof_report_terminal(m, &p);
    fclose(m);
    CHECK(strstr(term, "Stages") && strstr(term, "split_kv") && strstr(term, "96.8%") && !strstr(term, "Resources"),
          "terminal:\n%s", term);
    free(term);
}

static void test_svg_markdown_terminal(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    char path[128], err[256];
    size_t n;
    snprintf(path, sizeof path, "%s/roof.svg", tmpdir);
    CHECK(prof_write_roofline_svg(path, &p, err), "%s", err);
    char *text = slurp(path, &n);
    CHECK(text && !strncmp(text, "<svg", 4), "the SVG does not start with <svg");
    CHECK(text && n > 8 && !strcmp(text + n - 7, "</svg>\n"), "the SVG does not end with </svg>");
    CHECK(text && strstr(text, "memory-roof") && strstr(text, "compute-roof") && strstr(text, "class=\"ridge\""),
          "roofs missing");
    char label[64];
    snprintf(label, sizeof label, "%.4g TFLOP/s", p.derived.tflops);
    CHECK(text && strstr(text, label), "no label %s", label);
    CHECK(text && !strstr(text, "\"H200\""), "unescaped quote in the SVG");
    CHECK(text && !strstr(text, "nan") && !strstr(text, "inf"), "NaN or inf in the SVG");
    free(text);
    /* Unknown peaks and no timing still give a valid picture. */
    Profile q = p;
    q.device.peak_gbps = q.device.peak_tflops = 0;
    q.bench.samples = 0;
    prof_derive_rates(&q.derived, &q.device, 0);
    CHECK(prof_write_roofline_svg(path, &q, err), "%s", err);
    text = slurp(path, &n);
    CHECK(text && !strncmp(text, "<svg", 4) && strstr(text, "</svg>") && !strstr(text, "nan"), "degenerate SVG");
    free(text);

    snprintf(path, sizeof path, "%s/report.md", tmpdir);
    CHECK(prof_write_markdown(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    static const char *const md[] = {"## Profile: mm", "### Configuration", "| M | 4096 |", "### Stages",
                                     "### Timings", "### Resources", "### Bottleneck: Compute-bound",
                                     "Root cause: ", "### Top 3 Opportunities", "1. ", "3. ", "### vs Baseline"};
    for (size_t i = 0; text && i < sizeof md / sizeof md[0]; i++) CHECK(strstr(text, md[i]), "markdown lacks %s", md[i]);
    free(text);

    char buf[16384];
    terminal_text(&p, buf, sizeof buf);
    static const char *const term[] = {"Profile: mm", "Configuration", "M = 4096", "Timings", "Resources",
                                       "Throughput", "Bottleneck: Compute-bound", "Root cause:", "1. ",
                                       "vs Baseline"};
    for (size_t i = 0; i < sizeof term / sizeof term[0]; i++) CHECK(strstr(buf, term[i]), "terminal lacks %s", term[i]);
    CHECK(!strchr(buf, '\x1b'), "colors in a file");
    CHECK(strstr(buf, "before every sample"), "events: the flush is before every sample");

    /* graph replays of 40 launches after one flush: the report says the
     * other 39 find a warm L2; a variant's name says it ran */
    p.bench.backend = BENCH_GRAPH, p.bench.launches_per_sample = 40, p.bench.l2_flush = true;
    p.kernel_symbol = "tilec_mm_0123abcd_split";
    terminal_text(&p, buf, sizeof buf);
    CHECK(strstr(buf, "before every replay") && strstr(buf, "the other 39 a warm L2"), "graph: the flush is not said");
    CHECK(strstr(buf, "[its split variant, which a launch at these sizes takes]"), "the variant run is not said");
    CHECK(!strstr(buf, "tile model"), "tiles said chosen for the sizes when they were not");
    /* tunables the tile model chose for the sizes: the Configuration says so */
    p.tiles_for_sizes = true;
    terminal_text(&p, buf, sizeof buf);
    CHECK(strstr(buf, "(tunables chosen for these sizes by the tile model"), "the tile model's choice is not said");
    p.tiles_for_sizes = false;
    CHECK(prof_write_markdown(path, &p, err), "%s", err);
    text = slurp(path, NULL);
    CHECK(text && strstr(text, "the other 39 a warm L2"), "markdown: the graph's flush is not said");
    free(text);
}

static void test_unwritable(KernelInfo *k) {
    Profile p;
    make_profile(&p, k);
    char err[256], path[160];
    bool (*const writers[])(const char *, const Profile *, char *) = {prof_write_json, prof_write_markdown,
                                                                      prof_write_trace, prof_write_roofline_svg};
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
        /* A folder that does not exist. */
        snprintf(path, sizeof path, "%s/missing/out.file", tmpdir);
        err[0] = 0;
        CHECK(!writers[i](path, &p, err), "writer %zu wrote into a missing folder", i);
        CHECK(err[0] && strstr(err, "missing/out.file") && err[strlen(err) - 1] == '.', "err \"%s\"", err);
        CHECK(!exists(path), "file left at %s", path);
        /* A path that is a folder: the rename fails, the temporary goes. */
        snprintf(path, sizeof path, "%s/adir", tmpdir);
        mkdir(path, 0700);
        err[0] = 0;
        CHECK(!writers[i](path, &p, err), "writer %zu replaced a folder", i);
        CHECK(err[0] != 0, "no err");
        CHECK(count_files(".tmp.") == 0, "a temporary file was left behind");
        rmdir(path);
    }
    err[0] = 0;
    CHECK(!prof_write_json("", &p, err) && err[0], "empty path");
}

static void remove_tmpdir(void) {
    DIR *d = opendir(tmpdir);
    char path[512];
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        if (remove(path) != 0) rmdir(path);
    }
    if (d) closedir(d);
    rmdir(tmpdir);
}

/* test_report --show DIR: the sample profile's terminal report on stdout and
 * its files in DIR (p.json, p.trace.json, report.md, roof.svg), to look at. */
static int show(const char *dir) {
    Ctx c;
    KernelInfo *k = load(&c, "kernel mm(A: f16[M, K], B: f16[K, N], out C: f32[M, N], alpha: f32)\n"
                             "    where M = 4096, N = 4096, K = 2048, alpha = 0.5\n"
                             "    tune BM = 64 in [64, 128]\n"
                             "{ }\n"
                             "reference { C[i, j] = alpha * sum(k: A[i, k] * B[k, j]); }\n");
    Profile p;
    make_profile(&p, k);
    prof_report_terminal(stdout, &p);
    char path[512], err[256];
    bool ok = true;
    snprintf(path, sizeof path, "%s/p.json", dir);
    ok &= prof_write_json(path, &p, err);
    snprintf(path, sizeof path, "%s/p.trace.json", dir);
    ok &= prof_write_trace(path, &p, err);
    snprintf(path, sizeof path, "%s/report.md", dir);
    ok &= prof_write_markdown(path, &p, err);
    snprintf(path, sizeof path, "%s/roof.svg", dir);
    ok &= prof_write_roofline_svg(path, &p, err);
    if (!ok) fprintf(stderr, "test_report: %s\n", err);
    ctx_free(&c);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--show")) return show(argv[2]);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_report.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_work();
    test_peaks();
    test_bound();
    Ctx c;
    KernelInfo *k = load(&c, "kernel mm(A: f16[M, K], B: f16[K, N], out C: f32[M, N], alpha: f32)\n"
                             "    where M = 4096, N = 4096, K = 2048, alpha = 0.5\n"
                             "    tune BM = 64 in [64, 128]\n"
                             "{ }\n"
                             "reference { C[i, j] = alpha * sum(k: A[i, k] * B[k, j]); }\n");
    test_diagnose(k);
    test_diagnose_more(k);
    test_summarise(k);
    test_json(k);
    test_trace(k);
    test_stages(k);
    test_svg_markdown_terminal(k);
    test_unwritable(k);
    ctx_free(&c);
    remove_tmpdir();
    printf("test_report: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
