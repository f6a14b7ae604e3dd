/* tile_order.c - the order in which a persistent block's loop takes the
 * grid's tiles (IrKernel.sched): the snake, longest first, the tiles with
 * idle warpgroups last, split and half tiles. cg_tile_order_plan reduces
 * the schedule to a handful of figures; cg_tile_order_unit evaluates the
 * order on the host (the tests run it over whole grids) and
 * cg_tile_loop_begin prints the same arithmetic as CUDA C. */
#include <string.h>

#include "codegen.h"

/* The units of a persistent block's loop: tiles, pairs of them in clusters
 * of two, every tile's pieces (split tiles), or whole tiles and halves. */
int64_t cg_loop_units(const IrKernel *k) {
    if (k->sched.split_ways) return cg_split_units(k);
    if (k->sched.half_tiles) return k->sched.half_from + 2 * k->sched.half_tiles;
    return k->grid[0] * k->grid[1] * k->grid[2] / (k->sched.cluster ? 2 : 1);
}

const IrStmt *cg_loop_gemm(const IrKernel *k) {
    for (int i = 0; i < k->ws_loop->body.len; i++)
        if (k->ws_loop->body.items[i]->op == IR_GEMM) return k->ws_loop->body.items[i];
    return NULL;
}

void cg_tile_order_plan(const IrKernel *k, TileOrderPlan *p) {
    const Schedule *s = &k->sched;
    memset(p, 0, sizeof *p);
    p->order = s->order;
    p->units = cg_loop_units(k);
    p->tiles = k->grid[0] * k->grid[1] * k->grid[2] / (s->cluster ? 2 : 1);
    p->split_ways = s->split_ways;
    p->half_from = s->half_from;
    p->half_tiles = s->half_tiles;
    p->half_slots = s->half_slots;
    if (sched_has_halves(s)) p->half_cols = cg_loop_gemm(k)->c.buf->shape[1] / 2;
    p->G = p->inner = 1;
    if (s->order == ORDER_SNAKE) return;
    p->G = k->grid[s->order_dim];
    for (int i = 0; i < s->order_dim; i++) p->inner *= k->grid[i];
    p->section = s->order_section;
    p->reverse = s->order_reverse;
}

int64_t cg_tile_snake(int64_t round, int64_t blocks, int64_t block) {
    return round * blocks + (round & 1 ? blocks - 1 - block : block);
}

/* u's digits below dimension `inner` and above it, with x in between. */
static int64_t around(const TileOrderPlan *p, int64_t u, int64_t x) {
    return u % p->inner + p->inner * (x + p->G * (u / p->inner));
}

void cg_tile_order_unit(const TileOrderPlan *p, int64_t unit, TileUnit *out) {
    memset(out, 0, sizeof *out);
    int64_t t = unit;
    if (p->split_ways) {
        out->tile = unit / p->split_ways;
        out->piece = unit % p->split_ways;
        return;
    }
    if (p->half_tiles && unit >= p->half_from) {
        out->half = true;
        t = p->half_from + (unit - p->half_from) / 2;
        out->half_col = (unit - p->half_from) % 2 * p->half_cols;
    }
    int64_t G = p->G;
    if (p->order == ORDER_LONGEST_FIRST) {
        int64_t W = p->section, others = p->units / G, rem = others % W, WG = W * G, x, u;
        if (W >= others) {
            x = t / others, u = t % others;
        } else if (!rem) {
            int64_t r = t % WG;
            x = r / W, u = t / WG * W + r % W;
        } else {
            int64_t s = t - rem * G, w = s < 0 ? rem : W, r = s < 0 ? t : s % WG;
            x = r / w, u = (s < 0 ? 0 : rem + s / WG * W) + r % w;
        }
        out->tile = around(p, u, p->reverse ? G - 1 - x : x);
    } else if (p->order == ORDER_IDLE_LAST) {
        int64_t first = p->tiles - p->tiles / G, hi = t / p->inner;
        out->tile = t < first ? t % p->inner + p->inner * (hi % (G - 1) + G * (hi / (G - 1)))
                              : around(p, t - first, G - 1);
    } else {
        out->tile = t;
    }
}

