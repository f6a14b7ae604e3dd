/* profiler.h - the profiler layer's host side: generated inputs (supply.c),
 * the CPU evaluator of a kernel's `reference` block (reference.c) and the
 * comparison of a kernel's results against it (verify.c). LANGUAGE.md §5
 * and §7 (--supply, --seed, --rtol, --atol, the `verify` report).
 *
 * Everything here is plain C17 with pthreads; nothing needs a GPU. */
#ifndef TILEC_PROFILER_H
#define TILEC_PROFILER_H

#include "frontend.h"
#include "launch_shape.h"
#include "runtime.h"

/* ---- supply.c: generated inputs ---- */

typedef enum SupplyKind { SUPPLY_NORMAL, SUPPLY_UNIFORM, SUPPLY_INTEGER, SUPPLY_ONES } SupplyKind;

/* "normal", "uniform", "integer", "ones" -> the kind; false when unknown. */
bool prof_supply_kind_from_name(const char *s, SupplyKind *kind);
const char *prof_supply_kind_name(SupplyKind kind);

typedef struct HostTensor {
    Sym *sym;
    Dtype dtype;
    int rank;
    int64_t shape[MAX_RANK];
    int64_t elems;
    double *values;       /* what the kernel sees, exactly (after rounding to dtype); NULL for `out` tensors */
    void *storage;        /* the device format (f16/bf16 bits, ...), row-major */
    size_t storage_bytes;
} HostTensor;

/* One HostTensor per tensor parameter of k, in k->params order (scalars are
 * skipped). Inputs and inout tensors get values and storage; out tensors get
 * zeroed storage only (values NULL). The data is reproducible per (seed,
 * parameter position, element): a counter-based generator (splitmix64), so it
 * does not depend on the thread count or on the other tensors.
 *   normal:  N(0,1), then rounded to the dtype
 *   uniform: U[-1,1), then rounded
 *   integer: integers in [-4, 4] (in [0, 4] for unsigned dtypes), exact in every dtype
 *   ones:    1
 * Integer dtypes get the integer supply for normal/uniform too; bool gets 0/1
 * (1 for ones). A tensor the kernel's `inputs` clause names (Sym.input)
 * follows that instead, with the same reproducibility. Big tensors are filled by several threads. Returns false
 * (after a message on stderr) when the memory cannot be allocated; *out and
 * *n are then NULL and 0. */
bool prof_supply(KernelInfo *k, SupplyKind kind, uint64_t seed, HostTensor **out, int *n);
void prof_tensors_free(HostTensor *t, int n);

/* Conversions between f64 values and the device format of n elements.
 * f16, bf16 and f8 (e4m3 saturating to +-448, e5m2) round to nearest even,
 * subnormals included (plain C, no CUDA headers); f32 is C's conversion;
 * integer dtypes truncate toward zero and saturate (NaN -> 0); bool is v != 0. */
void prof_to_storage(Dtype t, const double *v, void *storage, int64_t n);
void prof_from_storage(Dtype t, const void *storage, double *v, int64_t n);
/* v rounded to what dtype t holds (prof_from_storage(prof_to_storage(v))). */
double prof_round_to(Dtype t, double v);
uint16_t prof_f16_bits(double v);
double prof_f16_value(uint16_t bits);
uint16_t prof_bf16_bits(double v);
double prof_bf16_value(uint16_t bits);

/* Runs fn(arg, i) for i in [0, n) on up to `threads` threads (0: one per
 * online CPU, at most 64); the calling thread takes part. Work is handed out
 * in order, one index at a time (callers pass chunks). */
void prof_parallel_for(int64_t n, int threads, void (*fn)(void *arg, int64_t i), void *arg);
/* The same, and each thread that took part calls done(arg) when no work is left. */
void prof_parallel_for_done(int64_t n, int threads, void (*fn)(void *arg, int64_t i), void (*done)(void *arg),
                            void *arg);
int prof_cpu_count(void);

/* ---- reference.c: the reference block, evaluated in f64 on the CPU ---- */

typedef struct RefEval RefEval;

/* Prepares the evaluator of k's reference. `inputs` are the values before
 * the kernel ran (for an inout tensor its old value), as prof_supply makes
 * them; they must stay alive while the evaluator is used. Every input and
 * inout tensor the reference reads needs its values. Returns NULL (after a
 * message on stderr) when k has no reference or an input is missing.
 *
 * Semantics (LANGUAGE.md §5): f64 arithmetic; integer-typed `/` truncates and
 * `%` keeps the dividend's sign; reading outside a tensor or temporary gives
 * 0; `c ? a : b`, `&&` and `||` evaluate only what they need; an inout tensor
 * on the right is its value before the kernel ran; an out tensor read after
 * its definition is its reference value. Casts: f16/bf16/f32/f8 round to
 * nearest even, integer casts truncate toward zero and saturate, bool is
 * x != 0. Temporaries (and outputs read by later statements) of at most
 * PROF_MEMO_MAX elements are memoised lazily (thread-safe: each element is
 * computed into a local and published with an atomic flag); bigger ones are
 * recomputed on demand, with a small per-thread cache of recent elements.
 * Each reduction also remembers, per thread, its last result for the values
 * of the index variables it depends on, so a row statistic used by every
 * element of a row is computed once per row.
 *
 * prof_ref_element may be called from any number of threads at once. */
