/* compare.c - `tilec --profile --compare cublas`: recognising a reference
 * that is one matrix product and timing cuBLAS on the same device buffers
 * with the profiler's method (bench.c: warm-up, an L2 flush before every
 * sample, one event pair per sample, the same stopping rule), for the report's
 * "vs Baseline" section.
 *
 * libcublas is opened with dlopen on first use and every function is looked
 * up with dlsym, so tilec never links it and runs where it is missing.
 * cublas_api.h and library_types.h are included for their types and enums
 * only; no function they declare is called directly. */
#include <cublas_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profiler.h"

enum {
    CHECK_CHUNK_ELEMS = 1 << 16,    /* elements of C compared per copy back */
};
/* Both results approximate the same product from the same inputs with f32
 * accumulation, so they differ by rounding (about 1e-3 relative); a wrong
 * transpose, leading dimension or stride makes an error of order 1. */
static const double CHECK_MAX_REL_ERR = 0.05;



/* ---- recognising a matrix product ---- */

static bool gemm_dtype(Dtype t) { return t == DT_F16 || t == DT_BF16 || t == DT_F32; }

/* A plain index variable of the reference, else NULL. */
static Sym *index_var(const Node *e) {
    return e && e->kind == N_NAME && e->sym && e->sym->kind == SYM_REF_INDEX ? e->sym : NULL;
}

/* The position of tensor parameter `name` among k's tensor parameters (the
 * order of prof_supply and of Session.in/dev), checked against the session
 * when there is one; -1 when there is none. Sema leaves a definition's
 * lhs->sym unset, so tensors are found by their (interned) name. */
static int tensor_slot(const KernelInfo *k, const Session *s, const Name *name, Sym **sym) {
    for (int i = 0, t = 0; i < k->params.len; i++) {
        Sym *p = k->params.items[i];
        if (p->kind != SYM_TENSOR) continue;
        if (p->name == name) {
            if (s && (t >= s->n || !s->in || s->in[t].sym != p)) return -1;
            *sym = p;
            return t;
        }
        t++;
    }
    return -1;
}

/* Whether e is T[(b,) x, y]: an input tensor of the given rank read with
 * plain index variables, the batch variable bv first when there is one. */
static bool operand(const KernelInfo *k, const Session *s, const Node *e, int rank, Sym *bv, int *slot, Sym **t,
                    Sym **x, Sym **y) {
    if (!e || e->kind != N_INDEX || !e->sym || e->sym->kind != SYM_TENSOR || e->sym->mode != MODE_IN) return false;
    const NodeList *il = &e->u.index.idx;
    if (il->len != rank || e->sym->rank != rank) return false;
    *slot = tensor_slot(k, s, e->u.index.name, t);
    if (*slot < 0 || *t != e->sym) return false;
    if (bv && index_var(il->items[0]) != bv) return false;
    *x = index_var(il->items[rank - 2]);
    *y = index_var(il->items[rank - 1]);
    return *x && *y;
}

