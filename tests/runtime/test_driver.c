/* test_driver.c - checks the CUDA driver layer (runtime/driver.c).
 *
 * Without a GPU (no libcuda.so.1, or no device) it checks that every call
 * fails with one plain sentence and exits 77, ctest's skip code; with
 * TILEC_REQUIRE_GPU=1 in the environment that case fails instead, so a GPU
 * machine whose driver cannot be opened is not silently skipped.
 *
 * With a GPU it compiles small kernels with NVRTC for the device's own
 * architecture, runs y = 2x + 1 over 1<<20 floats and checks the result,
 * times it with events, checks the kernel attributes, occupancy, the 48 KiB
 * shared-memory opt-in, refused launches, how many clusters fit (sm_90
 * and later), and last a kernel that faults
 * (which leaves the context unusable, so nothing runs after it).
 * Exit 0: all passed; 1: a check failed; 77: skipped. */
#include "runtime.h"
#include "gpu_test_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- without a GPU ---- */

static int test_without_gpu(const char *open_error) {
    printf("no usable GPU: %s\n", open_error);
    check(one_sentence(open_error), "rt_device_open's error is one sentence");
    bool expected = strstr(open_error, "no CUDA driver") || strstr(open_error, "no CUDA device");
    check(expected, "the error says there is no CUDA driver or no device");

    char err[256];
    RtDevice dev;
    bool ok = rt_device_open(&dev, err);
    check(!ok && strcmp(err, open_error) == 0, "a second rt_device_open fails the same way");

    /* Nothing may crash or pretend to work without a device. */
    static const char fake_cubin[] = "\x7f" "ELF not really";
    uint64_t ptr = 1;
    check_error(rt_malloc(&ptr, 1024, err), err, "rt_malloc");
    check(ptr == 0, "rt_malloc leaves the pointer 0");
    RtModule *m = (RtModule *)fake_cubin;  /* any non-NULL value */
    check_error(rt_module_load(fake_cubin, sizeof fake_cubin, &m, err), err, "rt_module_load");
    check(m == NULL, "rt_module_load leaves the module NULL");
    check_error(rt_synchronize(err), err, "rt_synchronize");
    RtEvent ev = {(void *)&dev};
    check_error(rt_event_create(&ev, err), err, "rt_event_create");
    check(ev.ev == NULL, "rt_event_create leaves the event NULL");
    float host[4] = {0};
    check_error(rt_memcpy_htod(0x1000, host, sizeof host, err), err, "rt_memcpy_htod");
    rt_free(0x1000);          /* must do nothing */
    rt_module_unload(NULL);   /* must do nothing */
    rt_event_destroy(&ev);    /* must do nothing */

    const char *require = getenv("TILEC_REQUIRE_GPU");
    if (require && strcmp(require, "1") == 0) {
        printf("FAILED: TILEC_REQUIRE_GPU=1 but the GPU could not be opened\n");
        return 1;
    }
    if (failures || !expected) {
        printf("FAILED (%d failed)\n", failures);
        return 1;
    }
    printf("SKIPPED: no CUDA driver or device on this machine\n");
    return EXIT_SKIP;
}

/* ---- with a GPU ---- */

static const char *kernels_source =
    "extern \"C\" __global__ void axpb(const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n"
    "\n"
    "/* Fills all of its dynamic shared memory, then writes its sum per block. */\n"
    "extern \"C\" __global__ void big_smem(unsigned *out, int words) {\n"
    "    extern __shared__ unsigned buf[];\n"
    "    for (int i = threadIdx.x; i < words; i += blockDim.x) buf[i] = i;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        unsigned s = 0;\n"
    "        for (int i = 0; i < words; i++) s += buf[i];\n"
    "        out[blockIdx.x] = s;\n"
    "    }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void fault(float *p) {\n"
    "    p[threadIdx.x] = 1.0f;\n"
    "}\n";

/* Hopper and later: a kernel of clusters of two blocks (sm_90's
 * __cluster_dims__), for rt_max_active_clusters. */
static const char *cluster_source =
    "extern \"C\" __global__ void __cluster_dims__(2, 1, 1) pairs(unsigned *out) {\n"
    "    extern __shared__ unsigned buf[];\n"
    "    buf[threadIdx.x] = threadIdx.x;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = buf[blockDim.x - 1];\n"
    "}\n";

