/* test_launch_stub.c - the launchers `tilec --emit-lib` writes for the
 * kernels of dynamic sizes in tests/emit_lib (gemm_dyn, scale_rows,
 * grid_ops), run against the driver stub (cuda_stub.c), no GPU: the sizes
 * are read from the shapes and passed as int arguments after the
 * parameters, the grid is computed from them, the tensor maps from the
 * shapes; a broken promise, a mismatched or out-of-range size, a grid
 * CUDA cannot launch is refused with 2 and one sentence, nothing launched.
 * The fixed-size examples/gemm.tile (M = N = K = 256) launches as it always
 * has: no size arguments, the compiled grid, maps of the compiled shape.
 * Exit 0 when all holds, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_stub.h"
#include "gemm.h"
#include "gemm_dyn.h"
#include "grid_ops.h"
#include "scale_rows.h"

static int failures;
#define EXPECT(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            fprintf(stderr, "FAILED (line %d): ", __LINE__);                                                           \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

typedef int (*Launcher)(const tilec_tensor *, int, const double *, int, CUstream);

/* What the last call said on stderr, and the driver calls and launches it made. */
static char said[2048];
static int calls, launches;

/* Calls f with stderr captured into said[]; its return code. */
static int call(Launcher f, const tilec_tensor *t, int nt, const double *s, int ns) {
    FILE *tmp = tmpfile();
    if (!tmp) exit(1);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int c0 = stub_calls, l0 = stub_launches;
    stub_nmaps = 0;
    int rc = f(t, nt, s, ns, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    calls = stub_calls - c0, launches = stub_launches - l0;
    rewind(tmp);
    size_t n = fread(said, 1, sizeof said - 1, tmp);
    said[n] = 0;
    fclose(tmp);
    return rc;
}

/* f refuses the arguments with 2 and a sentence holding `words`, before
 * any driver call where `first` (else before a launch). */
static void refused(Launcher f, const tilec_tensor *t, int nt, const double *s, int ns, int first, const char *words) {
    int rc = call(f, t, nt, s, ns);
    EXPECT(rc == 2, "expected 2 (%s), got %d: %s", words, rc, said);
    EXPECT(strstr(said, words), "expected a sentence with \"%s\", got \"%s\"", words, said);
    EXPECT(!strchr(said, '\n') || strchr(said, '\n') == said + strlen(said) - 1, "more than one line: %s", said);
    EXPECT(launches == 0 && (!first || calls == 0), "%d driver calls, %d launches for a refusal (%s)", calls, launches,
           words);
}

/* Device pointers the stub never touches. */
#define PTR(n) ((void *)(uintptr_t)(0x10000 * (n)))

/* ---- gemm_dyn: A[M, K] @ B[K, N] -> C[M, N]; N % 8, K % 64; 128 x 128 tiles ---- */

static long long launched_size[3];
static unsigned long long launched_ptr[3], launched_map[3];

static void on_gemm(void **args) {
    for (int i = 0; i < 3; i++) launched_ptr[i] = *(CUdeviceptr *)args[i];
    for (int i = 0; i < 3; i++) launched_size[i] = *(int *)args[3 + i];
    for (int m = 0; m < stub_nmaps; m++) launched_map[m] = ((CUtensorMap *)args[6 + m])->opaque[0];
}

static int gemm_at(long long m, long long n, long long k) {
    int64_t a[2] = {m, k}, b[2] = {k, n}, c[2] = {m, n};
    tilec_tensor t[3] = {{PTR(1), 2, a}, {PTR(2), 2, b}, {PTR(3), 2, c}};
    return call(gemm_dyn, t, 3, NULL, 0);
}

/* A launch at m x n x k on a device of compute capability cc. */
static void gemm_launches(int cc, long long m, long long n, long long k) {
    stub_cc = cc, stub_context++; /* another context: the launcher loads the cubin for it */
    stub_on_launch = on_gemm;
    memset(launched_map, 0, sizeof launched_map);
    int rc = gemm_at(m, n, k);
    EXPECT(rc == 0 && launches == 1, "gemm %lldx%lldx%lld on %d: %d, %d launches: %s", m, n, k, cc, rc, launches, said);
    /* sm_90a: persistent blocks (as many as are resident: 132 SMs, one
     * each) over the tiles in a line; less than a wave of tiles each in as
     * many pieces along K as fill the wave (at most 16, each of at least 16
     * of the loop's 64-wide steps: the split variant), else a last wave
     * filled at most half in two half tiles each (where that is every
     * tile, the halves variant; else the kernel itself); sm_80: a block
     * per tile */
    long long tiles = (n + 127) / 128 * ((m + 127) / 128), rest = tiles % 132;
    long long ways = tiles < 132 ? 132 / tiles : 1;
    if (ways > 16) ways = 16;
    if (ways > k / 64 / 16) ways = k / 64 / 16;
    long long units = ways > 1 ? tiles * ways : rest && 2 * rest <= 132 ? tiles + rest : tiles;
    long long want[3] = {(n + 127) / 128, (m + 127) / 128, 1};
    if (cc == 90) want[0] = units < 132 ? units : 132, want[1] = 1;
    EXPECT(stub_grid[0] == want[0] && stub_grid[1] == want[1] && stub_grid[2] == want[2],
           "gemm %lldx%lldx%lld grid %u %u %u, not %lld %lld %lld", m, n, k, stub_grid[0], stub_grid[1], stub_grid[2],
           want[0], want[1], want[2]);
    EXPECT(launched_size[0] == m && launched_size[1] == n && launched_size[2] == k, "gemm sizes %lld %lld %lld",
           launched_size[0], launched_size[1], launched_size[2]);
    EXPECT(launched_ptr[0] == 0x10000 && launched_ptr[1] == 0x20000 && launched_ptr[2] == 0x30000, "gemm pointers");
    const char *variant = cc == 80 ? NULL : ways > 1 ? "_split" : 2 * tiles <= 132 ? "_halves" : NULL;
    EXPECT(strstr(stub_symbol, "tilec_gemm_dyn_") &&
               (variant ? strstr(stub_symbol, variant) != NULL : !strstr(stub_symbol, "_split") && !strstr(stub_symbol, "_halves")),
           "gemm %lldx%lldx%lld on %d: symbol %s, not the %s", m, n, k, cc, stub_symbol, variant ? variant + 1 : "base kernel");
    if (cc == 80) {
        EXPECT(stub_nmaps == 0 && stub_block == 128, "sm_80: %d maps, block %u", stub_nmaps, stub_block);
        return;
    }
    /* sm_90a: TMA maps of A, B and C, dims innermost first, packed strides */
    long long dims[3][2] = {{k, m}, {n, k}, {n, m}};
    EXPECT(stub_nmaps == 3, "sm_90a: %d tensor maps", stub_nmaps);
    for (int i = 0; i < stub_nmaps && i < 3; i++) {
        const StubMap *s = &stub_maps[i];
        EXPECT(s->rank == 2 && (long long)s->dims[0] == dims[i][0] && (long long)s->dims[1] == dims[i][1] &&
                   (long long)s->strides[0] == dims[i][0] * 2 && s->address == PTR(i + 1),
               "map %d: rank %d dims %llu %llu stride %llu", i, s->rank, s->dims[0], s->dims[1], s->strides[0]);
        EXPECT(launched_map[i] == (unsigned long long)i + 1, "argument %d is map %llu", 6 + i, launched_map[i]);
    }
}

static void test_gemm(void) {
    gemm_launches(80, 1000, 1016, 704);
    gemm_launches(80, 4096, 4096, 4096);
    gemm_launches(90, 1000, 1016, 704);
    gemm_launches(90, 256, 512, 128);
    gemm_launches(90, 1, 8, 64);
    gemm_launches(90, 4096, 4096, 4096); /* 1024 tiles: more than a wave */
    gemm_launches(90, 256, 256, 8192);   /* 4 tiles in 8 pieces (128 steps of the loop) */
    gemm_launches(90, 512, 1024, 2048);  /* 32 tiles in 2 pieces (132 / 32 = 4 slots, 32 steps) */
    gemm_launches(90, 256, 256, 1984);   /* 4 tiles, 31 steps: too short to split, in halves */
    gemm_launches(80, 256, 256, 8192);   /* sm_80: a block per tile */

    refused(gemm_dyn, NULL, 0, NULL, 0, 1, "takes 3 tensors and 0 scalars");
    int64_t a[2] = {1000, 704}, b[2] = {704, 1004}, c[2] = {1000, 1004};
    tilec_tensor t[3] = {{PTR(1), 2, a}, {PTR(2), 2, b}, {PTR(3), 2, c}};
    refused(gemm_dyn, t, 3, NULL, 0, 1,
            "gemm_dyn: tensor 'B' (parameter 2): dimension 1 (N) is 1004, which is not a multiple of 8 "
            "(the kernel's promise N % 8)");
    b[1] = c[1] = 1016, a[1] = 100;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "tensor 'A' (parameter 1): dimension 1 (K) is 100, which is not a multiple of 64");
    a[1] = 704, b[0] = 768;
    refused(gemm_dyn, t, 3, NULL, 0, 1,
            "tensor 'B' (parameter 2): dimension 0 (K) is 768, but tensor 'A' (parameter 1) gives K = 704 in its "
            "dimension 1");
    b[0] = 704, c[0] = 999;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "tensor 'C' (parameter 3): dimension 0 (M) is 999, but tensor 'A'");
    c[0] = a[0] = 0;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "tensor 'A' (parameter 1): dimension 0 (M) is 0, but a dynamic size is 1 to 2^31 - 1");
    c[0] = a[0] = 2147483648LL;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "dimension 0 (M) is 2147483648, but a dynamic size");
    c[0] = a[0] = -5;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "dimension 0 (M) is -5, but a dynamic size");
    c[0] = a[0] = 1000;
    t[1].ndim = 3;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "tensor 'B' has 3 dimensions, the kernel takes 2");
    t[1].ndim = 2, t[2].data = NULL;
    refused(gemm_dyn, t, 3, NULL, 0, 1, "tensor 'C' is a null pointer");
    t[2].data = PTR(3);
    EXPECT(call(gemm_dyn, t, 3, NULL, 0) == 0 && launches == 1, "the fixed arguments launch: %s", said);
    /* a grid CUDA could launch (65535 x 16777215 tiles) but of more tiles than
     * the persistent kernel numbers in its ints: refused on sm_90a */
    stub_cc = 90, stub_context++;
    a[0] = c[0] = 65535LL * 128, b[1] = c[1] = 2147483640LL;
    refused(gemm_dyn, t, 3, NULL, 0, 0, "more than the kernel numbers");
}

