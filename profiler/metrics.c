/* metrics.c - what the profiler derives from a measurement: the work a
 * kernel does (FLOPs and bytes, from its flops/bytes clauses or from its
 * reference), the device's peaks, achieved rates against them, the bound,
 * and a diagnosis in plain sentences (LANGUAGE.md §4 `flops`/`bytes`; the
 * profile-report contract's health thresholds).
 *
 * Conventions: in Derived, NAN means "does not apply / not measured" (a 0
 * can be a real value there); in DeviceInfo, 0 means unknown, as elsewhere
 * in the header. Strings this file makes (the model strings, the root cause
 * and the opportunities) live in static storage of this file; one profile
 * per process is what tilec does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* ---- the work: FLOPs and bytes ---- */

/* Index variables of one reference statement (free and reduced), so that a
 * subtree's dependence is a bit mask. */
enum { WORK_MAX_VARS = 64 };
typedef struct WorkVars {
    const Sym *sym[WORK_MAX_VARS];
    int n;
    bool overflow;
} WorkVars;

static uint64_t var_bit(WorkVars *w, const Sym *s) {
    for (int i = 0; i < w->n; i++)
        if (w->sym[i] == s) return 1ull << i;
    if (w->n == WORK_MAX_VARS) {
        w->overflow = true;
        return 0;
    }
    w->sym[w->n] = s;
    return 1ull << w->n++;
}

/* How many times an operation that depends on the variables in `mask` runs:
 * once per combination of their values. */
static double runs(const WorkVars *w, uint64_t mask) {
    double r = 1;
    for (int i = 0; i < w->n; i++)
        if (mask >> i & 1) r *= w->sym[i]->range_known && w->sym[i]->range > 0 ? (double)w->sym[i]->range : 1;
    return r;
}

static double arith_cost_binary(const Node *e) {
    switch (e->u.op.op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD: return 1;
    default: return 0; /* comparisons, logical and bitwise operators */
    }
}

static double call_cost(const Node *e) {
    if (!e->u.call.name) return 0; /* a cast */
    if (!strcmp(e->u.call.name->s, "fma")) return 2;
    return 1; /* a math function */
}

/* Adds the FLOPs of e to *flops and returns the variables e depends on.
 * `addr`: e is an index expression (address arithmetic, not counted). An
 * operation counts once per combination of the index variables it depends
 * on: what a loop nest with invariant code hoisted (and reference.c's
 * per-row reduction cache) does, so a row statistic such as
 * sum(k: e[i, k]) in Y[i, j] = e[i, j] / sum(k: e[i, k]) counts M*N, not
 * M*N*N. Reading a temporary is free: its definition was counted. */
static uint64_t work_expr(WorkVars *w, const Node *e, bool addr, double *flops) {
    if (!e || e->is_const) return 0;
    switch (e->kind) {
    case N_NAME:
        if (e->sym && e->sym->kind == SYM_REF_INDEX) return var_bit(w, e->sym);
        return 0;
    case N_INDEX: {
        uint64_t m = 0;
        for (int i = 0; i < e->u.index.idx.len; i++) m |= work_expr(w, e->u.index.idx.items[i], true, flops);
        return m;
    }
    case N_UNARY: {
        uint64_t m = work_expr(w, e->u.op.a, addr, flops);
        if (!addr && e->u.op.op == OP_NEG) *flops += runs(w, m);
        return m;
    }
    case N_BINARY: {
        uint64_t m = work_expr(w, e->u.op.a, addr, flops) | work_expr(w, e->u.op.b, addr, flops);
        if (!addr) *flops += arith_cost_binary(e) * runs(w, m);
        return m;
    }
    case N_COND: {
        /* The select itself is free; of the branches the costlier counts
         * (an upper bound: which one runs is known only per element), unless
         * the condition is a constant. */
        const Node *c = e->u.cond.c;
        if (c->is_const) {
            return work_expr(w, node_const_true(c) ? e->u.cond.a : e->u.cond.b, addr, flops);
        }
        double fa = 0, fb = 0;
        uint64_t m = work_expr(w, c, addr, flops);
        m |= work_expr(w, e->u.cond.a, addr, &fa);
        m |= work_expr(w, e->u.cond.b, addr, &fb);
        *flops += fa > fb ? fa : fb;
        return m;
    }
    case N_CALL: {
        if (e->u.call.body) { /* sum / max / min over index variables */
            uint64_t reduced = 0;
            for (int i = 0; i < e->u.call.reduce_vars.len; i++) {
                const Node *v = e->u.call.reduce_vars.items[i];
                if (v->sym) reduced |= var_bit(w, v->sym);
            }
            uint64_t body = work_expr(w, e->u.call.body, addr, flops);
            /* One accumulation (add, or max/min) per term: with a product as
             * the body this makes 2 per multiply-add. */
            if (!addr) *flops += runs(w, body | reduced);
            return body & ~reduced;
        }
        uint64_t m = 0;
        for (int i = 0; i < e->u.call.args.len; i++) m |= work_expr(w, e->u.call.args.items[i], addr, flops);
        if (!addr) *flops += call_cost(e) * runs(w, m);
        return m;
    }
    case N_NAMED_ARG: return work_expr(w, e->u.named.value, addr, flops);
    default: return 0;
    }
}

