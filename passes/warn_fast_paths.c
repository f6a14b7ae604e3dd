/* warn_fast_paths.c - the warnings of LANGUAGE.md §8: wherever the code
 * planned leaves a fast path that the source asks for, a located warning
 * with the reason (-w silences them, -Werror makes them errors):
 *   - a copy from global to shared memory in a `pipelined` loop that loads
 *     in its own iteration, not ahead (plan_pipeline's reason, or: it is
 *     under a condition or in an inner loop), or ahead but with plain
 *     loads instead of cp.async (plan_pipeline's reason);
 *   - a gemm on scalar multiply-adds instead of the tensor cores;
 *   - on sm_90a, a pipeline of gemms that could take the TMA/wgmma path
 *     and stays on mma.sync (plan_warpgroups' reason).
 * Register spills are known only after ptxas: the driver warns of those.
 * Nothing here changes the code. */
#include "passes.h"

typedef struct Walk {
    IrKernel *k;
    const IrStmt *loop;   /* the pipelined loop around, if any */
    int depth;            /* statements nested below its top level */
} Walk;

static void warn_gemm(IrKernel *k, const IrStmt *s) {
    if (s->wgmma) return;
    if (s->c.buf->layout.kind != LAYOUT_ACC) return; /* an error of its own, in code generation */
    const char *why = gemm_stmt_mma_why_not(k->arch, s);
    if (why) diag_warning(k->c, s->loc, "this gemm runs on scalar multiply-adds, not the tensor cores: %s", why);
}

static void walk(Walk *w, IrBlock *b) {
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        if (s->op == IR_COPY && w->loop && w->loop->stages > 1 && !s->pipeline && !copy_by_producer(s) &&
            s->src.buf->scope == SCOPE_GLOBAL && s->dst.buf->scope == SCOPE_SHARED) {
            const char *why = w->depth > 0 ? "it is under a condition or in an inner loop" : s->not_pipelined;
            if (why)
                diag_warning(w->k->c, s->loc, "this copy in a pipelined loop loads in its own iteration, not %d ahead: %s",
                             w->loop->stages - 1, why);
        }
        if (s->op == IR_COPY && s->pipeline && s->not_async && w->k->arch >= 80)
            diag_warning(w->k->c, s->loc, "this copy in a pipelined loop is issued ahead with plain loads, not cp.async: %s",
                         s->not_async);
        if (s->op == IR_GEMM) warn_gemm(w->k, s);
        bool pipelined = s->op == IR_FOR && s->loop == LOOP_PIPELINED;
        Walk inner = pipelined ? (Walk){w->k, s, 0} : (Walk){w->k, w->loop, w->depth + (w->loop != NULL)};
        walk(&inner, &s->body);
        walk(&inner, &s->els);
    }
}

/* Whether a copy in loop body b gathers rows by index into buffer s (the
 * sm_90a path loads no such operand, and the source could not change it). */
static bool gathered(const IrBlock *b, const IrBuf *s) {
    for (int i = 0; i < b->len; i++) {
        const IrStmt *c = b->items[i];
        if (c->op == IR_COPY && c->dst.buf == s && c->src.gather) return true;
    }
    return false;
}

/* The first gemm of a pipelined loop at the kernel's top level whose
 * operands the sm_90a path takes (16- or 8-bit, in shared memory, not
 * gathered) into an accumulator of the rows its warpgroups can own (64,
 * 128 or 192), or NULL: the gemms the path was made for. */
static const IrStmt *hopper_candidate(IrKernel *k) {
    for (int i = 0; i < k->body.len; i++) {
        const IrStmt *loop = k->body.items[i];
        if (loop->op != IR_FOR || loop->loop != LOOP_PIPELINED) continue;
        for (int j = 0; j < loop->body.len; j++) {
            const IrStmt *g = loop->body.items[j];
            if (g->op != IR_GEMM || g->b.buf->scope != SCOPE_SHARED) continue;
            int64_t rows = g->c.buf->shape[0];
            if (rows % 64 != 0 || rows > 192 || gathered(&loop->body, g->a.buf) || gathered(&loop->body, g->b.buf)) continue;
            Dtype t = g->a.buf->dtype;
            if (t == DT_F16 || t == DT_BF16 || dtype_is_fp8(t) || t == DT_I8 || t == DT_U8) return g;
        }
    }
    return NULL;
}

void pass_warn_fast_paths(IrKernel *k) {
    Walk w = {k, NULL, 0};
    walk(&w, &k->body);
    const IrStmt *g;
    if (k->arch == 90 && k->arch_specific && k->hopper_declined && !k->ws_loop && (g = hopper_candidate(k)))
        diag_warning(k->c, g->loc, "on sm_90a this gemm stays on mma.sync, not TMA and wgmma: %s", k->hopper_declined);
}