enum { PROF_MEMO_MAX = 1 << 24 };
RefEval *prof_ref_new(KernelInfo *k, HostTensor *inputs, int n);
/* The value of element idx (rank indices) of an out/inout tensor as the
 * reference defines it. Indices outside the tensor give 0; an inout tensor
 * the reference does not define keeps its old value. */
double prof_ref_element(RefEval *r, const Sym *out, const int64_t *idx);
/* The calling thread will not use r for a while (say, it is about to exit):
 * its per-thread state (index values, caches) goes back to r for another
 * thread to reuse. Without it, every new thread that evaluates r keeps its own
 * state until prof_ref_free. prof_verify's threads do this. */
void prof_ref_thread_done(RefEval *r);
/* Whether the reference defines `out`. */
bool prof_ref_defines(RefEval *r, const Sym *out);
/* An estimate of the scalar operations needed to evaluate n elements of
 * `out` (reductions count their range times their body; memoised
 * temporaries count once in full; on-demand ones at every read). With n >=
 * the element count (a full check, in row-major order) a reduction that
 * depends only on leading index variables of `out` (a row statistic) counts
 * once per change of them, as the per-thread reduction cache computes it.
 * The evaluator does about 3e9 of these per second on 16 cores. */
double prof_ref_cost(RefEval *r, const Sym *out, double n);
/* Of that, what filling the memoised definitions `out` reaches costs, all
 * their elements. */
double prof_ref_memo_cost(RefEval *r, const Sym *out);
void prof_ref_free(RefEval *r);

/* ---- verify.c: comparing results with the reference ---- */

typedef struct VerifyResult {
    bool passed;
    int64_t checked, total, mismatches;   /* summed over the out/inout tensors */
    double max_abs_err, max_rel_err, rel_fro_err, rtol, atol;
    bool sampled;                         /* some tensor was checked on a sample */
    bool leading_limited;                 /* ... with its leading dims at PROF_SAMPLE_LEADING values */
    int64_t first_idx[5][MAX_RANK];       /* the first mismatches, in index order, of `tensor` */
    double first_got[5], first_want[5];
    int nfirst;
    int first_rank;
    const char *tensor;                   /* the first tensor with mismatches, else the first output */
} VerifyResult;

double prof_default_rtol(Dtype t); /* f16/bf16: 1e-2; f32: 1e-3; f64: 1e-9; f8e4m3 0.125, f8e5m2 0.25; ints/bool: 0 */
double prof_default_atol(Dtype t); /* f16/bf16: 1e-2; f32: 1e-3; f64: 1e-9; f8 as rtol; ints/bool: 0 */

/* Above this estimated cost (prof_ref_cost) a tensor is checked on a
 * sample: 2e9 (about a second of the evaluator on 8 cores), scaled by the
 * number of CPUs over 8 when there are more. prof_verify_max_cost > 0
 * overrides it (for a command-line option or a test). */
#define PROF_VERIFY_MAX_COST 2e9
extern double prof_verify_max_cost;
enum { PROF_SAMPLE_EDGES = 20000, PROF_SAMPLE_RANDOM = 20000, PROF_SAMPLE_LEADING = 3 };

/* Checks every out/inout tensor of k against the reference. `got` are the
 * kernel's results, matched to k's parameters by sym (values, or when values
 * is NULL the storage, decoded on the fly). rtol/atol < 0 (or NaN) mean the
 * defaults of each tensor's dtype. When a tensor has more than max_full
 * elements (max_full <= 0: no limit) or its estimated reference cost exceeds
 * the limit above, a deterministic sample is checked instead: for each
 * dim the indices {0, 1, 2, d-3, d-2, d-1} and, for every multiple m of 16
 * below d, m-1 and m (randomly thinned, keeping 0 and d-1, until their cross
 * product is at most PROF_SAMPLE_EDGES), plus PROF_SAMPLE_RANDOM random
 * elements. Where filling the memoised definitions the reference reaches
 * would itself exceed the limit (attention: every row's statistics), the
 * dims before the last two (batch, heads) take PROF_SAMPLE_LEADING values
 * each (0, the last and one between), random elements included: the
 * evaluator fills only those slices' statistics, since the
 * statistics of an element's slice are what its value needs (a gradient
 * with respect to K needs every query row's). An element passes when |got - want| <= atol + rtol * |want|; NaN
 * and infinities must match exactly. rel_fro_err = ||got - want||_2 /
 * ||want||_2 over the checked finite elements; max_rel_err skips want == 0.
 * Runs on all CPUs. Returns res->passed. */
bool prof_verify(KernelInfo *k, RefEval *ref, HostTensor *got, int n, double rtol, double atol, int64_t max_full,
                 VerifyResult *res);
/* "verify: PASSED 16777216 of 16777216 elements checked (...)" and, when it
 * failed, the first mismatches with their indices. */
