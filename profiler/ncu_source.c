/* ncu_source.c - `--ncu --lines`: the hottest .tile lines from Nsight
 * Compute's source page (`ncu --section SourceCounters --page source
 * --print-source cuda,sass --csv` on a cubin built with --lineinfo). The
 * page is a block per source file: a "File Path" row, a "Function Name"
 * row, a header row starting "Line No", then a row per source line (its
 * totals; Address "-") and rows for the SASS under it (no line number).
 * The columns are the SourceCounters section's labels: "Warp Stall
 * Sampling (All Samples)" and one per stall reason ("stall_long_sb", ...,
 * each also "(Not Issued)"). Only the line rows are read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

enum { MAX_FIELDS = 128, MAX_LINES = 4096 };

/* One CSV row (RFC 4180 quoting) split in place into fields; their count. */
static int split_row(char *s, char **f, int max) {
    int n = 0;
    while (*s && *s != '\n' && *s != '\r' && n < max) {
        char *w = s, *start = s;
        if (*s == '"') {
            start = w = ++s;
            while (*s) {
                if (*s == '"' && s[1] == '"') *w++ = '"', s += 2;
                else if (*s == '"') { s++; break; }
                else *w++ = *s++;
            }
            while (*s && *s != ',' && *s != '\n' && *s != '\r') s++;
        } else {
            while (*s && *s != ',' && *s != '\n' && *s != '\r') s++;
            w = s;
        }
        char end = *s;
        *w = 0;
        f[n++] = start;
        if (end != ',') break;
        s++;
    }
    return n;
}

/* A count as ncu prints it ("1,234" where it groups digits); -1 if none. */
static double count_of(const char *s) {
    char buf[64];
    size_t n = 0;
    for (; *s && n + 1 < sizeof buf; s++)
        if (*s != ',' && *s != ' ') buf[n++] = *s;
    buf[n] = 0;
    char *end;
    double v = strtod(buf, &end);
    return n && !*end && v >= 0 ? v : -1;
}

typedef struct LineSum {
    int line;
    double samples;
    double reason[32];
} LineSum;

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

bool prof_parse_ncu_source(const char *csv, const char *tile_file, SourceLines *out) {
    memset(out, 0, sizeof *out);
    char *text = xstrdup(csv);
    LineSum *sums = xcalloc(MAX_LINES, sizeof *sums);
    int nsums = 0;
    char reason_name[32][32]; /* every block's reasons, in one table */
    int nreasons = 0;
    bool in_tile = false, have_header = false, seen_file = false;
    int col_line = -1, col_samples = -1, col_reason[32], reason_of[32], ncols = 0; /* this block's columns */
    double total = 0;
    for (char *row = text; row && *row;) {
        char *next = strchr(row, '\n');
        if (next) *next++ = 0;
        char *f[MAX_FIELDS];
        int n = split_row(row, f, MAX_FIELDS);
        row = next;
        if (n == 0 || !strncmp(f[0], "==", 2)) continue; /* ncu's own messages */
        if (n >= 2 && !strcmp(f[0], "File Path")) {
            in_tile = !strcmp(base_name(f[1]), base_name(tile_file));
            have_header = false;
            seen_file = true;
            continue;
        }
        if (!strcmp(f[0], "Line No")) {
            have_header = true;
            col_line = 0, col_samples = -1, ncols = 0;
            for (int i = 1; i < n; i++) {
                if (!strcmp(f[i], "Warp Stall Sampling (All Samples)")) col_samples = i;
                else if (!strncmp(f[i], "stall_", 6) && !strstr(f[i], "(Not Issued)") && ncols < 32) {
                    int r = 0;
                    while (r < nreasons && strcmp(reason_name[r], f[i])) r++;
                    if (r == nreasons && nreasons < 32) snprintf(reason_name[nreasons++], sizeof reason_name[0], "%s", f[i]);
                    if (r < nreasons) col_reason[ncols] = i, reason_of[ncols++] = r;
                }
            }
            continue;
        }
        if (!have_header || col_samples < 0 || col_samples >= n) continue;
        int line = atoi(f[col_line]);
        double samples = count_of(f[col_samples]);
        if (line <= 0 || samples < 0) continue; /* a SASS row, or no count */
        total += samples;
        if (!in_tile || samples == 0) continue;
        int at = 0;
        while (at < nsums && sums[at].line != line) at++;
        if (at == nsums) {
            if (nsums == MAX_LINES) continue;
            sums[nsums++].line = line;
        }
        sums[at].samples += samples;
        for (int c = 0; c < ncols; c++)
            if (col_reason[c] < n && count_of(f[col_reason[c]]) > 0) sums[at].reason[reason_of[c]] += count_of(f[col_reason[c]]);
    }
    out->total = total;
    out->present = seen_file;
    if (!seen_file)
        snprintf(out->note, sizeof out->note, "Nsight Compute printed no source page (was the cubin built with --lineinfo, "
                                              "and may ncu read the GPU's counters?)");
    else if (nsums == 0 || total <= 0)
        snprintf(out->note, sizeof out->note, "Nsight Compute's source page has no warp stall samples on lines of %s",
                 base_name(tile_file));
    /* the hottest lines, each with its two largest stall reasons */
    for (int k = 0; k < PROF_TOP_LINES && total > 0; k++) {
        int best = -1;
        for (int i = 0; i < nsums; i++)
            if (sums[i].samples > 0 && (best < 0 || sums[i].samples > sums[best].samples)) best = i;
        if (best < 0) break;
        SourceLine *l = &out->top[out->n++];
        l->line = sums[best].line;
        l->samples = sums[best].samples;
        l->share = sums[best].samples / total;
        for (int j = 0; j < 2; j++) {
            int r = -1;
            for (int i = 0; i < nreasons; i++)
                if (sums[best].reason[i] > 0 && (r < 0 || sums[best].reason[i] > sums[best].reason[r])) r = i;
            if (r < 0) break;
            snprintf(l->reason[j], sizeof l->reason[j], "%s", reason_name[r]);
            l->reason_share[j] = sums[best].reason[r] / sums[best].samples;
            sums[best].reason[r] = 0;
        }
        sums[best].samples = 0;
    }
    free(sums);
    free(text);
    return out->n > 0;
}
