/* llvm_target.c - from the built module to PTX: libdevice linked in where
 * the kernel calls its math functions, LLVM's default<O3> pipeline, the
 * NVPTX backend. Also the LLVM version for the cache key. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "llvm_codegen.h"

#ifndef TILEC_CUDA_LIBDEVICE
#error "TILEC_CUDA_LIBDEVICE (the toolkit's libdevice.10.bc) is set by CMakeLists.txt"
#endif

static const char TRIPLE[] = "nvptx64-nvidia-cuda";

const char *lg_triple(void) { return TRIPLE; }
/* nvptx64's data layout, as LLVM's NVPTX target defines it (shared
 * pointers 32 bits wide would need -nvptx-short-ptr; tilec keeps all
 * pointers 64-bit and converts shared addresses to 32 bits itself) */
const char *lg_data_layout(void) { return "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"; }

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_nvptx(void) {
    /* NVRTC's default -fmad=true: multiplies and adds may fuse into fmas,
     * and the adds left are plain add.f32 (ptxas may fuse them too), not
     * add.rn. The target machine of the C API has no such option; the
     * NVPTX backend's own flag gives it (this LLVM is tilec's alone).
     * Loop strength reduction off: its extra induction variables (an
     * address a stream) live across the whole loop, and in kernels at
     * the register cap of warp specialisation (128 a thread at three
     * consumer warpgroups) they are what spills; ptxas does its own
     * strength reduction of the addresses.
     * The SLP vectorizer bounded: a smaller scheduling region and a
     * shallower look-ahead (defaults 100000 and 2). On long unrolled rows
     * (layernorm's 1157-instruction block) it spent 39 of O3's 61 ms,
     * now 26; the PTX of every example and test kernel, sm_80 and
     * sm_90a, is byte-identical (bench/RESULTS.md). */
    const char *argv[] = {"tilec", "-nvptx-fma-level=1", "-disable-lsr", "-slp-schedule-budget=10000",
                          "-slp-max-look-ahead-depth=1"};
    LLVMParseCommandLineOptions(5, argv, NULL);
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}

const char *cg_llvm_version(void) {
    static char v[32];
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    snprintf(v, sizeof v, "LLVM %u.%u.%u", major, minor, patch);
    return v;
}

double lg_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool fail(char err[256], const char *what, char *msg) {
    snprintf(err, 256, "%.80s: %.160s", what, msg ? msg : "no reason given");
    if (msg) LLVMDisposeMessage(msg);
    return false;
}

/* libdevice (the toolkit's math library, what NVRTC links too), loaded
 * lazily so only the functions the kernel calls are read, then made
 * internal so O3 keeps only what is used. Its reflection flag says:
 * denormals are not flushed, as NVRTC's default. */
static bool link_libdevice(LLVMContextRef ctx, LLVMModuleRef m, char err[256]) {
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(TILEC_CUDA_LIBDEVICE, &buf, &msg))
        return fail(err, "cannot read libdevice (" TILEC_CUDA_LIBDEVICE ")", msg);
    LLVMModuleRef lib;
    if (LLVMGetBitcodeModuleInContext2(ctx, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        return fail(err, "cannot parse libdevice (" TILEC_CUDA_LIBDEVICE ")", NULL);
    }
    LLVMSetTarget(lib, TRIPLE);
    LLVMSetDataLayout(lib, lg_data_layout());
    /* linkonce: the linker then brings (and reads) only the functions the
     * module calls and theirs, not all of libdevice's (~25 ms a compile) */
    for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
        if (LLVMGetLinkage(f) == LLVMExternalLinkage) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
    if (LLVMLinkModules2(m, lib)) return fail(err, "cannot link libdevice", NULL);
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != 71) LLVMSetLinkage(f, LLVMInternalLinkage);
    for (LLVMValueRef v = LLVMGetFirstGlobal(m); v; v = LLVMGetNextGlobal(v))
        if (!LLVMIsDeclaration(v) && LLVMGetLinkage(v) != LLVMInternalLinkage && LLVMGetLinkage(v) != LLVMPrivateLinkage)
            LLVMSetLinkage(v, LLVMInternalLinkage);
    LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)));
    return true;
}

