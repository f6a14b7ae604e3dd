/* options.c - the command line of LANGUAGE.md §7 as one table: each
 * option's spelling, whether it takes a value, whether a --ncu child run
 * drops it, and the function that applies it. tilec.c parses with it and
 * ncu.c asks it which options the child must not repeat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static const char usage[] =
    "usage: tilec [options] FILE.tile\n"
    "\n"
    "Actions (default: --check):\n"
    "  --check              parse, check and lower the program (no NVRTC); exit 0 when it is valid\n"
    "  --emit-ast           print the syntax tree\n"
    "  --emit-ir            print the tile IR after all passes\n"
    "  --print-ir-after=PASS[,PASS], --print-ir-after-all\n"
    "                       print the IR after the named passes (to stderr)\n"
    "  --emit-cuda          print the generated CUDA C (self-contained)\n"
    "  --emit-ptx           print the PTX (NVRTC's, or LLVM's with --backend llvm)\n"
    "  --emit-llvm          print the LLVM module the llvm backend builds, before O3\n"
    "                       (implies --backend llvm)\n"
    "  --emit-sass          print the SASS of the cubin (needs cuobjdump) and a count of\n"
    "                       HGMMA/QGMMA/HMMA, UTMALDG/LDGSTS, UTMASTG, LDSM and STL/LDL instructions\n"
    "  --emit-cubin -o FILE write the cubin; -o FILE also writes what the other\n"
    "                       --emit actions (but --emit-sass) print\n"
    "  --run                compile, run once on generated inputs, verify against the reference\n"
    "  --profile            --run, then a consistency check, a benchmark and a roofline report\n"
    "  --autotune           search the tune lists; later --run/--profile use the fastest\n"
    "                       verified configuration (--json FILE lists every candidate)\n"
    "  --emit-lib DIR       write DIR/NAME.h and DIR/NAME.c: the kernel's cubins for every\n"
    "                       --arch given (repeatable; default sm_80 and sm_90a) and a launcher\n"
    "                       that needs only cuda.h and -lcuda\n"
    "\n"
    "Options:\n"
    "  --kernel NAME        the kernel to use (default: every kernel for --check,\n"
    "                       else the only one)\n"
    "  --arch sm_XX[a]      target (default: the GPU present, else sm_90a); without a GPU\n"
    "                       of that architecture, the SM count and shared memory of its\n"
    "                       preset (sm_90: an H100 SXM / H200, sm_80: an A100)\n"
    "  --backend nvrtc|llvm the code generator: CUDA C compiled by NVRTC (default), or\n"
    "                       LLVM IR through LLVM's NVPTX backend, assembled by ptxas\n"
    "  --supply normal|uniform|integer|ones, --seed N\n"
    "                       how --run generates inputs (default: normal, seed 0)\n"
    "  --rtol X, --atol X   verification tolerances (default: by output dtype)\n"
    "  --consistency N      runs compared bitwise for the race check (default 10; 0 skips);\n"
    "                       within the verification tolerance where float atomics reorder sums\n"
    "  --bench-backend auto|event|graph, --max-noise PCT, --max-time S\n"
    "                       how samples are taken (auto: CUDA graphs for kernels under\n"
    "                       10 us, events otherwise) and when sampling stops (0.5%, 2 s)\n"
    "  --compare cublas     also time cuBLAS on the same problem (matmul-shaped references)\n"
    "  --baseline FILE.json compare with a saved --json of an earlier run: a Metric |\n"
    "                       Previous | Current | Change table and a verdict (faster, slower,\n"
    "                       same or noisy, from both runs' samples)\n"
    "  --fail-if-slower PCT with --baseline: exit 5 when slower by more than PCT percent\n"
    "  --sweep NAME=LIST    profile every value of LIST (repeatable: every combination):\n"
    "                       1024,2048,4096 or ranges 512..16384*2, 64..512+64; one table,\n"
    "                       --json writes an array; at most 64 points\n"
    "  --csv FILE, --plot FILE.svg\n"
    "                       with --sweep: the table as CSV; the rate against the first swept\n"
    "                       size, the --compare peer and the roofline ceiling as a plot\n"
    "  --ncu                also run once under Nsight Compute (where present) for its counters\n"
    "  --lines              with --ncu: the hottest .tile lines by warp stall samples and their\n"
    "                       top stall reasons (a run built with --lineinfo)\n"
    "  --json FILE, --report FILE, --trace FILE, --roofline FILE.svg\n"
    "                       schema-1 JSON, markdown report, Chrome trace, roofline plot\n"
    "  --cache-dir DIR, --no-cache\n"
    "                       kernel cache (default: $TILEC_CACHE_DIR, $XDG_CACHE_HOME/tilec,\n"
    "                       ~/.cache/tilec)\n"
    "  --set NAME=VALUE[,NAME=VALUE...]\n"
    "                       override sizes, scalar parameters, where constants and tunables\n"
    "  --specialise         compile the kernel's dynamic sizes in, at their values\n"
    "  --lineinfo           .tile lines in the cubin's line table (#line directives in the\n"
    "                       CUDA C; debug locations in the llvm backend's module): Nsight\n"
    "                       Compute, compute-sanitizer and cuda-gdb show .tile lines\n"
    "  -q, -v               quiet, verbose\n"
    "  -w, -Werror          no warnings; warnings as errors (a warning says where the\n"
    "                       code leaves a fast path the source asks for, and why)\n"
    "  --help, --version    this text; the version\n"
    "\n"
    "Schedule of the sm_90a path (default: auto, the compiler's choice; for measuring):\n"
    "  --clusters auto|on|off       clusters of two blocks with TMA multicast\n"
    "  --persistent auto|on|off     persistent blocks looping over the tiles (off: also no\n"
    "                               split or half tiles, which run as persistent units)\n"
    "  --split auto|on|off|N        grids of less than a wave: tiles in at most N pieces along K\n"
    "                               (on: as auto)\n"
    "  --halves auto|off            a last wave filled at most half: its tiles in halves\n"
    "  --longest-first auto|off     tiles of unequal length (causal attention) longest first\n"
    "  --variant auto|base|halves|split\n"
    "                               a grid of dynamic sizes: which of its kernels (auto: the\n"
    "                               one a launch at the --set sizes takes, for --run, --profile\n"
    "                               and --sass; else the base one)\n"
    "  --idle-warpgroups auto|skip|off\n"
    "                               warpgroups with nothing to store skip their work (skip),\n"
    "                               and their tiles come last (auto)\n"
    "\n"
    "Exit codes: 0 success, 1 the source has errors, 2 bad command line,\n"
    "3 verification failed, 4 CUDA, driver or NVRTC failure, 5 slower than the\n"
    "--baseline by more than --fail-if-slower.\n";

bool verbose;

/* Every handler returns CONTINUE, or the exit code to stop with. */
enum { CONTINUE = -1 };

