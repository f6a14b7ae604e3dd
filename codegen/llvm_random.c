/* llvm_random.c - rand, randn and randint as IR: the same Philox-4x32-10
 * and the same float operations, each rounded once, as frontend/random.c
 * computes on the host and tilec_device.cuh's tl_rand* on the printed
 * path, so a kernel verifies bit for bit against its reference.
 *
 * Multiplies and adds must stay single roundings: the backend prints
 * fmul and fadd as mul.f32 and add.f32, which ptxas may fuse into fmas
 * (-nvptx-fma-level=1 matches NVRTC's -fmad=true: llvm_target.c), so on
 * the GPU they are llvm.nvvm.mul.rn.f and llvm.nvvm.add.rn.f (mul.rn.f32,
 * add.rn.f32; a - b as a + -b). Otherwise llvm.fma for the fused steps,
 * fdiv (div.rn.f32), llvm.sqrt (sqrt.rn), llvm.rint (cvt.rni) and
 * llvm.maxnum. On the host (rn_ops false) plain fmul and fadd, which
 * nothing fuses without fast-math flags: the same builder code then runs
 * there, where tests/llvm/test_random.c checks it against random.c. */
#include <string.h>

#include "llvm_codegen.h"

typedef struct Rb {
    LLVMBuilderRef b;
    LLVMModuleRef m;
    LLVMContextRef ctx;
    LLVMTypeRef i32, i64, f32;
    bool rn_ops; /* multiplies and adds through NVPTX's .rn intrinsics */
} Rb;

static LLVMValueRef k32(Rb *r, uint32_t v) { return LLVMConstInt(r->i32, v, 0); }
static LLVMValueRef kf(Rb *r, float v) { return LLVMConstReal(r->f32, (double)v); }

static LLVMValueRef intrinsic(Rb *r, const char *name, LLVMValueRef *args, int n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(r->m, id, &r->f32, 1);
    return LLVMBuildCall2(r->b, LLVMIntrinsicGetType(r->ctx, id, &r->f32, 1), f, args, (unsigned)n, "");
}

static LLVMValueRef fma3(Rb *r, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    LLVMValueRef v[3] = {a, b, c};
    return intrinsic(r, "llvm.fma", v, 3);
}
static LLVMValueRef rn_op(Rb *r, const char *name, LLVMValueRef a, LLVMValueRef b) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(r->m, id, NULL, 0), args[2] = {a, b};
    return LLVMBuildCall2(r->b, LLVMIntrinsicGetType(r->ctx, id, NULL, 0), f, args, 2, "");
}
static LLVMValueRef fmul(Rb *r, LLVMValueRef a, LLVMValueRef b) {
    return r->rn_ops ? rn_op(r, "llvm.nvvm.mul.rn.f", a, b) : LLVMBuildFMul(r->b, a, b, "");
}
static LLVMValueRef fadd(Rb *r, LLVMValueRef a, LLVMValueRef b) {
    return r->rn_ops ? rn_op(r, "llvm.nvvm.add.rn.f", a, b) : LLVMBuildFAdd(r->b, a, b, "");
}
static LLVMValueRef fsub(Rb *r, LLVMValueRef a, LLVMValueRef b) {
    return r->rn_ops ? fadd(r, a, LLVMBuildFNeg(r->b, b, "")) : LLVMBuildFSub(r->b, a, b, "");
}
static LLVMValueRef rint1(Rb *r, LLVMValueRef a) { return intrinsic(r, "llvm.rint", &a, 1); }

/* the high 32 bits of the 64-bit product a * c (both unsigned) */
static LLVMValueRef mulhi(Rb *r, uint32_t a, LLVMValueRef c) {
    LLVMValueRef p = LLVMBuildMul(r->b, LLVMConstInt(r->i64, a, 0), LLVMBuildZExt(r->b, c, r->i64, ""), "");
    return LLVMBuildTrunc(r->b, LLVMBuildLShr(r->b, p, LLVMConstInt(r->i64, 32, 0), ""), r->i32, "");
}

