/* test_util.h - what the C test programs share: counted checks that say
 * where they failed, and loading a one-kernel program from a string. */
#ifndef TILEC_TEST_UTIL_H
#define TILEC_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

static int failures, checks;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

/* Equal within tol relative to 1 + |b|; NaNs equal each other, infinities themselves. */
static inline bool near(double a, double b, double tol) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= tol * (1 + fabs(b));
}
#define CHECK_NEAR(got, want, tol) CHECK(near((got), (want), (tol)), "got %.17g, want %.17g", (double)(got), (double)(want))

/* The whole file at path, NUL-terminated (malloc'd); a missing or
 * unreadable file ends the test. */
static inline char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) exit(1);
    s[n] = 0;
    fclose(f);
    return s;
}

/* Parses and checks a one-kernel program, with --set style overrides when
 * given; any error in it ends the test (the program is the test's own). */
static inline KernelInfo *load_with(Ctx *c, const char *src, Override *ov, int nov) {
    ctx_init(c, stderr);
    source_from_string(&c->src, "test.tile", src, strlen(src));
    Node *prog = fe_parse(c);
    if (c->errors) {
        fprintf(stderr, "parse errors in:\n%s\n", src);
        exit(1);
    }
    SemaOptions opt = {.overrides = ov, .n_overrides = nov};
    PtrVec ks = sema_check(c, prog, &opt);
    if (c->errors || ks.len != 1) {
        fprintf(stderr, "check errors in:\n%s\n", src);
        exit(1);
    }
    return ks.items[0];
}

#endif