int usage_error(const char *fmt, const char *arg) {
    fputs("tilec: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilec --help' for the options)\n", stderr);
    return EXIT_USAGE;
}

static int opt_backend(CmdLine *cl, const char *v) {
    char err[300];
    if (!lib_parse_backend(v, &cl->opts.backend, err)) return usage_error("--backend: %s", err);
    return CONTINUE;
}

/* ---- the actions ---- */

static int act(CmdLine *cl, Action a) {
    cl->act = a;
    return CONTINUE;
}
static int opt_check(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_CHECK); }
static int opt_emit_ast(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_AST); }
static int opt_emit_ir(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_IR); }
static int opt_emit_cuda(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_CUDA); }
static int opt_emit_ptx(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_PTX); }
static int opt_emit_llvm(CmdLine *cl, const char *v) {
    (void)v;
    int rc = opt_backend(cl, "llvm");
    return rc == CONTINUE ? act(cl, ACT_LLVM) : rc;
}
static int opt_emit_cubin(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_CUBIN); }
static int opt_emit_sass(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_SASS); }
static int opt_run(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_RUN); }
static int opt_profile(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_PROFILE); }
static int opt_autotune(CmdLine *cl, const char *v) { return (void)v, act(cl, ACT_AUTOTUNE); }

static int opt_help(CmdLine *cl, const char *v) {
    (void)cl, (void)v;
    fputs(usage, stdout);
    return EXIT_OK;
}