static void philox(Rb *r, LLVMValueRef seed, LLVMValueRef offset, LLVMValueRef w[4]) {
    LLVMBuilderRef b = r->b;
    LLVMValueRef sh = LLVMConstInt(r->i64, 32, 0);
    LLVMValueRef c0 = LLVMBuildTrunc(b, offset, r->i32, ""), c1 = LLVMBuildTrunc(b, LLVMBuildLShr(b, offset, sh, ""), r->i32, "");
    LLVMValueRef c2 = k32(r, 0), c3 = k32(r, 0);
    uint32_t k0 = 0, k1 = 0; /* the key's increments so far, added to the seed's halves */
    LLVMValueRef s0 = LLVMBuildTrunc(b, seed, r->i32, ""), s1 = LLVMBuildTrunc(b, LLVMBuildLShr(b, seed, sh, ""), r->i32, "");
    for (int round = 0; round < 10; round++) {
        LLVMValueRef key0 = LLVMBuildAdd(b, s0, k32(r, k0), ""), key1 = LLVMBuildAdd(b, s1, k32(r, k1), "");
        LLVMValueRef n0 = LLVMBuildXor(b, LLVMBuildXor(b, mulhi(r, 0xCD9E8D57u, c2), c1, ""), key0, "");
        LLVMValueRef n2 = LLVMBuildXor(b, LLVMBuildXor(b, mulhi(r, 0xD2511F53u, c0), c3, ""), key1, "");
        c1 = LLVMBuildMul(b, k32(r, 0xCD9E8D57u), c2, "");
        c3 = LLVMBuildMul(b, k32(r, 0xD2511F53u), c0, "");
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    w[0] = c0, w[1] = c1, w[2] = c2, w[3] = c3;
}

/* a word to [0, 1): as a signed int folded to >= 0 (x < 0: -x - 1 = ~x) */
static LLVMValueRef unit(Rb *r, LLVMValueRef word) {
    LLVMValueRef neg = LLVMBuildICmp(r->b, LLVMIntSLT, word, k32(r, 0), "");
    LLVMValueRef i = LLVMBuildSelect(r->b, neg, LLVMBuildNot(r->b, word, ""), word, "");
    return fmul(r, LLVMBuildSIToFP(r->b, i, r->f32, ""), kf(r, RANDOM_UNIT_SCALE));
}

static LLVMValueRef rlog(Rb *r, LLVMValueRef u) {
    LLVMBuilderRef b = r->b;
    LLVMValueRef bits = LLVMBuildBitCast(b, u, r->i32, "");
    LLVMValueRef e = LLVMBuildSub(b, LLVMBuildLShr(b, bits, k32(r, 23), ""), k32(r, 127), "");
    LLVMValueRef m = LLVMBuildBitCast(b, LLVMBuildOr(b, LLVMBuildAnd(b, bits, k32(r, 0x7FFFFFu), ""), k32(r, 0x3F800000u), ""),
                                      r->f32, "");
    LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGT, m, kf(r, RANDOM_SQRT2), "");
    m = LLVMBuildSelect(b, big, fmul(r, m, kf(r, 0.5f)), m, "");
    e = LLVMBuildAdd(b, e, LLVMBuildZExt(b, big, r->i32, ""), "");
    LLVMValueRef s = LLVMBuildFDiv(b, fsub(r, m, kf(r, 1.0f)), fadd(r, m, kf(r, 1.0f)), ""), z = fmul(r, s, s);
    LLVMValueRef p = fma3(r, kf(r, RANDOM_LOG_C11), z, kf(r, RANDOM_LOG_C9));
    p = fma3(r, p, z, kf(r, RANDOM_LOG_C7));
    p = fma3(r, p, z, kf(r, RANDOM_LOG_C5));
    p = fma3(r, p, z, kf(r, RANDOM_LOG_C3));
    LLVMValueRef t = fmul(r, fmul(r, s, z), p);
    LLVMValueRef lm = fmul(r, fadd(r, s, t), kf(r, 2.0f));
    LLVMValueRef fe = LLVMBuildSIToFP(b, e, r->f32, "");
    return fma3(r, fe, kf(r, RANDOM_LN2_HI), fma3(r, fe, kf(r, RANDOM_LN2_LO), lm));
}

static LLVMValueRef cos2pi(Rb *r, LLVMValueRef u) {
    LLVMBuilderRef b = r->b;
    LLVMValueRef t = fsub(r, u, rint1(r, u));
    LLVMValueRef q = rint1(r, fmul(r, t, kf(r, 4.0f)));
    LLVMValueRef rr = fsub(r, t, fmul(r, q, kf(r, 0.25f)));
    LLVMValueRef a = fmul(r, rr, kf(r, RANDOM_TWO_PI)), z = fmul(r, a, a);
    LLVMValueRef c = fma3(r, z, kf(r, RANDOM_COS_C10), kf(r, RANDOM_COS_C8));
    c = fma3(r, z, c, kf(r, RANDOM_COS_C6));
    c = fma3(r, z, c, kf(r, RANDOM_COS_C4));
    c = fma3(r, z, c, kf(r, -0.5f));
    c = fma3(r, z, c, kf(r, 1.0f));
    LLVMValueRef s = fma3(r, z, kf(r, RANDOM_SIN_C11), kf(r, RANDOM_SIN_C9));
    s = fma3(r, z, s, kf(r, RANDOM_SIN_C7));
    s = fma3(r, z, s, kf(r, RANDOM_SIN_C5));
    s = fma3(r, z, s, kf(r, RANDOM_SIN_C3));
    s = fma3(r, fmul(r, a, z), s, a);
    /* the quarter: 0 cos, 1 -sin, 2 -cos, 3 sin */
    LLVMValueRef quarter = LLVMBuildAnd(b, LLVMBuildFPToSI(b, q, r->i32, ""), k32(r, 3), "");
    LLVMValueRef odd = LLVMBuildTrunc(b, quarter, LLVMInt1TypeInContext(r->ctx), "");
    LLVMValueRef flip = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, LLVMBuildAdd(b, quarter, k32(r, 1), ""), k32(r, 2), ""),
                                      k32(r, 2), ""); /* quarters 1 and 2 */
    LLVMValueRef v = LLVMBuildSelect(b, odd, s, c, "");
    return LLVMBuildSelect(b, flip, LLVMBuildFNeg(b, v, ""), v, "");
}

LLVMValueRef lg_random_soft(LLVMBuilderRef b, LLVMModuleRef m, RandomKind kind, LLVMValueRef seed, LLVMValueRef offset,
                            bool rn_ops) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    Rb r = {b, m, ctx, LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx), LLVMFloatTypeInContext(ctx), rn_ops};
    LLVMValueRef w[4];
    philox(&r, seed, offset, w);
    if (kind == RANDOM_INT) return w[0];
    if (kind == RANDOM_UNIFORM) return unit(&r, w[0]);
    LLVMValueRef mx[2] = {unit(&r, w[0]), kf(&r, RANDOM_MIN_U1)};
    LLVMValueRef u1 = intrinsic(&r, "llvm.maxnum", mx, 2), u2 = unit(&r, w[1]);
    LLVMValueRef l = fmul(&r, kf(&r, -2.0f), rlog(&r, u1));
    return fmul(&r, intrinsic(&r, "llvm.sqrt", &l, 1), cos2pi(&r, u2));
}