void prof_verify_print(FILE *o, const VerifyResult *r);

/* ---- run.c: a kernel session on the GPU ---- */

typedef struct RunOptions {
    SupplyKind supply;
    uint64_t seed;
    double rtol, atol;     /* < 0: the defaults of each output's dtype */
    int64_t max_full;      /* check every element up to this many (<= 0: no limit) */
} RunOptions;


/* The kernel loaded, its inputs generated and in device memory. */
typedef struct Session {
    KernelInfo *k;
    RtModule *mod;
    RtKernel fn;
    long long grid[3], block, smem;
    HostTensor *in;        /* per tensor parameter: the inputs (values before the kernel) */
    HostTensor *got;       /* the results copied back (storage of out/inout tensors) */
    int n;
    uint64_t *dev;         /* device buffers, per tensor parameter */
    void **params;         /* kernel arguments, per parameter, the dynamic sizes, then the TMA tensor maps */
    ScalarArg *scalars;
    int dynamic[RT_MAX_DYNAMIC];
    unsigned char *tensor_maps; /* RT_TENSOR_MAP_BYTES each, 64-byte aligned */
} Session;

/* What a launch needs besides the cubin: the shape, and the TMA tensor maps
 * that follow the parameters (built for the session's device buffers). */
typedef struct LaunchSpec {
    int64_t grid[3];
    int64_t block;
    int64_t smem;
    const RtTensorMapSpec *tma;
    int ntma;
    bool persistent;   /* grid[0] counts tiles: launch at most one block per SM */
    int cluster;       /* blocks in a cluster (0: none): a persistent launch counts whole resident clusters */
    int ndynamic;      /* the dynamic sizes' values, int arguments after the parameters */
    int dynamic_value[RT_MAX_DYNAMIC];
} LaunchSpec;

/* The pieces of a verified run, for kernels and pipelines alike. A scalar
 * argument of dtype t from a value (exact for 64-bit integers, which a
 * double would round). */
void prof_scalar_arg(Dtype t, bool is_float, double f, int64_t i, ScalarArg *a);
/* Tensors in[0..n) to their device buffers dev[]: inputs and inout tensors
 * their generated values, out tensors 0xFF bytes (NaN for floats), so
 * elements a kernel never writes cannot pass as correct. */
bool prof_tensors_to_device(const HostTensor *in, const uint64_t *dev, int n, char err[256]);
/* The out and inout tensors' device buffers into got[t].storage. */
bool prof_outputs_to_host(const HostTensor *in, HostTensor *got, const uint64_t *dev, int n, char err[256]);
/* got against k's reference on inputs in (verified: a reference existed):
 * 0, 3 (mismatch) or 4. */
int prof_check_outputs(KernelInfo *k, HostTensor *in, HostTensor *got, int n, const RunOptions *o, VerifyResult *res,
                       bool *verified);
/* A digest of the bytes of every output (FNV-1a, 64 bits), in order: two
 * runs, or two backends, on the same inputs gave bitwise the same outputs
 * where the digests agree; *bytes is how many it covers. The print is the
 * "outputs: digest ..." line of --run. */
uint64_t prof_outputs_digest(const HostTensor *in, const HostTensor *got, int n, size_t *bytes);
void prof_print_digest(const HostTensor *in, const HostTensor *got, int n);

/* Loads the cubin and prepares inputs and buffers (the device must be
 * open). Each returns an exit code: 0, 3 (mismatch) or 4 (a CUDA failure,
 * said in one sentence on stderr). */
int prof_session_open(Session *s, KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size,
                      const LaunchSpec *launch, const RunOptions *o);
/* Inputs back to their generated values, outputs poisoned. */
int prof_session_reset(Session *s);
/* reset, one launch, results back, verification (verified: a reference existed). */
int prof_session_verify(Session *s, const RunOptions *o, VerifyResult *res, bool *verified);
/* Runs whose outputs differ by design (KernelInfo.float_atomic): `runs`
 * more runs from the same inputs, each one's outputs compared element by
 * element with the verified run's (s->got) within the verification
 * tolerance (o's, else each output dtype's default). *within: every run
 * agreed; *max_diff: the largest difference seen. 0, or 4 (said). */
/* Whether the out/inout tensors of a and b (their storage, for the
 * tensors in) agree element by element within o's tolerance (else each
 * dtype's default): |a - b| <= atol + rtol * |a|, NaN matching NaN.
 * *max_diff grows to the largest difference seen. */
bool prof_outputs_within(const HostTensor *in, const HostTensor *a, const HostTensor *b, int n, const RunOptions *o,
                         double *max_diff);
int prof_session_consistency_within(Session *s, const RunOptions *o, int runs, bool *within, double *max_diff);
void prof_session_close(Session *s);
/* `--run`: open, verify, print, close. */
int prof_run(KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size, const LaunchSpec *launch,
             const RunOptions *o);

/* ---- the profile (bench.c measures, metrics.c derives, report.c prints) ---- */

/* BENCH_AUTO: graphs for kernels under PROF_GRAPH_BELOW_US (the warm-up's
 * fastest launch), where a launch's own cost would be counted as kernel
 * time, events otherwise. */
