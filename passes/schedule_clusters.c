/* schedule_clusters.c - clusters of two blocks with TMA multicast (the
 * sm_90a schedule, plan_schedule.c). */
#include "passes.h"

/* Does e differ between the two blocks of a pair along block index
 * `bidx` (2j and 2j + 1): does it depend on bidx, directly or through the
 * top-level lets before the loop (what the producer's expressions are made
 * of)? bidx / c for an even c does not (2j + 1 is never a multiple of c:
 * MLA decode's key slice spv / 2, whose two halves of the output columns
 * read the same keys). A condition known at compile time (flash
 * attention's `causal == 1 ? ...`) counts only for the branch it takes. */
typedef struct Depends {
    const IrKernel *k;
    const Sym *bidx;
    int loop_at, depth;
} Depends;

static bool depends(Depends *d, const Node *e) {
    e = expr_decided(e);
    if (!e || e->is_const) return false;
    switch (e->kind) {
    case N_NAME: {
        if (e->sym == d->bidx) return true;
        bool in_loop;
        const IrStmt *s = pass_producer_let(d->k, d->loop_at, e->sym, &in_loop);
        if (!s) return false;
        if (d->depth > 32) return true; /* too deep to tell: assume it does */
        d->depth++;
        bool dep = depends(d, s->value);
        d->depth--;
        return dep;
    }
    case N_UNARY: return depends(d, e->u.op.a);
    case N_BINARY: {
        const Node *a = expr_decided(e->u.op.a), *c = expr_decided(e->u.op.b);
        if (e->u.op.op == OP_DIV && a && a->kind == N_NAME && a->sym == d->bidx && c && c->is_const && !c->const_float &&
            c->cval.i > 0 && c->cval.i % 2 == 0)
            return false;
        return depends(d, e->u.op.a) || depends(d, e->u.op.b);
    }
    case N_COND: return depends(d, e->u.cond.c) || depends(d, e->u.cond.a) || depends(d, e->u.cond.b);
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++)
            if (depends(d, e->u.call.args.items[i])) return true;
        return false;
    case N_INDEX: /* an element loaded (a grouped GEMM's expert): where its index does */
        for (int i = 0; i < e->u.index.idx.len; i++)
            if (depends(d, e->u.index.idx.items[i])) return true;
        return false;
    default: return false;
    }
}

static bool depends_on(const IrKernel *k, int loop_at, const Sym *bidx, const Node *e) {
    Depends d = {.k = k, .bidx = bidx, .loop_at = loop_at};
    return depends(&d, e);
}

/* The bytes of the loop's TMA copies that two blocks next to each other
 * along grid dimension `dim` would both load (their corners do not depend
 * on that block index), with `mark` set: those copies multicast. A copy
 * splits into halves of its rows, one loaded by each block of the pair;
 * halves keep whole 8-row swizzle atoms (a vector, one row, is not split). */
static int64_t shared_bytes(IrKernel *k, IrStmt *loop, int loop_at, int dim, bool mark, bool *misaligned) {
    const Sym *bidx = k->info->block_idx.items[dim];
    int64_t bytes = 0;
    for (int i = 0; i < k->tma_copies.len; i++) {
        IrStmt *c = k->tma_copies.items[i];
        if (c->pipeline != loop || c->dst.buf->rank != 2 || c->dst.buf->shape[0] % 16 != 0) continue;
        bool dep = false;
        for (int d = 0; d < c->src.buf->rank; d++) dep |= depends_on(k, loop_at, bidx, c->src.idx[d]);
        if (dep) continue;
        bytes += buf_bytes(c->dst.buf);
        if (mark) c->multicast = true;
        /* a box row (one swizzle span of the tile row) straddles two
         * 128-byte lines where the tensor's row pitch is no multiple of it:
         * 2000-byte rows (K = 1000 halves) in 128-byte boxes do; 192-byte
         * rows (attention at D = 96) in 64-byte boxes do not */
        const IrBuf *src = c->src.buf, *dst = c->dst.buf;
        int64_t span = pass_swizzle_span(dst->shape[1] * dtype_bytes(dst->dtype));
        if (misaligned && !buf_row_bytes_multiple_of(src, span)) *misaligned = true;
    }
    return bytes;
}

/* Whether statement s reads or writes global memory (a tensor parameter
 * or alloc_global scratch). */
