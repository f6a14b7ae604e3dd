/* test_reference.c - the profiler's host side: generated inputs, the f16/bf16
 * conversions, the reference evaluator against hand-computed values, and
 * verification (mismatch counts, first indices, sampling).
 *
 *   test_reference            run the tests (exit 0 when all pass)
 *   test_reference --bench    time prof_ref_element on a 4096^3 f16 GEMM and a
 *                             B=8, H=16, S=4096, D=128 attention (needs ~3 GB) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profiler.h"
#include "test_util.h"



#define CHECK_EQ(got, want) CHECK((got) == (want) || (isnan(got) && isnan(want)), "got %.17g, want %.17g", (double)(got), (double)(want))

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static HostTensor *tensor(HostTensor *t, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].sym->name->s, name)) return &t[i];
    fprintf(stderr, "no tensor %s\n", name);
    exit(1);
}

/* Sets a tensor's values (and storage) by hand. */
static void set_values(HostTensor *t, const double *v) {
    for (int64_t i = 0; i < t->elems; i++) t->values[i] = prof_round_to(t->dtype, v[i]);
    prof_to_storage(t->dtype, t->values, t->storage, t->elems);
}

static double ref1(RefEval *r, HostTensor *t, int64_t i) { return prof_ref_element(r, t->sym, &i); }
static double ref2(RefEval *r, HostTensor *t, int64_t i, int64_t j) {
    int64_t ix[2] = {i, j};
    return prof_ref_element(r, t->sym, ix);
}

/* ---- conversions ---- */

static void test_conversions(void) {
    CHECK_EQ(prof_f16_value(prof_f16_bits(1.0 / 3)), 0.333251953125);
    CHECK_EQ(prof_round_to(DT_F16, 1.0 / 3), 0.333251953125);
    CHECK(prof_f16_bits(1.0 / 3) == 0x3555, "bits %04x", prof_f16_bits(1.0 / 3));
    CHECK_EQ(prof_bf16_value(prof_bf16_bits(1.0 / 3)), 0.333984375);
    CHECK(prof_bf16_bits(1.0 / 3) == 0x3EAB, "bits %04x", prof_bf16_bits(1.0 / 3));
    /* ties to even, overflow, subnormals, signs, specials */
    CHECK_EQ(prof_round_to(DT_F16, 1 + ldexp(1, -11)), 1.0);
    CHECK_EQ(prof_round_to(DT_F16, 1 + 3 * ldexp(1, -11)), 1 + ldexp(1, -9));
    CHECK_EQ(prof_round_to(DT_F16, 1 + ldexp(1, -11) + ldexp(1, -30)), 1 + ldexp(1, -10));
    CHECK_EQ(prof_round_to(DT_F16, 65504), 65504.0);
    CHECK_EQ(prof_round_to(DT_F16, 65519.99), 65504.0);
    CHECK_EQ(prof_round_to(DT_F16, 65520), INFINITY);
    CHECK_EQ(prof_round_to(DT_F16, -1e9), -INFINITY);
    CHECK(prof_f16_bits(ldexp(1, -24)) == 0x0001, "bits %04x", prof_f16_bits(ldexp(1, -24)));
    CHECK(prof_f16_bits(ldexp(1, -25)) == 0x0000, "bits %04x", prof_f16_bits(ldexp(1, -25)));
    CHECK(prof_f16_bits(3 * ldexp(1, -26)) == 0x0001, "bits %04x", prof_f16_bits(3 * ldexp(1, -26)));
    CHECK(prof_f16_bits(ldexp(1, -14)) == 0x0400, "bits %04x", prof_f16_bits(ldexp(1, -14)));
    CHECK(prof_f16_bits(ldexp(1023, -24)) == 0x03FF, "bits %04x", prof_f16_bits(ldexp(1023, -24)));
    CHECK(prof_f16_bits(-0.0) == 0x8000, "bits %04x", prof_f16_bits(-0.0));
    CHECK(prof_f16_bits(-2.5) == 0xC100, "bits %04x", prof_f16_bits(-2.5));
    CHECK(isnan(prof_f16_value(prof_f16_bits(NAN))), "NaN");
    CHECK_EQ(prof_f16_value(0x7C00), INFINITY);
    CHECK_EQ(prof_f16_value(0x3C00), 1.0);
    CHECK_EQ(prof_bf16_value(0x3F80), 1.0);
    CHECK_EQ(prof_round_to(DT_BF16, 1 + ldexp(1, -8)), 1.0);           /* tie to even */
    CHECK_EQ(prof_round_to(DT_BF16, 1 + 3 * ldexp(1, -8)), 1 + ldexp(1, -6));
    CHECK_EQ(prof_round_to(DT_BF16, 1e39), INFINITY);
    CHECK_EQ(prof_round_to(DT_F8E4M3, 448), 448.0);
    CHECK_EQ(prof_round_to(DT_F8E4M3, 1000), 448.0);                    /* saturates */
    CHECK_EQ(prof_round_to(DT_F8E4M3, 1.0 / 3), 0.34375);
    CHECK_EQ(prof_round_to(DT_F8E5M2, 1.0 / 3), 0.3125);
    CHECK_EQ(prof_round_to(DT_F8E5M2, 1e6), INFINITY);
    CHECK_EQ(prof_round_to(DT_F32, 1.0 / 3), (double)(1.0f / 3));
    CHECK_EQ(prof_round_to(DT_I32, -2.7), -2.0);
    CHECK_EQ(prof_round_to(DT_I8, 300), 127.0);
    CHECK_EQ(prof_round_to(DT_U8, -5), 0.0);
    CHECK_EQ(prof_round_to(DT_I32, NAN), 0.0);
    CHECK_EQ(prof_round_to(DT_BOOL, 0.25), 1.0);
    /* storage round trips, every f16 bit pattern */
    int bad = 0;
    for (uint32_t b = 0; b < 0x10000; b++) {
        double v = prof_f16_value((uint16_t)b);
        if (isnan(v)) continue;
        if (prof_f16_bits(v) != b) bad++;
        double w = prof_bf16_value((uint16_t)b);
        if (!isnan(w) && prof_bf16_bits(w) != b) bad++;
    }
    CHECK(bad == 0, "%d bit patterns do not round-trip", bad);
    double vals[6] = {1.0 / 3, -2.5, 65504, 1e-7, -0.0, 7}, back[6];
    uint16_t st[6];
    prof_to_storage(DT_F16, vals, st, 6);
    prof_from_storage(DT_F16, st, back, 6);
    for (int i = 0; i < 6; i++) CHECK_EQ(back[i], prof_round_to(DT_F16, vals[i]));
    int32_t si[6];
    prof_to_storage(DT_I32, vals, si, 6);
    CHECK(si[0] == 0 && si[1] == -2 && si[2] == 65504 && si[5] == 7, "i32 storage %d %d %d %d", si[0], si[1], si[2], si[5]);
}

