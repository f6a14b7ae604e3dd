/* infer_layout.c - decides how each fragment is spread over the threads.
 *
 * As in TileLang: operations that fix a layout come first (gemm fixes the
 * mma.sync m16n8k16 accumulator layout of C), then layouts propagate to
 * whatever touches the same buffers (fragment copies keep the layout,
 * reductions along dim 1 of an accumulator give one value per row, parallel
 * loops make every fragment they index follow the loop's driving fragment).
 * Fragments still open then get a blocked layout, and propagation resumes.
 * When two operations demand different layouts, the error names the buffer
 * and both operations. */
#include <string.h>

#include "passes.h"

typedef struct Infer {
    IrKernel *k;
    bool changed;
    bool failed;
    /* fragments replicated only because a parallel loop reads elements of
     * them other threads would hold: any other operation's layout wins
     * (and stage_elements then reads those elements through shared memory) */
    PtrVec weak;
    PtrVec copied;     /* fragments whose layout only a copy decided (Strength) */
    PtrVec replicated; /* the fragments given replicated layouts so far */
} Infer;

/* The most elements a fragment is replicated for (a register each, in
 * every thread): for a parallel loop that reads it at others' indices, or
 * as a reduction's result other than one value per accumulator row; a
 * larger one gets a layout of its own. 256 spilled (a [256] result is 256
 * registers a thread, 84 bytes of spills on sm_90a), and a replicated
 * column sum had every thread add up every column. */
enum { REPLICATE_MAX_ELEMS = 64, REPLICATE_BUDGET = 128 };

/* Whether b may be replicated: small, and the kernel's replicated
 * fragments together within REPLICATE_BUDGET registers a thread (four
 * [64] column statistics replicated took 256 and spilled). */
static int index_in(const PtrVec *v, const IrBuf *b) {
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == b) return i;
    return -1;
}

static bool may_replicate(Infer *in, const IrBuf *b) {
    if (index_in(&in->replicated, b) >= 0) return true;
    int64_t total = buf_elems(b);
    for (int i = 0; i < in->replicated.len; i++) total += buf_elems(in->replicated.items[i]);
    return buf_elems(b) <= REPLICATE_MAX_ELEMS && total <= REPLICATE_BUDGET;
}

static Layout replicated_for(Infer *in, IrBuf *b) {
    if (index_in(&in->replicated, b) < 0) vec_push(&in->k->c->arena, &in->replicated, b);
    Layout l = {.kind = LAYOUT_REPLICATED};
    l.regs = buf_elems(b);
    return l;
}

/* How firmly a fragment's layout is decided: a parallel loop's wish (a
 * small fragment replicated for reads at others' indices, or a layout
 * copied from such a wish) yields to a copy's, and a copy's to what any
 * other operation needs (a gemm, a reduction); the copy then moves the
 * elements between threads (copy_relayouts). */
typedef enum Strength { STRENGTH_WEAK, STRENGTH_COPIED, STRENGTH_STRONG } Strength;

static Strength strength_of(const Infer *in, const IrBuf *b) {
    if (index_in(&in->weak, b) >= 0) return STRENGTH_WEAK;
    if (index_in(&in->copied, b) >= 0) return STRENGTH_COPIED;
    return STRENGTH_STRONG;
}

static void drop(PtrVec *v, const IrBuf *b) {
    int i = index_in(v, b);
    if (i >= 0) v->items[i] = v->items[--v->len];
}

static void set_strength(Infer *in, IrBuf *b, Strength st) {
    drop(&in->weak, b);
    drop(&in->copied, b);
    if (st != STRENGTH_STRONG) vec_push(&in->k->c->arena, st == STRENGTH_WEAK ? &in->weak : &in->copied, b);
}

/* Whether b already has a layout other than l that an operation other
 * than a copy or a parallel loop insisted on. */
static bool settled_otherwise(const Infer *in, const IrBuf *b, const Layout *l) {
    return b->layout.kind != LAYOUT_NONE && strength_of(in, b) == STRENGTH_STRONG && !layout_equal(&b->layout, l);
}

static bool is_fragment(const IrBuf *b) { return b && b->scope == SCOPE_FRAGMENT; }

/* Gives b the layout l, decided by the operation at `at` with strength
 * st: a firmer decision replaces a weaker one, an equal layout makes the
 * decision as firm as the firmer of the two, a weaker one yields, and two
 * strong ones that differ are an error. */
