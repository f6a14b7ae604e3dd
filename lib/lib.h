/* lib.h - inside libtilec: the kernel object behind tilec_kernel, and the
 * pieces of the compile path that the `tilec` command shares with the
 * library (the --set parser, the target choice, the cubin from the cache or
 * NVRTC), so that both compile one way. */
#ifndef TILEC_LIB_H
#define TILEC_LIB_H

#include <pthread.h>

#include "codegen.h"
#include "runtime.h"
#include "tilec.h"

enum { LIB_OK = 0, LIB_SOURCE = 1, LIB_USAGE = 2, LIB_CUDA = 4 };

/* One parameter of a compiled kernel, as tilec_launch checks it. */
typedef struct LibParam {
    char *name;
    bool tensor;               /* else a scalar */
    Dtype dtype;
    int rank;                  /* tensors */
    int64_t shape[MAX_RANK];   /* the compiled extent of each dimension (not of dynamic ones) */
    char *dim_name[MAX_RANK];  /* its size variable, or NULL for a literal */
    int dyn[MAX_RANK];         /* which dynamic size it is (tilec_kernel.dynamic_*), or -1 */
    ParamMode mode;            /* tensors: in, out, inout */
} LibParam;

/* Where a stage's parameter comes from (lib_stage_bind): the pipeline's
 * buffer `buffer` (its tensors in parameter order, then its scratch), or a
 * scalar: the pipeline's scalar parameter `scalar` (counting its scalars)
 * or, that being -1, the constant `value`. */
typedef struct LibArg {
    int buffer;
    int scalar;
    const Node *value;
} LibArg;

/* A pipeline's scratch buffer: its extents, each compiled in or, where
 * dyn[d] >= 0, the pipeline's dynamic size dyn[d] at launch. */
typedef struct LibScratch {
    Dtype dtype;
    int rank;
    int64_t shape[MAX_RANK];
    int dyn[MAX_RANK];
} LibScratch;

typedef struct LibStage {
    struct tilec_kernel *k;
    LibArg *arg;               /* per parameter of k */
    double *value;             /* per parameter: a constant scalar's value */
} LibStage;

struct tilec_kernel {
    char *name;                /* the kernel's name in the program */
    char *symbol;              /* the extern "C" name in the module */
    char *arch;
    char *cache_dir;           /* tilec_options.cache_dir (NULL: the default) */
    char *cuda;   size_t cuda_len;
    char *ir;     size_t ir_len;
    void *cubin;  size_t cubin_size;
    char *params_json; size_t params_json_len;   /* tilec_get "params" */
    LibParam *params;
    int nparams, ntensors, nscalars;
    /* the launch shape (CgKernel's) */
    int64_t grid[3], block, smem;
    RtGridExpr grid_expr[3];   /* where grid[d] is -1 */
    int ndynamic;              /* dynamic sizes: int arguments after the parameters */
    char *dynamic_name[RT_MAX_DYNAMIC];
    int64_t dynamic_divisor[RT_MAX_DYNAMIC];
    RtTensorMapSpec tma[CG_MAX_TMA];
    int ntma;
    bool persistent;
    int cluster;
    RtUnits units;             /* a persistent grid of dynamic sizes: its loop's units */
    /* Such a grid's variants (lib_variants), each a kernel of its own,
     * in the order a launch tries them before this, the base kernel. */
    LaunchVariant variant;
    struct tilec_kernel *partner[VARIANT_COUNT - 1];
    int npartners;
    /* made on demand, under lock */
    pthread_mutex_t lock;
    char *ptx;    size_t ptx_size;
    RtModule *module;          /* loaded on the first launch */
    RtKernel fn;
    long long resident;        /* a persistent kernel: the most blocks resident at once (x is capped to it) */
    /* A pipeline: no module of its own, but its stages in order and its
     * scratch buffers, allocated for each launch on its stream. */
    int nstages;
    LibStage *stages;
    int nscratch;
    LibScratch *scratch;
};

/* ---- overrides.c: the `set` string (--set) ---- */
/* Parses "NAME=VALUE,..." (VALUE an integer, decimal or 0x with `_`
 * allowed, a float, true or false) into ov[*n..max). list is cut up in
 * place and the overrides point into it. False after a message in err
 * ("WHAT: 'x' is not NAME=VALUE", what being "--set" or "set"). */
bool lib_parse_set(char *list, const char *what, Override *ov, int max, int *n, char err[300]);
/* After sema: every override was valid and used by a kernel (kernels, the
 * checked ones; selected: one kernel was chosen by name). LIB_OK, or said
 * on err ("tilec: WHAT ...") and LIB_USAGE. */
int lib_overrides_used(FILE *err, const char *what, const Override *ov, int n, const PtrVec *kernels, bool selected);

/* ---- target.c: what the code may assume of the GPU ---- */
/* arch is sm_XX or sm_XXa, at least sm_80, and NVRTC can compile for it;
 * false after a message in err. */
bool lib_check_arch(const char *arch, char err[300]);
/* The target: arch (NULL: the device's when dev is not NULL, else
 * sm_90a), with the device's own figures where dev is of that
 * architecture. *arch_out is the name used (static storage or arch). */
void lib_choose_target(const char *arch, const RtDevice *dev, Target *t, const char **arch_out);
/* Whether program prog has a kernel called name; said on err when not,
 * with the kernels it has. */
bool lib_kernel_found(FILE *err, const Node *prog, const char *name, const char *file);