typedef enum BenchBackend { BENCH_EVENT, BENCH_GRAPH, BENCH_AUTO } BenchBackend;
#define PROF_GRAPH_BELOW_US 10.0

typedef struct BenchOptions {
    BenchBackend backend;
    double max_noise;      /* stop when the relative standard deviation is at most this (0.005) ... */
    int min_samples;       /* ... after at least this many samples (10) */
    double max_time_s;     /* or when this much time went into sampling (2.0) */
    bool l2_flush;         /* flush L2 before every sample (true) */
} BenchOptions;

typedef struct BenchSample {
    double ms;             /* kernel time of the sample */
    double start_us;       /* host time the sample started, from the start of the benchmark */
    double flush_us;       /* the L2 flush before it, GPU time (an event pair) */
    double sm_clock_mhz;   /* measured around the sample (0: not measured) */
    bool throttled;        /* clock below 95% of the median clock of all samples */
} BenchSample;

typedef struct BenchResult {
    BenchBackend backend;  /* the one used (never BENCH_AUTO) */
    bool backend_auto;     /* chosen by BENCH_AUTO */
    int samples;
    BenchSample *sample;   /* malloc'd, `samples` of them */
    double median_ms, min_ms, max_ms, p95_ms, mean_ms, rel_stddev;
    int warmup_runs;
    double warmup_ms;      /* total host time of the warm-up */
    int launches_per_sample;  /* graph mode: kernels per replay (time is per kernel) */
    bool l2_flush;
    long long l2_flush_bytes;
    double sm_clock_mhz;   /* median over samples (0: not measured) */
    int throttled_samples;
    /* The samples within 95% of the fastest clock measured, and their
     * median time (0: clock not measured): what the kernel does before
     * the card reaches a power or thermal limit. */
    int full_clock_samples;
    double full_clock_mhz, full_clock_median_ms;
    bool stopped_on_noise; /* else on the time cap */
} BenchResult;

typedef struct DeviceInfo {
    char name[256];
    int cc_major, cc_minor, sms;
    double sm_clock_mhz, mem_clock_mhz;   /* the driver's maximum clocks */
    int bus_width_bits;
    long long l2_bytes;
    double peak_gbps;      /* 2 x memory clock x bus width / 8 */
    double peak_tflops;    /* dense tensor-core peak for the kernel's input dtype */
    const char *peak_source;  /* where the per-SM rate comes from */
} DeviceInfo;

typedef struct Derived {
    double flops, bytes;
    const char *flop_model;   /* "flops clause", "derived from the reference: ...", ... */
    const char *byte_model;
    double tflops, gbps, pct_peak_compute, pct_peak_bandwidth;
    double arithmetic_intensity, ridge_point;  /* FLOP/byte */
    const char *bound;        /* "compute", "memory", "latency" */
} Derived;

typedef struct Resources {
    int registers, spill_bytes, static_smem, local_bytes;
    long long dynamic_smem;
    int blocks_per_sm;
    double occupancy;         /* resident warps / maximum warps per SM */
    double waves;             /* grid blocks / (blocks per SM x SMs) */
    long long grid_blocks;
    int block_threads;
} Resources;

/* The verdict on a duration against an earlier run's (baseline.c). */
typedef enum Verdict { VERDICT_SAME, VERDICT_FASTER, VERDICT_SLOWER, VERDICT_NOISY } Verdict;
typedef struct TimeChange {
    Verdict verdict;
    double change;            /* current / previous median - 1 */
    double threshold;         /* the relative change the noise explains */
    double p_value;           /* the rank test's (NAN without both runs' samples) */
} TimeChange;
enum { MAX_BASELINE_STAGES = 64 };

typedef struct CompareResult {
    bool present;
    const char *name;         /* "cublas" */
    double median_ms, speedup; /* speedup = peer / tilec */
    const char *note;         /* why there is none, when there is none */
} CompareResult;

/* One stage of a profiled pipeline: timed alone, and its share of the sum
 * of the stages' times. */
typedef struct StageProfile {
    const char *kernel;
    BenchResult bench;
    Derived derived;          /* its work (the stage kernel's clauses or reference) and rates */
    double share;             /* of the sum of the stages' medians */
    double span_start_us, span_us;  /* within one run of the whole, measured by events (the trace's spans) */
} StageProfile;

typedef struct Profile {
    const char *file, *kernel, *kernel_symbol, *arch;
    const StageProfile *stages;   /* a pipeline's (kernel_symbol NULL); else NULL */
    int nstages;
    KernelInfo *info;
    bool tiles_for_sizes;     /* its tunables chosen for these sizes (driver/tile_choice.c) */
    bool cache_hit;
    double compile_s;
    VerifyResult verify;
    bool verified;            /* a reference existed and was checked */
    bool consistent; int consistency_runs;
    /* The runs differ bitwise by design (KernelInfo.float_atomic) and were
     * compared within the verification tolerance instead: consistent then
     * says they agreed; consistency_max_diff is the largest difference. */
    bool consistency_tolerant;
    double consistency_max_diff;
    BenchResult bench;
    DeviceInfo device;
    Resources res;
    Derived derived;
    CompareResult compare;
    const char *opportunities[3];
    int n_opportunities;
    const char *root_cause;   /* two sentences */
    const struct Baseline *baseline;  /* --baseline: the earlier run (NULL: none) */
    const struct SourceLines *lines;  /* --ncu --lines (NULL: not asked for) */
    const Source *source;             /* the .tile file, for quoting lines */
    TimeChange vs_baseline;           /* this run's duration against it */
    TimeChange stage_vs_baseline[MAX_BASELINE_STAGES];
} Profile;

