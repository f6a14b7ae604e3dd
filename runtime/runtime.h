/* runtime.h - the runtime layer of tilec: turning generated CUDA C++ into
 * PTX and cubins with NVRTC (nvrtc.c).
 *
 * NVRTC needs no GPU and no driver, so everything here runs on any machine
 * with the CUDA toolkit. All functions are safe to call from several threads
 * at once (autotuning compiles its candidates in parallel); each call owns
 * its own NVRTC program and result. */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "tensor_map.h"

/* ---- nvrtc.c ---- */
typedef struct RtCompileOptions {
    const char *arch;          /* "sm_80", "sm_90a", ... or "compute_80" for PTX only */
    bool want_ptx;             /* also return PTX text */
    bool want_cubin;           /* return the cubin (needs a real arch, not compute_XX) */
    const char *const *extra;  /* extra NVRTC options, NULL-terminated, may be NULL */
} RtCompileOptions;

/* The ptxas counts are the largest value any function in the program
 * reports; all are -1 when ptxas did not run (a compute_XX arch, a failed
 * compile) and 0 for a field ptxas left out because it was zero. */
typedef struct RtCompileResult {
    bool ok;
    char *log;                       /* NVRTC + ptxas log (malloc'd, never NULL after rt_compile, may be "") */
    char *ptx;  size_t ptx_size;     /* malloc'd when asked; NUL-terminated, size excludes the NUL */
    char *cubin; size_t cubin_size;  /* malloc'd when asked */
    int registers;                   /* "Used N registers" */
    int spill_store_bytes, spill_load_bytes;  /* "N bytes spill stores, M bytes spill loads" */
    int static_smem_bytes;           /* "N bytes smem" */
    int stack_frame_bytes;           /* "N bytes stack frame" (local arrays and spills live there) */
    char perf_warning[256];          /* ptxas's first "Potential Performance Loss" (e.g. serialised wgmma), or "" */
    double seconds;                  /* wall time of the whole rt_compile call */
    char error[256];                 /* one plain sentence when !ok, else "" */
} RtCompileResult;

/* Compiles one translation unit; `name` is the file name NVRTC uses in its
 * messages (NULL: "default_program"). Returns out->ok. Whatever the outcome,
 * *out must later go to rt_compile_result_free. */
bool rt_compile(const char *source, const char *name, const RtCompileOptions *opt,
                RtCompileResult *out);
/* The first ptxas "Potential Performance Loss" remark of a log ("(C7514)
 * Potential Performance Loss: wgmma.mma_async instructions are serialized
 * ..."), without the "ptxas info : " prefix, into out; false when none. */
bool rt_ptxas_perf_warning(const char *log, char out[256]);
/* The counts of a ptxas -v log into r (the largest of each over the
 * log's functions; fields r already holds stay unless larger). */
void rt_parse_ptxas_log(const char *log, RtCompileResult *r);
/* Frees what rt_compile allocated; safe on a zeroed result and twice. */
void rt_compile_result_free(RtCompileResult *r);
/* The version of the NVRTC library actually loaded, e.g. "13.0". */
const char *rt_nvrtc_version(void);
/* Whether this NVRTC can compile for sm_<sm> (true when it cannot tell);
 * list gets the ones it can ("sm_75, sm_80, ..."). */
bool rt_nvrtc_targets(int sm, char list[256]);

/* ---- ptx_link.c ---- */
/* PTX (from the LLVM backend) to a cubin for sm_<arch>, without NVRTC or
 * a GPU: with the ptxas of the toolkit tilec was built with, run as a
 * program on the whole PTX, or where that is missing with nvJitLink, the
 * toolkit's library that runs ptxas in process (opened on first use). Its
 * ptxas compiles for linking (-c), where wgmmas are serialised and
 * setmaxnreg ignored, so it is the second choice. Without either the call
 * fails with a sentence. Fills out as rt_compile does (cubin, log, ptxas
 * counts, seconds). lineinfo: the PTX's .loc directives become the
 * cubin's line table. */
bool rt_ptx_to_cubin(const char *ptx, size_t size, const char *name, const char *arch, bool lineinfo,
                     RtCompileResult *out);
/* Which assembler rt_ptx_to_cubin uses, in words ("ptxas", "nvJitLink
 * 13.0"), and its identity for the LLVM path's cache key (the ptxas
 * program's path, size and time, or nvJitLink's version); NULL for
 * neither. */
const char *rt_ptx_assembler(void);
const char *rt_ptx_assembler_key(void);