/* ---- gemm: fixed sizes, 256 x 256 x 256 ---- */

/* No size arguments: the tensor maps follow the three pointers. */
static void on_fixed_gemm(void **args) {
    for (int i = 0; i < 3; i++) launched_ptr[i] = *(CUdeviceptr *)args[i];
    for (int m = 0; m < stub_nmaps; m++) launched_map[m] = ((CUtensorMap *)args[3 + m])->opaque[0];
}

static void test_fixed_gemm(void) {
    stub_on_launch = on_fixed_gemm;
    memset(launched_map, 0, sizeof launched_map);
    int64_t s[2] = {256, 256};
    tilec_tensor t[3] = {{PTR(1), 2, s}, {PTR(2), 2, s}, {PTR(3), 2, s}};
    stub_cc = 90, stub_context++;
    EXPECT(call(gemm, t, 3, NULL, 0) == 0 && launches == 1, "gemm: %s", said);
    EXPECT(strstr(stub_symbol, "tilec_gemm_") && !strstr(stub_symbol, "dyn"), "gemm symbol %s", stub_symbol);
    EXPECT(stub_grid[0] >= 1 && stub_grid[1] >= 1 && stub_grid[2] == 1, "gemm grid %u %u %u", stub_grid[0],
           stub_grid[1], stub_grid[2]);
    EXPECT(launched_ptr[0] == 0x10000 && launched_ptr[1] == 0x20000 && launched_ptr[2] == 0x30000, "gemm pointers");
    EXPECT(stub_nmaps == 3, "gemm on sm_90a: %d tensor maps", stub_nmaps);
    for (int i = 0; i < stub_nmaps && i < 3; i++) {
        const StubMap *m = &stub_maps[i];
        EXPECT(m->rank == 2 && m->dims[0] == 256 && m->dims[1] == 256 && m->strides[0] == 512 && m->address == PTR(i + 1),
               "gemm map %d: dims %llu %llu stride %llu", i, m->dims[0], m->dims[1], m->strides[0]);
        EXPECT(launched_map[i] == (unsigned long long)i + 1, "gemm argument %d is map %llu", 3 + i, launched_map[i]);
    }
    s[1] = 264;
    refused(gemm, t, 3, NULL, 0, 1, "gemm: tensor 'A': dimension 1 (K) is 264, the kernel was compiled for 256");
}