/* ---- bench.c ---- */

/* Auto backend, max_noise 0.005, min_samples 10, max_time_s 2.0, L2 flush. */
BenchOptions prof_bench_defaults(void);
/* Times one kernel launch (fn, grid, block, smem, params) as DESIGN.md says:
 * warm-up (3 launches and 20 ms, none timed), an L2 flush before every
 * sample (a buffer of l2_bytes, the device's L2 size, rewritten on the
 * timing stream; its GPU time is the sample's flush_us), one event pair per
 * sample around one launch (BENCH_EVENT) or around one replay of a CUDA
 * graph of K launches (BENCH_GRAPH: K so a replay lasts >= ~50 us, at most
 * 1000; the time is per kernel, and only the first kernel of a replay runs
 * after the flush), the stopping rule of BenchOptions (at most 10000
 * samples), and the SM clock measured before sample 0, 10, 20, ... A
 * sample's start_us counts from the start of sampling (after the warm-up)
 * to when its flush and launch were queued: its flush runs from about then,
 * the kernel right after. The kernel runs many times on the same buffers. Never changes clocks or GPU
 * modes. o NULL: the defaults. On failure *r is zeroed. *r must later go to
 * prof_bench_free. */
bool prof_bench(const RtKernel *fn, const long long grid[3], long long block, long long smem, void **params,
                long long l2_bytes, const BenchOptions *o, BenchResult *r, char err[256]);
void prof_bench_free(BenchResult *r);  /* safe on a zeroed result and twice */
/* The statistics of r's `samples` (times and clocks set): order
 * statistics, mean, spread, the median clock, the throttled samples and
 * the full-clock ones. False (err set) when out of memory. */
bool prof_bench_summarise(BenchResult *r, char err[256]);
/* Whether some samples, not all, ran at full clock (the report then gives
 * their median beside the median of all). */
bool prof_bench_part_at_full_clock(const BenchResult *r);
/* The same method for any work: `launch` queues one unit of it on the
 * stream it is given (cuBLAS for --compare, say). */
typedef bool (*BenchLaunch)(void *arg, void *stream, char err[256]);
bool prof_bench_launch(BenchLaunch launch, void *arg, long long l2_bytes, const BenchOptions *o, BenchResult *r,
                       char err[256]);
/* Runs the kernel `runs` (>= 2) times on the same inputs and sets
 * *consistent when the outputs are bitwise identical each time; outputs[i]
 * are device pointers with bytes[i] sizes. Their contents before the first
 * run are put back before every run (inout tensors, atomic accumulation),
 * except where poison[i] (poison may be NULL): those start each run as
 * 0xFF bytes and must come out as they were before the first run (the
 * verified results of a pure output). Afterwards the outputs hold the last
 * run's results (0 bytes in all: consistent, nothing runs). Launches on the
 * default stream. Returns false (and *consistent false) when a run or copy
 * fails. */
bool prof_consistency(const RtKernel *fn, const long long grid[3], long long block, long long smem, void **params,
                      const uint64_t *outputs, const size_t *bytes, const bool *poison, int n_outputs, int runs,
                      bool *consistent, char err[256]);
/* The SM clock in MHz, measured by a one-thread kernel counting clock64()
 * cycles over ~20 us of %globaltimer (compiled once with rt_compile for the
 * device's arch); 0, with a sentence in err, when it cannot measure. The
 * device must open (rt_device_open). Thread-safe. */
double prof_measure_sm_clock(char err[256]);

/* ---- metrics.c ---- */

/* NAN in Derived means "does not apply / not measured"; 0 in DeviceInfo's
 * peaks means unknown. The strings these functions make live in static
 * storage of metrics.c until the next call (one profile per process). */

/* FLOPs and bytes, and the sentences that say how they were obtained:
 * from the flops/bytes clauses when present ("flops clause: 4*B*H*S*S*D/
 * (causal+1)"); else FLOPs derived from the reference (2 per multiply-add
 * inside a sum, 1 per other arithmetic op or math function (fma 2),
 * comparisons, selects, casts and index arithmetic 0; each op counted once
 * per combination of the index variables it depends on, so a row statistic
 * counts once per row; of the branches of a non-constant `c ? a : b` the
 * costlier) and bytes from the tensor parameters (inputs read once,
 * outputs written once, inout both). Sets the rates to NAN. */
void prof_derive_work(KernelInfo *k, Derived *d);
/* The dtype of the first input tensor parameter (else the first inout one;
 * DT_NONE when there is none): what prof_device_peaks wants. */
