/* sweep.c - `tilec --profile --sweep NAME=LIST ...`: every point of the
 * lists' cross product profiled in turn (a dynamic size compiles once:
 * its points hit the cache), then one table, and --json (an array of the
 * points' schema objects), --csv and --plot. LIST is comma-separated
 * values and ranges: `1024,2048`, `512..16384*2` (times 2 up to 16384),
 * `64..256+64` (plus 64). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

/* One value of a list as an override of `name` (lib_parse_set's rules). */
static bool add_value(SweepAxis *ax, const char *name, const char *text, char err[300]) {
    if (ax->n == SWEEP_MAX_POINTS) {
        snprintf(err, 300, "--sweep %s: more than %d values; at most %d points are profiled in one run", name,
                 SWEEP_MAX_POINTS, SWEEP_MAX_POINTS);
        return false;
    }
    char *item = xmalloc(strlen(name) + strlen(text) + 2); /* the override points into it: kept */
    sprintf(item, "%s=%s", name, text);
    int n = 0;
    if (!lib_parse_set(item, "--sweep", &ax->value[ax->n], 1, &n, err)) return false;
    snprintf(ax->text[ax->n], sizeof ax->text[0], "%s", text);
    ax->n++;
    return true;
}

/* A number of a range's bounds or step: an integer or a float. */
static bool number(const char *s, double *v, bool *is_int) {
    char *end;
    *v = strtod(s, &end);
    *is_int = !strpbrk(s, ".eE");
    return *s && !*end && isfinite(*v);
}

/* A..B, A..B*F or A..B+S into ax. */
static bool add_range(SweepAxis *ax, const char *name, char *item, char err[300]) {
    char *dots = strstr(item, ".."), *op = NULL;
    *dots = 0;
    char *hi = dots + 2;
    for (char *p = hi + 1; *p && !op; p++)
        if (*p == '*' || *p == '+') op = p;
    char kind = op ? *op : '+';
    if (op) *op = 0;
    double a, b, step = 1;
    bool ia, ib, is = true;
    if (!number(item, &a, &ia) || !number(hi, &b, &ib) || (op && !number(op + 1, &step, &is))) {
        snprintf(err, 300, "--sweep %s: a range is FROM..TO, FROM..TO*FACTOR or FROM..TO+STEP", name);
        return false;
    }
    if (b < a || (kind == '*' && !(step > 1 && a > 0)) || (kind == '+' && !(step > 0))) {
        snprintf(err, 300, "--sweep %s: the range %g..%g%c%g is empty or never ends", name, a, b, kind, step);
        return false;
    }
    bool ints = ia && ib && is;
    for (double v = a; v <= b * (1 + 1e-12); v = kind == '*' ? v * step : v + step) {
        char text[32];
        if (ints) snprintf(text, sizeof text, "%.0f", v);
        else snprintf(text, sizeof text, "%.9g", v);
        if (!add_value(ax, name, text, err)) return false;
    }
    return true;
}

