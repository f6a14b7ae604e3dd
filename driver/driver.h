/* driver.h - the command line's pieces shared by tilec.c (options, the
 * actions) and autotune.c (the search over `tune` spaces). */
#ifndef TILEC_DRIVER_H
#define TILEC_DRIVER_H

#include "codegen.h"
#include "lib.h"
#include "profiler.h"
#include "runtime.h"

enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_USAGE = 2, EXIT_VERIFY = 3, EXIT_CUDA = 4, EXIT_SLOWER = 5 };

extern bool verbose;

/* How to launch what the code generator produced for kernel k at its
 * values (the dynamic sizes' too: tilec's own runs have them). False
 * where a grid dimension of dynamic sizes cannot be computed. */
static inline bool launch_of(const CgKernel *ck, const KernelInfo *k, LaunchSpec *l) {
    *l = (LaunchSpec){.block = ck->block, .smem = ck->smem_bytes, .tma = ck->tma, .ntma = ck->ntma,
                      .persistent = ck->persistent, .cluster = ck->cluster, .ndynamic = k->dynamic.len};
    int64_t dims[RT_MAX_DYNAMIC] = {0};
    for (int i = 0; i < k->dynamic.len && i < RT_MAX_DYNAMIC; i++)
        dims[i] = l->dynamic_value[i] = (int)((const Sym *)k->dynamic.items[i])->value.i;
    long long grid[3];
    if (!rt_launch_grid(ck->grid, ck->grid_expr, dims, ck->persistent, &ck->units, grid)) return false;
    for (int d = 0; d < 3; d++) l->grid[d] = grid[d];
    return true;
}

typedef enum Action {
    ACT_CHECK, ACT_AST, ACT_IR, ACT_CUDA, ACT_LLVM, ACT_PTX, ACT_CUBIN, ACT_SASS, ACT_RUN, ACT_PROFILE, ACT_AUTOTUNE, ACT_LIB
} Action;

/* What compiling, --run, --profile and --autotune need besides the action. */
typedef struct Options {
    PlanOptions plan;       /* the schedule options (--clusters ...) */
    CgBackend backend;      /* --backend: CUDA C and NVRTC, or LLVM */
    bool specialise;        /* --specialise: dynamic sizes compiled in at their values */
    int variant;            /* --variant: a LaunchVariant, or -1 (auto) */
    bool lineinfo;          /* --lineinfo: #line directives naming .tile lines, NVRTC's -lineinfo */
    Target target;          /* the device's, or the --arch preset's */
    const char *cache_dir;
    bool no_cache;
    RunOptions run;
    ProfileOptions profile;
    RtDevice device;
    bool have_device;
    bool ncu;               /* --ncu */
    bool ncu_lines;         /* --ncu --lines: the hottest .tile lines */
    int argc;               /* the command line, for the --ncu child */
    char **argv;
    char device_err[256];   /* why there is no device */
} Options;

/* One --sweep NAME=LIST: its values as overrides, and as given. */
typedef struct SweepAxis {
    const char *name;
    Override value[SWEEP_MAX_POINTS];
    char text[SWEEP_MAX_POINTS][32];
    int n;
} SweepAxis;

/* The command line, parsed. */
enum { MAX_OVERRIDES = 64, MAX_EMIT_ARCHS = 8 };
typedef struct CmdLine {
    const char *file, *kernel, *arch, *out_path, *print_after;
    const char *lib_dir;                  /* --emit-lib DIR */
    const char *archs[MAX_EMIT_ARCHS];    /* every --arch, in order (arch: the last) */
    int narchs;
    Action act;
    Options opts;
    Override overrides[MAX_OVERRIDES];
    int n_overrides;
    bool no_warnings, warnings_are_errors;  /* -w, -Werror */
    SweepAxis sweeps[SWEEP_MAX_AXES];     /* --sweep, in order (the first is the plot's x axis) */
    int nsweeps;
    const char *csv, *plot;               /* --csv FILE, --plot FILE.svg */
} CmdLine;

