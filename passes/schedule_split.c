/* schedule_split.c - a grid of less than a wave of tiles, in pieces along
 * the loop (the sm_90a schedule, plan_schedule.c; cuBLAS's split-K).
 *
 * A grid of fewer tiles than the GPU has block slots (SMs times the blocks
 * an SM holds) leaves SMs idle for the whole kernel: 1024 x 1024 x 8192 in
 * 128 x 256 tiles is 32 tiles on the H200's 132 SMs, each 128 iterations
 * long. Here every tile runs as `ways` pieces (tiles * ways <= slots), each
 * a contiguous share of the loop's iterations, on as many blocks.
 *
 * The pieces' sums meet in global memory, pairwise (codegen's
 * cg_split_sum): each consumer warpgroup writes its accumulator registers
 * there (its own rows of the tile) and counts its arrival; the second of a
 * pair to arrive adds the other's sums and goes on, until one holds the
 * tile's sum and runs the epilogue. Each add is of the same two values
 * whoever does it, so runs stay bitwise equal; nobody waits for anybody,
 * so no co-residency is assumed.
 *
 * Sound where that sum is the loop's result: the loop only loads tiles
 * (TMA) and accumulates gemms into f32 fragments that start cleared
 * before it, every tile runs the same iterations, and after the loop each
 * warpgroup's work reaches others only through its stores to global
 * memory (pass_warpgroups_apart), so a warpgroup may stop on its own.
 * Decided before clusters, which it rules out (the pair's multicast loads
 * assume the same iterations): not where --clusters=on asks for them, nor
 * with preloads, nor where --persistent forces the choice. A grid of
 * dynamic sizes decides at launch, after clusters, splitting a cluster's
 * pair of tiles alike (schedule_split_dynamic).
 * --split=N allows at most N pieces a tile (--split=off: none; for
 * measuring). */
#include <stdint.h>

#include "launch_shape.h"
#include "passes.h"

/* (rt_split_ways: a piece of fewer iterations than RT_SPLIT_MIN_TRIPS is
 * too much pipeline fill, epilogue and partial sums for what the idle SMs
 * gain; 32 tiles of 16 iterations are slower in 2 pieces than whole:
 * docs/decisions.md, "Split tiles only for grids of less than a wave") */
/* what the partial sums may take in global memory */
static const int64_t MAX_PARTIAL_BYTES = 64ll << 20;

/* Why the loop's sum cannot be cut into pieces, or NULL; *acc_regs: the
 * registers a thread holds of its accumulator. One accumulator only: the
 * code generator's partial sums are of one (a dual GEMM, two, has not run
 * split on the GPU). */
static const char *loop_is_a_sum(IrKernel *k, int at, int64_t *acc_regs) {
    IrStmt *loop = k->ws_loop;
    const IrBuf *acc = NULL;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op == IR_LET || (s->op == IR_COPY && copy_by_producer(s) && s->pipeline == loop)) continue;
        if (s->op != IR_GEMM || !s->wgmma || s->clear) return "the loop does more than load tiles and accumulate gemms";
        const IrBuf *c = s->c.buf;
        /* (codegen moves a thread's registers four at a time) */
        if (c->scope != SCOPE_FRAGMENT || c->dtype != DT_F32 || !region_is_whole(&s->c) || c->layout.regs % 4)
            return "a gemm does not accumulate a whole f32 fragment";
        if (acc && acc != c) return "more than one accumulator";
        acc = c;
    }
    if (!acc) return "no gemm in the loop";
    bool cleared = false;
    IrBlock before = {.items = k->body.items, .len = at};
    for (int i = 0; i < at; i++) cleared |= pass_clears(k->body.items[i], acc);
    if (!cleared || buf_use_count(&before, acc) != 1) return "the accumulator is not just cleared before the loop";
    *acc_regs = acc->layout.regs;
    return NULL;
}

/* The blocks an SM holds at once: one where the consumers take most of
 * the register file (a large accumulator: codegen's setmaxnreg), else as
 * shared memory and threads allow, with a rough register count. */
