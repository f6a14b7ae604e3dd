/* launch_cost.c - host cost of tilec_launch on a cached kernel: add.tile at
 * N = 4096 (the GPU work tiny), CALLS launches back to back on one stream,
 * the median over rounds of the host time per call in microseconds. Build
 * and run on the GPU machine after ./build.sh:
 *   cc -O2 -Iinclude -I/usr/local/cuda/include bench/launch_cost.c build/libtilec.a -Lbuild -ltilec_llvm -Wl,-rpath,build \
 *      -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lnvrtc -lcuda -lpthread -ldl -lm -o launch_cost
 *   ./launch_cost [CALLS]
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilec.h"

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 10000;
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
    double rounds[7];
    for (int r = 0; r < 7; r++) {
        cuCtxSynchronize();
        double t0 = now_us();
        for (int i = 0; i < calls; i++) tilec_launch(k, t, 3, NULL, 0, NULL, NULL);
        rounds[r] = (now_us() - t0) / calls;
        cuCtxSynchronize();
    }
    qsort(rounds, 7, sizeof *rounds, cmp);
    printf("tilec_launch: %.2f us a call (median of 7 rounds of %d)\n", rounds[3], calls);
    tilec_kernel_free(k);
    return 0;
}
