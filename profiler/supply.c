/* supply.c - generated kernel inputs (LANGUAGE.md §7: --supply, --seed), the
 * conversions between f64 values and the device formats (the narrow floats
 * through float_format.c), and a small pthread
 * parallel-for the profiler layer shares. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler.h"

/* ---- parallel for ---- */

int prof_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    return (int)n;
}

typedef struct ParFor {
    _Atomic int64_t next;
    int64_t n;
    void (*fn)(void *arg, int64_t i);
    void (*done)(void *arg);
    void *arg;
} ParFor;

static void *par_worker(void *p) {
    ParFor *pf = p;
    for (;;) {
        int64_t i = atomic_fetch_add_explicit(&pf->next, 1, memory_order_relaxed);
        if (i >= pf->n) break;
        pf->fn(pf->arg, i);
    }
    if (pf->done) pf->done(pf->arg);
    return NULL;
}

void prof_parallel_for_done(int64_t n, int threads, void (*fn)(void *arg, int64_t i), void (*done)(void *arg),
                            void *arg) {
    if (n <= 0) return;
    if (threads <= 0) threads = prof_cpu_count();
    if (threads > 64) threads = 64;
    if ((int64_t)threads > n) threads = (int)n;
    if (threads <= 1) {
        for (int64_t i = 0; i < n; i++) fn(arg, i);
        if (done) done(arg);
        return;
    }
    ParFor pf = {.n = n, .fn = fn, .done = done, .arg = arg};
    atomic_init(&pf.next, 0);
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, par_worker, &pf) != 0) break; /* fewer threads will do */
        started++;
    }
    par_worker(&pf);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

void prof_parallel_for(int64_t n, int threads, void (*fn)(void *arg, int64_t i), void *arg) {
    prof_parallel_for_done(n, threads, fn, NULL, arg);
}

uint16_t prof_f16_bits(double v) { return (uint16_t)dtype_narrow_bits(DT_F16, v); }
double prof_f16_value(uint16_t bits) { return dtype_narrow_value(DT_F16, bits); }
uint16_t prof_bf16_bits(double v) { return (uint16_t)dtype_narrow_bits(DT_BF16, v); }
double prof_bf16_value(uint16_t bits) { return dtype_narrow_value(DT_BF16, bits); }

/* ---- integers ---- */

static void int_range(Dtype t, double *lo, double *hi) {
    switch (t) {
    case DT_I8: *lo = -128; *hi = 127; return;
    case DT_U8: *lo = 0; *hi = 255; return;
    case DT_I16: *lo = -32768; *hi = 32767; return;
    case DT_U16: *lo = 0; *hi = 65535; return;
    case DT_I32: *lo = -2147483648.0; *hi = 2147483647.0; return;
    case DT_U32: *lo = 0; *hi = 4294967295.0; return;
    case DT_U64: *lo = 0; *hi = 18446744073709549568.0; return; /* largest double below 2^64 */
    default: *lo = -9223372036854775808.0; *hi = 9223372036854774784.0; return; /* below 2^63 */
    }
}

/* Truncated toward zero and saturated; NaN -> 0. */
static double int_saturate(Dtype t, double v) {
    if (isnan(v)) return 0;
    double lo, hi;
    int_range(t, &lo, &hi);
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

double prof_round_to(Dtype t, double v) {
    switch (t) {
    case DT_BOOL: return v != 0;
    case DT_F16: case DT_BF16: case DT_F8E4M3: case DT_F8E5M2: case DT_F32: return dtype_round_float(t, v);
    case DT_F64: case DT_FLOAT_LIT: case DT_NONE: case DT_COUNT: return v;
    default: return int_saturate(t, v);
    }
}

void prof_to_storage(Dtype t, const double *v, void *storage, int64_t n) {
    switch (t) {
    case DT_BOOL: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = v[i] != 0; return; }
    case DT_F16: { uint16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint16_t)dtype_narrow_bits(DT_F16, v[i]); return; }
    case DT_BF16: { uint16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint16_t)dtype_narrow_bits(DT_BF16, v[i]); return; }
    case DT_F8E4M3: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)dtype_narrow_bits(DT_F8E4M3, v[i]); return; }
    case DT_F8E5M2: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)dtype_narrow_bits(DT_F8E5M2, v[i]); return; }
    case DT_F32: { float *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (float)v[i]; return; }
    case DT_F64: { memcpy(storage, v, (size_t)n * sizeof(double)); return; }
    case DT_I8: { int8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (int8_t)int_saturate(t, v[i]); return; }
    case DT_U8: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)int_saturate(t, v[i]); return; }
    case DT_I16: { int16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (int16_t)int_saturate(t, v[i]); return; }
    case DT_U16: { uint16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint16_t)int_saturate(t, v[i]); return; }
    case DT_I32: { int32_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (int32_t)int_saturate(t, v[i]); return; }
    case DT_U32: { uint32_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint32_t)int_saturate(t, v[i]); return; }
    case DT_I64: { int64_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (int64_t)int_saturate(t, v[i]); return; }
    case DT_U64: { uint64_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint64_t)int_saturate(t, v[i]); return; }
    default: return;
    }
}

