/* test_host_grid.c - the grid a launch computes for dynamic sizes
 * (ir/host_program.c's program, runtime/launch_shape.h's evaluator) is
 * the grid sema folds when the same sizes are compiled in (--specialise):
 * a kernel whose grid uses every operator the grid clause allows, over a
 * spread of sizes. And a grid dimension too long for the program is a
 * located error, not a wrong launch. CPU only. */
#include "codegen.h"
#include "test_util.h"

static const char *source =
    "kernel g(X: f16[M, N], out Y: f16[M, N])\n"
    "    where M = 64, N = 64\n"
    "    dynamic M, N % 4\n"
    "    grid(ceildiv(N, 96) + (M > 100 ? 2 : 1) + (M == N || !(M != 7)),\n"
    "         max(M / 7, 3) * 2 - min(N % 5, 1) + (i64(M) >> 2 << 1) - (M & 3 | 1 ^ 2) + ~(-M) % 3,\n"
    "         (M <= 50 && N >= 8) ? abs(3 - M % 13) + 1 : 1) as (bx, by, bz)\n"
    "    threads 32\n"
    "{\n"
    "    for (j) in parallel(32) { Y[by, bx * 32 + j] = X[by, bx * 32 + j]; }\n"
    "}\n";

/* The checked kernel of source with sizes M, N (NULL on errors: compiled
 * in, a grid past CUDA's limits is one, said to err). */
static KernelInfo *checked(Ctx *c, int64_t m, int64_t n, bool specialise, FILE *err) {
    ctx_init(c, err);
    source_from_string(&c->src, "grid.tile", source, strlen(source));
    Node *prog = fe_parse(c);
    Override ov[2] = {{.name = "M", .i = m}, {.name = "N", .i = n}};
    SemaOptions so = {.overrides = ov, .n_overrides = 2, .specialise = specialise};
    PtrVec ks = c->errors ? (PtrVec){0} : sema_check(c, prog, &so);
    return c->errors || ks.len != 1 ? NULL : ks.items[0];
}

static void test_sizes(void) {
    static const int64_t ms[] = {1, 3, 7, 13, 50, 51, 100, 101, 1000, 4097, 65536, 2147483647};
    static const int64_t ns[] = {4, 8, 96, 100, 384, 4096, 1 << 20};
    Ctx dyn;
    KernelInfo *k = checked(&dyn, 64, 64, false, stderr);
    FILE *quiet = fopen("/dev/null", "w");
    CHECK(k && k->dynamic.len == 2 && k->grid[0] < 0 && k->grid[1] < 0 && k->grid[2] < 0, "the grid is dynamic");
    if (!k) return;
    RtGridExpr prog[3];
    for (int d = 0; d < 3; d++) CHECK(ir_host_program(k->grid_expr[d], &k->dynamic, &prog[d]), "grid %d as a program", d);
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
            Ctx fixed;
            KernelInfo *s = checked(&fixed, ms[i], ns[j], true, quiet ? quiet : stderr);
            int64_t dims[RT_MAX_DYNAMIC] = {ms[i], ns[j]};
            for (int d = 0; s && d < 3; d++) {
                int64_t got = -1;
                bool ok = rt_grid_eval(&prog[d], dims, &got);
                CHECK(ok && got == s->grid[d], "M=%lld N=%lld: grid %d is %lld, sema folds %lld", (long long)ms[i],
                      (long long)ns[j], d, (long long)got, (long long)s->grid[d]);
            }
            /* a persistent kernel's launch: the grid's tiles in a line */
            const int64_t unknown[3] = {-1, -1, -1};
            long long line[3];
            CHECK(!s || (rt_launch_grid(unknown, prog, dims, true, NULL, line) &&
                      line[0] == s->grid[0] * s->grid[1] * s->grid[2] && line[1] == 1 && line[2] == 1),
                  "M=%lld N=%lld: the persistent grid is the tiles in a line", (long long)ms[i], (long long)ns[j]);
            ctx_free(&fixed);
        }
    ctx_free(&dyn);
    if (quiet) fclose(quiet);
}

static void test_undefined(void) {
    /* division by a size of 0 (never launched: sizes are at least 1) and overflow are refused */
    RtGridExpr e = {.n = 3, .ops = {{RT_GOP_CONST, 8}, {RT_GOP_DIM, 0}, {RT_GOP_DIV, 0}}};
    int64_t dims[RT_MAX_DYNAMIC] = {0}, v;
    CHECK(!rt_grid_eval(&e, dims, &v), "8 / 0 is undefined");
    RtGridExpr big = {.n = 3, .ops = {{RT_GOP_CONST, INT64_MAX}, {RT_GOP_DIM, 0}, {RT_GOP_MUL, 0}}};
    dims[0] = 2;
    CHECK(!rt_grid_eval(&big, dims, &v), "an overflow is undefined");
    RtGridExpr bad = {.n = 1, .ops = {{RT_GOP_ADD, 0}}};
    CHECK(!rt_grid_eval(&bad, dims, &v), "a malformed program is refused");
}

