/* launch_cost.c - host cost of tilec_launch on a cached kernel: add.tile at
 * N = 4096 (the GPU work tiny), beside the floor, cuLaunchKernel of the
 * same function with the same arguments, in the same run. Each round is
 * CALLS launches back to back on one stream, fewer than the launch queue
 * holds, so the host never waits for the GPU; the figure is the median
 * over rounds of the host time per call in microseconds. Build and run on
 * the GPU machine after ./build.sh:
 *   cc -O2 -Iinclude -I/usr/local/cuda/include bench/launch_cost.c build/libtilec.a -Lbuild -ltilec_llvm -Wl,-rpath,build \
 *      -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lnvrtc -lcuda -lpthread -ldl -lm -o launch_cost
 *   ./launch_cost [CALLS]
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilec.h"

enum { ROUNDS = 41 };

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct Raw {
    CUfunction fn;
    void *params[4];
} Raw;

/* One launch by way of tilec_launch (raw NULL) or cuLaunchKernel. */
static int launch(tilec_kernel *k, const tilec_tensor *t, const Raw *raw) {
    if (!raw) return tilec_launch(k, t, 3, NULL, 0, NULL, NULL);
    return (int)cuLaunchKernel(raw->fn, 4, 1, 1, 256, 1, 1, 0, NULL, (void **)raw->params, NULL);
}

/* The median over ROUNDS rounds of the host time per launch. */
static double per_call_us(tilec_kernel *k, const tilec_tensor *t, const Raw *raw, int calls) {
    double rounds[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        cuCtxSynchronize();
        double t0 = now_us();
        for (int i = 0; i < calls; i++) launch(k, t, raw);
        rounds[r] = (now_us() - t0) / calls;
    }
    cuCtxSynchronize();
    qsort(rounds, ROUNDS, sizeof *rounds, cmp);
    return rounds[ROUNDS / 2];
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 200;
    FILE *f = fopen("examples/add.tile", "rb");
    if (!f) return 2;
    static char src[1 << 16];
    src[fread(src, 1, sizeof src - 1, f)] = 0;
    fclose(f);
    tilec_options opt = {.set = "N=4096,BLOCK=1024"};
    tilec_kernel *k;
    char *diag = NULL;
    if (tilec_compile(src, "examples/add.tile", NULL, &opt, &k, &diag)) {
        fprintf(stderr, "%s", diag ? diag : "compile failed\n");
        return 1;
    }
    CUdeviceptr buf[3];
    CUcontext ctx;
    CUdevice dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) return 77;
    for (int i = 0; i < 3; i++) cuMemAlloc(&buf[i], 4096 * 2);
    int64_t n[1] = {4096};
    tilec_tensor t[3] = {{(void *)buf[0], 1, n}, {(void *)buf[1], 1, n}, {(void *)buf[2], 1, n}};
    if (tilec_launch(k, t, 3, NULL, 0, NULL, &diag)) {
        fprintf(stderr, "%s", diag ? diag : "launch failed\n");
        return 1;
    }
    /* the floor: the same cubin's one function, launched directly with the
     * arguments tilec passes (X, Y, Z and the dynamic N) */
    const void *cubin;
    size_t size;
    CUmodule mod;
    unsigned count = 0;
    Raw raw = {0};
    int dim_n = 4096;
    if (tilec_get(k, "cubin", &cubin, &size) || cuModuleLoadData(&mod, cubin) || cuModuleGetFunctionCount(&count, mod) ||
        count != 1 || cuModuleEnumerateFunctions(&raw.fn, 1, mod))
        return 1;
    for (int i = 0; i < 3; i++) raw.params[i] = &buf[i];
    raw.params[3] = &dim_n;
    double floor_us = per_call_us(k, t, &raw, calls), tilec_us = per_call_us(k, t, NULL, calls);
    printf("cuLaunchKernel: %.2f us a call; tilec_launch: %.2f us a call (+%.2f); median of %d rounds of %d\n", floor_us,
           tilec_us, tilec_us - floor_us, ROUNDS, calls);
    tilec_kernel_free(k);
    return 0;
}
