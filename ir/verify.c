/* verify.c - structural invariants of the IR, checked between passes in
 * debug builds. A failure is a bug in tilec, never a user error. */
#include "ir.h"

typedef struct Verify {
    const IrKernel *k;
    const char *pass;
} Verify;

static void check_region(const Verify *v, const IrRegion *r, const char *what) {
    if (!r->buf) return;
    for (int d = 0; d < r->buf->rank; d++)
        if (r->ext[d] < 1) die("after %s: %s of '%s' has extent %lld in dim %d", v->pass, what, r->buf->sym->name->s,
                               (long long)r->ext[d], d);
}

static void visit(IrStmt *s, void *arg) {
    const Verify *v = arg;
    check_region(v, &s->src, "source");
    check_region(v, &s->dst, "destination");
    check_region(v, &s->a, "A");
    check_region(v, &s->b, "B");
    check_region(v, &s->c, "C");
    if (s->op == IR_FOR && !s->sym) die("after %s: a for loop without a variable", v->pass);
    if (s->pipeline && (s->op != IR_COPY || s->pipeline->loop != LOOP_PIPELINED))
        die("after %s: a pipeline producer that is not a copy in a pipelined loop", v->pass);
}

void ir_verify(const IrKernel *k, const char *after_pass) {
    Verify v = {k, after_pass};
    ir_walk((IrBlock *)&k->body, visit, &v);
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        if (b->stages < 1) die("after %s: '%s' has %d stages", after_pass, b->sym->name->s, b->stages);
    }
}
