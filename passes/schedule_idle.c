/* schedule_idle.c - consumer warpgroups with nothing to store (the sm_90a
 * schedule, plan_schedule.c).
 *
 * A tile at the grid's ragged edge can hold fewer rows than its consumer
 * warpgroups compute: attention at S = 4096 with 192-row query tiles has a
 * last query block of 64 rows, so two of its three warpgroups compute rows
 * that are never stored, and that tile, one in 22, costs as much as a full
 * one, so S = 4096 takes as long as S = 4224 (docs/decisions.md, "Idle
 * warpgroups skip their tiles, which persistent blocks take last").
 *
 * On this path warpgroup g holds rows 64g..64g+63 of every fragment in the
 * wgmma accumulator layout, and what one warpgroup computes reaches the
 * others only through memory: shared or global writes, and the barriers
 * that order them. So where the consumers write no shared memory (their
 * own staging tiles for TMA stores aside), meet at no block-wide barrier,
 * print nothing and write global memory only by storing whole
 * accumulator-layout fragments at rows start + r (rows past the tensor's
 * edge are not written), a warpgroup whose first row lies past the edge of
 * every such store computes nothing anybody sees. It then only keeps the
 * pipeline going: it waits for each slot and frees it, as the producer's
 * ring needs (codegen: cg_hopper_idle_begin). Schedule.idle_stores lists
 * the stores; codegen builds the run-time test from their row starts.
 *
 * Only where every tile runs the same number of iterations (so that the
 * tiles with idle warpgroups are the cheap ones); persistent blocks then
 * take those tiles last (ORDER_IDLE_LAST), so that they even out
 * the last round instead of lengthening it: the skip alone leaves the
 * busiest SM as many tiles as before (attention at S = 4096: 22), with
 * the order it runs the work of about 21.2 full ones (docs/decisions.md,
 * "Idle warpgroups skip their tiles, which persistent blocks take last").
 *
 * A row start made of block indices and constants only, not through the
 * lets before the loop: codegen's test comes before the tile's code, where
 * those are declared (int_eval without lets).
 *
 * --idle-warpgroups=off turns this off, =skip keeps the tile order (for
 * measuring the two apart). */
#include <stdint.h>

#include "passes.h"

/* the rows of one consumer warpgroup: one m64 wgmma */
enum { WARPGROUP_ROWS = 64 };

/* Whether fragment f is in the wgmma accumulator layout, or one value per
 * row of it: warp w of the consumers holds rows 16w..16w+15. */
static bool rows_by_warp(const IrKernel *k, const IrBuf *f) {
    const Layout *l = &f->layout;
    return (l->kind == LAYOUT_ACC || l->kind == LAYOUT_ROW) && l->wn == 1 && l->mi == 1 && l->wtm == 16 &&
           f->shape[0] == k->threads / 32 * 16;
}

/* The tensor dimension a direct store of fragment f into region r puts
 * the fragment's rows along, or -1. */
static int row_dim(const IrBuf *f, const IrRegion *r) { return region_lead(r, f->rank, f->shape); }

typedef struct Scan {
    IrKernel *k;
    PtrVec *stores;   /* the whole-fragment stores to global memory, or NULL */
    const char *why;  /* why not, or NULL */
} Scan;

static bool in_memory(const IrBuf *b) { return b->scope == SCOPE_SHARED || b->scope == SCOPE_GLOBAL; }

/* Every consumer statement: what it writes, and whether all warpgroups must meet there. */
static void scan_stmt(IrStmt *s, void *arg) {
    Scan *sc = arg;
    IrKernel *k = sc->k;
    if (sc->why) return;
    if (s->sync_before || s->op == IR_SYNC) {
        sc->why = "the consumers meet at a block-wide barrier";
        return;
    }
    switch (s->op) {
    case IR_PRINT: sc->why = "a print"; return;
    case IR_ATOMIC_ADD: sc->why = "an atomic"; return;
    case IR_SCAN: sc->why = "a cumsum"; return;
    case IR_ATOMIC: sc->why = "an atomic"; return;
    case IR_STORE:
        if (s->target->kind == N_INDEX && s->target->sym->kind == SYM_TENSOR) sc->why = "an element stored to a tensor";
        else if (s->target->kind == N_INDEX && s->target->sym->kind == SYM_BUFFER &&
                 in_memory(ir_buf_of(k, s->target->sym)))
            sc->why = "an element stored to shared memory";
        return;
    case IR_FILL:
    case IR_REDUCE:
        if (in_memory(s->dst.buf)) sc->why = "a fill or reduction into shared or global memory";
        return;
    case IR_GEMM:
        if (s->c.buf->scope != SCOPE_FRAGMENT) sc->why = "a gemm into memory";
        return;
    case IR_COPY:
        if (copy_by_producer(s)) return; /* the producer's */
        if (s->dst.buf->scope == SCOPE_SHARED) {
            sc->why = "the consumers copy into shared memory";
        } else if (s->dst.buf->scope == SCOPE_GLOBAL) {
            const IrBuf *f = s->src.buf;
            if (f->scope != SCOPE_FRAGMENT || !rows_by_warp(k, f) || !region_is_whole(&s->src) || row_dim(f, &s->dst) < 0)
                sc->why = "a store to global memory that is not a whole accumulator-layout fragment";
            else if (sc->stores && buf_dim_dynamic(s->dst.buf, row_dim(f, &s->dst)))
                sc->why = "a store along a dynamic size (its edge is known only at launch)";
            else if (sc->stores)
                vec_push(&k->c->arena, sc->stores, s);
        }
        return;
    default: return;
    }
}