/* The FLOPs of the reference; false when it has none. */
static bool reference_flops(const KernelInfo *k, double *flops) {
    const Node *ref = k->has_reference ? k->node->u.kernel.ref : NULL;
    if (!ref) return false;
    double total = 0;
    for (int i = 0; i < ref->u.list.len; i++) {
        const Node *st = ref->u.list.items[i];
        WorkVars w = {0};
        double f = 0;
        if (st->kind == N_LET) {
            work_expr(&w, st->u.decl.value, false, &f);
        } else if (st->kind == N_ASSIGN) {
            const Node *lhs = st->u.assign.lhs;
            if (lhs->kind == N_INDEX) /* the free variables first, so they get bits */
                for (int j = 0; j < lhs->u.index.idx.len; j++) {
                    const Node *ix = lhs->u.index.idx.items[j];
                    if (ix->sym) var_bit(&w, ix->sym);
                }
            work_expr(&w, st->u.assign.rhs, false, &f);
        }
        total += f;
    }
    *flops = total;
    return true;
}

/* ---- printing a clause's expression in source form ---- */

typedef struct StrBuf {
    char *s;
    size_t n, cap;
} StrBuf;

static void sb_puts(StrBuf *b, const char *s) {
    size_t l = strlen(s);
    if (b->n + l + 1 > b->cap) { /* truncate silently; callers size the buffer */
        if (b->n + 1 >= b->cap) return;
        l = b->cap - b->n - 1;
    }
    memcpy(b->s + b->n, s, l);
    b->n += l;
    b->s[b->n] = 0;
}

static int binary_prec(AstOp op) {
    switch (op) {
    case OP_LOR: return 1;
    case OP_LAND: return 2;
    case OP_BOR: return 3;
    case OP_BXOR: return 4;
    case OP_BAND: return 5;
    case OP_EQ: case OP_NE: return 6;
    case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 7;
    case OP_SHL: case OP_SHR: return 8;
    case OP_ADD: case OP_SUB: return 9;
    case OP_MUL: case OP_DIV: case OP_MOD: return 10;
    default: return 0;
    }
}

static int expr_prec(const Node *e) {
    switch (e->kind) {
    case N_COND: return -1;
    case N_BINARY: return binary_prec(e->u.op.op);
    case N_UNARY: return 11;
    default: return 12;
    }
}

static void sb_expr(StrBuf *b, const Node *e);

static void sb_operand(StrBuf *b, const Node *e, int min_prec) {
    bool paren = expr_prec(e) < min_prec;
    if (paren) sb_puts(b, "(");
    sb_expr(b, e);
    if (paren) sb_puts(b, ")");
}

static void sb_list(StrBuf *b, const NodeList *l) {
    for (int i = 0; i < l->len; i++) {
        if (i) sb_puts(b, ", ");
        sb_expr(b, l->items[i]);
    }
}

