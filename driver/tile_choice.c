/* tile_choice.c - tune values chosen for the sizes a command gives.
 *
 * A kernel's tune defaults (`tune X = v in [...]`, `tune sm_90a: X = v`)
 * are what was fastest at its `where` sizes. At other sizes the same tiles
 * can leave most of the GPU idle: a 3000 x 2000 x 1000 GEMM in 128 x 256
 * tiles is 192 tiles, one wave of 132 SMs and a second of 60. So where
 * --set gives sizes and no autotuned result is stored, every combination
 * of the tune lists (less what --set fixes) is lowered to IR - no code is
 * generated - with the sizes compiled in, and priced with a model of the
 * sm_90a warp-specialised path:
 *
 *  - a unit (a tile, a half tile, a piece of a split tile, as the
 *    schedule passes decided for these sizes) takes its k-iterations times
 *    the time of one, plus its epilogue (and a block its pipeline's fill
 *    once). An iteration takes the longest of: the tensor cores' time
 *    for its gemms (their multiply-adds over the SM's rate, derated by how
 *    well that wgmma shape keeps them busy); its tiles' bytes over the
 *    block's share of L2's bandwidth with every slot loading; and a load's
 *    latency over the stages ahead it is issued (too few stages for short
 *    iterations wait on every load);
 *  - the units go to the block slots (one an SM) in order, each to the
 *    first slot free, as the hardware and persistent blocks deal them;
 *    the last slot to finish gives the time.
 *
 * The cheapest combination is taken where the model puts it enough faster
 * than the defaults (CHOICE_GAIN); -v says what it took and prints the
 * prices, and the profile's Configuration section says the values are
 * the model's. Only
 * GEMM-shaped kernels of f16 or bf16 inputs are priced (the loop has one
 * gemm, both operands loaded into shared memory: what the model's rates
 * were fitted to); others, and kernels off the warp-specialised path, keep
 * their defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* the tensor cores' f16 multiply-adds a cycle per SM (dense, sm_90) */
static const double FMA_PER_CLOCK = 2048;
static const double CLOCK_MHZ = 1980;
/* a unit's epilogue, and the fill of a block's load pipeline (paid once:
 * a persistent block's producer loads the next unit during the epilogue) */
static const double UNIT_EPILOGUE_US = 1.5;
static const double BLOCK_FILL_US = 1.5;
/* what all SMs together read from L2 (MB/s), and a TMA load's latency */
static const double L2_MB_PER_S = 1.1e7;
static const double LOAD_LATENCY_US = 1.2;
/* a half tile loads all of A's rows for half the products: its mainloop
 * takes more than half a whole tile's */
static const double HALF_LOOP_SHARE = 0.8;
/* taken only where the model says this much faster than the defaults */
static const double CHOICE_GAIN = 0.9;

/* How busy a stream of wgmmas n columns wide keeps the tensor cores, and
 * what an iteration costs besides (the slot's barrier waits, the commit
 * and wait of the wgmmas), which the other consumer warpgroups' products
 * hide in part: fitted to H100 timings of 128 x 256, 192 x 128, 128 x 128
 * and 64 x 256 tiles at six sizes (bench/RESULTS.md), where the 128 x 256
 * x 64 tile's iteration ran 1332 cycles against 1024 for its products
 * alone. Narrower tiles were not timed: candidates below 128 columns are
 * not taken. */
static double wgmma_efficiency(int64_t n) { return n >= 128 ? 1.0 : 0.8; }
static const double ITER_OVERHEAD_US = 0.31; /* over the consumer warpgroups */

typedef struct Price {
    double us;        /* the model's time */
    int64_t units;    /* units of work dealt to the slots */
    int64_t slots;    /* blocks resident at once */
    int64_t n;        /* the wgmma's columns */
} Price;

typedef struct LoopWork {
    double macs;      /* multiply-adds of one iteration's gemms */
    int64_t n;        /* the widest gemm's columns (the wgmma N) */
    double bytes;     /* the tiles its copies load into shared memory */
    double acc_bytes; /* the accumulator (a split tile's pieces add theirs up through memory) */
    int gemms;        /* how many gemms */
    bool operands_loaded; /* every gemm's A and B are tiles the loop loads (shared memory) */
    bool half_inputs;     /* f16 or bf16 products (the rate the model was fitted to) */
} LoopWork;

