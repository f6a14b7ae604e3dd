/* plan_schedule.c - the sm_90a path's schedule, decided in one place: how
 * the grid's tiles are dealt to blocks (IrKernel.sched).
 *
 * Every part of it reads what the passes before have planned (the loop's
 * copies and gemms, the epilogue's stores, the kernel's shared memory,
 * which fixes the blocks an SM holds) and nothing after reads anything but
 * the result; shared memory does not depend on the schedule. The parts
 * are decided in an order in which none undoes another:
 *
 *   1. persistent blocks for grids of more than one wave (below);
 *   2. split tiles (schedule_split.c) for grids of less than a wave: they
 *      rule out clusters, so come first;
 *   3. clusters of two with TMA multicast (schedule_clusters.c);
 *   4. the tile order: longest first where tiles differ in length
 *      (schedule_order.c), else the tiles with idle warpgroups last
 *      (schedule_idle.c, which also decides whether such warpgroups skip
 *      their work), else the snake;
 *   5. half tiles for a last wave filled at most half (schedule_halves.c).
 * Split and half tiles run as units of persistent blocks, so they make the
 * kernel persistent at the end; the order of step 4 is only for grids that
 * are persistent by step 1. The command line's PlanOptions can force or
 * forbid each part (tilec --help). */
#include "passes.h"

void pass_plan_schedule(IrKernel *k) {
    Schedule *s = &k->sched;
    *s = (Schedule){.order = ORDER_SNAKE, .order_dim = -1};
    if (!k->ws_loop) return;
    int at = 0;
    while (k->body.items[at] != k->ws_loop) at++;
    /* A grid of dynamic sizes has its tile count only at launch. A kernel
     * whose only global accesses are TMA loads and stores may run in
     * clusters of two (schedule_clusters), a GEMM whose tiles can run in
     * halves has its last wave halved where the run-time count leaves it
     * at most half full (schedule_halves); either makes it persistent, its
     * loop counting the run-time units; so does one whose loop is a sum
     * that may run in pieces where the run-time grid fills less than a
     * wave (schedule_split; half tiles then only where it does not).
     * Any other kernel runs each tile as a block of its own, or with
     * --persistent=on as many blocks as are resident loop over the
     * run-time tiles in the snake order. The other orders are decided
     * from the count, so they need it compiled in. */
    if (kernel_grid_dynamic(k)) {
        schedule_clusters(k, k->ws_loop, at);
        schedule_split(k, at);
        schedule_halves(k);
        s->persistent = k->plan.persistent == CHOICE_ON || s->half_slots || s->cluster || s->split_slots;
        return;
    }
    /* Persistent blocks (codegen: a tile loop per block, the producer
     * running into the next tile during the epilogue), for grids of more
     * than one wave of the target's SMs: there a block runs more than one
     * tile, and its producer loads the next tile while the consumers store
     * the last one, which a block per tile cannot overlap. From one wave or
     * less each block runs one tile and the loop only adds code
     * (docs/decisions.md, "Persistent blocks from more than one wave").
     * Preloads (attention's Q) are loaded again for each tile, once the
     * consumers are done with the last one's. */
    int64_t tiles = k->grid[0] * k->grid[1] * k->grid[2];
    s->persistent = k->plan.persistent == CHOICE_AUTO ? tiles > k->target.sms : k->plan.persistent == CHOICE_ON;
    schedule_split(k, at);
    if (!s->split_ways) schedule_clusters(k, k->ws_loop, at);
    if (s->persistent) schedule_longest_first(k);
    schedule_idle(k);
    schedule_halves(k);
    /* as persistent blocks (a split kernel's blocks each run one unit:
     * tiles * ways <= slots): a block per unit without the unit loop is
     * slower (docs/decisions.md, "Split tiles run as persistent blocks") */
    if (s->split_ways || sched_has_halves(s)) s->persistent = true;
}
