/* lower_split.c - split tiles (schedule_split, IrKernel.split_ways): every tile
 * in pieces along the loop, a persistent block's unit each, their partial
 * sums added up pairwise in global memory (cg_split_sum). */
#include "codegen.h"

/* The loop's accumulator: every gemm's C (schedule_split allows one). */
static const IrBuf *split_acc(const IrKernel *k) { return cg_loop_gemm(k)->c.buf; }

static int64_t tiles(const IrKernel *k) { return k->grid[0] * k->grid[1] * k->grid[2]; }

int64_t cg_split_units(const IrKernel *k) { return tiles(k) * k->sched.split_ways; }

/* The levels of the pairwise sum of `ways` pieces: ceil(log2(ways)). */
static int split_levels(int ways) {
    int levels = 0;
    while ((1 << levels) < ways) levels++;
    return levels;
}

/* The device helper of split kernels only (the others' code, and so their
 * cache keys, stay as they were). */
static const char split_last_helper[] =
    "/* Split tiles (plan_split): this consumer warpgroup has written its\n"
    " * partial sums and counts itself among the `ways` warpgroups that meet at\n"
    " * `count`; true for the last to arrive (which sets the count back to 0 for\n"
    " * the next launch). Each thread fences its own writes before the\n"
    " * warpgroup's barrier, and the counting thread fences again after it sees\n"
    " * the count, before the barrier that tells the others, so that what the\n"
    " * earlier ones wrote is visible to the last one's reads (through L2:\n"
    " * __ldcg). bar.red.or hands the answer to the warpgroup's 128 threads. */\n"
    "static __device__ __forceinline__ bool tl_split_last(unsigned *count, unsigned ways, int bar)\n"
    "{\n"
    "    __threadfence();\n"
    "    asm volatile(\"bar.sync %0, 128;\\n\" ::\"r\"(bar) : \"memory\");\n"
    "    unsigned last = 0;\n"
    "    if (threadIdx.x % 128 == 0 && atomicAdd(count, 1u) == ways - 1) {\n"
    "        atomicExch(count, 0u);\n"
    "        __threadfence();\n"
    "        last = 1;\n"
    "    }\n"
    "    asm volatile(\"{\\n .reg .pred p;\\n setp.ne.u32 p, %1, 0;\\n bar.red.or.pred p, %2, 128, p;\\n selp.u32 %0, 1, 0, p;\\n}\\n\"\n"
    "                 : \"=r\"(last) : \"r\"(last), \"r\"(bar) : \"memory\");\n"
    "    return last != 0;\n"
    "}\n"
;

/* The most units (a tile's pieces) partial sums are kept for at once:
 * compiled in, or of a split decided at launch a wave's block slots (a
 * wave's units times the blocks of a cluster: tiles * ways <= slots). */
int64_t cg_split_partial_units(const IrKernel *k) {
    if (k->sched.split_ways) return cg_split_units(k);
    return k->sched.split_slots * (k->sched.cluster ? 2 : 1);
}

/* The most levels of the pairwise sum. */
int cg_split_max_levels(const IrKernel *k) {
    return split_levels(k->sched.split_ways ? k->sched.split_ways : k->sched.split_max);
}

/* File scope: the pieces' partial sums (tile, slot, warpgroup, four
 * registers, thread: a warpgroup's 128 threads write 2 KB in a row of each
 * four) and, per tile, level, pair of nodes and warpgroup, a count of the
 * nodes arrived (cg_split_sum). Uninitialised __device__ arrays take no
 * room in the cubin; the module load zeroes them, and the second node to
 * arrive sets its count back to 0. */
void cg_split_globals(const IrKernel *k, FILE *o) {
    int64_t regs = split_acc(k)->layout.regs;
    fprintf(o, "\n%s", split_last_helper);
    int64_t units = cg_split_partial_units(k);
    if (k->sched.split_ways)
        fprintf(o, "\n// split tiles: the partial sums of every tile's %d pieces, and the pieces of each tile's warpgroups\n",
                k->sched.split_ways);
    else
        fprintf(o, "\n// split tiles: the partial sums of a wave's pieces (%lld, at most %d a tile), and the pieces of each\n"
                   "// tile's warpgroups\n", (long long)units, k->sched.split_max);
    fprintf(o,
            "// that have arrived (tl_split_last)\n"
            "__device__ float4 tl_split_partials[%lld];\n"
            "__device__ unsigned tl_split_count[%lld];\n",
            (long long)(units * k->threads * regs / 4), (long long)(units * cg_split_max_levels(k) * (k->threads / 128)));
}

