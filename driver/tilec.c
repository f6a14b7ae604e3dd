/* tilec.c - the command line (LANGUAGE.md §7): a thin layer over libtilec. */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

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
    "  --emit-ptx           print the PTX (NVRTC)\n"
    "  --emit-sass          print the SASS of the cubin (needs cuobjdump) and a count of\n"
    "                       HGMMA/QGMMA/HMMA, UTMALDG/LDGSTS, UTMASTG, LDSM and STL/LDL instructions\n"
    "  --emit-cubin -o FILE write the cubin (NVRTC); -o FILE also writes what the other\n"
    "                       --emit actions (but --emit-sass) print\n"
    "  --run                compile, run once on generated inputs, verify against the reference\n"
    "  --profile            --run, then a consistency check, a benchmark and a roofline report\n"
    "  --autotune           search the tune lists; later --run/--profile use the fastest\n"
    "                       verified configuration (--json FILE lists every candidate)\n"
    "\n"
    "Options:\n"
    "  --kernel NAME        the kernel to use (default: every kernel for --check,\n"
    "                       else the only one)\n"
    "  --arch sm_XX[a]      target (default: the GPU present, else sm_90a)\n"
    "  --backend nvrtc      how PTX is made (NVRTC; the LLVM backend is not built yet)\n"
    "  --supply normal|uniform|integer|ones, --seed N\n"
    "                       how --run generates inputs (default: normal, seed 0)\n"
    "  --rtol X, --atol X   verification tolerances (default: by output dtype)\n"
    "  --consistency N      runs compared bitwise for the race check (default 10; 0 skips)\n"
    "  --bench-backend event|graph, --max-noise PCT, --max-time S\n"
    "                       how samples are taken and when sampling stops (0.5%, 2 s)\n"
    "  --compare cublas     also time cuBLAS on the same problem (matmul-shaped references)\n"
    "  --ncu                also run once under Nsight Compute (where present) for its counters\n"
    "  --json FILE, --report FILE, --trace FILE, --roofline FILE.svg\n"
    "                       schema-1 JSON, markdown report, Chrome trace, roofline plot\n"
    "  --cache-dir DIR, --no-cache\n"
    "                       kernel cache (default: $TILEC_CACHE_DIR, $XDG_CACHE_HOME/tilec,\n"
    "                       ~/.cache/tilec)\n"
    "  --set NAME=VALUE[,NAME=VALUE...]\n"
    "                       override sizes, scalar parameters, where constants and tunables\n"
    "  -q, -v               quiet, verbose\n"
    "  --help, --version    this text; the version\n"
    "\n"
    "Exit codes: 0 success, 1 the source has errors, 2 bad command line,\n"
    "3 verification failed, 4 CUDA, driver or NVRTC failure.\n";

/* Options of LANGUAGE.md §7 that later layers of tilec implement. */
bool verbose;

/* --name VALUE or --name=VALUE; advances *i past a separate value. *val is
 * NULL when the value is missing. */
static bool value_option(int argc, char **argv, int *i, const char *name, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != 0 && a[n] != '=')) return false;
    if (a[n] == '=') *val = a + n + 1;
    else *val = *i + 1 < argc ? argv[++*i] : NULL;
    return true;
}

/* sm_80, sm_90a, ... -> 80, 90; 0 when malformed. */
static int parse_arch(const char *a) {
    bool specific;
    return ir_arch_number(a, &specific);
}


/* Generated code that does not compile is a tilec bug: say so in one
 * sentence (res->error has NVRTC's first error) and exit 4. The evidence (source and
 * log) goes to tilec's cache directory, under failed/, and nowhere else: no
 * input may make tilec write outside its cache and the files it was asked
 * for. With the cache off nothing is kept (--emit-cuda shows the source). */
