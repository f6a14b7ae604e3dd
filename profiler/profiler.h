/* profiler.h - the profiler layer's host side: generated inputs (supply.c),
 * the CPU evaluator of a kernel's `reference` block (reference.c) and the
 * comparison of a kernel's results against it (verify.c). LANGUAGE.md §5
 * and §7 (--supply, --seed, --rtol, --atol, the `verify` report).
 *
 * Everything here is plain C17 with pthreads; nothing needs a GPU. */
#ifndef TILEC_PROFILER_H
#define TILEC_PROFILER_H

#include "frontend.h"

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
 * (1 for ones). Big tensors are filled by several threads. Returns false
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
void prof_ref_free(RefEval *r);

/* ---- verify.c: comparing results with the reference ---- */

typedef struct VerifyResult {
    bool passed;
    int64_t checked, total, mismatches;   /* summed over the out/inout tensors */
    double max_abs_err, max_rel_err, rel_fro_err, rtol, atol;
    bool sampled;                         /* some tensor was checked on a sample */
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
enum { PROF_SAMPLE_EDGES = 20000, PROF_SAMPLE_RANDOM = 20000 };

/* Checks every out/inout tensor of k against the reference. `got` are the
 * kernel's results, matched to k's parameters by sym (values, or when values
 * is NULL the storage, decoded on the fly). rtol/atol < 0 (or NaN) mean the
 * defaults of each tensor's dtype. When a tensor has more than max_full
 * elements (max_full <= 0: no limit) or its estimated reference cost exceeds
 * the limit above, a deterministic sample is checked instead: for each
 * dim the indices {0, 1, 2, d-3, d-2, d-1} and, for every multiple m of 16
 * below d, m-1 and m (randomly thinned, keeping 0 and d-1, until their cross
 * product is at most PROF_SAMPLE_EDGES), plus PROF_SAMPLE_RANDOM random
 * elements. An element passes when |got - want| <= atol + rtol * |want|; NaN
 * and infinities must match exactly. rel_fro_err = ||got - want||_2 /
 * ||want||_2 over the checked finite elements; max_rel_err skips want == 0.
 * Runs on all CPUs. Returns res->passed. */
bool prof_verify(KernelInfo *k, RefEval *ref, HostTensor *got, int n, double rtol, double atol, int64_t max_full,
                 VerifyResult *res);
/* "verify: PASSED 16777216 of 16777216 elements checked (...)" and, when it
 * failed, the first mismatches with their indices. */
void prof_verify_print(FILE *o, const VerifyResult *r);

/* ---- run.c: one verified run on the GPU ---- */

typedef struct RunOptions {
    SupplyKind supply;
    uint64_t seed;
    double rtol, atol;     /* < 0: the defaults of each output's dtype */
    int64_t max_full;      /* check every element up to this many (<= 0: no limit) */
} RunOptions;

/* Loads the cubin, runs the kernel once on generated inputs (outputs
 * poisoned first), and verifies the results. Returns the exit code: 0, 3
 * (mismatch) or 4 (a CUDA failure, said in one sentence). The device must
 * be open (rt_device_open). */
int prof_run(KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size, const int64_t grid[3],
             int64_t block, int64_t smem, const RunOptions *o);

/* ---- the profile (bench.c measures, metrics.c derives, report.c prints) ---- */

typedef enum BenchBackend { BENCH_EVENT, BENCH_GRAPH } BenchBackend;

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
    double flush_us;       /* the L2 flush before it, host-timed */
    double sm_clock_mhz;   /* measured around the sample (0: not measured) */
    bool throttled;        /* clock below 95% of the median clock of all samples */
} BenchSample;

typedef struct BenchResult {
    BenchBackend backend;
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

typedef struct CompareResult {
    bool present;
    const char *name;         /* "cublas" */
    double median_ms, speedup; /* speedup = peer / tilec */
    const char *note;         /* why there is none, when there is none */
} CompareResult;

typedef struct Profile {
    const char *file, *kernel, *kernel_symbol, *arch;
    KernelInfo *info;
    bool cache_hit;
    double compile_s;
    VerifyResult verify;
    bool verified;            /* a reference existed and was checked */
    bool consistent; int consistency_runs;
    BenchResult bench;
    DeviceInfo device;
    Resources res;
    Derived derived;
    CompareResult compare;
    const char *opportunities[3];
    int n_opportunities;
    const char *root_cause;   /* two sentences */
} Profile;

#endif