/* ---- scale_rows: X[M, 512] * a -> Y; grid (2, ceildiv(M, 4)) ---- */

static float launched_a;

static void on_scale(void **args) {
    launched_a = *(float *)args[2];
    launched_size[0] = *(int *)args[3];
}

static void test_scale_rows(void) {
    stub_on_launch = on_scale;
    int64_t x[2] = {1000, 512};
    tilec_tensor t[2] = {{PTR(1), 2, x}, {PTR(2), 2, x}};
    double a = 0.5;
    EXPECT(call(scale_rows, t, 2, &a, 1) == 0 && launches == 1, "scale_rows: %s", said);
    EXPECT(stub_grid[0] == 2 && stub_grid[1] == 250 && stub_grid[2] == 1, "scale_rows grid %u %u %u", stub_grid[0],
           stub_grid[1], stub_grid[2]);
    EXPECT(launched_a == 0.5f && launched_size[0] == 1000, "scale_rows arguments %g %lld", launched_a, launched_size[0]);
    x[0] = 4 * 65535LL; /* the most rows grid.y takes */
    EXPECT(call(scale_rows, t, 2, &a, 1) == 0 && stub_grid[1] == 65535, "scale_rows at y = 65535: %s", said);
    x[0]++;
    refused(scale_rows, t, 2, &a, 1, 0, "scale_rows: at M = 262141, the launch grid's y dimension is 65536, outside the "
                                        "1 to 65535 CUDA launches");
    x[0] = 100, x[1] = 256;
    refused(scale_rows, t, 2, &a, 1, 1, "tensor 'X': dimension 1 (N) is 256, the kernel was compiled for 512");
    x[1] = 512;
    int64_t y[2] = {101, 512};
    t[1].shape = y;
    refused(scale_rows, t, 2, &a, 1, 1, "tensor 'Y' (parameter 2): dimension 0 (M) is 101, but tensor 'X' (parameter 1) "
                                        "gives M = 100 in its dimension 0");
    refused(scale_rows, t, 2, NULL, 0, 1, "takes 2 tensors and 1 scalars, not 2 and 0");
}

