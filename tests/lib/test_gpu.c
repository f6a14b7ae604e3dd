/* test_gpu.c - libtilec on a GPU: examples/gemm.tile compiled from a
 * string for the device present, launched with tilec_launch on random f16
 * inputs in device memory (runtime/ allocates and copies) and compared with
 * a GEMM on the host; then two threads launching it on two streams, each on
 * its own buffers, several times.
 * Without a GPU it exits 77 (ctest's skip code); with TILEC_REQUIRE_GPU=1
 * that case fails instead. Usage: test_gpu ROOT (the repository). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "test_util.h"
#include "tilec.h"

static void check(bool ok, const char *what, const char *detail) {
    checks++;
    printf("  %-4s %s%s%s\n", ok ? "ok" : "FAIL", what, detail && *detail ? ": " : "", detail ? detail : "");
    if (!ok) failures++;
}

/* One GEMM problem: f16 inputs on host and device, C on the device. */
typedef struct Problem {
    int64_t M, N, K;
    uint16_t *a, *b, *c;      /* host f16 bits */
    uint64_t da, db, dc;      /* device */
} Problem;

static uint64_t rng_state;
static double uniform(void) { /* in [-1, 1) */
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / (double)(1ull << 53) * 2 - 1;
}

static bool problem_new(Problem *p, int64_t M, int64_t N, int64_t K, uint64_t seed) {
    char err[256];
    memset(p, 0, sizeof *p);
    p->M = M, p->N = N, p->K = K;
    p->a = malloc((size_t)(M * K) * 2);
    p->b = malloc((size_t)(K * N) * 2);
    p->c = malloc((size_t)(M * N) * 2);
    rng_state = seed;
    for (int64_t i = 0; i < M * K; i++) p->a[i] = (uint16_t)dtype_narrow_bits(DT_F16, uniform());
    for (int64_t i = 0; i < K * N; i++) p->b[i] = (uint16_t)dtype_narrow_bits(DT_F16, uniform());
    bool ok = rt_malloc(&p->da, (size_t)(M * K) * 2, err) && rt_malloc(&p->db, (size_t)(K * N) * 2, err) &&
              rt_malloc(&p->dc, (size_t)(M * N) * 2, err) && rt_memcpy_htod(p->da, p->a, (size_t)(M * K) * 2, err) &&
              rt_memcpy_htod(p->db, p->b, (size_t)(K * N) * 2, err) &&
              rt_memset8(p->dc, 0xFF, (size_t)(M * N) * 2, err); /* NaNs: an unwritten element fails */
    if (!ok) check(false, "device buffers", err);
    return ok;
}

static void problem_free(Problem *p) {
    rt_free(p->da), rt_free(p->db), rt_free(p->dc);
    free(p->a), free(p->b), free(p->c);
}

static int launch(tilec_kernel *k, Problem *p, void *stream) {
    int64_t sa[] = {p->M, p->K}, sb[] = {p->K, p->N}, sc[] = {p->M, p->N};
    tilec_tensor t[3] = {{(void *)(uintptr_t)p->da, 2, sa}, {(void *)(uintptr_t)p->db, 2, sb},
                         {(void *)(uintptr_t)p->dc, 2, sc}};
    char *diag = NULL;
    int rc = tilec_launch(k, t, 3, NULL, 0, stream, &diag);
    if (rc) printf("  tilec_launch: %d: %s", rc, diag);
    tilec_free_string(diag);
    return rc;
}

/* C copied back and compared with the host's f32 sums of the f16 inputs;
 * returns the number of elements off by more than 1e-2 relative (+ 1e-2). */
static int64_t compare(Problem *p, double *worst) {
    char err[256];
    *worst = 0;
    if (!rt_memcpy_dtoh(p->c, p->dc, (size_t)(p->M * p->N) * 2, err)) {
        check(false, "copy back", err);
        return p->M * p->N;
    }
    int64_t bad = 0;
    float *row = malloc((size_t)p->N * sizeof *row);
    for (int64_t i = 0; i < p->M; i++) {
        for (int64_t j = 0; j < p->N; j++) row[j] = 0;
        for (int64_t k = 0; k < p->K; k++) {
            float a = (float)dtype_narrow_value(DT_F16, p->a[i * p->K + k]);
            for (int64_t j = 0; j < p->N; j++) row[j] += a * (float)dtype_narrow_value(DT_F16, p->b[k * p->N + j]);
        }
        for (int64_t j = 0; j < p->N; j++) {
            double got = dtype_narrow_value(DT_F16, p->c[i * p->N + j]), want = row[j];
            double off = fabs(got - want) / (1e-2 + fabs(want));
            if (!(off <= 1e-2)) bad++;
            if (!(off <= *worst)) *worst = isnan(off) ? INFINITY : off;
        }
    }
    free(row);
    return bad;
}

