/* overrides.c - the `set` string of tilec_compile and tilec's --set: sizes,
 * scalars, where constants and tunables given values, parsed here and
 * checked after sema for names no kernel has. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

/* NAME=VALUE with VALUE an integer (decimal or 0x, `_` allowed), a float,
 * true or false; item is cut at '='. */
static bool parse_override(char *item, Override *o) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item) return false;
    *eq = 0;
    const char *v = eq + 1;
    for (const char *p = item; *p; p++)
        if (!(*p == '_' || (*p >= '0' && *p <= '9' && p != item) || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
            return false;
    o->name = item;
    if (!strcmp(v, "true") || !strcmp(v, "false")) {
        o->i = v[0] == 't';
        o->is_bool = true;
        return true;
    }
    char clean[64];
    size_t n = 0;
    for (const char *p = v; *p; p++) {
        if (*p == '_') continue;
        if (n + 1 >= sizeof clean) return false;
        clean[n++] = *p;
    }
    clean[n] = 0;
    if (n == 0) return false;
    char *end;
    errno = 0;
    long long iv = strtoll(clean, &end, 0);
    if (*end == 0 && errno == 0) {
        o->i = iv;
        return true;
    }
    errno = 0;
    double fv = strtod(clean, &end);
    if (*end == 0 && errno == 0) {
        o->is_float = true;
        o->f = fv;
        return true;
    }
    return false;
}

bool lib_parse_set(char *list, const char *what, Override *ov, int max, int *n, char err[300]) {
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*n == max) {
            snprintf(err, 300, "%s: too many values (at most %d)", what, max);
            return false;
        }
        Override *o = &ov[*n];
        memset(o, 0, sizeof *o);
        char given[256];
        snprintf(given, sizeof given, "%s", item); /* parse_override cuts item at '=' */
        if (!parse_override(item, o)) {
            const char *eq = strchr(given, '=');
            if (eq && o->name)
                snprintf(err, 300, "%s %.*s: '%s' is not a number (an integer, a float, true or false) or is too large",
                         what, (int)(eq - given), given, eq + 1);
            else
                snprintf(err, 300, "%s: '%s' is not NAME=VALUE", what, given);
            return false;
        }
        for (int j = 0; j < *n; j++)
            if (!strcmp(ov[j].name, o->name)) {
                snprintf(err, 300, "%s: '%s' is given twice", what, o->name);
                return false;
            }
        (*n)++;
    }
    return true;
}

/* Whether a checked kernel has a tensor parameter called name. */
static bool names_tensor(const PtrVec *kernels, const char *name) {
    for (int i = 0; i < kernels->len; i++) {
        const KernelInfo *k = kernels->items[i];
        for (int j = 0; j < k->params.len; j++) {
            const Sym *p = k->params.items[j];
            if (p->kind == SYM_TENSOR && !strcmp(p->name->s, name)) return true;
        }
    }
    return false;
}

int lib_overrides_used(FILE *err, const char *what, const Override *ov, int n, const PtrVec *kernels, bool selected) {
    for (int i = 0; i < n; i++)
        if (ov[i].invalid) {
            fprintf(err, "tilec: %s %s: %s\n", what, ov[i].name, ov[i].invalid);
            return LIB_USAGE;
        }
    for (int i = 0; i < n; i++) {
        const Override *o = &ov[i];
        if (o->used) continue;
        if (names_tensor(kernels, o->name))
            fprintf(err, "tilec: %s %s: '%s' is a tensor; %s takes the sizes of its dimensions, scalars, "
                         "where constants and tunables\n", what, o->name, o->name, what);
        else
            fprintf(err, "tilec: %s %s: no kernel%s has a size, scalar, where constant or tunable named '%s'\n",
                    what, o->name, selected ? " selected" : "", o->name);
        return LIB_USAGE;
    }
    return LIB_OK;
}