/* The spill warning of kernel k compiled into bin (ptxas's count, also
 * on a cache hit; none where it is unknown): EXIT_OK, or EXIT_SOURCE
 * where -Werror made it an error. */
static inline int warn_spills(Ctx *c, const KernelInfo *k, const LibBinary *bin, const char *arch) {
    if (bin->spill_bytes <= 0) return EXIT_OK;
    int errors = c->errors;
    diag_warning(c, k->node->loc, "kernel '%s' spills %d bytes of registers to local memory on %s (ptxas): smaller "
                 "tiles or fewer stages leave more registers a thread", k->name->s, bin->spill_bytes, arch);
    return c->errors == errors ? EXIT_OK : EXIT_SOURCE;
}

/* pipeline.c: the action of the command line on pipeline p (checked);
 * --check's lowering of its stages. */
int act_on_pipeline(Ctx *c, Node *prog, KernelInfo *p, CmdLine *cl);
int check_pipeline_stages(Ctx *c, Node *prog, KernelInfo *p, CmdLine *cl);

/* sweep.c */
/* --sweep's value into cl->sweeps: -1 to go on, else EXIT_USAGE (said). */
int sweep_option(CmdLine *cl, const char *v);
/* What profiles one point: tilec.c's action on a checked kernel. */
typedef int (*SweepAct)(Ctx *c, Node *prog, KernelInfo *k, CmdLine *cl);
/* `--profile --sweep`: every point checked first (an unknown name or a
 * value the kernel refuses ends it before anything runs), then each
 * profiled with act, the table printed and --json/--csv/--plot written.
 * Returns 0, or the first failing point's exit code (the others still
 * run), or 2 when a file could not be written. */
int sweep_run(Ctx *c, Node *prog, KernelInfo *k, CmdLine *cl, SweepAct act);

/* options.c */
/* "tilec: " and the message (fmt with one %s), a pointer to --help; EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);
void cmdline_init(CmdLine *cl, int argc, char **argv);
/* Applies argv's options to cl; -1 to go on, else the exit code (0 after
 * --help or --version, 2 after a usage error, said on stderr). */
int cmdline_parse(CmdLine *cl, int argc, char **argv);
/* How many arguments from a on a --ncu child run leaves out (0, 1, or 2
 * for an option with its value in the next argument). */
int cmdline_child_skips(const char *a);

/* tilec.c */
/* How lib/cubin.c builds for this command line (the cache, -v). */
LibBuild build_options(const Options *opts, const char *arch);

/* emit_lib.c */
/* `--emit-lib DIR`: DIR/NAME.h and DIR/NAME.c for kernel k, its cubins for
 * each of archs embedded, with a launcher that needs only the CUDA driver.
 * Returns the exit code. */
int emit_lib_pipeline(Ctx *c, Node *prog, KernelInfo *p, const char *file, const char *dir, const char *const *archs,
                      int narchs, const Options *opts);
int emit_lib(Ctx *c, Node *prog, KernelInfo *k, Override *overrides, int n_overrides, const char *file, const char *dir,
             const char *const *archs, int narchs, const Options *opts);

/* ncu.c */
/* A CUDA command-line tool (ncu, cuobjdump) on the PATH, else in
 * /usr/local/cuda/bin; NULL when absent. buf holds the path. */
const char *find_cuda_tool(const char *name, char *buf, size_t n);
/* `--ncu`: the kernel once more under Nsight Compute (same arguments,
 * --run), its counters printed after the report; says so plainly when ncu
 * is absent. */
int ncu_report(int argc, char **argv, const char *symbol);
/* `--ncu --lines`: the kernel once more under Nsight Compute, built with
 * --lineinfo, its source page's warp stall samples per line of `file`
 * into out (the hottest lines). False (out->note says why) when there are
 * none. */
bool ncu_source_lines(int argc, char **argv, const char *symbol, const char *file, SourceLines *out);

