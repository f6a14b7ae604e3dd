/* ncu.c - `tilec --profile --ncu`: the kernel once more under Nsight
 * Compute, for the hardware counters the profile report cannot measure
 * itself. The child is this tilec with the same arguments and --run (one
 * verified launch, the same inputs); ncu leaves the clocks as found
 * (--clock-control none: the card is shared and its clocks are never
 * touched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

/* The metrics the profiling seeds name, with the words the report uses. */
static const struct {
    const char *metric, *label;
} metrics[] = {
    {"gpu__time_duration.sum", "duration (one launch, caches flushed)"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe utilisation"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"},
    {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
    {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", "local-memory stores (spills)"},
};
enum { NMETRICS = sizeof metrics / sizeof *metrics };

static bool executable(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *find_cuda_tool(const char *name, char *buf, size_t n) {
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len && len + strlen(name) + 2 < n) {
            snprintf(buf, n, "%.*s/%s", (int)len, path, name);
            if (executable(buf)) return buf;
        }
        path = end ? end + 1 : NULL;
    }
    snprintf(buf, n, "/usr/local/cuda/bin/%s", name);
    return executable(buf) ? buf : NULL;
}

/* Single quotes for /bin/sh, with embedded quotes escaped. */
static void shell_quote(FILE *o, const char *s) {
    fputc('\'', o);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", o);
        else fputc(*s, o);
    }
    fputc('\'', o);
}

/* The shell command that runs this tilec once more (--run, and `extra`)
 * under ncu with ncu_options, for the kernel `symbol`; NULL (said) without
 * ncu. */
static char *ncu_command(int argc, char **argv, const char *symbol, const char *ncu_options, const char *extra) {
    char ncu[4096], self[4096];
    if (!find_cuda_tool("ncu", ncu, sizeof ncu)) {
        printf("Nsight Compute: ncu is not on the PATH (nor in /usr/local/cuda/bin); no hardware counters\n");
        return NULL;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return NULL;
    self[n] = 0;
    char *cmd = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&cmd, &len);
    shell_quote(o, ncu);
    fputs(" --clock-control none --csv --launch-count 1 --kernel-name ", o);
    shell_quote(o, symbol);
    fprintf(o, " %s ", ncu_options);
    shell_quote(o, self);
    fprintf(o, " --run%s", extra);
    for (int i = 1; i < argc; i++) {
        int skip = cmdline_child_skips(argv[i]);
        if (skip) {
            i += skip - 1;
            continue;
        }
        fputc(' ', o);
        shell_quote(o, argv[i]);
    }
    fputs(" 2>/dev/null", o);
    fclose(o);
    return cmd;
}

bool ncu_source_lines(int argc, char **argv, const char *symbol, const char *file, SourceLines *out) {
    memset(out, 0, sizeof *out);
    /* the source page wants the SourceCounters section's warp sampling,
     * and a cubin whose line table names .tile lines (--lineinfo) */
    char *cmd = ncu_command(argc, argv, symbol, "--section SourceCounters --page source --print-source cuda,sass",
                            " --lineinfo");
    if (!cmd) {
        snprintf(out->note, sizeof out->note, "ncu is not on the PATH (nor in /usr/local/cuda/bin)");
        return false;
    }
    FILE *p = popen(cmd, "r");
    free(cmd);
    char *csv = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&csv, &len);
    char buf[8192];
    for (size_t got; p && (got = fread(buf, 1, sizeof buf, p)) > 0;) fwrite(buf, 1, got, m);
    int status = p ? pclose(p) : -1;
    fclose(m);
    bool ok = prof_parse_ncu_source(csv, file, out);
    if (!ok && !out->present)
        snprintf(out->note, sizeof out->note, "ncu printed no source page (exit status %d): it may need permission to "
                 "read the GPU's counters", status);
    free(csv);
    return ok;
}

int ncu_report(int argc, char **argv, const char *symbol) {
    char metric_list[1024] = "--metrics ";
    for (int i = 0; i < NMETRICS; i++) {
        size_t at = strlen(metric_list);
        snprintf(metric_list + at, sizeof metric_list - at, "%s%s", i ? "," : "", metrics[i].metric);
    }
    char *cmd = ncu_command(argc, argv, symbol, metric_list, "");
    if (!cmd) return EXIT_OK;
    FILE *p = popen(cmd, "r");
    free(cmd);
    if (!p) {
        printf("Nsight Compute: could not start ncu\n");
        return EXIT_OK;
    }
    char value[NMETRICS][64], unit[NMETRICS][32];
    bool seen[NMETRICS] = {0};
    char line[8192];
    while (fgets(line, sizeof line, p)) {
        /* CSV rows end with "Metric Name","Metric Unit","Metric Value" */
        char *fields[64];
        int nf = 0;
        for (char *q = line; *q && nf < 64;) {
            if (*q != '"') break;
            char *start = ++q;
            while (*q && *q != '"') q++;
            if (!*q) break;
            *q++ = 0;
            fields[nf++] = start;
            if (*q == ',') q++;
        }
        if (nf < 3) continue;
        for (int m = 0; m < NMETRICS; m++)
            if (!strcmp(fields[nf - 3], metrics[m].metric)) {
                snprintf(unit[m], sizeof unit[m], "%s", fields[nf - 2]);
                snprintf(value[m], sizeof value[m], "%s", fields[nf - 1]);
                seen[m] = true;
            }
    }
    int status = pclose(p);
    printf("\nNsight Compute (one launch of %s; --clock-control none)\n", symbol);
    int shown = 0;
    for (int m = 0; m < NMETRICS; m++) {
        if (!seen[m]) continue;
        printf("  %-40s %s %s\n", metrics[m].label, value[m], unit[m]);
        shown++;
    }
    if (!shown)
        printf("  ncu reported no metrics (exit status %d): it may need permission to read the GPU's counters\n", status);
    return EXIT_OK;
}