static void print_device(const RtDevice *d) {
    printf("device %d: %s, sm_%d%d, %d SMs, L2 %lld KiB, SM clock %d MHz, memory clock %d MHz, "
           "bus %d bits, smem %lld KiB per block (opt-in) and %lld KiB per SM, %d threads and %d registers "
           "per SM, %lld MiB of memory, driver CUDA %d.%d\n",
           d->ordinal, d->name, d->cc_major, d->cc_minor, d->sms, d->l2_bytes >> 10, d->sm_clock_khz / 1000,
           d->mem_clock_khz / 1000, d->bus_width_bits, d->smem_per_block_optin >> 10, d->smem_per_sm >> 10,
           d->max_threads_per_sm, d->regs_per_sm, d->global_mem_bytes >> 20, d->driver_version / 1000,
           d->driver_version % 1000 / 10);
}

static void test_device(const RtDevice *d) {
    check(d->name[0] != 0, "the device has a name");
    check(d->cc_major >= 5 && d->cc_minor >= 0, "compute capability is 5.0 or later");
    check(d->sms > 0 && d->l2_bytes > 0 && d->global_mem_bytes > 0, "SMs, L2 and memory are positive");
    check(d->sm_clock_khz > 0 && d->mem_clock_khz > 0 && d->bus_width_bits > 0, "clocks and bus width are positive");
    check(d->smem_per_block_optin >= 48 * 1024 && d->smem_per_sm >= d->smem_per_block_optin,
          "opt-in shared memory is at least 48 KiB and at most the SM's");
    check(d->max_threads_per_sm >= 1024 && d->regs_per_sm >= 32768, "threads and registers per SM are plausible");
    check(d->driver_version >= 12000, "the driver supports CUDA 12.0 or later");

    RtDevice again;
    char err[256];
    bool ok = rt_device_open(&again, err);
    check(ok && memcmp(&again, d, sizeof again) == 0, "a second rt_device_open returns the same device");
}

/* Compiles the test kernels for the device's own architecture; the 'a'
 * suffix (sm_90a) allows Hopper's architecture-specific instructions. */
static bool compile_for(const RtDevice *d, RtCompileResult *r) {
    char arch[16];
    rt_device_arch(d, arch);
    /* rt_compile passes NVRTC 13's --no-cache itself, so ptxas always runs
     * and the log always has the register count */
    RtCompileOptions opt = {.arch = arch, .want_cubin = true};
    bool ok = rt_compile(kernels_source, "test_driver.cu", &opt, r);
    printf("NVRTC %s compiled the kernels for %s: %s, cubin %zu bytes, %d registers\n", rt_nvrtc_version(), arch,
           ok ? "ok" : r->error, r->cubin_size, r->registers);
    check(ok, "the test kernels compile");
    if (ok && r->registers < 0) printf("  the NVRTC log has no ptxas counts:\n%s\n", r->log);
    return ok;
}


