/* verify.c - comparing a kernel's results with its reference (LANGUAGE.md §5:
 * every output element, or where that would be unreasonably slow a
 * deterministic sample that covers every tile edge), on all CPUs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* f32 results are mostly long f32 accumulations (a gemm over K = 1000
 * leaves absolute errors near 2e-4 on sums of unit-size terms that cancel
 * to ~0.1), so f32 gets 1e-3 both ways; the relative Frobenius error in
 * the report shows how close the whole result is. */
double prof_default_rtol(Dtype t) {
    switch (t) {
    case DT_F16: case DT_BF16: return 1e-2;
    case DT_F32: return 1e-3;
    case DT_F64: return 1e-9;
    case DT_F8E4M3: return 0.125;
    case DT_F8E5M2: return 0.25;
    default: return 0;
    }
}

double prof_default_atol(Dtype t) { return prof_default_rtol(t); /* the same both ways (above) */ }

double prof_verify_max_cost;

/* ---- deterministic sample ---- */

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t sort_unique(int64_t *v, int64_t n) {
    if (n <= 1) return n;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    int64_t m = 1;
    for (int64_t i = 1; i < n; i++)
        if (v[i] != v[m - 1]) v[m++] = v[i];
    return m;
}

/* Keeps n of the sorted set s[0..*len): the first, the last and n - 2
 * chosen at random between (partial Fisher-Yates on the middle). */
static void thin_set(int64_t *s, int64_t *len, int64_t n, uint64_t *rng) {
    if (n >= *len) return;
    int64_t mid = *len - 2, want = n - 2;
    for (int64_t i = 0; i < want; i++) {
        int64_t j = i + (int64_t)(rng_next(rng) % (uint64_t)(mid - i));
        int64_t tmp = s[1 + i];
        s[1 + i] = s[1 + j];
        s[1 + j] = tmp;
    }
    s[1 + want] = s[*len - 1];
    *len = n;
    qsort(s, (size_t)n, sizeof *s, cmp_i64);
}

/* The sorted flat indices to check of a tensor of the given shape; NULL when
 * the sample would not be smaller than the tensor. With `leading`, the
 * dims before the last two keep PROF_SAMPLE_LEADING of their values, and
 * the random elements take theirs from those. */
static int64_t *make_sample(int rank, const int64_t *shape, int64_t elems, uint64_t seed, bool leading,
                            int64_t *count) {
    int64_t *dimset[MAX_RANK] = {0};
    int64_t dn[MAX_RANK];
    uint64_t rng = seed;
    double prod = 1;
    for (int d = 0; d < rank; d++) {
        int64_t D = shape[d];
        int64_t cap = 6 + 2 * (D / 16 + 1);
        int64_t *s = malloc((size_t)cap * sizeof *s);
        if (!s) goto fail;
        int64_t n = 0;
        const int64_t fixed[6] = {0, 1, 2, D - 3, D - 2, D - 1};
        for (int i = 0; i < 6; i++)
            if (fixed[i] >= 0 && fixed[i] < D) s[n++] = fixed[i];
        for (int64_t m = 16; m < D; m += 16) {
            s[n++] = m - 1;
            s[n++] = m;
        }
        n = sort_unique(s, n);
        dimset[d] = s;
        dn[d] = n;
        prod *= (double)n;
    }
    int lead = leading ? rank - 2 : 0;
    for (int d = 0; d < lead; d++) {
        prod /= (double)dn[d];
        thin_set(dimset[d], &dn[d], PROF_SAMPLE_LEADING, &rng);
        prod *= (double)dn[d];
    }
    /* Thin the largest sets until the cross product is small enough. */
    int64_t keep[MAX_RANK];
    for (int d = 0; d < rank; d++) keep[d] = dn[d];
    while (prod > PROF_SAMPLE_EDGES) {
        int big = 0;
        for (int d = 1; d < rank; d++)
            if (keep[d] > keep[big]) big = d;
        if (keep[big] <= 2) break;
        int64_t nk = keep[big] * 3 / 4;
        if (nk < 2) nk = 2;
        prod = prod / (double)keep[big] * (double)nk;
        keep[big] = nk;
    }
    for (int d = 0; d < rank; d++) thin_set(dimset[d], &dn[d], keep[d], &rng);
    int64_t ncross = 1;
    for (int d = 0; d < rank; d++) ncross *= dn[d];
    int64_t total = ncross + PROF_SAMPLE_RANDOM;
    if (total >= elems) goto fail;
    int64_t *v = malloc((size_t)total * sizeof *v);
    if (!v) goto fail;
    int64_t m = 0;
    int64_t pos[MAX_RANK] = {0};
    for (int64_t c = 0; c < ncross; c++) {
        int64_t flat = 0;
        for (int d = 0; d < rank; d++) flat = flat * shape[d] + dimset[d][pos[d]];
        v[m++] = flat;
        for (int d = rank - 1; d >= 0; d--) {
            if (++pos[d] < dn[d]) break;
            pos[d] = 0;
        }
    }
    /* Random elements, drawn until there are PROF_SAMPLE_RANDOM more distinct ones (a few rounds at most). */
    m = sort_unique(v, m);
    for (int round = 0; round < 16 && m < total; round++) {
        int64_t need = total - m;
        for (int64_t i = 0; i < need; i++) {
            if (!lead) {
                v[m++] = (int64_t)(rng_next(&rng) % (uint64_t)elems);
                continue;
            }
            int64_t flat = 0;
            for (int d = 0; d < rank; d++) {
                uint64_t x = rng_next(&rng);
                flat = flat * shape[d] + (d < lead ? dimset[d][x % (uint64_t)dn[d]] : (int64_t)(x % (uint64_t)shape[d]));
            }
            v[m++] = flat;
        }
        m = sort_unique(v, m);
    }
    for (int d = 0; d < rank; d++) free(dimset[d]);
    *count = m;
    return v;
fail:
    for (int d = 0; d < rank; d++) free(dimset[d]);
    return NULL;
}