/* ---- grid_ops: the grid's operators against the same formulas in C ---- */

static void grid_ops_at(long long m, long long n) {
    int64_t x[2] = {m, n};
    tilec_tensor t[2] = {{PTR(1), 2, x}, {PTR(2), 2, x}};
    long long want[3] = {(m * n + 255) / 256, m > n ? 2 : 1, 0};
    if (m == 1) {
        refused(grid_ops, t, 2, NULL, 0, 0, "the launch grid is undefined (a division by zero or an overflow)");
        return;
    }
    want[2] = (64 / (m - 1) > 1 ? 64 / (m - 1) : 1) - (n >> 20);
    const char *bad = want[0] > 2147483647LL ? "x dimension" : want[2] < 1 ? "z dimension" : NULL;
    if (bad) {
        refused(grid_ops, t, 2, NULL, 0, 0, bad);
        return;
    }
    EXPECT(call(grid_ops, t, 2, NULL, 0) == 0 && launches == 1, "grid_ops %lld %lld: %s", m, n, said);
    EXPECT(stub_grid[0] == want[0] && stub_grid[1] == want[1] && stub_grid[2] == want[2],
           "grid_ops %lld %lld: grid %u %u %u, not %lld %lld %lld", m, n, stub_grid[0], stub_grid[1], stub_grid[2],
           want[0], want[1], want[2]);
}

static void test_grid_ops(void) {
    stub_on_launch = NULL;
    static const long long sizes[][2] = {{64, 64},       {3, 8},         {2, 1 << 21},   {2, 1 << 26}, {1, 4},
                                         {100, 4},       {65, 1 << 20},  {17, 12},       {2147483647, 2147483644},
                                         {2, 2147483644}, {1000000, 1024}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) grid_ops_at(sizes[i][0], sizes[i][1]);
    int64_t x[2] = {64, 30};
    tilec_tensor t[2] = {{PTR(1), 2, x}, {PTR(2), 2, x}};
    refused(grid_ops, t, 2, NULL, 0, 1, "(N) is 30, which is not a multiple of 4 (the kernel's promise N % 4)");
}

int main(void) {
    test_gemm();
    test_fixed_gemm();
    test_scale_rows();
    test_grid_ops();
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
