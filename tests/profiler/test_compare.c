/* test_compare.c - `--compare cublas` (compare.c): which references are one
 * matrix product and how they map to a GEMM (CPU only), and, when a GPU
 * opens, cuBLAS timed on device buffers with its result checked against the
 * reference (so a wrong transpose, leading dimension or stride fails here).
 *
 *   test_compare     run the tests (exit 0 when all pass; without a GPU the
 *                    cuBLAS part is skipped and prof_compare_cublas is never called) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"
#include "test_util.h"

static KernelInfo *load(Ctx *c, const char *src) { return load_with(c, src, NULL, 0); }



/* What prof_matmul_shape should say about a program (ok false: not a GEMM). */
typedef struct Case {
    const char *what, *src;
    bool ok;
    int a, b, c;
    long long m, n, k, batch;
    bool trans_a, trans_b;
    Dtype ab, cd;
} Case;

#define NOT_GEMM(what_, src_) {.what = (what_), .src = (src_), .ok = false}
static const Case cases[] = {
    {"plain", "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 72, N = 40, K = 24 { }\n"
              "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n",
     true, 0, 1, 2, 72, 40, 24, 1, false, false, DT_F16, DT_F16},
    {"transposed A, a let, parentheses",
     "kernel g(At: bf16[K, M], B: bf16[K, N], out C: f32[M, N]) where M = 56, N = 40, K = 24 { }\n"
     "reference { let two = 2.0; C[i, j] = sum(k: (At[k, i] * B[k, j])); }\n",
     true, 0, 1, 2, 56, 40, 24, 1, true, false, DT_BF16, DT_F32},
    {"transposed B, out first, factors swapped, other names",
     "kernel g(out C: f32[M, N], A: f32[M, K], Bt: f32[N, K]) where M = 40, N = 24, K = 56 { }\n"
     "reference { C[p, q] = sum(r: Bt[q, r] * A[p, r]); }\n",
     true, 1, 2, 0, 40, 24, 56, 1, false, true, DT_F32, DT_F32},
    {"batched", "kernel g(A: f16[H, M, K], B: f16[H, K, N], out C: f16[H, M, N]) where H = 3, M = 24, N = 40, K = 32 { }\n"
                "reference { C[b, i, j] = sum(k: A[b, i, k] * B[b, k, j]); }\n",
     true, 0, 1, 2, 24, 40, 32, 3, false, false, DT_F16, DT_F16},
    {"batched, both transposed",
     "kernel g(A: f16[H, K, M], B: f16[H, N, K], out C: f32[H, M, N]) where H = 2, M = 24, N = 8, K = 40 { }\n"
     "reference { C[b, i, j] = sum(k: A[b, k, i] * B[b, j, k]); }\n",
     true, 0, 1, 2, 24, 8, 40, 2, true, true, DT_F16, DT_F32},
    /* C[j, i] = sum(k: A[i, k] * B[k, j]) is C = B^T A^T: B is the first operand, both transposed. */
    {"transposed C", "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[N, M]) where M = 24, N = 40, K = 32 { }\n"
                     "reference { C[j, i] = sum(k: A[i, k] * B[k, j]); }\n",
     true, 1, 0, 2, 40, 24, 32, 1, true, true, DT_F16, DT_F16},
    {"one tensor twice", "kernel g(A: bf16[N, N], out C: bf16[N, N]) where N = 48 { }\n"
                         "reference { C[i, j] = sum(k: A[i, k] * A[k, j]); }\n",
     true, 0, 0, 1, 48, 48, 48, 1, false, false, DT_BF16, DT_BF16},
    {"f32 inputs, f16 output (a shape; cuBLAS has no such GEMM)",
     "kernel g(A: f32[M, K], B: f32[K, N], out C: f16[M, N]) where M = 24, N = 16, K = 8 { }\n"
     "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n",
     true, 0, 1, 2, 24, 16, 8, 1, false, false, DT_F32, DT_F16},

    NOT_GEMM("softmax",
             "kernel g(X: f32[M, N], out Y: f32[M, N]) where M = 8, N = 16 { }\n"
             "reference { m[i] = max(j: X[i, j]); e[i, j] = exp(X[i, j] - m[i]); s[i] = sum(j: e[i, j]);\n"
             "            Y[i, j] = e[i, j] / s[i]; }\n"),
    NOT_GEMM("a sum plus a bias",
             "kernel g(A: f16[M, K], B: f16[K, N], bias: f16[N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]) + bias[j]; }\n"),
    NOT_GEMM("an extra term inside the sum",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j] + 1.0); }\n"),
    NOT_GEMM("a scaled sum",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = 2.0 * sum(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("mismatched dtypes",
             "kernel g(A: f16[M, K], B: bf16[K, N], out C: f32[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("integer dtypes",
             "kernel g(A: i8[M, K], B: i8[K, N], out C: i32[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("f64",
             "kernel g(A: f64[M, K], B: f64[K, N], out C: f64[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("max, not sum",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = max(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("two reduction variables",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k, l: A[i, k] * B[l, j]); }\n"),
    NOT_GEMM("no column variable",
             "kernel g(A: f16[M, K], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * A[i, k]); }\n"),
    NOT_GEMM("an index expression",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[K - 1 - k, j]); }\n"),
    NOT_GEMM("through a temporary",
             "kernel g(A: f16[M, K], B: f16[K, N], out C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { h[i, j] = sum(k: A[i, k] * B[k, j]); C[i, j] = h[i, j]; }\n"),
    NOT_GEMM("an inout result",
             "kernel g(A: f16[M, K], B: f16[K, N], inout C: f16[M, N]) where M = 8, N = 16, K = 8 { }\n"
             "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n"),
    NOT_GEMM("batch variable not leading",
             "kernel g(A: f16[M, H, K], B: f16[H, K, N], out C: f16[H, M, N]) where H = 2, M = 8, N = 16, K = 8 { }\n"
             "reference { C[b, i, j] = sum(k: A[i, b, k] * B[b, k, j]); }\n"),
    NOT_GEMM("unbatched B",
             "kernel g(A: f16[H, M, K], B: f16[K, N], out C: f16[H, M, N]) where H = 2, M = 8, N = 16, K = 8 { }\n"
             "reference { C[b, i, j] = sum(k: A[b, i, k] * B[k, j]); }\n"),
    NOT_GEMM("rank 1",
             "kernel g(A: f16[K], B: f16[K], out C: f16[N]) where N = 4, K = 8 { }\n"
             "reference { C[i] = sum(k: A[k] * B[k]); }\n"),
};
enum { NCASES = sizeof cases / sizeof *cases };

