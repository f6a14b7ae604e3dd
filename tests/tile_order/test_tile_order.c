/* test_tile_order.c - a persistent kernel's tile order runs every tile of
 * its grid exactly once: every piece of it once where tiles are split,
 * whole or as both of its halves where the last wave runs in halves. For
 * each case the program is compiled through the passes for sm_90a (the
 * preset target) as tilec would, the schedule is checked to be the
 * expected one, and codegen's tile order (codegen/tile_order.c, the
 * arithmetic the generated code prints) is evaluated for every unit of the
 * loop, dealt to the blocks by the snake; for the longest-first order also
 * that the index along the ordered dimension only rises between sections.
 * CPU only. Usage: test_tile_order ROOT (the repository). */
#include "codegen.h"
#include "passes.h"
#include "test_util.h"

typedef struct Case {
    const char *file;    /* under ROOT */
    const char *values;  /* --set */
    Choice persistent, longest_first;
    const char *order;   /* the order the kernel must take */
} Case;

static const Case cases[] = {
    {"examples/flash_attn.tile", "causal=1,BM=192,BN=96", 0, 0, "longest"},  /* sections of 15 after one of 8 */
    {"examples/flash_attn.tile", "causal=1,BM=192,BN=128,D=64", 0, 0, "longest"},  /* sections of 32, none short */
    {"examples/flash_attn.tile", "causal=1,S=16384,B=2", 0, 0, "longest"},          /* sections of 4 */
    {"examples/flash_attn.tile", "causal=1,BM=192,BN=96,S=16384,B=2", 0, 0, "longest"},  /* 3 after one of 2 */
    {"examples/flash_attn.tile", "causal=1,BM=192,BN=96,B=1,H=2,S=300", CHOICE_ON, 0, "longest"},  /* one section */
    {"examples/flash_attn.tile", "causal=1,BM=192,BN=96", 0, CHOICE_OFF, "snake"},
    {"examples/flash_attn.tile", "BM=192,BN=96", 0, 0, "idle"},           /* S = 4096: last query block idle */
    {"examples/flash_attn.tile", "BM=192,BN=96,S=4224", 0, 0, "snake"},
    {"examples/gemm.tile", "M=3000,N=2000,K=1024,BM=192,BN=128", 0, 0, "snake"},  /* panels: grid order kept */
    {"tests/passes/plan_schedule/along_dim1.tile", "S=4000", 0, 0, "longest"},    /* along dimension 1 */
    {"tests/frontend/valid/v_triangular_gemm.tile", "M=3072", 0, 0, "longest"},   /* 24 column blocks */
    {"tests/frontend/valid/v_triangular_gemm.tile", "M=3840,N=2944", 0, 0, "longest"},  /* a short first section */
    {"examples/gemm.tile", "M=1080,N=1016,K=4096", 0, 0, "split"},  /* 36 tiles in 3 pieces */
    {"examples/gemm.tile", "M=256,N=256,K=16384", 0, 0, "split"},   /* 2 tiles in 16 pieces */
    {"examples/gemm.tile", "M=1536,N=4096,K=4096", 0, 0, "halves"}, /* 192 tiles, the last 60 in halves */
    {"tests/passes/plan_schedule/halves_tail_wave.tile", "M=1450", 0, 0, "halves, idle"},  /* idle last too */
    {"examples/gemm.tile", "M=1000,N=1016,K=1000", CHOICE_OFF, 0, "none"},  /* no split or halves when off */
};

/* "A=1,B=2" into overrides (integers only); their count. */
static int parse_values(char *text, Override *ov, int max) {
    int n = 0;
    for (char *save = NULL, *item = strtok_r(text, ",", &save); item && n < max; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        *eq = 0;
        ov[n++] = (Override){.name = item, .i = strtoll(eq + 1, NULL, 10)};
    }
    return n;
}

static const char *order_name(const TileOrderPlan *p, const IrKernel *k) {
    if (p->split_ways) return "split";
    if (p->half_tiles) return p->order == ORDER_IDLE_LAST ? "halves, idle" : "halves";
    return p->order == ORDER_LONGEST_FIRST ? "longest" : p->order == ORDER_IDLE_LAST ? "idle" : k->sched.persistent ? "snake"
                                                                                                                   : "none";
}

/* Deals the units to `blocks` blocks in the snake and checks each tile
 * (piece, half) runs once. */