const char *pass_warpgroups_apart(IrKernel *k, PtrVec *stores) {
    Scan sc = {.k = k, .stores = stores};
    ir_walk(&k->body, scan_stmt, &sc);
    return sc.why;
}

/* The store's first row along its row dimension, and that dimension's extent. */
static const Node *store_start(const IrStmt *s, int64_t *extent) {
    int d = row_dim(s->src.buf, &s->dst);
    *extent = s->dst.buf->shape[d];
    return s->dst.idx[d];
}

/* Whether, with the block indices at `at`, warpgroup W - 1 (the last) is idle. */
static bool last_idle_at(const IrKernel *k, const int64_t *at) {
    int64_t W = k->threads / 128;
    for (int i = 0; i < k->sched.idle_stores.len; i++) {
        int64_t extent, start;
        const Node *e = store_start(k->sched.idle_stores.items[i], &extent);
        if (!int_eval(k, e, at, false, &start) || start > INT64_MAX / 2 || start + (W - 1) * WARPGROUP_ROWS < extent) return false;
    }
    return true;
}

/* The grid dimension whose last tiles, and only those, have an idle
 * warpgroup, with every store's start a function of that block index
 * alone; -1 if none is. */
static int idle_dim(const IrKernel *k) {
    int dim = -1;
    for (int i = 0; i < k->sched.idle_stores.len; i++) {
        int64_t extent, base;
        const Node *e = store_start(k->sched.idle_stores.items[i], &extent);
        const int64_t origin[3] = {0, 0, 0};
        if (!int_eval(k, e, origin, false, &base)) return -1;
        int only = -1;
        for (int d = 0; d < k->info->block_idx.len; d++) {
            int64_t at[3] = {0, 0, 0}, moved;
            at[d] = 1;
            if (!int_eval(k, e, at, false, &moved)) return -1;
            if (moved == base) continue;
            if (only >= 0) return -1;
            only = d;
        }
        if (only < 0 || (dim >= 0 && only != dim)) return -1;
        dim = only;
    }
    if (dim < 0 || k->grid[dim] < 2) return -1;
    int64_t last[3] = {0, 0, 0}, before[3] = {0, 0, 0};
    last[dim] = k->grid[dim] - 1;
    before[dim] = k->grid[dim] - 2;
    return last_idle_at(k, last) && !last_idle_at(k, before) ? dim : -1;
}

void schedule_idle(IrKernel *k) {
    if (k->scratch_bytes || k->plan.idle == IDLE_OFF) return;
    const char *why = pass_warpgroups_apart(k, &k->sched.idle_stores);
    /* Only where some tile has an idle warpgroup (the test would cost
     * nothing elsewhere, but changes the code ptxas schedules): the last
     * one along every grid dimension, whose rows start furthest for affine
     * starts. And only where every tile runs the same number of
     * iterations, so that the tiles with idle warpgroups are the cheap
     * ones: causal attention's are its longest, and there the skip is
     * slower (docs/decisions.md, "Idle warpgroups skip their tiles, which
     * persistent blocks take last"). */
    int64_t corner[3] = {k->grid[0] - 1, k->grid[1] - 1, k->grid[2] - 1}, trips;
    if (why || !k->sched.idle_stores.len || !last_idle_at(k, corner) || !int_eval(k, k->ws_loop->hi, NULL, false, &trips)) {
        k->sched.idle_stores.len = 0;
        return;
    }
    if (k->plan.idle == IDLE_SKIP || !k->sched.persistent || k->sched.cluster || k->swizzle_panel ||
        k->sched.order != ORDER_SNAKE)
        return;
    int d = idle_dim(k);
    if (d < 0) return;
    k->sched.order = ORDER_IDLE_LAST;
    k->sched.order_dim = d;
}