/* ---- checking ---- */

typedef struct Chunk {
    int64_t mismatches;
    double max_abs, max_rel, sum_d2, sum_w2;
    int nfirst;
    int64_t first[5];
    double got[5], want[5];
} Chunk;

typedef struct Job {
    RefEval *ref;
    const HostTensor *t;
    const int64_t *list;   /* sampled flat indices, or NULL: all */
    int64_t count, chunk;
    double rtol, atol;
    Chunk *chunks;
} Job;

static void check_chunk(void *arg, int64_t c) {
    Job *j = arg;
    const HostTensor *t = j->t;
    Chunk *ch = &j->chunks[c];
    memset(ch, 0, sizeof *ch);
    int64_t lo = c * j->chunk, hi = lo + j->chunk;
    if (hi > j->count) hi = j->count;
    size_t b = (size_t)dtype_bytes(t->dtype);
    for (int64_t i = lo; i < hi; i++) {
        int64_t flat = j->list ? j->list[i] : i, rest = flat, idx[MAX_RANK];
        for (int d = t->rank - 1; d >= 0; d--) {
            idx[d] = rest % t->shape[d];
            rest /= t->shape[d];
        }
        double want = prof_ref_element(j->ref, t->sym, idx), got;
        if (t->values) got = t->values[flat];
        else prof_from_storage(t->dtype, (const char *)t->storage + (size_t)flat * b, &got, 1);
        bool ok;
        double d = fabs(got - want);
        if (!isfinite(got) || !isfinite(want)) {
            ok = (isnan(got) && isnan(want)) || got == want;
            if (!ok) d = INFINITY;
            else d = 0;
            if (!ok) {
                ch->max_abs = INFINITY;
                ch->max_rel = INFINITY;
                ch->sum_d2 = INFINITY;
            }
        } else {
            ok = d <= j->atol + j->rtol * fabs(want);
            if (d > ch->max_abs) ch->max_abs = d;
            if (want != 0 && d / fabs(want) > ch->max_rel) ch->max_rel = d / fabs(want);
            ch->sum_d2 += d * d;
            ch->sum_w2 += want * want;
        }
        if (!ok) {
            if (ch->nfirst < 5) {
                ch->first[ch->nfirst] = flat;
                ch->got[ch->nfirst] = got;
                ch->want[ch->nfirst] = want;
                ch->nfirst++;
            }
            ch->mismatches++;
        }
    }
}

static void check_done(void *arg) { prof_ref_thread_done(((Job *)arg)->ref); }

