/* print.c - the tile IR as text (--emit-ir, --print-ir-after). */
#include "ir.h"

static const char *const op_names[IR_COUNT] = {
#define X(id, name, tile) name,
#include "ops.h"
    IR_OPS(X)
#undef X
};

const char *ir_op_name(IrOp op) { return op_names[op]; }

static const char *scope_name(MemScope s) {
    switch (s) {
    case SCOPE_GLOBAL: return "global";
    case SCOPE_SHARED: return "shared";
    case SCOPE_FRAGMENT: return "fragment";
    default: return "local";
    }
}

static void print_layout(FILE *o, const Layout *l) {
    switch (l->kind) {
    case LAYOUT_ACC:
        fprintf(o, " layout=acc(warps %dx%d, tile %lldx%lld, m16 x%d, n8 x%d)", l->wm, l->wn, (long long)l->wtm,
                (long long)l->wtn, l->mi, l->ni);
        break;
    case LAYOUT_ROW: fprintf(o, " layout=row(warps %dx%d, rows %lld)", l->wm, l->wn, (long long)l->wtm); break;
    case LAYOUT_BLOCKED:
        fprintf(o, " layout=blocked(vec %d, chunks %lld", l->vec, (long long)l->chunks);
        if (l->pitch) fprintf(o, ", pitch %lld", (long long)l->pitch);
        fputc(')', o);
        break;
    case LAYOUT_REPLICATED: fputs(" layout=replicated", o); break;
    default: break;
    }
    if (l->kind != LAYOUT_NONE) fprintf(o, " regs=%lld", (long long)l->regs);
}

static void print_buf(FILE *o, const IrBuf *b) {
    fprintf(o, "  %s %s %s[", scope_name(b->scope), b->sym->name->s, dtype_name(b->dtype));
    for (int i = 0; i < b->rank; i++) {
        if (!buf_dim_dynamic(b, i)) fprintf(o, "%s%lld", i ? ", " : "", (long long)b->shape[i]);
        else if (b->dyn[i]->divisor > 1) fprintf(o, "%s%s %% %lld", i ? ", " : "", b->dyn[i]->name->s, (long long)b->dyn[i]->divisor);
        else fprintf(o, "%s%s", i ? ", " : "", b->dyn[i]->name->s);
    }
    fputc(']', o);
    if (b->scope == SCOPE_GLOBAL) fputs(b->mode == MODE_IN ? " in" : b->mode == MODE_OUT ? " out" : " inout", o);
    if (b->scope == SCOPE_SHARED) {
        fprintf(o, " stages=%d", b->stages);
        if (b->swizzle_chunks && !b->tma_layout) fprintf(o, " swizzle=xor%d", b->swizzle_chunks);
        if (b->tma_layout) fprintf(o, " tma_layout%s", b->consumer_written ? " consumer_written" : "");
        if (b->stage_bytes) fprintf(o, " offset=%lld bytes=%lld", (long long)b->smem_offset, (long long)(b->stage_bytes * b->stages));
    }
    print_layout(o, &b->layout);
    fputc('\n', o);
}

static void print_region(FILE *o, const IrRegion *r) {
    fprintf(o, "%s[", r->buf->sym->name->s);
    for (int d = 0; d < r->buf->rank; d++) {
        if (d) fputs(", ", o);
        if (d == 0 && r->gather) fprintf(o, "gather %s", r->gather->sym->name->s);
        else if (r->idx[d]) expr_print(o, r->idx[d]);
        else fputc('0', o);
        fprintf(o, " +%lld", (long long)r->ext[d]);
    }
    fputc(']', o);
}

static void indent(FILE *o, int d) {
    for (int i = 0; i < d; i++) fputs("  ", o);
}

static void print_block(FILE *o, const IrBlock *b, int d);