/* ---- supply ---- */

static void test_supply(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel s(A: f16[N], B: bf16[N], I: i32[N], U: u8[N], F: f32[N], T: bool[N], inout C: f32[N], n: i32, out O: f16[N])\n"
        "    where N = 100000, n = 3 { }\n"
        "reference { O[i] = A[i]; C[i] = C[i] + B[i]; }\n", NULL, 0);
    HostTensor *t, *t2;
    int n, n2;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 1, &t, &n), "supply");
    CHECK(n == 8, "%d tensors", n);
    CHECK(!strcmp(t[0].sym->name->s, "A") && !strcmp(t[7].sym->name->s, "O"), "order");
    HostTensor *A = tensor(t, n, "A"), *B = tensor(t, n, "B"), *I = tensor(t, n, "I"), *U = tensor(t, n, "U");
    HostTensor *T = tensor(t, n, "T"), *O = tensor(t, n, "O"), *C = tensor(t, n, "C"), *F = tensor(t, n, "F");
    CHECK(O->values == NULL && O->storage && O->storage_bytes == 200000, "out storage only");
    CHECK(C->values != NULL, "inout values");
    double sum = 0, sq = 0;
    int not_rounded = 0, bad_int = 0, bad_bool = 0, same = 0;
    for (int64_t i = 0; i < A->elems; i++) {
        double v = A->values[i];
        sum += v;
        sq += v * v;
        if (prof_round_to(DT_F16, v) != v || prof_f16_value(((uint16_t *)A->storage)[i]) != v) not_rounded++;
        if (prof_round_to(DT_BF16, B->values[i]) != B->values[i]) not_rounded++;
        if (prof_round_to(DT_F32, F->values[i]) != F->values[i]) not_rounded++;
        if (I->values[i] != floor(I->values[i]) || I->values[i] < -4 || I->values[i] > 4) bad_int++;
        if (((int32_t *)I->storage)[i] != (int32_t)I->values[i]) bad_int++;
        if (U->values[i] < 0 || U->values[i] > 4) bad_int++;
        if (T->values[i] != 0 && T->values[i] != 1) bad_bool++;
        if (A->values[i] == prof_round_to(DT_F16, B->values[i])) same++;
    }
    double mean = sum / (double)A->elems, sd = sqrt(sq / (double)A->elems - mean * mean);
    CHECK(fabs(mean) < 0.02 && fabs(sd - 1) < 0.02, "normal: mean %g sd %g", mean, sd);
    CHECK(not_rounded == 0 && bad_int == 0 && bad_bool == 0, "%d %d %d", not_rounded, bad_int, bad_bool);
    CHECK(same < 1000, "A and B too alike (%d)", same);
    /* Reproducible, seed-dependent. */
    CHECK(prof_supply(k, SUPPLY_NORMAL, 1, &t2, &n2), "supply");
    CHECK(!memcmp(t2[0].storage, A->storage, A->storage_bytes) && !memcmp(t2[6].values, C->values, 8 * 100000),
          "same seed, same data");
    prof_tensors_free(t2, n2);
    CHECK(prof_supply(k, SUPPLY_NORMAL, 2, &t2, &n2), "supply");
    CHECK(memcmp(t2[0].storage, A->storage, A->storage_bytes) != 0, "another seed, other data");
    prof_tensors_free(t2, n2);
    /* uniform, integer, ones */
    CHECK(prof_supply(k, SUPPLY_UNIFORM, 3, &t2, &n2), "supply");
    double lo = 1, hi = -1;
    for (int64_t i = 0; i < 100000; i++) {
        double v = tensor(t2, n2, "F")->values[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    CHECK(lo >= -1 && hi < 1 && lo < -0.99 && hi > 0.99, "uniform range [%g, %g]", lo, hi);
    prof_tensors_free(t2, n2);
    CHECK(prof_supply(k, SUPPLY_INTEGER, 3, &t2, &n2), "supply");
    int hist[9] = {0};
    bool nonint = false;
    for (int64_t i = 0; i < 100000; i++) {
        double v = tensor(t2, n2, "A")->values[i];
        if (v != floor(v) || v < -4 || v > 4) nonint = true;
        else hist[(int)v + 4]++;
    }
    CHECK(!nonint && hist[0] > 10000 && hist[8] > 10000, "integer supply %d %d", hist[0], hist[8]);
    prof_tensors_free(t2, n2);
    CHECK(prof_supply(k, SUPPLY_ONES, 3, &t2, &n2), "supply");
    CHECK(tensor(t2, n2, "B")->values[777] == 1 && ((uint16_t *)tensor(t2, n2, "A")->storage)[5] == 0x3C00 &&
              tensor(t2, n2, "T")->values[3] == 1,
          "ones");
    prof_tensors_free(t2, n2);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* The `inputs` clause: each distribution's values, per row where it
 * works on rows, reproducible. */
static void test_inputs_clause(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel s(I: i32[R, 40], P: i16[R, 40], Q: f16[3, 2048], O: i64[R, 9], U: f32[R, 40], G: f32[R, 40],\n"
        "         K: u8[R, 40], B: bf16[R], out Y: f32[R])\n"
        "    where R = 5000\n"
        "    inputs I = integers(-3, 7), P = permutation(1000), Q = permutation(2048), O = offsets(12345),\n"
        "           U = uniform(2, 2.5), G = normal(10, 0.5), K = constant(200), B = constant(1.5) { }\n"
        "reference { Y[r] = f32(I[r, 0]); }\n", NULL, 0);
    HostTensor *t, *t2;
    int n, n2;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 4, &t, &n), "supply");
    HostTensor *I = tensor(t, n, "I"), *P = tensor(t, n, "P"), *Q = tensor(t, n, "Q"), *O = tensor(t, n, "O");
    HostTensor *U = tensor(t, n, "U"), *G = tensor(t, n, "G"), *K = tensor(t, n, "K"), *B = tensor(t, n, "B");
    int hist[10] = {0}, bad = 0;
    for (int64_t i = 0; i < I->elems; i++) {
        double v = I->values[i];
        if (v != floor(v) || v < -3 || v > 6 || ((int32_t *)I->storage)[i] != (int32_t)v) bad++;
        else hist[(int)v + 3]++;
    }
    CHECK(bad == 0 && hist[0] > 15000 && hist[9] > 15000, "integers: %d bad, %d %d", bad, hist[0], hist[9]);
    /* permutation rows: distinct values in range; short rows of a long
     * permutation cover it; whole rows are permutations */
    static char seen[2048];
    int64_t reached_high = 0;
    for (int64_t r = 0; r < 5000 && !bad; r++) {
        memset(seen, 0, sizeof seen);
        for (int j = 0; j < 40; j++) {
            double v = P->values[r * 40 + j];
            if (v < 0 || v >= 1000 || v != floor(v) || seen[(int)v]++ || ((int16_t *)P->storage)[r * 40 + j] != (int16_t)v) bad++;
            reached_high += v >= 900;
        }
    }
    CHECK(bad == 0 && reached_high > 15000, "permutation(1000) rows of 40: %d bad, %lld high", bad, (long long)reached_high);
    for (int r = 0; r < 3; r++) {
        memset(seen, 0, sizeof seen);
        int inplace = 0;
        for (int j = 0; j < 2048; j++) {
            double v = Q->values[r * 2048 + j];
            if (v < 0 || v >= 2048 || seen[(int)v]++) bad++;
            inplace += v == j;
        }
        CHECK(bad == 0 && inplace < 20, "permutation(2048) row %d: %d bad, %d fixed points", r, bad, inplace);
    }
    CHECK(memcmp(Q->values, Q->values + 2048, 2048 * sizeof(double)) != 0, "rows differ");
    for (int64_t r = 0; r < 5000; r++) {
        const double *o = O->values + r * 9;
        if (o[0] != 0 || o[8] != 12345) bad++;
        for (int j = 1; j < 9; j++) bad += o[j] < o[j - 1];
    }
    CHECK(bad == 0, "offsets: %d bad", bad);
    double lo = 9, hi = 0, sum = 0, sq = 0;
    for (int64_t i = 0; i < U->elems; i++) {
        lo = fmin(lo, U->values[i]);
        hi = fmax(hi, U->values[i]);
        sum += G->values[i];
        sq += G->values[i] * G->values[i];
    }
    double mean = sum / (double)G->elems, sd = sqrt(sq / (double)G->elems - mean * mean);
    CHECK(lo >= 2 && hi < 2.5 && lo < 2.01 && hi > 2.49, "uniform(2, 2.5): [%g, %g]", lo, hi);
    CHECK(fabs(mean - 10) < 0.01 && fabs(sd - 0.5) < 0.01, "normal(10, 0.5): mean %g sd %g", mean, sd);
    CHECK(K->values[123] == 200 && ((uint8_t *)K->storage)[4999 * 40] == 200 && B->values[77] == 1.5, "constant");
    /* reproducible: the same seed gives the same rows */
    CHECK(prof_supply(k, SUPPLY_UNIFORM, 4, &t2, &n2), "supply");
    CHECK(!memcmp(tensor(t2, n2, "P")->storage, P->storage, P->storage_bytes) &&
              !memcmp(tensor(t2, n2, "O")->values, O->values, (size_t)O->elems * sizeof(double)),
          "same seed, same data (whatever --supply says)");
    prof_tensors_free(t2, n2);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* ---- reference semantics ---- */

/* rand, randn and randint in a reference are frontend/random.c's values,
 * with the seed a scalar parameter and the offset an index expression;
 * constant arguments fold to the same values. */
static void test_random_functions(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel r(out U: f32[N], out Z: f32[N], out W: u32[N], out K: f32[N], seed: u64)\n"
        "    where N = 1000, seed = 1234567 { }\n"
        "reference { U[i] = rand(seed, i); Z[i] = randn(seed, 2 * i + 1); W[i] = randint(seed, i - 5);\n"
        "            K[i] = rand(7, 3) + f32(i); }\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 0, &t, &n), "supply");
    RefEval *r = prof_ref_new(k, t, n);
    CHECK(r != NULL, "ref");
    HostTensor *U = tensor(t, n, "U"), *Z = tensor(t, n, "Z"), *W = tensor(t, n, "W"), *K = tensor(t, n, "K");
    int bad = 0;
    for (int64_t i = 0; i < 1000; i++) {
        bad += ref1(r, U, i) != (double)random_uniform(1234567, (uint64_t)i);
        bad += ref1(r, Z, i) != (double)random_normal(1234567, (uint64_t)(2 * i + 1));
        bad += ref1(r, W, i) != (double)random_int(1234567, (uint64_t)(i - 5));
        bad += ref1(r, K, i) != (double)random_uniform(7, 3) + (double)i;
    }
    CHECK(bad == 0, "%d random values differ", bad);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

static void test_matmul(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel mm(A: f16[M, K], B: f16[K, N], out C: f32[M, N])\n"
        "    where M = 3, K = 2, N = 4 { }\n"
        "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_INTEGER, 7, &t, &n), "supply");
    HostTensor *A = tensor(t, n, "A"), *B = tensor(t, n, "B"), *C = tensor(t, n, "C");
    RefEval *r = prof_ref_new(k, t, n);
    CHECK(r != NULL, "ref");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double want = A->values[i * 2 + 0] * B->values[0 * 4 + j] + A->values[i * 2 + 1] * B->values[1 * 4 + j];
            CHECK_EQ(ref2(r, C, i, j), want);
        }
    CHECK_EQ(ref2(r, C, 3, 0), 0.0);  /* outside the tensor */
    CHECK_EQ(ref2(r, C, -1, 0), 0.0);
    prof_ref_free(r);
    /* By hand. */
    double a[6] = {1, 2, 3, 4, 5, 6}, b[8] = {1, 0, -1, 2, 0, 1, 1, -2};
    set_values(A, a);
    set_values(B, b);
    r = prof_ref_new(k, t, n);
    double want[12] = {1, 2, 1, -2, 3, 4, 1, -2, 5, 6, 1, -2};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK_EQ(ref2(r, C, i, j), want[i * 4 + j]);
    CHECK(prof_ref_cost(r, C->sym, 12) >= 12 * 2, "cost %g", prof_ref_cost(r, C->sym, 12));
    /* Verification of the right answer, and of a wrong one. */
    double *got = malloc(12 * sizeof *got);
    memcpy(got, want, sizeof want);
    C->values = got;
    VerifyResult vr;
    CHECK(prof_verify(k, r, t, n, -1, -1, 0, &vr), "verify passes");
    CHECK(vr.checked == 12 && vr.total == 12 && vr.mismatches == 0 && !vr.sampled && vr.max_abs_err == 0, "counts");
    CHECK(vr.rtol == 1e-3 && vr.atol == 1e-3, "f32 defaults %g %g", vr.rtol, vr.atol);
    got[1 * 4 + 2] += 0.5;       /* C[1, 2] */
    got[2 * 4 + 3] = NAN;        /* C[2, 3] */
    got[0 * 4 + 1] += 1e-6;      /* within atol */
    CHECK(!prof_verify(k, r, t, n, -1, -1, 0, &vr), "verify fails");
    CHECK(vr.mismatches == 2 && vr.nfirst == 2 && vr.checked == 12, "mismatches %lld nfirst %d",
          (long long)vr.mismatches, vr.nfirst);
    CHECK(vr.first_idx[0][0] == 1 && vr.first_idx[0][1] == 2 && vr.first_got[0] == 1.5 && vr.first_want[0] == 1,
          "first mismatch [%lld, %lld]", (long long)vr.first_idx[0][0], (long long)vr.first_idx[0][1]);
    CHECK(vr.first_idx[1][0] == 2 && vr.first_idx[1][1] == 3 && isnan(vr.first_got[1]), "second mismatch");
    CHECK(!strcmp(vr.tensor, "C") && vr.first_rank == 2, "tensor %s", vr.tensor);
    CHECK(isinf(vr.max_abs_err), "NaN where a number is expected: max_abs_err %g", vr.max_abs_err);
    fputs("(expected failure report follows)\n", stderr);
    prof_verify_print(stderr, &vr);
    /* Tolerances given explicitly. */
    got[2 * 4 + 3] = -2;
    CHECK(prof_verify(k, r, t, n, 0.5, 0, 0, &vr) && vr.rtol == 0.5, "rtol 0.5 accepts 1.5 for 1");
    /* got from storage (values NULL). */
    C->values = NULL;
    float fs[12];
    for (int i = 0; i < 12; i++) fs[i] = (float)want[i];
    memcpy(C->storage, fs, sizeof fs);
    CHECK(prof_verify(k, r, t, n, -1, -1, 0, &vr), "verify from storage");
    C->values = NULL;
    free(got);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

static void test_softmax(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel sm(X: f32[M, N], out Y: f32[M, N], out Z: f32[M, N])\n"
        "    where M = 2, N = 3 { }\n"
        "reference {\n"
        "    m[i] = max(j: X[i, j]);\n"
        "    e[i, j] = exp(X[i, j] - m[i]);\n"
        "    s[i] = sum(j: e[i, j]);\n"
        "    Y[i, j] = e[i, j] / s[i];\n"
        "    Z[i, j] = exp(X[i, j]) / sum(k: exp(X[i, k]));\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 0, &t, &n), "supply");
    double x[6] = {1, 2, 3, 0, 0, 0};
    set_values(tensor(t, n, "X"), x);
    RefEval *r = prof_ref_new(k, t, n);
    HostTensor *Y = tensor(t, n, "Y"), *Z = tensor(t, n, "Z");
    double d = exp(-2) + exp(-1) + 1;
    double want[6] = {exp(-2) / d, exp(-1) / d, 1 / d, 1.0 / 3, 1.0 / 3, 1.0 / 3};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            CHECK_NEAR(ref2(r, Y, i, j), want[i * 3 + j], 1e-15);
            CHECK_NEAR(ref2(r, Z, i, j), want[i * 3 + j], 1e-15);
        }
    /* Read out of order: the memo tables and caches must not mix rows up. */
    CHECK_NEAR(ref2(r, Y, 1, 2), 1.0 / 3, 1e-15);
    CHECK_NEAR(ref2(r, Y, 0, 0), want[0], 1e-15);
    CHECK_NEAR(ref2(r, Z, 1, 0), 1.0 / 3, 1e-15);
    CHECK_NEAR(ref2(r, Z, 0, 2), want[2], 1e-15);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

static void test_attention(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel att(Q: f64[S, D], K: f64[S, D], V: f64[S, D], W: f64[R], out O: f64[S, D], out P: f64[S, S])\n"
        "    where S = 5, D = 3, R = 1000, causal = 1 { }\n"
        "reference {\n"
        "    let scale = 1.0 / sqrt(f64(D));\n"
        "    s[i, j] = (causal == 0 || j <= i) ? scale * sum(d: Q[i, d] * K[j, d]) : -inf;\n"
        "    m[i] = max(j: s[i, j]);\n"
        "    p[i, j] = exp(s[i, j] - m[i]);\n"
        "    O[i, d] = sum(j: p[i, j] * V[j, d]) / sum(j: p[i, j]);\n"
        "    P[i, j] = j <= i ? p[i, j] : sum(a, b, x: W[a] * W[b] * W[x]);\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 5, &t, &n), "supply");
    HostTensor *Q = tensor(t, n, "Q"), *K = tensor(t, n, "K"), *V = tensor(t, n, "V");
    HostTensor *O = tensor(t, n, "O"), *P = tensor(t, n, "P");
    RefEval *r = prof_ref_new(k, t, n);
    double t0 = now();
    for (int i = 0; i < 5; i++) {
        double s[5], m = -INFINITY, p[5], l = 0;
        for (int j = 0; j < 5; j++) {
            double dot = 0;
            for (int d = 0; d < 3; d++) dot += Q->values[i * 3 + d] * K->values[j * 3 + d];
            s[j] = j <= i ? dot / sqrt(3.0) : -INFINITY;
            m = fmax(m, s[j]);
        }
        for (int j = 0; j < 5; j++) {
            p[j] = exp(s[j] - m);
            l += p[j];
        }
        for (int d = 0; d < 3; d++) {
            double o = 0;
            for (int j = 0; j < 5; j++) o += p[j] * V->values[j * 3 + d];
            CHECK_NEAR(ref2(r, O, i, d), o / l, 1e-13);
        }
        for (int j = 0; j <= i; j++) CHECK_NEAR(ref2(r, P, i, j), p[j], 1e-13);
        for (int j = i + 1; j < 5; j++) CHECK_EQ(p[j], 0.0); /* exp(-inf - m) */
    }
    CHECK_EQ(ref2(r, O, 0, 1), V->values[1]);  /* one key: O = V exactly */
    double dt = now() - t0;
    CHECK(dt < 0.5, "the untaken branch of ?: was evaluated (%.2f s)", dt);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* A factor of a dot product that is not an input read (an expression of
 * k, a definition read over a column) is computed for every k into a row
 * kept while its other indices stay; the values are those of the loop,
 * whatever order the elements come in. */
static void test_materialised_factors(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel mf(Q: f64[N, N], V: f64[N, N], out Y: f64[N, N], out Z: f64[N, N])\n"
        "    where N = 7 { }\n"
        "reference {\n"
        "    e[i, j] = exp(Q[i, j]) / (1.0 + Q[i, j] * Q[i, j]);\n"
        "    Y[i, d] = sum(j: e[i, j] * V[j, d]) / sum(j: e[i, j]);\n"
        "    Z[i, d] = sum(j: (Q[j, i] * 2.0 - e[j, i]) * V[j, d]);\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 11, &t, &n), "supply");
    HostTensor *Q = tensor(t, n, "Q"), *V = tensor(t, n, "V"), *Y = tensor(t, n, "Y"), *Z = tensor(t, n, "Z");
    RefEval *r = prof_ref_new(k, t, n);
#define E(i, j) (exp(Q->values[(i) * 7 + (j)]) / (1.0 + Q->values[(i) * 7 + (j)] * Q->values[(i) * 7 + (j)]))
    /* rows visited out of order, each twice, so that kept rows are reused and replaced */
    const int order[] = {3, 0, 3, 6, 1, 6, 2, 5, 4, 0};
    for (int o = 0; o < 10; o++) {
        int i = order[o];
        for (int d = 0; d < 7; d++) {
            double num = 0, den = 0, z = 0;
            for (int j = 0; j < 7; j++) {
                num += E(i, j) * V->values[j * 7 + d];
                den += E(i, j);
                z += (Q->values[j * 7 + i] * 2.0 - E(j, i)) * V->values[j * 7 + d];
            }
            CHECK_NEAR(ref2(r, Y, i, d), num / den, 1e-13);
            CHECK_NEAR(ref2(r, Z, i, d), z, 1e-13);
        }
    }
#undef E
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* Dot products whose other indices are expressions free of the reduction
 * variable (grouped heads: K[j, h / 2, d]) run as loops over the values;
 * an expression index outside its dimension reads 0, so a product with an
 * infinity there is NaN, as element by element. */
static void test_dot_index_expressions(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel gqa(Q: f64[S, H, D], K: f64[S, G, D], out O: f64[S, H, S], out E: f64[H, D], out F: f64[H])\n"
        "    where S = 3, H = 4, G = 2, D = 5 { }\n"
        "reference {\n"
        "    O[i, h, j] = sum(d: Q[i, h, d] * K[j, h / (H / G), d]);\n"
        "    E[h, d] = sum(i: K[i, h - 1, d]);\n"
        "    F[h] = sum(d: K[0, h - 2, d] * Q[0, 0, d]);\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 7, &t, &n), "supply");
    HostTensor *Q = tensor(t, n, "Q"), *K = tensor(t, n, "K"), *O = tensor(t, n, "O"), *E = tensor(t, n, "E"),
               *F = tensor(t, n, "F");
    Q->values[3] = INFINITY; /* Q[0, 0, 3]: F[0], whose K index is -2, is 0 * inf there */
    RefEval *r = prof_ref_new(k, t, n);
    for (int i = 0; i < 3; i++)
        for (int h = 0; h < 4; h++)
            for (int j = 0; j < 3; j++) {
                double want = 0;
                for (int d = 0; d < 5; d++) want += Q->values[(i * 4 + h) * 5 + d] * K->values[(j * 2 + h / 2) * 5 + d];
                int64_t ix[3] = {i, h, j};
                CHECK_EQ(prof_ref_element(r, O->sym, ix), want);
            }
    for (int h = 0; h < 4; h++)
        for (int d = 0; d < 5; d++) {
            double want = 0;
            for (int i = 0; i < 3 && h - 1 >= 0 && h - 1 < 2; i++) want += K->values[(i * 2 + h - 1) * 5 + d];
            CHECK_EQ(ref2(r, E, h, d), want);
        }
    CHECK(isnan(ref1(r, F, 0)), "F[0] = a sum of 0 * Q[0, 0, d] with an infinity: NaN, got %g", ref1(r, F, 0));
    double f2 = 0;
    for (int d = 0; d < 5; d++) f2 += K->values[d] * Q->values[d];
    CHECK_EQ(ref1(r, F, 2), f2);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

static void test_inout(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel acc(A: f32[M, N], inout C: f32[M, N], inout D: f32[M, N], out E: f32[M, N])\n"
        "    where M = 2, N = 3 { }\n"
        "reference {\n"
        "    C[i, j] = C[i, j] + A[i, j];\n"
        "    E[i, j] = C[i, j] * 10 + D[i, j];\n"   /* C on the right: its old value, even after its definition */
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_INTEGER, 11, &t, &n), "supply");
    HostTensor *A = tensor(t, n, "A"), *C = tensor(t, n, "C"), *D = tensor(t, n, "D"), *E = tensor(t, n, "E");
    double a[6] = {1, 2, 3, 4, 5, 6}, cc[6] = {10, 20, 30, 40, 50, 60}, dd[6] = {-1, -2, -3, -4, -5, -6};
    set_values(A, a);
    set_values(C, cc);
    set_values(D, dd);
    RefEval *r = prof_ref_new(k, t, n);
    CHECK(prof_ref_defines(r, C->sym) && !prof_ref_defines(r, D->sym), "defines");
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            CHECK_EQ(ref2(r, C, i, j), cc[i * 3 + j] + a[i * 3 + j]);
            CHECK_EQ(ref2(r, D, i, j), dd[i * 3 + j]); /* not defined: keeps its old value */
            CHECK_EQ(ref2(r, E, i, j), cc[i * 3 + j] * 10 + dd[i * 3 + j]);
        }
    /* Verifying an inout: the kernel's results come back in other tensors. */
    HostTensor got[4];
    memcpy(got, t, sizeof got);
    double gc[6], gd[6], ge[6];
    for (int i = 0; i < 6; i++) {
        gc[i] = cc[i] + a[i];
        gd[i] = dd[i];
        ge[i] = cc[i] * 10 + dd[i];
    }
    got[1].values = gc;
    got[2].values = gd;
    got[3].values = ge;
    VerifyResult vr;
    CHECK(prof_verify(k, r, got, 4, -1, -1, 0, &vr) && vr.checked == 18 && vr.total == 18, "inout verify");
    gd[4] = 0;
    CHECK(!prof_verify(k, r, got, 4, -1, -1, 0, &vr) && vr.mismatches == 1 && !strcmp(vr.tensor, "D") &&
              vr.first_idx[0][0] == 1 && vr.first_idx[0][1] == 1,
          "an inout the reference leaves alone must keep its value");
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* Outputs are converted: an integer output's reference value is what storing
 * it there gives (a u8 sum wraps modulo 256 as the kernel's atomics do, a
 * fraction truncates toward zero); a float output stays exact. */
static void test_output_conversion(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel w(X: i32[N], out S: u8[N], out Q: i8[N], out B: bool[N], out F: f16[N])\n"
        "    where N = 4 { }\n"
        "reference { S[i] = X[i] * 100; Q[i] = X[i] / 3; B[i] = X[i] - 1; F[i] = X[i] * 1000.1; }\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_INTEGER, 5, &t, &n), "supply");
    HostTensor *X = tensor(t, n, "X");
    double x[4] = {1, 3, -4, 7};
    set_values(X, x);
    RefEval *r = prof_ref_new(k, t, n);
    HostTensor *S = tensor(t, n, "S"), *Q = tensor(t, n, "Q"), *B = tensor(t, n, "B"), *F = tensor(t, n, "F");
    CHECK_EQ(ref1(r, S, 0), 100.0);
    CHECK_EQ(ref1(r, S, 1), 44.0);      /* 300 mod 256 */
    CHECK_EQ(ref1(r, S, 2), 112.0);     /* -400 mod 256 */
    CHECK_EQ(ref1(r, Q, 0), 0.0);       /* 1/3 truncates */
    CHECK_EQ(ref1(r, Q, 2), -1.0);      /* -4/3 toward zero */
    CHECK_EQ(ref1(r, B, 0), 0.0);
    CHECK_EQ(ref1(r, B, 2), 1.0);
    CHECK_EQ(ref1(r, F, 3), 7 * 1000.1); /* not rounded to f16 */
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

static void test_edges_and_functions(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "const C3 = 3;\n"
        "kernel fx(X: f64[N], I: i32[N], out Y: f64[N], out Z: f64[N], out CD: i32[N], out H: f64[N],\n"
        "          out B: f64[N], out T: i32[N], out Q: i32[N], out R: i32[N], out F: f64[N], out G: f64[N],\n"
        "          out L: f64[N], out Y2: f64[N], eps: f32)\n"
        "    where N = 5, eps = 0.5 { }\n"
        "reference {\n"
        "    let two = 2;\n"
        "    let total = sum(k: X[k]);\n"
        "    Y[i] = X[i + 1] + X[i - 1] * 10;\n"
        "    Y2[i] = Y[i] + Y[i + 1] * 100;\n"          /* an out read after its definition; beyond its end: 0 */
        "    Z[i] = X[i * two] + X[N - 1 - i];\n"
        "    CD[i] = ceildiv(i + 1, C3) * 100 + ceildiv(i, 2);\n"
        "    H[i] = f16(X[i]) + f16(0.1) * 1000;\n"
        "    B[i] = bf16(X[i]);\n"
        "    T[i] = i32(X[i] * 10) * 10 + i32(bool(i) + true);\n"
        "    Q[i] = (i - 3) / 2 * 10 + (i - 3) % 2 + (I[i] << 4) + (~i & 1);\n"
        "    R[i] = I[i] / two + (i > 2 && I[i] > 0 ? 1000 : 0) + (i == 0 || X[i] < 0 ? 10000 : 0);\n"
        "    F[i] = min(X[i], 0.0) + max(X[i], 0.0) * 2 + pow(2.0, f64(i)) + fma(X[i], 2.0, 1.0) + abs(X[i]);\n"
        "    G[i] = sqrt(4.0) + rsqrt(4.0) + exp(0.0) + exp2(3.0) + log(1.0) + log2(8.0) + tanh(0.0)\n"
        "         + sigmoid(0.0) + erf(0.0) + floor(-1.5) + ceil(-1.5) + sin(0.0) + cos(0.0) + eps;\n"
        "    L[i] = X[i] / 0.0 + total;\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_NORMAL, 3, &t, &n), "supply");
    double x[5] = {1.0 / 3, -0.27, 2.5, 70000, -0.0}, iv[5] = {-7, 7, 3, 1, -1};
    set_values(tensor(t, n, "X"), x);
    set_values(tensor(t, n, "I"), iv);
    RefEval *r = prof_ref_new(k, t, n);
    HostTensor *Y = tensor(t, n, "Y"), *Z = tensor(t, n, "Z"), *CD = tensor(t, n, "CD"), *H = tensor(t, n, "H");
    HostTensor *B = tensor(t, n, "B"), *T = tensor(t, n, "T"), *Q = tensor(t, n, "Q"), *R = tensor(t, n, "R");
    HostTensor *F = tensor(t, n, "F"), *G = tensor(t, n, "G"), *L = tensor(t, n, "L"), *Y2 = tensor(t, n, "Y2");
    double total = x[0] + x[1] + x[2] + x[3] + x[4];
    for (int i = 0; i < 5; i++) {
        double y = (i + 1 < 5 ? x[i + 1] : 0) + (i - 1 >= 0 ? x[i - 1] : 0) * 10;
        CHECK_EQ(ref1(r, Y, i), y);
        double y1 = i + 1 < 5 ? (i + 2 < 5 ? x[i + 2] : 0) + x[i] * 10 : 0;
        CHECK_EQ(ref1(r, Y2, i), y + y1 * 100);
        CHECK_EQ(ref1(r, Z, i), (2 * i < 5 ? x[2 * i] : 0) + x[4 - i]);
        CHECK_EQ(ref1(r, CD, i), (double)(((i + 1) + 2) / 3 * 100 + (i + 1) / 2));
        CHECK_EQ(ref1(r, H, i), prof_round_to(DT_F16, x[i]) + 0.0999755859375 * 1000);
        CHECK_EQ(ref1(r, B, i), prof_round_to(DT_BF16, x[i]));
        CHECK_EQ(ref1(r, T, i), trunc(x[i] * 10) * 10 + (i != 0) + 1);
        int ii = i - 3;
        CHECK_EQ(ref1(r, Q, i), (double)(ii / 2 * 10 + ii % 2 + (int)iv[i] * 16 + (~i & 1)));
        CHECK_EQ(ref1(r, R, i), trunc(iv[i] / 2) + (i > 2 && iv[i] > 0 ? 1000 : 0) + (i == 0 || x[i] < 0 ? 10000 : 0));
        CHECK_NEAR(ref1(r, F, i), fmin(x[i], 0) + fmax(x[i], 0) * 2 + pow(2, i) + fma(x[i], 2, 1) + fabs(x[i]), 1e-15);
        CHECK_NEAR(ref1(r, G, i), 2 + 0.5 + 1 + 8 + 0 + 3 + 0 + 0.5 + 0 - 2 - 1 + 0 + 1 + 0.5, 1e-15);
        CHECK_EQ(ref1(r, L, i), x[i] / 0.0 + total);
    }
    CHECK_EQ(ref1(r, H, 3), INFINITY);   /* f16(70000) overflows */
    CHECK_EQ(ref1(r, H, 0), 0.333251953125 + 0.0999755859375 * 1000);
    CHECK_EQ(ref1(r, T, 1), -2.0 * 10 + 2);  /* i32(-2.7) truncates */
    CHECK(isnan(ref1(r, L, 4)), "-0.0 / 0.0 is NaN");
    CHECK_EQ(ref1(r, Y, 5), 0.0);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* Where the memoised statistics alone are beyond the cost limit, the
 * sample keeps three values of each dim before the last two (0, the last
 * and one between), the random elements included. */
static void test_sample_leading_dims(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel ln3(X: f32[B, M, N], out Y: f32[B, M, N])\n"
        "    where B = 7, M = 200, N = 200 { }\n"
        "reference {\n"
        "    mu[b, i] = sum(j: X[b, i, j]) / N;\n"
        "    Y[b, i, j] = X[b, i, j] - mu[b, i];\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_UNIFORM, 3, &t, &n), "supply");
    HostTensor *X = tensor(t, n, "X"), *Y = tensor(t, n, "Y");
    double *got = malloc(7 * 40000 * sizeof *got);
    for (int b = 0; b < 7; b++)
        for (int i = 0; i < 200; i++) {
            double mu = 0;
            for (int j = 0; j < 200; j++) mu += X->values[(b * 200 + i) * 200 + j];
            mu /= 200;
            for (int j = 0; j < 200; j++) got[(b * 200 + i) * 200 + j] = prof_round_to(DT_F32, X->values[(b * 200 + i) * 200 + j] - mu);
        }
    Y->values = got;
    RefEval *r = prof_ref_new(k, t, n);
    VerifyResult vr;
    prof_verify_max_cost = 100; /* the statistics (7 * 200 rows of 200) cost more */
    CHECK(prof_verify(k, r, t, n, -1, -1, 0, &vr), "the sample passes");
    CHECK(vr.sampled && vr.leading_limited && vr.checked <= 3 * 40000, "leading %d, checked %lld", vr.leading_limited,
          (long long)vr.checked);
    got[(6 * 200 + 16) * 200 + 15] += 1; /* the last b, tile edges: always kept */
    CHECK(!prof_verify(k, r, t, n, -1, -1, 0, &vr) && vr.mismatches >= 1 && vr.first_idx[0][0] == 6, "last b checked");
    prof_verify_max_cost = 0;
    CHECK(!prof_verify(k, r, t, n, -1, -1, 0, &vr) && !vr.sampled && !vr.leading_limited && vr.checked == 7 * 40000,
          "without the limit all of it");
    Y->values = NULL;
    free(got);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* Many threads filling memo tables at once, and sampling. */
static void test_verify_parallel_and_sampled(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel ln(X: f32[M, N], out Y: f32[M, N])\n"
        "    where M = 300, N = 300 { }\n"
        "reference {\n"
        "    mu[i] = sum(j: X[i, j]) / N;\n"
        "    v[i] = sum(j: (X[i, j] - mu[i]) * (X[i, j] - mu[i])) / N;\n"
        "    Y[i, j] = (X[i, j] - mu[i]) / sqrt(v[i] + 1e-5);\n"
        "}\n", NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(k, SUPPLY_UNIFORM, 9, &t, &n), "supply");
    HostTensor *X = tensor(t, n, "X"), *Y = tensor(t, n, "Y");
    double *want = malloc(90000 * sizeof *want);
    for (int i = 0; i < 300; i++) {
        double mu = 0, v = 0;
        for (int j = 0; j < 300; j++) mu += X->values[i * 300 + j];
        mu /= 300;
        for (int j = 0; j < 300; j++) v += (X->values[i * 300 + j] - mu) * (X->values[i * 300 + j] - mu);
        v /= 300;
        for (int j = 0; j < 300; j++) want[i * 300 + j] = (X->values[i * 300 + j] - mu) / sqrt(v + 1e-5);
    }
    double *got = malloc(90000 * sizeof *got);
    for (int i = 0; i < 90000; i++) got[i] = prof_round_to(DT_F32, want[i]);
    Y->values = got;
    RefEval *r = prof_ref_new(k, t, n);
    VerifyResult vr;
    CHECK(prof_verify(k, r, t, n, -1, -1, 0, &vr), "full check passes");
    CHECK(vr.checked == 90000 && !vr.sampled && vr.rel_fro_err < 1e-7, "checked %lld rel_fro %g", (long long)vr.checked,
          vr.rel_fro_err);
    prof_verify_print(stdout, &vr);
    /* Sampled: a wrong element on a tile edge is always in the sample. */
    got[15 * 300 + 32] += 1;
    got[100 * 300 + 299] += 1;
    CHECK(!prof_verify(k, r, t, n, -1, -1, 1000, &vr), "sampled check fails");
    CHECK(vr.sampled && vr.checked > 20000 && vr.checked < 90000 && vr.total == 90000, "sampled %d checked %lld",
          vr.sampled, (long long)vr.checked);
    CHECK(vr.mismatches >= 1 && vr.first_idx[0][0] == 15 && vr.first_idx[0][1] == 32, "first [%lld, %lld]",
          (long long)vr.first_idx[0][0], (long long)vr.first_idx[0][1]);
    int64_t checked1 = vr.checked;
    prof_verify(k, r, t, n, -1, -1, 1000, &vr);
    CHECK(vr.checked == checked1, "the sample is deterministic");
    prof_verify_print(stdout, &vr);
    /* A fresh evaluator, everything from several threads at once. */
    prof_ref_free(r);
    r = prof_ref_new(k, t, n);
    got[15 * 300 + 32] -= 1;
    got[100 * 300 + 299] -= 1;
    CHECK(prof_verify(k, r, t, n, 0, 0, 0, &vr) || vr.max_abs_err < 1e-6, "threads agree (max err %g)",
          vr.max_abs_err);
    for (int i = 0; i < 90000; i++) got[i] = want[i];
    CHECK(prof_verify(k, r, t, n, 1e-12, 1e-12, 0, &vr), "exact to 1e-12: max_abs %g", vr.max_abs_err);
    Y->values = NULL;
    free(got);
    free(want);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

/* ---- speed ---- */

/* Times the sampled verification of k (against what t holds), prints it,
 * and frees the evaluator, the tensors and the context. */
static void bench_sampled_verify(const char *what, Ctx *c, KernelInfo *k, RefEval *r, HostTensor *t, int n) {
    VerifyResult vr;
    double t0 = now();
    prof_verify(k, r, t, n, -1, -1, 0, &vr);
    printf("%s: sampled prof_verify (%d threads) %.2f s: ", what, prof_cpu_count(), now() - t0);
    prof_verify_print(stdout, &vr);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(c);
}

static void bench(void) {
    Ctx c;
    KernelInfo *k = load_with(&c,
        "kernel gemm(A: f16[M, K], B: f16[K, N], out C: f16[M, N])\n"
        "    where M = 4096, N = 4096, K = 4096 { }\n"
        "reference { C[i, j] = sum(k: A[i, k] * B[k, j]); }\n", NULL, 0);
    HostTensor *t;
    int n;
    double t0 = now();
    if (!prof_supply(k, SUPPLY_NORMAL, 0, &t, &n)) exit(1);
    printf("gemm 4096^3: supply %.2f s\n", now() - t0);
    RefEval *r = prof_ref_new(k, t, n);
    HostTensor *C = tensor(t, n, "C");
    int reps = 2000;
    t0 = now();
    double acc = 0;
    for (int e = 0; e < reps; e++) acc += ref2(r, C, (e * 7919) % 4096, (e * 104729) % 4096);
    double dt = now() - t0;
    printf("gemm 4096^3 f16: prof_ref_element %.2f us per element (%d random elements, sum %g); cost estimate %.3g for all\n",
           dt / reps * 1e6, reps, acc, prof_ref_cost(r, C->sym, (double)C->elems));
    bench_sampled_verify("gemm", &c, k, r, t, n);

    /* Full checks of row-wise kernels (the per-thread reduction cache makes them cheap). */
    static const char *const rowwise[] = {
        "kernel rmsnorm(X: bf16[M, N], W: bf16[N], out Y: bf16[M, N], eps: f32)\n"
        "    where M = 16384, N = 8192, eps = 1e-6 { }\n"
        "reference { Y[i, j] = X[i, j] / sqrt(sum(k: X[i, k] * X[i, k]) / N + eps) * W[j]; }\n",
        "kernel softmax(X: f16[M, N], out Y: f16[M, N])\n"
        "    where M = 32768, N = 4096 { }\n"
        "reference {\n"
        "    m[i] = max(j: X[i, j]);\n"
        "    e[i, j] = exp(X[i, j] - m[i]);\n"
        "    Y[i, j] = e[i, j] / sum(k: e[i, k]);\n"
        "}\n",
    };
    for (int p = 0; p < 2; p++) {
        VerifyResult vr;
        k = load_with(&c, rowwise[p], NULL, 0);
        if (!prof_supply(k, SUPPLY_NORMAL, 0, &t, &n)) exit(1);
        r = prof_ref_new(k, t, n);
        HostTensor *Y = tensor(t, n, "Y");
        prof_verify_max_cost = 1e15;
        t0 = now();
        prof_verify(k, r, t, n, -1, -1, 0, &vr);
        dt = now() - t0;
        double cost = prof_ref_cost(r, Y->sym, (double)Y->elems);
        printf("%s: full prof_verify (%d threads) %.2f s, cost estimate %.3g (%.3g per second): ", k->name->s,
               prof_cpu_count(), dt, cost, cost / dt);
        prof_verify_print(stdout, &vr);
        prof_verify_max_cost = 0;
        prof_ref_free(r);
        prof_tensors_free(t, n);
        ctx_free(&c);
    }

    k = load_with(&c,
        "kernel flash_fwd(Q: f16[B, H, S, D], K: f16[B, H, S, D], V: f16[B, H, S, D], out O: f16[B, H, S, D])\n"
        "    where B = 8, H = 16, S = 4096, D = 128, causal = 0 { }\n"
        "reference {\n"
        "    let scale = 1.0 / sqrt(f64(D));\n"
        "    s[b, h, i, j] = (causal == 0 || j <= i) ? scale * sum(d: Q[b, h, i, d] * K[b, h, j, d]) : -inf;\n"
        "    m[b, h, i] = max(j: s[b, h, i, j]);\n"
        "    p[b, h, i, j] = exp(s[b, h, i, j] - m[b, h, i]);\n"
        "    O[b, h, i, d] = sum(j: p[b, h, i, j] * V[b, h, j, d]) / sum(j: p[b, h, i, j]);\n"
        "}\n", NULL, 0);
    t0 = now();
    if (!prof_supply(k, SUPPLY_NORMAL, 0, &t, &n)) exit(1);
    printf("attention: supply %.2f s\n", now() - t0);
    r = prof_ref_new(k, t, n);
    HostTensor *O = tensor(t, n, "O");
    reps = 20;
    t0 = now();
    acc = 0;
    for (int e = 0; e < reps; e++) {
        int64_t ix[4] = {e % 8, (e * 5) % 16, (e * 7919) % 4096, (e * 31) % 128};
        acc += prof_ref_element(r, O->sym, ix);
    }
    dt = now() - t0;
    printf("attention B=8 H=16 S=4096 D=128: prof_ref_element %.2f ms per element in a new row (%d rows, sum %g)\n",
           dt / reps * 1e3, reps, acc);
    t0 = now();
    for (int d = 0; d < 128; d++) {
        int64_t ix[4] = {3, 4, 1000, d};
        acc += prof_ref_element(r, O->sym, ix);
    }
    double first_row = now() - t0;
    t0 = now();
    for (int d = 0; d < 128; d++) {
        int64_t ix[4] = {3, 4, 1000, d};
        acc += prof_ref_element(r, O->sym, ix);
    }
    printf("attention: a whole row of 128 elements %.2f ms (%.3f ms per element); again %.3f ms\n", first_row * 1e3,
           first_row * 1e3 / 128, (now() - t0) * 1e3);
    printf("attention: cost estimate %.3g for all of O\n", prof_ref_cost(r, O->sym, (double)O->elems));
    O->values = malloc((size_t)O->elems * sizeof(double));
    /* Time the sampled check (against zeros, so it fails). */
    memset(O->values, 0, (size_t)O->elems * sizeof(double));
    bench_sampled_verify("attention", &c, k, r, t, n);

    /* The backward pass's dK: every element needs the statistics of every
     * query row of its (b, h), so the sample takes few of those. */
    k = load_with(&c,
        "kernel attn_dk(Q: f16[B, H, S, D], K: f16[B, H, S, D], V: f16[B, H, S, D], dO: f16[B, H, S, D],\n"
        "               out dK: f16[B, H, S, D])\n"
        "    where B = 8, H = 16, S = 1024, D = 64 { }\n"
        "reference {\n"
        "    let scale = 1.0 / sqrt(f64(D));\n"
        "    s[b, h, i, j] = scale * sum(d: Q[b, h, i, d] * K[b, h, j, d]);\n"
        "    m[b, h, i] = max(j: s[b, h, i, j]);\n"
        "    e[b, h, i, j] = exp(s[b, h, i, j] - m[b, h, i]);\n"
        "    l[b, h, i] = sum(j: e[b, h, i, j]);\n"
        "    dp[b, h, i, j] = sum(d: dO[b, h, i, d] * V[b, h, j, d]);\n"
        "    dl[b, h, i] = sum(j: e[b, h, i, j] * dp[b, h, i, j]) / l[b, h, i];\n"
        "    ds[b, h, i, j] = e[b, h, i, j] / l[b, h, i] * (dp[b, h, i, j] - dl[b, h, i]);\n"
        "    dK[b, h, j, d] = scale * sum(i: ds[b, h, i, j] * Q[b, h, i, d]);\n"
        "}\n", NULL, 0);
    if (!prof_supply(k, SUPPLY_NORMAL, 0, &t, &n)) exit(1);
    r = prof_ref_new(k, t, n);
    HostTensor *dK = tensor(t, n, "dK");
    dK->values = calloc((size_t)dK->elems, sizeof(double));
    bench_sampled_verify("attention dK B=8 H=16 S=1024 D=64", &c, k, r, t, n);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        bench();
        return 0;
    }
    test_conversions();
    test_supply();
    test_inputs_clause();
    test_random_functions();
    test_dot_index_expressions();
    test_matmul();
    test_softmax();
    test_attention();
    test_inout();
    test_output_conversion();
    test_edges_and_functions();
    test_verify_parallel_and_sampled();
    test_sample_leading_dims();
    test_materialised_factors();
    printf("test_reference: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