static int nvrtc_failed(Ctx *c, const CgKernel *ck, const char *cu_name, const RtCompileResult *res,
                        const Options *opts) {
    RtCache cache;
    char warn[256];
    rt_cache_init(&cache, opts->cache_dir, opts->no_cache, warn);
    char *kept = NULL;
    if (cache.enabled) {
        char *dir = arena_printf(&c->arena, "%s/failed", cache.dir);
        char *src = arena_printf(&c->arena, "%s/%s", dir, cu_name), *log = arena_printf(&c->arena, "%s/%s.nvrtc.log", dir, ck->name);
        if ((mkdir(dir, 0700) == 0 || errno == EEXIST) && file_write_atomic(src, ck->source, ck->source_len) &&
            file_write_atomic(log, res->log, strlen(res->log)))
            kept = arena_printf(&c->arena, "; the source and log are in %s", dir);
    }
    fprintf(stderr, "tilec: %s (this is a bug in tilec%s)\n", res->error, kept ? kept : "; --emit-cuda shows the source");
    return EXIT_CUDA;
}

int obtain_cubin(Ctx *c, const CgKernel *ck, const char *arch, const Options *opts, Binary *bin) {
    memset(bin, 0, sizeof *bin);
    bin->registers = bin->spill_bytes = -1;
    RtCache cache;
    char key[HASH_KEY_SIZE] = "", warn[256];
    rt_cache_init(&cache, opts->cache_dir, opts->no_cache, warn);
    if (warn[0]) fprintf(stderr, "tilec: warning: %s\n", warn);
    if (cache.enabled) {
        const char *parts[] = {ck->source, arch, rt_nvrtc_version(), TILEC_VERSION, "cubin"};
        hash_key(key, parts, 5);
        if (rt_cache_get(&cache, key, &bin->cubin, &bin->size)) {
            bin->cache_hit = true;
            if (verbose) fprintf(stderr, "tilec: cache hit for %s (%s/%s.cubin)\n", ck->name, cache.dir, key);
            return EXIT_OK;
        }
        if (verbose) fprintf(stderr, "tilec: cache miss for %s\n", ck->name);
    }
    RtCompileOptions ro = {.arch = arch, .want_cubin = true};
    RtCompileResult res;
    char *cu_name = arena_printf(&c->arena, "%s.cu", ck->name);
    if (!rt_compile(ck->source, cu_name, &ro, &res)) {
        int rc = nvrtc_failed(c, ck, cu_name, &res, opts);
        rt_compile_result_free(&res);
        return rc;
    }
    if (verbose)
        fprintf(stderr, "tilec: %s for %s: %d registers, %d bytes spill stores, %d bytes spill loads, %lld bytes dynamic shared memory, compiled in %.3f s\n",
                ck->name, arch, res.registers, res.spill_store_bytes, res.spill_load_bytes, (long long)ck->smem_bytes,
                res.seconds);
    if (verbose && res.perf_warning[0]) fprintf(stderr, "tilec: ptxas: %s\n", res.perf_warning);
    rt_cache_put(&cache, key, res.cubin, res.cubin_size);
    bin->cubin = res.cubin;
    bin->size = res.cubin_size;
    res.cubin = NULL;
    bin->compile_s = res.seconds;
    bin->registers = res.registers;
    bin->spill_bytes = res.spill_store_bytes;
    rt_compile_result_free(&res);
    return EXIT_OK;
}

/* Whether paths a and b name one existing file. */
static bool same_file(const char *a, const char *b) {
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* What an --emit action made: to stdout, or to the -o file. */
static int emit_text(const char *out_path, const void *text, size_t len) {
    if (!out_path) {
        fwrite(text, 1, len, stdout);
        return EXIT_OK;
    }
    if (file_write_atomic(out_path, text, len)) return EXIT_OK;
    fprintf(stderr, "tilec: cannot write '%s'\n", out_path);
    return EXIT_USAGE;
}

/* The same for what a printer writes (the syntax tree, the IR). */
typedef void (*Printer)(FILE *out, const void *what);
static void print_ast(FILE *out, const void *program) { ast_print(out, program); }
static void print_ir(FILE *out, const void *kernel) { ir_print(out, kernel); }

static int emit_printed(const char *out_path, Printer print, const void *what) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) die("out of memory printing the output");
    print(m, what);
    fclose(m);
    int rc = emit_text(out_path, text, len);
    free(text);
    return rc;
}

