/* backend.c - the choice of code generator: CUDA C for NVRTC (the
 * default), or LLVM IR for LLVM's NVPTX backend where tilec was built
 * with LLVM (TILEC_HAVE_LLVM; libtilec_llvm.so). The command, the library
 * and autotuning all generate through lib_generate. */
#include <string.h>

#include "lib.h"

bool lib_parse_backend(const char *name, CgBackend *out, char err[300]) {
    if (!strcmp(name, "nvrtc")) {
        *out = CG_NVRTC;
        return true;
    }
    if (!strcmp(name, "llvm")) {
#ifdef TILEC_HAVE_LLVM
        *out = CG_LLVM;
        return true;
#else
        snprintf(err, 300, "this tilec was built without LLVM 19, so --backend llvm is not available "
                           "(build.sh installs llvm-19-dev)");
        return false;
#endif
    }
    snprintf(err, 300, "'%.60s' is not nvrtc or llvm", name);
    return false;
}

const char *lib_backend_name(CgBackend b) { return b == CG_LLVM ? "llvm" : "nvrtc"; }

int lib_generate(IrKernel *k, const char *file, CgBackend backend, CgKernel *out) {
    if (backend == CG_NVRTC) return cg_emit(k, file, out) ? LIB_OK : LIB_SOURCE;
#ifdef TILEC_HAVE_LLVM
    if (k->arch > 90) {
        fprintf(k->c->err, "tilec: the llvm backend (LLVM 19) targets sm_80 to sm_90a, not sm_%d\n", k->arch);
        return LIB_USAGE;
    }
    int errors = k->c->errors;
    if (cg_llvm_emit(k, file, out)) return LIB_OK;
    /* a located error for what it cannot lower, else LLVM failed (said) */
    return k->c->errors != errors ? LIB_SOURCE : LIB_CUDA;
#else
    memset(out, 0, sizeof *out);
    fprintf(k->c->err, "tilec: this tilec was built without LLVM 19, so --backend llvm is not available\n");
    return LIB_USAGE;
#endif
}
