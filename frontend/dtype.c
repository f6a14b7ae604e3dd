/* dtype.c - the element types of LANGUAGE.md §2 and how they combine. */
#include <string.h>

#include "frontend.h"

/* class: 0 bool, 1 integer, 2 float */
static const struct { const char *name; int bytes, cls, sgn; } info[DT_COUNT] = {
    [DT_NONE] = {"none", 0, -1, 0},
#define X(id, name, bytes, cls, sgn) [DT_##id] = {name, bytes, cls, sgn},
    DTYPES(X)
#undef X
    [DT_INT_LIT] = {"int", 8, 1, 1},
    [DT_FLOAT_LIT] = {"float", 8, 2, 1},
};

const char *dtype_name(Dtype t) { return info[t].name; }
int dtype_bytes(Dtype t) { return info[t].bytes; }
bool dtype_is_int(Dtype t) { return t != DT_NONE && info[t].cls == 1; }
bool dtype_is_float(Dtype t) { return t != DT_NONE && info[t].cls == 2; }
bool dtype_is_signed(Dtype t) { return info[t].sgn != 0; }
bool dtype_is_fp8(Dtype t) { return t == DT_F8E4M3 || t == DT_F8E5M2; }

bool dtype_int_fits(Dtype t, int64_t v) {
    int bits = dtype_bytes(t) * 8;
    return dtype_is_signed(t) ? (bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1))))
                              : (v >= 0 && (bits == 64 || v < (INT64_C(1) << bits)));
}

bool dtype_holds_ints(Dtype t, int64_t lo, int64_t hi) {
    if (t == DT_BOOL) return lo >= 0 && hi <= 1;
    if (!dtype_is_float(t)) return dtype_int_fits(t, lo) && dtype_int_fits(t, hi);
    /* a float with p significand bits (the hidden one included) holds
     * every integer up to 2^p, and 2^p + 1 no more */
    int p = t == DT_F16 ? 11 : t == DT_BF16 ? 8 : t == DT_F32 ? 24 : t == DT_F8E4M3 ? 4 : t == DT_F8E5M2 ? 3 : 53;
    int64_t limit = INT64_C(1) << p;
    return lo >= -limit && hi <= limit;
}

Dtype dtype_from_name(const char *s, size_t n) {
    for (int t = DT_BOOL; t < DT_INT_LIT; t++)
        if (strlen(info[t].name) == n && memcmp(info[t].name, s, n) == 0) return (Dtype)t;
    return DT_NONE;
}

/* Rank among floats for the usual conversions; f16 and bf16 meet at f32
 * since neither holds the other's values. */
static int float_rank(Dtype t) {
    switch (t) {
    case DT_F8E4M3: case DT_F8E5M2: return 1;
    case DT_F16: case DT_BF16: return 2;
    case DT_F32: return 3;
    case DT_F64: return 4;
    default: return 0;
    }
}

Dtype dtype_join(Dtype a, Dtype b) {
    if (a == b) return a;
    if (a == DT_NONE || b == DT_NONE) return DT_NONE;
    if (a == DT_BOOL) return b == DT_FLOAT_LIT ? DT_FLOAT_LIT : b;
    if (b == DT_BOOL) return a == DT_FLOAT_LIT ? DT_FLOAT_LIT : a;
    /* Literals take the type of the other side. */
    if (a == DT_INT_LIT) return b;
    if (b == DT_INT_LIT) return a;
    if (a == DT_FLOAT_LIT) return dtype_is_float(b) ? b : DT_F32;
    if (b == DT_FLOAT_LIT) return dtype_is_float(a) ? a : DT_F32;
    bool fa = dtype_is_float(a), fb = dtype_is_float(b);
    if (fa && fb) {
        int ra = float_rank(a), rb = float_rank(b);
        if (ra == rb) return ra <= 2 ? DT_F32 : a; /* f16 with bf16, e4m3 with e5m2 */
        return ra > rb ? a : b;
    }
    if (fa) return a;
    if (fb) return b;
    /* Two integer types: the wider; at equal width the unsigned one (C). */
    if (info[a].bytes != info[b].bytes) return info[a].bytes > info[b].bytes ? a : b;
    return info[a].sgn ? b : a;
}

void dtype_scalar_arg(Dtype t, double v, ScalarArg *a) {
    memset(a, 0, sizeof *a);
    switch (t) {
    case DT_F64: a->f64 = v; break;
    case DT_F32: a->f32 = (float)v; break;
    case DT_F16: case DT_BF16: a->bits16 = (uint16_t)dtype_narrow_bits(t, v); break;
    case DT_F8E4M3: case DT_F8E5M2: a->i8 = (signed char)dtype_narrow_bits(t, v); break;
    case DT_I64: a->i64 = (long long)v; break;
    case DT_U64: {
        uint64_t u = (uint64_t)v;
        memcpy(&a->i64, &u, sizeof u);
        break;
    }
    case DT_I32: a->i32 = (int)v; break;
    case DT_U32: {
        uint32_t u = (uint32_t)v;
        memcpy(&a->i32, &u, sizeof u);
        break;
    }
    case DT_I16: a->i16 = (short)v; break;
    case DT_U16: a->bits16 = (uint16_t)v; break;
    case DT_I8: a->i8 = (signed char)v; break;
    case DT_U8: {
        unsigned char u = (unsigned char)v;
        memcpy(&a->i8, &u, 1);
        break;
    }
    case DT_BOOL: a->b = v != 0; break;
    default: a->f32 = (float)v; break;
    }
}