static void assign_as(Infer *in, IrBuf *b, const Layout *l, Loc at, const char *op, Strength st) {
    Ctx *c = in->k->c;
    bool set = b->layout.kind != LAYOUT_NONE;
    Strength have = set ? strength_of(in, b) : STRENGTH_WEAK;
    if (set && layout_equal(&b->layout, l)) {
        if (st > have) set_strength(in, b, st);
        return;
    }
    if (!set || have < st) {
        b->layout = *l;
        b->layout.origin = at;
        in->changed = true;
        set_strength(in, b, st);
        return;
    }
    if (st != STRENGTH_STRONG || have != STRENGTH_STRONG) return;
    if (!in->failed) {
        diag_error(c, at, "no layout fits the fragment '%s': this %s needs %s", b->sym->name->s, op,
                   layout_describe(c, l));
        diag_note(c, b->layout.origin, "but this operation gave '%s' %s", b->sym->name->s,
                  layout_describe(c, &b->layout));
    }
    in->failed = true;
}

static void assign(Infer *in, IrBuf *b, const Layout *l, Loc at, const char *op) {
    assign_as(in, b, l, at, op, STRENGTH_STRONG);
}

/* The accumulator layout of an M x N fragment for a gemm with `threads`
 * threads: warps tile C in a wm x wn grid, each warp in m16 x n8 pieces. */
static bool acc_layout(Infer *in, IrStmt *g, Layout *l) {
    Ctx *c = in->k->c;
    int64_t m = g->c.ext[0], n = g->c.ext[1], threads = in->k->threads;
    int warps = (int)(threads / 32); /* whole warps: plan_warpgroups checked */
    int best_wm = acc_warp_rows(m, n, warps, g->policy);
    if (best_wm < 0) {
        const char *pol = g->policy == POLICY_FULL_ROW ? "full_row" : g->policy == POLICY_FULL_COL ? "full_col" : "square";
        diag_error(c, g->loc,
                   "gemm: the %lldx%lld accumulator '%s' cannot be split over %d warps with policy %s (each warp needs "
                   "a multiple of 16 rows and 8 columns)",
                   (long long)m, (long long)n, g->c.buf->sym->name->s, warps, pol);
        return false;
    }
    memset(l, 0, sizeof *l);
    l->kind = LAYOUT_ACC;
    l->wm = best_wm;
    l->wn = warps / best_wm;
    l->wtm = m / l->wm;
    l->wtn = n / l->wn;
    l->mi = (int)(l->wtm / 16);
    l->ni = (int)(l->wtn / 8);
    l->regs = (int64_t)l->mi * l->ni * 4;
    return true;
}

typedef struct ReduceUse {
    const IrBuf *buf;
    bool reduced;
} ReduceUse;

static void find_reduce(IrStmt *s, void *arg) {
    ReduceUse *u = arg;
    if (s->op == IR_REDUCE && s->src.buf == u->buf) u->reduced = true;
}

/* Chunks of `vec` elements dealt round-robin over the threads: up to 8
 * (16 bytes of f16, so copies from f16/bf16 tensors are 16-byte accesses;
 * wider chunks split into several vector accesses). A fragment that is
 * reduced wants the row of each register to be a compile-time constant
 * (fast row reductions): true with one row, or when every chunk lies in
 * one row: a row length that is a multiple of threads x vec, or rows
 * padded to one (a pitch, the padding's registers masked off). The widest
 * vec that fits wins, padded where the padding costs at most an eighth of
 * the row (a row of 4000 over 128 threads: vec 8, pitch 4096, where no vec
 * divides it); without one, the slower staged reduction. */
static bool blocked_layout(Infer *in, IrBuf *b, Layout *l) {
    int64_t total = buf_elems(b), cols = b->shape[b->rank - 1], rows = total / cols, t = in->k->threads;
    int vec = 8;
    while (vec > 1 && cols % vec != 0) vec /= 2;
    int64_t pitch = 0;
    ReduceUse use = {.buf = b};
    ir_walk(&in->k->body, find_reduce, &use);
    if (use.reduced && rows > 1) {
        for (int v = vec; v >= 1; v /= 2) {
            int64_t padded = (cols + t * v - 1) / (t * v) * (t * v);
            /* (a pitch only for the widest two widths: narrower accesses
             * would cost a memory-bound kernel more than the staging) */
            if (cols % v == 0 && (padded == cols || (v * 2 >= vec && padded - cols <= cols / 8))) {
                vec = v;
                pitch = padded == cols ? 0 : padded;
                break;
            }
        }
    }
    memset(l, 0, sizeof *l);
    l->kind = LAYOUT_BLOCKED;
    l->vec = vec;
    l->pitch = pitch;
    l->chunks = ((pitch ? rows * pitch : total) / vec + t - 1) / t;
    l->regs = l->chunks * vec;
    return true;
}