/* The work of prof_matmul_shape; *why says what disqualifies the reference. */
static bool matmul_shape(KernelInfo *k, const Session *s, GemmShape *g, const char **why) {
    memset(g, 0, sizeof *g);
    g->a = g->b = g->c = -1;
    *why = "no vendor equivalent: the reference is not a matrix product";
    if (!k->has_reference || !k->node || !k->node->u.kernel.ref) {
        *why = "no vendor equivalent: the kernel has no reference block that says what it computes";
        return false;
    }
    const Node *ref = k->node->u.kernel.ref, *def = NULL;
    for (int i = 0; i < ref->u.list.len; i++) {
        const Node *st = ref->u.list.items[i];
        if (st->kind == N_LET) continue;  /* a scalar: the product below cannot use it */
        if (st->kind != N_ASSIGN || def) return false;
        def = st;
    }
    if (!def || def->u.assign.op != OP_ASSIGN) return false;
    const Node *lhs = def->u.assign.lhs, *rhs = def->u.assign.rhs;
    if (!lhs || lhs->kind != N_INDEX) return false;
    Sym *c;
    int rank = lhs->u.index.idx.len;
    if (rank != 2 && rank != 3) return false;
    g->c = tensor_slot(k, s, lhs->u.index.name, &c);
    if (g->c < 0 || c->mode != MODE_OUT || c->rank != rank) return false;
    Sym *bv = rank == 3 ? index_var(lhs->u.index.idx.items[0]) : NULL;
    Sym *iv = index_var(lhs->u.index.idx.items[rank - 2]), *jv = index_var(lhs->u.index.idx.items[rank - 1]);
    if ((rank == 3 && !bv) || !iv || !jv) return false;

    /* sum(k: X * Y), one reduction variable, nothing around it. */
    if (!rhs || rhs->kind != N_CALL || !rhs->u.call.name || strcmp(rhs->u.call.name->s, "sum") != 0 ||
        rhs->u.call.args.len != 0 || rhs->u.call.reduce_vars.len != 1)
        return false;
    Sym *kv = index_var(rhs->u.call.reduce_vars.items[0]);
    const Node *body = rhs->u.call.body;
    if (!kv || !body || body->kind != N_BINARY || body->u.op.op != OP_MUL) return false;
    int s1, s2;
    Sym *t1, *t2, *x1, *y1, *x2, *y2;
    if (!operand(k, s, body->u.op.a, rank, bv, &s1, &t1, &x1, &y1) ||
        !operand(k, s, body->u.op.b, rank, bv, &s2, &t2, &x2, &y2))
        return false;
    /* Either factor order: A is the one indexed by C's row variable. */
    bool first_is_a = x1 == iv || y1 == iv;
    Sym *ta = first_is_a ? t1 : t2, *tb = first_is_a ? t2 : t1;
    Sym *xa = first_is_a ? x1 : x2, *ya = first_is_a ? y1 : y2, *xb = first_is_a ? x2 : x1, *yb = first_is_a ? y2 : y1;
    g->a = first_is_a ? s1 : s2;
    g->b = first_is_a ? s2 : s1;
    if (xa == iv && ya == kv) g->trans_a = false;
    else if (xa == kv && ya == iv) g->trans_a = true;
    else return false;
    if (xb == kv && yb == jv) g->trans_b = false;
    else if (xb == jv && yb == kv) g->trans_b = true;
    else return false;

    int o = rank - 2;  /* the first matrix dimension */
    g->batch = rank == 3 ? c->shape[0] : 1;
    g->m = c->shape[o];
    g->n = c->shape[o + 1];
    g->k = ta->shape[o + (g->trans_a ? 0 : 1)];
    /* Sema unified the index ranges already; this only guards the mapping. */
    if (ta->shape[o + (g->trans_a ? 1 : 0)] != g->m || tb->shape[o + (g->trans_b ? 1 : 0)] != g->k ||
        tb->shape[o + (g->trans_b ? 0 : 1)] != g->n ||
        (rank == 3 && (ta->shape[0] != g->batch || tb->shape[0] != g->batch)))
        return false;

    g->ab = ta->dtype;
    g->cd = c->dtype;
    if (ta->dtype != tb->dtype) {
        *why = "no vendor equivalent: the reference multiplies matrices of two different dtypes, which a GEMM does not";
        return false;
    }
    if (!gemm_dtype(g->ab) || !gemm_dtype(g->cd)) {
        *why = "no vendor equivalent: the matrix product's dtypes are not among f16, bf16 and f32";
        return false;
    }
    return true;
}

bool prof_matmul_shape(KernelInfo *k, const Session *s, GemmShape *g) {
    const char *why;
    return matmul_shape(k, s, g, &why);
}

/* ---- loading cuBLAS ---- */

/* Each entry is (field, symbol); the field's type comes from cublas_api.h's
 * own prototype, so a wrong signature cannot compile. cublas_v2.h maps
 * cublasCreate, cublasDestroy and cublasSetStream to their _v2 symbols (the
 * unversioned ones are the legacy API without handles), so those are named. */
#define CUBLAS_FUNCTIONS(X)                        \
    X(create, cublasCreate_v2)                     \
    X(destroy, cublasDestroy_v2)                   \
    X(set_stream, cublasSetStream_v2)              \
    X(gemm, cublasGemmEx)                          \
    X(gemm_strided_batched, cublasGemmStridedBatchedEx) \
    X(status_string, cublasGetStatusString)

#define DECLARE_FIELD(field, symbol) __typeof__(&symbol) field;
typedef struct CublasApi {
    CUBLAS_FUNCTIONS(DECLARE_FIELD)
} CublasApi;

