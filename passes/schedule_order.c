/* schedule_order.c - persistent blocks take the longest tiles first (the
 * sm_90a schedule, plan_schedule.c).
 *
 * A persistent block runs tiles b, b + G, ... of the grid (G blocks, the
 * order snaking back each round). Where tiles differ in length that
 * leaves some SMs with more work than others: causal attention's 192-row
 * query blocks run 2, 4, ..., 42, 43 key blocks at S = 4096, and a model of
 * that schedule (whole tiles of their trip count plus two iterations of
 * fixed cost each, 132 SMs) puts the busiest SM 3.3 % above the mean at
 * S = 4096 and 18 % above it at S = 16384 (bench/schedule_model.py; the
 * measurements: docs/decisions.md, "Causal attention's tiles longest first").
 * Taking the next tile from a counter whenever a block is free (a greedy
 * list schedule), in order of decreasing length, brings that within 1 %
 * ("longest processing time first").
 *
 * Only where the trip count of the pipelined loop varies along one grid
 * dimension d and monotonically (known at compile time for every tile:
 * after specialisation it is made of constants and block indices), the
 * kernel persistent and not clustered (a cluster's blocks must take the
 * same tiles) and without a panel order (use_swizzle has its own). Tiles
 * that differ only along d read the same loop operands (attention's K and
 * V of one head), which the order keeps in L2 by going through the other
 * dimensions' units in sections whose streamed operands fit in
 * L2_SECTION_BYTES: within a section, index G - 1 of d for each unit, then
 * G - 2, ... (FlashAttention-3's scheduler sizes its sections the same
 * way, with 32 MB). The codegen: cg_tile_loop_begin.
 *
 * --longest-first=off keeps the static order (for measuring the two apart). */
#include <stdlib.h>

#include "passes.h"

/* what one section's tiles stream through the loop, at most: well within
 * the H100 / H200's 50 MB of L2 */
#define L2_SECTION_BYTES (32ll << 20)
/* the most tiles whose trip counts are evaluated at compile time */
enum { MAX_EVALUATED_TILES = 1 << 20 };

/* The trip count of tile `at`; false where it cannot be known. */
static bool trips_at(const IrKernel *k, const int64_t *at, int64_t *trips) {
    return int_eval(k, k->ws_loop->hi, at, true, trips);
}

/* The dimension along which the trip count varies, the only one (-1 where
 * none or several do, or where it cannot be told); *grows where it is
 * nondecreasing along it, else nonincreasing; *most the largest. */
static int varying_dim(const IrKernel *k, bool *grows, int64_t *most) {
    int64_t origin[3] = {0, 0, 0}, base, t;
    if (!trips_at(k, origin, &base)) return -1;
    int dim = -1;
    bool up = false, down = false;
    *most = base;
    for (int d = 0; d < 3; d++) {
        int64_t prev = base, at[3] = {0, 0, 0};
        for (at[d] = 1; at[d] < k->grid[d]; at[d]++) {
            if (!trips_at(k, at, &t)) return -1;
            if (t == prev) continue;
            if (dim >= 0 && dim != d) return -1;
            dim = d;
            up |= t > prev;
            down |= t < prev;
            prev = t;
            if (t > *most) *most = t;
        }
    }
    if (dim < 0 || (up && down)) return -1;
    *grows = up;
    return dim;
}

/* Whether every tile's trip count is the one of its index along dim
 * (not, say, also of the head for some heads). */
static bool only_along(const IrKernel *k, int dim) {
    int64_t *along = malloc(sizeof(int64_t) * (size_t)k->grid[dim]), at[3] = {0, 0, 0}, t;
    bool ok = along != NULL;
    for (at[dim] = 0; ok && at[dim] < k->grid[dim]; at[dim]++) ok = trips_at(k, at, &along[at[dim]]);
    for (at[2] = 0; ok && at[2] < k->grid[2]; at[2]++)
        for (at[1] = 0; ok && at[1] < k->grid[1]; at[1]++)
            for (at[0] = 0; ok && at[0] < k->grid[0]; at[0]++) ok = trips_at(k, at, &t) && t == along[at[dim]];
    free(along);
    return ok;
}

void schedule_longest_first(IrKernel *k) {
    /* (the order's counter is drawn by the producer's one thread: a
     * producer whose every thread issues cp.asyncs has no such thread) */
    if (k->sched.cluster || k->swizzle_panel || k->plan.longest_first == CHOICE_OFF || k->ring_async_copies.len ||
        k->grid[0] * k->grid[1] * k->grid[2] > MAX_EVALUATED_TILES)
        return;
    bool grows;
    int64_t most;
    int d = varying_dim(k, &grows, &most);
    if (d < 0 || !only_along(k, d)) return;
    /* the bytes an iteration streams: every loop copy (an upper bound for
     * what the tiles along d share, where some of them move with d) */
    int64_t per_iteration = 0;
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if (c->pipeline) per_iteration += buf_bytes(c->dst.buf);
    }
    int64_t units = k->grid[0] * k->grid[1] * k->grid[2] / k->grid[d];
    int64_t unit_bytes = most * per_iteration;
    int64_t section = unit_bytes > 0 ? L2_SECTION_BYTES / unit_bytes : units;
    k->sched.order = ORDER_LONGEST_FIRST;
    k->sched.order_dim = d;
    k->sched.order_reverse = grows;
    k->sched.order_section = section < 1 ? 1 : section > units ? units : section;
}
