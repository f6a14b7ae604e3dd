/* alloc.c - heap allocation that cannot fail: tilec has nothing sensible
 * to do without the memory it asked for, so the wrappers end it (die)
 * rather than have every caller check. Allocations whose size comes from
 * the user's problem (tensors, samples) check by hand instead and report
 * the size as an error. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die("out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) die("out of memory allocating %zu bytes", n);
    return q;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}
