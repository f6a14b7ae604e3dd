/* launch.c - tilec_launch: the arguments checked (launch_args.c), the
 * device opened and the kernel's module loaded on first use, the kernel
 * arguments built (device pointers, converted scalars, TMA tensor maps
 * encoded for this launch's pointers) and the kernel launched on the
 * caller's stream. The CUDA driver is loaded at run time (runtime/driver.c,
 * once per process under its own pthread_once and lock). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

/* The device, the module and the function, once per kernel. */
static int load_once(tilec_kernel *k, FILE *out) {
    pthread_mutex_lock(&k->lock);
    int rc = LIB_OK;
    if (!k->module) {
        char err[256];
        RtDevice dev;
        RtModule *m = NULL;
        if (!rt_device_open(&dev, err) || !rt_module_load(k->cubin, k->cubin_size, &m, err) ||
            !rt_kernel_get(m, k->symbol, &k->fn, err)) {
            fprintf(out, "tilec: cannot launch kernel '%s' (compiled for %s): %s\n", k->name, k->arch, err);
            rt_module_unload(m);
            rc = LIB_CUDA;
        } else {
            if (k->persistent) k->resident = rt_persistent_blocks(&k->fn, k->block, k->smem, k->cluster, LLONG_MAX);
            k->module = m; /* last: other threads see a module only with its grid */
        }
    }
    pthread_mutex_unlock(&k->lock);
    return rc;
}

/* The kernel's arguments in parameter order, its dynamic sizes, then its
 * TMA tensor maps. */
typedef struct Args {
    void *params[64 + RT_MAX_DYNAMIC + CG_MAX_TMA];
    uint64_t ptr[64];
    ScalarArg scalar[64];
    int dims[RT_MAX_DYNAMIC];
    _Alignas(64) unsigned char maps[CG_MAX_TMA][RT_TENSOR_MAP_BYTES];
} Args;

static int build_args(const tilec_kernel *k, const tilec_tensor *t, const double *s, const int64_t *dims, Args *a,
                      FILE *out) {
    char err[256];
    const tilec_tensor *of_param[64];
    for (int i = 0, ti = 0, si = 0; i < k->nparams; i++) {
        if (k->params[i].tensor) {
            of_param[i] = &t[ti];
            a->ptr[i] = (uint64_t)(uintptr_t)t[ti++].data;
            a->params[i] = &a->ptr[i];
        } else {
            dtype_scalar_arg(k->params[i].dtype, s[si++], &a->scalar[i]);
            a->params[i] = &a->scalar[i];
        }
    }
    for (int j = 0; j < k->ndynamic; j++) {
        a->dims[j] = (int)dims[j];
        a->params[k->nparams + j] = &a->dims[j];
    }
    /* each map for this launch's pointer and shape (the compiled shape is
     * one of many where sizes are dynamic) */
    for (int m = 0; m < k->ntma; m++) {
        RtTensorMapSpec spec = k->tma[m];
        int64_t shape[MAX_RANK];
        for (int d = 0; d < spec.rank; d++) shape[d] = of_param[spec.param]->shape[d];
        rt_tensor_map_reshape(&spec, shape);
        if (!rt_tensor_map_encode(&spec, a->ptr[spec.param], a->maps[m], err)) {
            fprintf(out, "tilec: kernel '%s': %s\n", k->name, err);
            return LIB_CUDA;
        }
        a->params[k->nparams + k->ndynamic + m] = a->maps[m];
    }
    return LIB_OK;
}

/* A launch's messages go to a memory stream kept per thread and rewound
 * for each launch, not one opened and closed per call (allocations on
 * every launch, and an empty string handed back on success that callers
 * checking only failures never freed). The key's destructor closes a
 * thread's stream when the thread ends. */
typedef struct LaunchText {
    FILE *f;
    char *text;
    size_t len;
} LaunchText;
static pthread_key_t launch_text_key;
static pthread_once_t launch_text_once = PTHREAD_ONCE_INIT;