/* Compact infix text of an expression, as written: 4*B*H*S*S*D/(causal+1). */
static void sb_expr(StrBuf *b, const Node *e) {
    char num[64];
    if (!e) return;
    switch (e->kind) {
    case N_INT: snprintf(num, sizeof num, "%lld", (long long)e->u.ival); sb_puts(b, num); break;
    case N_FLOAT: snprintf(num, sizeof num, "%.17g", e->u.fval.v); sb_puts(b, num); break;
    case N_BOOL: sb_puts(b, e->u.bval ? "true" : "false"); break;
    case N_INF: sb_puts(b, "inf"); break;
    case N_NAME: sb_puts(b, e->u.name->s); break;
    case N_DTYPE: sb_puts(b, dtype_name(e->u.dt)); break;
    case N_INDEX:
        sb_puts(b, e->u.index.name->s);
        sb_puts(b, "[");
        sb_list(b, &e->u.index.idx);
        sb_puts(b, "]");
        break;
    case N_CALL:
        sb_puts(b, e->u.call.name ? e->u.call.name->s : dtype_name(e->u.call.cast));
        sb_puts(b, "(");
        if (e->u.call.body) {
            sb_list(b, &e->u.call.reduce_vars);
            sb_puts(b, ": ");
            sb_expr(b, e->u.call.body);
        } else {
            sb_list(b, &e->u.call.args);
        }
        sb_puts(b, ")");
        break;
    case N_NAMED_ARG:
        sb_puts(b, e->u.named.name->s);
        sb_puts(b, "=");
        sb_expr(b, e->u.named.value);
        break;
    case N_UNARY:
        sb_puts(b, op_spelling(e->u.op.op));
        sb_operand(b, e->u.op.a, 11);
        break;
    case N_BINARY: {
        int p = expr_prec(e);
        sb_operand(b, e->u.op.a, p);
        sb_puts(b, op_spelling(e->u.op.op));
        sb_operand(b, e->u.op.b, p + 1); /* a - (b - c), a / (b * c) */
        break;
    }
    case N_COND:
        sb_operand(b, e->u.cond.c, 0);
        sb_puts(b, " ? ");
        sb_operand(b, e->u.cond.a, 0);
        sb_puts(b, " : ");
        sb_operand(b, e->u.cond.b, -1);
        break;
    default: sb_puts(b, "?"); break;
    }
}

static double const_value(const Node *e) { return e->const_float ? e->cval.f : (double)e->cval.i; }

static char flop_model_buf[512], byte_model_buf[512];

void prof_derive_work(KernelInfo *k, Derived *d) {
    memset(d, 0, sizeof *d);
    d->flops = d->bytes = NAN;
    d->tflops = d->gbps = d->pct_peak_compute = d->pct_peak_bandwidth = NAN;
    d->arithmetic_intensity = d->ridge_point = NAN;
    d->bound = NULL;
    const Node *flops_clause = NULL, *bytes_clause = NULL;
    const NodeList *cl = &k->node->u.kernel.clauses;
    for (int i = 0; i < cl->len; i++) {
        const Node *c = cl->items[i];
        if (c->kind == N_FLOPS && c->u.expr && c->u.expr->is_const) flops_clause = c->u.expr;
        if (c->kind == N_BYTES && c->u.expr && c->u.expr->is_const) bytes_clause = c->u.expr;
    }
    StrBuf b = {flop_model_buf, 0, sizeof flop_model_buf};
    flop_model_buf[0] = 0;
    if (flops_clause) {
        d->flops = const_value(flops_clause);
        sb_puts(&b, "flops clause: ");
        sb_expr(&b, flops_clause);
    } else if (reference_flops(k, &d->flops)) {
        sb_puts(&b, "derived from the reference: 2 per multiply-add, 1 per other op, once per combination of the "
                    "index variables it depends on");
    } else {
        d->flops = NAN;
        sb_puts(&b, "unknown: no flops clause and no reference");
    }
    d->flop_model = flop_model_buf;

    b = (StrBuf){byte_model_buf, 0, sizeof byte_model_buf};
    byte_model_buf[0] = 0;
    if (bytes_clause) {
        d->bytes = const_value(bytes_clause);
        sb_puts(&b, "bytes clause: ");
        sb_expr(&b, bytes_clause);
    } else {
        double bytes = 0;
        for (int i = 0; i < k->params.len; i++) {
            const Sym *p = k->params.items[i];
            if (p->kind != SYM_TENSOR) continue;
            double elems = 1;
            for (int j = 0; j < p->rank; j++) elems *= (double)p->shape[j];
            bytes += elems * dtype_bytes(p->dtype) * (p->mode == MODE_INOUT ? 2 : 1);
        }
        d->bytes = bytes;
        sb_puts(&b, "tensor sizes: each input read once, each output written once, inout both");
    }
    d->byte_model = byte_model_buf;
}

