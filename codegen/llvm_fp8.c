/* llvm_fp8.c - cuda_fp8.h's software fp8 conversions as integer IR. The
 * printed CUDA converts through cuda_fp8.h (tilec_device.cuh: tl_to_float,
 * tl_from_float), which uses the hardware's cvt only from sm_89 on and only
 * for widening and for saturating narrowing; everything else is software:
 * every conversion on sm_80, and float -> f8e5m2 on every arch (tilec asks
 * for no saturation there, so that overflow gives infinity). These are that
 * software's results, bit for bit, computed here from the formats.
 *
 * The IR is straight-line (selects, no blocks), uses no inline PTX and no
 * target intrinsics, so the same builder code also runs on the host, where
 * tests/llvm/test_fp8.c checks it against a reference model.
 *
 * The formats (OCP 8-bit floats, as cuda_fp8.h has them):
 *   e4m3: s eeee mmm, bias 7. No infinity: S.1111.111 is the only NaN, so
 *         S.1111.110 = 448 is the largest finite value; denormals (e = 0)
 *         are m * 2^-9.
 *   e5m2: s eeeee mm, bias 15, IEEE-like: e = 31 is infinity (m = 0) or NaN;
 *         57344 = 1.11b * 2^15 is the largest finite value; denormals are
 *         m * 2^-16. It is f16's top byte. */
#include "llvm_codegen.h"

/* The two formats' constants, as float bit patterns where compared with
 * the magnitude of a float. */
typedef struct Fp8Format {
    unsigned mbits;      /* mantissa bits */
    unsigned bias;
    uint32_t huge;       /* from this magnitude on, the result is `overflow` */
    uint32_t overflow;   /* the largest finite value or infinity, before the sign */
} Fp8Format;

/* e4m3 saturates (cuda_fp8's __NV_SATFINITE): every magnitude from 448
 * on, infinity included, gives 448 (up to 464 = 448 + half an ulp, a tie
 * that goes to the even 448, by rounding; beyond it by saturation). */
static const Fp8Format fmt_e4m3 = {3, 7, 0x43E00000u /* 448 */, 0x7E};
/* e5m2 does not (__NV_NOSAT): from 57344 + half an ulp (61440: a tie,
 * whose even neighbour is infinity) on, the result is infinity. (Rounding
 * alone reaches infinity's code below 65536; the select covers beyond.) */
static const Fp8Format fmt_e5m2 = {2, 15, 0x47700000u /* 61440 */, 0x7C};

/* The builder and the integer types of the value's context. */
typedef struct F8 {
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i16, i32;
} F8;

static F8 f8_init(LLVMBuilderRef b, LLVMValueRef v) {
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(v));
    return (F8){b, LLVMInt1TypeInContext(ctx), LLVMInt8TypeInContext(ctx), LLVMInt16TypeInContext(ctx),
                LLVMInt32TypeInContext(ctx)};
}

static LLVMValueRef k32(F8 *f, uint32_t v) { return LLVMConstInt(f->i32, v, 0); }
static LLVMValueRef and_k(F8 *f, LLVMValueRef a, uint32_t m) { return LLVMBuildAnd(f->b, a, k32(f, m), ""); }
static LLVMValueRef lshr_k(F8 *f, LLVMValueRef a, uint32_t n) { return LLVMBuildLShr(f->b, a, k32(f, n), ""); }
static LLVMValueRef shl_k(F8 *f, LLVMValueRef a, uint32_t n) { return LLVMBuildShl(f->b, a, k32(f, n), ""); }
static LLVMValueRef cmp_k(F8 *f, LLVMIntPredicate p, LLVMValueRef a, uint32_t c) {
    return LLVMBuildICmp(f->b, p, a, k32(f, c), "");
}
static LLVMValueRef select_k(F8 *f, LLVMValueRef c, uint32_t v, LLVMValueRef otherwise) {
    return LLVMBuildSelect(f->b, c, k32(f, v), otherwise, "");
}
static LLVMValueRef bit(F8 *f, LLVMValueRef c) { return LLVMBuildZExt(f->b, c, f->i32, ""); }

