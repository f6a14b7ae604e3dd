/* test_bench.c - checks the profiler's timing engine (profiler/bench.c) and
 * the stream and graph calls it adds to runtime/driver.c.
 *
 * Without a GPU it checks that every call fails with one plain sentence and
 * exits 77, ctest's skip code (with TILEC_REQUIRE_GPU=1 that case fails).
 *
 * With a GPU it compiles small kernels with NVRTC for the device's own
 * architecture and checks: the measured SM clock (500 to 3000 MHz); both
 * backends on a bandwidth kernel with the L2 flush (sample counts, order
 * statistics, flush size and times, clock, warm-up); the stopping rule (on
 * noise, on the time cap); that graph mode times a ~5 us kernel below event
 * mode; and the consistency check: a deterministic kernel and an
 * accumulating one pass, a kernel whose output depends on the order in which
 * blocks reach an atomic counter fails.
 * Exit 0: all passed; 1: a check failed; 77: skipped. */
#include "profiler.h"
#include "runtime.h"
#include "gpu_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- argument errors, with or without a GPU ---- */

static void test_refused_arguments(void) {
    char err[256];
    BenchResult r;
    const long long grid[3] = {1, 1, 1};
    int dummy = 0;
    RtKernel fake = {.fn = &dummy};  /* never launched: every call below fails before that */
    BenchOptions o = prof_bench_defaults();
    check(o.backend == BENCH_AUTO && o.max_noise == 0.005 && o.min_samples == 10 && o.max_time_s == 2.0 &&
              o.l2_flush,
          "prof_bench_defaults: auto backend, 0.5% noise, 10 samples, 2 s, L2 flush");

    check_error(prof_bench(NULL, grid, 32, 0, NULL, 1 << 20, &o, &r, err), err, "prof_bench without a kernel");
    check(r.samples == 0 && r.sample == NULL, "a failed prof_bench leaves the result zeroed");
    BenchOptions bad = o;
    bad.min_samples = 0;
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 1 << 20, &bad, &r, err), err, "prof_bench with 0 samples");
    bad = o;
    bad.max_noise = NAN;
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 1 << 20, &bad, &r, err), err, "prof_bench with a NaN noise limit");
    bad = o;
    bad.max_time_s = 0;
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 1 << 20, &bad, &r, err), err, "prof_bench with no time");
    bad = o;
    bad.backend = (BenchBackend)7;
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 1 << 20, &bad, &r, err), err, "prof_bench with backend 7");
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 0, &o, &r, err), err, "prof_bench flushing an L2 of 0 bytes");
    prof_bench_free(&r);
    prof_bench_free(&r);  /* harmless twice */
    prof_bench_free(NULL);

    uint64_t out = 0x1000;
    size_t bytes = 16;
    bool consistent = true;
    check_error(prof_consistency(&fake, grid, 32, 0, NULL, &out, &bytes, NULL, 1, 1, &consistent, err), err,
                "prof_consistency with 1 run");
    check(!consistent, "a failed prof_consistency says 'not consistent'");
    check_error(prof_consistency(&fake, grid, 32, 0, NULL, &out, &bytes, NULL, 0, 5, &consistent, err), err,
                "prof_consistency without outputs");
    check_error(prof_consistency(NULL, grid, 32, 0, NULL, &out, &bytes, NULL, 1, 5, &consistent, err), err,
                "prof_consistency without a kernel");
    size_t no_bytes = 0;
    consistent = false;
    bool ok = prof_consistency(&fake, grid, 32, 0, NULL, &out, &no_bytes, NULL, 1, 5, &consistent, err);
    check(ok && consistent, "prof_consistency of 0 output bytes: consistent, without running anything");
}

/* ---- without a GPU ---- */

