/* nvrtc.c - compiling CUDA C++ to PTX and cubins with NVRTC, and reading the
 * register, spill and shared-memory counts out of the ptxas -v log. */
#include "runtime.h"
#include "support.h"

#include <cuda.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* NVRTC 13 has only the CUDA runtime headers built in; cuda_fp16.h and
 * cuda_bf16.h come from the toolkit's include directory (CMake passes the
 * one it found). */
#ifndef TILEC_CUDA_INCLUDE_DIR
#define TILEC_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

/* Options every compile gets, after --gpu-architecture. ptxas's -v output
 * lands in the NVRTC program log (NVRTC 13 also accepts -Xptxas=-v and
 * --ptxas-options=--verbose, with the same effect). */
static const char *const fixed_options[] = {
    "-default-device",
    "--std=c++17",
    "--ptxas-options=-v",
    ("-I" TILEC_CUDA_INCLUDE_DIR),
#if CUDA_VERSION >= 13000
    /* Where a driver is installed, NVRTC 13 reuses its compute cache and a
     * repeated compile returns an empty ptxas log (no register or spill
     * counts); tilec caches cubins itself. */
    "--no-cache",
#endif
};
enum { N_FIXED = sizeof fixed_options / sizeof fixed_options[0] };

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Architecture names are short identifiers ("sm_90a", "compute_80"); this
 * keeps anything else out of the option string and the error sentence. */
static bool arch_name_ok(const char *arch) {
    size_t n = strlen(arch);
    if (n == 0 || n > 32) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = arch[i];
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && ch != '_') return false;
    }
    return true;
}

/* ---- the ptxas -v log ----
 * ptxas prints comma-separated "N unit" fields, e.g.
 *   ptxas info    : Used 128 registers, used 1 barriers, 384 bytes smem, 384 bytes cmem[0]
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 * (older ptxas indents the second line with spaces instead of "ptxas ."
 * and may put "N bytes smem" on its own line). A field counts when it ends
 * with a known unit and the word before the unit is a plain number, so
 * function names and other text in the line cannot be mistaken for counts. */

/* Where a field [b, e) ends with " <unit>" preceded by a number, stores the
 * number in *v and returns true. */
static bool field_count(const char *b, const char *e, const char *unit, int *v) {
    size_t ulen = strlen(unit);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    if ((size_t)(e - b) < ulen + 2 || memcmp(e - ulen, unit, ulen) != 0) return false;
    const char *p = e - ulen;
    if (p[-1] != ' ') return false;
    p--;
    const char *digits_end = p;
    while (p > b && p[-1] >= '0' && p[-1] <= '9') p--;
    if (p == digits_end || (p > b && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '.' && p[-1] != ':'))
        return false;
    long n = 0;
    for (const char *q = p; q < digits_end; q++) {
        n = n * 10 + (*q - '0');
        if (n > 1000000000L) return false;  /* no real count is this large */
    }
    *v = (int)n;
    return true;
}

static void keep_max(int *slot, int v) {
    if (v > *slot) *slot = v;
}

void rt_parse_ptxas_log(const char *log, RtCompileResult *r) {
    const struct {
        const char *unit;
        int *slot;
    } units[] = {
        {"registers", &r->registers},
        {"bytes spill stores", &r->spill_store_bytes},
        {"bytes spill loads", &r->spill_load_bytes},
        {"bytes smem", &r->static_smem_bytes},
        {"bytes stack frame", &r->stack_frame_bytes},
    };
    for (const char *line = log; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol) eol = line + strlen(line);
        /* ptxas -v lines start with "ptxas", or with spaces in older
         * releases for the stack-frame line. */
        bool ptxas = strncmp(line, "ptxas", 5) == 0 || line[0] == ' ' || line[0] == '\t';
        for (const char *f = line; ptxas && f < eol;) {
            const char *comma = memchr(f, ',', (size_t)(eol - f));
            const char *fe = comma ? comma : eol;
            for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
                int v;
                if (field_count(f, fe, units[i].unit, &v)) keep_max(units[i].slot, v);
            }
            f = comma ? comma + 1 : eol;
        }
        line = *eol ? eol + 1 : eol;
    }
    /* ptxas leaves zero fields out (no "0 bytes smem" for a kernel without
     * shared memory), so once it has reported registers a missing count is 0. */
    if (r->registers >= 0) {
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (*units[i].slot < 0) *units[i].slot = 0;
    }
}