static const Fp8Format *format_of(Dtype t) { return t == DT_F8E5M2 ? &fmt_e5m2 : &fmt_e4m3; }

/* ---- float -> fp8 ---- */

/* The magnitude a (float bits, finite, below `huge`) rounded to nearest
 * even into the format: normals and denormals alike. The float's significand (the implicit bit made explicit, 24 bits) loses its
 * low 23 - mbits bits, and as many more as the target exponent lies below
 * the format's smallest normal one (a denormal). The kept bits include the
 * implicit one, which adds 1 to the exponent field above them; a mantissa
 * rounded up past its top carries into the exponent by the same addition
 * (the largest denormal into the smallest normal, 1.11..1 * 2^e into
 * 2^(e+1)). */
static LLVMValueRef round_magnitude(F8 *f, const Fp8Format *fmt, LLVMValueRef a) {
    LLVMBuilderRef b = f->b;
    /* the exponent field the value would have: <= 0 for a denormal */
    LLVMValueRef e = LLVMBuildSub(b, lshr_k(f, a, 23), k32(f, 127 - fmt->bias), "");
    LLVMValueRef below = cmp_k(f, LLVMIntSLT, e, 1);
    LLVMValueRef extra = LLVMBuildSelect(b, below, LLVMBuildSub(b, k32(f, 1), e, ""), k32(f, 0), "");
    /* bits dropped, at most 31: shifts stay defined, and a magnitude below
     * the smallest denormal keeps nothing and rounds to 0 (at half of it,
     * 2^-10 or 2^-17, a tie: to even, 0), float denormals included */
    LLVMValueRef drop = LLVMBuildAdd(b, extra, k32(f, 23 - fmt->mbits), "");
    drop = LLVMBuildSelect(b, cmp_k(f, LLVMIntUGT, drop, 31), k32(f, 31), drop, "");
    LLVMValueRef sig = LLVMBuildOr(b, and_k(f, a, 0x7FFFFF), k32(f, 0x800000), "");
    LLVMValueRef kept = LLVMBuildLShr(b, sig, drop, "");
    LLVMValueRef unit = LLVMBuildShl(b, k32(f, 1), drop, "");
    LLVMValueRef rem = LLVMBuildAnd(b, sig, LLVMBuildSub(b, unit, k32(f, 1), ""), "");
    LLVMValueRef half = lshr_k(f, unit, 1);
    /* round to nearest; a tie to the even one (kept's last bit is the
     * result's mantissa's last bit) */
    LLVMValueRef odd = LLVMBuildTrunc(b, kept, f->i1, "");
    LLVMValueRef tie_up = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, rem, half, ""), odd, "");
    LLVMValueRef up = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntUGT, rem, half, ""), tie_up, "");
    /* the exponent field less the 1 that kept's implicit bit adds (a
     * denormal: field 0, its kept bits lacking the implicit one) */
    LLVMValueRef field = LLVMBuildSelect(b, below, k32(f, 0), LLVMBuildSub(b, e, k32(f, 1), ""), "");
    LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildShl(b, field, k32(f, fmt->mbits), ""), kept, "");
    return LLVMBuildAdd(b, r, bit(f, up), "");
}

