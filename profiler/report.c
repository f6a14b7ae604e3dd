/* report.c - what `tilec --profile` prints and writes: the terminal report,
 * --json (schema 1, LANGUAGE.md §7), --report (markdown), --trace (Chrome
 * trace events that Perfetto opens) and --roofline (an SVG 1.1 plot). The
 * sections follow the profile-report contract: configuration, timings,
 * resources, bottleneck with its root cause, top opportunities, vs baseline.
 *
 * Every file is written atomically (file_write_atomic_fn: a temporary file,
 * then rename): a reader never sees half a file, and a failure leaves
 * nothing behind. Values that
 * were not measured (NAN in Derived, 0 where the header says so) print as
 * "n/a" and are null in JSON, never invented. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler.h"

static bool known(double x) { return isfinite(x); }
static bool timed(const Profile *p) { return p->bench.samples > 0 && p->bench.median_ms > 0; }
static bool res_known(const Profile *p) { return p->res.registers > 0; }

static const char *kernel_name(const Profile *p) {
    if (p->kernel) return p->kernel;
    if (p->info && p->info->name) return p->info->name->s;
    return "kernel";
}

/* "halves" or "split" where the kernel run is a variant of a dynamic
 * grid's kernel (its name says so: cg_kernel_name), else NULL. */
static const char *variant_of(const Profile *p) {
    const char *s = p->kernel_symbol;
    size_t n = s ? strlen(s) : 0;
    if (n > 7 && !strcmp(s + n - 7, "_halves")) return "halves";
    if (n > 6 && !strcmp(s + n - 6, "_split")) return "split";
    return NULL;
}

static const char *backend_name(BenchBackend b) { return b == BENCH_GRAPH ? "graph" : "event"; }

static const char *bound_title(const char *b) {
    if (!b) return "Not classified";
    if (!strcmp(b, "compute")) return "Compute-bound";
    if (!strcmp(b, "memory")) return "Memory-bound";
    if (!strcmp(b, "latency")) return "Latency-bound";
    return b;
}

/* Human-readable number: `fmt` when known, else "n/a". */
static const char *num(char buf[48], const char *fmt, double v) {
    if (!known(v)) return "n/a";
    snprintf(buf, 48, fmt, v);
    return buf;
}