static bool touches_global(const IrKernel *k, IrStmt *s) {
    IrBlock one = {.items = &s, .len = 1};
    for (int i = 0; i < k->params.len; i++)
        if (buf_use_count(&one, k->params.items[i])) return true;
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        if (b->scope == SCOPE_GLOBAL && buf_use_count(&one, b)) return true;
    }
    return false;
}

/* Whether a tile past the grid's end is harmless: every global access of
 * the kernel is one of the loop's TMA copies (rows past a tensor's end
 * arrive as zeros) or a TMA store after the loop (clipped to the tensor).
 * Where the tile count along the cluster dimension is odd at run time, the
 * last cluster's second block runs such a tile: it still loads its half of
 * the shared tiles for its partner. */
static bool past_end_tile_harmless(IrKernel *k, const IrStmt *loop, int loop_at) {
    for (int i = 0; i < k->body.len; i++) {
        IrStmt *s = k->body.items[i];
        if (s == loop) {
            for (int j = 0; j < s->body.len; j++) {
                IrStmt *c = s->body.items[j];
                if (!(c->op == IR_COPY && c->mech == COPY_TMA && c->pipeline == loop) && touches_global(k, c)) return false;
            }
            continue;
        }
        bool tma_store = false;
        for (int j = 0; j < k->tma_stores.len; j++) tma_store |= k->tma_stores.items[j] == s;
        if (!(tma_store && i > loop_at) && touches_global(k, s)) return false;
    }
    return true;
}

/* Clusters of two blocks along the grid dimension whose neighbours share
 * the most bytes of the loop's tiles (a GEMM: the blocks of one column of
 * C share B's tile; attention: the query blocks of one head share K and V).
 * Each block loads half of every shared tile and TMA multicasts it into
 * both, halving that traffic from L2. Both blocks must run the same number
 * of iterations (each one's producer refills slots the other's consumers
 * free), and the dimension must split into pairs. Where the rows are
 * aligned the GEMM is not limited by L2, so clusters gain nothing: there
 * they are an experiment, --clusters=on (docs/decisions.md, "Clusters
 * of two only where shared rows are misaligned"). A grid of dynamic
 * sizes runs clusters as persistent blocks (plan_schedule), whose loop
 * counts the pairs; along a dimension of dynamic size, whose tile count
 * may be odd at run time, only where a tile past the end is harmless (the
 * last pair's second tile is one). */
void schedule_clusters(IrKernel *k, IrStmt *loop, int loop_at) {
    Choice choice = k->plan.clusters; /* --clusters: ON wherever they can be, OFF never */
    if (choice == CHOICE_OFF || (kernel_grid_dynamic(k) && k->plan.persistent == CHOICE_OFF)) return;
    /* asked only of a dynamic grid: a compiled one has no dimension of dynamic size */
    bool past_end_ok = kernel_grid_dynamic(k) && past_end_tile_harmless(k, loop, loop_at);
    int64_t best = 0;
    bool best_misaligned = false;
    for (int d = 0; d < k->info->block_idx.len && d < 3; d++) {
        /* a dimension of dynamic size may end in half a pair; a compiled
         * one splits into pairs or is not taken */
        if ((k->grid[d] >= 0 ? k->grid[d] % 2 != 0 : !past_end_ok) ||
            depends_on(k, loop_at, k->info->block_idx.items[d], loop->hi))
            continue;
        bool misaligned = false;
        int64_t bytes = shared_bytes(k, loop, loop_at, d, false, &misaligned);
        if (bytes > best) {
            best = bytes;
            best_misaligned = misaligned;
            k->sched.cluster_dim = d;
        }
    }
    /* By default only where a shared tile's box rows straddle 128-byte
     * lines (A's rows of K = 1000 halves: 2000 bytes): each 128-byte box row
     * takes about two more L2 requests, and multicast halves them. Aligned
     * rows, and rows in 64-byte boxes whose pitch is a multiple of 64
     * (attention at D = 96: 192-byte rows), straddle no line, and there
     * the cluster's coupled barriers cost at least what multicast saves
     * (docs/decisions.md, "Clusters of two only where shared rows are
     * misaligned"). */
    if (best == 0 || (choice == CHOICE_AUTO && !best_misaligned)) return;
    k->sched.cluster = 2;
    shared_bytes(k, loop, loop_at, k->sched.cluster_dim, true, NULL);
}