/* Which tile unit `unit` (a C expression: a persistent block's unit in
 * hand) is a piece of, and which piece; then the block indices of that
 * tile. */
void cg_split_unit(Cg *g, const char *unit) {
    int ways = g->k->sched.split_ways;
    cg_line(g, "const int tl_at = %s / %d, tl_piece = %s %% %d;  // split tiles: the tile, and which of its %d pieces", unit,
            ways, unit, ways, ways);
    cg_block_indices(g, "tl_at");
}

void cg_split_loop(Cg *g, const char *var, const char *n) {
    const Schedule *sc = &g->k->sched;
    const char *lo = "0", *hi = n;
    if (sched_has_split(sc)) {
        const char *ways = sc->split_ways ? arena_printf(&g->k->c->arena, "%d", sc->split_ways) : "tl_ways";
        lo = cg_tmp(g, "from");
        hi = cg_tmp(g, "to");
        cg_line(g, "const int %s = tl_piece * %s / %s, %s = (tl_piece + 1) * %s / %s;  // this piece's iterations", lo, n, ways,
                hi, n, ways);
    }
    cg_line(g, "for (int %s = %s; %s < %s; ++%s, ++tl_it) {", var, lo, var, hi, var);
}

/* One thread's registers of the accumulator, to (store) or added from
 * (load) partial-sum slot `slot` (a C expression), four at a time:
 * 16-byte accesses, a warp's 512 consecutive bytes. */
static void split_move(Cg *g, const IrBuf *acc, long long slot_stride, const char *base, const char *slot, bool store) {
    const char *q = cg_tmp(g, "q"), *w = cg_tmp(g, "w"), *a = acc->cname;
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; %s += 4) {", q, q, (long long)acc->layout.regs, q);
    g->ind++;
    const char *at = arena_printf(&g->k->c->arena, "%s + (%s) * %lld + %s / 4 * 128", base, slot, slot_stride, q);
    if (store) {
        cg_line(g, "__stcg(%s, make_float4(%s[%s], %s[%s + 1], %s[%s + 2], %s[%s + 3]));", at, a, q, a, q, a, q, a, q);
    } else {
        cg_line(g, "const float4 %s = __ldcg(%s);", w, at);
        cg_line(g, "%s[%s] += %s.x; %s[%s + 1] += %s.y; %s[%s + 2] += %s.z; %s[%s + 3] += %s.w;", a, q, w, a, q, w, a, q, w, a,
                q, w);
    }
    g->ind--;
    cg_line(g, "}");
}

/* After the consumers' loop: the pieces' sums added up pairwise, a level
 * at a time, in global memory. At level l the pieces are in nodes of 2^l
 * (node = piece >> l), each node's sum held by one of its warpgroups:
 * nodes 2m and 2m + 1 both write theirs (slot node << l, a slot the node's
 * own pieces used before) and count themselves, and the second to arrive
 * adds the other's to its registers and goes up a level; the first is
 * done (a node without a partner goes up as it is). Each sum is of the
 * same two values whoever adds it (a + b == b + a in floating point), so
 * runs stay bitwise equal; and nobody waits for anybody. (A last piece
 * adding all the others' sums at once: 3 pieces' loads of a 128-register
 * accumulator made ptxas spill 728 bytes; one slot's loads a level do
 * not.) The piece left at the top has the tile's sum and runs the
 * epilogue; the others go on to their next unit. */
static void split_sum_at_launch(Cg *g);