#define SYMBOL_ENTRY(field, symbol) {#symbol, offsetof(CublasApi, field)},
static const struct {
    const char *name;
    size_t offset;
} cublas_symbols[] = {CUBLAS_FUNCTIONS(SYMBOL_ENTRY)};

/* POSIX (for dlsym) guarantees that object and function pointers convert
 * into each other; storing dlsym's result byte for byte relies on that. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers must fit in void *");

/* cuBLAS 13 first; 12 has the same ABI for every function used here. */
static const char *const cublas_sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};

/* Loaded once per process and never closed; only read afterwards. */
static struct {
    pthread_once_t once;
    void *library;
    CublasApi api;
    char error[200];  /* "" once the library and all its functions are loaded */
} cublas = {.once = PTHREAD_ONCE_INIT};

static void load_cublas(void) {
    /* RTLD_LOCAL keeps cuBLAS's symbols out of the global namespace; RTLD_NOW
     * fails here, not at a later call, when a dependency (libcublasLt) is missing. */
    const char *soname = NULL;
    for (size_t i = 0; i < sizeof cublas_sonames / sizeof *cublas_sonames && !cublas.library; i++) {
        soname = cublas_sonames[i];
        cublas.library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    }
    if (!cublas.library) {
        snprintf(cublas.error, sizeof cublas.error,
                 "cuBLAS could not be loaded (none of libcublas.so.13, .so.12 or .so is on the library path)");
        return;
    }
    for (size_t i = 0; i < sizeof cublas_symbols / sizeof *cublas_symbols; i++) {
        void *fn = dlsym(cublas.library, cublas_symbols[i].name);
        if (!fn) {
            snprintf(cublas.error, sizeof cublas.error, "%s is too old: it has no %s", soname, cublas_symbols[i].name);
            memset(&cublas.api, 0, sizeof cublas.api);
            return;
        }
        memcpy((char *)&cublas.api + cublas_symbols[i].offset, &fn, sizeof fn);
    }
}

static const char *status_text(cublasStatus_t st) {
    const char *t = cublas.api.status_string ? cublas.api.status_string(st) : NULL;
    return t ? t : "an unknown cuBLAS status";
}

/* ---- running and timing the GEMM ---- */

typedef struct Gemm {
    cublasHandle_t handle;
    cublasOperation_t op_a, op_b;
    int m, n, k, lda, ldb, ldc, batch;
    long long stride_a, stride_b, stride_c;
    cudaDataType ab, cd;
    const void *a, *b;
    void *c;
    /* timing, as bench.c does it */
    void *stream;
    char *err;
} Gemm;