LLVMValueRef lg_fp8_from_float_soft(LLVMBuilderRef b, Dtype t, LLVMValueRef v) {
    F8 f = f8_init(b, v);
    const Fp8Format *fmt = format_of(t);
    LLVMValueRef x = LLVMBuildBitCast(b, v, f.i32, "");
    LLVMValueRef sign = and_k(&f, lshr_k(&f, x, 24), 0x80);
    LLVMValueRef a = and_k(&f, x, 0x7FFFFFFF);
    LLVMValueRef r = round_magnitude(&f, fmt, a);
    r = select_k(&f, cmp_k(&f, LLVMIntUGE, a, fmt->huge), fmt->overflow, r);
    /* the sign, on every result but NaN: zeros and overflows too */
    r = LLVMBuildOr(b, r, sign, "");
    /* NaN: cuda_fp8.h first replaces any NaN by the float 0x7FFFFFFF (the
     * sign dropped), then widens it to double, which keeps the payload:
     * e4m3 gives its NaN, 0x7F; e5m2 gives 0.11111 and the payload's top
     * two bits, 11: 0x7F too */
    r = select_k(&f, cmp_k(&f, LLVMIntUGT, a, 0x7F800000), 0x7F, r);
    return LLVMBuildTrunc(b, r, f.i8, "");
}

/* ---- fp8 -> f16 ---- */

/* e5m2 is f16's top byte: the same value with 8 more zero mantissa bits;
 * any NaN becomes f16's 0x7FFF (the sign dropped). */
static LLVMValueRef e5m2_to_half(F8 *f, LLVMValueRef x) {
    LLVMValueRef h = shl_k(f, x, 8);
    return select_k(f, cmp_k(f, LLVMIntUGT, and_k(f, h, 0x7FFF), 0x7C00), 0x7FFF, h);
}

/* e4m3 into f16 (bias 15, 10 mantissa bits), which holds it exactly,
 * denormals as f16 normals. */
static LLVMValueRef e4m3_to_half(F8 *f, LLVMValueRef x) {
    LLVMBuilderRef b = f->b;
    LLVMValueRef sign = shl_k(f, and_k(f, x, 0x80), 8);
    LLVMValueRef field = and_k(f, lshr_k(f, x, 3), 0xF);
    LLVMValueRef m = and_k(f, x, 7);
    /* a normal: the exponent rebiased (+8), the mantissa's 3 bits on top */
    LLVMValueRef normal = LLVMBuildOr(b, shl_k(f, LLVMBuildAdd(b, field, k32(f, 8), ""), 10), shl_k(f, m, 7), "");
    /* a denormal m * 2^-9, m = 1..7, with its top bit at p (0..2), is
     * 1.x * 2^(p-9): f16 exponent field p + 6. m shifted so that its top
     * bit lands on bit 10 adds the implicit 1 to field p + 5. */
    LLVMValueRef p = LLVMBuildAdd(b, bit(f, cmp_k(f, LLVMIntUGE, m, 2)), bit(f, cmp_k(f, LLVMIntUGE, m, 4)), "");
    LLVMValueRef top = LLVMBuildShl(b, m, LLVMBuildSub(b, k32(f, 10), p, ""), "");
    LLVMValueRef denormal = LLVMBuildAdd(b, top, shl_k(f, LLVMBuildAdd(b, p, k32(f, 5), ""), 10), "");
    denormal = select_k(f, cmp_k(f, LLVMIntEQ, m, 0), 0, denormal); /* zero */
    LLVMValueRef mag = LLVMBuildSelect(b, cmp_k(f, LLVMIntEQ, field, 0), denormal, normal, "");
    LLVMValueRef h = LLVMBuildOr(b, sign, mag, "");
    /* S.1111.111, the NaN: f16's 0x7FFF (the sign dropped) */
    return select_k(f, cmp_k(f, LLVMIntEQ, and_k(f, x, 0x7F), 0x7F), 0x7FFF, h);
}

LLVMValueRef lg_fp8_to_half_bits_soft(LLVMBuilderRef b, Dtype t, LLVMValueRef byte) {
    F8 f = f8_init(b, byte);
    LLVMValueRef x = LLVMBuildZExt(b, byte, f.i32, "");
    LLVMValueRef h = t == DT_F8E5M2 ? e5m2_to_half(&f, x) : e4m3_to_half(&f, x);
    return LLVMBuildTrunc(b, h, f.i16, "");
}