Dtype prof_input_dtype(const KernelInfo *k);
/* peak_gbps = 2 x memory clock x bus width / 8; peak_tflops = SMs x SM clock
 * x FLOP/clock/SM from a table per (compute capability, input dtype),
 * peak_source naming where the per-SM rate comes from (sm_80 and sm_90:
 * f16, bf16, f8, and f32 on CUDA cores). Uses d->sms, d->sm_clock_mhz,
 * d->mem_clock_mhz and d->bus_width_bits. */
void prof_device_peaks(DeviceInfo *d, int cc_major, int cc_minor, Dtype input_dtype);
/* d from the opened device's figures, with the peaks for input_dtype. */
void prof_device_info(DeviceInfo *d, const RtDevice *dev, Dtype input_dtype);
/* TFLOP/s, GB/s, % of the peaks, arithmetic intensity, ridge point
 * (peak_flops / peak_bytes) and the bound: "latency" under 10 us or below
 * 10% of both roofs, else "compute" when the intensity exceeds the ridge
 * point, else "memory"; NULL when not timed or the peaks are unknown. */
void prof_derive_rates(Derived *d, const DeviceInfo *dev, double median_ms);
/* p->root_cause (two sentences) and up to three ranked opportunities, each
 * one sentence with the number that triggered it (spills, low occupancy,
 * grid under one wave or a ragged last wave, far from both roofs, memory-
 * bound under 70% of bandwidth, compute-bound under 60% of peak, very short
 * kernels, a faster --compare peer, throttled or noisy samples). Needs
 * p->derived (with rates), p->bench, p->res, p->device and p->compare. */
void prof_diagnose(Profile *p);

/* ---- report.c ---- */

/* The report's sections (configuration, correctness, timings, resources,
 * throughput, bottleneck and root cause, top opportunities, vs baseline) as
 * aligned text; colors only on a terminal and without NO_COLOR. */
void prof_report_terminal(FILE *o, const Profile *p);
/* The writers below write PATH.tmp.PID and rename it over PATH; when PATH
 * cannot be written they return false with one sentence in err and leave
 * nothing behind. */
/* --json: schema 1 (LANGUAGE.md §7), exactly its fields; null where a value
 * does not apply or was not measured; compare null when not asked for (no
 * compare.name), its numbers null when asked for but not measured. */
bool prof_write_json(const char *path, const Profile *p, char err[256]);
/* The same object printed to f (a sweep collects them into an array). */
void prof_json_print(FILE *f, const Profile *p);
/* --report: the same sections as markdown tables (the profile-report contract). */
bool prof_write_markdown(const char *path, const Profile *p, char err[256]);
/* --trace: Chrome trace events (us): compile on a host track; warm-up, every
 * L2 flush and every sample on the GPU's stream track. */
bool prof_write_trace(const char *path, const Profile *p, char err[256]);
/* --roofline: a log-log SVG 1.1 plot: memory and compute roofs, the ridge
 * point, the kernel's point labelled with its TFLOP/s. */
bool prof_write_roofline_svg(const char *path, const Profile *p, char err[256]);

/* ---- profile.c ---- */

typedef struct ProfileOptions {
    RunOptions run;
    BenchOptions bench;
    int consistency;          /* runs compared bitwise (0 or 1: skip) */
    const char *json, *report, *trace, *roofline;  /* output files, or NULL */
    const char *compare;      /* "cublas", or NULL */
    const char *baseline;     /* --baseline FILE.json, or NULL */
    double fail_if_slower;    /* --fail-if-slower PCT (< 0: not given) */
    FILE *out;                /* where the report and its lines go (NULL: stdout) */
    const struct SourceLines *lines;  /* --ncu --lines: the hottest .tile lines (NULL: not asked for) */
    const Source *source;     /* the .tile file, to quote those lines */
    FILE *json_stream;        /* a sweep's: the profile's JSON object is appended here (NULL: none) */
    struct ProfileSummary *summary;  /* a sweep's: what it keeps of the point (NULL: none) */
    bool tiles_for_sizes;     /* the driver chose the tunables for these sizes (the report says so) */
} ProfileOptions;

/* One profiled point of a sweep. NAN for what was not measured. */
typedef struct ProfileSummary {
    bool timed, verified, cache_hit;
    double median_ms, flops, bytes, tflops, gbps, peak_tflops, peak_gbps;
    double compare_ms;        /* the --compare peer's median */
    double compile_s;
    const char *bound;        /* static storage */
} ProfileSummary;

/* The compiled kernel being profiled. */
typedef struct ProfileTarget {
    const char *file, *symbol, *arch;
    const void *cubin;
    size_t cubin_size;
    LaunchSpec launch;
    bool cache_hit;
    double compile_s;
    int spill_bytes;          /* from ptxas; -1 when unknown (a cache entry without them) */
} ProfileTarget;

/* The files o asks for (--json, --report, --trace, --roofline) of
 * profile p: 0, or 2 where one could not be written (said on stderr). */