Dtype prof_input_dtype(const KernelInfo *k) {
    for (int i = 0; i < k->params.len; i++) {
        const Sym *p = k->params.items[i];
        if (p->kind == SYM_TENSOR && p->mode == MODE_IN) return p->dtype;
    }
    for (int i = 0; i < k->params.len; i++) { /* only inout (or out) tensors */
        const Sym *p = k->params.items[i];
        if (p->kind == SYM_TENSOR && p->mode == MODE_INOUT) return p->dtype;
    }
    return DT_NONE;
}

/* ---- peaks ---- */

/* Dense FLOP per clock per SM, by compute capability and input dtype, each
 * with where the number comes from (whitepaper peak / (SMs x clock)). */
typedef struct PeakRate {
    int cc_major, cc_minor;
    Dtype dtype;
    double flop_per_clk_sm;
    const char *source;
} PeakRate;

#define A100_TC "A100 whitepaper: 312 TFLOPS dense f16/bf16 at 108 SMs, 1410 MHz"
#define H100_TC "H100 SXM5 whitepaper: 989.4 TFLOPS dense f16/bf16 at 132 SMs, 1830 MHz boost"
static const PeakRate peak_rates[] = {
    {8, 0, DT_F16, 2048, "sm_80 f16 tensor cores: 1024 FMA = 2048 FLOP/clk/SM (" A100_TC ")"},
    {8, 0, DT_BF16, 2048, "sm_80 bf16 tensor cores: 1024 FMA = 2048 FLOP/clk/SM (" A100_TC ")"},
    {8, 0, DT_F8E4M3, 2048, "sm_80 has no f8 tensor cores; its f16 rate: 2048 FLOP/clk/SM (" A100_TC ")"},
    {8, 0, DT_F8E5M2, 2048, "sm_80 has no f8 tensor cores; its f16 rate: 2048 FLOP/clk/SM (" A100_TC ")"},
    {8, 0, DT_F32, 128, "sm_80 f32 on CUDA cores: 2 x 64 FP32 lanes = 128 FLOP/clk/SM (A100 whitepaper: 19.5 TFLOPS "
                        "f32 at 108 SMs, 1410 MHz)"},
    {9, 0, DT_F16, 4096, "sm_90 f16 tensor cores: 4096 FLOP/clk/SM (" H100_TC ")"},
    {9, 0, DT_BF16, 4096, "sm_90 bf16 tensor cores: 4096 FLOP/clk/SM (" H100_TC ")"},
    {9, 0, DT_F8E4M3, 8192, "sm_90 f8 tensor cores: 8192 FLOP/clk/SM, twice f16 (" H100_TC ")"},
    {9, 0, DT_F8E5M2, 8192, "sm_90 f8 tensor cores: 8192 FLOP/clk/SM, twice f16 (" H100_TC ")"},
    {8, 0, DT_I8, 4096, "sm_80 int8 tensor cores: 4096 op/clk/SM (A100 whitepaper: 624 TOPS dense int8 at 108 SMs, "
                        "1410 MHz)"},
    {8, 0, DT_U8, 4096, "sm_80 int8 tensor cores: 4096 op/clk/SM (A100 whitepaper: 624 TOPS dense int8 at 108 SMs, "
                        "1410 MHz)"},
    {9, 0, DT_I8, 8192, "sm_90 int8 tensor cores: 8192 op/clk/SM (H100 SXM5 whitepaper: 1979 TOPS dense int8 at 132 "
                        "SMs, 1830 MHz)"},
    {9, 0, DT_U8, 8192, "sm_90 int8 tensor cores: 8192 op/clk/SM (H100 SXM5 whitepaper: 1979 TOPS dense int8 at 132 "
                        "SMs, 1830 MHz)"},
    {9, 0, DT_F32, 256, "sm_90 f32 on CUDA cores: 2 x 128 FP32 lanes = 256 FLOP/clk/SM (H100 whitepaper: 128 FP32 "
                        "cores per SM)"},
};
/* tf32 (half the f16 rate) has no tilec dtype yet: f32 gemms run on CUDA cores. */

void prof_device_info(DeviceInfo *d, const RtDevice *dev, Dtype input_dtype) {
    snprintf(d->name, sizeof d->name, "%s", dev->name);
    d->cc_major = dev->cc_major;
    d->cc_minor = dev->cc_minor;
    d->sms = dev->sms;
    d->sm_clock_mhz = dev->sm_clock_khz / 1000.0;
    d->mem_clock_mhz = dev->mem_clock_khz / 1000.0;
    d->bus_width_bits = dev->bus_width_bits;
    d->l2_bytes = dev->l2_bytes;
    prof_device_peaks(d, dev->cc_major, dev->cc_minor, input_dtype);
}