void cg_split_sum(Cg *g) {
    const IrKernel *k = g->k;
    if (!k->sched.split_ways) {
        split_sum_at_launch(g);
        return;
    }
    const IrBuf *acc = split_acc(k);
    int ways = k->sched.split_ways, levels = split_levels(ways);
    int64_t regs = acc->layout.regs, W = k->threads / 128;
    long long stride = (long long)(W * 32 * regs); /* a slot's float4s */
    const char *base = cg_tmp(g, "sp");
    cg_line(g, "{  // the pieces' sums meet in global memory, two at a time");
    g->ind++;
    cg_line(g, "float4 *const %s = tl_split_partials + ((long long)tl_at * %d * %lld + tl_wg) * %lld + tid %% 128;", base, ways,
            (long long)W, (long long)(32 * regs));
    for (int l = 0; l < levels; l++) {
        int nodes = (ways + (1 << l) - 1) >> l;
        const char *node = l ? arena_printf(&k->c->arena, "(tl_piece >> %d)", l) : "tl_piece";
        cg_line(g, "// level %d: %d nodes of %d piece%s", l, nodes, 1 << l, l ? "s" : "");
        if (nodes % 2) {
            cg_line(g, "if (%s != %d) {  // the last node has no partner here", node, nodes - 1);
            g->ind++;
        }
        split_move(g, acc, stride, base, l ? arena_printf(&k->c->arena, "%s << %d", node, l) : node, true);
        cg_line(g, "if (!tl_split_last(&tl_split_count[((tl_at * %d + %d) * %d + %s / 2) * %lld + tl_wg], 2, %d + tl_wg)) continue;",
                levels, l, ways, node, (long long)W, CG_BAR_WARPGROUP);
        split_move(g, acc, stride, base, arena_printf(&k->c->arena, l ? "(%s ^ 1) << %d" : "%s ^ 1", node, l), false);
        if (nodes % 2) {
            g->ind--;
            cg_line(g, "}");
        }
    }
    g->ind--;
    cg_line(g, "}");
}

/* The same of a split decided at launch (tl_ways pieces, 1: whole tiles,
 * then nothing to add): a level for each the most pieces need, taken
 * where 2^l is below tl_ways and this piece still holds a sum (tl_top,
 * which cg_hopper_consumer declares, and whose piece alone runs the rest
 * of the tile), a node without a partner at the end of a level where the
 * nodes are odd. A pair's count is at its first piece ((node >> 1) << (l
 * + 1)) of level l. (No `continue` to the next unit: with one, ptxas
 * serialises every wgmma of a kernel that also has half tiles, C7520.) */
static void split_sum_at_launch(Cg *g) {
    const IrKernel *k = g->k;
    const IrBuf *acc = split_acc(k);
    int64_t regs = acc->layout.regs, W = k->threads / 128;
    long long stride = (long long)(W * 32 * regs); /* a slot's float4s */
    int levels = cg_split_max_levels(k);
    Arena *ar = &k->c->arena;
    const char *base = cg_tmp(g, "sp");
    cg_line(g, "float4 *const %s = tl_split_partials + ((long long)tl_at * tl_ways * %lld + tl_wg) * %lld + tid %% 128;", base,
            (long long)W, (long long)(32 * regs));
    for (int l = 0; l < levels; l++) {
        const char *node = cg_tmp(g, "node");
        cg_line(g, "if (tl_top && %d < tl_ways) {  // level %d: nodes of %d piece%s", 1 << l, l, 1 << l, l ? "s" : "");
        g->ind++;
        cg_line(g, "const int %s = tl_piece >> %d;", node, l);
        cg_line(g, "if (%s != (tl_ways - 1) >> %d || %s %% 2) {  // not the last node without a partner", node, l, node);
        g->ind++;
        split_move(g, acc, stride, base, arena_printf(ar, "%s << %d", node, l), true);
        cg_line(g, "tl_top = tl_split_last(&tl_split_count[((tl_at * tl_ways + (%s >> 1 << %d)) * %d + %d) * %lld + tl_wg], 2, %d + tl_wg);",
                node, l + 1, levels, l, (long long)W, CG_BAR_WARPGROUP);
        cg_line(g, "if (tl_top) {  // the second of the pair adds the first's sum; the first is done");
        g->ind++;
        split_move(g, acc, stride, base, arena_printf(ar, "(%s ^ 1) << %d", node, l), false);
        g->ind--;
        cg_line(g, "}");
        g->ind--;
        cg_line(g, "}");
        g->ind--;
        cg_line(g, "}");
    }
}