bool rt_ptxas_perf_warning(const char *log, char out[256]) {
    out[0] = 0;
    const char *hit = log ? strstr(log, "Potential Performance Loss") : NULL;
    if (!hit) return false;
    const char *start = hit, *eol = strchr(hit, '\n');
    /* back to the "(C7514) " code in front of it, if on the same line */
    while (start > log && start[-1] != '\n' && start[-1] != ':') start--;
    while (*start == ' ') start++;
    int len = eol ? (int)(eol - start) : (int)strlen(start);
    snprintf(out, 256, "%.*s", len, start);
    return true;
}

/* The first log line that reports an error, for the one-sentence summary. */
static bool first_error_line(const char *log, const char **b, int *len) {
    for (const char *line = log; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol) eol = line + strlen(line);
        for (const char *p = line; p + 5 <= eol; p++) {
            if (memcmp(p, "error", 5) == 0) {
                while (eol > line && (eol[-1] == '\r' || eol[-1] == ' ')) eol--;
                *b = line;
                *len = (int)(eol - line > 200 ? 200 : eol - line);
                return true;
            }
        }
        line = *eol ? eol + 1 : eol;
    }
    return false;
}

/* The log line where the front end warns that the code reads a variable
 * before its value is set (#549-D): generated code that does is a
 * miscompile (a name read in its own initialiser), never to be run. */
static bool read_before_set(const char *log, const char **b, int *len) {
    const char *hit = log ? strstr(log, "is used before its value is set") : NULL;
    if (!hit) return false;
    const char *start = hit, *eol = strchr(hit, '\n');
    while (start > log && start[-1] != '\n') start--;
    *b = start;
    *len = (int)((eol ? eol : hit + strlen(hit)) - start);
    if (*len > 200) *len = 200;
    return true;
}

static bool fail(RtCompileResult *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(RtCompileResult *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->ok = false;
    free(r->ptx);
    free(r->cubin);
    r->ptx = r->cubin = NULL;
    r->ptx_size = r->cubin_size = 0;
    return false;
}

/* Everything after the option checks; the caller times it and destroys
 * the program. */
static bool compile_program(nvrtcProgram prog, const char *name, const RtCompileOptions *opt,
                            RtCompileResult *r) {
    size_t n_extra = 0;
    while (opt->extra && opt->extra[n_extra]) n_extra++;
    const char **argv = xmalloc((1 + N_FIXED + n_extra) * sizeof *argv);
    char arch_option[64];
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", opt->arch);
    int argc = 0;
    argv[argc++] = arch_option;
    for (size_t i = 0; i < N_FIXED; i++) argv[argc++] = fixed_options[i];
    for (size_t i = 0; i < n_extra; i++) argv[argc++] = opt->extra[i];

    nvrtcResult rc = nvrtcCompileProgram(prog, argc, argv);
    free(argv);

    /* The log is worth keeping whether or not the compile worked. */
    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        char *log = xmalloc(log_size);
        if (nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
            log[log_size - 1] = 0;
            free(r->log);
            r->log = log;
        } else {
            free(log);
        }
    }
    rt_parse_ptxas_log(r->log, r);
    rt_ptxas_perf_warning(r->log, r->perf_warning);

    if (rc != NVRTC_SUCCESS) {
        const char *what = rc == NVRTC_ERROR_INVALID_OPTION ? "rejected the options for compiling"
                                                            : "could not compile";
        const char *line;
        int len;
        if (first_error_line(r->log, &line, &len))
            return fail(r, "NVRTC %s %s for %s: %.*s", what, name, opt->arch, len, line);
        return fail(r, "NVRTC %s %s for %s (%s).", what, name, opt->arch, nvrtcGetErrorString(rc));
    }

    const char *line;
    int len;
    if (read_before_set(r->log, &line, &len))
        return fail(r, "NVRTC warns that %s reads a variable before setting it: %.*s", name, len, line);

    if (opt->want_ptx) {
        size_t n = 0;
        rc = nvrtcGetPTXSize(prog, &n);
        /* The size counts the terminating NUL, so 1 means no PTX at all. */
        if (rc != NVRTC_SUCCESS || n <= 1)
            return fail(r, "NVRTC produced no PTX for %s (%s).", name, nvrtcGetErrorString(rc));
        r->ptx = xmalloc(n);
        rc = nvrtcGetPTX(prog, r->ptx);
        if (rc != NVRTC_SUCCESS)
            return fail(r, "NVRTC could not return the PTX of %s (%s).", name, nvrtcGetErrorString(rc));
        r->ptx[n - 1] = 0;
        r->ptx_size = strlen(r->ptx);
    }
    if (opt->want_cubin) {
        size_t n = 0;
        rc = nvrtcGetCUBINSize(prog, &n);
        /* Options such as -dlto make NVRTC stop before ptxas: no cubin. */
        if (rc != NVRTC_SUCCESS || n == 0)
            return fail(r, "NVRTC produced no cubin for %s (%s).", name, nvrtcGetErrorString(rc));
        r->cubin = xmalloc(n);
        rc = nvrtcGetCUBIN(prog, r->cubin);
        if (rc != NVRTC_SUCCESS)
            return fail(r, "NVRTC could not return the cubin of %s (%s).", name, nvrtcGetErrorString(rc));
        r->cubin_size = n;
    }
    r->ok = true;
    return true;
}

