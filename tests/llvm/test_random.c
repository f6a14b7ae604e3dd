/* test_random.c - the llvm backend's rand, randn and randint (codegen/
 * llvm_random.c), built by the same builder code into a host module and
 * run by LLVM's JIT, as built and after O3, against frontend/random.c
 * (what the reference evaluator computes): bit for bit on 3M seeds and
 * offsets, random ones and ones at the edges of their halves. */
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>
#include <stdint.h>
#include <string.h>

#include "host_jit.h"
#include "llvm_codegen.h"
#include "test_util.h"

typedef uint32_t (*IntFn)(uint64_t, uint64_t);
typedef float (*FloatFn)(uint64_t, uint64_t);

/* ret name(i64 seed, i64 offset): the draw of `kind` */
static void add_draw(LLVMContextRef ctx, LLVMModuleRef m, const char *name, RandomKind kind) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), args[2] = {i64, i64};
    LLVMTypeRef ret = kind == RANDOM_INT ? LLVMInt32TypeInContext(ctx) : LLVMFloatTypeInContext(ctx);
    LLVMValueRef fn = LLVMAddFunction(m, name, LLVMFunctionType(ret, args, 2, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
    LLVMBuildRet(b, lg_random_soft(b, m, kind, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), false));
    LLVMDisposeBuilder(b);
}

typedef struct Jit {
    LLVMExecutionEngineRef ee;
    IntFn randint;
    FloatFn rand, randn;
} Jit;

static Jit jit_build(LLVMContextRef ctx, bool o3) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("random", ctx);
    add_draw(ctx, m, "draw_int", RANDOM_INT);
    add_draw(ctx, m, "draw_uniform", RANDOM_UNIFORM);
    add_draw(ctx, m, "draw_normal", RANDOM_NORMAL);
    Jit j;
    j.ee = host_jit(m, o3);
    j.randint = (IntFn)host_jit_address(j.ee, "draw_int");
    j.rand = (FloatFn)host_jit_address(j.ee, "draw_uniform");
    j.randn = (FloatFn)host_jit_address(j.ee, "draw_normal");
    return j;
}

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static int reported;

static void check_one(const Jit *j, const char *stage, uint64_t seed, uint64_t offset) {
    uint32_t gi = j->randint(seed, offset), wi = random_int(seed, offset);
    uint32_t gu = bits_of(j->rand(seed, offset)), wu = bits_of(random_uniform(seed, offset));
    uint32_t gn = bits_of(j->randn(seed, offset)), wn = bits_of(random_normal(seed, offset));
    bool ok = gi == wi && gu == wu && gn == wn;
    CHECK(ok || reported >= 10, "%s seed %llx offset %llx: randint %08x/%08x rand %08x/%08x randn %08x/%08x", stage,
          (unsigned long long)seed, (unsigned long long)offset, gi, wi, gu, wu, gn, wn);
    if (!ok) reported++;
}

int main(void) {
    LLVMLinkInMCJIT();
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        fprintf(stderr, "no native target in this LLVM\n");
        return 1;
    }
    LLVMContextRef ctx = LLVMContextCreate();
    static const uint64_t edges[] = {0, 1, 0xFFFFFFFFu, 0x100000000ULL, 0x7FFFFFFFFFFFFFFFULL, 0x8000000000000000ULL,
                                     UINT64_MAX};
    for (int o3 = 0; o3 < 2; o3++) {
        const char *stage = o3 ? "O3" : "as built";
        Jit j = jit_build(ctx, o3);
        int before = failures;
        for (size_t a = 0; a < sizeof edges / sizeof *edges; a++)
            for (size_t b = 0; b < sizeof edges / sizeof *edges; b++) check_one(&j, stage, edges[a], edges[b]);
        for (uint64_t i = 0; i < 1000000; i++) check_one(&j, stage, 42, i); /* one seed's consecutive offsets */
        for (uint64_t i = 0; i < 500000; i++) check_one(&j, stage, mix(i), mix(i + 0x5bd1e995));
        printf("%s: %s\n", stage, failures == before ? "ok" : "FAILED");
        LLVMDisposeExecutionEngine(j.ee);
    }
    LLVMContextDispose(ctx);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