/* A persistent grid whose last wave may run in half tiles: the units are
 * the whole waves' tiles, then two for each tile of a rest of at most half
 * a wave (the count the kernel's loop runs over). */
static void test_half_units(void) {
    static const struct { long long tiles, units; } cases[] = {
        {1, 2}, {64, 128}, {66, 132}, {67, 67}, {131, 131}, {132, 132}, {133, 134}, {198, 264}, {199, 199}, {264, 264}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(rt_half_units(cases[i].tiles, 132) == cases[i].units, "%lld tiles on 132 slots: %lld units, not %lld",
              cases[i].tiles, rt_half_units(cases[i].tiles, 132), cases[i].units);
    /* through rt_launch_grid: a grid of 8 x 24 dynamic tiles (3000 x 2000 in 128 x 256) */
    RtGridExpr expr[3] = {{.n = 1, .ops = {{RT_GOP_DIM, 0}}}, {.n = 1, .ops = {{RT_GOP_DIM, 1}}}};
    int64_t grid[3] = {-1, -1, 1}, dims[RT_MAX_DYNAMIC] = {8, 24};
    long long line[3];
    RtUnits halves = {.half_slots = 132};
    CHECK(rt_launch_grid(grid, expr, dims, true, &halves, line) && line[0] == 252 && line[1] == 1 && line[2] == 1,
          "192 tiles on 132 slots: 132 whole and 120 halves, got %lld", line[0]);
    CHECK(rt_launch_grid(grid, expr, dims, true, NULL, line) && line[0] == 192, "without halves: the 192 tiles");
    /* in clusters of two along dimension 1: 8 x 12 pairs on 66 slots, 66
     * whole and 2 x 30 halves, two blocks each */
    RtUnits pairs = {.half_slots = 66, .cluster = 2, .cluster_dim = 1};
    CHECK(rt_launch_grid(grid, expr, dims, true, &pairs, line) && line[0] == 252, "96 pairs: 252 blocks, got %lld", line[0]);
    /* an odd count along the cluster dimension: 8 x 25 tiles are 8 x 13
     * pairs, the last row of them half past the end (a last wave of 38
     * pairs on 66 slots: whole) */
    dims[1] = 25;
    CHECK(rt_launch_grid(grid, expr, dims, true, &pairs, line) && line[0] == 208 && line[1] == 1,
          "104 pairs: 208 blocks, got %lld", line[0]);
}

/* rt_split_ways: a grid of less than a wave of units in pieces along the
 * loop, as many as the idle slots take, at most `most`, each piece at
 * least 16 iterations; whole (1) otherwise. Through rt_launch_grid with
 * the trip count's program and half tiles beside it: halves only where
 * the tiles are not split. */
static void test_split_units(void) {
    static const struct { long long tiles, trips, most, ways; } cases[] = {
        {32, 128, 16, 4}, {16, 128, 16, 8}, {16, 128, 4, 4}, {16, 64, 16, 4}, {16, 31, 16, 1},
        {66, 128, 16, 2}, {67, 128, 16, 1}, {132, 1024, 16, 1}, {200, 1024, 16, 1}, {1, 1024, 16, 16}, {1, 1024, 8, 8}, {0, 128, 16, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long w = rt_split_ways(cases[i].tiles, 132, cases[i].trips, cases[i].most);
        CHECK(w == cases[i].ways, "%lld tiles of %lld iterations on 132 slots, at most %lld: %lld ways, not %lld",
              cases[i].tiles, cases[i].trips, cases[i].most, w, cases[i].ways);
    }
    /* 1024 x 1024 x K in 128 x 256 tiles, clusters of two along the rows:
     * 4 x 4 pairs on 66 unit slots; the trip count is ceildiv(K, 64) */
    RtGridExpr expr[3] = {{.n = 3, .ops = {{RT_GOP_DIM, 0}, {RT_GOP_CONST, 256}, {RT_GOP_CEILDIV}}},
                          {.n = 3, .ops = {{RT_GOP_DIM, 1}, {RT_GOP_CONST, 128}, {RT_GOP_CEILDIV}}}};
    int64_t grid[3] = {-1, -1, 1}, dims[RT_MAX_DYNAMIC] = {1024, 1024, 8192};
    RtUnits u = {.half_slots = 66, .cluster = 2, .cluster_dim = 1, .split_slots = 66, .split_max = 16,
                 .trips = {.n = 3, .ops = {{RT_GOP_DIM, 2}, {RT_GOP_CONST, 64}, {RT_GOP_CEILDIV}}}};
    long long line[3];
    CHECK(rt_launch_grid(grid, expr, dims, true, &u, line) && line[0] == 16 * 4 * 2,
          "16 pairs of 128 iterations: 4 pieces each, 128 blocks, got %lld", line[0]);
    dims[2] = 1024; /* 16 iterations: too short to split; every pair in halves */
    CHECK(rt_launch_grid(grid, expr, dims, true, &u, line) && line[0] == 16 * 2 * 2,
          "16 pairs of 16 iterations: halves, 64 blocks, got %lld", line[0]);
    dims[2] = 8192, dims[0] = 8192, dims[1] = 8192; /* 32 x 32 pairs: more than a wave */
    CHECK(rt_launch_grid(grid, expr, dims, true, &u, line) && line[0] == 2048, "1024 pairs: whole, got %lld", line[0]);
    u.trips = (RtGridExpr){.n = 3, .ops = {{RT_GOP_CONST, 1}, {RT_GOP_CONST, 0}, {RT_GOP_DIV}}};
    CHECK(!rt_launch_grid(grid, expr, dims, true, &u, line), "an undefined trip count is an undefined grid");
}

/* rt_variant_fits: which kernel of a family a launch takes. 1024 x 1024 x
 * K in 128 x 256 tiles, clusters of two along the rows (4 x 4 pairs on 66
 * unit slots): the split variant where K gives at least 32 iterations, the
 * halves one (every pair in halves: 2 x 16 pairs, two blocks each) where
 * it does not; past half a wave neither, the kernel itself. */
static void test_variants(void) {
    RtGridExpr expr[3] = {{.n = 3, .ops = {{RT_GOP_DIM, 0}, {RT_GOP_CONST, 256}, {RT_GOP_CEILDIV}}},
                          {.n = 3, .ops = {{RT_GOP_DIM, 1}, {RT_GOP_CONST, 128}, {RT_GOP_CEILDIV}}}};
    int64_t grid[3] = {-1, -1, 1}, dims[RT_MAX_DYNAMIC] = {1024, 1024, 8192};
    RtUnits split = {.cluster = 2, .cluster_dim = 1, .split_slots = 66, .split_max = 16,
                     .trips = {.n = 3, .ops = {{RT_GOP_DIM, 2}, {RT_GOP_CONST, 64}, {RT_GOP_CEILDIV}}}};
    RtUnits halves = {.half_slots = 66, .half_all = true, .cluster = 2, .cluster_dim = 1};
    RtUnits base = {.half_slots = 66, .cluster = 2, .cluster_dim = 1};
    long long line[3];
    CHECK(rt_variant_fits(grid, expr, dims, &split, line) && rt_variant_fits(grid, expr, dims, &halves, line) &&
              rt_variant_fits(grid, expr, dims, &base, line), "16 pairs of 128 iterations: every variant fits");
    dims[2] = 1024;
    CHECK(!rt_variant_fits(grid, expr, dims, &split, line) && rt_variant_fits(grid, expr, dims, &halves, line),
          "16 pairs of 16 iterations: not the split variant, the halves one");
    CHECK(rt_launch_grid(grid, expr, dims, true, &halves, line) && line[0] == 64, "16 pairs in halves: 64 blocks, got %lld",
          line[0]);
    dims[0] = 2048, dims[1] = 2304; /* 8 x 18 tiles, 8 x 9 = 72 pairs: more than a wave of them */
    CHECK(!rt_variant_fits(grid, expr, dims, &split, line) && !rt_variant_fits(grid, expr, dims, &halves, line) &&
              rt_variant_fits(grid, expr, dims, &base, line), "72 pairs on 66 slots: the kernel itself");
    CHECK(rt_launch_grid(grid, expr, dims, true, &halves, line) && line[0] == 288,
          "the halves variant forced: 72 pairs in halves, 288 blocks, got %lld", line[0]);
    dims[1] = 4352; /* 8 x 34 tiles, 8 x 17 = 136 pairs: 4 in the last wave */
    CHECK(rt_launch_grid(grid, expr, dims, true, &base, line) && line[0] == (132 + 8) * 2,
          "136 pairs: 132 whole, the last 4 in halves, got %lld", line[0]);
    dims[1] = 64, dims[0] = 8; /* one pair of one tile: a 16th of the slots, halves (K 1024) */
    CHECK(rt_variant_fits(grid, expr, dims, &halves, line), "one pair: the halves variant");
}

int main(void) {
    test_half_units();
    test_split_units();
    test_variants();
    test_sizes();
    test_undefined();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