static cudaDataType cuda_type(Dtype t) {
    return t == DT_F16 ? CUDA_R_16F : t == DT_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* Row-major C = A.B is column-major C^T = B^T.A^T, so cuBLAS gets B as its
 * first operand and A as its second, with n and m swapped (run_gemm). */
static void gemm_from_shape(const GemmShape *sh, Gemm *g) {
    g->op_a = sh->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    g->op_b = sh->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    g->m = (int)sh->m;
    g->n = (int)sh->n;
    g->k = (int)sh->k;
    /* A leading dimension is the row length of the row-major storage:
     * cuBLAS reads each stored row as a column. */
    g->lda = (int)(sh->trans_a ? sh->m : sh->k);
    g->ldb = (int)(sh->trans_b ? sh->k : sh->n);
    g->ldc = (int)sh->n;
    g->batch = (int)sh->batch;
    g->stride_a = sh->m * sh->k;
    g->stride_b = sh->k * sh->n;
    g->stride_c = sh->m * sh->n;
    g->ab = cuda_type(sh->ab);
    g->cd = cuda_type(sh->cd);
}

/* With CUBLAS_COMPUTE_32F alpha and beta are floats, read during the call
 * (host pointer mode), so locals will do. */
static bool run_gemm(Gemm *g) {
    const float alpha = 1, beta = 0;
    cublasStatus_t st =
        g->batch > 1
            ? cublas.api.gemm_strided_batched(g->handle, g->op_b, g->op_a, g->n, g->m, g->k, &alpha, g->b, g->ab,
                                              g->ldb, g->stride_b, g->a, g->ab, g->lda, g->stride_a, &beta, g->c,
                                              g->cd, g->ldc, g->stride_c, g->batch, CUBLAS_COMPUTE_32F,
                                              CUBLAS_GEMM_DEFAULT)
            : cublas.api.gemm(g->handle, g->op_b, g->op_a, g->n, g->m, g->k, &alpha, g->b, g->ab, g->ldb, g->a,
                              g->ab, g->lda, &beta, g->c, g->cd, g->ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) return rt_fail(g->err, "cuBLAS's GEMM failed: %s", status_text(st));
    return true;
}

/* One GEMM on the stream the benchmark gives (bench.c's method: warm-up,
 * L2 flush, event pairs, the same stopping rule as tilec's kernel). */
static bool launch_gemm(void *arg, void *stream, char err[256]) {
    Gemm *g = arg;
    g->err = err;
    if (stream != g->stream) {
        cublasStatus_t st = cublas.api.set_stream(g->handle, (cudaStream_t)stream);
        if (st != CUBLAS_STATUS_SUCCESS) return rt_fail(err, "could not give cuBLAS the timing stream: %s", status_text(st));
        g->stream = stream;
    }
    return run_gemm(g);
}

/* cuBLAS's C against tilec's verified output (s->got), in chunks: a guard
 * against timing a differently mapped product. Sets *rel to the relative
 * Frobenius error (infinite when non-finite values disagree). */
static bool check_result(const Gemm *g, const HostTensor *c, const void *want, uint64_t dev, double *rel) {
    int eb = dtype_bytes(c->dtype);
    unsigned char *chunk = malloc((size_t)CHECK_CHUNK_ELEMS * (size_t)eb);
    double *x = malloc(CHECK_CHUNK_ELEMS * sizeof *x), *y = malloc(CHECK_CHUNK_ELEMS * sizeof *y);
    bool ok = chunk && x && y;
    if (!ok) rt_fail(g->err, "out of memory checking cuBLAS's result");
    double diff = 0, norm = 0;
    bool nonfinite_mismatch = false;
    for (int64_t off = 0; ok && off < c->elems; off += CHECK_CHUNK_ELEMS) {
        int64_t n = c->elems - off < CHECK_CHUNK_ELEMS ? c->elems - off : CHECK_CHUNK_ELEMS;
        ok = rt_memcpy_dtoh(chunk, dev + (uint64_t)off * (uint64_t)eb, (size_t)n * (size_t)eb, g->err);
        if (!ok) break;
        prof_from_storage(c->dtype, chunk, x, n);
        prof_from_storage(c->dtype, (const unsigned char *)want + off * eb, y, n);
        for (int64_t i = 0; i < n; i++) {
            if (!isfinite(x[i]) || !isfinite(y[i])) {
                if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i])))) nonfinite_mismatch = true;
                continue;
            }
            diff += (x[i] - y[i]) * (x[i] - y[i]);
            norm += y[i] * y[i];
        }
    }
    free(chunk);
    free(x);
    free(y);
    *rel = nonfinite_mismatch ? INFINITY : norm > 0 ? sqrt(diff / norm) : (diff > 0 ? INFINITY : 0);
    return ok;
}

/* The note of a comparison that did not happen; static, like metrics.c's
 * strings (one profile per process). */
static char note_text[256];

static bool no_comparison(CompareResult *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool no_comparison(CompareResult *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note_text, sizeof note_text, fmt, ap);
    va_end(ap);
    out->present = false;
    out->note = note_text;
    return true;
}

static bool fits_int(long long v) { return v >= 0 && v <= INT_MAX; }

