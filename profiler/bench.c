/* bench.c - timing one kernel launch for `tilec --profile` (DESIGN.md,
 * Profiler): warm-up, L2 flush, a CUDA-event and a CUDA-graph backend, a
 * stopping rule on relative noise with a time cap, order statistics, the SM
 * clock measured in a kernel with throttled samples flagged, and a bitwise
 * consistency check of repeated runs.
 *
 * Nothing here changes GPU clocks, power limits or modes: the card is shared,
 * so it is measured as found, and the measured clock says how it was found.
 *
 * Every function fails with one plain sentence in err (which may be NULL). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profiler.h"
#include "runtime.h"

enum {
    WARMUP_MIN_RUNS = 3,
    MAX_SAMPLES = 10000,
    CLOCK_EVERY_SAMPLES = 10,       /* the SM clock is measured before sample 0, 10, 20, ... */
    GRAPH_MAX_LAUNCHES = 1000,
    GRAPH_CALIBRATION_ROUNDS = 4,   /* graphs built at most while looking for the launch count */
    GRAPH_CALIBRATION_REPLAYS = 3,  /* timed replays per round, the fastest counts */
    CLOCK_WINDOW_NS = 20000,        /* how long the clock kernel counts cycles */
    CONSISTENCY_CHUNK = 16 << 20,   /* bytes compared per copy back */
};
static const double WARMUP_MIN_S = 0.020;
static const double GRAPH_TARGET_MS = 0.050;  /* a graph replay lasts at least this long */
static const double THROTTLE_FRACTION = 0.95; /* of the median clock (throttled), of the fastest (full clock) */