static void launch_text_free(void *p) {
    LaunchText *t = p;
    fclose(t->f);
    free(t->text);
    free(t);
}
static void launch_text_init(void) {
    if (pthread_key_create(&launch_text_key, launch_text_free)) die("cannot create a thread key for launch messages");
}

static LaunchText *launch_text_open(void) {
    pthread_once(&launch_text_once, launch_text_init);
    LaunchText *t = pthread_getspecific(launch_text_key);
    if (!t) {
        t = xcalloc(1, sizeof *t);
        t->f = open_memstream(&t->text, &t->len);
        if (!t->f) die("out of memory opening a diagnostics stream");
        pthread_setspecific(launch_text_key, t);
    }
    rewind(t->f);
    return t;
}

/* *out (when not NULL): what this launch wrote, malloc'd, or NULL when it
 * wrote nothing (a launch that succeeds). */
static void launch_text_take(LaunchText *t, char **out) {
    long n = ftell(t->f);
    if (!out) return;
    *out = NULL;
    if (n <= 0) return;
    fflush(t->f);
    *out = xmalloc((size_t)n + 1);
    memcpy(*out, t->text, (size_t)n);
    (*out)[n] = 0;
}

/* The kernel of k's family that a launch at the dynamic sizes dims takes:
 * the first variant that suits them (rt_variant_fits), its grid in grid[];
 * else k itself. */
static tilec_kernel *variant_for(tilec_kernel *k, const int64_t *dims, long long grid[3]) {
    for (int i = 0; i < k->npartners; i++) {
        tilec_kernel *v = k->partner[i];
        long long line[3]; /* written where it does not fit too */
        if (!rt_variant_fits(v->grid, v->grid_expr, dims, &v->units, line)) continue;
        memcpy(grid, line, sizeof line);
        return v;
    }
    return k;
}

int lib_launch(tilec_kernel *k, const tilec_tensor *tensors, int ntensors, const double *scalars, int nscalars,
               void *stream, FILE *out) {
    if (!k) {
        fputs("tilec: tilec_launch needs a kernel\n", out);
        return LIB_USAGE;
    }
    if (k->nparams > 64) {
        fprintf(out, "tilec: kernel '%s' has %d parameters; tilec_launch takes at most 64\n", k->name, k->nparams);
        return LIB_USAGE;
    }
    if (k->stages) return lib_launch_pipeline(k, tensors, ntensors, scalars, nscalars, stream, out);
    int64_t dims[RT_MAX_DYNAMIC] = {0};
    long long grid[3];
    int rc = lib_check_args(k, tensors, ntensors, scalars, nscalars, dims, grid, out);
    if (rc == LIB_OK) k = variant_for(k, dims, grid);
    if (rc == LIB_OK) rc = load_once(k, out);
    Args a; /* on the stack: the launch copies the arguments it is given */
    if (rc == LIB_OK) rc = build_args(k, tensors, scalars, dims, &a, out);
    char err[256];
    /* a persistent kernel launches the blocks that fit, each looping over the tiles */
    if (rc == LIB_OK && k->persistent && grid[0] > k->resident) grid[0] = k->resident;
    if (rc == LIB_OK && !rt_launch(&k->fn, grid, k->block, k->smem, a.params, stream, err)) {
        fprintf(out, "tilec: kernel '%s': %s\n", k->name, err);
        rc = LIB_CUDA;
    }
    return rc;
}

int tilec_launch(tilec_kernel *k, const tilec_tensor *tensors, int ntensors, const double *scalars, int nscalars,
                 void *stream, char **diagnostics) {
    LaunchText *diag = launch_text_open();
    int rc = lib_launch(k, tensors, ntensors, scalars, nscalars, stream, diag->f);
    launch_text_take(diag, diagnostics);
    return rc;
}