/* ---- driver.c ---- */
/* Writes one sentence into err (256 bytes, may be NULL) and returns false:
 * the shape of every failure in this layer and the profiler's. */
bool rt_fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A monotonic clock in seconds. */
double rt_now_s(void);

/* Running cubins on the GPU through the CUDA driver API. libcuda.so.1 is
 * opened with dlopen on first use, never linked, so tilec starts (and the
 * NVRTC part works) on machines without a GPU or driver; there every call
 * below fails with a sentence saying so.
 *
 * Every bool function returns false on failure and writes one plain sentence
 * into err (256 bytes, may be NULL). Device pointers are uint64_t
 * (CUdeviceptr). All functions may be called from several threads; each
 * makes the device's primary context current in the calling thread itself.
 * A kernel fault (illegal address, trap, ...) is reported by the next call
 * that waits for the GPU, and leaves the context unusable for the rest of
 * the process: every later call then fails with the same error. */
#include <stdint.h>

typedef struct RtDevice {
    char name[256];                  /* "NVIDIA H100 80GB HBM3" */
    int ordinal;                     /* 0, or $TILEC_DEVICE */
    int cc_major, cc_minor;          /* compute capability, e.g. 9 and 0 */
    int sms;                         /* streaming multiprocessors */
    long long l2_bytes;
    int sm_clock_khz;                /* peak SM clock */
    int mem_clock_khz;               /* peak memory clock */
    int bus_width_bits;              /* global memory bus width */
    long long smem_per_block_optin;  /* largest shared memory a block may opt in to */
    long long smem_per_sm;
    int max_threads_per_sm;
    int regs_per_sm;                 /* 32-bit registers */
    long long global_mem_bytes;
    int driver_version;              /* CUDA version the driver supports, e.g. 13000 for 13.0 */
} RtDevice;

/* Loads the driver, initialises it and makes the primary context of device
 * 0 (or of $TILEC_DEVICE) current. Idempotent: later calls return the device
 * opened first, whatever $TILEC_DEVICE says by then. */
/* The exact NVRTC target of the device: sm_80, sm_90a, ... */
void rt_device_arch(const RtDevice *d, char out[16]);
bool rt_device_open(RtDevice *dev, char err[256]);

/* A loaded cubin (also a fatbin, or NUL-terminated or sized PTX text, which
 * the driver compiles for the device). */
typedef struct RtModule RtModule;
bool rt_module_load(const void *cubin, size_t size, RtModule **out, char err[256]);
void rt_module_unload(RtModule *m);  /* NULL is fine */

typedef struct RtKernel { void *fn; } RtKernel;  /* a CUfunction, valid while its module is loaded */
bool rt_kernel_get(RtModule *m, const char *name, RtKernel *k, char err[256]);

/* Launches k on a 1-D block of `block` threads with `smem` bytes of dynamic
 * shared memory; params holds one pointer to each kernel argument, stream
 * NULL is the default stream. Kernels that need more than 48 KiB of shared
 * memory get the opt-in attribute set here. Launching is asynchronous: a
 * fault inside the kernel shows up in rt_synchronize (or the next call that
 * waits for the GPU). */
bool rt_launch(const RtKernel *k, const long long grid[3], long long block, long long smem,
               void **params, void *stream, char err[256]);
/* Blocks of k that fit on one SM at once with this block size and dynamic
 * shared memory (0: the launch could not run). */
bool rt_occupancy(const RtKernel *k, long long block, long long smem, int *blocks_per_sm, char err[256]);
/* How many clusters of `cluster` blocks (the kernel's __cluster_dims__) can
 * be resident on the device at once. */
bool rt_max_active_clusters(const RtKernel *k, long long block, long long smem, int cluster, int *clusters,
                            char err[256]);
/* The blocks to launch for a persistent kernel of `tiles` tiles (units of
 * its loop; in clusters of `cluster` blocks, 0: none): as many as can be
 * resident at once, never more than the tiles. Clusters count whole
 * resident clusters: their blocks share a GPC, so fewer than SMs / 2 pairs
 * may fit, and a cluster that had to wait for another's end would run all
 * its tiles after the rest. Where the occupancy cannot be told, the tiles. */
long long rt_persistent_blocks(const RtKernel *k, long long block, long long smem, int cluster, long long tiles);
/* Registers per thread, local (stack/spill) bytes per thread, static shared
 * bytes per block; any output may be NULL. */
bool rt_kernel_attrs(const RtKernel *k, int *regs, int *local_bytes, int *static_smem, char err[256]);