static int test_without_gpu(const char *open_error) {
    printf("no usable GPU: %s\n", open_error);
    check(one_sentence(open_error), "rt_device_open's error is one sentence");
    test_refused_arguments();

    char err[256];
    const long long grid[3] = {1, 1, 1};
    int dummy = 0;
    RtKernel fake = {.fn = &dummy};
    BenchResult r;
    BenchOptions o = prof_bench_defaults();
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 1 << 20, &o, &r, err), err, "prof_bench without a device");
    check(r.samples == 0 && r.sample == NULL, "the result stays zeroed");
    o.backend = BENCH_GRAPH;
    o.l2_flush = false;
    check_error(prof_bench(&fake, grid, 32, 0, NULL, 0, &o, &r, err), err, "graph-mode prof_bench without a device");
    uint64_t out = 0x1000;
    size_t bytes = 16;
    bool consistent = true;
    check_error(prof_consistency(&fake, grid, 32, 0, NULL, &out, &bytes, NULL, 1, 5, &consistent, err), err,
                "prof_consistency without a device");
    double mhz = prof_measure_sm_clock(err);
    check_error(mhz > 0, err, "prof_measure_sm_clock without a device");
    check(mhz == 0, "prof_measure_sm_clock gives 0 when it cannot measure");

    void *stream = (void *)1;
    check_error(rt_stream_create(&stream, err), err, "rt_stream_create");
    check(stream == NULL, "rt_stream_create leaves the stream NULL");
    check_error(rt_capture_begin(NULL, err), err, "rt_capture_begin on the default stream");
    RtGraph g = {NULL};
    check_error(rt_graph_launch(&g, NULL, err), err, "rt_graph_launch of no graph");
    rt_graph_destroy(&g);   /* must do nothing */
    rt_stream_destroy(NULL); /* must do nothing */

    const char *require = getenv("TILEC_REQUIRE_GPU");
    if (require && strcmp(require, "1") == 0) {
        printf("FAILED: TILEC_REQUIRE_GPU=1 but the GPU could not be opened\n");
        return 1;
    }
    if (failures) {
        printf("FAILED (%d failed)\n", failures);
        return 1;
    }
    printf("SKIPPED: no CUDA driver or device on this machine\n");
    return EXIT_SKIP;
}

/* ---- with a GPU ---- */

