/* tilec.c - the command line (LANGUAGE.md §7): a thin layer over libtilec. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: tilec [options] FILE.tile\n"
    "\n"
    "Actions (default: --check):\n"
    "  --check              parse and check the program; exit 0 when it is valid\n"
    "  --emit-ast           print the syntax tree\n"
    "\n"
    "Options:\n"
    "  --kernel NAME        the kernel to use (default: every kernel for --check)\n"
    "  --set NAME=VALUE[,NAME=VALUE...]\n"
    "                       override sizes, scalar parameters, where constants and tunables\n"
    "  -q, -v               quiet, verbose\n"
    "  --help, --version    this text; the version\n"
    "\n"
    "Exit codes: 0 success, 1 the source has errors, 2 bad command line,\n"
    "3 verification failed, 4 CUDA, driver or NVRTC failure.\n";

/* Options of LANGUAGE.md §7 that later layers of tilec implement. */
static const char *const not_yet[] = {
    "--emit-ir", "--print-ir-after", "--print-ir-after-all", "--emit-cuda", "--emit-ptx", "--emit-cubin",
    "--emit-sass", "--run", "--profile", "--autotune", "--arch", "--backend", "--supply", "--seed",
    "--rtol", "--atol", "--consistency", "--bench-backend", "--max-noise", "--max-time", "--ncu",
    "--json", "--trace", "--report", "--roofline", "--compare", "--cache-dir", "--no-cache", "-o", NULL};

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

int main(int argc, char **argv) {
    const char *file = NULL, *kernel = NULL;
    bool emit_ast = false;
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
        if (!strcmp(a, "--check") || !strcmp(a, "-q") || !strcmp(a, "-v")) continue;
        if (!strcmp(a, "--emit-ast")) { emit_ast = true; continue; }
        if (!strcmp(a, "--kernel") || !strncmp(a, "--kernel=", 9)) {
            kernel = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!kernel || !*kernel) return usage_error("%s needs a kernel name", "--kernel");
            continue;
        }
        if (!strcmp(a, "--set") || !strncmp(a, "--set=", 6)) {
            char *list = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!list) return usage_error("%s needs NAME=VALUE", "--set");
            for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                if (n_overrides == 64) return usage_error("%s: too many values (at most 64)", "--set");
                Override *o = &overrides[n_overrides];
                memset(o, 0, sizeof *o);
                char *copy = item;
                if (!parse_override(copy, o)) return usage_error("--set: '%s' is not NAME=NUMBER", item);
                for (int j = 0; j < n_overrides; j++)
                    if (!strcmp(overrides[j].name, o->name)) return usage_error("--set: '%s' is given twice", o->name);
                n_overrides++;
            }
            continue;
        }
        if (a[0] == '-' && a[1]) {
            for (int j = 0; not_yet[j]; j++) {
                size_t n = strlen(not_yet[j]);
                if (!strncmp(a, not_yet[j], n) && (a[n] == 0 || a[n] == '='))
                    return usage_error("option '%s' is not available in this build yet", not_yet[j]);
            }
            return usage_error("unknown option '%s'", a);
        }
        if (file) return usage_error("only one input file is allowed (also got '%s')", a);
        file = a;
    }
    if (!file) return usage_error("%s", "no input file");

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
        if (emit_ast) ast_print(stdout, prog);
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
        sema_check(&c, prog, &opt);
        for (int i = 0; i < n_overrides; i++)
            if (overrides[i].invalid) {
                fprintf(stderr, "tilec: --set %s: %s\n", overrides[i].name, overrides[i].invalid);
                ctx_free(&c);
                return EXIT_USAGE;
            }
        if (c.errors) rc = EXIT_SOURCE;
        for (int i = 0; i < n_overrides && rc == EXIT_OK; i++)
            if (!overrides[i].used) {
                fprintf(stderr, "tilec: --set %s: no kernel%s has a size, scalar, where constant or tunable named '%s'\n",
                        overrides[i].name, kernel ? " selected" : "", overrides[i].name);
                rc = EXIT_USAGE;
            }
    }
    ctx_free(&c);
    return rc;
}