void prof_device_peaks(DeviceInfo *d, int cc_major, int cc_minor, Dtype input_dtype) {
    static char none[160];
    d->peak_gbps = d->mem_clock_mhz > 0 && d->bus_width_bits > 0
                       ? 2 * d->mem_clock_mhz * 1e6 * d->bus_width_bits / 8 / 1e9
                       : 0;
    d->peak_tflops = 0;
    const PeakRate *r = NULL;
    for (size_t i = 0; i < sizeof peak_rates / sizeof peak_rates[0]; i++)
        if (peak_rates[i].cc_major == cc_major && peak_rates[i].cc_minor == cc_minor &&
            peak_rates[i].dtype == input_dtype)
            r = &peak_rates[i];
    if (!r) {
        snprintf(none, sizeof none, "no entry for sm_%d%d with %s inputs in the peak table", cc_major, cc_minor,
                 input_dtype == DT_NONE ? "no tensor" : dtype_name(input_dtype));
        d->peak_source = none;
        return;
    }
    d->peak_source = r->source;
    if (d->sms > 0 && d->sm_clock_mhz > 0) d->peak_tflops = d->sms * d->sm_clock_mhz * 1e6 * r->flop_per_clk_sm / 1e12;
}

/* ---- rates and the bound ---- */

enum { LATENCY_US = 10 };

static bool known(double x) { return isfinite(x); }

void prof_derive_rates(Derived *d, const DeviceInfo *dev, double median_ms) {
    d->tflops = d->gbps = d->pct_peak_compute = d->pct_peak_bandwidth = NAN;
    d->arithmetic_intensity = d->ridge_point = NAN;
    d->bound = NULL;
    bool timed = median_ms > 0 && known(median_ms);
    double s = median_ms * 1e-3;
    if (timed && known(d->flops)) d->tflops = d->flops / s / 1e12;
    if (timed && known(d->bytes)) d->gbps = d->bytes / s / 1e9;
    if (dev->peak_tflops > 0 && known(d->tflops)) d->pct_peak_compute = 100 * d->tflops / dev->peak_tflops;
    if (dev->peak_gbps > 0 && known(d->gbps)) d->pct_peak_bandwidth = 100 * d->gbps / dev->peak_gbps;
    if (known(d->flops) && known(d->bytes) && d->bytes > 0) d->arithmetic_intensity = d->flops / d->bytes;
    if (dev->peak_tflops > 0 && dev->peak_gbps > 0) d->ridge_point = dev->peak_tflops * 1e12 / (dev->peak_gbps * 1e9);
    if (!timed) return;
    /* Latency: too short for either roof to matter (launch and fill/drain
     * dominate), or far from both roofs (the contract's "both low"). */
    if (median_ms * 1e3 < LATENCY_US || (known(d->pct_peak_compute) && known(d->pct_peak_bandwidth) &&
                                         d->pct_peak_compute < 10 && d->pct_peak_bandwidth < 10)) {
        d->bound = "latency";
        return;
    }
    if (known(d->arithmetic_intensity) && known(d->ridge_point))
        d->bound = d->arithmetic_intensity > d->ridge_point ? "compute" : "memory";
    else if (known(d->flops) && d->flops == 0)
        d->bound = "memory";
}

/* ---- diagnosis ---- */

typedef struct Finding {
    double score;        /* estimated fraction of time to gain, or a priority */
    char text[320];      /* one sentence with the triggering number */
    char cause[200];     /* the root cause's second sentence when this one ranks first */
    bool measurement;    /* about the measurement, not the kernel: never the root cause */
    bool symptom;        /* restates the bound (far from a roof): a mechanism explains more */
} Finding;

static char root_cause_buf[640];
static char opportunity_buf[3][320];

static int by_score(const void *a, const void *b) {
    double x = ((const Finding *)a)->score, y = ((const Finding *)b)->score;
    return (x < y) - (x > y);
}

static Finding *add(Finding *f, int *n, double score) {
    Finding *x = &f[(*n)++];
    memset(x, 0, sizeof *x);
    x->score = score;
    return x;
}

/* A number for a sentence: 3 significant digits, never an exponent
 * below 1e9. */