/* ---- cubin.c: the cubin from the disk cache or NVRTC ---- */
typedef struct LibBuild {
    const char *arch;
    const Target *target;      /* part of the cache key */
    const PlanOptions *plan;   /* part of the cache key */
    const char *cache_dir;     /* NULL: the default */
    bool no_cache;
    bool verbose;              /* cache hits and misses, ptxas counts on err */
    FILE *err;
} LibBuild;
typedef struct LibBinary {
    void *cubin;               /* malloc'd */
    size_t size;
    bool cache_hit;
    double compile_s;
    int registers, spill_bytes;   /* from ptxas (kept in the cache beside the cubin); -1 when unknown */
} LibBinary;
/* What lib_build did besides the plain build. */
typedef struct LibBuildNote {
    bool one_block;            /* kept a second build asking for one resident block an SM */
    int first_registers, first_spill_bytes;   /* the first build's, where one_block */
} LibBuildNote;
/* ck compiled by NVRTC or assembled by ptxas for arch into res (with the
 * PTX that was assembled where want_ptx), once more asking for one
 * resident block an SM where ptxas capped the registers and spilled;
 * res->ok. No cache, no messages; safe from several threads. note may be
 * NULL. */
bool lib_build(const CgKernel *ck, const char *arch, bool want_ptx, RtCompileResult *res, LibBuildNote *note);
/* LIB_OK, or LIB_CUDA after an NVRTC failure (said on b->err). */
int lib_obtain_cubin(Ctx *c, const CgKernel *ck, const LibBuild *b, LibBinary *bin);
/* The PTX of ck (malloc'd, NUL-terminated); LIB_OK or LIB_CUDA (said on b->err). */
int lib_obtain_ptx(Ctx *c, const CgKernel *ck, const LibBuild *b, char **ptx, size_t *size);

/* ---- backend.c: which code generator ---- */
/* "nvrtc" or "llvm" (where built with LLVM); false after a sentence in err. */
bool lib_parse_backend(const char *name, CgBackend *out, char err[300]);
const char *lib_backend_name(CgBackend b);
/* Kernel k as CUDA C (CG_NVRTC) or PTX (CG_LLVM) into out: LIB_OK,
 * LIB_SOURCE after a located error, LIB_USAGE (an arch LLVM 19 cannot
 * target, a build without LLVM) or LIB_CUDA (LLVM failed: a bug), said on
 * k's error stream. */
int lib_generate(IrKernel *k, const char *file, CgBackend backend, CgKernel *out);

/* ---- pipeline.c: pipelines (LANGUAGE.md §8), for the library and the
 * command alike ---- */
/* Stage ps of pipeline p: its kernel checked with the sizes the pipeline
 * gives it; NULL after its errors (located in the kernel) and a note at
 * the stage. */
KernelInfo *lib_specialise_stage(Ctx *c, Node *prog, const KernelInfo *p, const PipelineStage *ps, bool specialise,
                                  const char *arch);
/* The one pipeline of a file's checked kernels where it has one and more
 * kernels (its stages): what to act on when no name is given; else NULL. */
KernelInfo *lib_only_pipeline(const PtrVec *kernels);
/* Where each of the nparams parameters of stage ps comes from. */
void lib_stage_bind(const KernelInfo *p, const PipelineStage *ps, int nparams, LibArg *args);
/* tilec_launch's work, its messages to out (launch.c); a pipeline's stages
 * launch through it too. */
int lib_launch(tilec_kernel *k, const tilec_tensor *tensors, int ntensors, const double *scalars, int nscalars,
               void *stream, FILE *out);
/* tilec_launch of a pipeline: its scratch allocated on the stream and
 * zeroed, every stage launched in order, the scratch freed after them. */
int lib_launch_pipeline(tilec_kernel *k, const tilec_tensor *tensors, int ntensors, const double *scalars, int nscalars,
                        void *stream, FILE *out);

/* ---- variants.c: a dynamic grid's kernels (PlanOptions.variant) ---- */
/* The variants of kernel `info` whose base kernel `base` was built with
 * plan, each through the passes, in out[] in the order a launch tries
 * them (split, halves); their count (0: none). Which one each is:
 * sched_variant. */
int lib_variants(Ctx *c, KernelInfo *info, const Target *t, const PlanOptions *plan, const IrKernel *base,
                 IrKernel *out[VARIANT_COUNT - 1]);
/* Whether a launch at the dynamic sizes' values dims suits variant k
 * (rt_variant_fits). */
bool lib_variant_fits(IrKernel *k, const int64_t *dims);

/* ---- strings.c ---- */
/* A growing message: open_memstream, or err when that fails. */
typedef struct LibText {
    char *text;
    size_t len;
    FILE *f;
} LibText;
FILE *lib_text_open(LibText *t);
/* Closes the stream; *out gets the text (malloc'd) when out is not NULL,
 * else it is freed. */
void lib_text_close(LibText *t, char **out);
char *lib_strdup(const char *s);  /* NULL for NULL */

/* ---- launch_args.c ---- */
/* The checks of tilec_launch before any GPU work: counts, ranks, extents,
 * data pointers, scalar values; dims[] gets each dynamic size's value
 * (from the first dimension that names it; the others must agree, and
 * the `%` promises hold) and grid[] the launch's grid. LIB_OK or
 * LIB_USAGE (said on err). */
int lib_check_args(const tilec_kernel *k, const tilec_tensor *t, int nt, const double *s, int ns, int64_t *dims,
                   long long grid[3], FILE *err);

#endif
