/* plan_scan.c - cumsum in registers where the fragments' layouts allow.
 *
 * The IR builder gives every cumsum the form that works for any layout: a
 * copy of the source into shared memory in the sum's type, the scan in
 * place there (a warp a row), a copy back into the destination. For rows
 * of a blocked fragment whose destination is laid out as its source
 * (scan_in_registers), each thread already holds whole chunks of a row in
 * order, so the scan needs no copy of the tile: the three statements
 * become one IR_SCAN from the source fragment to the destination, and the
 * staging buffer goes (its shared memory, 16 KB a row of 4096 floats, is
 * what limited the blocks an SM holds). */
#include "passes.h"

static bool whole_fragment(const IrRegion *r) { return r->buf && r->buf->scope == SCOPE_FRAGMENT && region_is_whole(r); }

static void drop_buffer(IrKernel *k, const IrBuf *b) {
    for (int i = 0; i < k->buffers.len; i++)
        if (k->buffers.items[i] == b) {
            for (int j = i + 1; j < k->buffers.len; j++) k->buffers.items[j - 1] = k->buffers.items[j];
            k->buffers.len--;
            return;
        }
}

static void plan_block(IrKernel *k, IrBlock *b) {
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        plan_block(k, &s->body);
        plan_block(k, &s->els);
        if (s->op != IR_SCAN || s->dst.buf || i == 0 || i + 1 >= b->len) continue;
        IrStmt *in = b->items[i - 1], *out = b->items[i + 1];
        IrBuf *staged = s->src.buf;
        if (in->op != IR_COPY || out->op != IR_COPY || in->dst.buf != staged || out->src.buf != staged) continue;
        if (!whole_fragment(&in->src) || !whole_fragment(&out->dst)) {
            s->not_in_registers = "its source or destination is not a whole fragment";
            continue;
        }
        ScanRegs p;
        s->not_in_registers = scan_in_registers(in->src.buf, out->dst.buf, s->dim, k->threads, &p);
        if (s->not_in_registers) continue;
        s->src = in->src;
        s->dst = out->dst;
        for (int j = i + 2; j < b->len; j++) b->items[j - 2] = b->items[j];
        b->items[i - 1] = s;
        b->len -= 2;
        drop_buffer(k, staged);
        i--;
    }
}

void pass_plan_scan(IrKernel *k) { plan_block(k, &k->body); }