int sweep_option(CmdLine *cl, const char *v) {
    char err[300];
    if (cl->nsweeps == SWEEP_MAX_AXES) return usage_error("--sweep: at most %s sizes are swept at once", "4");
    char *list = xstrdup(v), *eq = strchr(list, '=');
    if (!eq || eq == list) return usage_error("--sweep: '%s' is not NAME=LIST", v);
    *eq = 0;
    SweepAxis *ax = &cl->sweeps[cl->nsweeps];
    memset(ax, 0, sizeof *ax);
    ax->name = list;
    for (int i = 0; i < cl->nsweeps; i++)
        if (!strcmp(cl->sweeps[i].name, list)) return usage_error("--sweep: '%s' is swept twice", list);
    for (char *save = NULL, *item = strtok_r(eq + 1, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        bool ok = strstr(item, "..") ? add_range(ax, list, item, err) : add_value(ax, list, item, err);
        if (!ok) return usage_error("%s", err);
    }
    if (ax->n == 0) return usage_error("--sweep %s: the list is empty", list);
    cl->nsweeps++;
    return -1;
}

/* Which value of each list point takes: the lists' cross product in
 * order, the first list outermost. */
static void point_values(const CmdLine *cl, int point, int idx[SWEEP_MAX_AXES]) {
    for (int a = cl->nsweeps - 1; a >= 0; a--) {
        idx[a] = point % cl->sweeps[a].n;
        point /= cl->sweeps[a].n;
    }
}

/* The command line of one point: the user's --set, then the point's
 * values; what the sweep writes itself is not written per point. */
static void point_cmdline(const CmdLine *cl, int point, CmdLine *pc) {
    *pc = *cl;
    pc->nsweeps = 0;
    int idx[SWEEP_MAX_AXES];
    point_values(cl, point, idx);
    for (int a = 0; a < cl->nsweeps; a++) pc->overrides[pc->n_overrides + a] = cl->sweeps[a].value[idx[a]];
    pc->n_overrides += cl->nsweeps;
    ProfileOptions *po = &pc->opts.profile;
    po->json = po->report = po->trace = po->roofline = NULL;
}

/* The checked kernel (or pipeline) of point command line pc; NULL after
 * its errors. */
static KernelInfo *point_kernel(Ctx *c, Node *prog, const CmdLine *cl, CmdLine *pc) {
    SemaOptions so = {.overrides = pc->overrides, .n_overrides = pc->n_overrides, .only_kernel = cl->kernel,
                      .specialise = cl->opts.specialise, .arch = cl->opts.target.name};
    PtrVec ks = sema_check(c, prog, &so);
    if (c->errors) return NULL;
    return cl->kernel || ks.len == 1 ? ks.items[0] : lib_only_pipeline(&ks);
}

/* The point's values and plot coordinates into row. */
static void point_row(const CmdLine *cl, int point, SweepRow *row) {
    memset(row, 0, sizeof *row);
    int idx[SWEEP_MAX_AXES];
    point_values(cl, point, idx);
    for (int a = 0; a < cl->nsweeps; a++) {
        const SweepAxis *ax = &cl->sweeps[a];
        snprintf(row->value[a], sizeof row->value[a], "%s", ax->text[idx[a]]);
        if (a == 0) {
            const Override *o = &ax->value[idx[0]];
            row->x = o->is_float ? o->f : (double)o->i;
            continue;
        }
        size_t l = strlen(row->series);
        snprintf(row->series + l, sizeof row->series - l, "%s%s=%s", l ? ", " : "", ax->name, ax->text[idx[a]]);
    }
}

/* Each point is checked before anything runs: a name no kernel has, or a
 * value the kernel cannot take, is the user's error at once. */
static int check_points(Ctx *c, Node *prog, CmdLine *cl, int points) {
    static CmdLine pc;
    for (int p = 0; p < points; p++) {
        point_cmdline(cl, p, &pc);
        SemaOptions so = {.overrides = pc.overrides, .n_overrides = pc.n_overrides, .only_kernel = cl->kernel,
                          .specialise = cl->opts.specialise, .arch = cl->opts.target.name};
        PtrVec ks = sema_check(c, prog, &so);
        if (c->errors) return EXIT_SOURCE;
        /* --set was checked already; the sweep's names are checked here */
        int rc = lib_overrides_used(stderr, "--sweep", pc.overrides + cl->n_overrides, cl->nsweeps, &ks,
                                    cl->kernel != NULL);
        if (rc != EXIT_OK) return rc;
    }
    return EXIT_OK;
}

/* The first line of a point's output that says why it was not timed. */
static void why_not_timed(const char *text, int rc, char *why, size_t n) {
    static const char *const marks[] = {"not timed:", "verify: FAILED", "consistency: FAILED", "tilec:"};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
        const char *at = text ? strstr(text, marks[m]) : NULL;
        if (!at) continue;
        size_t len = strcspn(at, "\n");
        snprintf(why, n, "%.*s", (int)(len < n ? len : n - 1), at);
        return;
    }
    snprintf(why, n, "exit code %d", rc);
}

