/* float_format.c - the narrow float formats (f16, bf16, f8 e4m3 and e5m2)
 * on the host, in plain C: a double rounded to nearest even into one and
 * back. The profiler converts tensors with them; the code generator rounds
 * constants that meet a narrow type. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "frontend.h"

typedef struct FloatFmt {
    int ebits, mbits, bias;
    bool ieee;     /* all-ones exponent = inf/NaN; else (e4m3fn) only S.1111.111 is NaN, no inf */
    uint32_t nan;  /* canonical NaN bits */
} FloatFmt;

static const FloatFmt fmt_f16 = {5, 10, 15, true, 0x7E00};
static const FloatFmt fmt_bf16 = {8, 7, 127, true, 0x7FC0};
static const FloatFmt fmt_e4m3 = {4, 3, 7, false, 0x7F};
static const FloatFmt fmt_e5m2 = {5, 2, 15, true, 0x7E};

/* v rounded to nearest even into the format; overflow gives inf (IEEE-like
 * formats) or the largest finite value (e4m3, as CUDA's satfinite). */
static uint32_t fmt_encode(const FloatFmt *f, double v) {
    uint32_t sign = signbit(v) ? 1u << (f->ebits + f->mbits) : 0;
    uint32_t exp_ones = (1u << f->ebits) - 1;
    uint32_t mant_ones = (1u << f->mbits) - 1;
    uint32_t inf_bits = exp_ones << f->mbits;
    uint32_t max_bits = f->ieee ? inf_bits - 1 : (exp_ones << f->mbits) | (mant_ones - 1);
    if (isnan(v)) return f->nan;
    double a = fabs(v);
    if (isinf(a)) return sign | (f->ieee ? inf_bits : max_bits);
    if (a == 0) return sign;
    /* Integer rounding on the bits of the double: sig * 2^(E - 52). */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int dexp = (int)(bits >> 52);
    if (dexp == 0) return sign; /* a double subnormal: far below every format's smallest value */
    uint64_t sig = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int emin = 1 - f->bias;
    int E = dexp - 1023;
    if (E < emin) E = emin;
    int shift = 52 - f->mbits + (E - (dexp - 1023)); /* >= 52 - mbits */
    uint64_t n;
    if (shift >= 64) {
        n = 0;
    } else {
        n = sig >> shift;
        uint64_t rem = sig & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
        if (rem > half || (rem == half && (n & 1))) n++;
    }
    if (n >= (2ULL << f->mbits)) { /* rounded up into the next binade */
        n >>= 1;
        E++;
    }
    if (n < (1u << f->mbits)) return sign | (uint32_t)n; /* subnormal (or zero) */
    int64_t field = (int64_t)E + f->bias;
    uint32_t mant = (uint32_t)(n - (1u << f->mbits));
    if (f->ieee) {
        if (field >= (int64_t)exp_ones) return sign | inf_bits;
    } else if (field > (int64_t)exp_ones || (field == (int64_t)exp_ones && mant == mant_ones)) {
        return sign | max_bits;
    }
    return sign | (uint32_t)field << f->mbits | mant;
}

static double fmt_decode(const FloatFmt *f, uint32_t bits) {
    uint32_t exp_ones = (1u << f->ebits) - 1;
    uint32_t mant_ones = (1u << f->mbits) - 1;
    bool neg = (bits >> (f->ebits + f->mbits)) & 1;
    uint32_t field = (bits >> f->mbits) & exp_ones;
    uint32_t mant = bits & mant_ones;
    double v;
    if (f->ieee && field == exp_ones) v = mant ? NAN : INFINITY;
    else if (!f->ieee && field == exp_ones && mant == mant_ones) v = NAN;
    else if (field == 0) v = ldexp((double)mant, 1 - f->bias - f->mbits);
    else v = ldexp((double)(mant | (1u << f->mbits)), (int)field - f->bias - f->mbits);
    return neg ? -v : v;
}

static const FloatFmt *format_of(Dtype t) {
    switch (t) {
    case DT_F16: return &fmt_f16;
    case DT_BF16: return &fmt_bf16;
    case DT_F8E4M3: return &fmt_e4m3;
    case DT_F8E5M2: return &fmt_e5m2;
    default: return NULL;
    }
}

uint32_t dtype_narrow_bits(Dtype t, double v) {
    const FloatFmt *f = format_of(t);
    return f ? fmt_encode(f, v) : 0;
}

double dtype_narrow_value(Dtype t, uint32_t bits) {
    const FloatFmt *f = format_of(t);
    return f ? fmt_decode(f, bits) : 0;
}

double dtype_round_float(Dtype t, double v) {
    if (t == DT_F32) return (double)(float)v;
    const FloatFmt *f = format_of(t);
    return f ? fmt_decode(f, fmt_encode(f, v)) : v;
}