/* y = 2x + 1 over 1<<20 floats, timed with events. */
static void test_axpb(const RtDevice *d, const RtKernel *k, int registers_from_ptxas) {
    enum { N = 1 << 20, BLOCK = 256 };
    size_t bytes = (size_t)N * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
    if (!x || !y || !z) {
        check(false, "host buffers allocated");
        exit(1);
    }
    /* Values with few mantissa bits, so 2x + 1 is exact in float. */
    for (int i = 0; i < N; i++) x[i] = (float)(i % 4096) * 0.25f - 512.0f;

    char err[256];
    uint64_t dx = 0, dy = 0, dz = 0;
    bool ok = rt_malloc(&dx, bytes, err) && rt_malloc(&dy, bytes, err) && rt_malloc(&dz, bytes, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && dx && dy && dz, "rt_malloc gives three 4 MiB buffers");
    if (!ok) exit(1);
    ok = rt_memcpy_htod(dx, x, bytes, err) && rt_memset8(dy, 0xff, bytes, err);  /* y starts as NaNs */
    if (!ok) printf("  error: %s\n", err);
    check(ok, "rt_memcpy_htod and rt_memset8");

    RtEvent start, end;
    ok = rt_event_create(&start, err) && rt_event_create(&end, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && start.ev && end.ev, "rt_event_create");

    int n = N;
    void *params[] = {&dx, &dy, &n};
    const long long grid[3] = {(N + BLOCK - 1) / BLOCK, 1, 1};
    ok = rt_event_record(&start, NULL, err) && rt_launch(k, grid, BLOCK, 0, params, NULL, err) &&
         rt_event_record(&end, NULL, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "rt_launch of axpb between two event records");
    float ms = -1;
    ok = rt_event_elapsed_ms(&start, &end, &ms, err);
    if (!ok) printf("  error: %s\n", err);
    printf("  axpb over %d floats: %.4f ms (%.0f GB/s)\n", N, ms, ms > 0 ? 2.0 * bytes / (ms * 1e6) : 0.0);
    check(ok && ms > 0 && ms < 1000, "rt_event_elapsed_ms gives a time between 0 and 1 s");
    ok = rt_synchronize(err);
    if (!ok) printf("  error: %s\n", err);
    check(ok, "rt_synchronize");

    ok = rt_memcpy_dtoh(y, dy, bytes, err);
    if (!ok) printf("  error: %s\n", err);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        if (y[i] != 2.0f * x[i] + 1.0f) {
            if (wrong++ < 3) printf("  y[%d] = %g, expected %g\n", i, y[i], 2.0f * x[i] + 1.0f);
        }
    check(ok && wrong == 0, "every y[i] == 2 * x[i] + 1");

    ok = rt_memcpy_dtod(dz, dy, bytes, err) && rt_memcpy_dtoh(z, dz, bytes, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && memcmp(y, z, bytes) == 0, "rt_memcpy_dtod copies y exactly");

    int regs = -1, local = -1, static_smem = -1;
    ok = rt_kernel_attrs(k, &regs, &local, &static_smem, err);
    if (!ok) printf("  error: %s\n", err);
    printf("  axpb: %d registers (ptxas said %d), %d local bytes, %d static smem bytes\n", regs,
           registers_from_ptxas, local, static_smem);
    check(ok && regs > 0 && regs <= 255, "rt_kernel_attrs: 1 to 255 registers");
    /* ptxas's count is the largest over all kernels in the program. */
    if (registers_from_ptxas >= 0)
        check(regs <= registers_from_ptxas, "rt_kernel_attrs is within ptxas's register count");
    else
        printf("  (NVRTC reported no ptxas counts, so there is nothing to compare with)\n");
    check(local == 0 && static_smem == 0, "rt_kernel_attrs: no local or static shared memory");
    check(rt_kernel_attrs(k, NULL, NULL, NULL, err), "rt_kernel_attrs takes NULL outputs");

    int blocks = -1;
    ok = rt_occupancy(k, BLOCK, 0, &blocks, err);
    if (!ok) printf("  error: %s\n", err);
    printf("  axpb occupancy: %d blocks of %d threads per SM\n", blocks, BLOCK);
    check(ok && blocks >= 1 && blocks * BLOCK <= d->max_threads_per_sm, "rt_occupancy: 1 or more blocks, within the SM");

    rt_event_destroy(&start);
    rt_event_destroy(&end);
    check(start.ev == NULL && end.ev == NULL, "rt_event_destroy clears the events");
    rt_event_destroy(&end);  /* harmless twice */
    rt_free(dx);
    rt_free(dy);
    rt_free(dz);
    free(x);
    free(y);
    free(z);
}