/* 1.37e+11 -> "137.4 G" style, for FLOP and byte counts. */
static const char *si(char buf[48], double v, const char *unit) {
    if (!known(v)) return "n/a";
    static const char *const pre[] = {"", "K", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = v;
    while (fabs(a) >= 1000 && i < 6) {
        a /= 1000;
        i++;
    }
    if (i == 0) snprintf(buf, 48, "%.0f %s", a, unit);
    else snprintf(buf, 48, "%.4g %s%s", a, pre[i], unit);
    return buf;
}

/* Bytes in binary units: "60 MiB". */
static const char *bin_bytes(char buf[48], long long v) {
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double a = (double)v;
    int i = 0;
    while (a >= 1024 && i < 4) a /= 1024, i++;
    if (i == 0) snprintf(buf, 48, "%lld bytes", v);
    else snprintf(buf, 48, "%.4g %s", a, unit[i]);
    return buf;
}

/* When L2 was flushed, in v[256]. A graph replays several launches after
 * one flush: all but the first of them find the operands the one before
 * left in L2, so its per-kernel time is a warm-cache figure (events flush
 * before every launch, as Nsight Compute does). */
static const char *l2_flush_text(const BenchResult *b, char v[256]) {
    char b1[48];
    if (!b->l2_flush) snprintf(v, 256, "off");
    else if (b->backend == BENCH_GRAPH && b->launches_per_sample > 1)
        snprintf(v, 256, "before every replay (%s): its first launch finds L2 flushed, the other %d a warm L2",
                 bin_bytes(b1, b->l2_flush_bytes), b->launches_per_sample - 1);
    else snprintf(v, 256, "before every sample (%s)", bin_bytes(b1, b->l2_flush_bytes));
    return v;
}

static const char *value_text(char buf[48], const Sym *s) {
    if (!s->has_value) return "n/a";
    if (s->value_float) snprintf(buf, 48, "%.17g", s->value.f);
    else snprintf(buf, 48, "%lld", (long long)s->value.i);
    return buf;
}

/* The short name of an opportunity: its text before " (trigger". */
static void opportunity_name(char *buf, size_t n, const char *text) {
    const char *e = strstr(text, " (trigger");
    size_t l = e ? (size_t)(e - text) : strlen(text);
    if (l >= n) l = n - 1;
    memcpy(buf, text, l);
    buf[l] = 0;
}

static Dtype input_dtype(const Profile *p) { return p->info ? prof_input_dtype(p->info) : DT_NONE; }

/* ---- files ---- */

typedef void (*Writer)(FILE *f, const Profile *p);

typedef struct WriteJob {
    Writer write;
    const Profile *p;
} WriteJob;

static void run_writer(FILE *f, const void *arg) {
    const WriteJob *job = arg;
    job->write(f, job->p);
}

static bool write_atomic(const char *path, const Profile *p, Writer w, char err[256]) {
    err[0] = 0;
    if (!path || !*path) {
        snprintf(err, 256, "no output file was named.");
        return false;
    }
    WriteJob job = {w, p};
    if (file_write_atomic_fn(path, 0666, run_writer, &job)) return true;
    snprintf(err, 256, "cannot write '%s': %s.", path, strerror(errno));
    return false;
}

/* ---- terminal ---- */

typedef struct Term {
    FILE *o;
    bool color;
} Term;

static const char *c_on(const Term *t, const char *code) { return t->color ? code : ""; }
static const char *c_off(const Term *t) { return t->color ? "\x1b[0m" : ""; }

static void heading(const Term *t, const char *s) { fprintf(t->o, "\n%s%s%s\n", c_on(t, "\x1b[1m"), s, c_off(t)); }

static void row(const Term *t, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void row(const Term *t, const char *label, const char *fmt, ...) {
    fprintf(t->o, "  %-12s ", label);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->o, fmt, ap);
    va_end(ap);
    fputc('\n', t->o);
}

/* The title line and the Configuration section: values, device, inputs, launch, compile time. */
static void term_configuration(const Term *t, const Profile *p) {
    FILE *o = t->o;
    char b1[48];
    const Resources *r = &p->res;
    const DeviceInfo *dev = &p->device;
    fprintf(o, "%sProfile: %s%s", c_on(t, "\x1b[1m"), kernel_name(p), c_off(t));
    if (p->file) fprintf(o, "  (%s)", p->file);
    if (variant_of(p)) fprintf(o, "  [its %s variant, which a launch at these sizes takes]", variant_of(p));
    fputc('\n', o);

    heading(t, "Configuration");
    if (p->info && p->info->values.len) {
        fprintf(o, "  ");
        int col = 2;
        for (int i = 0; i < p->info->values.len; i++) {
            const Sym *s = p->info->values.items[i];
            char item[128];
            int l = snprintf(item, sizeof item, "%s = %s", s->name->s, value_text(b1, s));
            if (col > 2 && col + l + 3 > 100) {
                fprintf(o, "\n  ");
                col = 2;
            }
            fprintf(o, "%s%s", col > 2 ? "   " : "", item);
            col += l + (col > 2 ? 3 : 0);
        }
        fputc('\n', o);
        if (p->tiles_for_sizes)
            fprintf(o, "  (tunables chosen for these sizes by the tile model: -v prints its prices, --set fixes them)\n");
    }
    Dtype in = input_dtype(p);
    row(t, "device", "%s (%s, %d SMs)", dev->name[0] ? dev->name : "n/a", p->arch ? p->arch : "n/a", dev->sms);
    if (in != DT_NONE) row(t, "inputs", "%s", dtype_name(in));
    if (r->grid_blocks > 0 || r->block_threads > 0)
        row(t, "launch", "%lld blocks x %d threads", r->grid_blocks, r->block_threads);
    row(t, "compile", "%s s%s", num(b1, "%.3f", p->compile_s), p->cache_hit ? " (cache hit)" : "");
}

/* The Correctness section: the check against the reference and the bitwise consistency of runs. */
static void term_correctness(const Term *t, const Profile *p) {
    char b1[48], b2[48], b3[48];
    heading(t, "Correctness");
    if (p->verified) {
        const VerifyResult *v = &p->verify;
        row(t, "verify", "%s%s%s %lld of %lld elements checked%s, %lld mismatches (max abs err %s, max rel err %s, "
            "rel fro err %s; rtol %g, atol %g)",
            c_on(t, v->passed ? "\x1b[32m" : "\x1b[31m"), v->passed ? "PASSED" : "FAILED", c_off(t),
            (long long)v->checked, (long long)v->total, v->sampled ? " (a sample)" : "", (long long)v->mismatches,
            num(b1, "%.3g", v->max_abs_err), num(b2, "%.3g", v->max_rel_err), num(b3, "%.3g", v->rel_fro_err), v->rtol,
            v->atol);
    } else {
        row(t, "verify", "%snot verified%s: the kernel has no reference", c_on(t, "\x1b[33m"), c_off(t));
    }
    if (p->consistency_runs > 0 && p->consistency_tolerant)
        row(t, "consistent", "%s%s%s over %d runs compared within the verification tolerance (float atomics make "
            "bitwise equality impossible; largest difference %.3g)", c_on(t, p->consistent ? "\x1b[32m" : "\x1b[31m"),
            p->consistent ? "yes" : "NO", c_off(t), p->consistency_runs, p->consistency_max_diff);
    else if (p->consistency_runs > 0)
        row(t, "consistent", "%s%s%s over %d runs compared bitwise", c_on(t, p->consistent ? "\x1b[32m" : "\x1b[31m"),
            p->consistent ? "yes" : "NO", c_off(t), p->consistency_runs);
    else
        row(t, "consistent", "not checked");
}

/* The Timings section: the samples' statistics and how they were taken (backend, flush, clock). */
static void term_timings(const Term *t, const Profile *p) {
    char b1[48], b2[48], b3[48], b4[48], b5[48];
    const BenchResult *b = &p->bench;
    heading(t, "Timings");
    if (!timed(p)) {
        row(t, "median", "not measured");
        return;
    }
    row(t, "median", "%s ms   (min %s, p95 %s, max %s, mean %s)", num(b1, "%.4g", b->median_ms),
        num(b2, "%.4g", b->min_ms), num(b3, "%.4g", b->p95_ms), num(b4, "%.4g", b->max_ms),
        num(b5, "%.4g", b->mean_ms));
    row(t, "samples", "%d, rel stddev %s%%, %s (%s backend%s)", b->samples, num(b1, "%.2f", 100 * b->rel_stddev),
        b->stopped_on_noise ? "stopped on noise" : "stopped on the time cap", backend_name(b->backend),
        b->backend == BENCH_GRAPH && b->launches_per_sample > 1 ? ", time per kernel" : "");
    if (b->backend_auto && b->backend == BENCH_GRAPH)
        row(t, "backend", "CUDA graphs, chosen because the kernel runs under %.0f us: event timing would count the "
            "launch's own cost", PROF_GRAPH_BELOW_US);
    if (b->backend == BENCH_GRAPH && b->launches_per_sample > 0)
        row(t, "per replay", "%d launches", b->launches_per_sample);
    row(t, "warm-up", "%d runs, %s ms", b->warmup_runs, num(b1, "%.3g", b->warmup_ms));
    char flush[256];
    row(t, "L2 flush", "%s", l2_flush_text(b, flush));
    if (b->sm_clock_mhz > 0)
        row(t, "SM clock", "%.0f MHz median (max %.0f), %d throttled sample%s", b->sm_clock_mhz,
            p->device.sm_clock_mhz, b->throttled_samples, b->throttled_samples == 1 ? "" : "s");
    else
        row(t, "SM clock", "unknown (not measured)");
    if (prof_bench_part_at_full_clock(b))
        row(t, "full clock", "%d of %d samples at %.0f MHz or within 5%%: median %s ms", b->full_clock_samples,
            b->samples, b->full_clock_mhz, num(b1, "%.4g", b->full_clock_median_ms));
}

/* A pipeline's Stages section: one row per stage, timed alone. */
static void term_stages(const Term *t, const Profile *p) {
    char b1[48], b2[48], b3[48];
    heading(t, "Stages");
    fprintf(t->o, "  %-3s %-24s %12s %7s %12s %12s  %s\n", "#", "kernel", "median (us)", "share", "TFLOP/s", "GB/s",
            "bound");
    for (int i = 0; i < p->nstages; i++) {
        const StageProfile *s = &p->stages[i];
        fprintf(t->o, "  %-3d %-24s %12s %6.1f%% %12s %12s  %s\n", i + 1, s->kernel, num(b1, "%.2f", s->bench.median_ms * 1e3),
                100 * s->share, num(b2, "%.4g", s->derived.tflops), num(b3, "%.4g", s->derived.gbps),
                s->derived.bound ? s->derived.bound : "n/a");
    }
    row(t, "", "each stage timed alone; the whole pipeline's time is under Timings");
}

/* The Resources section: registers, spills, shared memory, occupancy and waves. */
static void term_resources(const Term *t, const Profile *p) {
    char b1[48], b2[48];
    const Resources *r = &p->res;
    if (p->nstages) return; /* a pipeline's stages each have their own (--emit-sass, their --profile) */
    heading(t, "Resources");
    if (!res_known(p)) {
        row(t, "registers", "unknown");
        return;
    }
    if (r->spill_bytes >= 0) row(t, "registers", "%d per thread, %d bytes spilled", r->registers, r->spill_bytes);
    else row(t, "registers", "%d per thread, spills unknown (ptxas's counts are not in the cache entry)", r->registers);
    if (r->local_bytes > 0) row(t, "local", "%d bytes per thread", r->local_bytes);
    row(t, "shared mem", "%d static + %lld dynamic bytes per block", r->static_smem, r->dynamic_smem);
    if (r->blocks_per_sm > 0)
        row(t, "occupancy", "%s%% (%d block%s/SM), %s waves over %d SMs", num(b1, "%.0f", 100 * r->occupancy),
            r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s", num(b2, "%.2f", r->waves), p->device.sms);
    else
        row(t, "occupancy", "unknown (the driver's occupancy query failed)");
}

/* The Throughput section: work, bytes and the rates against the peaks. */
static void term_throughput(const Term *t, const Profile *p) {
    char b1[48], b2[48], b3[48];
    const Derived *d = &p->derived;
    const DeviceInfo *dev = &p->device;
    heading(t, "Throughput");
    row(t, "work", "%s (%s)", si(b1, d->flops, "FLOP"), d->flop_model ? d->flop_model : "n/a");
    row(t, "bytes", "%s (%s)", si(b1, d->bytes, "B"), d->byte_model ? d->byte_model : "n/a");
    row(t, "compute", "%s TFLOP/s = %s%% of %s TFLOP/s peak", num(b1, "%.4g", d->tflops),
        num(b2, "%.1f", d->pct_peak_compute), dev->peak_tflops > 0 ? num(b3, "%.4g", dev->peak_tflops) : "n/a");
    if (dev->peak_source) row(t, "", "(%s)", dev->peak_source);
    row(t, "memory", "%s GB/s = %s%% of %s GB/s peak (2 x memory clock x bus width)", num(b1, "%.4g", d->gbps),
        num(b2, "%.1f", d->pct_peak_bandwidth), dev->peak_gbps > 0 ? num(b3, "%.4g", dev->peak_gbps) : "n/a");
    row(t, "intensity", "%s FLOP/byte (ridge point %s)", num(b1, "%.4g", d->arithmetic_intensity),
        num(b2, "%.4g", d->ridge_point));
}

/* The Bottleneck and Top opportunities sections: the root cause and the ranked findings. */
static void term_diagnosis(const Term *t, const Profile *p) {
    char h[64];
    snprintf(h, sizeof h, "Bottleneck: %s", bound_title(p->derived.bound));
    heading(t, h);
    fprintf(t->o, "  Root cause: %s\n", p->root_cause ? p->root_cause : "not diagnosed.");

    heading(t, "Top opportunities (ranked by estimated impact)");
    if (p->n_opportunities == 0) fprintf(t->o, "  none found: every measured metric is in its healthy range\n");
    for (int i = 0; i < p->n_opportunities && i < 3; i++) fprintf(t->o, "  %d. %s\n", i + 1, p->opportunities[i]);
}


/* ---- the comparison with --baseline, shared by the terminal and markdown ---- */

typedef struct BaseRow {
    char metric[64], prev[48], cur[48], change[64];
} BaseRow;
enum { MAX_BASE_ROWS = 12 + MAX_BASELINE_STAGES };

/* "unknown" for what was not measured (NAN, or below zero for counts). */
static const char *known_or(char buf[48], const char *fmt, double v) {
    if (!known(v) || v < 0) return "unknown";
    snprintf(buf, 48, fmt, v);
    return buf;
}

static void base_row(BaseRow *r, const char *metric, const char *fmt, double prev, double cur, bool relative) {
    char a[48], b[48];
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    snprintf(r->prev, sizeof r->prev, "%s", known_or(a, fmt, prev));
    snprintf(r->cur, sizeof r->cur, "%s", known_or(b, fmt, cur));
    if (!known(prev) || !known(cur) || prev < 0 || cur < 0 || (relative && prev == 0)) snprintf(r->change, sizeof r->change, "n/a");
    else if (relative) snprintf(r->change, sizeof r->change, "%+.1f%%", 100 * (cur / prev - 1));
    else { /* in the values' own format, signed: "-17", not "-16.9911" */
        char signed_fmt[16];
        snprintf(signed_fmt, sizeof signed_fmt, "%%+%s", fmt + 1);
        snprintf(r->change, sizeof r->change, signed_fmt, cur - prev);
    }
}

/* The Metric | Previous | Current | Change rows of p against its baseline. */
static int baseline_rows(const Profile *p, BaseRow *rows) {
    const Baseline *b = p->baseline;
    const Resources *r = &p->res;
    int n = 0;
    base_row(&rows[n], "duration (ms, median)", "%.4g", b->time.median_ms, p->bench.median_ms, true);
    snprintf(rows[n].change + strlen(rows[n].change), sizeof rows[n].change - strlen(rows[n].change), " %s",
             prof_verdict_name(p->vs_baseline.verdict));
    n++;
    base_row(&rows[n++], "rel stddev (%)", "%.2f", 100 * b->time.rel_stddev, 100 * p->bench.rel_stddev, false);
    base_row(&rows[n++], "TFLOP/s", "%.4g", b->tflops, p->derived.tflops, true);
    base_row(&rows[n++], "GB/s", "%.4g", b->gbps, p->derived.gbps, true);
    if (!p->nstages) {
        base_row(&rows[n++], "registers per thread", "%.0f", b->registers, res_known(p) ? r->registers : NAN, false);
        base_row(&rows[n++], "spill bytes per thread", "%.0f", b->spill_bytes, res_known(p) ? r->spill_bytes : NAN, false);
        base_row(&rows[n++], "occupancy (%)", "%.0f", 100 * b->occupancy,
                 res_known(p) && r->blocks_per_sm > 0 ? 100 * r->occupancy : NAN, false);
    }
    base_row(&rows[n++], "SM clock (MHz, median)", "%.0f", b->sm_clock_mhz,
             p->bench.sm_clock_mhz > 0 ? p->bench.sm_clock_mhz : NAN, false);
    for (int i = 0; i < p->nstages && i < b->nstages && i < MAX_BASELINE_STAGES; i++) {
        char m[64];
        snprintf(m, sizeof m, "stage %d %.40s (us)", i + 1, p->stages[i].kernel);
        base_row(&rows[n], m, "%.2f", 1e3 * b->stages[i].time.median_ms, 1e3 * p->stages[i].bench.median_ms, true);
        size_t l = strlen(rows[n].change);
        snprintf(rows[n].change + l, sizeof rows[n].change - l, " %s", prof_verdict_name(p->stage_vs_baseline[i].verdict));
        n++;
    }
    return n;
}

/* One sentence: the verdict and what decided it. */
static void verdict_sentence(char *buf, size_t n, const TimeChange *c) {
    char pv[48] = "";
    if (known(c->p_value)) snprintf(pv, sizeof pv, ", rank test p = %.2g", c->p_value);
    switch (c->verdict) {
    case VERDICT_FASTER:
    case VERDICT_SLOWER:
        snprintf(buf, n, "%s by %.1f%%: beyond the noise (threshold %.1f%%%s)",
                 c->verdict == VERDICT_FASTER ? "faster" : "slower", 100 * fabs(c->change), 100 * c->threshold, pv);
        break;
    case VERDICT_SAME:
        snprintf(buf, n, "same: the change of %+.1f%% is within the noise (threshold %.1f%%%s)", 100 * c->change,
                 100 * c->threshold, pv);
        break;
    case VERDICT_NOISY:
        snprintf(buf, n, "noisy: a change of %+.1f%% cannot be told from the runs' noise (relative stddev above 5%%%s); "
                 "profile again with a longer --max-time", 100 * c->change, pv);
        break;
    }
}

/* Line n of the .tile file, quoted, at most 60 bytes (for the hot lines). */
static void source_line(const Profile *p, int n, char *buf, size_t size) {
    buf[0] = 0;
    if (!p->source || !p->source->text || n <= 0) return;
    source_line_text(p->source, source_line_start(p->source, (unsigned)n), buf, size < 61 ? size : 61);
}

static void reasons_text(const SourceLine *l, char *buf, size_t size) {
    buf[0] = 0;
    for (int j = 0; j < 2 && l->reason[j][0]; j++) {
        size_t at = strlen(buf);
        snprintf(buf + at, size - at, "%s%s %.0f%%", j ? ", " : "", l->reason[j], 100 * l->reason_share[j]);
    }
}

/* --ncu --lines: the hottest .tile lines, by Nsight Compute's warp stall samples. */
static void term_lines(const Term *t, const Profile *p) {
    if (!p->lines) return;
    heading(t, "Hot lines (Nsight Compute's warp stall samples)");
    if (p->lines->n == 0) {
        fprintf(t->o, "  %s\n", p->lines->note[0] ? p->lines->note : "none");
        return;
    }
    fprintf(t->o, "  %6s %6s  %-60s  %s\n", "share", "line", "source", "top stall reasons");
    for (int i = 0; i < p->lines->n; i++) {
        const SourceLine *l = &p->lines->top[i];
        char text[64], why[96];
        source_line(p, l->line, text, sizeof text);
        reasons_text(l, why, sizeof why);
        fprintf(t->o, "  %5.1f%% %6d  %-60s  %s\n", 100 * l->share, l->line, text, why);
    }
}

/* The vs Baseline section: the --compare peer's median and the speedup, or why there is none. */
static void term_baseline(const Term *t, const Profile *p) {
    char b1[48];
    heading(t, "vs Baseline");
    if (p->baseline) {
        BaseRow rows[MAX_BASE_ROWS];
        int n = baseline_rows(p, rows);
        fprintf(t->o, "  %s (%s)\n", p->baseline->path, p->baseline->device);
        fprintf(t->o, "  %-28s %14s %14s  %s\n", "Metric", "Previous", "Current", "Change");
        for (int i = 0; i < n; i++)
            fprintf(t->o, "  %-28s %14s %14s  %s\n", rows[i].metric, rows[i].prev, rows[i].cur, rows[i].change);
        char v[256];
        verdict_sentence(v, sizeof v, &p->vs_baseline);
        fprintf(t->o, "  verdict: %s%s%s\n", c_on(t, p->vs_baseline.verdict == VERDICT_SLOWER ? "\x1b[31m"
                                                   : p->vs_baseline.verdict == VERDICT_FASTER ? "\x1b[32m" : ""),
                v, c_off(t));
    }
    if (p->baseline && !p->compare.present && !p->compare.name) return;
    if (p->compare.present) {
        const char *nm = p->compare.name ? p->compare.name : "baseline";
        row(t, nm, "%s ms", num(b1, "%.4g", p->compare.median_ms));
        row(t, "tilec", "%s ms", num(b1, "%.4g", p->bench.median_ms));
        row(t, "speedup", "%sx (%s / tilec; above 1: tilec is faster)", num(b1, "%.3f", p->compare.speedup), nm);
    } else {
        fprintf(t->o, "  %s\n", p->compare.note ? p->compare.note : "none (--compare not given)");
    }
}

void prof_report_terminal(FILE *o, const Profile *p) {
    Term t = {o, false};
    const char *nc = getenv("NO_COLOR");
    t.color = isatty(fileno(o)) && !(nc && *nc);
    term_configuration(&t, p);
    term_correctness(&t, p);
    term_timings(&t, p);
    if (p->nstages) term_stages(&t, p);
    term_resources(&t, p);
    term_throughput(&t, p);
    term_diagnosis(&t, p);
    term_lines(&t, p);
    term_baseline(&t, p);
}

/* ---- JSON ---- */

/* A member of the --json file's current object (json.c writes and escapes). */
static void jopen(JsonWriter *j, const char *k) { json_key(j, k), json_object(j, JSON_LINES); }
static void jclose(JsonWriter *j) { json_end(j); }
static void jnumk(JsonWriter *j, const char *k, double v) { json_key(j, k), json_number(j, v); }
static void jintk(JsonWriter *j, const char *k, long long v) { json_key(j, k), json_int(j, v); }
static void jboolk(JsonWriter *j, const char *k, bool v) { json_key(j, k), json_bool(j, v); }
static void jstrk(JsonWriter *j, const char *k, const char *v) { json_key(j, k), json_string(j, v); }
static void jnullk(JsonWriter *j, const char *k) { json_key(j, k), json_null(j); }
/* A positive measurement, or null (0 means "not measured" in these fields). */
static void jposk(JsonWriter *j, const char *k, double v) { jnumk(j, k, v > 0 ? v : NAN); }

static void samples_array(JsonWriter *j, const BenchResult *b) {
    if (!b->sample) {
        json_null(j);
        return;
    }
    json_array(j, JSON_COMPACT);
    for (int i = 0; i < b->samples; i++) json_number(j, b->sample[i].ms);
    json_end(j);
}

static void write_json(FILE *f, const Profile *p) {
    JsonWriter j;
    json_init(&j, f, 2);
    json_object(&j, JSON_LINES);
    const Derived *d = &p->derived;
    const BenchResult *b = &p->bench;
    const Resources *r = &p->res;
    jintk(&j, "schema", p->nstages ? 2 : 1);
    jstrk(&j, "tilec", TILEC_VERSION);
    jstrk(&j, "kernel", kernel_name(p));

    jopen(&j, "values");
    for (int i = 0; p->info && i < p->info->values.len; i++) {
        const Sym *s = p->info->values.items[i];
        if (!s->has_value) jnullk(&j, s->name->s);
        else if (s->value_float) jnumk(&j, s->name->s, s->value.f);
        else jintk(&j, s->name->s, (long long)s->value.i);
    }
    jclose(&j);

    jopen(&j, "device");
    jstrk(&j, "name", p->device.name[0] ? p->device.name : NULL);
    jstrk(&j, "arch", p->arch);
    if (p->device.sms > 0) jintk(&j, "sms", p->device.sms);
    else jnullk(&j, "sms");
    jposk(&j, "peak_tflops", p->device.peak_tflops);
    jposk(&j, "peak_gbps", p->device.peak_gbps);
    jclose(&j);

    jopen(&j, "compile");
    jboolk(&j, "cache_hit", p->cache_hit);
    jnumk(&j, "seconds", p->compile_s >= 0 ? p->compile_s : NAN);
    if (res_known(p)) {
        jintk(&j, "registers", r->registers);
        jintk(&j, "shared_bytes", (long long)r->static_smem + r->dynamic_smem);
        if (r->spill_bytes >= 0) jintk(&j, "spill_bytes", r->spill_bytes);
        else jnullk(&j, "spill_bytes");
        jposk(&j, "occupancy", r->occupancy);
    } else {
        jnullk(&j, "registers");
        jnullk(&j, "shared_bytes");
        jnullk(&j, "spill_bytes");
        jnullk(&j, "occupancy");
    }
    jclose(&j);

    jopen(&j, "verify");
    if (p->verified) {
        const VerifyResult *v = &p->verify;
        jboolk(&j, "passed", v->passed);
        jintk(&j, "checked", (long long)v->checked);
        jintk(&j, "mismatches", (long long)v->mismatches);
        jnumk(&j, "max_abs_err", v->max_abs_err);
        jnumk(&j, "max_rel_err", v->max_rel_err);
        jnumk(&j, "rel_fro_err", v->rel_fro_err);
        jnumk(&j, "rtol", v->rtol);
        jnumk(&j, "atol", v->atol);
    } else {
        static const char *const vk[] = {"passed", "checked", "mismatches", "max_abs_err", "max_rel_err",
                                         "rel_fro_err", "rtol", "atol"};
        for (size_t i = 0; i < sizeof vk / sizeof vk[0]; i++) jnullk(&j, vk[i]);
    }
    jclose(&j);

    jopen(&j, "consistent");
    if (p->consistency_runs > 0) jboolk(&j, "passed", p->consistent);
    else jnullk(&j, "passed");
    jintk(&j, "runs", p->consistency_runs);
    /* false: compared within the verification tolerance (float atomics) */
    if (p->consistency_runs > 0) jboolk(&j, "bitwise", !p->consistency_tolerant);
    else jnullk(&j, "bitwise");
    jclose(&j);

    jopen(&j, "bench");
    if (timed(p)) {
        jstrk(&j, "backend", backend_name(b->backend));
        jintk(&j, "samples", b->samples);
        jnumk(&j, "median_ms", b->median_ms);
        jnumk(&j, "min_ms", b->min_ms);
        jnumk(&j, "max_ms", b->max_ms);
        jnumk(&j, "p95_ms", b->p95_ms);
        jnumk(&j, "rel_stddev", b->rel_stddev);
        jboolk(&j, "l2_flush", b->l2_flush);
        jposk(&j, "sm_clock_mhz", b->sm_clock_mhz);
        jintk(&j, "throttled_samples", b->throttled_samples);
        jposk(&j, "full_clock_median_ms", b->full_clock_median_ms);
        jintk(&j, "full_clock_samples", b->full_clock_samples);
        json_key(&j, "samples_ms"); /* for a later --baseline's rank test */
        samples_array(&j, b);
    } else {
        static const char *const bk[] = {"backend", "samples", "median_ms", "min_ms", "max_ms",
                                         "p95_ms", "rel_stddev", "l2_flush", "sm_clock_mhz", "throttled_samples",
                                         "full_clock_median_ms", "full_clock_samples"};
        for (size_t i = 0; i < sizeof bk / sizeof bk[0]; i++) jnullk(&j, bk[i]);
    }
    jclose(&j);

    jopen(&j, "derived");
    jnumk(&j, "flops", d->flops);
    jnumk(&j, "bytes", d->bytes);
    jstrk(&j, "flop_model", d->flop_model);
    jnumk(&j, "tflops", d->tflops);
    jnumk(&j, "gbps", d->gbps);
    jnumk(&j, "pct_peak_compute", d->pct_peak_compute);
    jnumk(&j, "pct_peak_bandwidth", d->pct_peak_bandwidth);
    jstrk(&j, "bound", d->bound);
    jclose(&j);

    /* schema 2 (pipelines): the stages, each timed alone */
    if (p->nstages) {
        json_key(&j, "stages");
        json_array(&j, JSON_LINES);
        for (int i = 0; i < p->nstages; i++) {
            const StageProfile *s = &p->stages[i];
            json_object(&j, JSON_COMPACT);
            jintk(&j, "index", i + 1);
            jstrk(&j, "kernel", s->kernel);
            jnumk(&j, "median_ms", s->bench.median_ms);
            jnumk(&j, "share", s->share);
            jnumk(&j, "flops", s->derived.flops);
            jnumk(&j, "bytes", s->derived.bytes);
            jnumk(&j, "tflops", s->derived.tflops);
            jnumk(&j, "gbps", s->derived.gbps);
            jnumk(&j, "pct_peak_compute", s->derived.pct_peak_compute);
            jnumk(&j, "pct_peak_bandwidth", s->derived.pct_peak_bandwidth);
            jstrk(&j, "bound", s->derived.bound);
            json_key(&j, "samples_ms");
            samples_array(&j, &s->bench);
            json_end(&j);
        }
        json_end(&j);
    }

    if (p->lines) { /* --ncu --lines (absent without it) */
        json_key(&j, "lines");
        json_array(&j, JSON_LINES);
        for (int i = 0; i < p->lines->n; i++) {
            const SourceLine *l = &p->lines->top[i];
            char text[64];
            source_line(p, l->line, text, sizeof text);
            json_object(&j, JSON_COMPACT);
            jintk(&j, "line", l->line);
            jstrk(&j, "source", text);
            jnumk(&j, "samples", l->samples);
            jnumk(&j, "share", l->share);
            json_key(&j, "reasons");
            json_array(&j, JSON_COMPACT);
            for (int k = 0; k < 2 && l->reason[k][0]; k++) {
                json_object(&j, JSON_COMPACT);
                jstrk(&j, "name", l->reason[k]);
                jnumk(&j, "share", l->reason_share[k]);
                json_end(&j);
            }
            json_end(&j);
            json_end(&j);
        }
        json_end(&j);
    }
    if (p->baseline) { /* --baseline's comparison (absent without one) */
        const TimeChange *c = &p->vs_baseline;
        jopen(&j, "baseline");
        jstrk(&j, "file", p->baseline->path);
        jnumk(&j, "median_ms", p->baseline->time.median_ms);
        jnumk(&j, "sm_clock_mhz", p->baseline->sm_clock_mhz);
        jnumk(&j, "change", c->change);
        jnumk(&j, "threshold", c->threshold);
        jnumk(&j, "p_value", c->p_value);
        jstrk(&j, "verdict", prof_verdict_name(c->verdict));
        if (p->nstages) {
            json_key(&j, "stages");
            json_array(&j, JSON_COMPACT);
            for (int i = 0; i < p->nstages && i < MAX_BASELINE_STAGES; i++) {
                json_object(&j, JSON_COMPACT);
                jnumk(&j, "median_ms", p->baseline->stages[i].time.median_ms);
                jnumk(&j, "change", p->stage_vs_baseline[i].change);
                jstrk(&j, "verdict", prof_verdict_name(p->stage_vs_baseline[i].verdict));
                json_end(&j);
            }
            json_end(&j);
        }
        jclose(&j);
    }

    /* Asked for (a name) but not measured: the object with null numbers. */
    if (p->compare.present || p->compare.name) {
        jopen(&j, "compare");
        jstrk(&j, "name", p->compare.name);
        jposk(&j, "median_ms", p->compare.present ? p->compare.median_ms : NAN);
        jposk(&j, "speedup", p->compare.present ? p->compare.speedup : NAN);
        jclose(&j);
    } else {
        jnullk(&j, "compare");
    }
    json_end(&j);
    fputc('\n', f);
}

void prof_json_print(FILE *f, const Profile *p) { write_json(f, p); }

bool prof_write_json(const char *path, const Profile *p, char err[256]) {
    return write_atomic(path, p, write_json, err);
}

/* ---- markdown ---- */

/* Text for a table cell: '|' escaped, newlines as spaces. */
static void mdcell(FILE *f, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

static void mdrow(FILE *f, const char *k, const char *v) {
    fputs("| ", f);
    mdcell(f, k);
    fputs(" | ", f);
    mdcell(f, v);
    fputs(" |\n", f);
}

/* The title and the Configuration table's rows for the values, device, inputs, launch, compile time. */
static void md_configuration(FILE *f, const Profile *p) {
    char b1[48], v[512];
    const Resources *r = &p->res;
    const DeviceInfo *dev = &p->device;
    fprintf(f, "## Profile: ");
    mdcell(f, kernel_name(p));
    if (p->file) {
        fputs(" (", f);
        mdcell(f, p->file);
        fputs(")", f);
    }
    fputs("\n\n### Configuration\n", f);
    fputs("| Name | Value |\n|---|---|\n", f);
    for (int i = 0; p->info && i < p->info->values.len; i++) {
        const Sym *s = p->info->values.items[i];
        mdrow(f, s->name->s, value_text(b1, s));
    }
    Dtype in = input_dtype(p);
    mdrow(f, "dtype (first input)", in == DT_NONE ? "n/a" : dtype_name(in));
    snprintf(v, sizeof v, "%s (%s, %d SMs)", dev->name[0] ? dev->name : "n/a", p->arch ? p->arch : "n/a", dev->sms);
    mdrow(f, "device", v);
    if (r->grid_blocks > 0 || r->block_threads > 0) {
        snprintf(v, sizeof v, "%lld blocks x %d threads", r->grid_blocks, r->block_threads);
        mdrow(f, "launch", v);
    }
    snprintf(v, sizeof v, "%s s%s", num(b1, "%.3f", p->compile_s), p->cache_hit ? " (cache hit)" : "");
    mdrow(f, "compile", v);
}

/* The Configuration table's rows for the reference check and the bitwise consistency of runs. */
static void md_correctness(FILE *f, const Profile *p) {
    char b1[48], b2[48], v[512];
    if (p->verified) {
        snprintf(v, sizeof v, "%s: %lld of %lld elements checked%s, %lld mismatches, max abs err %s, max rel err %s",
                 p->verify.passed ? "PASSED" : "FAILED", (long long)p->verify.checked, (long long)p->verify.total,
                 p->verify.sampled ? " (a sample)" : "", (long long)p->verify.mismatches,
                 num(b1, "%.3g", p->verify.max_abs_err), num(b2, "%.3g", p->verify.max_rel_err));
        mdrow(f, "verify", v);
    } else {
        mdrow(f, "verify", "not verified: no reference");
    }
    if (p->consistency_runs > 0) {
        if (p->consistency_tolerant)
            snprintf(v, sizeof v, "%s over %d runs (within the verification tolerance: float atomics; largest "
                     "difference %.3g)", p->consistent ? "agree" : "INCONSISTENT", p->consistency_runs,
                     p->consistency_max_diff);
        else
            snprintf(v, sizeof v, "%s over %d runs", p->consistent ? "bitwise identical" : "INCONSISTENT",
                     p->consistency_runs);
        mdrow(f, "consistent", v);
    } else {
        mdrow(f, "consistent", "not checked");
    }
}

/* The Stages table: the kernel's one row of time, % of peaks, occupancy, bound and key issue. */
static void md_stages(FILE *f, const Profile *p) {
    char b1[48], b2[48], b3[48], v[512];
    const Derived *d = &p->derived;
    const Resources *r = &p->res;
    fputs("\n### Stages\n", f);
    fputs("| Stage | Duration (us) | TC% | DRAM% | Occ% | Bottleneck | Key Issue |\n", f);
    fputs("|-------|---------------|-----|-------|------|------------|-----------|\n", f);
    if (p->nstages) { /* a pipeline: one row per stage, its share as the key issue's context */
        for (int i = 0; i < p->nstages; i++) {
            const StageProfile *s = &p->stages[i];
            fprintf(f, "| %d. ", i + 1);
            mdcell(f, s->kernel);
            fprintf(f, " | %s | %s | %s | n/a | %s | %.1f%% of the pipeline's time |\n",
                    num(b1, "%.2f", s->bench.median_ms * 1e3), num(b2, "%.1f", s->derived.pct_peak_compute),
                    num(b3, "%.1f", s->derived.pct_peak_bandwidth), bound_title(s->derived.bound), 100 * s->share);
        }
        return;
    }
    char issue[200] = "none";
    if (p->n_opportunities > 0 && p->opportunities[0]) opportunity_name(issue, sizeof issue, p->opportunities[0]);
    fputs("| ", f);
    mdcell(f, kernel_name(p));
    fprintf(f, " | %s | %s | %s | %s | %s | ", timed(p) ? num(b1, "%.2f", p->bench.median_ms * 1e3) : "n/a",
            num(b2, "%.1f", d->pct_peak_compute), num(b3, "%.1f", d->pct_peak_bandwidth),
            res_known(p) && r->occupancy > 0 ? num(v, "%.0f", 100 * r->occupancy) : "n/a", bound_title(d->bound));
    mdcell(f, issue);
    fputs(" |\n", f);
}

/* The Timings table: the samples' statistics and how they were taken (backend, flush, clock). */
static void md_timings(FILE *f, const Profile *p) {
    char b1[48], v[512];
    const BenchResult *b = &p->bench;
    fputs("\n### Timings\n| Metric | Value |\n|---|---|\n", f);
    if (!timed(p)) {
        mdrow(f, "median (ms)", "not measured");
        return;
    }
    mdrow(f, "median (ms)", num(b1, "%.6g", b->median_ms));
    mdrow(f, "min (ms)", num(b1, "%.6g", b->min_ms));
    mdrow(f, "p95 (ms)", num(b1, "%.6g", b->p95_ms));
    mdrow(f, "max (ms)", num(b1, "%.6g", b->max_ms));
    mdrow(f, "mean (ms)", num(b1, "%.6g", b->mean_ms));
    snprintf(v, sizeof v, "%d (%s)", b->samples, b->stopped_on_noise ? "stopped on noise" : "stopped on the time cap");
    mdrow(f, "samples", v);
    mdrow(f, "rel stddev (%)", num(b1, "%.2f", 100 * b->rel_stddev));
    snprintf(v, sizeof v, "%s%s%s", backend_name(b->backend),
             b->backend == BENCH_GRAPH ? " (CUDA-graph replays, time per kernel)" : " (CUDA events per launch)",
             b->backend_auto && b->backend == BENCH_GRAPH ? "; chosen: the kernel runs under 10 us" : "");
    mdrow(f, "backend", v);
    snprintf(v, sizeof v, "%d runs, %s ms", b->warmup_runs, num(b1, "%.3g", b->warmup_ms));
    mdrow(f, "warm-up", v);
    mdrow(f, "L2 flush", l2_flush_text(b, v));
    if (b->sm_clock_mhz > 0)
        snprintf(v, sizeof v, "%.0f MHz median, %d throttled samples", b->sm_clock_mhz, b->throttled_samples);
    else
        snprintf(v, sizeof v, "unknown (not measured)");
    mdrow(f, "SM clock", v);
    if (prof_bench_part_at_full_clock(b)) {
        snprintf(v, sizeof v, "%s (%d of %d samples at %.0f MHz or within 5%%)",
                 num(b1, "%.4g", b->full_clock_median_ms), b->full_clock_samples, b->samples, b->full_clock_mhz);
        mdrow(f, "median at full clock (ms)", v);
    }
}

/* The Resources table: registers, spills, shared memory, occupancy and waves. */
static void md_resources(FILE *f, const Profile *p) {
    char b1[48], v[512];
    const Resources *r = &p->res;
    fputs("\n### Resources\n| Metric | Value |\n|---|---|\n", f);
    if (!res_known(p)) {
        mdrow(f, "registers per thread", "unknown");
        return;
    }
    snprintf(v, sizeof v, "%d", r->registers);
    mdrow(f, "registers per thread", v);
    if (r->spill_bytes >= 0) snprintf(v, sizeof v, "%d", r->spill_bytes);
    else snprintf(v, sizeof v, "unknown");
    mdrow(f, "spill bytes per thread", v);
    snprintf(v, sizeof v, "%d static + %lld dynamic", r->static_smem, r->dynamic_smem);
    mdrow(f, "shared memory per block (bytes)", v);
    if (r->blocks_per_sm > 0)
        snprintf(v, sizeof v, "%s%% (%d block%s/SM)", num(b1, "%.0f", 100 * r->occupancy), r->blocks_per_sm,
                 r->blocks_per_sm == 1 ? "" : "s");
    else
        snprintf(v, sizeof v, "unknown");
    mdrow(f, "occupancy", v);
    mdrow(f, "waves", r->blocks_per_sm > 0 ? num(b1, "%.2f", r->waves) : "unknown");
}

/* The Throughput table: FLOPs and bytes with their models, the rates against the peaks. */
static void md_throughput(FILE *f, const Profile *p) {
    char b1[48], b2[48], b3[48];
    const Derived *d = &p->derived;
    const DeviceInfo *dev = &p->device;
    fputs("\n### Throughput\n| Metric | Value | Model |\n|---|---|---|\n", f);
    fprintf(f, "| FLOPs | %s | ", num(b1, "%.6g", d->flops));
    mdcell(f, d->flop_model ? d->flop_model : "n/a");
    fprintf(f, " |\n| bytes | %s | ", num(b1, "%.6g", d->bytes));
    mdcell(f, d->byte_model ? d->byte_model : "n/a");
    fprintf(f, " |\n| TFLOP/s | %s | %s%% of %s peak; ", num(b1, "%.4g", d->tflops), num(b2, "%.1f", d->pct_peak_compute),
            dev->peak_tflops > 0 ? num(b3, "%.4g", dev->peak_tflops) : "n/a");
    mdcell(f, dev->peak_source ? dev->peak_source : "no peak source");
    fprintf(f, " |\n| GB/s | %s | %s%% of %s peak (2 x memory clock x bus width) |\n", num(b1, "%.4g", d->gbps),
            num(b2, "%.1f", d->pct_peak_bandwidth), dev->peak_gbps > 0 ? num(b3, "%.4g", dev->peak_gbps) : "n/a");
    fprintf(f, "| arithmetic intensity (FLOP/byte) | %s | ridge point %s |\n", num(b1, "%.4g", d->arithmetic_intensity),
            num(b2, "%.4g", d->ridge_point));
}

/* The Bottleneck and Top 3 Opportunities sections: the root cause and the ranked findings. */
static void md_diagnosis(FILE *f, const Profile *p) {
    fprintf(f, "\n### Bottleneck: %s\nRoot cause: %s\n", bound_title(p->derived.bound),
            p->root_cause ? p->root_cause : "not diagnosed.");

    fputs("\n### Top 3 Opportunities (ranked by estimated impact)\n", f);
    if (p->n_opportunities == 0) fputs("None found: every measured metric is in its healthy range.\n", f);
    for (int i = 0; i < p->n_opportunities && i < 3; i++) fprintf(f, "%d. %s\n", i + 1, p->opportunities[i]);
}

static void md_lines(FILE *f, const Profile *p) {
    if (!p->lines) return;
    fputs("\n### Hot lines (Nsight Compute's warp stall samples)\n", f);
    if (p->lines->n == 0) {
        fprintf(f, "%s\n", p->lines->note[0] ? p->lines->note : "None.");
        return;
    }
    fputs("| share | line | source | top stall reasons |\n|---|---|---|---|\n", f);
    for (int i = 0; i < p->lines->n; i++) {
        const SourceLine *l = &p->lines->top[i];
        char text[64], why[96];
        source_line(p, l->line, text, sizeof text);
        reasons_text(l, why, sizeof why);
        fprintf(f, "| %.1f%% | %d | `", 100 * l->share, l->line);
        mdcell(f, text);
        fprintf(f, "` | %s |\n", why);
    }
}

/* The vs Baseline section: the --compare peer's median against tilec's, or why there is none. */
static void md_baseline(FILE *f, const Profile *p) {
    char b1[48], b2[48], b3[48];
    fputs("\n### vs Baseline\n", f);
    if (p->baseline) {
        BaseRow rows[MAX_BASE_ROWS];
        int n = baseline_rows(p, rows);
        fputs("Previous: `", f);
        mdcell(f, p->baseline->path);
        fputs("`\n\n| Metric | Previous | Current | Change |\n|---|---|---|---|\n", f);
        for (int i = 0; i < n; i++) {
            fputs("| ", f);
            mdcell(f, rows[i].metric);
            fprintf(f, " | %s | %s | %s |\n", rows[i].prev, rows[i].cur, rows[i].change);
        }
        char v[256];
        verdict_sentence(v, sizeof v, &p->vs_baseline);
        fprintf(f, "\nVerdict: %s\n\n", v);
    }
    if (p->baseline && !p->compare.present && !p->compare.name) return;
    if (p->compare.present) {
        const char *nm = p->compare.name ? p->compare.name : "baseline";
        fputs("| Metric | ", f);
        mdcell(f, nm);
        fputs(" | tilec | Change |\n|--------|---------|---------|--------|\n", f);
        fprintf(f, "| median (ms) | %s | %s | %sx |\n", num(b1, "%.4g", p->compare.median_ms),
                num(b2, "%.4g", p->bench.median_ms), num(b3, "%.3f", p->compare.speedup));
    } else {
        fprintf(f, "%s\n", p->compare.note ? p->compare.note : "No baseline (--compare not given).");
    }
}

static void write_markdown(FILE *f, const Profile *p) {
    md_configuration(f, p);
    md_correctness(f, p);
    md_stages(f, p);
    md_timings(f, p);
    md_resources(f, p);
    md_throughput(f, p);
    md_diagnosis(f, p);
    md_lines(f, p);
    md_baseline(f, p);
}

bool prof_write_markdown(const char *path, const Profile *p, char err[256]) {
    return write_atomic(path, p, write_markdown, err);
}

/* ---- Chrome trace ---- */

enum { PID_HOST = 1, PID_GPU = 2, TID_COMPILE = 1, TID_STREAM = 1 };

/* An event's track (process and thread), then its "args" opened. */
static void trace_args(JsonWriter *j, int pid, int tid) {
    json_key(j, "pid");
    json_int(j, pid);
    json_key(j, "tid");
    json_int(j, tid);
    json_key(j, "args");
    json_object(j, JSON_COMPACT);
}

/* Opens an event ("ph":"X") and its "args"; the caller adds the arguments
 * and closes both. */
static void trace_event(JsonWriter *j, const char *name, const char *cat, double ts, double dur, int pid, int tid) {
    json_object(j, JSON_COMPACT);
    json_key(j, "name");
    json_string(j, name);
    json_key(j, "cat");
    json_string(j, cat);
    json_key(j, "ph");
    json_string(j, "X");
    json_key(j, "ts");
    json_number(j, ts);
    json_key(j, "dur");
    json_number(j, dur > 0 ? dur : 0);
    trace_args(j, pid, tid);
}

static void trace_end_event(JsonWriter *j) {
    json_end(j);
    json_end(j);
}

/* A metadata event naming a process or a thread. */
static void trace_meta(JsonWriter *j, const char *what, int pid, int tid, const char *name) {
    json_object(j, JSON_COMPACT);
    json_key(j, "name");
    json_string(j, what);
    json_key(j, "ph");
    json_string(j, "M");
    json_key(j, "ts");
    json_int(j, 0);
    trace_args(j, pid, tid);
    json_key(j, "name");
    json_string(j, name);
    trace_end_event(j);
}

/* The samples on the GPU track from t (us): each after its L2 flush.
 * Returns when the last one ends. */
static double trace_samples(JsonWriter *j, const Profile *p, double t) {
    const BenchResult *b = &p->bench;
    /* The benchmark's origin: early enough that the first flush fits. */
    double lead = 0;
    for (int i = 0; i < b->samples && b->sample; i++) {
        double need = (b->l2_flush ? b->sample[i].flush_us : 0) - b->sample[i].start_us;
        if (need > lead) lead = need;
    }
    double origin = t + lead, cursor = t;
    int per = b->backend == BENCH_GRAPH && b->launches_per_sample > 1 ? b->launches_per_sample : 1;
    for (int i = 0; i < b->samples && b->sample; i++) {
        const BenchSample *s = &b->sample[i];
        double start = origin + (known(s->start_us) ? s->start_us : 0);
        if (b->l2_flush && s->flush_us > 0) {
            double fs = start - s->flush_us;
            if (fs < cursor) fs = cursor;
            trace_event(j, "L2 flush", "gpu", fs, s->flush_us, PID_GPU, TID_STREAM);
            json_key(j, "sample");
            json_int(j, i);
            json_key(j, "bytes");
            json_int(j, b->l2_flush_bytes);
            trace_end_event(j);
            cursor = fs + s->flush_us;
        }
        if (start < cursor) start = cursor;
        double dur = known(s->ms) && s->ms > 0 ? s->ms * 1e3 * per : 0;
        trace_event(j, kernel_name(p), "kernel", start, dur, PID_GPU, TID_STREAM);
        json_key(j, "sample");
        json_int(j, i);
        json_key(j, "ms");
        json_number(j, s->ms);
        if (per > 1) {
            json_key(j, "launches");
            json_int(j, per);
        }
        json_key(j, "sm_clock_mhz");
        json_number(j, s->sm_clock_mhz > 0 ? s->sm_clock_mhz : NAN);
        json_key(j, "throttled");
        json_bool(j, s->throttled);
        trace_end_event(j);
        cursor = start + dur;
    }
    return cursor;
}

/* Time line (us): compile from 0, then the warm-up, then the samples at
 * their host start times, each after its L2 flush. Events on one track
 * never overlap (Perfetto rejects misnested slices), so an event that
 * would start before the previous one ended is moved after it. One event a
 * line. */
static void write_trace(FILE *f, const Profile *p) {
    const BenchResult *b = &p->bench;
    char gpu[300];
    snprintf(gpu, sizeof gpu, "GPU: %s", p->device.name[0] ? p->device.name : "device");
    JsonWriter j;
    json_init(&j, f, 0);
    json_object(&j, JSON_COMPACT);
    json_key(&j, "displayTimeUnit");
    json_string(&j, "ms");
    json_key(&j, "traceEvents");
    json_array(&j, JSON_LINES);
    trace_meta(&j, "process_name", PID_HOST, 0, "tilec (host)");
    trace_meta(&j, "process_name", PID_GPU, 0, gpu);
    trace_meta(&j, "thread_name", PID_HOST, TID_COMPILE, "compile");
    trace_meta(&j, "thread_name", PID_GPU, TID_STREAM, "stream 1 (timing)");

    double compile_us = known(p->compile_s) && p->compile_s > 0 ? p->compile_s * 1e6 : 0;
    trace_event(&j, "compile", "host", 0, compile_us, PID_HOST, TID_COMPILE);
    json_key(&j, "kernel");
    json_string(&j, kernel_name(p));
    json_key(&j, "cache_hit");
    json_bool(&j, p->cache_hit);
    trace_end_event(&j);
    double t = compile_us;
    double warm_us = known(b->warmup_ms) && b->warmup_ms > 0 ? b->warmup_ms * 1e3 : 0;
    if (b->warmup_runs > 0 || warm_us > 0) {
        trace_event(&j, "warm-up", "gpu", t, warm_us, PID_GPU, TID_STREAM);
        json_key(&j, "runs");
        json_int(&j, b->warmup_runs);
        trace_end_event(&j);
        t += warm_us;
    }
    double end = trace_samples(&j, p, t);
    /* a pipeline: its stages' spans in one run of the whole, after the samples */
    if (p->nstages) {
        double at = end + 10;
        for (int i = 0; i < p->nstages; i++) {
            const StageProfile *s = &p->stages[i];
            trace_event(&j, s->kernel, "stage", at + s->span_start_us, s->span_us, PID_GPU, TID_STREAM);
            json_key(&j, "stage");
            json_int(&j, i + 1);
            json_key(&j, "share");
            json_number(&j, s->share);
            trace_end_event(&j);
        }
    }
    json_end(&j);
    json_end(&j);
    fputc('\n', f);
}

bool prof_write_trace(const char *path, const Profile *p, char err[256]) {
    return write_atomic(path, p, write_trace, err);
}

/* ---- roofline SVG ---- */

static void xml_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);
            break;
        }
    }
}