static int opt_version(CmdLine *cl, const char *v) {
    (void)cl, (void)v;
    printf("tilec %s\n", TILEC_VERSION);
    return EXIT_OK;
}

static int opt_quiet(CmdLine *cl, const char *v) { return (void)cl, (void)v, CONTINUE; }

static int opt_no_warnings(CmdLine *cl, const char *v) {
    (void)v;
    cl->no_warnings = true;
    return CONTINUE;
}

static int opt_werror(CmdLine *cl, const char *v) {
    (void)v;
    cl->warnings_are_errors = true;
    return CONTINUE;
}

static int opt_verbose(CmdLine *cl, const char *v) {
    (void)cl, (void)v;
    verbose = true;
    return CONTINUE;
}

static int opt_print_ir_after(CmdLine *cl, const char *v) {
    char names[256];
    snprintf(names, sizeof names, "%s", v);
    for (char *save = NULL, *p = strtok_r(names, ",", &save); p; p = strtok_r(NULL, ",", &save))
        if (!pass_exists(p)) {
            fprintf(stderr, "tilec: --print-ir-after: no pass named '%s' (passes: %s)\n", p, pass_names());
            return EXIT_USAGE;
        }
    cl->print_after = v;
    return CONTINUE;
}

static int opt_print_ir_after_all(CmdLine *cl, const char *v) {
    (void)v;
    cl->print_after = "all";
    return CONTINUE;
}

/* ---- what to compile, and for what ---- */

static int opt_out(CmdLine *cl, const char *v) {
    cl->out_path = v;
    return CONTINUE;
}

static int opt_kernel(CmdLine *cl, const char *v) {
    if (!*v) return usage_error("%s needs a kernel name", "--kernel");
    cl->kernel = v;
    return CONTINUE;
}

static int opt_arch(CmdLine *cl, const char *v) {
    char err[300];
    if (!lib_check_arch(v, err)) return usage_error("--arch: %s", err);
    cl->arch = v;
    if (cl->narchs == MAX_EMIT_ARCHS) return usage_error("--arch: at most %s targets", "8");
    cl->archs[cl->narchs++] = v;
    return CONTINUE;
}

static int opt_emit_lib(CmdLine *cl, const char *v) {
    cl->lib_dir = v;
    return act(cl, ACT_LIB);
}

static int opt_set(CmdLine *cl, const char *v) {
    /* parsed in a copy (argv stays intact for the --ncu child) that stays
     * allocated: the overrides point into it */
    char *list = xstrdup(v), err[300];
    if (!lib_parse_set(list, "--set", cl->overrides, MAX_OVERRIDES, &cl->n_overrides, err))
        return usage_error("%s", err);
    return CONTINUE;
}

/* ---- running and profiling ---- */

static int opt_supply(CmdLine *cl, const char *v) {
    if (!prof_supply_kind_from_name(v, &cl->opts.run.supply))
        return usage_error("--supply: '%s' is not normal, uniform, integer or ones", v);
    return CONTINUE;
}

static int opt_seed(CmdLine *cl, const char *v) {
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(v, &end, 0);
    if (!*v || *end || errno) return usage_error("--seed: '%s' is not a number", v);
    cl->opts.run.seed = seed;
    return CONTINUE;
}

/* A tolerance (>= 0), or -1 for a malformed one. */
static double tolerance(const char *v) {
    char *end;
    double x = strtod(v, &end);
    return !*v || *end || !(x >= 0) ? -1 : x;
}

static int opt_rtol(CmdLine *cl, const char *v) {
    if ((cl->opts.run.rtol = tolerance(v)) < 0) return usage_error("tolerance '%s' is not a number >= 0", v);
    return CONTINUE;
}

