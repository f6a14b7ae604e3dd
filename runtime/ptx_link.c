/* ptx_link.c - PTX to a cubin through nvJitLink (the LLVM backend's last
 * step, in place of NVRTC's). libnvJitLink.so is opened with dlopen, as
 * libcuda is: tilec links nothing of it, and a toolkit without it only
 * loses this path. The library is the toolkit's; its own ptxas reads the
 * PTX, so -v gives the same register and spill counts as NVRTC's log. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime.h"
#include "support.h"

typedef void *Handle;
typedef int (*CreateFn)(Handle *, unsigned, const char **);
typedef int (*DestroyFn)(Handle *);
typedef int (*AddDataFn)(Handle, int, const void *, size_t, const char *);
typedef int (*CompleteFn)(Handle);
typedef int (*SizeFn)(Handle, size_t *);
typedef int (*BytesFn)(Handle, void *);
typedef int (*LogFn)(Handle, char *);
typedef int (*VersionFn)(unsigned *, unsigned *);

/* nvJitLink.h's input kind for PTX text */
enum { INPUT_PTX = 2 };

static struct {
    bool loaded;
    CreateFn create;
    DestroyFn destroy;
    AddDataFn add_data;
    CompleteFn complete;
    SizeFn cubin_size, error_log_size, info_log_size;
    BytesFn cubin;
    LogFn error_log, info_log;
    char version[16];
    char why[200];
} jit;
static pthread_once_t jit_once = PTHREAD_ONCE_INIT;

static void *sym(void *lib, const char *name, bool *ok) {
    void *p = dlsym(lib, name);
    if (!p) *ok = false;
    return p;
}

static void jit_load(void) {
    /* the loader's path first, then the toolkit tilec was built with */
    void *lib = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen(TILEC_CUDA_LIB_DIR "/libnvJitLink.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libnvJitLink.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(jit.why, sizeof jit.why, "libnvJitLink (the CUDA toolkit's PTX linker) is not installed");
        return;
    }
    bool ok = true;
    jit.create = (CreateFn)sym(lib, "nvJitLinkCreate", &ok);
    jit.destroy = (DestroyFn)sym(lib, "nvJitLinkDestroy", &ok);
    jit.add_data = (AddDataFn)sym(lib, "nvJitLinkAddData", &ok);
    jit.complete = (CompleteFn)sym(lib, "nvJitLinkComplete", &ok);
    jit.cubin_size = (SizeFn)sym(lib, "nvJitLinkGetLinkedCubinSize", &ok);
    jit.cubin = (BytesFn)sym(lib, "nvJitLinkGetLinkedCubin", &ok);
    jit.error_log_size = (SizeFn)sym(lib, "nvJitLinkGetErrorLogSize", &ok);
    jit.error_log = (LogFn)sym(lib, "nvJitLinkGetErrorLog", &ok);
    jit.info_log_size = (SizeFn)sym(lib, "nvJitLinkGetInfoLogSize", &ok);
    jit.info_log = (LogFn)sym(lib, "nvJitLinkGetInfoLog", &ok);
    VersionFn version = (VersionFn)sym(lib, "nvJitLinkVersion", &ok);
    unsigned major = 0, minor = 0;
    if (!ok || version(&major, &minor) != 0) {
        snprintf(jit.why, sizeof jit.why, "libnvJitLink lacks the functions tilec uses");
        return;
    }
    snprintf(jit.version, sizeof jit.version, "%u.%u", major, minor);
    jit.loaded = true;
}

const char *rt_nvjitlink_version(void) {
    pthread_once(&jit_once, jit_load);
    return jit.loaded ? jit.version : NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool failed(RtCompileResult *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return false;
}

/* One of the handle's logs, appended to r->log. */
static void take_log(Handle h, SizeFn size, LogFn get, RtCompileResult *r) {
    size_t n = 0;
    if (size(h, &n) != 0 || n <= 1) return;
    char *text = xmalloc(n);
    if (get(h, text) == 0) {
        text[n - 1] = 0;
        size_t old = strlen(r->log);
        r->log = xrealloc(r->log, old + n);
        memcpy(r->log + old, text, n);
    }
    free(text);
}

/* The first line of an error log, for the one sentence. */
static int first_line(const char *log, const char **start) {
    while (*log == '\n') log++;
    *start = log;
    const char *e = strchr(log, '\n');
    return (int)(e ? e - log : (long)strlen(log));
}

bool rt_ptx_to_cubin(const char *ptx, size_t size, const char *name, const char *arch, RtCompileResult *out) {
    double start = now();
    memset(out, 0, sizeof *out);
    out->log = xstrdup("");
    out->registers = out->spill_store_bytes = out->spill_load_bytes = -1;
    out->static_smem_bytes = out->stack_frame_bytes = -1;
    pthread_once(&jit_once, jit_load);
    if (!jit.loaded) {
        failed(out, "%s, so the llvm backend cannot make a cubin.", jit.why);
        out->seconds = now() - start;
        return false;
    }
    char arch_option[32];
    snprintf(arch_option, sizeof arch_option, "-arch=%s", arch);
    const char *options[] = {arch_option, "-O3", "-verbose"};
    Handle h = NULL;
    bool ok = false;
    if (jit.create(&h, 3, options) != 0) {
        failed(out, "nvJitLink could not start for %s.", arch);
    } else if (jit.add_data(h, INPUT_PTX, ptx, size, name) != 0 || jit.complete(h) != 0) {
        take_log(h, jit.error_log_size, jit.error_log, out);
        const char *line;
        int len = first_line(out->log, &line);
        failed(out, "nvJitLink could not assemble the PTX of %s for %s: %.*s", name, arch, len > 160 ? 160 : len, line);
    } else {
        size_t n = 0;
        if (jit.cubin_size(h, &n) != 0 || n == 0) {
            failed(out, "nvJitLink produced no cubin for %s.", name);
        } else {
            out->cubin = xmalloc(n);
            out->cubin_size = n;
            ok = jit.cubin(h, out->cubin) == 0;
            if (!ok) failed(out, "nvJitLink could not return the cubin of %s.", name);
        }
    }
    if (h) {
        take_log(h, jit.info_log_size, jit.info_log, out);
        jit.destroy(&h);
    }
    rt_parse_ptxas_log(out->log, out);
    rt_ptxas_perf_warning(out->log, out->perf_warning);
    out->ok = ok;
    out->seconds = now() - start;
    return ok;
}
