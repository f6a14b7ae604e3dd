/* tilec.h - libtilec, the C library of tilec: compile a kernel of a `.tile`
 * program from a string, get its CUDA C, PTX, cubin or IR, and launch it on
 * a CUDA stream. The one header a program needs; C and C++.
 *
 * Compiling needs no GPU: NVRTC makes the cubin, and the CUDA driver
 * (libcuda.so.1) is opened only on the first launch, never linked. Compiled
 * cubins go into the same disk cache as the `tilec` command's.
 *
 * Return codes are tilec's exit codes: 0 success, 1 the source has errors,
 * 2 bad options or arguments, 4 a CUDA, driver or NVRTC failure.
 * Every function may be called from several threads at once; one kernel may
 * be launched from several threads (on their own streams). */
#ifndef TILEC_H
#define TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

/* as support/support.h has it (lib/ includes both, so a difference is a
 * macro redefinition warning: an error in CI) */
#define TILEC_VERSION "0.1.0"

/* One compiled kernel: its generated code, its cubin and, after the first
 * launch, its loaded module. */
typedef struct tilec_kernel tilec_kernel;

/* Options of tilec_compile; a NULL options pointer, or NULL fields, take
 * the defaults. */
typedef struct {
    const char *arch;      /* "sm_90a", "sm_80", NULL: the GPU present, else sm_90a */
    const char *set;       /* "BM=128,causal=1" as --set, or NULL */
    const char *backend;   /* "nvrtc", "llvm", or NULL for the default */
    const char *cache_dir; /* NULL: the default cache ($TILEC_CACHE_DIR, $XDG_CACHE_HOME/tilec, ~/.cache/tilec) */
} tilec_options;

/* A tensor argument: a device pointer to row-major elements, its rank and
 * its extents (outermost first). */
#ifndef TILEC_TENSOR_DEFINED /* also declared by the headers tilec --emit-lib writes */
#define TILEC_TENSOR_DEFINED
typedef struct {
    void *data;
    int ndim;
    const int64_t *shape;
} tilec_tensor;
#endif

/* Compile kernel or pipeline NAME (NULL: the only one) of SOURCE (text; FILENAME
 * is for diagnostics). Returns 0, or the exit code tilec would give (1 source
 * errors, 2 bad options, 4 CUDA/NVRTC/LLVM failure); *diagnostics (may be NULL)
 * receives the same text tilec prints, to free with tilec_free_string.
 * *out is the kernel on success, NULL otherwise. */
TILEC_API int tilec_compile(const char *source, const char *filename, const char *name,
                            const tilec_options *opt, tilec_kernel **out, char **diagnostics);

/* WHAT: "cuda", "ptx", "cubin", "ir". The bytes stay owned by K. The text
 * ones end with a NUL byte that *size does not count. Returns 0; 2 for
 * another WHAT; 4 when NVRTC fails to make the PTX (made on first request). */
TILEC_API int tilec_get(const tilec_kernel *k, const char *what, const void **data, size_t *size);

/* Launch on STREAM (a CUstream; NULL: the default stream). Tensors and scalars in
 * parameter order (scalars as doubles, converted to their declared dtype).
 * Dynamic sizes are read from the shapes; fixed sizes and `%` promises are
 * checked: a mismatch returns 2 with a message naming the parameter and size.
 * Nothing is launched when a check fails. Without a GPU: 4. The launch is
 * asynchronous, as a CUDA launch is: synchronise the stream before reading
 * the results. *diagnostics (may be NULL) receives the messages, or NULL
 * when there are none (a launch that succeeds). */
TILEC_API int tilec_launch(tilec_kernel *k, const tilec_tensor *tensors, int ntensors,
                           const double *scalars, int nscalars, void *stream, char **diagnostics);

/* Frees K and unloads its module (NULL is fine). No launch of K may be in
 * flight on the host at the time. */
TILEC_API void tilec_kernel_free(tilec_kernel *k);
/* Frees a diagnostics string (NULL is fine). */
TILEC_API void tilec_free_string(char *s);
/* TILEC_VERSION of the library actually linked. */
TILEC_API const char *tilec_version(void);

#ifdef __cplusplus
}
#endif

#endif
