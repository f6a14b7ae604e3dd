/* schedule_halves.c - a GEMM's last wave, filled at most half, in halves
 * of its tiles' columns (the sm_90a schedule, plan_schedule.c).
 *
 * A grid of T tiles on S block slots (the SMs times the blocks each holds) runs ceil(T / S) waves of
 * whole tiles; where the last one is filled at most half, its tiles can
 * run as two units each, every unit a tile's A rows times half of its B
 * columns: wgmma's n is N/2, the producer loads half of B's column blocks,
 * the epilogue stores half of C's. That last wave then takes half the time
 * and nothing has to be added up (unlike schedule_split's pieces along K). The
 * ragged 3000 x 2000 x 1000 GEMM in 128 x 256 tiles: 192 tiles (96 pairs
 * in clusters of two on 66 clusters), whose second wave of 30 pairs
 * becomes 60 half pairs: at 1.45 waves of whole tiles over a quarter of the
 * SMs' time is idle (docs/decisions.md, "Half tiles for a last wave filled
 * at most half"). Grids of less
 * than half a wave that schedule_split did not cut along K (short loops) run
 * every tile in halves.
 *
 * Sound where each half computes exactly its columns and nothing else
 * needs the others: the loop only loads tiles (TMA) and accumulates one
 * gemm, its B N-major in shared memory, into an f32 fragment in the wgmma
 * layout that is only cleared before the loop; after the loop there is
 * just the accumulator's TMA store (plan_store). Half of the column blocks
 * of B's tile and of C's staging tile must be whole swizzle spans. Not
 * with split tiles, the longest-first order or preloads; fp8 and
 * integer gemms keep whole tiles. --halves=off keeps every tile whole, and
 * so does --persistent=off (a half unit is a persistent block's).
 *
 * A grid of dynamic sizes has its tile count only at launch: there the
 * kernel is persistent wherever its gemm can be halved, and the kernel and
 * the launch both count the units from the run-time tiles
 * (Schedule.half_slots, rt_half_units); its halves variant
 * (VARIANT_HALVES, Schedule.half_all), taken where the grid fills at most
 * half a wave, runs every tile in halves and carries no whole-tile code.
 * Its split variant splits instead (schedule_split). */

#include "launch_shape.h"
#include "passes.h"

/* The loop's one gemm, or NULL where the loop does more than load tiles
 * and accumulate one gemm whose columns can be halved. */
static IrStmt *halvable_gemm(const IrKernel *k) {
    const IrStmt *loop = k->ws_loop;
    IrStmt *gemm = NULL;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op == IR_LET || (s->op == IR_COPY && copy_by_producer(s) && s->pipeline == loop)) continue;
        if (s->op != IR_GEMM || gemm) return NULL;
        gemm = s;
    }
    if (!gemm || !gemm->wgmma || gemm->clear || gemm->trans_b || gemm->a.buf->scope != SCOPE_SHARED ||
        !region_is_whole(&gemm->b))
        return NULL;
    const IrBuf *c = gemm->c.buf, *b = gemm->b.buf;
    /* f16 / bf16 operands: the 8-bit gemms promote their sums (codegen) */
    if (dtype_bytes(gemm->a.buf->dtype) != 2 || c->dtype != DT_F32 || c->scope != SCOPE_FRAGMENT ||
        !region_is_whole(&gemm->c) || c->rank != 2 || c->layout.kind != LAYOUT_ACC || c->layout.wn != 1 ||
        c->layout.mi != 1)
        return NULL;
    /* wgmma's n: a multiple of 8 */
    int64_t n = c->shape[1], cols = pass_swizzle_cols(b->shape[1], dtype_bytes(b->dtype));
    if (n % 16 || b->shape[1] != n || !cols || n / cols % 2) return NULL;
    return gemm;
}

/* Whether the loop's copies load B's tile once and everything else once,
 * with no preloads. */
static bool one_copy_of_b(const IrKernel *k, const IrBuf *b) {
    int copies = 0;
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if (c->pipeline != k->ws_loop) return false;
        copies += c->dst.buf == b;
    }
    return copies == 1;
}

/* Whether the kernel's body is: statements that clear `acc` or do not
 * touch it, the loop, then only acc's TMA store, whose halves of the
 * staging tile are whole column blocks. */
static bool only_stored_after(IrKernel *k, const IrBuf *acc) {
    int at = 0;
    while (at < k->body.len && k->body.items[at] != k->ws_loop) at++;
    if (at + 2 != k->body.len || k->tma_stores.len != 1) return false;
    const IrStmt *st = k->body.items[at + 1];
    if (st != k->tma_stores.items[0] || st->src.buf != acc) return false;
    int64_t cols = pass_swizzle_cols(acc->shape[1], dtype_bytes(st->dst.buf->dtype));
    if (!cols || acc->shape[1] / cols % 2) return false;
    bool cleared = false;
    for (int i = 0; i < at; i++) {
        const IrStmt *s = k->body.items[i];
        IrBlock one = {.items = &k->body.items[i], .len = 1};
        if (pass_clears(s, acc)) cleared = true;
        else if (buf_use_count(&one, acc)) return false;
    }
    return cleared;
}

void schedule_halves(IrKernel *k) {
    if (k->plan.halves == CHOICE_OFF || k->plan.persistent == CHOICE_OFF || sched_has_split(&k->sched) ||
        k->sched.order == ORDER_LONGEST_FIRST || k->scratch_bytes)
        return;
    IrStmt *gemm = halvable_gemm(k);
    if (!gemm || !one_copy_of_b(k, gemm->b.buf) || !only_stored_after(k, gemm->c.buf)) return;
    /* in clusters of two a unit is a pair of tiles, both halved alike */
    int64_t per_unit = k->sched.cluster ? 2 : 1;
    int64_t slots = pass_hopper_slots(k, gemm->c.buf->layout.regs) / per_unit;
    /* a grid of dynamic sizes: the kernel and the launch count the units
     * from the run-time tiles, the same way; its halves variant runs every
     * tile in halves (2T units) */
    if (kernel_grid_dynamic(k)) {
        k->sched.half_slots = slots;
        k->sched.half_all = k->plan.variant == VARIANT_HALVES;
        return;
    }
    int64_t units = k->grid[0] * k->grid[1] * k->grid[2] / per_unit;
    if (rt_half_units(units, slots) == units) return;
    k->sched.half_from = units / slots * slots;
    k->sched.half_tiles = units - k->sched.half_from;
}
