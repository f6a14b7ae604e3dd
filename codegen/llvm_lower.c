/* llvm_lower.c - the tile operations the LLVM backend does not lower yet. */
#include "llvm_codegen.h"

static void not_yet(Lg *g, IrStmt *s) {
    lg_error(g, s->loc, "the llvm backend does not lower %s yet (use --backend nvrtc)", ir_op_name(s->op));
}
void lg_reduce(Lg *g, IrStmt *s) { not_yet(g, s); }
void lg_gemm(Lg *g, IrStmt *s) { not_yet(g, s); }
void lg_pipelined(Lg *g, IrStmt *s) { not_yet(g, s); }