static int opt_atol(CmdLine *cl, const char *v) {
    if ((cl->opts.run.atol = tolerance(v)) < 0) return usage_error("tolerance '%s' is not a number >= 0", v);
    return CONTINUE;
}

static int opt_consistency(CmdLine *cl, const char *v) {
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 1000) return usage_error("--consistency: '%s' is not a count from 0 to 1000", v);
    cl->opts.profile.consistency = (int)n;
    return CONTINUE;
}

static int opt_bench_backend(CmdLine *cl, const char *v) {
    if (strcmp(v, "event") && strcmp(v, "graph") && strcmp(v, "auto"))
        return usage_error("--bench-backend: '%s' is not auto, event or graph", v);
    cl->opts.profile.bench.backend = !strcmp(v, "graph") ? BENCH_GRAPH : !strcmp(v, "auto") ? BENCH_AUTO : BENCH_EVENT;
    return CONTINUE;
}

/* A positive number, or -1. */
static double positive(const char *v) {
    char *end;
    double x = strtod(v, &end);
    return !*v || *end || !(x > 0) ? -1 : x;
}

static int opt_max_noise(CmdLine *cl, const char *v) {
    double x = positive(v);
    if (x < 0) return usage_error("'%s' is not a positive number", v);
    cl->opts.profile.bench.max_noise = x / 100.0; /* a percentage */
    return CONTINUE;
}

static int opt_max_time(CmdLine *cl, const char *v) {
    double x = positive(v);
    if (x < 0) return usage_error("'%s' is not a positive number", v);
    cl->opts.profile.bench.max_time_s = x;
    return CONTINUE;
}

static int opt_compare(CmdLine *cl, const char *v) {
    if (strcmp(v, "cublas") != 0) return usage_error("--compare: '%s' is not cublas", v);
    cl->opts.profile.compare = v;
    return CONTINUE;
}

static int opt_baseline(CmdLine *cl, const char *v) { return cl->opts.profile.baseline = v, CONTINUE; }

static int opt_fail_if_slower(CmdLine *cl, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 1000) return usage_error("--fail-if-slower: '%s' is not a percentage >= 0", v);
    cl->opts.profile.fail_if_slower = x;
    return CONTINUE;
}

static int opt_sweep(CmdLine *cl, const char *v) { return sweep_option(cl, v); }
static int opt_csv(CmdLine *cl, const char *v) { return cl->csv = v, CONTINUE; }
static int opt_plot(CmdLine *cl, const char *v) { return cl->plot = v, CONTINUE; }

static int opt_lines(CmdLine *cl, const char *v) {
    (void)v;
    cl->opts.ncu_lines = true;
    return CONTINUE;
}

static int opt_ncu(CmdLine *cl, const char *v) {
    (void)v;
    cl->opts.ncu = true;
    return CONTINUE;
}

static int opt_json(CmdLine *cl, const char *v) { return cl->opts.profile.json = v, CONTINUE; }
static int opt_trace(CmdLine *cl, const char *v) { return cl->opts.profile.trace = v, CONTINUE; }
static int opt_report(CmdLine *cl, const char *v) { return cl->opts.profile.report = v, CONTINUE; }
static int opt_roofline(CmdLine *cl, const char *v) { return cl->opts.profile.roofline = v, CONTINUE; }
static int opt_cache_dir(CmdLine *cl, const char *v) { return cl->opts.cache_dir = v, CONTINUE; }

static int opt_specialise(CmdLine *cl, const char *v) {
    (void)v;
    cl->opts.specialise = true;
    return CONTINUE;
}

static int opt_lineinfo(CmdLine *cl, const char *v) {
    (void)v;
    cl->opts.lineinfo = true;
    return CONTINUE;
}

static int opt_no_cache(CmdLine *cl, const char *v) {
    (void)v;
    cl->opts.no_cache = true;
    return CONTINUE;
}

/* ---- the schedule of the sm_90a path ---- */

/* auto|on|off into *c (allow_on false: auto|off); false when it is neither. */
static bool choice(const char *v, bool allow_on, Choice *c) {
    if (!strcmp(v, "auto")) *c = CHOICE_AUTO;
    else if (!strcmp(v, "off")) *c = CHOICE_OFF;
    else if (allow_on && !strcmp(v, "on")) *c = CHOICE_ON;
    else return false;
    return true;
}

