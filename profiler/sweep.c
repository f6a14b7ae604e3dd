/* sweep.c - what `--sweep` prints and writes once every point is
 * profiled: the table, --csv, --plot (an SVG 1.1 line chart of the rate
 * against the first swept size, the --compare peer as a second line and
 * the roofline ceiling dashed), and --json (an array of the points'
 * schema objects, written by the driver). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

static bool known(double x) { return isfinite(x); }

/* What the table and the plot show per point: TFLOP/s where the kernel's
 * FLOPs are known and not trivial against its bytes, else GB/s. */
static bool rate_is_flops(const SweepRow *rows, int n) {
    for (int i = 0; i < n; i++)
        if (rows[i].s.timed && !(known(rows[i].s.flops) && rows[i].s.flops > 0 && rows[i].s.bound &&
                                 strcmp(rows[i].s.bound, "memory") != 0))
            return false;
    return n > 0;
}

static double rate(const ProfileSummary *s, bool flops, double ms) {
    if (!(ms > 0)) return NAN;
    return flops ? s->flops / (ms * 1e-3) / 1e12 : s->bytes / (ms * 1e-3) / 1e9;
}

/* The roofline's ceiling at this point's arithmetic intensity. */
static double ceiling(const ProfileSummary *s, bool flops) {
    if (flops) {
        if (!(s->peak_tflops > 0)) return NAN;
        double mem = known(s->bytes) && s->bytes > 0 && s->peak_gbps > 0 ? s->flops / s->bytes * s->peak_gbps / 1e3 : INFINITY;
        return fmin(s->peak_tflops, mem);
    }
    return s->peak_gbps > 0 ? s->peak_gbps : NAN;
}

const char *prof_sweep_verdict(const ProfileSummary *s) {
    if (!s->timed || !known(s->compare_ms)) return "";
    double speedup = s->compare_ms / s->median_ms;
    return speedup > 1.02 ? "faster" : speedup < 0.98 ? "slower" : "same";
}

void prof_sweep_table(FILE *o, const Sweep *w, const SweepRow *rows, int n) {
    int compiles = 0;
    for (int i = 0; i < n; i++) compiles += rows[i].s.timed && !rows[i].s.cache_hit;
    fprintf(o, "Sweep of '%s': %d point%s, %d compiled (the others from the cache)\n", w->kernel, n, n == 1 ? "" : "s",
            compiles);
    for (int a = 0; a < w->naxes; a++) fprintf(o, "  %10s", w->axis[a]);
    fprintf(o, "  %12s  %9s  %9s  %-8s", "median (ms)", "TFLOP/s", "GB/s", "bound");
    if (w->peer) fprintf(o, "  %12s  %8s  %s", "peer (ms)", "speedup", "verdict");
    fputc('\n', o);
    for (int i = 0; i < n; i++) {
        const ProfileSummary *s = &rows[i].s;
        for (int a = 0; a < w->naxes; a++) fprintf(o, "  %10s", rows[i].value[a]);
        if (!s->timed) {
            fprintf(o, "  %s\n", rows[i].why[0] ? rows[i].why : "not timed (its report is above)");
            continue;
        }
        fprintf(o, "  %12.4g  %9.4g  %9.4g  %-8s", s->median_ms, s->tflops, s->gbps, s->bound ? s->bound : "n/a");
        if (w->peer && known(s->compare_ms))
            fprintf(o, "  %12.4g  %7.3fx  %s", s->compare_ms, s->compare_ms / s->median_ms, prof_sweep_verdict(s));
        else if (w->peer)
            fprintf(o, "  %12s  %8s", "n/a", "n/a");
        fputc('\n', o);
    }
}

/* ---- CSV ---- */

/* RFC 4180: a field with a comma, quote or line break is quoted. */
static void csv_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_number(FILE *f, double v) {
    if (known(v)) fprintf(f, "%.6g", v);
}

