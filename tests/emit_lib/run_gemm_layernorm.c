/* run_gemm_layernorm.c - a C program that uses what `tilec --emit-lib`
 * wrote for examples/gemm.tile (M = N = K = 256) and
 * examples/layernorm.tile (M = 64, N = 1024), with nothing of tilec
 * linked: device buffers through the driver API, random inputs, the
 * launchers, results against a host computation; then arguments that do
 * not fit are refused with 2, and two threads launch gemm on two streams.
 * Exit 0 when all holds, 1 otherwise, 77 without a GPU. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "layernorm.h"
#include "host_util.h"

static unsigned short *random_f16(size_t n, unsigned *seed) {
    unsigned short *h = malloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        h[i] = f16_bits(((float)(*seed >> 8) / 16777216.0f - 0.5f) * 2.0f);
    }
    return h;
}

enum { M = 256, N = 256, K = 256 };
static const int64_t shape_mk[2] = {M, K}, shape_kn[2] = {K, N}, shape_mn[2] = {M, N};

typedef struct { CUdeviceptr a, b, c; CUstream s; int rc; CUcontext ctx; } Job;

static void *launch_thread(void *arg) {
    Job *j = arg;
    cuCtxSetCurrent(j->ctx);
    tilec_tensor t[3] = {{(void *)j->a, 2, shape_mk}, {(void *)j->b, 2, shape_kn}, {(void *)j->c, 2, shape_mn}};
    j->rc = 0;
    for (int i = 0; i < 20 && !j->rc; i++) j->rc = gemm(t, 3, NULL, 0, j->s);
    return NULL;
}

static void check_gemm(const unsigned short *a, const unsigned short *b, CUdeviceptr dc, const char *what) {
    unsigned short *c = malloc((size_t)M * N * 2);
    EXPECT(cuMemcpyDtoH(c, dc, (size_t)M * N * 2) == CUDA_SUCCESS, "%s: copy back", what);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0;
            for (int k = 0; k < K; k++) want += f16_value(a[i * K + k]) * f16_value(b[k * N + j]);
            float got = f16_value(c[i * N + j]);
            if (!(fabsf(got - want) <= 1e-2f + 1e-2f * fabsf(want))) bad++;
        }
    EXPECT(bad == 0, "%s: %d of %d outputs differ from the host's", what, bad, M * N);
    free(c);
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 77;
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return 1;
    unsigned seed = 1;
    unsigned short *a = random_f16((size_t)M * K, &seed), *b = random_f16((size_t)K * N, &seed);
    CUdeviceptr da = upload(a, (size_t)M * K * 2), db = upload(b, (size_t)K * N * 2), dc, dc2;
    cuMemAlloc(&dc, (size_t)M * N * 2);
    cuMemAlloc(&dc2, (size_t)M * N * 2);
    tilec_tensor t[3] = {{(void *)da, 2, shape_mk}, {(void *)db, 2, shape_kn}, {(void *)dc, 2, shape_mn}};
    EXPECT(gemm(t, 3, NULL, 0, NULL) == 0, "gemm launch");
    EXPECT(cuCtxSynchronize() == CUDA_SUCCESS, "gemm ran");
    check_gemm(a, b, dc, "gemm");

    /* arguments that do not fit: refused, nothing launched */
    static const int64_t wrong[2] = {M, K + 1};
    tilec_tensor bad_shape[3] = {{(void *)da, 2, wrong}, t[1], t[2]};
    EXPECT(gemm(bad_shape, 3, NULL, 0, NULL) == 2, "a wrong dimension is refused");
    tilec_tensor bad_rank[3] = {{(void *)da, 1, wrong}, t[1], t[2]};
    EXPECT(gemm(bad_rank, 3, NULL, 0, NULL) == 2, "a wrong rank is refused");
    tilec_tensor null_data[3] = {{NULL, 2, shape_mk}, t[1], t[2]};
    EXPECT(gemm(null_data, 3, NULL, 0, NULL) == 2, "a null pointer is refused");
    EXPECT(gemm(t, 2, NULL, 0, NULL) == 2, "too few tensors are refused");
    double extra = 1;
    EXPECT(gemm(t, 3, &extra, 1, NULL) == 2, "a scalar too many is refused");

    /* two threads, two streams */
    Job jobs[2] = {{da, db, dc, 0, 0, ctx}, {da, db, dc2, 0, 0, ctx}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        cuStreamCreate(&jobs[i].s, CU_STREAM_NON_BLOCKING);
        pthread_create(&th[i], NULL, launch_thread, &jobs[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    EXPECT(cuCtxSynchronize() == CUDA_SUCCESS, "the threads' launches ran");
    EXPECT(jobs[0].rc == 0 && jobs[1].rc == 0, "the threads' launches: %d %d", jobs[0].rc, jobs[1].rc);
    check_gemm(a, b, dc, "gemm on stream 1");
    check_gemm(a, b, dc2, "gemm on stream 2");

    /* layernorm: a scalar (eps) at run time, two values, one kernel */
    enum { LM = 64, LN = 1024 };
    static const int64_t xs[2] = {LM, LN}, ws[1] = {LN};
    unsigned short *x = random_f16((size_t)LM * LN, &seed), *w = random_f16(LN, &seed), *bias = random_f16(LN, &seed);
    unsigned short *y = malloc((size_t)LM * LN * 2);
    CUdeviceptr dx = upload(x, (size_t)LM * LN * 2), dw = upload(w, LN * 2), dbias = upload(bias, LN * 2), dy;
    cuMemAlloc(&dy, (size_t)LM * LN * 2);
    for (int e = 0; e < 2; e++) {
        double eps = e ? 0.5 : 1e-5;
        tilec_tensor lt[4] = {{(void *)dx, 2, xs}, {(void *)dw, 1, ws}, {(void *)dbias, 1, ws}, {(void *)dy, 2, xs}};
        EXPECT(layernorm(lt, 4, &eps, 1, NULL) == 0, "layernorm launch");
        EXPECT(cuCtxSynchronize() == CUDA_SUCCESS && cuMemcpyDtoH(y, dy, (size_t)LM * LN * 2) == CUDA_SUCCESS,
               "layernorm ran");
        int bad = 0;
        for (int i = 0; i < LM; i++) {
            double mean = 0, var = 0;
            for (int j = 0; j < LN; j++) mean += f16_value(x[i * LN + j]);
            mean /= LN;
            for (int j = 0; j < LN; j++) var += (f16_value(x[i * LN + j]) - mean) * (f16_value(x[i * LN + j]) - mean);
            var /= LN;
            for (int j = 0; j < LN; j++) {
                double want = (f16_value(x[i * LN + j]) - mean) / sqrt(var + (float)eps) * f16_value(w[j]) +
                              f16_value(bias[j]);
                if (!(fabs(f16_value(y[i * LN + j]) - want) <= 1e-2 + 1e-2 * fabs(want))) bad++;
            }
        }
        EXPECT(bad == 0, "layernorm eps=%g: %d outputs differ from the host's", eps, bad);
    }
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