static const char *hnum(char buf[32], double v) {
    double a = fabs(v);
    if (a >= 1e9 || (a < 1e-3 && a > 0)) snprintf(buf, 32, "%.3g", v);
    else if (a >= 100) snprintf(buf, 32, "%.0f", v);
    else if (a >= 10) snprintf(buf, 32, "%.1f", v);
    else snprintf(buf, 32, "%.3g", v);
    return buf;
}

/* Findings on how the kernel fills the GPU: register spills, a partial or unbalanced last wave, low occupancy. */
static void find_resource_issues(const Profile *p, Finding *f, int *n) {
    const Resources *r = &p->res;
    double pc = p->derived.pct_peak_compute, pb = p->derived.pct_peak_bandwidth;
    double best_pct = known(pc) && known(pb) ? (pc > pb ? pc : pb) : known(pc) ? pc : known(pb) ? pb : NAN;
    Finding *x;
    if (r->spill_bytes > 0) {
        x = add(f, n, 0.40);
        snprintf(x->text, sizeof x->text,
                 "Remove register spills (trigger: spill_bytes=%d per thread at %d registers): use smaller tiles or "
                 "fewer accumulators so nothing goes to local memory.",
                 r->spill_bytes, r->registers);
        snprintf(x->cause, sizeof x->cause, "The likely cause is register spilling: %d bytes per thread go to local "
                 "memory.", r->spill_bytes);
    }
    if (r->waves > 0 && r->waves < 1) {
        double idle = 1 - r->waves;
        x = add(f, n, idle > 0.9 ? 0.9 : idle);
        snprintf(x->text, sizeof x->text,
                 "Fill the GPU (trigger: waves=%.2f, %lld blocks for %d SMs): est. up to %.0f%% less time with more, "
                 "smaller blocks or a split along the reduction.",
                 r->waves, r->grid_blocks, p->device.sms, 100 * x->score);
        snprintf(x->cause, sizeof x->cause, "The grid of %lld blocks is %.2f of one wave, so part of the GPU idles.",
                 r->grid_blocks, r->waves);
    } else if (r->waves > 1) {
        double full = ceil(r->waves), eff = r->waves / full;
        if (eff < 0.8) {
            x = add(f, n, 1 - eff);
            snprintf(x->text, sizeof x->text,
                     "Balance the last wave (trigger: waves=%.2f, the last one %.0f%% full): est. up to %.0f%% less "
                     "time with a tile size that divides the grid into whole waves or a persistent grid.",
                     r->waves, 100 * (r->waves - floor(r->waves)), 100 * x->score);
            snprintf(x->cause, sizeof x->cause, "The grid runs in %.2f waves, so the last wave leaves SMs idle.",
                     r->waves);
        }
    }
    if (r->occupancy > 0 && r->occupancy < 0.25 && (!known(best_pct) || best_pct < 50)) {
        x = add(f, n, 0.25);
        snprintf(x->text, sizeof x->text,
                 "Raise occupancy (trigger: occupancy=%.0f%%, %d block%s/SM at %d registers and %lld bytes of shared "
                 "memory): fewer registers or less shared memory per block lets more warps hide latency.",
                 100 * r->occupancy, r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s", r->registers,
                 (long long)r->static_smem + r->dynamic_smem);
        snprintf(x->cause, sizeof x->cause, "Occupancy is %.0f%%, too few warps to hide memory and pipeline latency.",
                 100 * r->occupancy);
    }
}