/* rt_malloc of 0 bytes gives the pointer 0; rt_free(0) does nothing. */
bool rt_malloc(uint64_t *ptr, size_t bytes, char err[256]);
void rt_free(uint64_t ptr);
/* Copies and memset run on the default stream and return once done. */
bool rt_memcpy_htod(uint64_t dst, const void *src, size_t n, char err[256]);
bool rt_memcpy_dtoh(void *dst, uint64_t src, size_t n, char err[256]);
bool rt_memcpy_dtod(uint64_t dst, uint64_t src, size_t n, char err[256]);
bool rt_memset8(uint64_t dst, unsigned char value, size_t n, char err[256]);
/* Waits for all work on the device; reports asynchronous kernel faults. */
bool rt_synchronize(char err[256]);

typedef struct RtEvent { void *ev; } RtEvent;  /* a CUevent */
bool rt_event_create(RtEvent *e, char err[256]);
bool rt_event_record(RtEvent *e, void *stream, char err[256]);
/* Waits for end, then gives the milliseconds between the two records. */
bool rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms, char err[256]);
void rt_event_destroy(RtEvent *e);  /* sets e->ev to NULL; NULL events are fine */

/* Streams, an asynchronous memset and CUDA graphs, for the profiler's
 * timing. A stream is a CUstream as void * (what rt_launch, rt_event_record
 * take); rt_stream_create makes a non-blocking one, which never synchronises
 * with the legacy default stream that the copies and rt_memset8 use, so
 * ordering against them is the caller's (rt_synchronize). */
bool rt_stream_create(void **stream, char err[256]);
bool rt_stream_synchronize(void *stream, char err[256]);
void rt_stream_destroy(void *stream);  /* NULL is fine; pending work still completes */
/* Sets n bytes to value, in stream order; returns at once. */
bool rt_memset8_async(uint64_t dst, unsigned char value, size_t n, void *stream, char err[256]);
/* Stream-ordered device memory (cuMemAllocAsync, cuMemFreeAsync, CUDA
 * 11.2): usable by work queued on the stream after it, freed once the work
 * queued before the free is done. */
bool rt_malloc_async(uint64_t *ptr, size_t bytes, void *stream, char err[256]);
void rt_free_async(uint64_t ptr, void *stream);

typedef struct RtGraph { void *exec; } RtGraph;  /* an instantiated CUDA graph (CUgraphExec) */
/* Between rt_capture_begin and rt_capture_end (same thread, non-NULL
 * stream) work put on the stream (rt_launch, ...) is recorded, not run.
 * rt_capture_end always ends the capture; it instantiates the recording
 * into *g, or discards it when g is NULL (after a failed launch). */
bool rt_capture_begin(void *stream, char err[256]);
bool rt_capture_end(void *stream, RtGraph *g, char err[256]);
/* Runs the whole graph on the stream, asynchronously. */
bool rt_graph_launch(const RtGraph *g, void *stream, char err[256]);
void rt_graph_destroy(RtGraph *g);  /* sets g->exec to NULL; NULL graphs are fine */

enum { RT_TENSOR_MAP_BYTES = 128 };
/* Encodes the map of s for the tensor at device address base into out
 * (RT_TENSOR_MAP_BYTES, 64-byte aligned). */
bool rt_tensor_map_encode(const RtTensorMapSpec *s, uint64_t base, void *out, char err[256]);

/* ---- cache.c ---- */
typedef struct RtCache {
    char dir[4096];
    bool enabled;      /* false: --no-cache, or the directory is unusable */
} RtCache;
/* Resolves the directory (--cache-dir, $TILEC_CACHE_DIR, $XDG_CACHE_HOME/tilec,
 * ~/.cache/tilec) and creates it private (0700). An unusable directory
 * disables caching with a warning in warn (never a failure). */
bool rt_cache_init(RtCache *c, const char *cli_dir, bool disabled, char warn[256]);
/* Entries are named by a hash_key (support.h) over everything that changes
 * them: source, arch, versions, options. */
/* A checked entry (malloc'd), or false: missing or damaged (then removed). */
bool rt_cache_get(const RtCache *c, const char *key, void **data, size_t *size);
/* Stores atomically; failures only mean the next run compiles again. */
void rt_cache_put(const RtCache *c, const char *key, const void *data, size_t size);
/* The same for entries that are not cubins, named KEY.EXT ("info", ...):
 * what a compile learnt besides its binary. */
bool rt_cache_get_ext(const RtCache *c, const char *key, const char *ext, void **data, size_t *size);
void rt_cache_put_ext(const RtCache *c, const char *key, const char *ext, const void *data, size_t size);

#endif