/* ---- parallel loops ---- */

typedef struct Access {
    IrStmt *loop;
    IrBuf *bufs[64];
    Node *nodes[64];
    int n;
} Access;

static void collect(Node *e, void *arg) {
    Access *a = arg;
    if (!e->sym || e->sym->kind != SYM_BUFFER || e->sym->scope != SCOPE_FRAGMENT || a->n == 64) return;
    a->nodes[a->n++] = e;
}

static void infer_parallel(Infer *in, IrStmt *p) {
    IrKernel *k = in->k;
    Access acc = {.loop = p};
    block_visit_indices(&p->body, collect, &acc);
    for (int i = 0; i < acc.n; i++) acc.bufs[i] = ir_buf_of(k, acc.nodes[i]->sym);
    /* The driver: a fragment indexed by all loop variables, of the loop's shape. */
    IrBuf *driver = NULL;
    for (int i = 0; i < acc.n && !driver; i++) {
        IrBuf *b = acc.bufs[i];
        if (!indexed_by_loop_vars(acc.nodes[i], p, p->nvars) || b->rank != p->nvars) continue;
        bool same = true;
        for (int d = 0; d < b->rank; d++) same &= b->shape[d] == p->extents[d];
        if (same && b->layout.kind != LAYOUT_NONE) driver = b;
    }
    p->driver = driver;
    if (!driver) {
        /* Until the driver is known, or when there is none: fragments
         * indexed by anything are readable only if replicated. */
        return;
    }
    for (int i = 0; i < acc.n; i++) {
        IrBuf *b = acc.bufs[i];
        Node *e = acc.nodes[i];
        if (b == driver) continue;
        Layout own;
        if (own_access_layout(p, b, e, &own)) {
            /* weak: another operation that needs another layout wins (a
             * row vector of one gemm's accumulator used on the rows of
             * another's, a fragment written here that a gemm reads as its
             * A), and stage_elements takes those accesses through shared
             * memory instead */
            assign_as(in, b, &own, e->loc, "parallel loop", STRENGTH_WEAK);
        } else if (b->layout.kind == LAYOUT_NONE && may_replicate(in, b)) {
            /* elements other threads would hold: every thread holds all of
             * a small fragment, unless another operation decides */
            Layout r = replicated_for(in, b);
            assign_as(in, b, &r, e->loc, "parallel loop", STRENGTH_WEAK);
        }
        /* otherwise stage_elements reads (and writes) those elements
         * through shared memory */
    }
}

/* ---- the fixpoint ---- */

static void visit(IrStmt *s, void *arg) {
    Infer *in = arg;
    switch (s->op) {
    case IR_GEMM: {
        if (!is_fragment(s->c.buf)) return;
        Layout l;
        if (!acc_layout(in, s, &l)) {
            in->failed = true;
            return;
        }
        IrBuf *C = s->c.buf;
        if (C->layout.kind == LAYOUT_ACC && settled_otherwise(in, C, &l) && !in->failed) {
            /* two gemms into one accumulator with different warp splits */
            diag_error(in->k->c, s->loc,
                       "gemms that accumulate into '%s' must split it over warps alike: this one needs %s, an earlier "
                       "operation gave it %s; give the gemms the same policy (one with A in registers takes full_row)",
                       C->sym->name->s, layout_describe(in->k->c, &l), layout_describe(in->k->c, &C->layout));
            diag_note(in->k->c, C->layout.origin, "'%s' got its layout here", C->sym->name->s);
            in->failed = true;
            return;
        }
        assign(in, C, &l, s->loc, "gemm");
        if (is_fragment(s->b.buf)) die("gemm: operand B '%s' in registers after stage_operands", s->b.buf->sym->name->s);
        if (is_fragment(s->a.buf)) {
            /* A from registers: the accumulator layout of the same rows
             * with one warp per row band doubles as the mma A operand. */
            if (l.wn != 1 || s->trans_a) /* stage_operands staged it otherwise */
                die("gemm: operand A '%s' in registers with warps across columns or transposed", s->a.buf->sym->name->s);
            Layout a = l;
            a.wtn = s->a.ext[1];
            a.ni = (int)(a.wtn / 8);
            a.regs = (int64_t)a.mi * a.ni * 4;
            assign(in, s->a.buf, &a, s->loc, "gemm (operand A)");
        }
        break;
    }
    case IR_COPY:
        if (is_fragment(s->src.buf) && is_fragment(s->dst.buf)) {
            /* from the side with a layout, the firmer one when both have */
            IrBuf *from = s->src.buf, *to = s->dst.buf;
            if (from->layout.kind == LAYOUT_NONE ||
                (to->layout.kind != LAYOUT_NONE && strength_of(in, to) > strength_of(in, from)))
                from = s->dst.buf, to = s->src.buf;
            if (from->layout.kind == LAYOUT_NONE) break;
            /* laid out otherwise by another copy or operation: the copy
             * moves the elements between threads (copy_relayouts) */
            if (to->layout.kind != LAYOUT_NONE && strength_of(in, to) != STRENGTH_WEAK &&
                !layout_equal(&to->layout, &from->layout))
                break;
            /* a layout copied from a parallel loop's wish yields as it does */
            assign_as(in, to, &from->layout, s->loc, "copy",
                      strength_of(in, from) == STRENGTH_WEAK ? STRENGTH_WEAK : STRENGTH_COPIED);
        }
        break;
    case IR_REDUCE: {
        IrBuf *src = s->src.buf, *dst = s->dst.buf;
        if (!is_fragment(src) || src->layout.kind == LAYOUT_NONE || !is_fragment(dst)) break;
        if (src->layout.kind == LAYOUT_ACC && s->dim == 1) {
            /* into a row vector another accumulator's rows laid out: the
             * staged reduction computes each thread's elements of it */
            Layout r = row_layout_of(&src->layout);
            if (!settled_otherwise(in, dst, &r)) assign(in, dst, &r, s->loc, "reduction");
        } else if (may_replicate(in, dst)) {
            Layout r = replicated_for(in, dst);
            assign(in, dst, &r, s->loc, "reduction");
        }
        /* a larger result (a column sum of a wide tile, a reduction along
         * the first of three dims) gets a layout of its own, a blocked one
         * unless another operation decides, and the reduction computes each
         * thread's elements from a shared copy of the source (lower_reduce.c) */
        break;
    }
    case IR_PARALLEL: infer_parallel(in, s); break;
    default: break;
    }
}