bool rt_compile(const char *source, const char *name, const RtCompileOptions *opt,
                RtCompileResult *out) {
    if (!out) die("rt_compile called without a result");
    double start = now_seconds();
    memset(out, 0, sizeof *out);
    out->log = xstrdup("");
    out->registers = out->spill_store_bytes = out->spill_load_bytes = -1;
    out->static_smem_bytes = out->stack_frame_bytes = -1;
    if (!name) name = "default_program";  /* NVRTC's own name for an unnamed program */

    bool ok;
    if (!source || !opt || !opt->arch) {
        ok = fail(out, "rt_compile needs a source, options and an architecture.");
    } else if (!arch_name_ok(opt->arch)) {
        ok = fail(out, "'%.40s' is not an architecture name such as sm_80 or sm_90a.", opt->arch);
    } else if (opt->want_cubin && strncmp(opt->arch, "sm_", 3) != 0) {
        ok = fail(out, "A cubin needs a real architecture such as sm_80, not %s.", opt->arch);
    } else {
        nvrtcProgram prog;
        nvrtcResult rc = nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
        if (rc != NVRTC_SUCCESS) {
            ok = fail(out, "NVRTC could not create a program for %s (%s).", name, nvrtcGetErrorString(rc));
        } else {
            ok = compile_program(prog, name, opt, out);
            nvrtcDestroyProgram(&prog);
        }
    }
    out->seconds = now_seconds() - start;
    return ok;
}

void rt_compile_result_free(RtCompileResult *r) {
    if (!r) return;
    free(r->log);
    free(r->ptx);
    free(r->cubin);
    r->log = r->ptx = r->cubin = NULL;
    r->ptx_size = r->cubin_size = 0;
}

/* The version string is written once, under pthread_once, and only read
 * afterwards, so concurrent callers never see it change. */
static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char version_text[32];

static void read_version(void) {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
        snprintf(version_text, sizeof version_text, "%d.%d", major, minor);
    else
        snprintf(version_text, sizeof version_text, "unknown");
}

const char *rt_nvrtc_version(void) {
    pthread_once(&version_once, read_version);
    return version_text;
}

bool rt_nvrtc_targets(int sm, char list[256]) {
    int n = 0;
    list[0] = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256) return true; /* cannot tell: let NVRTC say */
    int archs[256];
    if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) return true;
    bool found = false;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        found |= archs[i] == sm;
        int w = snprintf(list + used, 256 - used, "%ssm_%d", i ? ", " : "", archs[i]);
        if (w > 0 && used + (size_t)w < 256) used += (size_t)w;
    }
    return found;
}
