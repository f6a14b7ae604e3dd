/* random.c - the language's counter-based random numbers (LANGUAGE.md §8:
 * rand, randn, randint) on the host, for the reference evaluator. The
 * generated code computes the same thing (tilec_device.cuh: tl_rand*;
 * codegen/llvm_random.c), and every step is specified to the bit so that
 * a kernel that draws them verifies exactly against its reference:
 *
 * - Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1,
 *   2, 3"), as Triton's tl.randint draws it: the key is the seed's two
 *   32-bit halves, the counter (offset low, offset high, 0, 0); randint is
 *   the first output word. Offsets below 2^32 give Triton's values.
 * - rand: the word as a signed int, folded to a non-negative one (x < 0:
 *   -x - 1), converted to float and scaled by the largest float that keeps
 *   2^31 - 1 below 1 (Triton's uint_to_uniform_float): [0, 1).
 * - randn: Box-Muller on the first two words, sqrt(-2 log u1) cos(2 pi u2)
 *   with u1 at least 1e-7, computed with a logarithm and a cosine of
 *   tilec's own made of single float operations, each rounded once (fmaf
 *   where fused), which the GPU performs identically.
 *
 * This file is compiled with floating-point contraction off (CMake), so
 * that a * b + c stays two roundings as written. */
#include <math.h>
#include <string.h>

#include "frontend.h"

/* Philox's multipliers and its key increments (the golden ratio's and
 * sqrt(3) - 1's first 32 bits). */
enum { PHILOX_M0 = 0xD2511F53u, PHILOX_M1 = 0xCD9E8D57u, PHILOX_W0 = 0x9E3779B9u, PHILOX_W1 = 0xBB67AE85u };

void philox4x32_10(uint32_t key0, uint32_t key1, const uint32_t ctr[4], uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key0, k1 = key1;
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

static void draw(uint64_t seed, uint64_t offset, uint32_t out[4]) {
    const uint32_t ctr[4] = {(uint32_t)offset, (uint32_t)(offset >> 32), 0, 0};
    philox4x32_10((uint32_t)seed, (uint32_t)(seed >> 32), ctr, out);
}

static float as_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t as_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float random_unit(uint32_t word) {
    int32_t i = (int32_t)word;
    if (i < 0) i = -(i + 1); /* -i - 1 without overflow */
    return (float)i * RANDOM_UNIT_SCALE;
}

/* log(u) for u in [2^-126, 1]: u = m 2^e with m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^11/11), s = (m - 1) / (m + 1),
 * |s| < 0.172 (the next term is below 2^-33). */
float random_log(float u) {
    uint32_t bits = as_bits(u);
    int e = (int)(bits >> 23) - 127;
    float m = as_float((bits & 0x7FFFFFu) | 0x3F800000u);
    if (m > RANDOM_SQRT2) {
        m = m * 0.5f;
        e += 1;
    }
    float s = (m - 1.0f) / (m + 1.0f), z = s * s;
    float p = fmaf(RANDOM_LOG_C11, z, RANDOM_LOG_C9);
    p = fmaf(p, z, RANDOM_LOG_C7);
    p = fmaf(p, z, RANDOM_LOG_C5);
    p = fmaf(p, z, RANDOM_LOG_C3);
    float t = (s * z) * p;
    float lm = (s + t) * 2.0f;
    return fmaf((float)e, RANDOM_LN2_HI, fmaf((float)e, RANDOM_LN2_LO, lm));
}

/* cos(2 pi u) for u in [0, 1]: u less its nearest integer, then the
 * nearest quarter turn q taken out exactly, leaving r in [-1/8, 1/8]; the
 * angle a = 2 pi r lies in [-pi/4, pi/4], where the Taylor series of cos
 * and sin to a^10 and a^11 are within 2^-30. */
float random_cos2pi(float u) {
    float t = u - rintf(u);
    float q = rintf(t * 4.0f);
    float r = t - q * 0.25f;
    float a = r * RANDOM_TWO_PI, z = a * a;
    float c = fmaf(z, RANDOM_COS_C10, RANDOM_COS_C8);
    c = fmaf(z, c, RANDOM_COS_C6);
    c = fmaf(z, c, RANDOM_COS_C4);
    c = fmaf(z, c, -0.5f);
    c = fmaf(z, c, 1.0f);
    float s = fmaf(z, RANDOM_SIN_C11, RANDOM_SIN_C9);
    s = fmaf(z, s, RANDOM_SIN_C7);
    s = fmaf(z, s, RANDOM_SIN_C5);
    s = fmaf(z, s, RANDOM_SIN_C3);
    s = fmaf(a * z, s, a);
    switch ((int)q & 3) {
    case 0: return c;
    case 1: return -s;
    case 2: return -c;
    default: return s;
    }
}

uint32_t random_int(uint64_t seed, uint64_t offset) {
    uint32_t w[4];
    draw(seed, offset, w);
    return w[0];
}

float random_uniform(uint64_t seed, uint64_t offset) { return random_unit(random_int(seed, offset)); }

float random_normal(uint64_t seed, uint64_t offset) {
    uint32_t w[4];
    draw(seed, offset, w);
    float u1 = fmaxf(random_unit(w[0]), RANDOM_MIN_U1), u2 = random_unit(w[1]);
    return sqrtf(-2.0f * random_log(u1)) * random_cos2pi(u2);
}