/* Findings on a timed kernel far from its roof, or too short to outlast its launch. */
static void find_roof_gaps(const Profile *p, Finding *f, int *n) {
    const BenchResult *b = &p->bench;
    double pc = p->derived.pct_peak_compute, pb = p->derived.pct_peak_bandwidth;
    const char *bound = p->derived.bound;
    Finding *x;
    if (bound && !strcmp(bound, "memory") && known(pb) && pb < 70) {
        x = add(f, n, 1 - pb / 70);
        x->symptom = true;
        snprintf(x->text, sizeof x->text,
                 "Move data faster (trigger: bandwidth=%.0f%% of peak, healthy > 70%%): est. up to %.0f%% less time "
                 "with wider (16-byte) accesses, deeper pipelining or more bytes in flight per SM.",
                 pb, 100 * x->score);
        snprintf(x->cause, sizeof x->cause, "Below the 70%% a streaming kernel should reach, too few bytes are in "
                 "flight (narrow accesses, shallow pipelining or too few resident warps).");
    }
    if (bound && !strcmp(bound, "compute") && known(pc) && pc < 60) {
        x = add(f, n, 1 - pc / 60);
        x->symptom = true;
        snprintf(x->text, sizeof x->text,
                 "Feed the math units (trigger: compute=%.0f%% of peak, healthy > 60%%): est. up to %.0f%% less time "
                 "with larger tiles, deeper pipelines or the architecture's async MMA path.",
                 pc, 100 * x->score);
        snprintf(x->cause, sizeof x->cause, "Below the 60%% a compute-bound kernel should reach, the math units "
                 "mostly wait for operands (tile loads, pipeline depth or synchronisation).");
    }
    if (known(pc) && known(pb) && pc < 10 && pb < 10 && b->median_ms * 1e3 >= LATENCY_US) {
        x = add(f, n, 0.5);
        x->symptom = true;
        snprintf(x->text, sizeof x->text,
                 "Find the serialisation (trigger: compute=%.1f%%, bandwidth=%.1f%% of peak): neither roof is near, "
                 "so look for barriers, dependent loads and too little parallelism (--ncu shows the stalls).",
                 pc, pb);
        snprintf(x->cause, sizeof x->cause, "Neither roof is near (%.1f%% of compute, %.1f%% of bandwidth), so "
                 "stalls or too little parallelism dominate.", pc, pb);
    }
    if (b->median_ms * 1e3 < LATENCY_US) {
        x = add(f, n, 0.3);
        snprintf(x->text, sizeof x->text,
                 "Amortise launch overhead (trigger: median=%.2f us): fuse the kernel with its neighbours or launch "
                 "it from a CUDA graph%s.",
                 b->median_ms * 1e3, b->backend == BENCH_EVENT ? " (--bench-backend graph measures without it)" : "");
        snprintf(x->cause, sizeof x->cause, "At %.2f us the kernel is as short as launch and fill/drain times.",
                 b->median_ms * 1e3);
    }
}

/* The finding for a --compare peer more than 5% faster than tilec. */
static void find_compare_gap(const Profile *p, Finding *f, int *n) {
    const CompareResult *c = &p->compare;
    if (!c->present || c->speedup <= 0 || c->speedup >= 0.95) return;
    Finding *x = add(f, n, 1 - c->speedup);
    x->symptom = true;
    snprintf(x->text, sizeof x->text,
             "Close the gap to %s (trigger: speedup=%.2fx, %s takes %.4g ms): est. up to %.0f%% less time is "
             "known to be reachable on this problem.",
             c->name ? c->name : "the vendor library", c->speedup, c->name ? c->name : "it", c->median_ms,
             100 * x->score);
    snprintf(x->cause, sizeof x->cause, "%s solves the same problem %.2fx faster.",
             c->name ? c->name : "The vendor library", 1 / c->speedup);
}

/* Findings on a timed kernel's measurement, not the kernel: reduced SM clocks, noisy samples. */
static void find_measurement_issues(const Profile *p, Finding *f, int *n) {
    const BenchResult *b = &p->bench;
    Finding *x;
    bool mixed_clocks = prof_bench_part_at_full_clock(b);
    if (b->throttled_samples > 0 || mixed_clocks) {
        x = add(f, n, 0.2);
        x->measurement = true;
        int reduced = mixed_clocks ? b->samples - b->full_clock_samples : b->throttled_samples;
        char full[96] = "";
        if (mixed_clocks)
            snprintf(full, sizeof full, "; the %d at full clock have a median of %.4g ms", b->full_clock_samples,
                     b->full_clock_median_ms);
        snprintf(x->text, sizeof x->text,
                 "Re-measure on a quiet GPU (trigger: throttled=%d of %d samples below 95%% of the median SM clock, "
                 "%d below 95%% of the fastest): the timings may understate the kernel%s.",
                 b->throttled_samples, b->samples, reduced, full);
        snprintf(x->cause, sizeof x->cause,
                 "%d of %d samples ran at a reduced SM clock (a power or thermal limit; the kernel's own when the "
                 "clock falls during the run and stays down).",
                 reduced, b->samples);
    }
    if (b->rel_stddev > 0.02 || (!b->stopped_on_noise && b->rel_stddev > 0.005)) {
        x = add(f, n, 0.15);
        x->measurement = true;
        snprintf(x->text, sizeof x->text,
                 "Reduce timing noise (trigger: rel_stddev=%.1f%% over %d samples%s): raise --max-time or use "
                 "--bench-backend graph before trusting small differences.",
                 100 * b->rel_stddev, b->samples, b->stopped_on_noise ? "" : ", stopped on the time cap");
        snprintf(x->cause, sizeof x->cause, "The samples spread by %.1f%%, so small differences are not "
                 "meaningful.", 100 * b->rel_stddev);
    }
}