/* Lowers one checked kernel to CUDA C and acts on it. */
static int generate(Ctx *c, KernelInfo *info, Action act, const char *file, const char *arch, const char *out_path,
                    const char *print_after, const Options *opts) {
    IrKernel *k = ir_build(c, info, arch);
    PassOptions po = {.print_after = print_after, .print_to = stderr};
    if (!pass_run_all(k, &po)) return EXIT_SOURCE;
    if (verbose && k->ws_loop) {
        fprintf(stderr, "tilec: kernel '%s' takes the sm_90a path: TMA copies from a producer warpgroup, wgmma in %lld "
                        "consumer threads; %d epilogue store%s through shared memory and TMA\n", info->name->s,
                (long long)k->threads, k->tma_stores.len, k->tma_stores.len == 1 ? "" : "s");
        if (k->store_declined)
            fprintf(stderr, "tilec: kernel '%s': an epilogue store stays a direct one: %s\n", info->name->s, k->store_declined);
        if (k->persistent || k->cluster || k->split_ways)
            fprintf(stderr, "tilec: kernel '%s':%s%s%s%s\n", info->name->s, k->persistent ? " persistent blocks" : "",
                    k->cluster ? " in clusters of two (TMA multicast)" : "",
                    k->split_ways ? arena_printf(&c->arena, ", every tile in %d pieces along the loop", k->split_ways) : "",
                    k->half_tiles ? arena_printf(&c->arena, ", the last %lld tiles in halves of their columns",
                                                 (long long)(k->half_tiles * (k->cluster ? 2 : 1)))
                                  : "");
    } else if (verbose && k->hopper_declined)
        fprintf(stderr, "tilec: kernel '%s' takes the Ampere path on sm_90a: %s\n", info->name->s, k->hopper_declined);
    if (act == ACT_IR) return emit_printed(out_path, print_ir, k);
    CgKernel ck;
    if (!cg_emit(k, file, &ck)) return EXIT_SOURCE;
    int rc = EXIT_OK;
    if (act == ACT_CUDA) {
        rc = emit_text(out_path, ck.source, ck.source_len);
    } else if (act == ACT_PTX) {
        RtCompileOptions ro = {.arch = arch, .want_ptx = true};
        RtCompileResult res;
        char *cu_name = arena_printf(&c->arena, "%s.cu", ck.name);
        if (rt_compile(ck.source, cu_name, &ro, &res)) rc = emit_text(out_path, res.ptx, res.ptx_size);
        else rc = nvrtc_failed(c, &ck, cu_name, &res, opts);
        rt_compile_result_free(&res);
    } else if (act == ACT_CUBIN || act == ACT_SASS || act == ACT_RUN || act == ACT_PROFILE) {
        Binary bin;
        rc = obtain_cubin(c, &ck, arch, opts, &bin);
        if (rc == EXIT_OK && act == ACT_SASS) rc = sass_print(bin.cubin, bin.size, stdout);
        if (rc == EXIT_OK && (act == ACT_RUN || act == ACT_PROFILE) && !opts->have_device) {
            /* everything up to the launch works without a GPU */
            fprintf(stderr, "tilec: %s needs a GPU to run: %s (the kernel was checked and compiled for %s)\n",
                    act == ACT_RUN ? "--run" : "--profile", opts->device_err, arch);
            rc = EXIT_CUDA;
        }
        if (rc == EXIT_OK && act == ACT_CUBIN) rc = emit_text(out_path, bin.cubin, bin.size);
        LaunchSpec launch = launch_of(&ck);
        if (rc == EXIT_OK && act == ACT_RUN) rc = prof_run(info, ck.name, bin.cubin, bin.size, &launch, &opts->run);
        if (rc == EXIT_OK && act == ACT_PROFILE) {
            ProfileTarget t = {.file = file, .symbol = ck.name, .arch = arch, .cubin = bin.cubin, .cubin_size = bin.size,
                               .launch = launch, .cache_hit = bin.cache_hit, .compile_s = bin.compile_s,
                               .spill_bytes = bin.spill_bytes};
            ProfileOptions po2 = opts->profile;
            po2.run = opts->run;
            rc = prof_profile(info, &t, &opts->device, &po2);
            SassCounts sc;
            if (rc == EXIT_OK && verbose && sass_count(bin.cubin, bin.size, &sc))
                sass_print_counts(stdout, "SASS (static counts): ", &sc);
            if (rc == EXIT_OK && opts->ncu) rc = ncu_report(opts->argc, opts->argv, ck.name);
        }
        free(bin.cubin);
    }
    cg_kernel_free(&ck);
    return rc;
}