/* Registers are per thread: a fragment's share of them beyond what a
 * thread has (255) spills, and far beyond it NVRTC takes minutes over the
 * unrolled loops (4096 elements a thread: 242 s). A local array lives in
 * each thread's local memory, which CUDA caps at 512 KiB. */
enum { FRAGMENT_MAX_PER_THREAD = 1024, LOCAL_MAX_BYTES = 512 * 1024 };

static void check_sizes(IrKernel *k) {
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        if (b->scope == SCOPE_FRAGMENT && b->layout.regs > FRAGMENT_MAX_PER_THREAD)
            diag_error(k->c, b->loc,
                       "the fragment '%s' puts %lld elements in each thread's registers (at most %d; a thread has 255 "
                       "registers): a smaller tile or more threads",
                       b->sym->name->s, (long long)b->layout.regs, FRAGMENT_MAX_PER_THREAD);
        if (b->scope == SCOPE_LOCAL && buf_bytes(b) > LOCAL_MAX_BYTES)
            diag_error(k->c, b->loc, "the local array '%s' takes %lld bytes a thread; CUDA gives a thread at most %d",
                       b->sym->name->s, (long long)buf_bytes(b), LOCAL_MAX_BYTES);
    }
}

/* The gemms' accumulators first: their layouts are the ones the tensor
 * cores fix, so a copy met earlier in the program does not decide them. */
static void visit_gemm(IrStmt *s, void *arg) {
    if (s->op == IR_GEMM) visit(s, arg);
}

void pass_infer_layout(IrKernel *k) {
    Infer in = {.k = k};
    ir_walk(&k->body, visit_gemm, &in);
    for (int round = 0; round < 64 && !in.failed; round++) {
        do {
            in.changed = false;
            ir_walk(&k->body, visit, &in);
        } while (in.changed && !in.failed);
        if (in.failed) break;
        /* The largest open fragment gets a blocked layout; small ones
         * (reduction results) are left to propagation from it. */
        IrBuf *open = NULL;
        for (int i = 0; i < k->buffers.len; i++) {
            IrBuf *b = k->buffers.items[i];
            if (is_fragment(b) && b->layout.kind == LAYOUT_NONE && (!open || buf_elems(b) > buf_elems(open))) open = b;
        }
        if (!open) break;
        Layout l;
        if (!blocked_layout(&in, open, &l)) return;
        open->layout = l;
        open->layout.origin = open->loc;
    }
    /* Parallel loops whose drivers got their layout late: settle drivers. */
    if (!in.failed) ir_walk(&k->body, visit, &in);
    if (!in.failed) check_sizes(k);
}