void prof_from_storage(Dtype t, const void *storage, double *v, int64_t n) {
    switch (t) {
    case DT_BOOL: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i] != 0; return; }
    case DT_F16: { const uint16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = dtype_narrow_value(DT_F16, p[i]); return; }
    case DT_BF16: { const uint16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = dtype_narrow_value(DT_BF16, p[i]); return; }
    case DT_F8E4M3: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = dtype_narrow_value(DT_F8E4M3, p[i]); return; }
    case DT_F8E5M2: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = dtype_narrow_value(DT_F8E5M2, p[i]); return; }
    case DT_F32: { const float *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_F64: { memcpy(v, storage, (size_t)n * sizeof(double)); return; }
    case DT_I8: { const int8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_U8: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_I16: { const int16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_U16: { const uint16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_I32: { const int32_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_U32: { const uint32_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = p[i]; return; }
    case DT_I64: { const int64_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = (double)p[i]; return; }
    case DT_U64: { const uint64_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = (double)p[i]; return; }
    default: for (int64_t i = 0; i < n; i++) v[i] = 0; return;
    }
}

/* ---- the generator ---- */

static const char *const kind_names[] = {"normal", "uniform", "integer", "ones"};

bool prof_supply_kind_from_name(const char *s, SupplyKind *kind) {
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, kind_names[i])) {
            *kind = (SupplyKind)i;
            return true;
        }
    return false;
}

const char *prof_supply_kind_name(SupplyKind kind) {
    return (unsigned)kind < 4 ? kind_names[kind] : "?";
}

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
#define GOLDEN 0x9e3779b97f4a7c15ULL

/* 53 random bits as a double in [0, 1). */
static inline double unit(uint64_t h) { return (double)(h >> 11) * 0x1.0p-53; }

typedef struct FillJob {
    HostTensor *t;
    SupplyKind kind;
    uint64_t key;   /* per (seed, parameter position) */
    int64_t chunk;
} FillJob;

static double gen_value(const FillJob *j, int64_t i) {
    uint64_t h = mix64(j->key + (uint64_t)(i + 1) * GOLDEN);
    Dtype t = j->t->dtype;
    if (j->kind == SUPPLY_ONES) return 1;
    if (t == DT_BOOL) return (double)(h >> 63);
    SupplyKind kind = dtype_is_int(t) ? SUPPLY_INTEGER : j->kind;
    switch (kind) {
    case SUPPLY_NORMAL: {
        /* Box-Muller with two independent 53-bit uniforms. */
        double u1 = 1.0 - unit(h);               /* (0, 1] */
        double u2 = unit(mix64(h + GOLDEN));
        return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
    }
    case SUPPLY_UNIFORM: return 2.0 * unit(h) - 1.0;
    case SUPPLY_INTEGER:
        if (dtype_is_int(t) && !dtype_is_signed(t)) return (double)((h >> 32) % 5);
        return (double)((h >> 32) % 9) - 4.0;
    default: return 1;
    }
}

/* Elements lo .. hi-1 of t: their values rounded to the dtype, then
 * stored in its device format. */
static void round_and_store(HostTensor *t, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) t->values[i] = prof_round_to(t->dtype, t->values[i]);
    size_t b = (size_t)dtype_bytes(t->dtype);
    prof_to_storage(t->dtype, t->values + lo, (char *)t->storage + (size_t)lo * b, hi - lo);
}

