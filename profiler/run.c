/* run.c - a kernel session on the GPU: generated inputs in device memory,
 * outputs poisoned before each verified launch, results copied back and
 * verified against the reference. `--run` is one verified launch; the
 * profile (profile.c) adds consistency runs and timing on the same session. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

void prof_scalar_arg(Dtype t, bool is_float, double f, int64_t i, ScalarArg *a) {
    dtype_scalar_arg(t, is_float ? f : (double)i, a);
    if ((t == DT_I64 || t == DT_U64) && !is_float) a->i64 = i; /* exact past 2^53, where a double would round */
}

int prof_session_open(Session *s, KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size,
                      const LaunchSpec *launch, const RunOptions *o) {
    memset(s, 0, sizeof *s);
    s->k = k;
    for (int d = 0; d < 3; d++) s->grid[d] = launch->grid[d];
    s->block = launch->block;
    s->smem = launch->smem;
    char err[256];
    if (!rt_module_load(cubin, cubin_size, &s->mod, err) || !rt_kernel_get(s->mod, kernel_name, &s->fn, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        prof_session_close(s);
        return 4;
    }
    /* a persistent kernel's blocks loop over its tiles */
    if (launch->persistent) s->grid[0] = rt_persistent_blocks(&s->fn, s->block, s->smem, launch->cluster, s->grid[0]);
    if (!prof_supply(k, o->supply, o->seed, &s->in, &s->n)) {
        prof_session_close(s);
        return 4;
    }
    s->dev = xcalloc((size_t)s->n + 1, sizeof *s->dev);
    s->params = xcalloc((size_t)k->params.len + (size_t)launch->ndynamic + (size_t)launch->ntma + 1, sizeof *s->params);
    memcpy(s->dynamic, launch->dynamic_value, sizeof s->dynamic);
    for (int i = 0; i < launch->ndynamic; i++) s->params[k->params.len + i] = &s->dynamic[i];
    s->scalars = xcalloc((size_t)k->params.len + 1, sizeof *s->scalars);
    s->got = xcalloc((size_t)s->n + 1, sizeof *s->got);
    for (int i = 0, t = 0; i < k->params.len; i++) {
        Sym *p = k->params.items[i];
        if (p->kind != SYM_TENSOR) {
            prof_scalar_arg(p->dtype, p->value_float, p->value.f, p->value.i, &s->scalars[i]);
            s->params[i] = &s->scalars[i];
            continue;
        }
        HostTensor *h = &s->in[t];
        s->got[t] = *h;
        s->got[t].values = NULL;
        s->got[t].storage = NULL;
        if (!rt_malloc(&s->dev[t], h->storage_bytes, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            prof_session_close(s);
            return 4;
        }
        s->params[i] = &s->dev[t];
        t++;
    }
    if (launch->ntma > 0) {
        s->tensor_maps = aligned_alloc(64, (size_t)launch->ntma * RT_TENSOR_MAP_BYTES);
        if (!s->tensor_maps) die("out of memory");
    }
    for (int m = 0; m < launch->ntma; m++) {
        const RtTensorMapSpec *spec = &launch->tma[m];
        void *map = s->tensor_maps + (size_t)m * RT_TENSOR_MAP_BYTES;
        if (!rt_tensor_map_encode(spec, *(uint64_t *)s->params[spec->param], map, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            prof_session_close(s);
            return 4;
        }
        s->params[k->params.len + launch->ndynamic + m] = map;
    }
    return 0;
}

bool prof_tensors_to_device(const HostTensor *in, const uint64_t *dev, int n, char err[256]) {
    for (int t = 0; t < n; t++) {
        const HostTensor *h = &in[t];
        bool ok = h->sym->mode == MODE_OUT ? rt_memset8(dev[t], 0xFF, h->storage_bytes, err)
                                           : rt_memcpy_htod(dev[t], h->storage, h->storage_bytes, err);
        if (!ok) return false;
    }
    return true;
}

bool prof_outputs_to_host(const HostTensor *in, HostTensor *got, const uint64_t *dev, int n, char err[256]) {
    for (int t = 0; t < n; t++) {
        if (in[t].sym->mode == MODE_IN) continue;
        if (!got[t].storage) got[t].storage = xmalloc(in[t].storage_bytes);
        if (!rt_memcpy_dtoh(got[t].storage, dev[t], in[t].storage_bytes, err)) return false;
    }
    return true;
}

int prof_check_outputs(KernelInfo *k, HostTensor *in, HostTensor *got, int n, const RunOptions *o, VerifyResult *res,
                       bool *verified) {
    *verified = false;
    if (!k->has_reference) return 0;
    RefEval *ref = prof_ref_new(k, in, n);
    if (!ref) return 4;
    prof_verify(k, ref, got, n, o->rtol, o->atol, o->max_full, res);
    prof_ref_free(ref);
    *verified = true;
    return res->passed ? 0 : 3;
}

int prof_session_reset(Session *s) {
    char err[256];
    if (prof_tensors_to_device(s->in, s->dev, s->n, err)) return 0;
    fprintf(stderr, "tilec: %s\n", err);
    return 4;
}

int prof_session_verify(Session *s, const RunOptions *o, VerifyResult *res, bool *verified) {
    char err[256];
    *verified = false;
    memset(res, 0, sizeof *res);
    int rc = prof_session_reset(s);
    if (rc) return rc;
    if (!rt_launch(&s->fn, s->grid, s->block, s->smem, s->params, NULL, err) || !rt_synchronize(err) ||
        !prof_outputs_to_host(s->in, s->got, s->dev, s->n, err)) {
        fprintf(stderr, "tilec: %s\n", err);
        return 4;
    }
    return prof_check_outputs(s->k, s->in, s->got, s->n, o, res, verified);
}

/* Whether a and b (n elements of dtype t in device format) agree within
 * atol + rtol * |a| everywhere (NaN matching NaN); *max_diff grows to the
 * largest difference seen. */
static bool storages_within(Dtype t, const void *a, const void *b, int64_t n, double rtol, double atol, double *max_diff) {
    enum { CHUNK = 4096 };
    double x[CHUNK], y[CHUNK];
    size_t esize = (size_t)dtype_bytes(t);
    bool within = true;
    for (int64_t i = 0; i < n; i += CHUNK) {
        int64_t m = n - i < CHUNK ? n - i : CHUNK;
        prof_from_storage(t, (const char *)a + i * esize, x, m);
        prof_from_storage(t, (const char *)b + i * esize, y, m);
        for (int64_t e = 0; e < m; e++) {
            if (x[e] == y[e] || (isnan(x[e]) && isnan(y[e]))) continue;
            double d = fabs(x[e] - y[e]);
            if (!(d <= atol + rtol * fabs(x[e]))) within = false;
            if (!(d <= *max_diff)) *max_diff = isnan(d) ? INFINITY : d;
        }
    }
    return within;
}

bool prof_outputs_within(const HostTensor *in, const HostTensor *a, const HostTensor *b, int n, const RunOptions *o,
                         double *max_diff) {
    bool within = true;
    for (int t = 0; t < n; t++) {
        const HostTensor *h = &in[t];
        if (h->sym->mode == MODE_IN || !a[t].storage || !b[t].storage) continue;
        double rtol = o->rtol >= 0 ? o->rtol : prof_default_rtol(h->dtype);
        double atol = o->atol >= 0 ? o->atol : prof_default_atol(h->dtype);
        within &= storages_within(h->dtype, a[t].storage, b[t].storage, h->elems, rtol, atol, max_diff);
    }
    return within;
}

int prof_session_consistency_within(Session *s, const RunOptions *o, int runs, bool *within, double *max_diff) {
    char err[256];
    *within = true;
    *max_diff = 0;
    HostTensor *now = xcalloc((size_t)s->n, sizeof *now);
    int rc = 0;
    for (int r = 0; r < runs && rc == 0; r++) {
        if ((rc = prof_session_reset(s))) break;
        if (!rt_launch(&s->fn, s->grid, s->block, s->smem, s->params, NULL, err) || !rt_synchronize(err) ||
            !prof_outputs_to_host(s->in, now, s->dev, s->n, err)) {
            fprintf(stderr, "tilec: %s\n", err);
            rc = 4;
            break;
        }
        *within &= prof_outputs_within(s->in, s->got, now, s->n, o, max_diff);
    }
    for (int t = 0; t < s->n; t++) free(now[t].storage);
    free(now);
    return rc;
}

void prof_session_close(Session *s) {
    for (int t = 0; s->dev && t < s->n; t++) rt_free(s->dev[t]);
    for (int t = 0; s->got && t < s->n; t++) free(s->got[t].storage);
    if (s->in) prof_tensors_free(s->in, s->n);
    free(s->dev);
    free(s->params);
    free(s->scalars);
    free(s->tensor_maps);
    free(s->got);
    if (s->mod) rt_module_unload(s->mod);
    memset(s, 0, sizeof *s);
}

uint64_t prof_outputs_digest(const HostTensor *in, const HostTensor *got, int n, size_t *bytes) {
    uint64_t h = 1469598103934665603ull;
    *bytes = 0;
    for (int t = 0; t < n; t++) {
        if (in[t].sym->mode == MODE_IN || !got[t].storage) continue;
        const unsigned char *b = got[t].storage;
        for (size_t i = 0; i < in[t].storage_bytes; i++) h = (h ^ b[i]) * 1099511628211ull;
        *bytes += in[t].storage_bytes;
    }
    return h;
}

void prof_print_digest(const HostTensor *in, const HostTensor *got, int n) {
    size_t bytes;
    uint64_t h = prof_outputs_digest(in, got, n, &bytes);
    printf("outputs: digest %016llx (FNV-1a of their %zu bytes)\n", (unsigned long long)h, bytes);
}

int prof_run(KernelInfo *k, const char *kernel_name, const void *cubin, size_t cubin_size, const LaunchSpec *launch,
             const RunOptions *o) {
    Session s;
    int rc = prof_session_open(&s, k, kernel_name, cubin, cubin_size, launch, o);
    if (rc) return rc;
    VerifyResult res;
    bool verified;
    rc = prof_session_verify(&s, o, &res, &verified);
    if (rc != 4) {
        if (verified) prof_verify_print(stdout, &res);
        else printf("verify: not verified: kernel '%s' has no reference block\n", k->name->s);
        prof_print_digest(s.in, s.got, s.n);
    }
    prof_session_close(&s);
    return rc;
}