/* --check's lowering: the passes and the code generator (no NVRTC) on
 * every checked kernel, so that what they refuse is found too; every
 * kernel is lowered, each one's first error reported. */
static int check_lowering(Ctx *c, const PtrVec *kernels, const char *file, const char *arch) {
    int rc = EXIT_OK;
    for (int i = 0; i < kernels->len; i++) {
        int errors = c->errors;
        IrKernel *k = ir_build(c, kernels->items[i], arch);
        if (pass_run_all(k, NULL)) {
            CgKernel ck;
            if (cg_emit(k, file, &ck)) cg_kernel_free(&ck);
        }
        if (c->errors != errors) rc = EXIT_SOURCE;
    }
    return rc;
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("tilec: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilec --help' for the options)\n", stderr);
    return EXIT_USAGE;
}

/* NAME=VALUE with VALUE an integer (decimal or 0x, `_` allowed), a float,
 * true or false. */
static bool parse_override(char *item, Override *o) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item) return false;
    *eq = 0;
    const char *v = eq + 1;
    for (const char *p = item; *p; p++)
        if (!(*p == '_' || (*p >= '0' && *p <= '9' && p != item) || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
            return false;
    o->name = item;
    if (!strcmp(v, "true") || !strcmp(v, "false")) {
        o->i = v[0] == 't';
        o->is_bool = true;
        return true;
    }
    char clean[64];
    size_t n = 0;
    for (const char *p = v; *p; p++) {
        if (*p == '_') continue;
        if (n + 1 >= sizeof clean) return false;
        clean[n++] = *p;
    }
    clean[n] = 0;
    if (n == 0) return false;
    char *end;
    errno = 0;
    long long iv = strtoll(clean, &end, 0);
    if (*end == 0 && errno == 0) {
        o->i = iv;
        return true;
    }
    errno = 0;
    double fv = strtod(clean, &end);
    if (*end == 0 && errno == 0) {
        o->is_float = true;
        o->f = fv;
        return true;
    }
    return false;
}

/* Whether a checked kernel has a tensor parameter called name. */
static bool names_tensor(const PtrVec *kernels, const char *name) {
    for (int i = 0; i < kernels->len; i++) {
        const KernelInfo *k = kernels->items[i];
        for (int j = 0; j < k->params.len; j++) {
            const Sym *p = k->params.items[j];
            if (p->kind == SYM_TENSOR && !strcmp(p->name->s, name)) return true;
        }
    }
    return false;
}

int main(int argc, char **argv) {
    const char *file = NULL, *kernel = NULL, *arch = NULL, *out_path = NULL, *print_after = NULL, *val = NULL;
    Action act = ACT_CHECK;
    Options opts = {.run = {.supply = SUPPLY_NORMAL, .rtol = -1, .atol = -1, .max_full = 1 << 24},
                    .profile = {.bench = prof_bench_defaults(), .consistency = 10}, .argc = argc, .argv = argv};
    Override overrides[64];
    int n_overrides = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--version")) {
            printf("tilec %s\n", TILEC_VERSION);
            return EXIT_OK;
        }
        if (!strcmp(a, "--check") || !strcmp(a, "-q")) continue;
        if (!strcmp(a, "-v")) { verbose = true; continue; }
        if (!strcmp(a, "--emit-ast")) { act = ACT_AST; continue; }
        if (!strcmp(a, "--emit-ir")) { act = ACT_IR; continue; }
        if (!strcmp(a, "--emit-cuda")) { act = ACT_CUDA; continue; }
        if (!strcmp(a, "--emit-ptx")) { act = ACT_PTX; continue; }
        if (!strcmp(a, "--emit-cubin")) { act = ACT_CUBIN; continue; }
        if (!strcmp(a, "--emit-sass")) { act = ACT_SASS; continue; }
        if (!strcmp(a, "--run")) { act = ACT_RUN; continue; }
        if (!strcmp(a, "--profile")) { act = ACT_PROFILE; continue; }
        if (!strcmp(a, "--autotune")) { act = ACT_AUTOTUNE; continue; }
        if (!strcmp(a, "--ncu")) { opts.ncu = true; continue; }
        if (value_option(argc, argv, &i, "--backend", &val)) {
            if (val && !strcmp(val, "nvrtc")) continue; /* the only PTX producer so far */
            if (val && !strcmp(val, "llvm")) return usage_error("%s is not available in this build yet", "--backend llvm");
            return usage_error("--backend: '%s' is not nvrtc or llvm", val ? val : "");
        }
        if (value_option(argc, argv, &i, "--json", &val)) { if (!val) return usage_error("%s needs a file", "--json"); opts.profile.json = val; continue; }
        if (value_option(argc, argv, &i, "--trace", &val)) { if (!val) return usage_error("%s needs a file", "--trace"); opts.profile.trace = val; continue; }
        if (value_option(argc, argv, &i, "--report", &val)) { if (!val) return usage_error("%s needs a file", "--report"); opts.profile.report = val; continue; }
        if (value_option(argc, argv, &i, "--roofline", &val)) { if (!val) return usage_error("%s needs a file", "--roofline"); opts.profile.roofline = val; continue; }
        if (value_option(argc, argv, &i, "--compare", &val)) {
            if (!val || strcmp(val, "cublas") != 0) return usage_error("--compare: '%s' is not cublas", val ? val : "");
            opts.profile.compare = val;
            continue;
        }
        if (value_option(argc, argv, &i, "--bench-backend", &val)) {
            if (!val || (strcmp(val, "event") && strcmp(val, "graph")))
                return usage_error("--bench-backend: '%s' is not event or graph", val ? val : "");
            opts.profile.bench.backend = !strcmp(val, "graph") ? BENCH_GRAPH : BENCH_EVENT;
            continue;
        }
        if (value_option(argc, argv, &i, "--consistency", &val)) {
            char *end;
            long n = val ? strtol(val, &end, 10) : -1;
            if (!val || !*val || *end || n < 0 || n > 1000) return usage_error("--consistency: '%s' is not a count from 0 to 1000", val ? val : "");
            opts.profile.consistency = (int)n;
            continue;
        }
        bool is_noise = value_option(argc, argv, &i, "--max-noise", &val);
        if (is_noise || value_option(argc, argv, &i, "--max-time", &val)) {
            char *end;
            double x = val ? strtod(val, &end) : -1;
            if (!val || !*val || *end || !(x > 0)) return usage_error("'%s' is not a positive number", val ? val : "");
            if (is_noise) opts.profile.bench.max_noise = x / 100.0; /* a percentage */
            else opts.profile.bench.max_time_s = x;
            continue;
        }
        if (!strcmp(a, "--no-cache")) { opts.no_cache = true; continue; }
        if (value_option(argc, argv, &i, "--cache-dir", &val)) {
            if (!val) return usage_error("%s needs a directory", "--cache-dir");
            opts.cache_dir = val;
            continue;
        }
        if (value_option(argc, argv, &i, "--supply", &val)) {
            if (!val || !prof_supply_kind_from_name(val, &opts.run.supply))
                return usage_error("--supply: '%s' is not normal, uniform, integer or ones", val ? val : "");
            continue;
        }
        if (value_option(argc, argv, &i, "--seed", &val)) {
            char *end;
            errno = 0;
            unsigned long long seed = val ? strtoull(val, &end, 0) : 0;
            if (!val || !*val || *end || errno) return usage_error("--seed: '%s' is not a number", val ? val : "");
            opts.run.seed = seed;
            continue;
        }
        bool is_rtol = value_option(argc, argv, &i, "--rtol", &val);
        if (is_rtol || value_option(argc, argv, &i, "--atol", &val)) {
            char *end;
            double x = val ? strtod(val, &end) : -1;
            if (!val || !*val || *end || !(x >= 0)) return usage_error("tolerance '%s' is not a number >= 0", val ? val : "");
            if (is_rtol) opts.run.rtol = x;
            else opts.run.atol = x;
            continue;
        }
        if (!strcmp(a, "--print-ir-after-all")) { print_after = "all"; continue; }
        if (!strncmp(a, "--print-ir-after=", 17)) {
            print_after = a + 17;
            char names[256];
            snprintf(names, sizeof names, "%s", print_after);
            for (char *save = NULL, *p = strtok_r(names, ",", &save); p; p = strtok_r(NULL, ",", &save))
                if (!pass_exists(p)) {
                    fprintf(stderr, "tilec: --print-ir-after: no pass named '%s' (passes: %s)\n", p, pass_names());
                    return EXIT_USAGE;
                }
            continue;
        }
        if (!strcmp(a, "-o")) {
            if (i + 1 >= argc) return usage_error("%s needs a file name", "-o");
            out_path = argv[++i];
            continue;
        }
        if (!strcmp(a, "--arch") || !strncmp(a, "--arch=", 7)) {
            arch = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!arch || !parse_arch(arch)) return usage_error("--arch: '%s' is not sm_XX or sm_XXa", arch ? arch : "");
            if (parse_arch(arch) < 80) return usage_error("--arch: %s is older than sm_80, which tilec does not target", arch);
            char known[256];
            if (!rt_nvrtc_targets(parse_arch(arch), known)) {
                fprintf(stderr, "tilec: --arch: this NVRTC cannot compile for %s (it can for %s)\n", arch, known);
                return EXIT_USAGE;
            }
            /* the arch-specific "a" targets exist from sm_90 on (sm_90a: wgmma, setmaxnreg) */
            if (arch[strlen(arch) - 1] == 'a' && parse_arch(arch) < 90)
                return usage_error("--arch: %s does not exist: arch-specific targets (sm_XXa) start at sm_90a", arch);
            continue;
        }
        if (!strcmp(a, "--kernel") || !strncmp(a, "--kernel=", 9)) {
            kernel = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!kernel || !*kernel) return usage_error("%s needs a kernel name", "--kernel");
            continue;
        }
        if (!strcmp(a, "--set") || !strncmp(a, "--set=", 6)) {
            const char *arg = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!arg) return usage_error("%s needs NAME=VALUE", "--set");
            /* tokenised in a copy: argv stays intact for the --ncu child */
            char *list = strdup(arg);
            if (!list) die("out of memory");
            for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                if (n_overrides == 64) return usage_error("%s: too many values (at most 64)", "--set");
                Override *o = &overrides[n_overrides];
                memset(o, 0, sizeof *o);
                char given[256];
                snprintf(given, sizeof given, "%s", item); /* parse_override cuts item at '=' */
                if (!parse_override(item, o)) {
                    const char *eq = strchr(given, '=');
                    if (eq && o->name) {
                        char what[300];
                        snprintf(what, sizeof what, "%.*s: '%s'", (int)(eq - given), given, eq + 1);
                        return usage_error("--set %s is not a number (an integer, a float, true or false) or is too "
                                           "large", what);
                    }
                    return usage_error("--set: '%s' is not NAME=VALUE", given);
                }
                for (int j = 0; j < n_overrides; j++)
                    if (!strcmp(overrides[j].name, o->name)) return usage_error("--set: '%s' is given twice", o->name);
                n_overrides++;
            }
            continue;
        }
        if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
        if (file) return usage_error("only one input file is allowed (also got '%s')", a);
        file = a;
    }
    if (!file) return usage_error("%s", "no input file");
    if (act == ACT_RUN || act == ACT_PROFILE || act == ACT_AUTOTUNE)
        opts.have_device = rt_device_open(&opts.device, opts.device_err);
    static char own_arch[16];
    if (opts.have_device && !arch) {
        rt_device_arch(&opts.device, own_arch);
        arch = own_arch;
    }
    if (!arch) arch = "sm_90a";
    if (act == ACT_CUBIN && !out_path) return usage_error("%s needs -o FILE", "--emit-cubin");
    /* -o writes what an --emit action prints; the other actions have nothing for it */
    if (out_path && (act < ACT_AST || act > ACT_CUBIN || act == ACT_SASS))
        return usage_error("-o FILE goes with --emit-ast, --emit-ir, --emit-cuda, --emit-ptx or --emit-cubin%s", "");
    if (out_path && file && same_file(out_path, file)) return usage_error("-o '%s' is the input file", out_path);

    Ctx c;
    ctx_init(&c, stderr);
    const char *why;
    if (!source_read(&c.src, file, &why)) {
        if (c.src.too_large) {
            /* A limit of the language, so a located source error. */
            fprintf(stderr, "%s:1:1: error: %s\n", file, why);
            return EXIT_SOURCE;
        }
        fprintf(stderr, "tilec: error: cannot read '%s': %s\n", file, why);
        return EXIT_USAGE;
    }
    Node *prog = fe_parse(&c);
    int rc = EXIT_OK;
    if (c.errors) {
        rc = EXIT_SOURCE;
    } else {
        if (act == ACT_AST) rc = emit_printed(out_path, print_ast, prog);
        if (kernel) {
            bool found = false;
            for (int i = 0; i < prog->u.list.len; i++) {
                Node *it = prog->u.list.items[i];
                if (it->kind == N_KERNEL && !strcmp(it->u.kernel.name->s, kernel)) found = true;
            }
            if (!found) {
                fprintf(stderr, "tilec: no kernel named '%s' in %s; it has:", kernel, file);
                for (int i = 0; i < prog->u.list.len; i++) {
                    Node *it = prog->u.list.items[i];
                    if (it->kind == N_KERNEL) fprintf(stderr, " %s", it->u.kernel.name->s);
                }
                fputc('\n', stderr);
                ctx_free(&c);
                return EXIT_USAGE;
            }
        }
        SemaOptions opt = {.overrides = overrides, .n_overrides = n_overrides, .only_kernel = kernel};
        PtrVec kernels = sema_check(&c, prog, &opt);
        for (int i = 0; i < n_overrides; i++)
            if (overrides[i].invalid) {
                fprintf(stderr, "tilec: --set %s: %s\n", overrides[i].name, overrides[i].invalid);
                ctx_free(&c);
                return EXIT_USAGE;
            }
        if (c.errors) rc = EXIT_SOURCE;
        for (int i = 0; i < n_overrides && rc == EXIT_OK; i++)
            if (!overrides[i].used) {
                if (names_tensor(&kernels, overrides[i].name))
                    fprintf(stderr, "tilec: --set %s: '%s' is a tensor; --set takes the sizes of its dimensions, scalars, "
                                    "where constants and tunables\n", overrides[i].name, overrides[i].name);
                else
                    fprintf(stderr, "tilec: --set %s: no kernel%s has a size, scalar, where constant or tunable named '%s'\n",
                            overrides[i].name, kernel ? " selected" : "", overrides[i].name);
                rc = EXIT_USAGE;
            }
        bool lowers = act >= ACT_IR || print_after;
        if (rc == EXIT_OK && act == ACT_CHECK && !print_after) rc = check_lowering(&c, &kernels, file, arch);
        if (rc == EXIT_OK && lowers) {
            if (kernels.len == 0) {
                fprintf(stderr, "tilec: %s has no kernel\n", file);
                rc = EXIT_SOURCE;
            } else if (kernels.len != 1) {
                fprintf(stderr, "tilec: %s has %d kernels; choose one with --kernel:", file, kernels.len);
                for (int i = 0; i < kernels.len; i++) fprintf(stderr, " %s", ((KernelInfo *)kernels.items[i])->name->s);
                fputc('\n', stderr);
                rc = EXIT_USAGE;
            } else if (act == ACT_AUTOTUNE) {
                rc = autotune(&c, prog, kernels.items[0], file, arch, overrides, n_overrides, &opts, opts.profile.json);
            } else {
                KernelInfo *k = kernels.items[0];
                if (act == ACT_RUN || act == ACT_PROFILE) {
                    /* a stored autotuning result, unless --set fixes it */
                    int added = autotune_lookup(&c, k, arch, &opts, overrides, n_overrides, 64);
                    if (added) {
                        SemaOptions again = {.overrides = overrides, .n_overrides = n_overrides + added, .only_kernel = kernel};
                        PtrVec ks = sema_check(&c, prog, &again);
                        if (c.errors || ks.len != 1) rc = EXIT_SOURCE;
                        else k = ks.items[0];
                    }
                }
                if (rc == EXIT_OK) rc = generate(&c, k, act, file, arch, out_path, print_after, &opts);
            }
        }
    }
    ctx_free(&c);
    return rc;
}
