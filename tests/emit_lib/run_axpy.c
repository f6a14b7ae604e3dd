/* run_axpy.c - the pipeline of tests/frontend/valid/v_pipeline.tile
 * emitted by `tilec --emit-lib` (its stages and scratch in axpy.c) and
 * called from C with nothing of tilec: Z = X * a + Y on 5000 floats. */
#include <stdio.h>
#include <stdlib.h>

#include "axpy.h"

int main(void) {
    enum { L = 5000 };
    static float x[L], y[L], z[L];
    for (int i = 0; i < L; i++) x[i] = (float)(i % 7), y[i] = (float)(i % 5) - 2, z[i] = -1;
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d[3];
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (cuMemAlloc(&d[i], sizeof x) != CUDA_SUCCESS) return 1;
    cuMemcpyHtoD(d[0], x, sizeof x);
    cuMemcpyHtoD(d[1], y, sizeof y);
    int64_t shape[1] = {L};
    tilec_tensor t[3] = {{(void *)d[0], 1, shape}, {(void *)d[1], 1, shape}, {(void *)d[2], 1, shape}};
    double a = 3;
    int rc = axpy(t, 3, &a, 1, NULL);
    if (rc != 0 || cuCtxSynchronize() != CUDA_SUCCESS || cuMemcpyDtoH(z, d[2], sizeof z) != CUDA_SUCCESS) {
        fprintf(stderr, "axpy failed: %d\n", rc);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < L; i++) bad += z[i] != x[i] * 3 + y[i];
    /* a wrong count is refused before anything runs */
    int refused = axpy(t, 2, &a, 1, NULL) == 2;
    printf("axpy (emitted pipeline): %d of %d wrong, wrong counts %s\n", bad, L, refused ? "refused" : "NOT refused");
    return bad || !refused;
}