bool prof_compare_cublas(KernelInfo *k, Session *s, long long l2_bytes, const BenchOptions *o, double tilec_median_ms,
                         CompareResult *out, char err[256]) {
    char local_err[256];
    if (!err) err = local_err;
    err[0] = 0;
    memset(out, 0, sizeof *out);
    out->name = "cublas";
    BenchOptions defaults = prof_bench_defaults();
    if (!o) o = &defaults;

    GemmShape shape;
    const char *why;
    if (!matmul_shape(k, s, &shape, &why)) return no_comparison(out, "%s", why);
    /* GemmEx with CUBLAS_COMPUTE_32F takes 16-bit inputs into the same type or
     * f32, and f32 into f32 only; it has no f16 <-> bf16 or f32 -> 16-bit forms. */
    if (shape.ab != shape.cd && shape.cd != DT_F32)
        return no_comparison(out, "no vendor equivalent: cuBLAS has no GEMM from %s matrices to %s results",
                             dtype_name(shape.ab), dtype_name(shape.cd));
    if (shape.m == 0 || shape.n == 0 || shape.k == 0 || shape.batch == 0)
        return no_comparison(out, "nothing to compare: the matrix product is empty");
    if (!fits_int(shape.m) || !fits_int(shape.n) || !fits_int(shape.k) || !fits_int(shape.batch))
        return no_comparison(out, "no vendor equivalent: a dimension of the product exceeds cuBLAS's 32-bit sizes");
    if (!s || !s->dev || !s->in)
        return rt_fail(err, "prof_compare_cublas needs an open session with device buffers");
    if (o->l2_flush && l2_bytes <= 0)
        return rt_fail(err, "cannot flush L2 between cuBLAS samples: the device's L2 size is unknown");
    pthread_once(&cublas.once, load_cublas);
    if (cublas.error[0]) return no_comparison(out, "no cuBLAS to compare with: %s", cublas.error);

    Gemm g = {.err = err};
    gemm_from_shape(&shape, &g);
    g.a = (const void *)(uintptr_t)s->dev[shape.a];
    g.b = (const void *)(uintptr_t)s->dev[shape.b];
    g.c = (void *)(uintptr_t)s->dev[shape.c];
    const HostTensor *c = &s->in[shape.c];
    const void *want = s->got ? s->got[shape.c].storage : NULL;
    double rel = 0, median_ms = 0;
    cublasStatus_t st;

    /* rt_synchronize makes the primary context current in this thread (cuBLAS
     * then uses it, as the runtime adopts a current context) and lets the
     * legacy stream's work finish, which the non-blocking stream would not wait for. */
    bool ok = rt_synchronize(err) && rt_stream_create(&g.stream, err);
    if (ok && (st = cublas.api.create(&g.handle)) != CUBLAS_STATUS_SUCCESS)
        ok = rt_fail(err, "could not create a cuBLAS handle: %s", status_text(st));
    if (ok && (st = cublas.api.set_stream(g.handle, (cudaStream_t)g.stream)) != CUBLAS_STATUS_SUCCESS)
        ok = rt_fail(err, "could not give cuBLAS the timing stream: %s", status_text(st));
    /* C is poisoned first (0xFF bytes are NaN), so a call that writes
     * nothing cannot pass the check; cuMemsetD8 may return before it is done,
     * and the timing stream does not wait for the legacy one, hence the wait. */
    ok = ok && rt_memset8(s->dev[shape.c], 0xFF, c->storage_bytes, err) && rt_synchronize(err) && run_gemm(&g) &&
         rt_stream_synchronize(g.stream, err);
    if (ok && want) {
        ok = check_result(&g, c, want, s->dev[shape.c], &rel);
        if (ok && !(rel <= CHECK_MAX_REL_ERR))
            ok = rt_fail(err, "cuBLAS's result differs from tilec's verified output (relative error %.3g), so the "
                      "GEMM given to it is not the reference's product", rel);
    }
    if (ok) {
        /* cuBLAS runs one event pair per call: graphs would need capturing it */
        BenchOptions eo = *o;
        eo.backend = BENCH_EVENT;
        BenchResult br;
        void *own = g.stream;
        ok = prof_bench_launch(launch_gemm, &g, l2_bytes, &eo, &br, err);
        g.err = err;
        if (ok) median_ms = br.median_ms;
        prof_bench_free(&br);
        g.stream = own;
    }

    /* Whatever happened: the stream is drained before its resources go. */
    char ignored[256];
    if (g.stream) rt_stream_synchronize(g.stream, ignored);
    if (g.handle) cublas.api.destroy(g.handle);
    rt_stream_destroy(g.stream);
    if (!ok) {
        no_comparison(out, "cuBLAS was not timed: %.200s", err);
        return false;
    }
    out->present = true;
    out->median_ms = median_ms;
    out->speedup = tilec_median_ms > 0 ? median_ms / tilec_median_ms : NAN;
    return true;
}