static const char *kernels_source =
    "__device__ __forceinline__ unsigned long long gtimer() {\n"
    "    unsigned long long t;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "    return t;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void axpb(const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n"
    "\n"
    "/* Reads and writes y: deterministic, but a second run on its own output differs. */\n"
    "extern \"C\" __global__ void add_one(float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] += 1.0f;\n"
    "}\n"
    "\n"
    "/* One warp busy for `ns` nanoseconds of the GPU timer (~5 us here). */\n"
    "extern \"C\" __global__ void spin(unsigned *out, unsigned long long ns) {\n"
    "    unsigned long long t0 = gtimer();\n"
    "    unsigned spins = 0;\n"
    "    while (gtimer() - t0 < ns) spins++;\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = spins;\n"
    "}\n"
    "\n"
    "/* Each block waits a time-dependent number of cycles, then takes a ticket\n"
    " * from a shared counter: out[block] depends on the order the blocks arrive. */\n"
    "extern \"C\" __global__ void racy(unsigned *counter, unsigned *out) {\n"
    "    if (threadIdx.x != 0) return;\n"
    "    unsigned h = ((unsigned)(gtimer() >> 5) ^ (blockIdx.x * 2654435761u)) * 2246822519u;\n"
    "    long long c0 = clock64();\n"
    "    while (clock64() - c0 < (long long)(h >> 22)) { }\n"
    "    out[blockIdx.x] = atomicAdd(counter, 1u);\n"
    "}\n"
    "\n"
    "/* Writes its output only at its first launch: state kept from launch to launch. */\n"
    "__device__ unsigned once_launched;\n"
    "extern \"C\" __global__ void once(unsigned *out) {\n"
    "    if (!once_launched) out[threadIdx.x] = threadIdx.x + 1;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) once_launched = 1;\n"
    "}\n";

typedef struct Kernels {
    RtKernel axpb, add_one, spin, racy, once;
} Kernels;

static bool compile_for(const RtDevice *d, RtCompileResult *r) {
    char arch[16];
    rt_device_arch(d, arch);
    RtCompileOptions opt = {.arch = arch, .want_cubin = true};
    bool ok = rt_compile(kernels_source, "test_bench.cu", &opt, r);
    printf("NVRTC %s compiled the kernels for %s: %s\n", rt_nvrtc_version(), arch, ok ? "ok" : r->error);
    check(ok, "the test kernels compile");
    if (!ok) printf("%s\n", r->log);
    return ok;
}


static void print_result(const char *what, const BenchResult *r) {
    printf("  %s: %d samples, median %.4f ms, min %.4f, p95 %.4f, max %.4f, mean %.4f, rel stddev %.4f, "
           "%d warm-up runs in %.1f ms, %d launches per sample, flush %lld bytes, SM clock %.0f MHz, "
           "%d throttled, stopped on %s\n",
           what, r->samples, r->median_ms, r->min_ms, r->p95_ms, r->max_ms, r->mean_ms, r->rel_stddev,
           r->warmup_runs, r->warmup_ms, r->launches_per_sample, r->l2_flush_bytes, r->sm_clock_mhz,
           r->throttled_samples, r->stopped_on_noise ? "noise" : "the time cap");
}

/* What every successful result must satisfy. */
static void check_result(const char *what, const BenchResult *r, const BenchOptions *o, const RtDevice *d) {
    char line[256];
#define CHECK_R(cond, text)                                   \
    do {                                                      \
        snprintf(line, sizeof line, "%s: %s", what, text);    \
        check(cond, line);                                    \
    } while (0)
    print_result(what, r);
    CHECK_R(r->backend == o->backend || (o->backend == BENCH_AUTO && r->backend_auto && r->backend != BENCH_AUTO),
            "the result names its backend");
    CHECK_R(r->samples >= o->min_samples && r->samples >= 10 && r->samples <= 10000 && r->sample,
            "at least min_samples (10) samples");
    CHECK_R(r->min_ms > 0 && r->min_ms <= r->median_ms && r->median_ms <= r->p95_ms && r->p95_ms <= r->max_ms,
            "0 < min <= median <= p95 <= max");
    CHECK_R(r->min_ms <= r->mean_ms && r->mean_ms <= r->max_ms, "min <= mean <= max");
    CHECK_R(r->rel_stddev >= 0 && isfinite(r->rel_stddev), "rel_stddev >= 0");
    if (r->stopped_on_noise)
        CHECK_R(r->rel_stddev <= o->max_noise * (1 + 1e-9) + 1e-12, "stopped on noise with rel_stddev <= max_noise");
    CHECK_R(r->warmup_runs >= 3 && r->warmup_ms >= 20, "the warm-up ran at least 3 launches and 20 ms");
    if (o->backend == BENCH_EVENT)
        CHECK_R(r->launches_per_sample == 1, "one launch per sample");
    else
        CHECK_R(r->launches_per_sample >= 1 && r->launches_per_sample <= 1000 &&
                    (r->launches_per_sample == 1000 || r->launches_per_sample * r->median_ms >= 0.040),
                "1 to 1000 launches per replay, a replay of ~50 us or more");
    CHECK_R(r->l2_flush == o->l2_flush && r->l2_flush_bytes == (o->l2_flush ? d->l2_bytes : 0),
            "the flush buffer is the device's L2 size");
    bool flush_times = true, increasing = true, clocks = true, flags = true;
    int throttled = 0;
    for (int i = 0; i < r->samples; i++) {
        const BenchSample *s = &r->sample[i];
        flush_times = flush_times && (o->l2_flush ? s->flush_us > 0 : s->flush_us == 0);
        increasing = increasing && s->start_us >= 0 && (i == 0 || s->start_us > r->sample[i - 1].start_us);
        clocks = clocks && s->sm_clock_mhz > 0;
        flags = flags && s->throttled == (s->sm_clock_mhz < 0.95 * r->sm_clock_mhz);
        throttled += s->throttled;
    }
    CHECK_R(flush_times, o->l2_flush ? "every sample has a flush time" : "no sample has a flush time");
    CHECK_R(increasing, "sample start times increase");
    CHECK_R(clocks, "every sample has a clock reading");
    CHECK_R(r->sm_clock_mhz > 500 && r->sm_clock_mhz < 3000, "the median SM clock is 500 to 3000 MHz");
    CHECK_R(flags && throttled == r->throttled_samples, "throttled samples are those below 95% of the median clock");
#undef CHECK_R
}

static void test_clock(void) {
    char err[256] = "";
    double a = prof_measure_sm_clock(err);
    if (a <= 0) printf("  error: %s\n", err);
    double b = prof_measure_sm_clock(err);
    printf("  SM clock: %.1f MHz, then %.1f MHz\n", a, b);
    check(a > 500 && a < 3000, "prof_measure_sm_clock: 500 to 3000 MHz");
    check(b > 500 && b < 3000, "a second measurement (the kernel is cached) also");
}

static void test_bandwidth(const RtDevice *d, const Kernels *k) {
    enum { N = 1 << 24, BLOCK = 256 };  /* 64 MiB in, 64 MiB out: well beyond L2 */
    char err[256];
    uint64_t x = 0, y = 0;
    bool ok = rt_malloc(&x, (size_t)N * 4, err) && rt_malloc(&y, (size_t)N * 4, err) &&
              rt_memset8(x, 0x3f, (size_t)N * 4, err) && rt_memset8(y, 0, (size_t)N * 4, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "two 64 MiB buffers");
    if (!ok) return;
    int n = N;
    void *params[] = {&x, &y, &n};
    const long long grid[3] = {N / BLOCK, 1, 1};

    BenchOptions o = prof_bench_defaults();
    o.max_time_s = 0.5;
    BenchResult r;
    ok = prof_bench(&k->axpb, grid, BLOCK, 0, params, d->l2_bytes, &o, &r, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "prof_bench, events, L2 flush");
    check(!ok || (r.backend == BENCH_EVENT && r.backend_auto), "the default takes events for a ~30 us kernel");
    if (ok) {
        check_result("events", &r, &o, d);
        double gbps = 2.0 * N * 4 / (r.median_ms * 1e6);
        printf("  axpb: %.0f GB/s\n", gbps);
        check(gbps > 50 && gbps < 20000, "a plausible bandwidth");
    }
    prof_bench_free(&r);
    prof_bench_free(&r);

    o.backend = BENCH_GRAPH;
    ok = prof_bench(&k->axpb, grid, BLOCK, 0, params, d->l2_bytes, &o, &r, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "prof_bench, graph, L2 flush");
    if (ok) check_result("graph", &r, &o, d);
    prof_bench_free(&r);

    /* A noise limit of 50% is met at once, one of 0 never (event timings vary). */
    o = prof_bench_defaults();
    o.max_noise = 0.5;
    ok = prof_bench(&k->axpb, grid, BLOCK, 0, params, d->l2_bytes, &o, &r, err);
    if (!ok) printf("  error: %s\n", err);
    if (ok) printf("  50%% noise limit: %d samples\n", r.samples);
    /* min_samples exactly, unless an outlier among the first 10 (another user of the GPU) delays it. */
    check(ok && r.stopped_on_noise && r.samples >= o.min_samples && r.samples <= 2 * o.min_samples,
          "a 50% noise limit stops on noise at (about) min_samples");
    prof_bench_free(&r);
    o.max_noise = 0;
    o.max_time_s = 0.2;
    o.l2_flush = false;
    ok = prof_bench(&k->axpb, grid, BLOCK, 0, params, d->l2_bytes, &o, &r, err);
    if (!ok) printf("  error: %s\n", err);
    if (ok) print_result("no noise limit, 0.2 s", &r);
    check(ok && !r.stopped_on_noise && r.samples >= 10, "a noise limit of 0 stops on the time cap");
    if (ok) check_result("events, no flush", &r, &o, d);
    prof_bench_free(&r);

    /* Consistency: deterministic kernels pass, in-place ones too (their
     * output is put back before each run). */
    bool consistent = false;
    size_t bytes = (size_t)N * 4;
    ok = prof_consistency(&k->axpb, grid, BLOCK, 0, params, &y, &bytes, NULL, 1, 5, &consistent, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && consistent, "prof_consistency: axpb is consistent over 5 runs");
    const bool poisoned = true;
    consistent = false;
    ok = prof_consistency(&k->axpb, grid, BLOCK, 0, params, &y, &bytes, &poisoned, 1, 5, &consistent, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && consistent, "prof_consistency: axpb is consistent over 5 runs from poisoned outputs");
    void *in_place[] = {&y, &n};
    consistent = false;
    ok = prof_consistency(&k->add_one, grid, BLOCK, 0, in_place, &y, &bytes, NULL, 1, 5, &consistent, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && consistent, "prof_consistency: y += 1 is consistent (y is restored before each run)");
    /* x is all 0x3f bytes; y was 2x + 1 before the in-place runs. */
    const uint32_t x_bits = 0x3f3f3f3fu;
    float x_value, first = 0;
    memcpy(&x_value, &x_bits, sizeof x_value);
    ok = rt_memcpy_dtoh(&first, y, sizeof first, err);
    check(ok && first == (2.0f * x_value + 1.0f) + 1.0f, "afterwards y holds one run's result");
    rt_free(x);
    rt_free(y);
}

static void test_short_kernel(const RtDevice *d, const Kernels *k) {
    char err[256];
    uint64_t out = 0;
    bool ok = rt_malloc(&out, 64 * sizeof(unsigned), err);
    unsigned long long ns = 5000;
    void *params[] = {&out, &ns};
    const long long grid[3] = {1, 1, 1};
    BenchOptions o = prof_bench_defaults();
    o.backend = BENCH_EVENT;
    o.l2_flush = false;  /* launch overhead alone separates the backends */
    o.max_time_s = 0.5;
    BenchResult ev, gr;
    memset(&ev, 0, sizeof ev);
    memset(&gr, 0, sizeof gr);
    ok = ok && prof_bench(&k->spin, grid, 32, 0, params, d->l2_bytes, &o, &ev, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "prof_bench of a ~5 us kernel, events");
    if (ok) check_result("5 us, events", &ev, &o, d);
    o.backend = BENCH_GRAPH;
    bool ok2 = ok && prof_bench(&k->spin, grid, 32, 0, params, d->l2_bytes, &o, &gr, err);
    if (ok && !ok2) printf("  error: %s\n", err);
    check(ok2, "prof_bench of a ~5 us kernel, graph");
    if (ok2) {
        check_result("5 us, graph", &gr, &o, d);
        printf("  ~5 us kernel: events %.2f us, graph %.2f us per kernel (%d per replay)\n", ev.median_ms * 1e3,
               gr.median_ms * 1e3, gr.launches_per_sample);
        check(gr.median_ms < ev.median_ms, "graph mode times the ~5 us kernel below event mode");
        check(gr.median_ms > 0.003 && gr.median_ms < 0.010, "graph mode gives 3 to 10 us for it");
    }
    prof_bench_free(&ev);
    prof_bench_free(&gr);
    o.backend = BENCH_AUTO;
    ok2 = ok && prof_bench(&k->spin, grid, 32, 0, params, d->l2_bytes, &o, &gr, err);
    check(ok2 && gr.backend == BENCH_GRAPH && gr.backend_auto, "the default takes graphs for a ~5 us kernel");
    prof_bench_free(&gr);
    rt_free(out);
}

/* A kernel whose later launches leave its output unwritten: the same each
 * time, so only the comparison with the first (verified) results tells. */
static void test_stale_state(const Kernels *k) {
    char err[256];
    uint64_t out = 0;
    const size_t bytes = 32 * sizeof(unsigned);
    const long long grid[3] = {1, 1, 1};
    void *params[] = {&out};
    bool ok = rt_malloc(&out, bytes, err) && rt_memset8(out, 0xFF, bytes, err) &&
              rt_launch(&k->once, grid, 32, 0, params, NULL, err) && rt_synchronize(err);
    if (!ok) printf("  error: %s\n", err);
    bool consistent = false;
    ok = ok && prof_consistency(&k->once, grid, 32, 0, params, &out, &bytes, NULL, 1, 5, &consistent, err);
    check(ok && consistent, "prof_consistency: restored outputs cannot tell a kernel that stopped writing");
    const bool poisoned = true;
    consistent = true;
    ok = ok && prof_consistency(&k->once, grid, 32, 0, params, &out, &bytes, &poisoned, 1, 5, &consistent, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && !consistent, "prof_consistency: poisoned outputs tell it (NOT consistent)");
    rt_free(out);
}

static void test_race(const Kernels *k) {
    enum { BLOCKS = 4096 };
    char err[256];
    uint64_t counter = 0, out = 0;
    bool ok = rt_malloc(&counter, sizeof(unsigned), err) && rt_malloc(&out, BLOCKS * sizeof(unsigned), err) &&
              rt_memset8(counter, 0, sizeof(unsigned), err) && rt_memset8(out, 0, BLOCKS * sizeof(unsigned), err);
    void *params[] = {&counter, &out};
    const long long grid[3] = {BLOCKS, 1, 1};
    /* The counter is an output too, so each run starts it at 0 again: only
     * the order of the blocks can make runs differ. */
    const uint64_t outputs[2] = {out, counter};
    const size_t bytes[2] = {BLOCKS * sizeof(unsigned), sizeof(unsigned)};
    bool consistent = true;
    ok = ok && prof_consistency(&k->racy, grid, 32, 0, params, outputs, bytes, NULL, 2, 10, &consistent, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && !consistent, "prof_consistency: a kernel racing for a counter is NOT consistent over 10 runs");
    unsigned final = 0;
    ok = rt_memcpy_dtoh(&final, counter, sizeof final, err);
    check(ok && final == BLOCKS, "the counter was reset before the last run");
    rt_free(counter);
    rt_free(out);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char err[256] = "";
    RtDevice dev;
    if (!rt_device_open(&dev, err)) return test_without_gpu(err);
    printf("device: %s, sm_%d%d, L2 %lld KiB, peak SM clock %d MHz\n", dev.name, dev.cc_major, dev.cc_minor,
           dev.l2_bytes >> 10, dev.sm_clock_khz / 1000);
    test_refused_arguments();

    RtCompileResult compiled;
    memset(&compiled, 0, sizeof compiled);
    if (!compile_for(&dev, &compiled)) {
        rt_compile_result_free(&compiled);
        return 1;
    }
    RtModule *m = NULL;
    bool ok = rt_module_load(compiled.cubin, compiled.cubin_size, &m, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "rt_module_load of the NVRTC cubin");
    Kernels k;
    if (!ok || !get_kernel(m, "axpb", &k.axpb) || !get_kernel(m, "add_one", &k.add_one) ||
        !get_kernel(m, "spin", &k.spin) || !get_kernel(m, "racy", &k.racy) || !get_kernel(m, "once", &k.once)) {
        rt_compile_result_free(&compiled);
        printf("FAILED (%d failed)\n", failures);
        return 1;
    }
    test_clock();
    test_bandwidth(&dev, &k);
    test_short_kernel(&dev, &k);
    test_race(&k);
    test_stale_state(&k);
    check(rt_synchronize(err), "the context is still usable");
    rt_module_unload(m);
    rt_compile_result_free(&compiled);
    printf("%s (%d failed)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