static void fill_chunk(void *arg, int64_t c) {
    const FillJob *j = arg;
    HostTensor *t = j->t;
    int64_t lo = c * j->chunk, hi = lo + j->chunk;
    if (hi > t->elems) hi = t->elems;
    for (int64_t i = lo; i < hi; i++) t->values[i] = gen_value(j, i);
    round_and_store(t, lo, hi);
}

/* ---- the `inputs` clause ---- */

typedef struct DistJob {
    HostTensor *t;
    const InputSpec *spec;
    uint64_t key;
    int64_t row;   /* elements per row: the last dimension */
    int64_t chunk; /* rows a task fills */
} DistJob;

/* Element i of an element-wise distribution. */
static double dist_value(const DistJob *j, int64_t i) {
    const InputSpec *sp = j->spec;
    uint64_t h = mix64(j->key + (uint64_t)(i + 1) * GOLDEN);
    switch (sp->dist) {
    case INPUT_INTEGERS: {
        uint64_t span = (uint64_t)sp->n[1] - (uint64_t)sp->n[0];
        return (double)(int64_t)((uint64_t)sp->n[0] + h % span);
    }
    case INPUT_UNIFORM: return sp->x[0] + (sp->x[1] - sp->x[0]) * unit(h);
    case INPUT_NORMAL: {
        double u1 = 1.0 - unit(h), u2 = unit(mix64(h + GOLDEN));
        return sp->x[0] + sp->x[1] * sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
    }
    default: return sp->x[0];
    }
}

/* Row r of a permutation: its first `row` elements, by Fisher-Yates
 * steps over 0 .. n-1 that keep only the displaced entries (a small open
 * addressing map), so a short row of a large permutation costs its length. */