/* A kernel using all the shared memory a block may opt in to. */
static void test_big_smem(const RtDevice *d, const RtKernel *k) {
    char err[256];
    long long smem = d->smem_per_block_optin;
    int words = (int)(smem / 4);
    enum { BLOCKS = 4 };
    uint64_t out = 0;
    bool ok = rt_malloc(&out, BLOCKS * sizeof(unsigned), err);
    void *params[] = {&out, &words};
    const long long grid[3] = {BLOCKS, 1, 1};
    ok = ok && rt_launch(k, grid, 256, smem, params, NULL, err) && rt_synchronize(err);
    unsigned sums[BLOCKS] = {0};
    ok = ok && rt_memcpy_dtoh(sums, out, sizeof sums, err);
    if (!ok) printf("  error: %s\n", err);
    unsigned expected = 0;
    for (int i = 0; i < words; i++) expected += (unsigned)i;
    bool right = true;
    for (int i = 0; i < BLOCKS; i++) right = right && sums[i] == expected;
    char what[128];
    snprintf(what, sizeof what, "a launch with %lld KiB of dynamic shared memory (the opt-in maximum) runs right",
             smem >> 10);
    check(ok && right, what);

    int blocks = -1;
    ok = rt_occupancy(k, 256, smem, &blocks, err);
    if (!ok) printf("  error: %s\n", err);
    printf("  big_smem occupancy with %lld KiB: %d blocks per SM\n", smem >> 10, blocks);
    check(ok && blocks == 1, "rt_occupancy with the opt-in maximum gives 1 block per SM");
    ok = rt_occupancy(k, 256, 40 * 1024, &blocks, err);
    printf("  big_smem occupancy with 40 KiB: %d blocks per SM\n", blocks);
    check(ok && blocks >= 2, "rt_occupancy with 40 KiB gives 2 or more blocks per SM");

    check_error(rt_launch(k, grid, 256, smem + 1024, params, NULL, err), err,
                "a launch with more shared memory than the opt-in maximum");
    check_error(rt_launch(k, grid, 2048, 0, params, NULL, err), err, "a launch of 2048 threads per block");
    const long long no_blocks[3] = {0, 1, 1};
    check_error(rt_launch(k, no_blocks, 256, 0, params, NULL, err), err, "a launch of a 0 x 1 x 1 grid");
    ok = rt_synchronize(err);
    check(ok, "refused launches leave the context usable");
    rt_free(out);
}

static void test_refusals(RtModule *m) {
    char err[256];
    RtKernel k;
    bool ok = rt_kernel_get(m, "no_such_kernel", &k, err);
    check_error(ok, err, "rt_kernel_get of a missing kernel");
    check(!ok && strstr(err, "no_such_kernel") != NULL, "the error names the missing kernel");
    static const char garbage[] = "\x7f" "ELF this is not a cubin at all";
    RtModule *bad = NULL;
    check_error(rt_module_load(garbage, sizeof garbage, &bad, err), err, "rt_module_load of a broken ELF image");
    static const char bad_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\nthis is not PTX\n";
    check_error(rt_module_load(bad_ptx, sizeof bad_ptx - 1, &bad, err), err, "rt_module_load of broken PTX");
    check(bad == NULL, "failed loads leave the module NULL");
    uint64_t p = 0;
    check(rt_malloc(&p, 0, err) && p == 0, "rt_malloc of 0 bytes gives pointer 0");
    check_error(rt_malloc(&p, (size_t)1 << 50, err), err, "rt_malloc of 1 PiB");
    check(rt_synchronize(err), "refused calls leave the context usable");
}

/* Another thread uses the device without calling rt_device_open: each call
 * must make the primary context current in that thread by itself. */
typedef struct ThreadJob {
    bool ok;
    char err[256];
} ThreadJob;

/* How many clusters of two fit at once: at least one, at most one per
 * pair of SMs, and no more with a block's whole shared memory than one a
 * pair of SMs (a persistent clustered kernel launches exactly that many). */
static void test_clusters(const RtDevice *d) {
    if (d->cc_major < 9) {
        printf("  clusters: sm_%d%d has none, not tested\n", d->cc_major, d->cc_minor);
        return;
    }
    char arch[16], err[256];
    rt_device_arch(d, arch);
    RtCompileOptions opt = {.arch = arch, .want_cubin = true};
    RtCompileResult r;
    bool ok = rt_compile(cluster_source, "test_clusters.cu", &opt, &r);
    check(ok, "the cluster kernel compiles");
    RtModule *m = NULL;
    RtKernel k;
    if (!ok || !rt_module_load(r.cubin, r.cubin_size, &m, err) || !get_kernel(m, "pairs", &k)) {
        rt_compile_result_free(&r);
        check(false, "the cluster kernel loads");
        return;
    }
    int small = -1, big = -1;
    ok = rt_max_active_clusters(&k, 128, 1024, 2, &small, err);
    if (!ok) printf("  error: %s\n", err);
    bool big_ok = rt_max_active_clusters(&k, 128, d->smem_per_block_optin, 2, &big, err);
    if (!big_ok) printf("  error: %s\n", err);
    printf("  clusters of 2 at once: %d with 1 KiB of shared memory, %d with %lld KiB\n", small, big,
           d->smem_per_block_optin >> 10);
    check(ok && small >= 1, "rt_max_active_clusters: one or more small clusters");
    check(big_ok && big >= 1 && big <= d->sms / 2 && big <= small,
          "rt_max_active_clusters: at most one cluster a pair of SMs with a whole SM's shared memory");
    check_error(rt_max_active_clusters(&k, 128, 0, 0, &small, err), err, "a cluster of no blocks");
    check(small == 0, "a refused rt_max_active_clusters leaves 0");
    rt_module_unload(m);
    rt_compile_result_free(&r);
}