static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value at quantile q of n sorted values, interpolated linearly between
 * the two nearest ranks (numpy's default). */
static double quantile_sorted(const double *v, int n, double q) {
    double pos = q * (double)(n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : n - 1;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

BenchOptions prof_bench_defaults(void) {
    return (BenchOptions){.backend = BENCH_AUTO, .max_noise = 0.005, .min_samples = 10, .max_time_s = 2.0,
                          .l2_flush = true};
}

/* ---- the SM clock ---- */

/* The driver reports only the maximum SM clock, and reading the actual one
 * through NVML or nvidia-smi is outside tilec; a kernel that counts SM cycles
 * (clock64) over a span of the GPU's nanosecond timer (%globaltimer) gives
 * the clock the card really runs at, without changing anything. Both reads
 * are aligned to a tick of %globaltimer (it advances in steps of up to a
 * microsecond), so the quantisation error is a few cycles in ~20 us. If the
 * timer stands still, the kernel gives up after about 2e9 cycles and writes 0. */
static const char clock_kernel_source[] =
    "__device__ __forceinline__ unsigned long long tilec_globaltimer() {\n"
    "    unsigned long long t;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "    return t;\n"
    "}\n"
    "extern \"C\" __global__ void tilec_sm_clock(unsigned long long *out, unsigned long long window_ns) {\n"
    "    const long long give_up = 2000000000LL;\n"
    "    out[0] = 0;\n"
    "    out[1] = 0;\n"
    "    long long start = clock64();\n"
    "    unsigned long long before = tilec_globaltimer(), g0, g1;\n"
    "    do {\n"
    "        g0 = tilec_globaltimer();\n"
    "        if (clock64() - start > give_up) return;\n"
    "    } while (g0 == before);\n"
    "    long long c0 = clock64();\n"
    "    do {\n"
    "        g1 = tilec_globaltimer();\n"
    "        if (clock64() - c0 > give_up) return;\n"
    "    } while (g1 - g0 < window_ns);\n"
    "    long long c1 = clock64();\n"
    "    out[0] = g1 - g0;\n"
    "    out[1] = (unsigned long long)(c1 - c0);\n"
    "}\n";

/* Compiled and loaded once per process (the first successful device open);
 * a failure to build it is remembered. Measurements share one result buffer,
 * hence the lock. */
static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    bool ready;
    char error[256];
    RtModule *module;
    RtKernel kernel;
    uint64_t out;  /* two unsigned long longs: nanoseconds, cycles */
} sm_clock = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void build_clock_kernel(void) {
    char err[256] = "";
    RtDevice dev;
    if (!rt_device_open(&dev, err)) {
        snprintf(sm_clock.error, sizeof sm_clock.error, "%s", err);
        return;
    }
    /* The plain sm_XY target: the kernel needs nothing architecture-specific. */
    char arch[32];
    snprintf(arch, sizeof arch, "sm_%d%d", dev.cc_major, dev.cc_minor);
    RtCompileOptions opt = {.arch = arch, .want_cubin = true};
    RtCompileResult compiled;
    memset(&compiled, 0, sizeof compiled);
    if (!rt_compile(clock_kernel_source, "tilec_sm_clock.cu", &opt, &compiled)) {
        snprintf(sm_clock.error, sizeof sm_clock.error, "could not compile the SM clock kernel for %s: %.180s", arch,
                 compiled.error);
        rt_compile_result_free(&compiled);
        return;
    }
    bool ok = rt_module_load(compiled.cubin, compiled.cubin_size, &sm_clock.module, err) &&
              rt_kernel_get(sm_clock.module, "tilec_sm_clock", &sm_clock.kernel, err) &&
              rt_malloc(&sm_clock.out, 2 * sizeof(unsigned long long), err);
    rt_compile_result_free(&compiled);
    if (!ok) {
        snprintf(sm_clock.error, sizeof sm_clock.error, "could not load the SM clock kernel: %.200s", err);
        rt_module_unload(sm_clock.module);
        sm_clock.module = NULL;
        return;
    }
    sm_clock.ready = true;
}

double prof_measure_sm_clock(char err[256]) {
    RtDevice dev;
    /* The device is checked first, so a device that fails to open now is
     * not remembered as a broken clock kernel for later calls. */
    if (!rt_device_open(&dev, err)) return 0;
    pthread_once(&sm_clock.once, build_clock_kernel);
    if (!sm_clock.ready) {
        rt_fail(err, "%s", sm_clock.error);
        return 0;
    }
    unsigned long long window = CLOCK_WINDOW_NS, got[2] = {0, 0};
    void *params[] = {&sm_clock.out, &window};
    const long long grid[3] = {1, 1, 1};
    pthread_mutex_lock(&sm_clock.lock);
    /* One thread on the legacy default stream; the synchronous copy back
     * waits for it. */
    bool ok = rt_launch(&sm_clock.kernel, grid, 1, 0, params, NULL, err) &&
              rt_memcpy_dtoh(got, sm_clock.out, sizeof got, err);
    pthread_mutex_unlock(&sm_clock.lock);
    if (!ok) return 0;
    if (got[0] == 0 || got[1] == 0) {
        rt_fail(err, "the SM clock kernel saw the GPU timer stand still");
        return 0;
    }
    double mhz = (double)got[1] / (double)got[0] * 1e3;  /* cycles per ns, in MHz */
    if (!(mhz > 1 && mhz < 1e4)) {
        rt_fail(err, "the SM clock kernel measured an implausible %.6g MHz", mhz);
        return 0;
    }
    return mhz;
}

/* ---- the benchmark ---- */

typedef struct Bench {
    BenchLaunch launch;       /* one unit of the timed work, on a stream */
    void *arg;
    BenchBackend backend;
    void *stream;
    RtEvent flush_start, start, end;
    uint64_t flush_buffer;
    size_t flush_bytes;       /* 0: no flush */
    RtGraph graph;
    int launches;             /* kernels per timed unit: 1, or the graph's K */
    char *err;
} Bench;

static bool launch_kernel(Bench *b) { return b->launch(b->arg, b->stream, b->err); }

typedef struct KernelLaunch {
    const RtKernel *fn;
    const long long *grid;
    long long block, smem;
    void **params;
} KernelLaunch;

static bool launch_one_kernel(void *arg, void *stream, char err[256]) {
    KernelLaunch *k = arg;
    return rt_launch(k->fn, k->grid, k->block, k->smem, k->params, stream, err);
}

/* Times one unit of work (a launch, or a replay of the graph) on the stream
 * with an event pair and waits for it; the result is per kernel. With a
 * flush, the memset goes on the same stream just before the start event:
 * stream order keeps it out of the timed interval, and since the host has
 * already queued the launch while the memset runs, the launch's own latency
 * stays out of it too. The flush itself is timed by the events around it. */
static bool time_unit(Bench *b, bool graph, unsigned char flush_value, double *ms, double *flush_us) {
    *ms = 0;
    if (flush_us) *flush_us = 0;
    bool flush = b->flush_bytes > 0 && flush_us;
    if (flush && (!rt_event_record(&b->flush_start, b->stream, b->err) ||
                  !rt_memset8_async(b->flush_buffer, flush_value, b->flush_bytes, b->stream, b->err)))
        return false;
    if (!rt_event_record(&b->start, b->stream, b->err)) return false;
    if (!(graph ? rt_graph_launch(&b->graph, b->stream, b->err) : launch_kernel(b))) return false;
    if (!rt_event_record(&b->end, b->stream, b->err)) return false;
    float unit_ms = 0, flush_ms = 0;
    if (!rt_event_elapsed_ms(&b->start, &b->end, &unit_ms, b->err)) return false;
    if (flush && !rt_event_elapsed_ms(&b->flush_start, &b->start, &flush_ms, b->err)) return false;
    *ms = (double)unit_ms / (graph ? b->launches : 1);
    if (flush) *flush_us = (double)flush_ms * 1e3;
    return true;
}

/* The first launches after a module load pay for lazy loading of the code,
 * instruction-cache misses and TLB fills, and the GPU may still be clocking
 * up from idle, so none of them is timed: launches continue until at least 3
 * ran and 20 ms passed. Returns the fastest (event-timed) launch in *best_ms. */
static bool warm_up(Bench *b, int *runs, double *best_ms) {
    double t0 = rt_now_s();
    *best_ms = INFINITY;
    for (*runs = 0; *runs < WARMUP_MIN_RUNS || rt_now_s() - t0 < WARMUP_MIN_S;) {
        double ms;
        if (!time_unit(b, false, 0, &ms, NULL)) return false;
        ++*runs;
        if (ms < *best_ms) *best_ms = ms;
    }
    return true;
}

/* Records `count` launches of the kernel into b->graph. */
static bool build_graph(Bench *b, int count) {
    rt_graph_destroy(&b->graph);
    if (!rt_capture_begin(b->stream, b->err)) return false;
    for (int i = 0; i < count; i++) {
        if (!launch_kernel(b)) {
            char ignored[256];
            rt_capture_end(b->stream, NULL, ignored);  /* the stream must leave capture mode */
            return false;
        }
    }
    b->launches = count;
    return rt_capture_end(b->stream, &b->graph, b->err);
}

/* Graph mode exists because a launch costs a few microseconds of host and
 * front-end work, which event timing of a microsecond-scale kernel counts
 * (up to 2x); a graph replays K launches with one host call and per-kernel
 * time is replay time / K. K is chosen so a replay lasts at least ~50 us
 * (at most 1000 launches): first from the warm-up's fastest launch, which
 * overestimates short kernels, then corrected from timed replays. The
 * calibration replays also upload the graph, so no first replay is timed. */
static bool calibrate_graph(Bench *b, double kernel_ms, int *untimed_runs) {
    double estimate = kernel_ms > 1e-4 ? kernel_ms : 1e-4;
    double want = ceil(GRAPH_TARGET_MS / estimate);
    int count = want >= GRAPH_MAX_LAUNCHES ? GRAPH_MAX_LAUNCHES : (int)want;
    for (int round = 0; round < GRAPH_CALIBRATION_ROUNDS; round++) {
        if (!build_graph(b, count)) return false;
        if (!rt_graph_launch(&b->graph, b->stream, b->err) || !rt_stream_synchronize(b->stream, b->err))
            return false;
        double replay_ms = INFINITY;
        for (int i = 0; i < GRAPH_CALIBRATION_REPLAYS; i++) {
            double per_kernel;
            if (!time_unit(b, true, 0, &per_kernel, NULL)) return false;
            if (per_kernel * count < replay_ms) replay_ms = per_kernel * count;
        }
        *untimed_runs += (1 + GRAPH_CALIBRATION_REPLAYS) * count;
        if (replay_ms >= 0.9 * GRAPH_TARGET_MS || count >= GRAPH_MAX_LAUNCHES) return true;
        double next = replay_ms > 0 ? ceil(count * GRAPH_TARGET_MS / replay_ms * 1.1) : GRAPH_MAX_LAUNCHES;
        if (next <= count) next = count + 1;
        count = next >= GRAPH_MAX_LAUNCHES ? GRAPH_MAX_LAUNCHES : (int)next;
    }
    return true;  /* the last graph built; its replays are shorter than the target, but close */
}

static bool check_options(const BenchOptions *o, long long l2_bytes, char *err) {
    if (o->backend != BENCH_EVENT && o->backend != BENCH_GRAPH && o->backend != BENCH_AUTO)
        return rt_fail(err, "unknown benchmark backend %d: it is events, graphs or auto", (int)o->backend);
    if (!(o->max_noise >= 0))
        return rt_fail(err, "the benchmark's noise limit must be 0 or more, not %g", o->max_noise);
    if (o->min_samples < 1 || o->min_samples > MAX_SAMPLES)
        return rt_fail(err, "the benchmark needs 1 to %d samples at least, not %d", MAX_SAMPLES, o->min_samples);
    if (!(o->max_time_s > 0))
        return rt_fail(err, "the benchmark's time limit must be more than 0 seconds, not %g", o->max_time_s);
    if (o->l2_flush && l2_bytes <= 0)
        return rt_fail(err, "cannot flush L2 between samples: the device's L2 size is unknown (%lld bytes)", l2_bytes);
    return true;
}

bool prof_bench_summarise(BenchResult *r, char err[256]) {
    int n = r->samples;
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) return rt_fail(err, "out of memory summarising %d samples", n);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sorted[i] = r->sample[i].ms;
        sum += sorted[i];
    }
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    r->min_ms = sorted[0];
    r->max_ms = sorted[n - 1];
    r->median_ms = quantile_sorted(sorted, n, 0.5);
    /* Clamped so rounding cannot put p95 outside [median, max]. */
    r->p95_ms = fmin(fmax(quantile_sorted(sorted, n, 0.95), r->median_ms), r->max_ms);
    r->mean_ms = sum / n;
    double squares = 0;
    for (int i = 0; i < n; i++) squares += (sorted[i] - r->mean_ms) * (sorted[i] - r->mean_ms);
    double stddev = n > 1 ? sqrt(squares / (n - 1)) : 0;
    r->rel_stddev = r->mean_ms > 0 ? stddev / r->mean_ms : 0;

    int clocks = 0;
    for (int i = 0; i < n; i++)
        if (r->sample[i].sm_clock_mhz > 0) sorted[clocks++] = r->sample[i].sm_clock_mhz;
    r->sm_clock_mhz = 0;
    r->throttled_samples = 0;
    r->full_clock_samples = 0;
    r->full_clock_mhz = r->full_clock_median_ms = 0;
    if (clocks > 0) {
        qsort(sorted, (size_t)clocks, sizeof *sorted, compare_doubles);
        r->sm_clock_mhz = quantile_sorted(sorted, clocks, 0.5);
        r->full_clock_mhz = sorted[clocks - 1];
        for (int i = 0; i < n; i++) {
            BenchSample *s = &r->sample[i];
            s->throttled = s->sm_clock_mhz > 0 && s->sm_clock_mhz < THROTTLE_FRACTION * r->sm_clock_mhz;
            r->throttled_samples += s->throttled;
        }
        /* A kernel that takes the card to its power limit runs its first
         * samples at full clock and the rest capped (attention on the
         * H200: its 700 W limit, ~1700 MHz after ~0.5 s; docs/decisions.md,
         * "The full-clock median beside the median"); when most are
         * capped the median clock is the capped one and the median time
         * mixes both. The samples near the fastest clock
         * say what the kernel does unthrottled. */
        for (int i = 0; i < n; i++)
            if (r->sample[i].sm_clock_mhz >= THROTTLE_FRACTION * r->full_clock_mhz)
                sorted[r->full_clock_samples++] = r->sample[i].ms;
        qsort(sorted, (size_t)r->full_clock_samples, sizeof *sorted, compare_doubles);
        r->full_clock_median_ms = quantile_sorted(sorted, r->full_clock_samples, 0.5);
    }
    free(sorted);
    return true;
}