typedef struct SweepJob {
    const Sweep *w;
    const SweepRow *rows;
    int n;
} SweepJob;

static void write_csv(FILE *f, const void *arg) {
    const SweepJob *j = arg;
    for (int a = 0; a < j->w->naxes; a++) {
        csv_field(f, j->w->axis[a]);
        fputc(',', f);
    }
    fputs("median_ms,tflops,gbps,bound,peer_ms,speedup,verdict,verified,cache_hit\n", f);
    for (int i = 0; i < j->n; i++) {
        const ProfileSummary *s = &j->rows[i].s;
        for (int a = 0; a < j->w->naxes; a++) {
            csv_field(f, j->rows[i].value[a]);
            fputc(',', f);
        }
        if (s->timed) {
            csv_number(f, s->median_ms), fputc(',', f);
            csv_number(f, s->tflops), fputc(',', f);
            csv_number(f, s->gbps), fputc(',', f);
            csv_field(f, s->bound ? s->bound : ""), fputc(',', f);
            csv_number(f, s->compare_ms), fputc(',', f);
            csv_number(f, known(s->compare_ms) ? s->compare_ms / s->median_ms : NAN), fputc(',', f);
            csv_field(f, prof_sweep_verdict(s)), fputc(',', f);
        } else {
            fputs(",,,,,,,", f);
        }
        fprintf(f, "%s,%s\n", s->verified ? "true" : "false", s->cache_hit ? "true" : "false");
    }
}

/* ---- SVG ---- */

enum { W = 760, H = 480, L = 80, R = 30, T = 50, B = 60 };

static void xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);
    }
}

typedef struct Scale {
    double x0, x1, y1;
    bool logx;
} Scale;

static double px(const Scale *s, double x) {
    double t = s->logx ? (log(x) - log(s->x0)) / (log(s->x1) - log(s->x0)) : (x - s->x0) / (s->x1 - s->x0);
    if (!(s->x1 > s->x0)) t = 0.5;
    return L + t * (W - L - R);
}
static double py(const Scale *s, double y) { return H - B - y / s->y1 * (H - T - B); }

/* One series: the points of rows whose series label is `series`, joined
 * in x order (rows come in that order for the first axis). */
static void polyline(FILE *f, const Scale *sc, const SweepRow *rows, int n, const char *series, const char *cls,
                     const char *color, const char *dash, int which, bool flops) {
    fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", cls, color,
            dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    for (int i = 0; i < n; i++) {
        const ProfileSummary *s = &rows[i].s;
        if (strcmp(rows[i].series, series) != 0 || !s->timed) continue;
        double y = which == 0 ? rate(s, flops, s->median_ms) : which == 1 ? rate(s, flops, s->compare_ms) : ceiling(s, flops);
        if (known(y)) fprintf(f, "%.1f,%.1f ", px(sc, rows[i].x), py(sc, y));
    }
    fputs("\"/>\n", f);
}

