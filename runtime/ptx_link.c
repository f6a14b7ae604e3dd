/* ptx_link.c - PTX to a cubin (the LLVM backend's last step, in place of
 * NVRTC's): the toolkit's ptxas program where it is, otherwise nvJitLink.
 *
 * ptxas as a program compiles the whole PTX as one kernel's program, as
 * NVRTC does; nvJitLink's in-process ptxas compiles for linking (-c),
 * where ptxas serialises every wgmma of a kernel ("Extern calls", C7509)
 * and ignores setmaxnreg (C7504): right code, but the sm_90a path loses
 * what it is for. So the program comes first (Triton does the same), at
 * the path of the toolkit tilec was built with; libnvJitLink is opened
 * with dlopen, as libcuda is. Either way -v gives the same register and
 * spill counts as NVRTC's log. */
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* ---- which assembler ---- */

static struct {
    bool ptxas;            /* the program is there */
    char key[sizeof TILEC_CUDA_PTXAS + 64], name[32];
} assembler;
static pthread_once_t assembler_once = PTHREAD_ONCE_INIT;

static void assembler_find(void) {
    struct stat st;
    if (stat(TILEC_CUDA_PTXAS, &st) == 0 && S_ISREG(st.st_mode) && access(TILEC_CUDA_PTXAS, X_OK) == 0) {
        assembler.ptxas = true;
        snprintf(assembler.key, sizeof assembler.key, "ptxas %s %lld %lld", TILEC_CUDA_PTXAS, (long long)st.st_size,
                 (long long)st.st_mtime);
        snprintf(assembler.name, sizeof assembler.name, "ptxas");
        return;
    }
    pthread_once(&jit_once, jit_load);
    if (!jit.loaded) return;
    snprintf(assembler.key, sizeof assembler.key, "nvJitLink %s", jit.version);
    snprintf(assembler.name, sizeof assembler.name, "nvJitLink %s", jit.version);
}

const char *rt_ptx_assembler(void) {
    pthread_once(&assembler_once, assembler_find);
    return assembler.name[0] ? assembler.name : NULL;
}

const char *rt_ptx_assembler_key(void) {
    pthread_once(&assembler_once, assembler_find);
    return assembler.key[0] ? assembler.key : NULL;
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

/* ---- the ptxas program ---- */

static char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *data = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 65536 + 1 > cap) data = xrealloc(data, cap = 2 * cap + 65536 + 1);
        got = fread(data + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    data[len] = 0;
    *n = len;
    return data;
}

/* ptxas -arch=<arch> -O3 -v on the PTX in a directory of its own under
 * /tmp, its messages to a file; no environment handed on. */
static bool run_ptxas(const char *ptx, size_t size, const char *name, const char *arch, bool lineinfo,
                      RtCompileResult *out) {
    char dir[] = "/tmp/tilec-ptxas-XXXXXX";
    if (!mkdtemp(dir)) return failed(out, "could not make a directory under /tmp for ptxas.");
    char in[64], cubin[64], log[64], arch_option[40];
    snprintf(in, sizeof in, "%s/kernel.ptx", dir);
    snprintf(cubin, sizeof cubin, "%s/kernel.cubin", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(arch_option, sizeof arch_option, "-arch=%s", arch);
    bool ok = false;
    if (!file_write_atomic(in, ptx, size)) {
        failed(out, "could not write the PTX of %s for ptxas under /tmp.", name);
    } else {
        char *argv[] = {"ptxas", arch_option, "-O3", "-v", "-o", cubin, in, NULL, NULL};
        if (lineinfo) argv[7] = "-lineinfo"; /* the .loc directives into the cubin's line table */
        char *envp[] = {NULL};
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        pid_t pid;
        int status = 0, rc = posix_spawn(&pid, TILEC_CUDA_PTXAS, &actions, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) {
            failed(out, "could not run ptxas (%s): %s.", TILEC_CUDA_PTXAS, strerror(rc));
        } else {
            while (waitpid(pid, &status, 0) < 0) {
            }
            size_t n = 0;
            char *text = read_file(log, &n);
            if (text) {
                free(out->log);
                out->log = text;
            }
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                const char *line;
                int len = first_line(out->log, &line);
                failed(out, "ptxas could not assemble the PTX of %s for %s: %.*s", name, arch, len > 160 ? 160 : len, line);
            } else if (!(out->cubin = read_file(cubin, &out->cubin_size)) || !out->cubin_size) {
                failed(out, "ptxas produced no cubin for %s.", name);
            } else {
                ok = true;
            }
        }
    }
    unlink(in);
    unlink(cubin);
    unlink(log);
    rmdir(dir);
    return ok;
}

/* nvJitLink's ptxas on the PTX (for linking: see the top of the file). */
static bool run_nvjitlink(const char *ptx, size_t size, const char *name, const char *arch, bool lineinfo,
                          RtCompileResult *out) {
    pthread_once(&jit_once, jit_load);
    if (!jit.loaded)
        return failed(out, "%s and %s is missing, so the llvm backend cannot make a cubin.", jit.why, TILEC_CUDA_PTXAS);
    char arch_option[32];
    snprintf(arch_option, sizeof arch_option, "-arch=%s", arch);
    const char *options[] = {arch_option, "-O3", "-verbose", "-lineinfo"};
    Handle h = NULL;
    bool ok = false;
    if (jit.create(&h, lineinfo ? 4 : 3, options) != 0) {
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
    return ok;
}

bool rt_ptx_to_cubin(const char *ptx, size_t size, const char *name, const char *arch, bool lineinfo,
                     RtCompileResult *out) {
    double start = now();
    memset(out, 0, sizeof *out);
    out->log = xstrdup("");
    out->registers = out->spill_store_bytes = out->spill_load_bytes = -1;
    out->static_smem_bytes = out->stack_frame_bytes = -1;
    pthread_once(&assembler_once, assembler_find);
    bool ok = assembler.ptxas ? run_ptxas(ptx, size, name, arch, lineinfo, out)
                              : run_nvjitlink(ptx, size, name, arch, lineinfo, out);
    rt_parse_ptxas_log(out->log, out);
    rt_ptxas_perf_warning(out->log, out->perf_warning);
    out->ok = ok;
    out->seconds = now() - start;
    return ok;
}