bool prof_bench_part_at_full_clock(const BenchResult *r) {
    return r->full_clock_median_ms > 0 && r->full_clock_samples > 0 && r->full_clock_samples < r->samples;
}

static bool run_bench(Bench *b, const BenchOptions *o, BenchResult *r) {
    /* The stream does not wait for the legacy default stream, where the
     * caller's copies and memsets of the inputs may still be running. */
    if (!rt_synchronize(b->err)) return false;
    if (!rt_stream_create(&b->stream, b->err) || !rt_event_create(&b->flush_start, b->err) ||
        !rt_event_create(&b->start, b->err) || !rt_event_create(&b->end, b->err))
        return false;
    if (b->flush_bytes && !rt_malloc(&b->flush_buffer, b->flush_bytes, b->err)) return false;

    /* Compiles and loads the clock kernel now, not between the warm-up and
     * the first sample, where a long pause would let the GPU clock down. */
    char clock_err[256];
    prof_measure_sm_clock(clock_err);

    double warm_t0 = rt_now_s(), best_ms;
    if (!warm_up(b, &r->warmup_runs, &best_ms)) return false;
    b->launches = 1;
    if (b->backend == BENCH_AUTO) {
        b->backend = best_ms * 1e3 < PROF_GRAPH_BELOW_US ? BENCH_GRAPH : BENCH_EVENT;
        r->backend = b->backend;
        r->backend_auto = true;
    }
    if (b->backend == BENCH_GRAPH && !calibrate_graph(b, best_ms, &r->warmup_runs)) return false;
    r->warmup_ms = (rt_now_s() - warm_t0) * 1e3;
    r->launches_per_sample = b->launches;

    r->sample = malloc(MAX_SAMPLES * sizeof *r->sample);
    if (!r->sample) return rt_fail(b->err, "out of memory for %d benchmark samples", MAX_SAMPLES);

    /* Stopping rule: at least min_samples, then the first of: relative
     * standard deviation <= max_noise (from 2 samples on), max_time_s spent
     * sampling, MAX_SAMPLES samples. Running mean and variance (Welford). */
    double t_sampling = rt_now_s(), clock_mhz = 0, mean = 0, m2 = 0;
    int n = 0;
    while (n < MAX_SAMPLES) {
        if (n % CLOCK_EVERY_SAMPLES == 0) {
            double c = prof_measure_sm_clock(clock_err);
            if (c > 0) clock_mhz = c;  /* a failed reading keeps the last good one */
        }
        BenchSample *s = &r->sample[n];
        memset(s, 0, sizeof *s);
        s->start_us = (rt_now_s() - t_sampling) * 1e6;  /* when its flush and launch were queued */
        /* A new byte value every sample, so each flush really rewrites all
         * of the buffer's lines. */
        if (!time_unit(b, b->backend == BENCH_GRAPH, n % 2 ? 0xA5 : 0x5A, &s->ms, &s->flush_us)) return false;
        s->sm_clock_mhz = clock_mhz;
        n++;
        r->samples = n;
        double delta = s->ms - mean;
        mean += delta / n;
        m2 += delta * (s->ms - mean);
        if (n < o->min_samples) continue;
        if (n >= 2) {
            double stddev = sqrt(m2 / (n - 1));
            double rel = mean > 0 ? stddev / mean : (stddev == 0 ? 0 : INFINITY);
            if (rel <= o->max_noise) {
                r->stopped_on_noise = true;
                break;
            }
        }
        if (rt_now_s() - t_sampling >= o->max_time_s) break;
    }
    BenchSample *shrunk = realloc(r->sample, (size_t)n * sizeof *shrunk);
    if (shrunk) r->sample = shrunk;
    return prof_bench_summarise(r, b->err);
}

