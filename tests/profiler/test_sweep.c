/* test_sweep.c - --sweep's writers without a GPU: the table, the CSV and
 * the SVG plot of four synthetic points of a GEMM against a peer, compared
 * with golden files (argv[1]: their directory; GOLDEN_UPDATE=1 rewrites
 * them), and the plot's structure (three lines, a log x axis). */
#include <unistd.h>

#include "profiler.h"
#include "test_util.h"

static SweepRow row(const char *m, double x, double ms, double peer_ms, bool timed) {
    SweepRow r;
    memset(&r, 0, sizeof r);
    snprintf(r.value[0], sizeof r.value[0], "%s", m);
    r.x = x;
    double flops = 2 * x * 4096 * 4096, bytes = 2 * (x * 4096 * 2 + 4096 * 4096);
    r.s = (ProfileSummary){.timed = timed, .verified = timed, .cache_hit = x > 1024, .median_ms = ms, .flops = flops,
                           .bytes = bytes, .tflops = flops / (ms * 1e-3) / 1e12, .gbps = bytes / (ms * 1e-3) / 1e9,
                           .peak_tflops = 989, .peak_gbps = 4800, .compare_ms = peer_ms, .compile_s = 0.4,
                           .bound = "compute"};
    if (!timed) snprintf(r.why, sizeof r.why, "not timed: the output does not match the reference");
    return r;
}

/* The file at path against golden/name (or rewritten when asked). */
static void golden(const char *dir, const char *name, const char *path) {
    char want_path[512];
    snprintf(want_path, sizeof want_path, "%s/%s", dir, name);
    char *got = read_file(path);
    const char *update = getenv("GOLDEN_UPDATE");
    if (update && *update == '1') {
        FILE *f = fopen(want_path, "w");
        fputs(got, f);
        fclose(f);
    }
    char *want = read_file(want_path);
    CHECK(!strcmp(got, want), "%s differs from %s:\n%s", path, want_path, got);
    free(got);
    free(want);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    SweepRow rows[4] = {row("1024", 1024, 0.0520, 0.0480, true), row("2048", 2048, 0.0950, 0.0940, true),
                        row("4096", 4096, 0.1700, 0.1850, true), row("8192", 8192, 0, NAN, false)};
    Sweep w = {.kernel = "gemm", .axis = {"M"}, .naxes = 1, .peer = "cublas", .device = "NVIDIA H200"};
    char dir[] = "/tmp/tilec_test_sweep_XXXXXX", path[200], err[256];
    if (!mkdtemp(dir)) return 1;

    snprintf(path, sizeof path, "%s/table.txt", dir);
    FILE *f = fopen(path, "w");
    prof_sweep_table(f, &w, rows, 4);
    fclose(f);
    golden(argv[1], "sweep_table.txt", path);
    remove(path);

    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    CHECK(prof_write_sweep_csv(path, &w, rows, 4, err), "csv: %s", err);
    golden(argv[1], "sweep.csv", path);
    remove(path);

    snprintf(path, sizeof path, "%s/sweep.svg", dir);
    CHECK(prof_write_sweep_svg(path, &w, rows, 4, err), "svg: %s", err);
    golden(argv[1], "sweep.svg", path);
    char *svg = read_file(path);
    CHECK(strstr(svg, "class=\"tilec\"") && strstr(svg, "class=\"peer\"") && strstr(svg, "class=\"ceiling\"") &&
          strstr(svg, "stroke-dasharray"), "three lines, the ceiling dashed");
    CHECK(strstr(svg, "(log scale)"), "1024..4096 is geometric: a log x axis");
    free(svg);
    remove(path);

    CHECK(!strcmp(prof_sweep_verdict(&rows[0].s), "slower") && !strcmp(prof_sweep_verdict(&rows[1].s), "same") &&
          !strcmp(prof_sweep_verdict(&rows[2].s), "faster") && !strcmp(prof_sweep_verdict(&rows[3].s), ""),
          "verdicts against the peer");
    CHECK(!prof_write_sweep_csv("/nonexistent/dir/x.csv", &w, rows, 4, err) && strstr(err, "cannot write"),
          "an unwritable path: %s", err);
    rmdir(dir);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