/* ---- the CUDA C of the order ---- */

/* Tile number t (a C expression) as digits around a dimension whose
 * lower dimensions hold `inner` tiles: *lo "t % inner + inner * " (to go
 * before the digits from the dimension up), *hi "t / inner"; nothing and
 * t itself where inner is 1. */
static void split_digits(Arena *ar, const char *t, int64_t inner, const char **lo, const char **hi) {
    *lo = inner == 1 ? "" : arena_printf(ar, "%s %% %lld + %lld * ", t, (long long)inner, (long long)inner);
    *hi = inner == 1 ? t : arena_printf(ar, "(%s / %lld)", t, (long long)inner);
}

/* The named barriers of the longest-first order's next-tile slot and
 * their thread count (the consumers and the producer's warp), as the
 * tl_tiles_* helpers take them. */
static const char *tile_slot_barriers(const IrKernel *k) {
    return arena_printf(&k->c->arena, "%d, %d, %lld", CG_BAR_TILE_FULL, CG_BAR_TILE_EMPTY, (long long)(k->threads + 32));
}

/* The longest-first order's lines: sections of W units of the grid without
 * dimension d (the remainder, fewer, in a first section: the last one is
 * what evens out the end, the more tiles it has the better), each running
 * index G - 1 along d of its units, then G - 2, ... (0, 1, ... where the
 * trip count shrinks along d); tl_u is the unit, tl_x the index. */
static void print_longest_first(Cg *g, const TileOrderPlan *p) {
    Arena *ar = &g->k->c->arena;
    int64_t G = p->G, W = p->section, others = p->units / G, rem = others % W;
    const char *x = p->reverse ? arena_printf(ar, "%lld - ", (long long)(G - 1)) : "", *lo, *hi;
    long long WG = (long long)(W * G);
    if (W >= others) {
        cg_line(g, "const int tl_x = %s(tl_tile / %lld), tl_u = tl_tile %% %lld;  // longest first", x, (long long)others,
                (long long)others);
    } else if (!rem) {
        cg_line(g, "const int tl_r = tl_tile %% %lld;  // longest first, in sections of %lld units", WG, (long long)W);
        cg_line(g, "const int tl_x = %s(tl_r / %lld), tl_u = tl_tile / %lld * %lld + tl_r %% %lld;", x, (long long)W, WG,
                (long long)W, (long long)W);
    } else {
        cg_line(g, "const int tl_s = tl_tile - %lld;  // past the first section (%lld units) where >= 0", (long long)(rem * G),
                (long long)rem);
        cg_line(g, "const int tl_w = tl_s < 0 ? %lld : %lld, tl_r = tl_s < 0 ? tl_tile : tl_s %% %lld;  // longest first",
                (long long)rem, (long long)W, WG);
        cg_line(g, "const int tl_x = %s(tl_r / tl_w), tl_u = (tl_s < 0 ? 0 : %lld + tl_s / %lld * %lld) + tl_r %% tl_w;", x,
                (long long)rem, WG, (long long)W);
    }
    split_digits(ar, "tl_u", p->inner, &lo, &hi);
    cg_line(g, "const int tl_lin = %s(tl_x + %lld * %s);", lo, (long long)G, hi);
    cg_line(g, "tl_tiles_publish(tl_next_tile, tl_n, tl_lin, %s);  // to the consumers", tile_slot_barriers(g->k));
}

/* The idle-last order's lines: the tiles at the end of grid dimension d
 * (those with idle warpgroups) after all the others, each part in grid
 * order: tile t of the first part has index t along the grid with
 * dimension d one shorter, of the second index t - first along the grid
 * without d. */