int prof_write_outputs(const Profile *p, const ProfileOptions *o);
/* The end of a timed profile, kernel or pipeline: --baseline applied,
 * the report printed (to o->out), the files written, the sweep's JSON
 * object and summary kept. Returns 0, 2 (a file, or the baseline
 * refused) or 5 (slower than --fail-if-slower allows). */
int prof_finish(Profile *p, const ProfileOptions *o);
/* The consistency line (and "not timed: ..." when p is not consistent):
 * bitwise, or within the tolerance where float atomics (on .tile line
 * atomic_line) make runs differ. */
void prof_say_consistency(FILE *out, const Profile *p, int atomic_line);
/* Verify, consistency, benchmark, report; returns the exit code (0; 2 an
 * output file could not be written; 3 mismatch or inconsistent; 4 CUDA;
 * 5 as prof_finish). */
int prof_profile(KernelInfo *k, const ProfileTarget *t, const RtDevice *dev, const ProfileOptions *o);

/* ---- baseline.c: --baseline ---- */

/* One run's durations: the median, the relative standard deviation and
 * the samples (NULL when the file has none). */
typedef struct TimingSet {
    double median_ms, rel_stddev;
    const double *samples;
    int n;
} TimingSet;

/* A saved --json profile (schema 1, or 2 with its stages), as read back.
 * Unknown numbers are NAN. */
typedef struct Baseline {
    const char *path;
    JsonValue *root;          /* owns the strings below */
    int schema;
    const char *kernel, *device;
    TimingSet time;
    double sm_clock_mhz, tflops, gbps, registers, spill_bytes, occupancy;
    int nstages;
    struct { const char *kernel; TimingSet time; } *stages;
} Baseline;

const char *prof_verdict_name(Verdict v); /* "same", "faster", "slower", "noisy" */
/* The two-sided p-value of the Mann-Whitney rank test (normal
 * approximation, ties averaged) that a and b come from one distribution;
 * NAN with fewer than 2 samples in either. */
double prof_rank_test(const double *a, int na, const double *b, int nb);
/* cur against prev: the change of the median; "faster"/"slower" when it
 * exceeds both runs' relative standard deviations and 1 % and, where both
 * have samples, the rank test tells them apart (p < 0.01); else "same",
 * or "noisy" when either run's deviation exceeds 5 % (a change that size
 * could hide in it). */
TimeChange prof_compare_times(const TimingSet *prev, const TimingSet *cur);
/* Reads a --json file; false with one sentence in err (unreadable, not
 * whole JSON, not a tilec profile, never timed). */
bool prof_baseline_load(const char *path, Baseline *b, char err[256]);
/* The same for a file's text already read (path names it in err). */
bool prof_baseline_parse(const char *text, size_t len, const char *path, Baseline *b, char err[256]);
void prof_baseline_free(Baseline *b);
/* o->baseline against profile p (timed, its device known): loads it into
 * *b (freed by the caller with prof_baseline_free), refuses another kernel,
 * schema, device or stage count, and sets p->baseline, p->vs_baseline and
 * the stages' verdicts. Returns 0; 2 when the file was refused (said on
 * stderr; p has no baseline); 5 when the verdict is slower by more than
 * o->fail_if_slower percent (said on stderr). */
int prof_apply_baseline(Profile *p, const ProfileOptions *o, Baseline *b);

/* ---- sweep.c: --sweep's table, --csv and --plot ---- */

enum { SWEEP_MAX_AXES = 4, SWEEP_MAX_POINTS = 64 };
/* What was swept: the kernel, the swept names in order, the peer
 * (--compare's name, or NULL) and the device. */
typedef struct Sweep {
    const char *kernel;
    const char *axis[SWEEP_MAX_AXES];
    int naxes;
    const char *peer, *device;
} Sweep;
/* One point: its values as given, x (the first axis's value), the other
 * axes' values as one label (its line in the plot), what its profile
 * kept, and why it was not timed (when it was not). */
typedef struct SweepRow {
    char value[SWEEP_MAX_AXES][32];
    double x;
    char series[128];
    ProfileSummary s;
    char why[160];
} SweepRow;
/* "faster", "slower" or "same" against the --compare peer (2 % either
 * way is the same); "" without one. */
const char *prof_sweep_verdict(const ProfileSummary *s);
/* One row per point: the values, median, TFLOP/s, GB/s, bound, and the
 * peer's median, speedup and verdict with --compare. */
void prof_sweep_table(FILE *o, const Sweep *w, const SweepRow *rows, int n);
/* --csv: a header and a row per point (RFC 4180; empty fields where not
 * measured). --plot: the rate (TFLOP/s, or GB/s for memory-bound points)
 * against the first axis, the peer as a second line, the roofline ceiling
 * at each point's arithmetic intensity dashed; a line per combination of
 * the other axes. Atomic writes; false with one sentence in err. */
bool prof_write_sweep_csv(const char *path, const Sweep *w, const SweepRow *rows, int n, char err[256]);
bool prof_write_sweep_svg(const char *path, const Sweep *w, const SweepRow *rows, int n, char err[256]);