/* A session's host side: the generated tensors, as prof_session_open has them. */
static void open_host_session(Session *s, KernelInfo *k) {
    memset(s, 0, sizeof *s);
    s->k = k;
    if (!prof_supply(k, SUPPLY_NORMAL, 11, &s->in, &s->n)) exit(1);
}

static void test_shapes(void) {
    for (int i = 0; i < NCASES; i++) {
        const Case *t = &cases[i];
        Ctx c;
        KernelInfo *k = load(&c, t->src);
        Session s;
        open_host_session(&s, k);
        GemmShape g, g2;
        memset(&g, 0x5A, sizeof g);
        bool ok = prof_matmul_shape(k, &s, &g);
        CHECK(ok == t->ok, "%s: matmul-shaped %d, want %d", t->what, ok, t->ok);
        CHECK(prof_matmul_shape(k, NULL, &g2) == ok, "%s: the same without a session", t->what);
        if (ok && t->ok) {
            CHECK(g.a == t->a && g.b == t->b && g.c == t->c, "%s: tensors a %d b %d c %d, want %d %d %d", t->what, g.a,
                  g.b, g.c, t->a, t->b, t->c);
            CHECK(g.m == t->m && g.n == t->n && g.k == t->k && g.batch == t->batch,
                  "%s: m %lld n %lld k %lld batch %lld, want %lld %lld %lld %lld", t->what, g.m, g.n, g.k, g.batch,
                  t->m, t->n, t->k, t->batch);
            CHECK(g.trans_a == t->trans_a && g.trans_b == t->trans_b, "%s: trans_a %d trans_b %d, want %d %d", t->what,
                  g.trans_a, g.trans_b, t->trans_a, t->trans_b);
            CHECK(g.ab == t->ab && g.cd == t->cd, "%s: dtypes %s -> %s, want %s -> %s", t->what, dtype_name(g.ab),
                  dtype_name(g.cd), dtype_name(t->ab), dtype_name(t->cd));
            CHECK(!memcmp(&g, &g2, sizeof g) || (g.a == g2.a && g.b == g2.b && g.c == g2.c && g.m == g2.m),
                  "%s: the same without a session", t->what);
            CHECK(g.c >= 0 && g.c < s.n && s.in[g.c].sym->mode == MODE_OUT && s.in[g.a].sym->mode == MODE_IN,
                  "%s: the indices are the session's", t->what);
        }
        prof_tensors_free(s.in, s.n);
        ctx_free(&c);
    }
    /* A session of another kernel does not fit: its tensors are not k's. */
    Ctx c1, c2;
    KernelInfo *k1 = load(&c1, cases[0].src), *k2 = load(&c2, cases[1].src);
    Session s2;
    open_host_session(&s2, k2);
    GemmShape g;
    CHECK(!prof_matmul_shape(k1, &s2, &g), "a session of another kernel");
    prof_tensors_free(s2.in, s2.n);
    ctx_free(&c1);
    ctx_free(&c2);
}

/* ---- on the GPU ---- */

/* Runs cuBLAS through prof_compare_cublas on a session whose outputs hold
 * the reference's values (as a verified tilec run leaves s->got), then checks
 * what cuBLAS left in C against the reference with prof_verify. */