static void print_idle_last(Cg *g, const TileOrderPlan *p, const char *tile) {
    Arena *ar = &g->k->c->arena;
    int64_t G = p->G, first = p->tiles - p->tiles / G;
    const char *lo, *hi, *lo2, *hi2;
    split_digits(ar, tile, p->inner, &lo, &hi);
    split_digits(ar, arena_printf(ar, "(%s - %lld)", tile, (long long)first), p->inner, &lo2, &hi2);
    cg_line(g, "const int tl_lin = %s < %lld  // the tiles with idle warpgroups last", tile, (long long)first);
    cg_line(g, "    ? %s(%s %% %lld + %lld * (%s / %lld))", lo, hi, (long long)(G - 1), (long long)G, hi, (long long)(G - 1));
    cg_line(g, "    : %s(%lld + %lld * %s);", lo2, (long long)(G - 1), (long long)G, hi2);
}

/* Round n of the blocks takes tiles n * G .. n * G + G - 1 (G blocks),
 * block b the b-th of them in even rounds and the (G-1-b)-th in odd ones:
 * where the work per tile grows along the tile order (causal attention's
 * query blocks), plain round robin gives some blocks the heavy end of
 * every round (+9 % on the busiest SM for 32 query blocks on 132 SMs);
 * the snake evens it out. Each round is still the same G consecutive
 * tiles, so what shares L2 does not change. With the longest-first order,
 * the producer thread draws the tiles after the first from a counter
 * (tl_tiles_draw) and hands each on to the consumers in grid order
 * (tl_tiles_publish, tl_tiles_take: a shared slot between two named
 * barriers), so theirs is the plain loop. */
