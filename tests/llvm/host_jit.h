/* host_jit.h - what the llvm backend's host tests share: a module of IR
 * the backend's target-free builders made, verified, optionally through
 * O3, and compiled for this machine by LLVM's MCJIT; the address of a
 * function in it. Failures end the test with a message. */
#ifndef TILEC_TEST_HOST_JIT_H
#define TILEC_TEST_HOST_JIT_H

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static LLVMExecutionEngineRef host_jit(LLVMModuleRef m, bool o3) {
    char *err = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &err)) {
        fprintf(stderr, "invalid module: %s\n", err);
        exit(1);
    }
    LLVMDisposeMessage(err);
    if (o3) {
        LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
        LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", NULL, opts);
        LLVMDisposePassBuilderOptions(opts);
        if (e) {
            char *msg = LLVMGetErrorMessage(e);
            fprintf(stderr, "O3: %s\n", msg);
            exit(1);
        }
    }
    struct LLVMMCJITCompilerOptions jo;
    LLVMInitializeMCJITCompilerOptions(&jo, sizeof jo);
    LLVMExecutionEngineRef ee;
    if (LLVMCreateMCJITCompilerForModule(&ee, m, &jo, sizeof jo, &err)) {
        fprintf(stderr, "no JIT: %s\n", err);
        exit(1);
    }
    return ee;
}

static void *host_jit_address(LLVMExecutionEngineRef ee, const char *name) {
    uint64_t a = LLVMGetFunctionAddress(ee, name);
    if (!a) {
        fprintf(stderr, "no JIT address for %s\n", name);
        exit(1);
    }
    return (void *)(uintptr_t)a;
}

#endif