/* The root cause's first sentence: the bound with its numbers, or why there is none. */
static void classify(const Profile *p, bool timed, char *first, size_t size) {
    const Derived *d = &p->derived;
    const char *bound = d->bound;
    double pc = d->pct_peak_compute, pb = d->pct_peak_bandwidth;
    char h1[32], h2[32], h3[32], h4[32];
    if (!timed) {
        snprintf(first, size, "Not classified: the kernel was not timed.");
    } else if (!bound) {
        snprintf(first, size, "Not classified: %s.",
                 !known(d->flops) ? "its FLOPs are unknown (no flops clause and no reference)"
                                  : "the device's peaks are unknown");
    } else if (!strcmp(bound, "latency")) {
        if (p->bench.median_ms * 1e3 < LATENCY_US)
            snprintf(first, size, "Latency-bound: the kernel runs %.2f us, under the %d us where launch and "
                     "fill/drain times dominate.", p->bench.median_ms * 1e3, LATENCY_US);
        else
            snprintf(first, size, "Latency-bound: it reaches only %.1f%% of peak compute and %.1f%% of peak "
                     "bandwidth.", pc, pb);
    } else if (!strcmp(bound, "compute")) {
        snprintf(first, size, "Compute-bound: arithmetic intensity %s FLOP/byte is above the ridge point "
                 "%s, and it reaches %s TFLOP/s, %.0f%% of the %s TFLOP/s peak.", hnum(h1, d->arithmetic_intensity),
                 hnum(h2, d->ridge_point), hnum(h3, d->tflops), pc, hnum(h4, p->device.peak_tflops));
    } else if (known(d->arithmetic_intensity) && known(d->ridge_point)) {
        snprintf(first, size, "Memory-bound: arithmetic intensity %s FLOP/byte is below the ridge point "
                 "%s, and it moves %s GB/s, %.0f%% of the %s GB/s peak.", hnum(h1, d->arithmetic_intensity),
                 hnum(h2, d->ridge_point), hnum(h3, d->gbps), pb, hnum(h4, p->device.peak_gbps));
    } else {
        snprintf(first, size, "Memory-bound: the kernel does no arithmetic and moves %s GB/s.", hnum(h1, d->gbps));
    }
}

/* The finding the root cause names: a mechanism, else a symptom, never the measurement (NULL: none). */
static const Finding *top_finding(const Finding *f, int n) {
    for (int i = 0; i < n; i++)
        if (!f[i].measurement && !f[i].symptom) return &f[i];
    for (int i = 0; i < n; i++)
        if (!f[i].measurement) return &f[i];
    return NULL;
}

void prof_diagnose(Profile *p) {
    const BenchResult *b = &p->bench;
    Finding f[16];
    int n = 0;
    bool timed = b->samples > 0 && b->median_ms > 0;

    /* The groups run in a fixed order, the order qsort sees equal scores in. */
    find_resource_issues(p, f, &n);
    if (timed) find_roof_gaps(p, f, &n);
    find_compare_gap(p, f, &n);
    if (timed) find_measurement_issues(p, f, &n);
    qsort(f, (size_t)n, sizeof f[0], by_score);
    p->n_opportunities = n < 3 ? n : 3;
    for (int i = 0; i < 3; i++) p->opportunities[i] = NULL;
    for (int i = 0; i < p->n_opportunities; i++) {
        snprintf(opportunity_buf[i], sizeof opportunity_buf[i], "%s", f[i].text);
        p->opportunities[i] = opportunity_buf[i];
    }

    /* Root cause: the classification with its numbers, then the top finding. */
    char first[400];
    classify(p, timed, first, sizeof first);
    const Finding *top = top_finding(f, n);
    bool classified = timed && p->derived.bound;
    const char *second = top ? top->cause
                       : !classified ? "Nothing more can be said without a timing and the device's peaks."
                                     : "No measured metric is outside its healthy range, so gains must come "
                                       "from doing less work or moving fewer bytes.";
    snprintf(root_cause_buf, sizeof root_cause_buf, "%s %s", first, second);
    p->root_cause = root_cause_buf;
}