static void loop_work(IrStmt *s, void *arg) {
    LoopWork *w = arg;
    if (s->op == IR_COPY && s->dst.buf && s->dst.buf->scope == SCOPE_SHARED) w->bytes += (double)buf_bytes(s->dst.buf);
    if (s->op != IR_GEMM) return;
    const IrBuf *a = s->a.buf, *c = s->c.buf;
    w->gemms++;
    w->operands_loaded &= a && a->scope == SCOPE_SHARED && s->b.buf && s->b.buf->scope == SCOPE_SHARED;
    w->half_inputs &= a && (a->dtype == DT_F16 || a->dtype == DT_BF16);
    if (!a || !c || c->rank != 2 || c->shape[0] <= 0) return;
    /* C is rows x columns; A holds rows x K elements whichever way round */
    double k = (double)buf_elems(a) / (double)c->shape[0];
    w->macs += (double)buf_elems(c) * k;
    w->acc_bytes += (double)buf_bytes(c);
    if (c->shape[1] > w->n) w->n = c->shape[1];
}

/* Units dealt in order, each to the slot that frees first: the time the
 * last one finishes. The slots' finishing times are kept sorted. */
static double deal(double *slot, int64_t slots, const double *unit, int64_t units) {
    for (int64_t i = 0; i < slots; i++) slot[i] = 0;
    for (int64_t u = 0; u < units; u++) {
        double t = slot[0] + unit[u];
        int64_t j = 1; /* slot 0 takes the unit: move its new time into order */
        while (j < slots && slot[j] < t) {
            slot[j - 1] = slot[j];
            j++;
        }
        slot[j - 1] = t;
    }
    return slot[slots - 1];
}

/* The model's price of a kernel lowered with its sizes compiled in; false
 * where the model does not apply (not the warp-specialised path, a trip
 * count or grid not known). */
static bool price(const IrKernel *k, Price *p) {
    const IrStmt *loop = k->ws_loop;
    if (!loop || loop->op != IR_FOR || !loop->hi || !loop->hi->is_const || loop->hi->const_float) return false;
    if ((loop->lo && !loop->lo->is_const) || (loop->step && !loop->step->is_const)) return false;
    int64_t lo = loop->lo ? loop->lo->cval.i : 0, step = loop->step ? loop->step->cval.i : 1;
    if (step <= 0) return false;
    int64_t trips = loop->hi->cval.i > lo ? (loop->hi->cval.i - lo + step - 1) / step : 0;
    int64_t tiles = 1;
    for (int d = 0; d < k->grid_rank; d++) {
        if (k->grid[d] <= 0) return false;
        tiles *= k->grid[d];
    }
    LoopWork w = {.operands_loaded = true, .half_inputs = true};
    ir_walk((IrBlock *)&loop->body, loop_work, &w);
    /* GEMM-shaped loops only: one product accumulated over the loop from
     * tiles it loads (attention's two products and the softmax between,
     * or operands computed in registers, are not what the model prices) */
    if (w.gemms != 1 || !w.operands_loaded || !w.half_inputs || w.macs <= 0 || tiles <= 0) return false;
    /* one block an SM: the warp-specialised kernel's warpgroups take the
     * register file between them (setmaxnreg) */
    int64_t slots = k->target.sms;
    int64_t consumers = k->threads / 128 > 0 ? k->threads / 128 : 1;
    double iter_us =
        w.macs / (FMA_PER_CLOCK * wgmma_efficiency(w.n)) / CLOCK_MHZ + ITER_OVERHEAD_US / (double)consumers;
    double load_us = w.bytes * (double)slots / L2_MB_PER_S;
    int64_t ahead = loop->stages > 1 ? loop->stages - 1 : 1;
    if (load_us > iter_us) iter_us = load_us;
    if (LOAD_LATENCY_US / (double)ahead > iter_us) iter_us = LOAD_LATENCY_US / (double)ahead;
    const Schedule *s = &k->sched;
    int64_t ways = s->split_ways > 1 ? s->split_ways : 1;
    int64_t halves = s->half_tiles > 0 ? s->half_tiles : 0;
    int64_t units = ways > 1 ? tiles * ways : tiles + halves;
    double *unit = xcalloc((size_t)units, sizeof *unit);
    double *slot = xcalloc((size_t)slots, sizeof *slot);
    /* a piece of a split tile writes its partial sums and reads another's, through L2 */
    double sums_us = 2 * w.acc_bytes * (double)slots / L2_MB_PER_S;
    for (int64_t u = 0; u < units; u++) {
        if (ways > 1) unit[u] = (double)trips / (double)ways * iter_us + UNIT_EPILOGUE_US + sums_us;
        else if (u < tiles - halves) unit[u] = (double)trips * iter_us + UNIT_EPILOGUE_US;
        else unit[u] = (double)trips * iter_us * HALF_LOOP_SHARE + UNIT_EPILOGUE_US;
    }
    p->us = deal(slot, slots, unit, units) + BLOCK_FILL_US;
    p->units = units;
    p->slots = slots;
    p->n = w.n;
    free(unit);
    free(slot);
    return true;
}

