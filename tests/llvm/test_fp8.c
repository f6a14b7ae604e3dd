/* test_fp8.c - the llvm backend's software fp8 conversions (codegen/
 * llvm_fp8.c), the IR the GPU runs on sm_80, built by the same builder
 * code into a host module and run by LLVM's JIT, as built and after O3,
 * against a reference model of what cuda_fp8.h's software computes:
 *   widening: all 256 bytes of both formats;
 *   narrowing: every float whose top 20 bits vary (with six patterns of
 *   the low 12: ties, sticky bits), every midpoint between neighbouring
 *   fp8 values and the floats beside it, the specials, and 4M random
 *   floats; non-NaN results also against tilec's host rounding
 *   (frontend/float_format.c).
 * The reference knows the formats only by their definitions (the value
 * of each code) and rounds by searching for the nearest value. */
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>
#include <stdint.h>

#include "host_jit.h"
#include "llvm_codegen.h"
#include "test_util.h"

/* ---- the reference ---- */

/* A format by its codes: the value of each positive code in increasing
 * order, ending with the one just past the largest finite value (the code
 * that rounding past it reaches). */
typedef struct RefFormat {
    const char *name;
    Dtype t;
    int ncodes;           /* codes 0 .. ncodes - 1; the last is `past` */
    double value[128];
    uint8_t overflow;     /* the result where rounding reaches `past` */
} RefFormat;

/* e4m3: bias 7, 3 mantissa bits; its code 0x7F is NaN, but rounding as if
 * it were 1.111b * 2^8 = 480 places the tie at 464 (448's mantissa is
 * even); past 448 it saturates (cuda_fp8's __NV_SATFINITE, as tilec asks) */
static double e4m3_value(int c) {
    int field = c >> 3, m = c & 7;
    return field == 0 ? ldexp(m, -9) : ldexp(8 + m, field - 10);
}
/* e5m2: bias 15, 2 mantissa bits, IEEE-like: code 0x7C is infinity, 2^16
 * where rounding is concerned; overflow gives it (__NV_NOSAT) */
static double e5m2_value(int c) {
    int field = c >> 2, m = c & 3;
    return field == 0 ? ldexp(m, -16) : ldexp(4 + m, field - 17);
}

static void ref_init(RefFormat *f, const char *name, Dtype t, int ncodes, double (*value)(int), uint8_t overflow) {
    f->name = name, f->t = t, f->ncodes = ncodes, f->overflow = overflow;
    for (int c = 0; c < ncodes; c++) f->value[c] = value(c);
}

/* Nearest even: of the two codes around |x|, the nearer; in a tie the
 * even one (a code's last bit is its mantissa's). Any NaN gives 0x7F
 * (cuda_fp8.h replaces it by the float 0x7FFFFFFF, whose widening to
 * double keeps its payload: e4m3's NaN, and e5m2's NaN S.11111.11). */
