/* stage_operands.c - gemm operands that the tensor cores cannot read where
 * they are.
 *
 * The tensor cores read gemm's B operand from shared memory: ldmatrix on
 * the mma.sync path, a shared-memory descriptor on sm_90a (wgmma takes only
 * A from registers). They read A from registers only in the layout of the
 * accumulator's rows, whole rows a warp (policy full_row) and not
 * transposed. And the gemm lowerings read whole buffers. LANGUAGE.md
 * allows either operand in a fragment and any region of a buffer, so an
 * operand is staged where it has to be: a fragment B, a fragment A with
 * another policy or transpose_a or of types or shapes the tensor cores do
 * not take (8-bit, an f16 accumulator: the multiply-add fallback reads A
 * from shared memory), a fragment A copied from an accumulator
 * whose warps lie side by side (attention written with the default square
 * policy: P = S takes S's layout), and a part of a buffer as A or B. A
 * copy from a fragment into a local buffer is staged the same way: each
 * thread's local buffer gets the whole region, which the fragment spreads
 * over the threads; so is a copy between fragments where either side is a
 * part (x[0:16, 64:128] into y, y into x[0, 64]): element i of the part
 * is not in the registers that hold element i of the other fragment, so
 * the source goes to shared memory and the destination's threads take
 * their elements from there. Staging
 * copies the operand's region into a shared buffer of its own, `<X>_staged`
 * (the region's shape without leading 1s, X's type), just before each gemm
 * that reads it, and the gemm reads that instead. The copy is the one
 * `copy(region, shared)` lowers to; insert_sync puts a barrier between the
 * threads' stores and the gemm's reads, and before a later copy overwrites
 * what a gemm may still read. It costs a round trip through shared memory
 * a gemm: a kernel that can load its operands into whole shared buffers
 * directly should. On sm_90a, wgmma reads a part of a shared tile as B
 * where it lies when the part starts at a whole swizzle atom
 * (pass_wgmma_region_ok); such parts wait for plan_warpgroups, which
 * stages them only where no wgmma reads them (pass_stage_regions). (A
 * part of the accumulator C stays an error of the gemm lowering: it would
 * need copying back.) */
#include <string.h>

#include "passes.h"

typedef struct Staged {
    const IrBuf *from;
    int rank;
    int64_t shape[MAX_RANK];
    IrBuf *shared;
} Staged;

typedef struct Stager {
    IrKernel *k;
    Staged staged[16];
    int n;
    /* fragments copied from a gemm accumulator whose warps lie side by
     * side (square or full_col with warps across the columns): they get
     * its layout, which the tensor cores cannot read as A */
    PtrVec split_rows;
    /* sm_90a: a B that is a part of a shared buffer wgmma can read where it
     * lies waits for plan_warpgroups (pass_stage_regions) */
    bool defer_wgmma_regions;
} Stager;

/* The shared buffer of `rank` dims and `shape` that regions of buffer
 * `from` are staged in (made on first use). */
static IrBuf *staging_of(Stager *st, const IrBuf *from, int rank, const int64_t *shape) {
    for (int i = 0; i < st->n; i++)
        if (st->staged[i].from == from && st->staged[i].rank == rank &&
            !memcmp(st->staged[i].shape, shape, sizeof(int64_t) * (size_t)rank))
            return st->staged[i].shared;
    if (st->n == (int)(sizeof st->staged / sizeof *st->staged)) return NULL;
    IrBuf *b = ir_new_staging_buffer(st->k, from, rank, shape);
    Staged *s = &st->staged[st->n++];
    s->from = from;
    s->rank = rank;
    memcpy(s->shape, b->shape, sizeof s->shape);
    s->shared = b;
    return b;
}

/* A copy of the region *op of statement gm (a gemm's operand, a copy's
 * source) into its staging buffer, gm then reading that; NULL after an
 * error. */
static IrStmt *stage(Stager *st, IrStmt *gm, IrRegion *op) {
    int lead = 0; /* leading extents of 1 (a plain index) leave the tile */
    while (lead < op->buf->rank - 2 && op->ext[lead] == 1) lead++;
    IrBuf *sh = staging_of(st, op->buf, op->buf->rank - lead, op->ext + lead);
    if (!sh) {
        diag_error(st->k->c, gm->loc, "too many buffers to stage in shared memory (at most %d a kernel)",
                   (int)(sizeof st->staged / sizeof *st->staged));
        return NULL;
    }
    IrStmt *copy = ir_new_copy(st->k, gm->loc, *op, ir_whole_region(sh));
    *op = copy->dst;
    return copy;
}

static bool in(const IrRegion *r, MemScope scope) { return r->buf && r->buf->scope == scope; }

static bool listed(const PtrVec *v, const void *p) {
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == p) return true;
    return false;
}

/* Collects Stager.split_rows: the accumulators of gemms whose warp grid
 * has more than one column (acc_warp_rows, as infer_layout will choose),
 * then the fragments a copy fills from one of those. */
