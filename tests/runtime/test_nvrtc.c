/* test_nvrtc.c - checks the NVRTC compile layer (runtime/nvrtc.c) without a
 * GPU: cubins for sm_80 and sm_90a, ptxas counts, spills, errors, and
 * compiles running in parallel threads. Exit 0: all passed; 1: a check failed. */
#include "runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

static void check(bool cond, const char *what) {
    printf("  %-4s %s\n", cond ? "ok" : "FAIL", what);
    if (!cond) failures++;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void show(const char *label, const RtCompileResult *r) {
    printf("%s: ok=%d %.3f s, cubin %zu bytes, ptx %zu bytes, %d registers, "
           "spill %d/%d bytes, smem %d, stack %d\n",
           label, r->ok, r->seconds, r->cubin_size, r->ptx_size, r->registers,
           r->spill_store_bytes, r->spill_load_bytes, r->static_smem_bytes, r->stack_frame_bytes);
    if (!r->ok) printf("  error: %s\n", r->error);
}

/* Needs cuda_fp16.h, which NVRTC 13 does not have built in. */
static const char *half_kernel =
    "#include <cuda_fp16.h>\n"
    "extern \"C\" __global__ void axpy_half(const __half *x, __half *y, float a, int n) {\n"
    "    __shared__ __half tile[256];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) tile[threadIdx.x] = x[i];\n"
    "    __syncthreads();\n"
    "    if (i < n) y[i] = __hadd(y[i], __hmul(__float2half(a), tile[threadIdx.x]));\n"
    "}\n";

/* 64 live accumulators under --maxrregcount=32 must spill, and the
 * dynamically indexed array can only live in local memory (stack frame). */
static const char *spill_kernel =
    "extern \"C\" __global__ void spill(const float *in, float *out, int k) {\n"
    "    float acc[64];\n"
    "    #pragma unroll\n"
    "    for (int j = 0; j < 64; j++) acc[j] = in[threadIdx.x + j * 128];\n"
    "    for (int it = 0; it < k; it++) {\n"
    "        #pragma unroll\n"
    "        for (int j = 0; j < 64; j++) acc[j] = acc[j] * acc[(j + 1) & 63] + in[it];\n"
    "    }\n"
    "    float table[256];\n"
    "    for (int j = 0; j < 256; j++) table[j] = in[j * 3 + threadIdx.x];\n"
    "    float s = 0.0f;\n"
    "    #pragma unroll\n"
    "    for (int j = 0; j < 64; j++) s += acc[j] * table[(k * j + threadIdx.x) & 255];\n"
    "    out[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
    "}\n";

static const char *const spill_extra[] = {"--maxrregcount=32", NULL};

/* Line 2 lacks a semicolon. */
static const char *bad_kernel =
    "extern \"C\" __global__ void bad(float *p) {\n"
    "    p[0] = 1.0f\n"
    "}\n";

static void test_version(void) {
    const char *v = rt_nvrtc_version();
    int major = 0, minor = 0;
    printf("NVRTC version %s\n", v);
    check(sscanf(v, "%d.%d", &major, &minor) == 2 && major >= 12, "rt_nvrtc_version looks like MAJOR.MINOR");
}

static void test_valid(const char *arch) {
    RtCompileOptions opt = {.arch = arch, .want_ptx = true, .want_cubin = true};
    RtCompileResult r;
    char label[64];
    snprintf(label, sizeof label, "(a) fp16 kernel for %s", arch);
    rt_compile(half_kernel, "axpy_half.cu", &opt, &r);
    show(label, &r);
    check(r.ok, "compile succeeded");
    check(r.error[0] == 0, "no error sentence");
    check(r.cubin && r.cubin_size > 0, "cubin is non-empty");
    check(r.cubin_size >= 4 && memcmp(r.cubin, "\x7f" "ELF", 4) == 0, "cubin is an ELF file");
    check(r.ptx && r.ptx_size == strlen(r.ptx) && strstr(r.ptx, ".entry axpy_half"), "PTX has the entry");
    check(r.registers > 0, "registers > 0");
    check(r.spill_store_bytes == 0 && r.spill_load_bytes == 0, "no spills");
    check(r.static_smem_bytes == 512, "static smem is 512 bytes (256 halves)");
    check(r.stack_frame_bytes == 0, "no stack frame");
    check(strstr(r.log, "ptxas") != NULL, "the log holds the ptxas -v output");
    rt_compile_result_free(&r);
    rt_compile_result_free(&r);  /* freeing twice is harmless */
}

static void test_spill(void) {
    RtCompileOptions opt = {.arch = "sm_80", .want_cubin = true, .extra = spill_extra};
    RtCompileResult r;
    rt_compile(spill_kernel, "spill.cu", &opt, &r);
    show("(b) spilling kernel for sm_80 with --maxrregcount=32", &r);
    check(r.ok, "compile succeeded");
    check(r.ptx == NULL && r.ptx_size == 0, "no PTX when not asked");
    check(r.registers > 0 && r.registers <= 32, "extra option --maxrregcount=32 took effect");
    check(r.spill_store_bytes > 0 && r.spill_load_bytes > 0, "spill stores and loads reported");
    check(r.stack_frame_bytes >= 1024, "stack frame holds the 1 KiB local table");
    check(r.static_smem_bytes == 0, "smem 0 (ptxas leaves the zero field out)");
    rt_compile_result_free(&r);
}

/* The remark ptxas gives when it serialises wgmma (seen from NVRTC 13 for
 * sm_90a), with the spill line around it, as the log has them. */
static void test_perf_warning(void) {
    char w[256];
    const char *log = "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized "
                      "due to non wgmma instructions reading accumulator registers of  a wgmma between start and end "
                      "of the pipeline stage in the function 'k'\n"
                      "ptxas info    : Used 154 registers, used 1 barriers\n";
    check(rt_ptxas_perf_warning(log, w), "performance remark found");
    check(strncmp(w, "(C7514) Potential Performance Loss: wgmma", 41) == 0, "remark kept from its code on");
    check(strchr(w, '\n') == NULL, "one line");
    check(!rt_ptxas_perf_warning("ptxas info    : Used 40 registers\n", w) && w[0] == 0, "no remark, empty");
    check(!rt_ptxas_perf_warning(NULL, w), "no log");
    RtCompileOptions opt = {.arch = "sm_80", .want_cubin = true};
    RtCompileResult r;
    rt_compile(half_kernel, "half.cu", &opt, &r);
    check(r.ok && r.perf_warning[0] == 0, "a plain kernel has no performance remark");
    rt_compile_result_free(&r);
}

static void test_syntax_error(void) {
    RtCompileOptions opt = {.arch = "sm_80", .want_ptx = true, .want_cubin = true};
    RtCompileResult r;
    bool ok = rt_compile(bad_kernel, "bad.cu", &opt, &r);
    show("(c) syntax error", &r);
    printf("  log: %s", r.log);
    check(!ok && !r.ok, "compile failed");
    check(r.error[0] != 0 && strchr(r.error, '\n') == NULL, "error is one line");
    check(strstr(r.error, "bad.cu") != NULL, "error names the file");
    check(strstr(r.log, "bad.cu(3)") != NULL && strstr(r.log, "error") != NULL, "log reports the error at line 3");
    check(!r.ptx && !r.cubin && r.registers == -1, "no outputs, counts absent");
    rt_compile_result_free(&r);
}

/* Code that reads a variable in its own initialiser compiles, with a
 * front-end warning; from tilec's generator that is a miscompile, so
 * rt_compile fails on it (tilec's shadowed lets did this once). */
static void test_read_before_set(void) {
    const char *src = "extern \"C\" __global__ void k(float *y, float x) {\n"
                      "    const float a = x * 2.0f;\n"
                      "    if (threadIdx.x < 4) { const float a = (a + 1.0f); y[threadIdx.x] = a; }\n"
                      "    (void)a;\n"
                      "}\n";
    RtCompileOptions opt = {.arch = "sm_80", .want_cubin = true};
    RtCompileResult r;
    bool ok = rt_compile(src, "self.cu", &opt, &r);
    show("(c2) a variable read in its own initialiser", &r);
    check(!ok && !r.ok && !r.cubin, "compile refused");
    check(strstr(r.error, "reads a variable before setting it") && strstr(r.error, "self.cu"), "the error says why and where");
    check(strchr(r.error, '\n') == NULL, "error is one line");
    rt_compile_result_free(&r);
}

static void test_option_errors(void) {
    RtCompileResult r;
    RtCompileOptions ptx_only = {.arch = "compute_80", .want_ptx = true};
    rt_compile(half_kernel, "axpy_half.cu", &ptx_only, &r);
    show("compute_80, PTX only", &r);
    check(r.ok && r.ptx && strstr(r.ptx, ".target sm_80"), "PTX for compute_80");
    check(r.registers == -1 && r.spill_store_bytes == -1, "no ptxas counts without ptxas");
    rt_compile_result_free(&r);

    RtCompileOptions cubin_virtual = {.arch = "compute_80", .want_cubin = true};
    rt_compile(half_kernel, "axpy_half.cu", &cubin_virtual, &r);
    show("compute_80, cubin asked", &r);
    check(!r.ok && strstr(r.error, "real architecture"), "a cubin for compute_80 is refused");
    rt_compile_result_free(&r);

    RtCompileOptions bad_arch = {.arch = "sm_81", .want_cubin = true};
    rt_compile(half_kernel, "axpy_half.cu", &bad_arch, &r);
    show("sm_81", &r);
    check(!r.ok && strstr(r.error, "--gpu-architecture"), "an unknown architecture is refused by NVRTC");
    rt_compile_result_free(&r);

    RtCompileOptions odd_arch = {.arch = "sm_80 -G", .want_cubin = true};
    rt_compile(half_kernel, "axpy_half.cu", &odd_arch, &r);
    show("\"sm_80 -G\"", &r);
    check(!r.ok && r.error[0], "an architecture with spaces is refused");
    rt_compile_result_free(&r);
}

/* ---- (d) parallel compiles ---- */
typedef struct Job {
    const char *source, *name;
    RtCompileOptions opt;
    RtCompileResult serial, parallel;
} Job;

static void *run_job(void *arg) {
    Job *j = arg;
    rt_compile(j->source, j->name, &j->opt, &j->parallel);
    return NULL;
}

static bool same_result(const RtCompileResult *a, const RtCompileResult *b) {
    return a->ok == b->ok && a->registers == b->registers &&
           a->spill_store_bytes == b->spill_store_bytes && a->stack_frame_bytes == b->stack_frame_bytes &&
           a->cubin_size == b->cubin_size &&
           (a->cubin_size == 0 || memcmp(a->cubin, b->cubin, a->cubin_size) == 0) &&
           strcmp(a->error, b->error) == 0;
}

static void test_parallel(void) {
    Job jobs[] = {
        {.source = half_kernel, .name = "axpy_half.cu", .opt = {.arch = "sm_90a", .want_cubin = true}},
        {.source = spill_kernel, .name = "spill.cu", .opt = {.arch = "sm_80", .want_cubin = true, .extra = spill_extra}},
        {.source = half_kernel, .name = "axpy_half.cu", .opt = {.arch = "sm_80", .want_cubin = true}},
        {.source = bad_kernel, .name = "bad.cu", .opt = {.arch = "sm_90a", .want_cubin = true}},
    };
    enum { N = sizeof jobs / sizeof jobs[0] };
    double serial = 0;
    for (int i = 0; i < N; i++) {
        rt_compile(jobs[i].source, jobs[i].name, &jobs[i].opt, &jobs[i].serial);
        serial += jobs[i].serial.seconds;
    }
    pthread_t threads[N];
    double start = now_seconds();
    bool started = true;
    for (int i = 0; i < N; i++)
        if (pthread_create(&threads[i], NULL, run_job, &jobs[i]) != 0) started = false;
    check(started, "threads started");
    if (!started) exit(1);
    for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
    double wall = now_seconds() - start;
    printf("(d) %d compiles in parallel threads: %.3f s wall (the same compiles one by one: %.3f s)\n",
           N, wall, serial);
    for (int i = 0; i < N; i++) {
        char what[128];
        snprintf(what, sizeof what, "thread %d (%s for %s) matches its serial compile", i, jobs[i].name,
                 jobs[i].opt.arch);
        check(same_result(&jobs[i].serial, &jobs[i].parallel), what);
        rt_compile_result_free(&jobs[i].serial);
        rt_compile_result_free(&jobs[i].parallel);
    }
}

int main(void) {
    test_version();
    test_valid("sm_80");
    test_valid("sm_90a");
    test_spill();
    test_perf_warning();
    test_syntax_error();
    test_read_before_set();
    test_option_errors();
    test_parallel();
    printf("%s (%d failed)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