static uint8_t ref_narrow(const RefFormat *f, float x) {
    if (isnan(x)) return 0x7F;
    uint8_t sign = signbit(x) ? 0x80 : 0;
    double a = fabs((double)x);
    int past = f->ncodes - 1;
    if (a >= f->value[past]) return sign | f->overflow;
    int lo = 0, hi = past; /* value[lo] <= a < value[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (f->value[mid] <= a) lo = mid;
        else hi = mid;
    }
    double dlo = a - f->value[lo], dhi = f->value[hi] - a;
    int c = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
    return sign | (c == past ? f->overflow : (uint8_t)c);
}

/* The f16 bits of v, which f16 must hold exactly (checked). */
static uint16_t half_bits(double v) {
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (isinf(a)) return sign | 0x7C00;
    if (a == 0) return sign;
    int e;
    double fr = frexp(a, &e); /* a = fr * 2^e, fr in [0.5, 1): f16 exponent field e + 14 */
    double mant = e + 14 >= 1 ? (2 * fr - 1) * 1024 : a * 16777216.0; /* a denormal: a / 2^-24 */
    uint16_t bits = e + 14 >= 1 ? (uint16_t)(sign | (e + 14) << 10 | (uint16_t)mant) : (uint16_t)(sign | (uint16_t)mant);
    CHECK(mant == floor(mant) && e + 14 < 31, "%g is not an f16", v);
    return bits;
}

/* A byte as f16 bits; any NaN gives 0x7FFF, as cuda_fp8.h's software. */
static uint16_t ref_widen(const RefFormat *f, uint8_t byte) {
    int c = byte & 0x7F;
    bool nan = f->t == DT_F8E4M3 ? c == 0x7F : c > 0x7C;
    if (nan) return 0x7FFF;
    double v = f->t == DT_F8E5M2 && c == 0x7C ? INFINITY : f->value[c];
    return half_bits(byte & 0x80 ? -v : v);
}

/* ---- the IR under test, on the host ---- */

typedef uint32_t (*NarrowFn)(float);
typedef uint32_t (*WidenFn)(uint32_t);

/* i32 name(float) or i32 name(i32): the conversion, zero-extended (the
 * C caller reads a whole register) */
static void add_conversion(LLVMContextRef ctx, LLVMModuleRef m, const char *name, Dtype t, bool narrowing) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef arg = narrowing ? LLVMFloatTypeInContext(ctx) : i32;
    LLVMValueRef fn = LLVMAddFunction(m, name, LLVMFunctionType(i32, &arg, 1, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
    LLVMValueRef x = LLVMGetParam(fn, 0), r;
    if (narrowing) r = lg_fp8_from_float_soft(b, t, x);
    else r = lg_fp8_to_half_bits_soft(b, t, LLVMBuildTrunc(b, x, LLVMInt8TypeInContext(ctx), ""));
    LLVMBuildRet(b, LLVMBuildZExt(b, r, i32, ""));
    LLVMDisposeBuilder(b);
}

typedef struct Jit {
    LLVMExecutionEngineRef ee;
    NarrowFn narrow[2]; /* e4m3, e5m2 */
    WidenFn widen[2];
} Jit;

static Jit jit_build(LLVMContextRef ctx, bool o3) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("fp8", ctx);
    add_conversion(ctx, m, "narrow_e4m3", DT_F8E4M3, true);
    add_conversion(ctx, m, "narrow_e5m2", DT_F8E5M2, true);
    add_conversion(ctx, m, "widen_e4m3", DT_F8E4M3, false);
    add_conversion(ctx, m, "widen_e5m2", DT_F8E5M2, false);
    Jit j;
    j.ee = host_jit(m, o3);
    j.narrow[0] = (NarrowFn)host_jit_address(j.ee, "narrow_e4m3");
    j.narrow[1] = (NarrowFn)host_jit_address(j.ee, "narrow_e5m2");
    j.widen[0] = (WidenFn)host_jit_address(j.ee, "widen_e4m3");
    j.widen[1] = (WidenFn)host_jit_address(j.ee, "widen_e5m2");
    return j;
}

/* ---- the comparisons ---- */

static int reported;

static float float_of(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* One float, narrowed by the IR, the reference and (but NaN) tilec's host
 * rounding; the first few disagreements are printed. */
static void check_narrow(const RefFormat *f, NarrowFn fn, const char *stage, uint32_t u) {
    float x = float_of(u);
    uint32_t got = fn(x), want = ref_narrow(f, x);
    uint32_t host = isnan(x) ? want : dtype_narrow_bits(f->t, (double)x);
    checks++;
    if (got != want || host != want) {
        failures++;
        if (reported++ < 20)
            fprintf(stderr, "FAILED: %s %s(0x%08x = %.9g): IR 0x%02x, reference 0x%02x, float_format 0x%02x\n", stage,
                    f->name, u, (double)x, got, want, host);
    }
}

static void check_both_signs(const RefFormat *f, NarrowFn fn, const char *stage, uint32_t u) {
    check_narrow(f, fn, stage, u & 0x7FFFFFFF);
    check_narrow(f, fn, stage, u | 0x80000000);
}

static void check_widen_all(const RefFormat *f, WidenFn fn, const char *stage) {
    for (uint32_t c = 0; c < 256; c++) {
        uint32_t got = fn(c), want = ref_widen(f, (uint8_t)c);
        CHECK(got == want, "%s %s byte 0x%02x: IR 0x%04x, reference 0x%04x", stage, f->name, c, got, want);
    }
}

static void check_narrow_all(const RefFormat *f, NarrowFn fn, const char *stage) {
    /* every top 20 bits (sign, exponent, 11 mantissa bits) with low bits
     * that make exact ties (0), just past them (1, 0x801) and sticky bits */
    static const uint32_t low[] = {0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFF};
    for (uint32_t top = 0; top < (1u << 20); top++)
        for (size_t i = 0; i < sizeof low / sizeof *low; i++) check_narrow(f, fn, stage, top << 12 | low[i]);
    /* every midpoint between neighbouring codes (exact in float) and the
     * floats on either side; the last is the overflow threshold */
    for (int c = 0; c + 1 < f->ncodes; c++) {
        uint32_t mid = bits_of((float)((f->value[c] + f->value[c + 1]) / 2));
        for (uint32_t d = 0; d < 3; d++) check_both_signs(f, fn, stage, mid - 1 + d);
    }
    /* the codes' own values, the specials, float denormals, NaN payloads */
    for (int c = 0; c < f->ncodes; c++) check_both_signs(f, fn, stage, bits_of((float)f->value[c]));
    static const uint32_t special[] = {0, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001,
                                       0x7FC00000, 0x7FFFFFFF, 0x7FA00000, 0x3F800000, 0x3A800000, 0x37000000};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) check_both_signs(f, fn, stage, special[i]);
    /* random floats (xorshift32) */
    uint32_t s = 0x9E3779B9u;
    for (int i = 0; i < 4000000; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        check_narrow(f, fn, stage, s);
    }
}

int main(void) {
    LLVMLinkInMCJIT();
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        fprintf(stderr, "no native target in this LLVM\n");
        return 1;
    }
    static RefFormat fmt[2];
    ref_init(&fmt[0], "e4m3", DT_F8E4M3, 0x80, e4m3_value, 0x7E);
    ref_init(&fmt[1], "e5m2", DT_F8E5M2, 0x7D, e5m2_value, 0x7C);
    /* the reference against facts of the formats */
    CHECK(fmt[0].value[0x7E] == 448 && fmt[1].value[0x7B] == 57344, "largest finite values");
    CHECK(fmt[0].value[1] == ldexp(1, -9) && fmt[1].value[1] == ldexp(1, -16), "smallest denormals");
    CHECK(ref_narrow(&fmt[0], 464) == 0x7E && ref_narrow(&fmt[0], 464.0001f) == 0x7E && ref_narrow(&fmt[0], -INFINITY) == 0xFE,
          "e4m3 saturation");
    CHECK(ref_narrow(&fmt[1], 61439.996f) == 0x7B && ref_narrow(&fmt[1], 61440) == 0x7C && ref_narrow(&fmt[1], -INFINITY) == 0xFC,
          "e5m2 overflow");
    CHECK(ref_narrow(&fmt[0], (float)ldexp(1, -10)) == 0 && ref_narrow(&fmt[0], -(float)ldexp(1.0001, -10)) == 0x81,
          "e4m3 underflow");
    CHECK(ref_narrow(&fmt[0], 1.0625f) == 0x38 && ref_narrow(&fmt[0], 1.1875f) == 0x3A, "ties to even");
    CHECK(ref_widen(&fmt[0], 0x01) == 0x1800 && ref_widen(&fmt[0], 0x80) == 0x8000 && ref_widen(&fmt[1], 0xFC) == 0xFC00,
          "widening");

    LLVMContextRef ctx = LLVMContextCreate();
    for (int o3 = 0; o3 < 2; o3++) {
        const char *stage = o3 ? "O3" : "as built";
        Jit j = jit_build(ctx, o3);
        int before = failures;
        for (int i = 0; i < 2; i++) {
            check_widen_all(&fmt[i], j.widen[i], stage);
            check_narrow_all(&fmt[i], j.narrow[i], stage);
        }
        printf("%s: %s\n", stage, failures == before ? "ok" : "FAILED");
        LLVMDisposeExecutionEngine(j.ee);
    }
    LLVMContextDispose(ctx);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