bool prof_bench(const RtKernel *fn, const long long grid[3], long long block, long long smem, void **params,
                long long l2_bytes, const BenchOptions *o, BenchResult *r, char err[256]) {
    char local_err[256];
    if (!err) err = local_err;
    if (r) memset(r, 0, sizeof *r);
    if (!fn || !fn->fn) return rt_fail(err, "prof_bench needs a kernel from rt_kernel_get");
    if (!grid || !r) return rt_fail(err, "prof_bench needs a grid and a result to fill in");
    KernelLaunch k = {fn, grid, block, smem, params};
    return prof_bench_launch(launch_one_kernel, &k, l2_bytes, o, r, err);
}

bool prof_bench_launch(BenchLaunch launch, void *arg, long long l2_bytes, const BenchOptions *o, BenchResult *r,
                       char err[256]) {
    char local_err[256];
    if (!err) err = local_err;
    if (r) memset(r, 0, sizeof *r);
    if (!launch || !r) return rt_fail(err, "prof_bench_launch needs work to time and a result to fill in");
    BenchOptions defaults = prof_bench_defaults();
    if (!o) o = &defaults;
    if (!check_options(o, l2_bytes, err)) return false;

    Bench b = {
        .launch = launch, .arg = arg, .backend = o->backend,
        /* A buffer the size of L2, rewritten before every sample, evicts
         * the kernel's inputs and outputs of the previous run, so each
         * sample reads from DRAM as a first call in a real program would,
         * and no sample has a warmer cache than another. */
        .flush_bytes = o->l2_flush ? (size_t)l2_bytes : 0,
        .err = err,
    };
    r->backend = o->backend;
    r->l2_flush = o->l2_flush;
    r->l2_flush_bytes = o->l2_flush ? l2_bytes : 0;
    bool ok = run_bench(&b, o, r);

    /* Whatever happened: the stream is drained before its resources go. */
    char ignored[256];
    if (b.stream) rt_stream_synchronize(b.stream, ignored);
    rt_graph_destroy(&b.graph);
    rt_event_destroy(&b.flush_start);
    rt_event_destroy(&b.start);
    rt_event_destroy(&b.end);
    rt_stream_destroy(b.stream);
    rt_free(b.flush_buffer);
    if (!ok) {
        prof_bench_free(r);
        memset(r, 0, sizeof *r);
    }
    return ok;
}

