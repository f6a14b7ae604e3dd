/* test_random.c - the language's random numbers on the host (frontend/
 * random.c): Philox-4x32-10 against the known-answer vectors of its
 * authors' Random123 library, Triton's conventions (key and counter
 * layout, the unit float), the accuracy of the float log and cos that
 * randn is made of, and the moments of rand and randn. */
#include <math.h>
#include <string.h>

#include "frontend.h"
#include "test_util.h"

static void test_known_answers(void) {
    static const struct { uint32_t ctr[4], key[2], want[4]; } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t i = 0; i < sizeof kat / sizeof *kat; i++) {
        uint32_t out[4];
        philox4x32_10(kat[i].key[0], kat[i].key[1], kat[i].ctr, out);
        CHECK(!memcmp(out, kat[i].want, sizeof out), "vector %zu: %08x %08x %08x %08x", i, out[0], out[1], out[2], out[3]);
    }
    /* randint(seed, offset): key = the seed's halves, counter = (offset's halves, 0, 0) */
    uint32_t out[4], ctr[4] = {0x03707344, 0x13198a2e, 0, 0};
    philox4x32_10(0xa4093822, 0x299f31d0, ctr, out);
    CHECK(random_int(0x299f31d0a4093822ULL, 0x13198a2e03707344ULL) == out[0], "randint's layout");
}

static void test_unit(void) {
    CHECK(random_unit(0) == 0.0f, "0 -> 0");
    CHECK(random_unit(0xFFFFFFFFu) == 0.0f, "-1 folds to 0");
    CHECK(random_unit(0x7FFFFFFFu) < 1.0f && random_unit(0x80000000u) < 1.0f, "below 1");
    CHECK(random_unit(0x7FFFFFFFu) == random_unit(0x80000000u), "2^31 - 1 and -2^31 meet");
    CHECK(random_unit(1u << 30) == 0.5f * (float)0x1.fffffep-1, "2^30 -> about 0.5");
}

/* random_log and random_cos2pi within a few float ulps of the double
 * functions over their whole domains */
static void test_log_cos(void) {
    double worst_log = 0, worst_cos = 0;
    for (uint32_t bits = 0x33D6BF95u /* 1e-7 */; bits < 0x3F800000u; bits += 97) {
        float u;
        memcpy(&u, &bits, sizeof u);
        double want = log((double)u), err = fabs(random_log(u) - want) / fmax(fabs(want), 1e-30);
        if (err > worst_log) worst_log = err;
    }
    CHECK(random_log(1.0f) == 0.0f, "log 1 = %g", (double)random_log(1.0f));
    for (uint32_t i = 0; i < (1u << 24); i += 3) {
        float u = (float)i * 0x1p-24f;
        double want = cos(6.283185307179586477 * (double)u), err = fabs(random_cos2pi(u) - want);
        if (err > worst_cos) worst_cos = err;
    }
    CHECK(worst_log < 4e-7, "log: relative error %g", worst_log);
    CHECK(worst_cos < 4e-7, "cos: absolute error %g", worst_cos);
    CHECK(random_cos2pi(0.25f) == 0.0f && random_cos2pi(0.5f) == -1.0f && random_cos2pi(0.0f) == 1.0f, "quarter turns");
}

static void test_moments(void) {
    enum { N = 1 << 22 };
    double s1 = 0, s2 = 0, n1 = 0, n2 = 0, n4 = 0;
    uint64_t seed = 1234;
    int below = 0, tail = 0;
    for (uint64_t i = 0; i < N; i++) {
        double u = random_uniform(seed, i), z = random_normal(seed, i);
        s1 += u, s2 += u * u;
        n1 += z, n2 += z * z, n4 += z * z * z * z;
        below += u < 0.01;
        tail += fabs(z) > 3;
    }
    double mu = s1 / N, var = s2 / N - mu * mu;
    CHECK(fabs(mu - 0.5) < 1e-3 && fabs(var - 1.0 / 12) < 1e-3, "rand: mean %g variance %g", mu, var);
    CHECK(fabs(below - 0.01 * N) < 5 * sqrt(0.01 * N), "rand: %d of %d below 0.01", below, (int)N);
    double zm = n1 / N, zv = n2 / N - zm * zm, kurt = n4 / N;
    CHECK(fabs(zm) < 3e-3 && fabs(zv - 1) < 3e-3 && fabs(kurt - 3) < 3e-2, "randn: mean %g variance %g E[z^4] %g", zm, zv, kurt);
    CHECK(fabs(tail - 0.0027 * N) < 5 * sqrt(0.0027 * N), "randn: %d beyond 3 sigma", tail);
    CHECK(random_uniform(seed, 7) != random_uniform(seed + 1, 7) && random_int(seed, 7) != random_int(seed, 8),
          "seeds and offsets differ");
}

int main(void) {
    test_known_answers();
    test_unit();
    test_log_cos();
    test_moments();
    printf("test_random: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