/* --json: the points' objects as one array. */
static bool write_json_array(const char *path, char **objects, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return false;
    fputs("[\n", m);
    for (int i = 0; i < n; i++) {
        const char *o = objects[i] && objects[i][0] ? objects[i] : "null\n";
        size_t l = strlen(o);
        while (l > 0 && o[l - 1] == '\n') l--;
        fprintf(m, "%.*s%s\n", (int)l, o, i + 1 < n ? "," : "");
    }
    fputs("]\n", m);
    fclose(m);
    bool ok = file_write_atomic(path, text, len);
    free(text);
    return ok;
}

int sweep_run(Ctx *c, Node *prog, KernelInfo *k, CmdLine *cl, SweepAct act) {
    int points = 1;
    for (int a = 0; a < cl->nsweeps; a++) points *= cl->sweeps[a].n;
    int rc = check_points(c, prog, cl, points);
    if (rc != EXIT_OK) return rc;
    const char *kernel = k->name->s;
    static CmdLine pc;
    if (!cl->opts.have_device) { /* the first point compiles and says that it needs a GPU */
        point_cmdline(cl, 0, &pc);
        KernelInfo *k0 = point_kernel(c, prog, cl, &pc);
        return k0 ? act(c, prog, k0, &pc) : EXIT_SOURCE;
    }
    SweepRow *rows = xcalloc((size_t)points, sizeof *rows);
    char **objects = xcalloc((size_t)points, sizeof *objects);
    bool progress = isatty(2);
    int first_failure = EXIT_OK;
    for (int p = 0; p < points; p++) {
        point_row(cl, p, &rows[p]);
        if (progress) {
            fprintf(stderr, "\rsweep: point %d of %d (", p + 1, points);
            for (int a = 0; a < cl->nsweeps; a++) fprintf(stderr, "%s%s=%s", a ? ", " : "", cl->sweeps[a].name, rows[p].value[a]);
            fputs(")\x1b[K", stderr);
        }
        point_cmdline(cl, p, &pc);
        char *report = NULL, *json = NULL;
        size_t report_len = 0, json_len = 0;
        FILE *out = open_memstream(&report, &report_len), *js = open_memstream(&json, &json_len);
        if (!out || !js) die("out of memory for the sweep's output");
        pc.opts.profile.out = out;
        pc.opts.profile.json_stream = js;
        pc.opts.profile.summary = &rows[p].s;
        KernelInfo *kp = point_kernel(c, prog, cl, &pc);
        int prc = kp ? act(c, prog, kp, &pc) : EXIT_SOURCE;
        fclose(out);
        fclose(js);
        objects[p] = json;
        if (prc != EXIT_OK) {
            rows[p].s.timed = false;
            why_not_timed(report, prc, rows[p].why, sizeof rows[p].why);
            if (first_failure == EXIT_OK) first_failure = prc;
            if (progress) fputs("\r\x1b[K", stderr);
            printf("sweep point %d (", p + 1); /* the failing point's own report, for the details */
            for (int a = 0; a < cl->nsweeps; a++) printf("%s%s=%s", a ? ", " : "", cl->sweeps[a].name, rows[p].value[a]);
            printf("):\n%s", report ? report : "");
        }
        free(report);
    }
    if (progress) fputs("\r\x1b[K", stderr);

    Sweep w = {.kernel = kernel, .naxes = cl->nsweeps, .peer = cl->opts.profile.compare,
               .device = cl->opts.have_device ? cl->opts.device.name : NULL};
    for (int a = 0; a < cl->nsweeps; a++) w.axis[a] = cl->sweeps[a].name;
    prof_sweep_table(stdout, &w, rows, points);
    char err[256];
    const ProfileOptions *po = &cl->opts.profile;
    if (po->json && !write_json_array(po->json, objects, points)) {
        fprintf(stderr, "tilec: cannot write '%s'\n", po->json);
        rc = EXIT_USAGE;
    }
    if (cl->csv && !prof_write_sweep_csv(cl->csv, &w, rows, points, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        rc = EXIT_USAGE;
    }
    if (cl->plot && !prof_write_sweep_svg(cl->plot, &w, rows, points, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        rc = EXIT_USAGE;
    }
    for (int p = 0; p < points; p++) free(objects[p]);
    free(objects);
    free(rows);
    return first_failure != EXIT_OK ? first_failure : rc;
}