static void print_stmt(FILE *o, const IrStmt *s, int d) {
    indent(o, d);
    if (s->sync_before) fputs("sync_threads; ", o);
    static const char *const reduce[] = {"sum", "max", "min", "absmax"};
    static const char *const policy[] = {"square", "full_row", "full_col"};
    static const char *const mech[] = {"sync", "cp.async", "tma", "ring cp.async", "ring indices", "tma store"};
    static const char *const loops[] = {"range", "pipelined", "parallel", "unroll"};
    switch (s->op) {
    case IR_COPY:
        fputs("copy ", o);
        print_region(o, &s->src);
        fputs(" -> ", o);
        print_region(o, &s->dst);
        if (s->pipeline) {
            fprintf(o, " [producer, %s%s", mech[s->mech], s->multicast ? ", multicast" : "");
            fputc(']', o);
        }
        if (s->mech == COPY_TMA_STORE || s->mech == COPY_RING_INDEX) fprintf(o, " [%s]", mech[s->mech]);
        break;
    case IR_GEMM:
        fputs("gemm ", o);
        print_region(o, &s->a);
        fputs(s->trans_a ? "^T, " : ", ", o);
        print_region(o, &s->b);
        fputs(s->trans_b ? "^T += " : " += ", o);
        print_region(o, &s->c);
        fprintf(o, " policy=%s%s%s", policy[s->policy], s->clear ? " clear" : "", s->wgmma ? " [wgmma]" : "");
        break;
    case IR_FILL:
        fputs("fill ", o);
        print_region(o, &s->dst);
        fputs(" = ", o);
        if (s->value) expr_print(o, s->value);
        else fputc('0', o);
        break;
    case IR_REDUCE:
        fprintf(o, "reduce_%s ", reduce[s->reduce_kind]);
        print_region(o, &s->src);
        fprintf(o, " dim=%d -> ", s->dim);
        print_region(o, &s->dst);
        if (!s->clear) fputs(" accumulate", o);
        break;
    case IR_ATOMIC: {
        static const char *const kinds[] = {"add", "max", "min", "exch", "cas"};
        if (s->sym) fprintf(o, "let %s = ", s->sym->name->s);
        fprintf(o, "atomic_%s ", kinds[s->atomic]);
        expr_print(o, s->target);
        if (s->compare) {
            fputs(" if == ", o);
            expr_print(o, s->compare);
        }
        fputs(" <- ", o);
        expr_print(o, s->value);
        break;
    }
    case IR_SCAN:
        fputs("scan ", o);
        print_region(o, &s->src);
        if (s->dst.buf) {
            fputs(" -> ", o);
            print_region(o, &s->dst);
        }
        fprintf(o, " dim=%d%s%s%s", s->dim, s->reverse ? " reverse" : "", s->exclusive ? " exclusive" : "",
                s->dst.buf ? " [in registers]" : "");
        break;
    case IR_ATOMIC_ADD:
        fputs("atomic_add ", o);
        print_region(o, &s->dst);
        fputs(" += ", o);
        if (s->value) expr_print(o, s->value);
        else print_region(o, &s->src);
        if (s->mech == COPY_TMA_STORE) fputs(" [tma reduction]", o);
        break;
    case IR_FOR:
        fprintf(o, "for %s in %s(", s->sym->name->s, loops[s->loop]);
        if (s->lo) { expr_print(o, s->lo); fputs(", ", o); }
        expr_print(o, s->hi);
        if (s->step) { fputs(", ", o); expr_print(o, s->step); }
        if (s->loop == LOOP_PIPELINED) fprintf(o, ", stages=%d", s->stages);
        fputs(")\n", o);
        print_block(o, &s->body, d + 1);
        return;
    case IR_PARALLEL:
        fputs("parallel (", o);
        for (int i = 0; i < s->nvars; i++) fprintf(o, "%s%s", i ? ", " : "", s->vars[i]->name->s);
        fputs(") in (", o);
        for (int i = 0; i < s->nvars; i++) fprintf(o, "%s%lld", i ? ", " : "", (long long)s->extents[i]);
        fprintf(o, ") driver=%s\n", s->driver ? s->driver->sym->name->s : "none");
        print_block(o, &s->body, d + 1);
        return;
    case IR_IF:
        if (s->value) {
            fputs("if ", o);
            expr_print(o, s->value);
        } else {
            fputs("scope", o);
        }
        fputc('\n', o);
        print_block(o, &s->body, d + 1);
        if (s->els.len) {
            indent(o, d);
            fputs("else\n", o);
            print_block(o, &s->els, d + 1);
        }
        return;
    case IR_LET:
    case IR_VAR:
        fprintf(o, "%s %s: %s", s->op == IR_LET ? "let" : "var", s->sym->name->s, dtype_name(s->sym->dtype));
        if (s->value) {
            fputs(" = ", o);
            expr_print(o, s->value);
        }
        break;
    case IR_STORE:
        expr_print(o, s->target);
        fprintf(o, " %s ", op_spelling(s->assign_op));
        expr_print(o, s->value);
        break;
    case IR_SYNC: fputs("sync_threads", o); break;
    case IR_PRINT: fprintf(o, "print (%d arguments)", s->print_args.len); break;
    default: break;
    }
    fputc('\n', o);
}