static void find_split(IrStmt *s, void *arg) {
    Stager *st = arg;
    int warps = (int)(st->k->threads / 32);
    if (s->op == IR_GEMM && in(&s->c, SCOPE_FRAGMENT) && warps > 0) {
        int wm = acc_warp_rows(s->c.ext[0], s->c.ext[1], warps, s->policy);
        if (wm > 0 && warps / wm != 1 && !listed(&st->split_rows, s->c.buf))
            vec_push(&st->k->c->arena, &st->split_rows, s->c.buf);
    }
}

static void find_split_copies(IrStmt *s, void *arg) {
    Stager *st = arg;
    if (s->op == IR_COPY && in(&s->src, SCOPE_FRAGMENT) && in(&s->dst, SCOPE_FRAGMENT) &&
        listed(&st->split_rows, s->src.buf) && !listed(&st->split_rows, s->dst.buf))
        vec_push(&st->k->c->arena, &st->split_rows, s->dst.buf);
}

/* Whether the tensor cores can multiply gemm s with its A in registers
 * (gemm_mma_ok, with the warp tile infer_layout will give the
 * accumulator, and 16-bit: an 8-bit A's k32 fragment holds four
 * neighbouring columns a thread, an accumulator's two); elsewhere A is
 * read from shared memory. */
static bool mma_from_registers(const IrKernel *k, const IrStmt *s) {
    int warps = (int)(k->threads / 32);
    int wm = warps > 0 ? acc_warp_rows(s->c.ext[0], s->c.ext[1], warps, s->policy) : -1;
    return wm > 0 && dtype_bytes(s->a.buf->dtype) == 2 && gemm_mma_ok(k->arch, s->a.buf->dtype, s->b.buf->dtype, s->c.buf->dtype, s->a.ext[s->a.buf->rank - 1],
                                 s->b.ext[s->b.buf->rank - 1], s->c.ext[0] / wm, s->c.ext[1] / (warps / wm));
}

/* Whether gemm s cannot read operand A where it is. */
static bool stage_a(const Stager *st, const IrStmt *s) {
    if (in(&s->a, SCOPE_FRAGMENT))
        return s->trans_a || s->policy != POLICY_FULL_ROW || !region_is_whole(&s->a) || listed(&st->split_rows, s->a.buf) ||
               !mma_from_registers(st->k, s);
    return in(&s->a, SCOPE_SHARED) && !region_is_whole(&s->a);
}

static bool stage_b(const Stager *st, const IrStmt *s) {
    if (in(&s->b, SCOPE_FRAGMENT)) return true;
    if (!in(&s->b, SCOPE_SHARED) || region_is_whole(&s->b)) return false;
    /* deferred: plan_warpgroups may read it where it lies; after it, a
     * wgmma does */
    return st->defer_wgmma_regions ? !pass_wgmma_region_ok(s, &s->b) : !s->wgmma;
}

static void stage_block(Stager *st, IrBlock *b) {
    IrBlock out = {0};
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        if (s->op == IR_GEMM) {
            IrRegion *ops[2] = {stage_a(st, s) ? &s->a : NULL, stage_b(st, s) ? &s->b : NULL};
            for (int o = 0; o < 2; o++) {
                IrStmt *copy = ops[o] ? stage(st, s, ops[o]) : NULL;
                if (copy) ir_block_push(st->k->c, &out, copy);
            }
        } else if (s->op == IR_COPY && in(&s->src, SCOPE_FRAGMENT) &&
                   (in(&s->dst, SCOPE_LOCAL) ||
                    (in(&s->dst, SCOPE_FRAGMENT) && (!region_is_whole(&s->src) || !region_is_whole(&s->dst))))) {
            /* every thread's local copy gets all of the region, which the
             * fragment spreads over the threads; and a part of a fragment
             * lies in other threads' registers than the elements of the
             * other fragment it pairs with: through shared memory */
            IrStmt *copy = stage(st, s, &s->src);
            if (copy) ir_block_push(st->k->c, &out, copy);
        }
        stage_block(st, &s->body);
        stage_block(st, &s->els);
        ir_block_push(st->k->c, &out, s);
    }
    *b = out;
}

static void stage_kernel(IrKernel *k, bool defer_wgmma_regions) {
    Stager st = {.k = k, .defer_wgmma_regions = defer_wgmma_regions};
    ir_walk(&k->body, find_split, &st);
    ir_walk(&k->body, find_split_copies, &st);
    stage_block(&st, &k->body);
}

void pass_stage_operands(IrKernel *k) { stage_kernel(k, k->arch == 90 && k->arch_specific); }

/* The parts of buffers pass_stage_operands deferred that no wgmma reads:
 * a second run stages nothing else (every other operand is a whole buffer
 * by then). */
void pass_stage_regions(IrKernel *k) { stage_kernel(k, false); }