void cg_tile_loop_begin(Cg *g, bool producer) {
    const IrKernel *k = g->k;
    TileOrderPlan p;
    cg_tile_order_plan(k, &p);
    /* clusters of two take the tiles in pairs, both blocks of a cluster the
     * same pair (their multicast loads fill each other's slots): the
     * round-robin unit is the cluster, not the block */
    const char *me = k->sched.cluster ? "(blockIdx.x >> 1)" : "blockIdx.x";
    const char *all = k->sched.cluster ? "(gridDim.x >> 1)" : "gridDim.x";
    bool longest = p.order == ORDER_LONGEST_FIRST;
    if (longest && !producer) {
        /* the tiles in grid order, as the producer thread hands them on */
        const char *take = arena_printf(&k->c->arena, "tl_tiles_take(tl_next_tile, %lld, %s)", (long long)p.units,
                                        tile_slot_barriers(k));
        cg_line(g, "for (int tl_n = 0, tl_tile = %s; tl_tile < %lld; ++tl_n, tl_tile = %s) {", take, (long long)p.units,
                take);
        g->ind++;
        cg_block_indices(g, "tl_tile");
        return;
    }
    if (!longest) {
        const char *units = arena_printf(&k->c->arena, "%lld", (long long)p.units);
        if (kernel_grid_dynamic(k)) {
            /* the run-time grid's tiles (plan_schedule: the snake order only) */
            const Schedule *sc = &k->sched;
            const char *tiles = p.half_slots || sc->split_slots ? "tl_tiles" : "tl_units";
            cg_line(g, "const long long %s = %s;  // the grid's %s at these sizes", tiles, cg_grid_units(g),
                    k->sched.cluster ? "pairs of tiles" : "tiles");
            if (sc->split_slots) {
                /* rt_split_ways, as the launch decides */
                long long slots = (long long)sc->split_slots;
                cg_line(g, "const long long tl_trips = %s;", cg_expr_str(g, k->ws_loop->hi));
                cg_line(g, "int tl_ways = tl_tiles > 0 && tl_tiles < %lld ? (int)min(min(%lldLL / tl_tiles, %dLL), tl_trips / %d) : 1;",
                        slots, slots, sc->split_max, RT_SPLIT_MIN_TRIPS);
                cg_line(g, "if (tl_ways < 2) tl_ways = 1;  // less than a wave: every %s in tl_ways pieces along the loop",
                        k->sched.cluster ? "pair of tiles" : "tile");
            }
            if (sc->split_slots) {
                cg_line(g, "const long long tl_units = tl_tiles * tl_ways;");
            } else if (sc->half_all) {
                cg_line(g, "const long long tl_units = 2 * tl_tiles;  // the halves variant: every tile in two halves");
            } else if (p.half_slots) {
                /* rt_half_units, as the launch counts them */
                long long slots = (long long)p.half_slots;
                cg_line(g, "const long long tl_rest = tl_tiles %% %lld;  // the last wave's units on %lld slots", slots, slots);
                cg_line(g, "const long long tl_half_from = tl_rest > 0 && 2 * tl_rest <= %lld ? tl_tiles - tl_rest : tl_tiles;",
                        slots);
                cg_line(g, "const long long tl_units = tl_tiles + (tl_tiles - tl_half_from);  // in halves where at most half a wave");
            }
            units = "tl_units";
        }
        cg_line(g, "for (int tl_n = 0, tl_tile = %s; tl_tile < %s;", me, units);
        cg_line(g, "     ++tl_n, tl_tile = tl_n * %s + (tl_n & 1 ? %s - 1 - %s : %s)) {", all, all, me, me);
    } else {
        cg_line(g, "int tl_n = 0;  // after the loop, the tiles this block ran");
        cg_line(g, "for (int tl_tile = %s; tl_tile < %lld; ++tl_n, tl_tile = tl_tiles_draw(tl_tile_count)) {", me,
                (long long)p.units);
    }
    g->ind++;
    const char *tile = "tl_tile";
    if (k->sched.split_slots) {
        cg_line(g, "const int tl_piece = tl_tile %% tl_ways, tl_whole_unit = tl_tile / tl_ways;  // split tiles: which piece of which");
        tile = "tl_whole_unit";
    }
    /* half tiles: the tile whose half a unit from half_from on is */
    if (k->sched.half_all) {
        /* the halves variant: no whole-tile code (lower_hopper.c) */
        cg_line(g, "const int tl_whole = %s / 2, tl_hcol = %s %% 2 * %lld;  // every tile in halves of its columns", tile,
                tile, (long long)p.half_cols);
        tile = "tl_whole";
    } else if (p.half_tiles || p.half_slots) {
        const char *from = p.half_slots ? "tl_half_from" : arena_printf(&k->c->arena, "%lld", (long long)p.half_from);
        long long cols = (long long)p.half_cols;
        cg_line(g, "const int tl_half = %s >= %s;  // the last wave's tiles in halves of their columns", tile, from);
        cg_line(g, "const int tl_whole = tl_half ? %s + (%s - %s) / 2 : %s, tl_hcol = tl_half ? (%s - %s) %% 2 * %lld : 0;",
                from, tile, from, tile, tile, from, cols);
        tile = "tl_whole";
    }
    if (p.order == ORDER_SNAKE) {
        if (p.split_ways) cg_split_unit(g, tile);
        else cg_block_indices(g, tile);
        /* the tile's partial sums: in clusters, the pair's tile of this block */
        if (k->sched.split_slots)
            cg_line(g, "const int tl_at = %s;  // split tiles: where this tile's partial sums go",
                    k->sched.cluster ? arena_printf(&k->c->arena, "2 * %s + tl_cta_rank", tile) : tile);
        return;
    }
    if (longest) print_longest_first(g, &p);
    else print_idle_last(g, &p, tile);
    cg_block_indices(g, "tl_lin");
}

void cg_tile_loop_end(Cg *g, bool producer) {
    g->ind--;
    cg_line(g, "}");
    const IrKernel *k = g->k;
    if (!producer || k->sched.order != ORDER_LONGEST_FIRST) return;
    cg_line(g, "tl_tiles_publish(tl_next_tile, tl_n, %lld, %s);  // no more tiles",
            (long long)(k->grid[0] * k->grid[1] * k->grid[2]), tile_slot_barriers(k));
    cg_line(g, "tl_tiles_done(tl_tile_count);  // the counter reads 0 again for the next launch");
}