void prof_bench_free(BenchResult *r) {
    if (!r) return;
    free(r->sample);
    r->sample = NULL;
    r->samples = 0;
}

/* ---- consistency ---- */

/* Compares one output with its bytes from the first run, in chunks. */
static bool output_matches(uint64_t dev, const unsigned char *want, size_t bytes, unsigned char *chunk, bool *same,
                           char *err) {
    *same = true;
    for (size_t off = 0; off < bytes; off += CONSISTENCY_CHUNK) {
        size_t n = bytes - off < CONSISTENCY_CHUNK ? bytes - off : CONSISTENCY_CHUNK;
        if (!rt_memcpy_dtoh(chunk, dev + off, n, err)) return false;
        if (memcmp(chunk, want + off, n) != 0) {
            *same = false;
            return true;
        }
    }
    return true;
}

/* Each run starts from the outputs' contents before the first run, copied
 * aside on the device and put back before every launch, so inout tensors and
 * outputs the kernel accumulates into (atomic adds) see the same inputs each
 * time; only a race can then make two runs differ. Outputs with poison[i]
 * (pure `out` tensors, which the kernel must write whole) start each run as
 * 0xFF bytes instead, and every run must give their contents before the
 * first one (the verified results): a run that leaves some elements
 * unwritten differs then, even where it leaves the same ones each time
 * (state a launch keeps for the next, such as a tile counter not reset).
 * The outputs hold the last run's results afterwards. */