static void print_block(FILE *o, const IrBlock *b, int d) {
    for (int i = 0; i < b->len; i++) print_stmt(o, b->items[i], d);
}

void ir_print(FILE *o, const IrKernel *k) {
    fprintf(o, "kernel %s grid(", k->info->name->s);
    for (int d = 0; d < 3; d++) {
        if (d) fputs(", ", o);
        if (k->grid[d] >= 0) fprintf(o, "%lld", (long long)k->grid[d]);
        else expr_print(o, k->info->grid_expr[d]);
    }
    fprintf(o, ") threads %lld", (long long)k->threads);
    if (k->producer_threads) fprintf(o, " + producer %lld", (long long)k->producer_threads);
    if (k->sched.persistent) fputs(" persistent", o);
    if (k->sched.cluster) fprintf(o, " cluster(%d along grid dimension %d)", k->sched.cluster, k->sched.cluster_dim);
    if (k->sched.split_ways) fprintf(o, " split(%d pieces a tile)", k->sched.split_ways);
    if (k->sched.split_slots)
        fprintf(o, " split(at launch, on %lld slots, at most %d pieces a %s)", (long long)k->sched.split_slots,
                k->sched.split_max, k->sched.cluster ? "pair of tiles" : "tile");
    if (k->sched.half_tiles)
        fprintf(o, " halves(from unit %lld, %lld %s in halves of their columns)", (long long)k->sched.half_from,
                (long long)k->sched.half_tiles, k->sched.cluster ? "pairs of tiles" : "tiles");
    if (k->sched.half_slots) fprintf(o, " halves(at launch, on %lld slots)", (long long)k->sched.half_slots);
    if (k->sched.idle_stores.len) fprintf(o, " idle_warpgroups(%d store%s)", k->sched.idle_stores.len, k->sched.idle_stores.len == 1 ? "" : "s");
    if (k->sched.order == ORDER_IDLE_LAST) fprintf(o, " idle_tiles_last(grid dimension %d)", k->sched.order_dim);
    if (k->sched.order == ORDER_LONGEST_FIRST)
        fprintf(o, " longest_first(grid dimension %d %s, sections of %lld)", k->sched.order_dim,
                k->sched.order_reverse ? "from its last index" : "from 0", (long long)k->sched.order_section);
    if (k->swizzle_panel) fprintf(o, " rasterize(panel %d, %s)", k->swizzle_panel, k->swizzle_col ? "col" : "row");
    if (k->smem_bytes) fprintf(o, " shared=%lld", (long long)k->smem_bytes);
    if (k->tma_stores.len) fprintf(o, " store_staging=%lld", (long long)k->store_offset);
    fputc('\n', o);
    for (int i = 0; i < k->params.len; i++) print_buf(o, k->params.items[i]);
    for (int i = 0; i < k->buffers.len; i++) print_buf(o, k->buffers.items[i]);
    print_block(o, &k->body, 1);
}
