/* run_gemm_dynamic.c - a C program that uses what `tilec --emit-lib` wrote
 * for tests/emit_lib/gemm_dyn.tile (M, N % 8 and K % 64 dynamic), with
 * nothing of tilec linked: one launcher run at several sizes, each result
 * against a host computation (every output at the smaller sizes, a sample
 * at 4096^3), then a broken promise and mismatched sizes refused with 2.
 * Exit 0 when all holds, 1 otherwise, 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_dyn.h"
#include "host_util.h"

static unsigned next(unsigned *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* n random f16 values in [-1, 1): their bits, and their values in *values */
static unsigned short *random_f16(size_t n, unsigned *seed, float **values) {
    unsigned short *h = malloc(n * 2);
    *values = malloc(n * sizeof **values);
    for (size_t i = 0; i < n; i++) {
        h[i] = f16_bits(((float)next(seed) / 16777216.0f - 0.5f) * 2.0f);
        (*values)[i] = f16_value(h[i]);
    }
    return h;
}

/* C[i, j] of the host: f32 products and sums of the f16 inputs. */
static float host_c(const float *a, const float *b, long long i, long long j, long long n, long long k) {
    float s = 0;
    for (long long x = 0; x < k; x++) s += a[i * k + x] * b[x * n + j];
    return s;
}

/* gemm_dyn at m x n x k: launched, synchronised, checked at every output,
 * or at `samples` random ones when that is not 0. */
static void run_at(long long m, long long n, long long k, int samples, unsigned *seed) {
    float *a, *b;
    unsigned short *ha = random_f16((size_t)(m * k), seed, &a), *hb = random_f16((size_t)(k * n), seed, &b);
    unsigned short *hc = malloc((size_t)(m * n) * 2);
    CUdeviceptr da = upload(ha, (size_t)(m * k) * 2), db = upload(hb, (size_t)(k * n) * 2), dc;
    if (cuMemAlloc(&dc, (size_t)(m * n) * 2) != CUDA_SUCCESS) exit(1);
    int64_t sa[2] = {m, k}, sb[2] = {k, n}, sc[2] = {m, n};
    tilec_tensor t[3] = {{(void *)da, 2, sa}, {(void *)db, 2, sb}, {(void *)dc, 2, sc}};
    EXPECT(gemm_dyn(t, 3, NULL, 0, NULL) == 0, "gemm_dyn %lldx%lldx%lld launch", m, n, k);
    EXPECT(cuCtxSynchronize() == CUDA_SUCCESS && cuMemcpyDtoH(hc, dc, (size_t)(m * n) * 2) == CUDA_SUCCESS,
           "gemm_dyn %lldx%lldx%lld ran", m, n, k);
    long long bad = 0, checked = samples ? samples : m * n;
    for (long long s = 0; s < checked; s++) {
        long long i = samples ? next(seed) % m : s / n, j = samples ? next(seed) % n : s % n;
        float want = host_c(a, b, i, j, n, k), got = f16_value(hc[i * n + j]);
        if (!(fabsf(got - want) <= 1e-2f + 1e-2f * fabsf(want))) bad++;
    }
    EXPECT(bad == 0, "gemm_dyn %lldx%lldx%lld: %lld of %lld outputs differ from the host's", m, n, k, bad, checked);

    /* a broken promise and mismatched sizes: refused, nothing launched */
    int64_t odd_n[2] = {k, n + 4}, odd_c[2] = {m, n + 4}, other_k[2] = {k + 64, n};
    tilec_tensor broken[3] = {t[0], {(void *)db, 2, odd_n}, {(void *)dc, 2, odd_c}};
    EXPECT(gemm_dyn(broken, 3, NULL, 0, NULL) == 2, "N = %lld (not a multiple of 8) is refused", n + 4);
    tilec_tensor mismatched[3] = {t[0], {(void *)db, 2, other_k}, t[2]};
    EXPECT(gemm_dyn(mismatched, 3, NULL, 0, NULL) == 2, "K of B other than A's is refused");
    cuMemFree(da), cuMemFree(db), cuMemFree(dc);
    free(ha), free(hb), free(hc), free(a), free(b);
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 77;
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return 1;
    unsigned seed = 7;
    run_at(256, 512, 128, 0, &seed);
    run_at(1000, 1016, 704, 0, &seed);  /* ragged tiles: M and N not multiples of 128, K of 128 */
    run_at(4096, 4096, 4096, 4096, &seed);
    run_at(64, 8, 64, 0, &seed);        /* smaller than one tile */
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