/* The kernel's IR after the passes, its sizes compiled in; NULL where it
 * does not lower (quietly). */
static IrKernel *lowered(Ctx *c, KernelInfo *k, const Options *opts, FILE *quiet) {
    QuietSpan q = quiet_begin(c, quiet);
    IrKernel *ir = ir_build(c, k, &opts->target, &opts->plan);
    bool ok = ir && pass_run_all(ir, NULL);
    return quiet_end(c, q) && ok ? ir : NULL;
}

/* Whether user's overrides give a size or `where` value of k (not only
 * tunables and scalars). */
static bool sizes_given(const KernelInfo *k, const Override *user, int n_user) {
    for (int i = 0; i < n_user; i++)
        for (int j = 0; j < k->values.len; j++) {
            const Sym *v = k->values.items[j];
            if ((v->kind == SYM_SIZE || v->kind == SYM_WHERE) && !strcmp(v->name->s, user[i].name)) return true;
        }
    return false;
}

int tile_choice(Ctx *c, Node *prog, KernelInfo *k, const Options *opts, Override *ov, int n_ov, int max,
                bool *checked_again) {
    *checked_again = false;
    /* fitted to sm_90a (H100) timings */
    if (!opts->target.arch_specific || opts->target.arch != 90 || !sizes_given(k, ov, n_ov)) return 0;
    Sym *tun[TUNE_MAX_VARS];
    int64_t space;
    int nt = tune_space(k, ov, n_ov, tun, &space);
    if (nt == 0 || space > 4096 || n_ov + nt > max) return 0;
    for (int t = 0; t < nt; t++)
        if (tun[t]->value_float) return 0; /* tile sizes and stages are integers */
    FILE *quiet = fopen("/dev/null", "w");
    if (!quiet) return 0;
    const char *name = k->name->s, *arch = opts->target.name;
    Price base;
    *checked_again = true;
    KernelInfo *kd = tune_specialise(c, prog, name, ov, n_ov, NULL, 0, true, arch, quiet);
    IrKernel *ird = kd ? lowered(c, kd, opts, quiet) : NULL;
    if (!ird || !price(ird, &base)) {
        fclose(quiet);
        return 0;
    }
    Override best[TUNE_MAX_VARS], cand[TUNE_MAX_VARS];
    int nbest = 0;
    double best_us = base.us;
    char text[256];
    if (verbose)
        fprintf(stderr, "tilec: tile model for '%s' at these sizes: the defaults %.1f us (%lld units, %lld slots)\n", name,
                base.us, (long long)base.units, (long long)base.slots);
    for (int64_t idx = 0; idx < space; idx++) {
        int n = tune_values(tun, nt, idx, cand);
        KernelInfo *ki = tune_specialise(c, prog, name, ov, n_ov, cand, n, true, arch, quiet);
        IrKernel *ir = ki ? lowered(c, ki, opts, quiet) : NULL;
        Price p;
        /* tiles narrower than 128 columns: the model's rate for them is a
         * guess, never measured; not taken */
        if (!ir || !price(ir, &p) || p.n < 128) continue;
        if (verbose) {
            tune_label(text, sizeof text, cand, n);
            fprintf(stderr, "tilec:   %s: %.1f us (%lld units)\n", text, p.us, (long long)p.units);
        }
        if (p.us < best_us) {
            best_us = p.us;
            nbest = n;
            memcpy(best, cand, (size_t)n * sizeof *best);
        }
    }
    fclose(quiet);
    if (nbest == 0 || best_us > CHOICE_GAIN * base.us) return 0;
    for (int i = 0; i < nbest; i++) ov[n_ov + i] = best[i];
    if (verbose) {
        tune_label(text, sizeof text, best, nbest);
        fprintf(stderr, "tilec: tune values for these sizes: %s (the tile model: %.1f us against %.1f for the defaults; "
                        "--set or --autotune decides otherwise)\n", text, best_us, base.us);
    }
    return nbest;
}