/* LLVM 19's NVPTX backend has no pattern for copysign: it expands
 * llvm.copysign.f32/f64 into abs, neg, a move of the sign operand's bits,
 * a shift, an and, a compare and a select, where PTX has one copysign
 * instruction (NVRTC's PTX uses it). libdevice's erff ends in a copysign;
 * in gemm_bias_gelu's epilogue (128 erfs a thread at 255 registers on
 * sm_80) the expansion's extra register, predicate and instructions made
 * ptxas spill 24 bytes, none with the instruction. So, after O3, each
 * scalar copysign becomes the PTX instruction (copysign.f32 d, a, b copies
 * a's sign onto b's magnitude: the intrinsic's operands swapped). */
static void use_ptx_copysign(LLVMContextRef ctx, LLVMModuleRef m) {
    static const struct {
        const char *intrinsic, *text, *constraints;
    } forms[] = {{"llvm.copysign.f32", "copysign.f32 $0, $2, $1;", "=f,f,f"},
                 {"llvm.copysign.f64", "copysign.f64 $0, $2, $1;", "=d,d,d"}};
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        LLVMValueRef decl = LLVMGetNamedFunction(m, forms[f].intrinsic);
        if (!decl) continue;
        LLVMTypeRef ft = LLVMGlobalGetValueType(decl);
        LLVMValueRef as = LLVMGetInlineAsm(ft, (char *)forms[f].text, strlen(forms[f].text),
                                           (char *)forms[f].constraints, strlen(forms[f].constraints), 0, 0,
                                           LLVMInlineAsmDialectATT, 0);
        /* every use is a call (an intrinsic's address cannot be taken) */
        for (LLVMUseRef u = LLVMGetFirstUse(decl); u; u = LLVMGetFirstUse(decl)) {
            LLVMValueRef call = LLVMGetUser(u);
            LLVMValueRef args[2] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)};
            LLVMPositionBuilderBefore(b, call);
            LLVMReplaceAllUsesWith(call, LLVMBuildCall2(b, ft, as, args, 2, ""));
            LLVMInstructionEraseFromParent(call);
        }
    }
    LLVMDisposeBuilder(b);
}

bool lg_module_to_ptx(LLVMContextRef ctx, LLVMModuleRef m, int arch, bool arch_specific, bool libdevice, char **ptx,
                      size_t *ptx_len, LgTimes *t, char err[256]) {
    pthread_once(&init_once, init_nvptx);
    *ptx = NULL;
    *ptx_len = 0;
    bool ok = false;
    char *msg = NULL;
    LLVMTargetRef target;
    LLVMTargetMachineRef tm = NULL;
    LLVMPassBuilderOptionsRef opts = NULL;
    if (LLVMGetTargetFromTriple(TRIPLE, &target, &msg)) {
        fail(err, "LLVM has no NVPTX target", msg);
        goto done;
    }
    char cpu[16];
    snprintf(cpu, sizeof cpu, "sm_%d%s", arch, arch_specific ? "a" : "");
    /* PTX ISA 8.4: what sm_90a's wgmma and TMA (8.0) and fp8 mma.sync
     * (8.4) need, and the ptxas of CUDA 12.4 and later reads */
    tm = LLVMCreateTargetMachine(target, TRIPLE, cpu, "+ptx84", LLVMCodeGenLevelAggressive, LLVMRelocDefault,
                                 LLVMCodeModelDefault);
    if (!tm) {
        snprintf(err, 256, "LLVM cannot target %s", cpu);
        goto done;
    }
    double t0 = lg_now_s();
    if (libdevice && !link_libdevice(ctx, m, err)) goto done;
    double t1 = lg_now_s();
    opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", tm, opts);
    if (e) {
        fail(err, "LLVM's O3 pipeline failed", LLVMGetErrorMessage(e));
        goto done;
    }
    use_ptx_copysign(ctx, m);
    double t2 = lg_now_s();
    LLVMMemoryBufferRef out;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &out)) {
        fail(err, "LLVM's NVPTX backend failed", msg);
        goto done;
    }
    size_t n = LLVMGetBufferSize(out);
    *ptx = malloc(n + 1);
    if (!*ptx) die("out of memory");
    memcpy(*ptx, LLVMGetBufferStart(out), n);
    (*ptx)[n] = 0;
    *ptx_len = n;
    LLVMDisposeMemoryBuffer(out);
    t->link_s = t1 - t0;
    t->opt_s = t2 - t1;
    t->ptx_s = lg_now_s() - t2;
    ok = true;
done:
    if (opts) LLVMDisposePassBuilderOptions(opts);
    if (tm) LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(m);
    return ok;
}