static int64_t blocks_per_sm(const IrKernel *k, int64_t acc_regs) {
    int64_t threads = k->threads + k->producer_threads;
    if (acc_regs >= 96) return 1;
    const Target *t = &k->target;
    int64_t by_smem = t->smem_per_sm / (k->smem_bytes + 1024); /* 1 KiB of each block's is the system's */
    int64_t by_regs = t->regs_per_sm / (threads * (acc_regs + 64));
    int64_t by_threads = t->threads_per_sm / threads, n = by_smem;
    if (by_regs < n) n = by_regs;
    if (by_threads < n) n = by_threads;
    return n < 1 ? 1 : n;
}

/* On a GPU with fewer SMs than the target says the split still computes
 * the same sums; the persistent blocks then only run more units each. */
int64_t pass_hopper_slots(const IrKernel *k, int64_t acc_regs) { return k->target.sms * blocks_per_sm(k, acc_regs); }

/* Whether the loop's iterations can be cut into pieces whose sums add up
 * to its result (above), and of the partial sums' size *acc_regs. */
static bool splittable(IrKernel *k, int at, int64_t *acc_regs) {
    IrStmt *loop = k->ws_loop;
    if (k->plan.split_max < 2 || k->plan.persistent == CHOICE_OFF || k->scratch_bytes || loop->lo || loop->step) return false;
    for (int i = 0; i < k->tma_copies.len; i++)
        if (((const IrStmt *)k->tma_copies.items[i])->pipeline != loop) return false; /* preloads */
    return !loop_is_a_sum(k, at, acc_regs) && !pass_warpgroups_apart(k, NULL);
}

/* A grid of dynamic sizes has its tile count and trip count only at
 * launch: its split variant (VARIANT_SPLIT, taken by launches that split:
 * rt_variant_fits) and the launch both decide there (rt_split_ways),
 * from the slots a wave has for the loop's units. The partial sums are
 * sized for a wave of units (tiles * ways <= slots, a unit of a cluster
 * two tiles on two slots), so they fit in global memory whatever the
 * sizes. In clusters of two, both blocks of a cluster run the same piece
 * of their tiles (their multicast loads are of the same iterations). */
static void schedule_split_dynamic(IrKernel *k, int at) {
    int64_t acc_regs, n;
    RtGridExpr trips;
    if (k->plan.variant != VARIANT_SPLIT || !splittable(k, at, &acc_regs) ||
        !ir_host_program(k->ws_loop->hi, &k->info->dynamic, &trips))
        return;
    /* a trip count compiled in that is too short for two pieces */
    if (int_eval(k, k->ws_loop->hi, NULL, false, &n) && n / RT_SPLIT_MIN_TRIPS < 2) return;
    int64_t slots = pass_hopper_slots(k, acc_regs);
    if (slots * k->threads * acc_regs * 4 > MAX_PARTIAL_BYTES) return;
    k->sched.split_slots = slots / (k->sched.cluster ? 2 : 1);
    k->sched.split_max = k->plan.split_max > PLAN_SPLIT_MAX ? PLAN_SPLIT_MAX : k->plan.split_max;
    k->sched.split_trips = trips;
}

void schedule_split(IrKernel *k, int at) {
    if (kernel_grid_dynamic(k)) {
        schedule_split_dynamic(k, at);
        return;
    }
    int64_t most = k->plan.split_max;
    IrStmt *loop = k->ws_loop;
    if (k->plan.clusters == CHOICE_ON || k->plan.persistent != CHOICE_AUTO || k->sched.persistent) return;
    int64_t acc_regs, trips;
    if (!splittable(k, at, &acc_regs) || !int_eval(k, loop->hi, NULL, false, &trips)) return;
    int64_t tiles = k->grid[0] * k->grid[1] * k->grid[2], slots = pass_hopper_slots(k, acc_regs);
    /* Only grids of less than one wave, whose idle SMs the pieces put to
     * work: in a part-filled second wave (3000 x 2000 x 1000) the tiles
     * come from L2 at the rate the first wave already needs, so halving
     * the second wave's tiles halves little of its time and the partial
     * sums make it slower (docs/decisions.md, "Split tiles only for grids
     * of less than a wave"). schedule_halves
     * halves the columns of a last wave's tiles instead, where it is
     * filled at most half. */
    if (tiles >= slots) return;
    int64_t ways = rt_split_ways(tiles, slots, trips, most);
    while (ways >= 2 && tiles * ways * k->threads * acc_regs * 4 > MAX_PARTIAL_BYTES) ways--;
    if (ways < 2) return;
    k->sched.split_ways = (int)ways;
}