static int opt_clusters(CmdLine *cl, const char *v) {
    if (!choice(v, true, &cl->opts.plan.clusters)) return usage_error("--clusters: '%s' is not auto, on or off", v);
    return CONTINUE;
}

static int opt_persistent(CmdLine *cl, const char *v) {
    if (!choice(v, true, &cl->opts.plan.persistent)) return usage_error("--persistent: '%s' is not auto, on or off", v);
    return CONTINUE;
}

static int opt_halves(CmdLine *cl, const char *v) {
    if (!choice(v, false, &cl->opts.plan.halves)) return usage_error("--halves: '%s' is not auto or off", v);
    return CONTINUE;
}

static int opt_longest_first(CmdLine *cl, const char *v) {
    if (!choice(v, false, &cl->opts.plan.longest_first)) return usage_error("--longest-first: '%s' is not auto or off", v);
    return CONTINUE;
}

static int opt_split(CmdLine *cl, const char *v) {
    char *end;
    long n = strtol(v, &end, 10);
    if (!strcmp(v, "auto") || !strcmp(v, "on")) cl->opts.plan.split_max = PLAN_SPLIT_MAX;
    else if (!strcmp(v, "off")) cl->opts.plan.split_max = 0;
    else if (*v && !*end && n >= 2 && n <= PLAN_SPLIT_MAX) cl->opts.plan.split_max = (int)n;
    else return usage_error("--split: '%s' is not auto, on, off or a count of pieces from 2 to 16", v);
    return CONTINUE;
}

static int opt_variant(CmdLine *cl, const char *v) {
    cl->opts.variant = -1;
    for (int i = 0; i < VARIANT_COUNT; i++)
        if (!strcmp(v, plan_variant_name((LaunchVariant)i))) cl->opts.variant = i;
    if (cl->opts.variant < 0 && strcmp(v, "auto")) return usage_error("--variant: '%s' is not auto, base, halves or split", v);
    return CONTINUE;
}

static int opt_idle_warpgroups(CmdLine *cl, const char *v) {
    if (!strcmp(v, "auto")) cl->opts.plan.idle = IDLE_AUTO;
    else if (!strcmp(v, "skip")) cl->opts.plan.idle = IDLE_SKIP;
    else if (!strcmp(v, "off")) cl->opts.plan.idle = IDLE_OFF;
    else return usage_error("--idle-warpgroups: '%s' is not auto, skip or off", v);
    return CONTINUE;
}

/* ---- the table ---- */

typedef struct OptionSpec {
    const char *name, *alias;
    bool takes_value;
    const char *needs;       /* what the value is, for "--x needs ..." */
    bool child_drops;        /* a --ncu child run does not repeat it */
    int (*apply)(CmdLine *cl, const char *value);
} OptionSpec;