static void *copy_in_thread(void *arg) {
    ThreadJob *job = arg;
    enum { N = 4096 };
    static unsigned in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (unsigned)i * 2654435761u;
    uint64_t p = 0;
    job->ok = rt_malloc(&p, sizeof in, job->err) && rt_memcpy_htod(p, in, sizeof in, job->err) &&
              rt_memcpy_dtoh(out, p, sizeof out, job->err) && rt_synchronize(job->err) &&
              memcmp(in, out, sizeof in) == 0;
    rt_free(p);
    return NULL;
}

static void test_other_thread(void) {
    ThreadJob job = {.ok = false, .err = ""};
    pthread_t thread;
    bool started = pthread_create(&thread, NULL, copy_in_thread, &job) == 0;
    if (started) pthread_join(thread, NULL);
    if (!job.ok) printf("  error: %s\n", job.err);
    check(started && job.ok, "another thread allocates and copies without calling rt_device_open");
}

/* Last: a write through a null pointer faults asynchronously and breaks the
 * context for good. */
static void test_fault(const RtKernel *k) {
    char err[256];
    uint64_t null_ptr = 0;
    void *params[] = {&null_ptr};
    const long long grid[3] = {1, 1, 1};
    bool launched = rt_launch(k, grid, 32, 0, params, NULL, err);
    check(launched, "the faulting kernel launches");
    bool ok = rt_synchronize(err);
    check_error(ok, err, "rt_synchronize after a kernel that writes through a null pointer");
    check(!ok && strncmp(err, "the kernel failed: ", 19) == 0 && strstr(err, "(CUDA_ERROR_"),
          "the fault is reported as 'the kernel failed: ... (CUDA_ERROR_...)'");
    float f;
    uint64_t p = 0;
    ok = rt_malloc(&p, 16, err) && rt_memcpy_dtoh(&f, p, sizeof f, err);
    check_error(ok, err, "a copy after the fault (the context stays broken)");
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);  /* keep the output of a run that dies */
    char err[256] = "";
    RtDevice dev;
    if (!rt_device_open(&dev, err)) return test_without_gpu(err);

    print_device(&dev);
    test_device(&dev);
    RtCompileResult compiled;
    if (!compile_for(&dev, &compiled)) {
        printf("  %s\n%s\n", compiled.error, compiled.log);
        rt_compile_result_free(&compiled);
        return 1;
    }
    RtModule *m = NULL;
    bool ok = rt_module_load(compiled.cubin, compiled.cubin_size, &m, err);
    if (!ok) printf("  error: %s\n", err);
    check(ok && m != NULL, "rt_module_load of the NVRTC cubin");
    RtKernel axpb, big_smem, fault;
    if (!ok || !get_kernel(m, "axpb", &axpb) || !get_kernel(m, "big_smem", &big_smem) ||
        !get_kernel(m, "fault", &fault)) {
        rt_compile_result_free(&compiled);
        printf("FAILED (%d failed)\n", failures);
        return 1;
    }
    test_axpb(&dev, &axpb, compiled.registers);
    test_big_smem(&dev, &big_smem);
    test_refusals(m);
    test_clusters(&dev);
    test_other_thread();
    test_fault(&fault);
    rt_module_unload(m);
    rt_compile_result_free(&compiled);
    printf("%s (%d failed)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