bool prof_verify(KernelInfo *k, RefEval *ref, HostTensor *got, int n, double rtol, double atol, int64_t max_full,
                 VerifyResult *res) {
    memset(res, 0, sizeof *res);
    res->passed = true;
    double max_cost = prof_verify_max_cost;
    if (!(max_cost > 0)) max_cost = PROF_VERIFY_MAX_COST * (prof_cpu_count() > 8 ? prof_cpu_count() / 8.0 : 1.0);
    double sum_d2 = 0, sum_w2 = 0;
    bool first_tensor = true;
    for (int p = 0; p < k->params.len; p++) {
        Sym *s = k->params.items[p];
        if (s->kind != SYM_TENSOR || s->mode == MODE_IN) continue;
        HostTensor *t = NULL;
        for (int i = 0; i < n && !t; i++)
            if (got[i].sym == s) t = &got[i];
        double rt = rtol >= 0 ? rtol : prof_default_rtol(s->dtype);
        double at = atol >= 0 ? atol : prof_default_atol(s->dtype);
        if (first_tensor) {
            res->rtol = rt;
            res->atol = at;
            res->tensor = s->name->s;
            res->first_rank = s->rank;
            first_tensor = false;
        }
        if (!t || (!t->values && !t->storage)) {
            fprintf(stderr, "tilec: error: no result for the output '%s' to verify\n", s->name->s);
            res->passed = false;
            continue;
        }
        res->total += t->elems;
        if (t->elems <= 0) continue;
        double cost = prof_ref_cost(ref, s, (double)t->elems);
        int64_t *list = NULL, count = t->elems;
        if ((max_full > 0 && t->elems > max_full) || cost > max_cost) {
            bool leading = t->rank >= 3 && prof_ref_memo_cost(ref, s) > max_cost;
            list = make_sample(t->rank, t->shape, t->elems, 0x74696c6563ULL + (uint64_t)p, leading, &count);
            if (list) {
                res->sampled = true;
                res->leading_limited |= leading;
            } else {
                count = t->elems;
            }
        }
        /* Small chunks when each element is expensive, so the threads share the work evenly. */
        double per = cost / (double)t->elems;
        int64_t chunk = per > 1e4 ? 4 : per > 100 ? 64 : 4096;
        Job job = {.ref = ref, .t = t, .list = list, .count = count, .chunk = chunk, .rtol = rt, .atol = at};
        int64_t nchunks = (count + chunk - 1) / chunk;
        job.chunks = xcalloc((size_t)nchunks, sizeof *job.chunks);
        double work = per * (double)count;
        prof_parallel_for_done(nchunks, work < 2e5 ? 1 : 0, check_chunk, check_done, &job);
        int64_t mism = 0;
        bool record = res->nfirst == 0;
        for (int64_t c = 0; c < nchunks; c++) {
            Chunk *ch = &job.chunks[c];
            mism += ch->mismatches;
            if (ch->max_abs > res->max_abs_err || isnan(ch->max_abs)) res->max_abs_err = ch->max_abs;
            if (ch->max_rel > res->max_rel_err || isnan(ch->max_rel)) res->max_rel_err = ch->max_rel;
            sum_d2 += ch->sum_d2;
            sum_w2 += ch->sum_w2;
            for (int i = 0; record && i < ch->nfirst && res->nfirst < 5; i++) {
                int f = res->nfirst++;
                int64_t rest = ch->first[i];
                for (int d = t->rank - 1; d >= 0; d--) {
                    res->first_idx[f][d] = rest % t->shape[d];
                    rest /= t->shape[d];
                }
                res->first_got[f] = ch->got[i];
                res->first_want[f] = ch->want[i];
            }
        }
        if (mism && record) {
            res->tensor = s->name->s;
            res->first_rank = t->rank;
            res->rtol = rt;
            res->atol = at;
        }
        res->mismatches += mism;
        res->checked += count;
        if (mism) res->passed = false;
        free(job.chunks);
        free(list);
    }
    double num = sqrt(sum_d2), den = sqrt(sum_w2);
    res->rel_fro_err = den > 0 ? num / den : num > 0 ? INFINITY : 0;
    return res->passed;
}

void prof_verify_print(FILE *o, const VerifyResult *r) {
    fprintf(o, "verify: %s ", r->passed ? "PASSED" : "FAILED");
    if (r->passed)
        fprintf(o, "%lld of %lld elements checked", (long long)r->checked, (long long)r->total);
    else
        fprintf(o, "%lld of %lld checked elements differ from the reference (of %lld)", (long long)r->mismatches,
                (long long)r->checked, (long long)r->total);
    if (r->sampled) fputs(" [sampled: every tile edge and 20000 random elements", o);
    if (r->leading_limited) fprintf(o, ", the dims before the last two at %d values each", PROF_SAMPLE_LEADING);
    if (r->sampled) fputc(']', o);
    fprintf(o, ": max_abs_err %.3g, max_rel_err %.3g, rel_fro_err %.3g (rtol %g, atol %g)\n", r->max_abs_err,
            r->max_rel_err, r->rel_fro_err, r->rtol, r->atol);
    for (int i = 0; i < r->nfirst; i++) {
        fprintf(o, "  %s[", r->tensor ? r->tensor : "?");
        for (int d = 0; d < r->first_rank; d++) fprintf(o, "%s%lld", d ? ", " : "", (long long)r->first_idx[i][d]);
        double g = r->first_got[i], w = r->first_want[i];
        fprintf(o, "]: got %.9g, want %.9g", g, w);
        if (isfinite(g) && isfinite(w)) fprintf(o, " (abs err %.3g)", fabs(g - w));
        fputc('\n', o);
    }
    if (r->mismatches > r->nfirst) fprintf(o, "  ... and %lld more\n", (long long)(r->mismatches - r->nfirst));
}
