/* supply.c - generated kernel inputs (LANGUAGE.md §7: --supply, --seed), the
 * conversions between f64 values and the device formats (f16, bf16, f8 with
 * round-to-nearest-even, written in plain C), and a small pthread
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

/* ---- small float formats ---- */

typedef struct FloatFmt {
    int ebits, mbits, bias;
    bool ieee;     /* all-ones exponent = inf/NaN; else (e4m3fn) only S.1111.111 is NaN, no inf */
    uint32_t nan;  /* canonical NaN bits */
} FloatFmt;

static const FloatFmt fmt_f16 = {5, 10, 15, true, 0x7E00};
static const FloatFmt fmt_bf16 = {8, 7, 127, true, 0x7FC0};
static const FloatFmt fmt_e4m3 = {4, 3, 7, false, 0x7F};
static const FloatFmt fmt_e5m2 = {5, 2, 15, true, 0x7E};

/* v rounded to nearest even into the format; overflow gives inf (IEEE-like
 * formats) or the largest finite value (e4m3, as CUDA's satfinite). */
static uint32_t fmt_encode(const FloatFmt *f, double v) {
    uint32_t sign = signbit(v) ? 1u << (f->ebits + f->mbits) : 0;
    uint32_t exp_ones = (1u << f->ebits) - 1;
    uint32_t mant_ones = (1u << f->mbits) - 1;
    uint32_t inf_bits = exp_ones << f->mbits;
    uint32_t max_bits = f->ieee ? inf_bits - 1 : (exp_ones << f->mbits) | (mant_ones - 1);
    if (isnan(v)) return f->nan;
    double a = fabs(v);
    if (isinf(a)) return sign | (f->ieee ? inf_bits : max_bits);
    if (a == 0) return sign;
    /* Integer rounding on the bits of the double: sig * 2^(E - 52). */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int dexp = (int)(bits >> 52);
    if (dexp == 0) return sign; /* a double subnormal: far below every format's smallest value */
    uint64_t sig = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int emin = 1 - f->bias;
    int E = dexp - 1023;
    if (E < emin) E = emin;
    int shift = 52 - f->mbits + (E - (dexp - 1023)); /* >= 52 - mbits */
    uint64_t n;
    if (shift >= 64) {
        n = 0;
    } else {
        n = sig >> shift;
        uint64_t rem = sig & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
        if (rem > half || (rem == half && (n & 1))) n++;
    }
    if (n >= (2ULL << f->mbits)) { /* rounded up into the next binade */
        n >>= 1;
        E++;
    }
    if (n < (1u << f->mbits)) return sign | (uint32_t)n; /* subnormal (or zero) */
    int64_t field = (int64_t)E + f->bias;
    uint32_t mant = (uint32_t)(n - (1u << f->mbits));
    if (f->ieee) {
        if (field >= (int64_t)exp_ones) return sign | inf_bits;
    } else if (field > (int64_t)exp_ones || (field == (int64_t)exp_ones && mant == mant_ones)) {
        return sign | max_bits;
    }
    return sign | (uint32_t)field << f->mbits | mant;
}

static double fmt_decode(const FloatFmt *f, uint32_t bits) {
    uint32_t exp_ones = (1u << f->ebits) - 1;
    uint32_t mant_ones = (1u << f->mbits) - 1;
    bool neg = (bits >> (f->ebits + f->mbits)) & 1;
    uint32_t field = (bits >> f->mbits) & exp_ones;
    uint32_t mant = bits & mant_ones;
    double v;
    if (f->ieee && field == exp_ones) v = mant ? NAN : INFINITY;
    else if (!f->ieee && field == exp_ones && mant == mant_ones) v = NAN;
    else if (field == 0) v = ldexp((double)mant, 1 - f->bias - f->mbits);
    else v = ldexp((double)(mant | (1u << f->mbits)), (int)field - f->bias - f->mbits);
    return neg ? -v : v;
}

uint16_t prof_f16_bits(double v) { return (uint16_t)fmt_encode(&fmt_f16, v); }
double prof_f16_value(uint16_t bits) { return fmt_decode(&fmt_f16, bits); }
uint16_t prof_bf16_bits(double v) { return (uint16_t)fmt_encode(&fmt_bf16, v); }
double prof_bf16_value(uint16_t bits) { return fmt_decode(&fmt_bf16, bits); }

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
    case DT_F16: return fmt_decode(&fmt_f16, fmt_encode(&fmt_f16, v));
    case DT_BF16: return fmt_decode(&fmt_bf16, fmt_encode(&fmt_bf16, v));
    case DT_F8E4M3: return fmt_decode(&fmt_e4m3, fmt_encode(&fmt_e4m3, v));
    case DT_F8E5M2: return fmt_decode(&fmt_e5m2, fmt_encode(&fmt_e5m2, v));
    case DT_F32: return (double)(float)v;
    case DT_F64: case DT_FLOAT_LIT: case DT_NONE: case DT_COUNT: return v;
    default: return int_saturate(t, v);
    }
}

void prof_to_storage(Dtype t, const double *v, void *storage, int64_t n) {
    switch (t) {
    case DT_BOOL: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = v[i] != 0; return; }
    case DT_F16: { uint16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint16_t)fmt_encode(&fmt_f16, v[i]); return; }
    case DT_BF16: { uint16_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint16_t)fmt_encode(&fmt_bf16, v[i]); return; }
    case DT_F8E4M3: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)fmt_encode(&fmt_e4m3, v[i]); return; }
    case DT_F8E5M2: { uint8_t *p = storage; for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)fmt_encode(&fmt_e5m2, v[i]); return; }
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
    case DT_F16: { const uint16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = fmt_decode(&fmt_f16, p[i]); return; }
    case DT_BF16: { const uint16_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = fmt_decode(&fmt_bf16, p[i]); return; }
    case DT_F8E4M3: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = fmt_decode(&fmt_e4m3, p[i]); return; }
    case DT_F8E5M2: { const uint8_t *p = storage; for (int64_t i = 0; i < n; i++) v[i] = fmt_decode(&fmt_e5m2, p[i]); return; }
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

static void fill_chunk(void *arg, int64_t c) {
    const FillJob *j = arg;
    HostTensor *t = j->t;
    int64_t lo = c * j->chunk, hi = lo + j->chunk;
    if (hi > t->elems) hi = t->elems;
    for (int64_t i = lo; i < hi; i++) t->values[i] = prof_round_to(t->dtype, gen_value(j, i));
    size_t b = (size_t)dtype_bytes(t->dtype);
    prof_to_storage(t->dtype, t->values + lo, (char *)t->storage + (size_t)lo * b, hi - lo);
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
        prof_parallel_for((elems + job.chunk - 1) / job.chunk, elems >= (1 << 20) ? 0 : 1, fill_chunk, &job);
    }
    *out = ts;
    *n = m;
    return true;
}