static void check_cover(const Case *cs, const TileOrderPlan *p, int64_t blocks) {
    int parts = p->split_ways ? p->split_ways : p->half_tiles ? 3 : 1; /* halves: 0 whole, 1 and 2 the halves */
    int64_t n = p->tiles * parts;
    unsigned char *seen = calloc((size_t)n, 1);
    int64_t units = 0;
    for (int64_t b = 0; b < blocks; b++)
        for (int64_t r = 0;; r++) {
            int64_t unit = cg_tile_snake(r, blocks, b);
            if (unit >= p->units) break;
            units++;
            TileUnit u;
            cg_tile_order_unit(p, unit, &u);
            int part = p->split_ways ? u.piece : u.half ? 1 + (int)(u.half_col / p->half_cols) : 0;
            CHECK(u.tile >= 0 && u.tile < p->tiles, "%s %s: unit %lld runs tile %lld of %lld", cs->file, cs->values,
                  (long long)unit, (long long)u.tile, (long long)p->tiles);
            if (u.tile < 0 || u.tile >= p->tiles) continue;
            CHECK(!seen[u.tile * parts + part]++, "%s %s: tile %lld part %d again (unit %lld)", cs->file, cs->values,
                  (long long)u.tile, part, (long long)unit);
        }
    CHECK(units == p->units, "%s %s: %lld blocks ran %lld of %lld units", cs->file, cs->values, (long long)blocks,
          (long long)units, (long long)p->units);
    for (int64_t t = 0; t < p->tiles; t++) {
        if (p->split_ways) {
            for (int q = 0; q < parts; q++) CHECK(seen[t * parts + q] == 1, "%s %s: tile %lld piece %d not run", cs->file, cs->values, (long long)t, q);
        } else if (p->half_tiles) {
            bool whole = seen[3 * t] == 1 && !seen[3 * t + 1] && !seen[3 * t + 2];
            bool halves = !seen[3 * t] && seen[3 * t + 1] == 1 && seen[3 * t + 2] == 1;
            CHECK(whole || halves, "%s %s: tile %lld neither whole nor both halves", cs->file, cs->values, (long long)t);
        } else {
            CHECK(seen[t] == 1, "%s %s: tile %lld not run", cs->file, cs->values, (long long)t);
        }
    }
    free(seen);
}

/* Longest first: along the units' order the index along the ordered
 * dimension moves from the longest tiles' end within a section, and starts
 * there again once a section. */
static void check_sections(const Case *cs, const TileOrderPlan *p) {
    int64_t others = p->units / p->G, sections = others / p->section + (others % p->section > 0), starts = 0, last = -1;
    for (int64_t unit = 0; unit < p->units; unit++) {
        TileUnit u;
        cg_tile_order_unit(p, unit, &u);
        int64_t x = u.tile / p->inner % p->G, from_longest = p->reverse ? p->G - 1 - x : x;
        if (from_longest < last) starts++;
        last = from_longest;
    }
    CHECK(starts == sections - 1, "%s %s: the order starts again %lld times in %lld sections", cs->file, cs->values,
          (long long)starts, (long long)sections);
}

static void run_case(const char *root, const Case *cs) {
    char path[4096], values[256];
    snprintf(path, sizeof path, "%s/%s", root, cs->file);
    snprintf(values, sizeof values, "%s", cs->values);
    Override ov[16];
    int nov = parse_values(values, ov, 16);
    Ctx c;
    ctx_init(&c, stderr);
    const char *why;
    if (!source_read(&c.src, path, &why)) {
        CHECK(false, "%s: %s", path, why);
        return;
    }
    Node *prog = fe_parse(&c);
    /* the examples' dynamic sizes compiled in: tile orders come from the tile count */
    SemaOptions so = {.overrides = ov, .n_overrides = nov, .specialise = true};
    PtrVec ks = c.errors ? (PtrVec){0} : sema_check(&c, prog, &so);
    Target target;
    target_preset("sm_90a", &target);
    PlanOptions plan = plan_defaults();
    plan.persistent = cs->persistent;
    plan.longest_first = cs->longest_first;
    IrKernel *k = ks.len == 1 && !c.errors ? ir_build(&c, ks.items[0], &target, &plan) : NULL;
    if (!k || !pass_run_all(k, NULL)) {
        CHECK(false, "%s %s does not compile", cs->file, cs->values);
        ctx_free(&c);
        return;
    }
    TileOrderPlan p;
    cg_tile_order_plan(k, &p);
    const char *got = order_name(&p, k);
    CHECK(!strcmp(got, cs->order), "%s %s: the %s order, not the %s one", cs->file, cs->values, got, cs->order);
    if (k->sched.persistent) {
        /* as many blocks as the launch has, and fewer, which run more rounds */
        int64_t counts[] = {p.units < 132 ? p.units : 132, 7, 1};
        for (int i = 0; i < 3; i++) check_cover(cs, &p, counts[i]);
        if (p.order == ORDER_LONGEST_FIRST) check_sections(cs, &p);
    }
    printf("%s %s %s: %s, %lld units\n", failures ? "..." : "ok ", cs->file, cs->values, got, (long long)p.units);
    ctx_free(&c);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_tile_order ROOT\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(argv[1], &cases[i]);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
