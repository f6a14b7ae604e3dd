/* run.c - `tilec --run`: generated inputs, poisoned outputs, one launch,
 * results back, verification against the reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"
#include "runtime.h"

/* A scalar parameter's value in the layout the kernel expects. */
typedef union ScalarArg {
    double f64;
    float f32;
    long long i64;
    int i32;
    short i16;
    signed char i8;
    uint16_t bits16;
    bool b;
} ScalarArg;

static void scalar_arg(const Sym *p, ScalarArg *a) {
    double v = p->value_float ? p->value.f : (double)p->value.i;
    memset(a, 0, sizeof *a);
    switch (p->dtype) {
    case DT_F64: a->f64 = v; break;
    case DT_F32: a->f32 = (float)v; break;
    case DT_F16: a->bits16 = prof_f16_bits(v); break;
    case DT_BF16: a->bits16 = prof_bf16_bits(v); break;
    case DT_I64: case DT_U64: a->i64 = p->value_float ? (long long)v : p->value.i; break;
    case DT_I16: case DT_U16: a->i16 = (short)p->value.i; break;
    case DT_I8: case DT_U8: a->i8 = (signed char)p->value.i; break;
    case DT_BOOL: a->b = v != 0; break;
    default: a->i32 = (int)p->value.i; break;
    }
}

int prof_run(KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size, const int64_t grid[3],
             int64_t block, int64_t smem, const RunOptions *o) {
    char err[256];
    RtModule *mod = NULL;
    RtKernel fn;
    if (!rt_module_load(cubin, cubin_size, &mod, err) || !rt_kernel_get(mod, kernel_name, &fn, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        if (mod) rt_module_unload(mod);
        return 4;
    }
    HostTensor *in = NULL;
    int n = 0;
    if (!prof_supply(k, o->supply, o->seed, &in, &n)) {
        rt_module_unload(mod);
        return 4;
    }
    int rc = 0;
    uint64_t *dev = calloc((size_t)n + 1, sizeof *dev);
    void **params = calloc((size_t)k->params.len + 1, sizeof *params);
    ScalarArg *scalars = calloc((size_t)k->params.len + 1, sizeof *scalars);
    HostTensor *got = calloc((size_t)n + 1, sizeof *got);
    if (!dev || !params || !scalars || !got) die("out of memory");
    for (int i = 0, t = 0; i < k->params.len; i++) {
        Sym *p = k->params.items[i];
        if (p->kind != SYM_TENSOR) {
            scalar_arg(p, &scalars[i]);
            params[i] = &scalars[i];
            continue;
        }
        HostTensor *h = &in[t];
        bool ok = rt_malloc(&dev[t], h->storage_bytes, err);
        /* Outputs start as 0xFF bytes (NaN for floats), so elements the
         * kernel never writes cannot pass as correct. */
        if (ok) ok = p->mode == MODE_OUT ? rt_memset8(dev[t], 0xFF, h->storage_bytes, err)
                                         : rt_memcpy_htod(dev[t], h->storage, h->storage_bytes, err);
        if (!ok) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 4;
            goto done;
        }
        params[i] = &dev[t];
        t++;
    }
    long long g[3] = {grid[0], grid[1], grid[2]};
    if (!rt_launch(&fn, g, block, smem, params, NULL, err) || !rt_synchronize(err)) {
        fprintf(stderr, "tilec: %s\n", err);
        rc = 4;
        goto done;
    }
    for (int t = 0; t < n; t++) {
        got[t] = in[t];
        got[t].values = NULL;
        got[t].storage = NULL;
        if (in[t].sym->mode == MODE_IN) continue;
        got[t].storage = malloc(in[t].storage_bytes ? in[t].storage_bytes : 1);
        if (!got[t].storage) die("out of memory");
        if (!rt_memcpy_dtoh(got[t].storage, dev[t], in[t].storage_bytes, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 4;
            goto done;
        }
    }
    if (!k->has_reference) {
        printf("verify: not verified: kernel '%s' has no reference block\n", k->name->s);
        goto done;
    }
    RefEval *ref = prof_ref_new(k, in, n);
    if (!ref) {
        rc = 4;
        goto done;
    }
    VerifyResult res;
    prof_verify(k, ref, got, n, o->rtol, o->atol, o->max_full, &res);
    prof_verify_print(stdout, &res);
    if (!res.passed) rc = 3;
    prof_ref_free(ref);
done:
    for (int t = 0; t < n; t++) {
        rt_free(dev[t]);
        free(got[t].storage);
    }
    prof_tensors_free(in, n);
    free(dev);
    free(params);
    free(scalars);
    free(got);
    rt_module_unload(mod);
    return rc;
}