/* ---- ncu_source.c: --ncu --lines ---- */

enum { PROF_TOP_LINES = 5 };
/* One hot .tile line: its warp stall samples, their share of the kernel's,
 * and its two largest stall reasons (ncu's labels, "stall_long_sb") with
 * their shares of the line's samples. */
typedef struct SourceLine {
    int line;
    double samples, share;
    char reason[2][32];
    double reason_share[2];
} SourceLine;
typedef struct SourceLines {
    bool present;             /* ncu printed a source page */
    int n;                    /* the hottest first */
    SourceLine top[PROF_TOP_LINES];
    double total;             /* the kernel's samples, every file's lines */
    char note[200];           /* why there are none, when there are none */
} SourceLines;
/* The hottest lines of tile_file (matched by base name) in ncu's CSV
 * source page (`--page source --print-source cuda,sass --csv`): the line
 * rows' "Warp Stall Sampling (All Samples)" and "stall_*" columns, summed
 * per line; ncu's own "==" lines are skipped. False (out->note says why)
 * when no line of the file has samples. */
bool prof_parse_ncu_source(const char *csv, const char *tile_file, SourceLines *out);

/* ---- pipeline.c: a pipeline's stages on the GPU ---- */

/* One compiled stage: its kernel's launch, and where each of its
 * parameters comes from. */
typedef struct StageRun {
    const char *kernel;       /* the kernel's name */
    const char *symbol;       /* its extern "C" name in the cubin */
    const void *cubin;
    size_t cubin_size;
    LaunchSpec launch;
    int nparams;
    int *buffer;              /* per parameter: the pipeline buffer it gets (its tensors in order, then its
                                 scratch buffers), -1 for a scalar */
    ScalarArg *scalar;        /* per parameter: a scalar's value */
    Derived work;             /* flops and bytes, with their models (prof_derive_work of the stage kernel) */
    const Node *float_atomic; /* the stage kernel's (KernelInfo.float_atomic) */
} StageRun;

/* `--run` of pipeline p (KernelInfo.pipeline): its inputs generated, its
 * scratch buffers zeroed, the stages launched in order on one stream, the
 * outputs verified against p's reference. Exit codes as prof_run's. */
int prof_pipeline_run(KernelInfo *p, StageRun *stages, int n, const RunOptions *o);
/* `--profile` of it: verify, consistency, the whole timed (o->bench: a
 * CUDA graph of every stage with the graph backend), each stage timed
 * alone, the report with a Stages table. t gives the file, arch and the
 * compile's cache and time. */
int prof_pipeline_profile(KernelInfo *p, StageRun *stages, int n, const ProfileTarget *t, const RtDevice *dev,
                          const ProfileOptions *o);

/* ---- compare.c ---- */

/* One GEMM as cuBLAS gets it. a, b, c index Session.in / dev (the order of
 * k's tensor parameters). Row-major: A is [(batch,) m, k], or [(batch,) k, m]
 * when trans_a; B is [(batch,) k, n], or [(batch,) n, k] when trans_b; C is
 * [(batch,) m, n]; batch is 1 without a batch variable. */
typedef struct GemmShape {
    int a, b, c;
    long long m, n, k, batch;
    bool trans_a, trans_b;
    Dtype ab, cd;             /* the inputs' dtype, C's dtype */
} GemmShape;

/* Whether k's reference is matmul-shaped: exactly one definition (lets
 * aside), of an out tensor C[(b,) i, j] = sum(k: A[(b,) i|k, k|i] *
 * B[(b,) k|j, j|k]) (the factors in either order) with A, B input tensors of
 * one dtype (f16, bf16 or f32), C f16/bf16/f32, and an optional batch
 * variable b indexing the leading dim of all three; fills *g. s may be NULL
 * (the indices are then positions among k's tensor parameters). */
bool prof_matmul_shape(KernelInfo *k, const Session *s, GemmShape *g);
/* Times cuBLAS's GemmEx (StridedBatchedEx when batched; f32 compute, alpha 1,
 * beta 0) on the session's device buffers with bench.c's method (warm-up, L2
 * flush of l2_bytes unless o says not, one event pair per call, o's stopping
 * rule; event pairs even when o asks for graphs); o NULL: the defaults.
 * libcublas.so.13 (else .so.12, .so) is loaded with dlopen, never linked.
 * It overwrites C, so call it after verification; when s->got holds the
 * verified output of C, cuBLAS's first result must match it (relative
 * Frobenius error <= 0.05) before it is timed. Fills out: name "cublas",
 * present, median_ms, speedup = median_ms / tilec_median_ms. Returns true
 * when out is filled in, with present false and a one-sentence note when
 * there is nothing to compare (the reference is not a matrix product, the
 * dtypes have no cuBLAS GEMM, cuBLAS cannot be loaded); false with one
 * sentence in err (and out->note) when cuBLAS or CUDA failed. The note lives
 * in static storage until the next call. */
bool prof_compare_cublas(KernelInfo *k, Session *s, long long l2_bytes, const BenchOptions *o, double tilec_median_ms,
                         CompareResult *out, char err[256]);

#endif