static const OptionSpec options[] = {
    {"--help", "-h", false, NULL, false, opt_help},
    {"--version", NULL, false, NULL, false, opt_version},
    {"--check", NULL, false, NULL, false, opt_check},
    {"-q", NULL, false, NULL, true, opt_quiet},
    {"-v", NULL, false, NULL, true, opt_verbose},
    {"-w", NULL, false, NULL, false, opt_no_warnings},
    {"-Werror", NULL, false, NULL, false, opt_werror},
    {"--emit-ast", NULL, false, NULL, false, opt_emit_ast},
    {"--emit-ir", NULL, false, NULL, false, opt_emit_ir},
    {"--emit-cuda", NULL, false, NULL, false, opt_emit_cuda},
    {"--emit-ptx", NULL, false, NULL, false, opt_emit_ptx},
    {"--emit-llvm", NULL, false, NULL, false, opt_emit_llvm},
    {"--emit-cubin", NULL, false, NULL, false, opt_emit_cubin},
    {"--emit-sass", NULL, false, NULL, false, opt_emit_sass},
    {"--run", NULL, false, NULL, true, opt_run},
    {"--profile", NULL, false, NULL, true, opt_profile},
    {"--autotune", NULL, false, NULL, false, opt_autotune},
    {"--emit-lib", NULL, true, "a directory", false, opt_emit_lib},
    {"--print-ir-after-all", NULL, false, NULL, false, opt_print_ir_after_all},
    {"--print-ir-after", NULL, true, "a pass name", false, opt_print_ir_after},
    {"-o", NULL, true, "a file name", false, opt_out},
    {"--kernel", NULL, true, "a kernel name", false, opt_kernel},
    {"--arch", NULL, true, "sm_XX or sm_XXa", false, opt_arch},
    {"--backend", NULL, true, "nvrtc or llvm", false, opt_backend},
    {"--set", NULL, true, "NAME=VALUE", false, opt_set},
    {"--specialise", NULL, false, NULL, false, opt_specialise},
    {"--lineinfo", NULL, false, NULL, false, opt_lineinfo},
    {"--supply", NULL, true, "a distribution", false, opt_supply},
    {"--seed", NULL, true, "a number", false, opt_seed},
    {"--rtol", NULL, true, "a tolerance", false, opt_rtol},
    {"--atol", NULL, true, "a tolerance", false, opt_atol},
    {"--consistency", NULL, true, "a count", true, opt_consistency},
    {"--bench-backend", NULL, true, "auto, event or graph", true, opt_bench_backend},
    {"--max-noise", NULL, true, "a percentage", true, opt_max_noise},
    {"--max-time", NULL, true, "seconds", true, opt_max_time},
    {"--compare", NULL, true, "cublas", true, opt_compare},
    {"--baseline", NULL, true, "a --json file", true, opt_baseline},
    {"--fail-if-slower", NULL, true, "a percentage", true, opt_fail_if_slower},
    {"--sweep", NULL, true, "NAME=LIST", true, opt_sweep},
    {"--csv", NULL, true, "a file", true, opt_csv},
    {"--plot", NULL, true, "a file", true, opt_plot},
    {"--ncu", NULL, false, NULL, true, opt_ncu},
    {"--lines", NULL, false, NULL, true, opt_lines},
    {"--json", NULL, true, "a file", true, opt_json},
    {"--trace", NULL, true, "a file", true, opt_trace},
    {"--report", NULL, true, "a file", true, opt_report},
    {"--roofline", NULL, true, "a file", true, opt_roofline},
    {"--cache-dir", NULL, true, "a directory", false, opt_cache_dir},
    {"--no-cache", NULL, false, NULL, false, opt_no_cache},
    {"--clusters", NULL, true, "auto, on or off", false, opt_clusters},
    {"--persistent", NULL, true, "auto, on or off", false, opt_persistent},
    {"--split", NULL, true, "auto, on, off or a count", false, opt_split},
    {"--halves", NULL, true, "auto or off", false, opt_halves},
    {"--variant", NULL, true, "auto, base, halves or split", false, opt_variant},
    {"--longest-first", NULL, true, "auto or off", false, opt_longest_first},
    {"--idle-warpgroups", NULL, true, "auto, skip or off", false, opt_idle_warpgroups},
};
enum { NOPTIONS = sizeof options / sizeof *options };

/* The option argument a spells (--name, or --name=value for one that takes
 * a value; *inline_value then points after the '='), or NULL. */
static const OptionSpec *find(const char *a, const char **inline_value) {
    *inline_value = NULL;
    for (int i = 0; i < NOPTIONS; i++) {
        const OptionSpec *o = &options[i];
        if (!strcmp(a, o->name) || (o->alias && !strcmp(a, o->alias))) return o;
        size_t n = strlen(o->name);
        if (o->takes_value && !strncmp(a, o->name, n) && a[n] == '=') {
            *inline_value = a + n + 1;
            return o;
        }
    }
    return NULL;
}