static void permutation_row(const DistJob *j, int64_t r, double *out, int64_t *keys, int64_t *vals, int64_t cap) {
    int64_t n = j->spec->n[0];
    for (int64_t i = 0; i < cap; i++) keys[i] = -1;
    uint64_t rkey = mix64(j->key ^ ((uint64_t)(r + 1) * 0xd1b54a32d192ed03ULL));
    for (int64_t i = 0; i < j->row; i++) {
        int64_t pick = i + (int64_t)(mix64(rkey + (uint64_t)(i + 1) * GOLDEN) % (uint64_t)(n - i));
        /* the entries at pick and at i, swapped: out gets pick's, pick keeps i's */
        int64_t at_pick = pick, at_i = i, slot_pick = -1;
        for (int64_t s = (int64_t)(mix64((uint64_t)pick) & (uint64_t)(cap - 1));; s = (s + 1) & (cap - 1)) {
            if (keys[s] == pick) { at_pick = vals[s]; slot_pick = s; break; }
            if (keys[s] < 0) { slot_pick = s; break; }
        }
        for (int64_t s = (int64_t)(mix64((uint64_t)i) & (uint64_t)(cap - 1)); keys[s] >= 0; s = (s + 1) & (cap - 1))
            if (keys[s] == i) { at_i = vals[s]; break; }
        out[i] = (double)at_pick;
        keys[slot_pick] = pick;
        vals[slot_pick] = at_i;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Row r of offsets: 0, sorted draws from 0 .. total, total. */
static void offsets_row(const DistJob *j, int64_t r, double *out) {
    int64_t total = j->spec->n[0], L = j->row;
    uint64_t rkey = mix64(j->key ^ ((uint64_t)(r + 1) * 0xd1b54a32d192ed03ULL));
    out[0] = 0;
    out[L - 1] = (double)total;
    for (int64_t i = 1; i < L - 1; i++)
        out[i] = (double)(mix64(rkey + (uint64_t)i * GOLDEN) % (uint64_t)(total + 1));
    qsort(out + 1, (size_t)(L - 2), sizeof *out, cmp_double);
}

static void dist_chunk(void *arg, int64_t c) {
    const DistJob *j = arg;
    HostTensor *t = j->t;
    int64_t r0 = c * j->chunk, r1 = r0 + j->chunk, rows = j->row ? t->elems / j->row : 0;
    if (r1 > rows) r1 = rows;
    if (j->spec->dist == INPUT_PERMUTATION) {
        int64_t cap = 16;
        while (cap < 2 * j->row) cap *= 2;
        int64_t *keys = xmalloc((size_t)cap * sizeof *keys), *vals = xmalloc((size_t)cap * sizeof *vals);
        for (int64_t r = r0; r < r1; r++) permutation_row(j, r, t->values + r * j->row, keys, vals, cap);
        free(keys);
        free(vals);
    } else if (j->spec->dist == INPUT_OFFSETS) {
        for (int64_t r = r0; r < r1; r++) offsets_row(j, r, t->values + r * j->row);
    } else {
        for (int64_t i = r0 * j->row; i < r1 * j->row; i++) t->values[i] = dist_value(j, i);
    }
    round_and_store(t, r0 * j->row, r1 * j->row);
}

/* Fills tensor t as its `inputs` clause says, from key. */
static void fill_dist(HostTensor *t, const InputSpec *spec, uint64_t key) {
    DistJob job = {.t = t, .spec = spec, .key = key, .row = t->rank ? t->shape[t->rank - 1] : 1};
    if (job.row == 0 || t->elems == 0) return;
    int64_t rows = t->elems / job.row;
    job.chunk = (1 << 16) / job.row + 1;
    prof_parallel_for((rows + job.chunk - 1) / job.chunk, t->elems >= (1 << 20) ? 0 : 1, dist_chunk, &job);
}

void prof_tensors_free(HostTensor *t, int n) {
    if (!t) return;
    for (int i = 0; i < n; i++) {
        free(t[i].values);
        free(t[i].storage);
    }
    free(t);
}

bool prof_supply(KernelInfo *k, SupplyKind kind, uint64_t seed, HostTensor **out, int *n) {
    *out = NULL;
    *n = 0;
    int count = 0;
    for (int i = 0; i < k->params.len; i++)
        if (((Sym *)k->params.items[i])->kind == SYM_TENSOR) count++;
    HostTensor *ts = calloc(count ? (size_t)count : 1, sizeof *ts);
    if (!ts) {
        fprintf(stderr, "tilec: error: out of memory for the kernel's inputs\n");
        return false;
    }
    int m = 0;
    for (int i = 0; i < k->params.len; i++) {
        Sym *p = k->params.items[i];
        if (p->kind != SYM_TENSOR) continue;
        HostTensor *t = &ts[m++];
        t->sym = p;
        t->dtype = p->dtype;
        t->rank = p->rank;
        int64_t elems = 1;
        bool overflow = false;
        for (int d = 0; d < p->rank; d++) {
            t->shape[d] = p->shape[d] < 0 ? 0 : p->shape[d];
            if (t->shape[d] && elems > INT64_MAX / 16 / t->shape[d]) overflow = true;
            else elems *= t->shape[d];
        }
        size_t b = (size_t)dtype_bytes(p->dtype);
        if (overflow || (uint64_t)elems > SIZE_MAX / 16) {
            fprintf(stderr, "tilec: error: tensor '%s' is too large to generate on the host\n", p->name->s);
            prof_tensors_free(ts, m);
            return false;
        }
        t->elems = elems;
        t->storage_bytes = (size_t)elems * b;
        t->storage = calloc(t->storage_bytes ? t->storage_bytes : 1, 1);
        bool has_data = p->mode != MODE_OUT;
        if (has_data) t->values = malloc(elems ? (size_t)elems * sizeof(double) : 1);
        if (!t->storage || (has_data && !t->values)) {
            fprintf(stderr, "tilec: error: out of memory for tensor '%s' (%lld elements of %s)\n", p->name->s,
                    (long long)elems, dtype_name(p->dtype));
            prof_tensors_free(ts, m);
            return false;
        }
        if (!has_data) continue;
        FillJob job = {.t = t, .kind = kind, .chunk = 1 << 16};
        job.key = mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) + (uint64_t)(i + 1) * GOLDEN);
        if (p->input && p->input->known) {
            fill_dist(t, p->input, job.key);
            continue;
        }
        prof_parallel_for((elems + job.chunk - 1) / job.chunk, elems >= (1 << 20) ? 0 : 1, fill_chunk, &job);
    }
    *out = ts;
    *n = m;
    return true;
}
