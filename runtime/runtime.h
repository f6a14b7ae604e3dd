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
    double seconds;                  /* wall time of the whole rt_compile call */
    char error[256];                 /* one plain sentence when !ok, else "" */
} RtCompileResult;

/* Compiles one translation unit; `name` is the file name NVRTC uses in its
 * messages (NULL: "default_program"). Returns out->ok. Whatever the outcome,
 * *out must later go to rt_compile_result_free. */
bool rt_compile(const char *source, const char *name, const RtCompileOptions *opt,
                RtCompileResult *out);
/* Frees what rt_compile allocated; safe on a zeroed result and twice. */
void rt_compile_result_free(RtCompileResult *r);
/* The version of the NVRTC library actually loaded, e.g. "13.0". */
const char *rt_nvrtc_version(void);

#endif