void cmdline_init(CmdLine *cl, int argc, char **argv) {
    memset(cl, 0, sizeof *cl);
    cl->act = ACT_CHECK;
    cl->opts = (Options){.run = {.supply = SUPPLY_NORMAL, .rtol = -1, .atol = -1, .max_full = 1 << 24},
                         .profile = {.bench = prof_bench_defaults(), .consistency = 10, .fail_if_slower = -1},
                         .plan = plan_defaults(),
                         .variant = -1,
                         .argc = argc,
                         .argv = argv};
}

int cmdline_parse(CmdLine *cl, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value;
        const OptionSpec *o = find(a, &value);
        if (!o) {
            if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
            if (cl->file) return usage_error("only one input file is allowed (also got '%s')", a);
            cl->file = a;
            continue;
        }
        if (o->takes_value && !value) {
            if (i + 1 >= argc) {
                char what[300];
                snprintf(what, sizeof what, "%s needs %s", o->name, o->needs);
                return usage_error("%s", what);
            }
            value = argv[++i];
        }
        int rc = o->apply(cl, value);
        if (rc != CONTINUE) return rc;
    }
    if (!cl->file) return usage_error("%s", "no input file");
    if (cl->opts.profile.fail_if_slower >= 0 && !cl->opts.profile.baseline)
        return usage_error("%s compares with a --baseline FILE.json; give one", "--fail-if-slower");
    if (cl->nsweeps > 0) {
        int points = 1;
        for (int a = 0; a < cl->nsweeps; a++) points *= cl->sweeps[a].n;
        char n[32];
        snprintf(n, sizeof n, "%d", points);
        if (points > SWEEP_MAX_POINTS)
            return usage_error("--sweep: %s points; at most 64 are profiled in one run (shorten a list)", n);
        if (cl->act != ACT_PROFILE) return usage_error("%s profiles every point; add --profile", "--sweep");
        if (cl->opts.profile.baseline) return usage_error("%s compares one run; it does not go with --sweep", "--baseline");
        if (cl->opts.profile.report || cl->opts.profile.trace || cl->opts.profile.roofline || cl->opts.ncu)
            return usage_error("%s writes one table; --report, --trace, --roofline and --ncu describe a single run",
                               "--sweep");
        for (int a = 0; a < cl->nsweeps; a++)
            for (int i = 0; i < cl->n_overrides; i++)
                if (!strcmp(cl->overrides[i].name, cl->sweeps[a].name))
                    return usage_error("'%s' is both swept and --set", cl->sweeps[a].name);
    }
    if (cl->opts.ncu_lines && !cl->opts.ncu) return usage_error("%s goes with --ncu (Nsight Compute's source counters)", "--lines");
    if ((cl->csv || cl->plot) && cl->nsweeps == 0)
        return usage_error("%s writes a sweep's table; add --sweep NAME=LIST", cl->csv ? "--csv" : "--plot");
    if (cl->opts.profile.baseline && cl->act != ACT_PROFILE)
        return usage_error("%s compares a --profile run with an earlier one; add --profile", "--baseline");
    if (cl->act == ACT_CUBIN && !cl->out_path) return usage_error("%s needs -o FILE", "--emit-cubin");
    if (cl->act == ACT_LLVM && cl->opts.backend != CG_LLVM)
        return usage_error("%s prints the llvm backend's module, not --backend nvrtc's", "--emit-llvm");
    if (cl->act == ACT_CUDA && cl->opts.backend == CG_LLVM)
        return usage_error("%s prints the nvrtc backend's CUDA C; the llvm backend's module is --emit-llvm",
                           "--emit-cuda");
    /* -o writes what an --emit action prints; the other actions have nothing for it */
    if (cl->out_path && (cl->act < ACT_AST || cl->act > ACT_CUBIN || cl->act == ACT_SASS))
        return usage_error("-o FILE goes with --emit-ast, --emit-ir, --emit-cuda, --emit-ptx or --emit-cubin%s", "");
    return CONTINUE;
}

int cmdline_child_skips(const char *a) {
    const char *value;
    const OptionSpec *o = find(a, &value);
    if (!o || !o->child_drops) return 0;
    return o->takes_value && !value ? 2 : 1;
}