enum { SVG_W = 760, SVG_H = 520, PL = 90, PR = 40, PT = 50, PB = 70 };

typedef struct Axes {
    double lx0, lx1, ly0, ly1; /* log10 of the ranges */
} Axes;

static double sx(const Axes *a, double x) { return PL + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * (SVG_W - PL - PR); }
static double sy(const Axes *a, double y) {
    return SVG_H - PB - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (SVG_H - PT - PB);
}

static void write_svg(FILE *f, const Profile *p) {
    const Derived *d = &p->derived;
    const DeviceInfo *dev = &p->device;
    double bw = dev->peak_gbps > 0 ? dev->peak_gbps / 1e3 : NAN; /* TFLOP/s per FLOP/byte */
    double peak = dev->peak_tflops > 0 ? dev->peak_tflops : NAN;
    double ridge = known(bw) && known(peak) ? peak / bw : NAN;
    double ai = d->arithmetic_intensity, perf = d->tflops;
    bool point = known(ai) && ai > 0 && known(perf) && perf > 0;

    /* Ranges: a decade around everything that is drawn. */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    if (known(ridge)) xmin = fmin(xmin, ridge), xmax = fmax(xmax, ridge);
    if (point) xmin = fmin(xmin, ai), xmax = fmax(xmax, ai), ymin = fmin(ymin, perf), ymax = fmax(ymax, perf);
    if (!isfinite(xmin)) xmin = 1, xmax = 100;
    Axes a;
    a.lx0 = floor(log10(xmin)) - 1;
    a.lx1 = ceil(log10(xmax)) + 1;
    if (known(peak)) ymax = fmax(ymax, peak);
    if (known(bw)) ymin = fmin(ymin, bw * pow(10, a.lx0 + 0.5));
    if (known(peak)) ymin = fmin(ymin, peak / 100);
    if (!isfinite(ymin)) ymin = 1, ymax = 100;
    a.ly1 = ceil(log10(ymax * 1.5));
    a.ly0 = floor(log10(ymin));
    if (a.ly1 - a.ly0 > 8) a.ly0 = a.ly1 - 8;
    if (a.ly1 <= a.ly0) a.ly1 = a.ly0 + 1;

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            SVG_W, SVG_H, SVG_W, SVG_H);
    fprintf(f, "<title>Roofline: ");
    xml_text(f, kernel_name(p));
    fputs("</title>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_W, SVG_H);
    fprintf(f, "<defs><clipPath id=\"plot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath></defs>\n",
            PL, PT, SVG_W - PL - PR, SVG_H - PT - PB);
    fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"15\" font-weight=\"bold\">Roofline: ", PL);
    xml_text(f, kernel_name(p));
    if (dev->name[0]) {
        fputs(" on ", f);
        xml_text(f, dev->name);
    }
    Dtype in = input_dtype(p);
    if (in != DT_NONE) fprintf(f, " (%s)", dtype_name(in));
    fputs("</text>\n", f);

    /* Grid and decade labels. */
    fputs("<g stroke=\"#dddddd\" stroke-width=\"1\">\n", f);
    for (int e = (int)a.lx0; e <= (int)a.lx1; e++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", sx(&a, pow(10, e)), PT,
                sx(&a, pow(10, e)), SVG_H - PB);
    for (int e = (int)a.ly0; e <= (int)a.ly1; e++)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", PL, sy(&a, pow(10, e)), SVG_W - PR,
                sy(&a, pow(10, e)));
    fputs("</g>\n<g fill=\"#333333\">\n", f);
    for (int e = (int)a.lx0; e <= (int)a.lx1; e++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", sx(&a, pow(10, e)),
                SVG_H - PB + 18, pow(10, e));
    for (int e = (int)a.ly0; e <= (int)a.ly1; e++)
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", PL - 8, sy(&a, pow(10, e)) + 4,
                pow(10, e));
    fputs("</g>\n", f);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", PL, PT,
            SVG_W - PL - PR, SVG_H - PT - PB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">Arithmetic intensity (FLOP/byte)</text>\n",
            PL + (SVG_W - PL - PR) / 2, SVG_H - 22);
    fprintf(f, "<text x=\"22\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 22 %d)\">TFLOP/s</text>\n",
            PT + (SVG_H - PT - PB) / 2, PT + (SVG_H - PT - PB) / 2);

    /* The roofs, clipped to the plot. */
    double x0 = pow(10, a.lx0), x1 = pow(10, a.lx1);
    fputs("<g clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2.5\">\n", f);
    if (known(bw)) {
        double xe = known(ridge) ? ridge : x1;
        fprintf(f, "<line class=\"memory-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\"/>\n",
                sx(&a, x0), sy(&a, bw * x0), sx(&a, xe), sy(&a, bw * xe));
    }
    if (known(peak)) {
        double xs = known(ridge) ? ridge : x0;
        fprintf(f, "<line class=\"compute-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\"/>\n",
                sx(&a, xs), sy(&a, peak), sx(&a, x1), sy(&a, peak));
    }
    if (known(ridge))
        fprintf(f, "<line class=\"ridge\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7f7f7f\" "
                   "stroke-width=\"1\" stroke-dasharray=\"4,4\"/>\n",
                sx(&a, ridge), SVG_H - PB, sx(&a, ridge), sy(&a, peak));
    fputs("</g>\n", f);
    if (known(bw))
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#1f77b4\">memory roof: %.4g GB/s</text>\n", PL + 10, PT + 18,
                dev->peak_gbps);
    if (known(peak))
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#d62728\">compute roof: %.4g TFLOP/s</text>\n", PL + 10, PT + 34,
                peak);
    if (known(ridge))
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#7f7f7f\" text-anchor=\"middle\">ridge %.3g FLOP/B</text>\n",
                sx(&a, ridge), SVG_H - PB - 6, ridge);
    if (!known(bw) || !known(peak))
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#7f7f7f\">%s unknown: %s</text>\n", PL + 10, PT + 50,
                !known(bw) && !known(peak) ? "both roofs" : !known(bw) ? "the memory roof" : "the compute roof",
                "the device's peaks were not available");

    /* The kernel. */
    if (point) {
        double px = sx(&a, ai), py = sy(&a, perf);
        fprintf(f, "<circle class=\"kernel\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#2ca02c\" stroke=\"black\"/>\n",
                px, py);
        bool left = px > SVG_W - PR - 200;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-weight=\"bold\">", left ? px - 10 : px + 10,
                py - 8, left ? "end" : "start");
        xml_text(f, kernel_name(p));
        fprintf(f, ": %.4g TFLOP/s", perf);
        if (known(d->pct_peak_compute)) fprintf(f, " (%.0f%% of peak)", d->pct_peak_compute);
        fputs("</text>\n", f);
    } else {
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#7f7f7f\">the kernel is not placed: %s</text>\n", PL + 10, PT + 66,
                !known(perf) ? "it was not timed or its FLOPs are unknown"
                             : "no FLOPs or no bytes, so no point on a log scale");
    }
    fputs("</svg>\n", f);
}

bool prof_write_roofline_svg(const char *path, const Profile *p, char err[256]) {
    return write_atomic(path, p, write_svg, err);
}
