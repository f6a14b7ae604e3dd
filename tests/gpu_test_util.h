/* gpu_test_util.h - what the tests of the driver layer and the benchmark
 * share: numbered ok/FAIL lines, the one-sentence error rule, kernel lookup. */
#ifndef TILEC_GPU_TEST_UTIL_H
#define TILEC_GPU_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "runtime.h"

enum { EXIT_SKIP = 77 }; /* ctest's skip code */

static int failures;

static inline void check(bool cond, const char *what) {
    printf("  %-4s %s\n", cond ? "ok" : "FAIL", what);
    if (!cond) failures++;
}

/* One plain sentence: not empty, one line, no trailing period or space. */
static inline bool one_sentence(const char *err) {
    size_t n = strlen(err);
    return n > 0 && n < 256 && strchr(err, '\n') == NULL && err[n - 1] != '.' && err[n - 1] != ' ';
}

static inline void check_error(bool ok, const char *err, const char *what) {
    printf("  %s -> %s\n", what, ok ? "(succeeded)" : err);
    char line[200];
    snprintf(line, sizeof line, "%s fails with one sentence", what);
    check(!ok && one_sentence(err), line);
}

static inline bool get_kernel(RtModule *m, const char *name, RtKernel *k) {
    char err[256], what[96];
    bool ok = rt_kernel_get(m, name, k, err);
    snprintf(what, sizeof what, "rt_kernel_get finds %s", name);
    if (!ok) printf("  error: %s\n", err);
    check(ok && k->fn != NULL, what);
    return ok;
}

#endif