/* sass.c */
typedef struct SassCounts {
    int hgmma, qgmma, hmma; /* tensor-core MMAs: wgmma (Hopper; QGMMA: fp8), mma.sync */
    int utmaldg, ldgsts;    /* asynchronous copies: TMA loads, cp.async */
    int utmastg;            /* TMA stores (the sm_90a epilogue) */
    int ldsm;               /* ldmatrix */
    int stl, ldl;           /* local memory: spills (and local arrays) */
} SassCounts;
/* "HGMMA 2, QGMMA 0, ... LDL 0": the counts as --emit-sass and --profile -v print them */
void sass_print_counts(FILE *o, const char *prefix, const SassCounts *c);
/* `--emit-sass`: cuobjdump's SASS and a count line; exit code (4 when
 * cuobjdump is missing or fails, said on stderr). */
int sass_print(const void *cubin, size_t size, FILE *out);
/* The static counts of the cubin's instructions; false (said on stderr)
 * without cuobjdump. */
bool sass_count(const void *cubin, size_t size, SassCounts *c);
void sass_count_text(const char *text, SassCounts *c);

/* autotune.c */
/* `--autotune`: every configuration of the kernel's tune lists (less those
 * --set fixes), pruned by what cannot fit the target, compiled in parallel,
 * verified and timed on the GPU; the fastest verified one is stored in the
 * cache for later --run/--profile. Returns the exit code. */
int autotune(Ctx *c, Node *prog, KernelInfo *k, const char *file, const char *arch, Override *user, int n_user,
             const Options *opts, const char *json_path);
/* The tune space: the tunables of k with lists that user does not fix
 * (into tun, at most TUNE_MAX_VARS), and the count of their combinations
 * in *space; returns how many tunables. */
enum { TUNE_MAX_VARS = 16 };
int tune_space(KernelInfo *k, const Override *user, int n_user, Sym **tun, int64_t *space);
/* Combination idx of the space as overrides into ov (the last tunable's
 * list varies fastest); returns their count. */
int tune_values(Sym *const *tun, int nt, int64_t idx, Override *ov);
/* "BM=128,BN=256" for the values tune_values wrote (in the tunables'
 * order), cut to fit size. */
void tune_label(char *out, size_t size, const Override *ov, int n);
/* Diagnostics of a trial compile (a candidate that may not fit) go to
 * quiet and do not count as the user's errors: quiet_begin redirects them
 * (where quiet is not NULL), quiet_end restores the context and says
 * whether the trial reported none. */
typedef struct {
    FILE *err;
    int errors;
} QuietSpan;
QuietSpan quiet_begin(Ctx *c, FILE *quiet);
bool quiet_end(Ctx *c, QuietSpan s);
/* The kernel checked again with user's overrides and cand's values, its
 * sizes compiled in or not; NULL where they do not fit (diagnostics go to
 * quiet). */
KernelInfo *tune_specialise(Ctx *c, Node *prog, const char *kernel, const Override *user, int n_user,
                            const Override *cand, int n_cand, bool sizes_compiled_in, const char *arch, FILE *quiet);
/* The autotuned configuration stored for k (same source, values, target
 * and device), as overrides appended to ov (tunables --set did not fix);
 * returns how many were appended, and says so on stderr. */
int autotune_lookup(Ctx *c, KernelInfo *k, const char *arch, const Options *opts, Override *ov, int n_ov, int max);

/* tile_choice.c */
/* Where user's overrides give sizes and the target is sm_90a: the tune
 * values the tile model prices cheapest at those sizes, as overrides
 * appended to ov (tunables --set did not fix), where it puts them enough
 * faster than the defaults; returns how many were appended (-v says
 * which, and every price). *checked_again: whether it checked the kernel
 * with other values (sema's annotations of the program are then theirs:
 * the caller checks it again before lowering). */
int tile_choice(Ctx *c, Node *prog, KernelInfo *k, const Options *opts, Override *ov, int n_ov, int max,
                bool *checked_again);

#endif