bool prof_consistency(const RtKernel *fn, const long long grid[3], long long block, long long smem, void **params,
                      const uint64_t *outputs, const size_t *bytes, const bool *poison, int n_outputs, int runs,
                      bool *consistent, char err[256]) {
    char local_err[256];
    if (!err) err = local_err;
    if (consistent) *consistent = false;
    if (!fn || !fn->fn) return rt_fail(err, "prof_consistency needs a kernel from rt_kernel_get");
    if (!grid || !consistent) return rt_fail(err, "prof_consistency needs a grid and somewhere to put the verdict");
    if (n_outputs < 1 || !outputs || !bytes)
        return rt_fail(err, "prof_consistency needs at least one output to compare");
    if (runs < 2) return rt_fail(err, "a consistency check needs at least 2 runs to compare, not %d", runs);
    size_t total = 0;
    for (int i = 0; i < n_outputs; i++) {
        if (bytes[i] > 0 && outputs[i] == 0)
            return rt_fail(err, "output %d of the consistency check has no device memory", i);
        if (bytes[i] > (size_t)-1 - total) return rt_fail(err, "the outputs of the consistency check are too big");
        total += bytes[i];
    }
    if (total == 0) {
        *consistent = true;  /* nothing that could differ */
        return true;
    }

    uint64_t saved = 0;
    unsigned char *first = malloc(total);
    unsigned char *chunk = malloc(total < CONSISTENCY_CHUNK ? total : CONSISTENCY_CHUNK);
    bool ok = first && chunk;
    if (!ok) rt_fail(err, "out of memory for the %zu output bytes of the consistency check", total);
    /* Anything still running on the default stream finishes first. */
    ok = ok && rt_synchronize(err) && rt_malloc(&saved, total, err);
    size_t off = 0;
    for (int i = 0; ok && i < n_outputs; off += bytes[i], i++) {
        ok = rt_memcpy_dtod(saved + off, outputs[i], bytes[i], err);
        if (ok && poison && poison[i]) ok = rt_memcpy_dtoh(first + off, outputs[i], bytes[i], err);
    }

    bool same = true;
    for (int run = 0; ok && same && run < runs; run++) {
        off = 0;
        for (int i = 0; ok && i < n_outputs; off += bytes[i], i++)
            ok = poison && poison[i] ? rt_memset8(outputs[i], 0xFF, bytes[i], err)
                                     : rt_memcpy_dtod(outputs[i], saved + off, bytes[i], err);
        ok = ok && rt_launch(fn, grid, block, smem, params, NULL, err) && rt_synchronize(err);
        off = 0;
        for (int i = 0; ok && same && i < n_outputs; off += bytes[i], i++) {
            if (run == 0 && !(poison && poison[i]))
                ok = rt_memcpy_dtoh(first + off, outputs[i], bytes[i], err);
            else
                ok = output_matches(outputs[i], first + off, bytes[i], chunk, &same, err);
        }
    }
    rt_free(saved);
    free(first);
    free(chunk);
    if (ok) *consistent = same;
    return ok;
}