static void write_svg(FILE *f, const void *arg) {
    const SweepJob *j = arg;
    const SweepRow *rows = j->rows;
    int n = j->n;
    bool flops = rate_is_flops(rows, n);
    Scale sc = {INFINITY, -INFINITY, 0, false};
    bool peer = false;
    for (int i = 0; i < n; i++) {
        const ProfileSummary *s = &rows[i].s;
        sc.x0 = fmin(sc.x0, rows[i].x), sc.x1 = fmax(sc.x1, rows[i].x);
        if (!s->timed) continue;
        double ys[3] = {rate(s, flops, s->median_ms), rate(s, flops, s->compare_ms), ceiling(s, flops)};
        for (int k = 0; k < 3; k++)
            if (known(ys[k])) sc.y1 = fmax(sc.y1, ys[k]);
        peer |= known(ys[1]);
    }
    if (!(sc.x0 < sc.x1)) sc.x0 -= 1, sc.x1 += 1;
    sc.logx = sc.x0 > 0 && sc.x1 / sc.x0 >= 8; /* geometric sweeps read best on a log scale */
    if (!(sc.y1 > 0)) sc.y1 = 1;
    double step = pow(10, floor(log10(sc.y1 / 2)));
    while (sc.y1 / step > 8) step *= 2;
    sc.y1 = ceil(sc.y1 * 1.05 / step) * step;
    const char *unit = flops ? "TFLOP/s" : "GB/s";

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<title>Sweep: ", W, H, W, H);
    xml_text(f, j->w->kernel);
    fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"15\" font-weight=\"bold\">", L);
    xml_text(f, j->w->kernel);
    fprintf(f, ": %s against ", unit);
    xml_text(f, j->w->axis[0]);
    if (j->w->device) {
        fputs(" on ", f);
        xml_text(f, j->w->device);
    }
    fputs("</text>\n<g stroke=\"#dddddd\">\n", f);
    for (double y = 0; y <= sc.y1 + step / 2; y += step)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", L, py(&sc, y), W - R, py(&sc, y));
    fputs("</g>\n<g fill=\"#333333\">\n", f);
    for (double y = 0; y <= sc.y1 + step / 2; y += step)
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 8, py(&sc, y) + 4, y);
    /* x ticks at the swept values (one per distinct value) */
    double last = NAN;
    for (int i = 0; i < n; i++) {
        if (rows[i].x == last) continue;
        last = rows[i].x;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", px(&sc, rows[i].x), H - B + 18,
                rows[i].x);
    }
    fputs("</g>\n", f);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", L, T, W - L - R,
            H - T - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", L + (W - L - R) / 2, H - 22);
    xml_text(f, j->w->axis[0]);
    fprintf(f, "%s</text>\n", sc.logx ? " (log scale)" : "");
    fprintf(f, "<text x=\"22\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 22 %d)\">%s</text>\n",
            T + (H - T - B) / 2, T + (H - T - B) / 2, unit);

    /* every series (a combination of the other axes' values) in turn */
    static const char *const colors[] = {"#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
    int nseries = 0, legend_y = T + 16;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) seen = !strcmp(rows[k].series, rows[i].series);
        if (seen) continue;
        const char *color = colors[nseries++ % 6];
        polyline(f, &sc, rows, n, rows[i].series, "tilec", color, NULL, 0, flops);
        if (peer) polyline(f, &sc, rows, n, rows[i].series, "peer", "#ff7f0e", NULL, 1, flops);
        polyline(f, &sc, rows, n, rows[i].series, "ceiling", "#d62728", "6,4", 2, flops);
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">tilec", L + 10, legend_y, color);
        if (rows[i].series[0]) {
            fputs(" (", f);
            xml_text(f, rows[i].series);
            fputc(')', f);
        }
        fputs("</text>\n", f);
        legend_y += 16;
    }
    if (peer) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#ff7f0e\">", L + 10, legend_y);
        xml_text(f, j->w->peer ? j->w->peer : "peer");
        fputs("</text>\n", f);
        legend_y += 16;
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#d62728\">roofline ceiling (dashed)</text>\n", L + 10, legend_y);
    fputs("</svg>\n", f);
}

static bool write_file(const char *path, FileFill fill, const SweepJob *job, char err[256]) {
    if (file_write_atomic_fn(path, 0666, fill, job)) return true;
    snprintf(err, 256, "cannot write '%.200s': %s.", path, strerror(errno));
    return false;
}

bool prof_write_sweep_csv(const char *path, const Sweep *w, const SweepRow *rows, int n, char err[256]) {
    SweepJob job = {w, rows, n};
    return write_file(path, write_csv, &job, err);
}

bool prof_write_sweep_svg(const char *path, const Sweep *w, const SweepRow *rows, int n, char err[256]) {
    SweepJob job = {w, rows, n};
    return write_file(path, write_svg, &job, err);
}