static void test_one(const char *gemm, const char *set, int64_t M, int64_t N, int64_t K) {
    printf("gemm %s\n", set);
    tilec_options o = {.set = set};
    tilec_kernel *k = NULL;
    char *diag = NULL, detail[160];
    int rc = tilec_compile(gemm, "gemm.tile", NULL, &o, &k, &diag);
    check(rc == 0, "compiles for the device", diag);
    tilec_free_string(diag);
    if (rc) return;
    Problem p;
    if (problem_new(&p, M, N, K, 1)) {
        char err[256] = "";
        rc = launch(k, &p, NULL);
        bool ran = rc == 0 && rt_synchronize(err);
        check(ran, "tilec_launch runs it", err);
        double worst = 0;
        int64_t bad = ran ? compare(&p, &worst) : -1;
        snprintf(detail, sizeof detail, "%lld elements off, worst relative error %.3g", (long long)bad, worst);
        check(bad == 0, "C matches the host GEMM", detail);
    }
    problem_free(&p);
    tilec_kernel_free(k);
}

/* ---- two threads, two streams, one kernel ---- */

typedef struct Worker {
    tilec_kernel *k;
    Problem p;
    uint64_t seed;
    int rc;
    char err[256];
} Worker;

static void *worker(void *arg) {
    Worker *w = arg;
    void *stream = NULL;
    w->rc = 4;
    if (!rt_stream_create(&stream, w->err)) return NULL;
    w->rc = 0;
    for (int i = 0; i < 5 && w->rc == 0; i++) w->rc = launch(w->k, &w->p, stream);
    if (w->rc == 0 && !rt_stream_synchronize(stream, w->err)) w->rc = 4;
    rt_stream_destroy(stream);
    return NULL;
}

static void test_streams(const char *gemm) {
    printf("two threads on two streams\n");
    tilec_options o = {.set = "M=256,N=256,K=256"};
    tilec_kernel *k = NULL;
    char *diag = NULL, detail[160];
    int rc = tilec_compile(gemm, "gemm.tile", NULL, &o, &k, &diag);
    check(rc == 0, "compiles", diag);
    tilec_free_string(diag);
    if (rc) return;
    Worker w[2] = {{.k = k, .seed = 11}, {.k = k, .seed = 22}};
    bool ready = problem_new(&w[0].p, 256, 256, 256, w[0].seed) && problem_new(&w[1].p, 256, 256, 256, w[1].seed);
    pthread_t th[2];
    for (int i = 0; ready && i < 2; i++) pthread_create(&th[i], NULL, worker, &w[i]);
    for (int i = 0; ready && i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; ready && i < 2; i++) {
        check(w[i].rc == 0, i ? "thread 2 launches" : "thread 1 launches", w[i].err);
        double worst = 0;
        int64_t bad = w[i].rc == 0 ? compare(&w[i].p, &worst) : -1;
        snprintf(detail, sizeof detail, "%lld elements off, worst relative error %.3g", (long long)bad, worst);
        check(bad == 0, i ? "thread 2's C matches" : "thread 1's C matches", detail);
    }
    problem_free(&w[0].p);
    problem_free(&w[1].p);
    tilec_kernel_free(k);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_gpu ROOT\n");
        return 2;
    }
    RtDevice dev;
    char err[256];
    if (!rt_device_open(&dev, err)) {
        printf("no usable GPU: %s\n", err);
        const char *require = getenv("TILEC_REQUIRE_GPU");
        return require && !strcmp(require, "1") ? 1 : 77;
    }
    printf("device: %s\n", dev.name);
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/gemm.tile", argv[1]);
    char *gemm = read_file(path);
    test_one(gemm, "M=256,N=256,K=256", 256, 256, 256);
    /* ragged, and a grid of several waves of tiles (the persistent path on sm_90a) */
    test_one(gemm, "M=1000,N=1000,K=200", 1000, 1000, 200);
    test_one(gemm, "M=4096,N=2048,K=128", 4096, 2048, 128);
    test_streams(gemm);
    free(gemm);
    printf("%d checks, %s\n", checks, failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