static void gpu_case(const Case *t, const RtDevice *dev) {
    Ctx c;
    KernelInfo *k = load(&c, t->src);
    Session s;
    open_host_session(&s, k);
    char err[256] = "";
    s.dev = calloc((size_t)s.n, sizeof *s.dev);
    s.got = calloc((size_t)s.n, sizeof *s.got);
    if (!s.dev || !s.got) exit(1);
    RefEval *ref = prof_ref_new(k, s.in, s.n);
    CHECK(ref != NULL, "%s: reference", t->what);
    if (!ref) exit(1);
    for (int i = 0; i < s.n; i++) {
        HostTensor *h = &s.in[i];
        s.got[i] = *h;
        s.got[i].values = NULL;
        s.got[i].storage = NULL;
        bool ok = rt_malloc(&s.dev[i], h->storage_bytes, err) &&
                  (h->sym->mode == MODE_OUT ? rt_memset8(s.dev[i], 0xFF, h->storage_bytes, err)
                                            : rt_memcpy_htod(s.dev[i], h->storage, h->storage_bytes, err));
        CHECK(ok, "%s: device buffers: %s", t->what, err);
        if (h->sym->mode == MODE_IN) continue;
        double *v = malloc((size_t)h->elems * sizeof *v);
        s.got[i].storage = malloc(h->storage_bytes);
        if (!v || !s.got[i].storage) exit(1);
        for (int64_t e = 0; e < h->elems; e++) {
            int64_t idx[MAX_RANK], rest = e;
            for (int d = h->rank - 1; d >= 0; d--) {
                idx[d] = rest % h->shape[d];
                rest /= h->shape[d];
            }
            v[e] = prof_round_to(h->dtype, prof_ref_element(ref, h->sym, idx));
        }
        prof_to_storage(h->dtype, v, s.got[i].storage, h->elems);
        free(v);
    }
    BenchOptions o = prof_bench_defaults();
    o.max_time_s = 0.2;
    CompareResult r;
    GemmShape g;
    bool shaped = prof_matmul_shape(k, &s, &g);
    bool supported = shaped && (g.ab == g.cd || g.cd == DT_F32);
    bool ok = prof_compare_cublas(k, &s, dev->l2_bytes, &o, 2.0, &r, err);
    CHECK(ok, "%s: prof_compare_cublas: %s", t->what, err);
    CHECK(r.name && !strcmp(r.name, "cublas"), "%s: name", t->what);
    if (!supported) {
        CHECK(!r.present && r.note && strstr(r.note, "no vendor equivalent"), "%s: note \"%s\"", t->what,
              r.note ? r.note : "(null)");
    } else if (r.present) {
        CHECK(r.median_ms > 0 && r.median_ms < 100, "%s: median %g ms", t->what, r.median_ms);
        CHECK(r.speedup == r.median_ms / 2.0, "%s: speedup %g", t->what, r.speedup);
        printf("  %-40s cuBLAS %.4f ms\n", t->what, r.median_ms);
        /* What cuBLAS wrote, against the reference. */
        HostTensor *got = calloc((size_t)s.n, sizeof *got);
        if (!got) exit(1);
        for (int i = 0; i < s.n; i++) got[i] = s.got[i];
        HostTensor *h = &got[g.c];
        h->storage = malloc(h->storage_bytes);
        if (!h->storage) exit(1);
        CHECK(rt_memcpy_dtoh(h->storage, s.dev[g.c], h->storage_bytes, err), "%s: copy back: %s", t->what, err);
        VerifyResult vr;
        CHECK(prof_verify(k, ref, got, s.n, -1, -1, 0, &vr), "%s: cuBLAS's C against the reference: %lld mismatches",
              t->what, (long long)vr.mismatches);
        if (!vr.passed) prof_verify_print(stderr, &vr);
        free(h->storage);
        free(got);
    } else {
        CHECK(r.present, "%s: not timed: %s", t->what, r.note ? r.note : "(no note)");
    }
    prof_ref_free(ref);
    for (int i = 0; i < s.n; i++) {
        rt_free(s.dev[i]);
        free(s.got[i].storage);
    }
    free(s.dev);
    free(s.got);
    prof_tensors_free(s.in, s.n);
    ctx_free(&c);
}

int main(void) {
    test_shapes();
    printf("test_compare: CPU part: %d checks, %d failed\n", checks, failures);
    RtDevice dev;
    char err[256];
    if (!rt_device_open(&dev, err)) {
        /* prof_compare_cublas needs the device; it is not called here. */
        printf("test_compare: no GPU (%s): the cuBLAS part is skipped\n", err);
        return failures ? 1 : 0;
    }
    printf("test_compare: cuBLAS on %s\n", dev.name);
    for (int i = 0; i < NCASES; i++) gpu_case(&cases[i], &dev);
    printf("test_compare: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
