/* emit_expr.c - CUDA C of scalar expressions: types and conversions,
 * literals, element references (global, shared with its swizzle, fragment
 * registers), math calls and operators. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

const char *cg_storage_type(Dtype t) {
    switch (t) {
    case DT_BOOL: return "bool";
    case DT_I8: return "signed char";
    case DT_U8: return "unsigned char";
    case DT_I16: return "short";
    case DT_U16: return "unsigned short";
    case DT_I32: return "int";
    case DT_U32: return "unsigned";
    case DT_I64: case DT_INT_LIT: return "long long";
    case DT_U64: return "unsigned long long";
    case DT_F16: return "__half";
    case DT_BF16: return "__nv_bfloat16";
    case DT_F8E4M3: return "__nv_fp8_e4m3";
    case DT_F8E5M2: return "__nv_fp8_e5m2";
    case DT_F32: case DT_FLOAT_LIT: return "float";
    case DT_F64: return "double";
    default: return "float";
    }
}

const char *cg_compute_type(Dtype t) {
    switch (t) {
    case DT_F16: case DT_BF16: case DT_F8E4M3: case DT_F8E5M2: case DT_F32: case DT_FLOAT_LIT: return "float";
    case DT_I8: case DT_U8: case DT_I16: case DT_U16: case DT_I32: return "int";
    default: return cg_storage_type(t);
    }
}

bool cg_narrow_float(Dtype t) { return t == DT_F16 || t == DT_BF16 || t == DT_F8E4M3 || t == DT_F8E5M2; }

char *cg_convert(Cg *g, Dtype t, const char *value) {
    if (cg_narrow_float(t))
        return arena_printf(&g->k->c->arena, "tl_from_float<%s>((float)(%s))", cg_storage_type(t), value);
    return arena_printf(&g->k->c->arena, "(%s)(%s)", cg_storage_type(t), value);
}

/* (No round trip through float for a copy: an fp8 conversion is a few
 * dozen instructions on sm_80, which has no fp8 hardware.) */
char *cg_convert_elem(Cg *g, Dtype to, Dtype from, const char *ref) {
    if (to == from) return arena_printf(&g->k->c->arena, "%s", ref);
    return cg_convert(g, to, arena_printf(&g->k->c->arena, "%s(%s)", cg_load_wrap(from), ref));
}

/* ---- expressions ---- */

static void print_float(FILE *o, double v, bool dbl) {
    if (isnan(v)) fputs(dbl ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fffffff)", o);
    else if (isinf(v))
        fprintf(o, "%s%s", v < 0 ? "-" : "", dbl ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)");
    else {
        /* the shortest digits that read back as the same value */
        char buf[64];
        for (int prec = dbl ? 15 : 6; prec <= (dbl ? 17 : 9); prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            double back = strtod(buf, NULL);
            if (dbl ? back == v : (float)back == (float)v) break;
        }
        if (!strpbrk(buf, ".e")) strcat(buf, ".0");
        fprintf(o, "%s%s", buf, dbl ? "" : "f");
    }
}

/* A constant of float type t (a literal: the type its context gives it) is
 * the value t holds: f16(0.1) is 0.0999755859375, and an f64 constant keeps
 * all its digits. */
static void print_const(Cg *g, const Node *e) {
    bool fl = dtype_is_float(e->dtype);
    if (fl) {
        Dtype t = e->dtype != DT_FLOAT_LIT ? e->dtype : dtype_is_float(g->lit_type) ? g->lit_type : DT_F32;
        double v = e->const_float ? e->cval.f : (double)e->cval.i;
        print_float(g->o, dtype_round_float(t, v), t == DT_F64);
    } else if (e->dtype == DT_BOOL) {
        fputs(node_const_true(e) ? "true" : "false", g->o);
    } else {
        int64_t v = e->const_float ? (int64_t)e->cval.f : e->cval.i;
        if (v >= INT32_MIN && v <= INT32_MAX) fprintf(g->o, "%" PRId64, v);
        else fprintf(g->o, "%" PRId64 "LL", v);
    }
}

char *cg_expr_str(Cg *g, const Node *e) {
    char *buf = NULL;
    size_t len = 0;
    FILE *save = g->o;
    g->o = open_memstream(&buf, &len);
    cg_expr(g, e);
    fclose(g->o);
    g->o = save;
    char *s = arena_strndup(&g->k->c->arena, buf, len);
    free(buf);
    return s;
}

/* Makes t the type of the float literals printed next and returns the
 * one before; a literal type (an expression of literals only, `c ? 0.7 :
 * 1.1`) keeps the type its own context gave. */
static Dtype enter_lit_type(Cg *g, Dtype t) {
    Dtype saved = g->lit_type;
    if (t != DT_FLOAT_LIT && t != DT_INT_LIT) g->lit_type = t;
    return saved;
}

char *cg_value_str(Cg *g, const Node *e, Dtype t) {
    Dtype saved = enter_lit_type(g, t);
    char *v = cg_expr_str(g, e);
    g->lit_type = saved;
    return v;
}

/* Prints e with its float literals in type t. */
static void print_in(Cg *g, const Node *e, Dtype t) {
    Dtype saved = enter_lit_type(g, t);
    cg_expr(g, e);
    g->lit_type = saved;
}

/* An operand of float arithmetic; an integer constant there prints as the
 * float it converts to (`x + 0.0f`, not `x + 0`): the same value, and the
 * printed kernel's tidying (tidy.c), which drops `+ 0` and `* 1` from
 * integer arithmetic only, leaves it alone, since x + 0.0f is not x for
 * x = -0.0 and x * 1.0f is not x for a NaN's payload. */
static void print_operand(Cg *g, const Node *e, Dtype ctx, bool float_arith) {
    if (float_arith && e->is_const && e->kind != N_INDEX && !e->const_float && dtype_is_int(e->dtype)) {
        Dtype t = dtype_is_float(ctx) ? ctx : DT_F32;
        print_float(g->o, dtype_round_float(t, (double)e->cval.i), t == DT_F64);
        return;
    }
    print_in(g, e, ctx);
}

/* A float value rounded to narrow float type t and back (an f16 value in
 * a float register) is rounding_open(t) + value + ROUNDING_CLOSE. */
static const char ROUNDING_CLOSE[] = ")))";

static const char *rounding_open(Cg *g, Dtype t) {
    return arena_printf(&g->k->c->arena, "tl_to_float(tl_from_float<%s>((float)(", cg_storage_type(t));
}

char *cg_rounded(Cg *g, Dtype t, const char *v) {
    return arena_printf(&g->k->c->arena, "%s%s%s", rounding_open(g, t), v, ROUNDING_CLOSE);
}

/* An f16 or bf16 result (of arithmetic or a math function), computed in
 * float, is rounded to its type where it is made: `f32(x * x)` of an f16 x
 * is the f16 product, as on the device's f16 units. Opens the wrapper and
 * returns what closes it. */
static const char *open_rounding(Cg *g, Dtype t, bool store_rounds) {
    if (!cg_narrow_float(t) || store_rounds) return "";
    fputs(rounding_open(g, t), g->o);
    return ROUNDING_CLOSE;
}

/* A stored value as its compute type. */
const char *cg_load_wrap(Dtype t) { return cg_narrow_float(t) ? "tl_to_float" : ""; }

const char *cg_vector_type(int bytes) {
    switch (bytes) {
    case 16: return "uint4";
    case 8: return "uint2";
    case 4: return "unsigned";
    case 2: return "unsigned short";
    default: return NULL;
    }
}

/* Written so the variable stays in registers. */
const char *cg_vector_zero(int bytes) {
    switch (bytes) {
    case 16: return "make_uint4(0u, 0u, 0u, 0u)";
    case 8: return "make_uint2(0u, 0u)";
    case 4: return "0u";
    default: return "(unsigned short)0";
    }
}

const char *cg_lane_of(const Cg *g, const Node *e) {
    for (int i = 0; i < g->nlane; i++)
        if (g->lane_node[i] == e) return g->lane_ref[i];
    return NULL;
}

const char *cg_stage(Cg *g, const IrBuf *b) {
    for (int i = g->nstage - 1; i >= 0; i--)
        if (g->stage_buf[i] == b) return g->stage_expr[i];
    return "0";
}

char *cg_shared_offset(Cg *g, const IrBuf *b, char **coords) { return cg_shared_offset_x(g, b, coords, NULL); }

char *cg_shared_offset_x(Cg *g, const IrBuf *b, char **coords, const char *xor_row) {
    Arena *a = &g->k->c->arena;
    int64_t cols = b->shape[b->rank - 1];
    /* rows: all dims but the last, flattened */
    char *row = coords[0];
    if (b->rank == 1) row = "0";
    for (int d = 1; d < b->rank - 1; d++) row = arena_printf(a, "(%s) * %lld + (%s)", row, (long long)b->shape[d], coords[d]);
    const char *col = coords[b->rank - 1];
    const char *stage = cg_stage(g, b);
    int64_t stage_elems = b->stage_bytes / dtype_bytes(b->dtype);
    const char *base = strcmp(stage, "0") ? arena_printf(a, "(%s) * %lld + ", stage, (long long)stage_elems) : "";
    if (b->tma_layout) {
        /* TMA's and wgmma's tile (ir.h): column block col / bc of rows x bc
         * elements, chunk c of row r of a block at c ^ ((r / (8 / P)) % P)
         * for P chunks a row (TMA's swizzle of that span) */
        CgTmaSpan t = cg_tma_span(b);
        return arena_printf(a, "%s(%s) / %lld * %lld + (%s) * %lld + ((((%s) %% %lld) / %d ^ ((%s) / %d %% %d)) * %d + (%s) %% %d)",
                            base, col, (long long)t.cols, (long long)(t.rows * t.cols), row, (long long)t.cols, col,
                            (long long)t.cols, t.per_chunk, xor_row ? xor_row : row, 8 / t.chunks, t.chunks, t.per_chunk,
                            col, t.per_chunk);
    }
    if (!b->swizzle_chunks) return arena_printf(a, "%s(%s) * %lld + (%s)", base, row, (long long)cols, col);
    /* chunk c of row r lives at c ^ ((r / rows_per_line) % period): 8 rows of
     * 16 bytes then fall in 8 distinct 16-byte slots of 128 bytes */
    int per_chunk = 16 / dtype_bytes(b->dtype);
    int64_t chunks = cols / per_chunk;
    int period = b->swizzle_chunks;
    int64_t rows_per_line = chunks >= 8 ? 1 : 8 / chunks;
    return arena_printf(a, "%s(%s) * %lld + ((((%s) / %d) ^ (((%s) / %lld) %% %d)) * %d + (%s) %% %d)", base, row,
                        (long long)cols, col, per_chunk, xor_row ? xor_row : row, (long long)rows_per_line, period,
                        per_chunk, col, per_chunk);
}

char *cg_global_dim(Cg *g, const IrBuf *b, int d) {
    if (buf_dim_dynamic(b, d)) return arena_printf(&g->k->c->arena, "(long long)%s", ir_sym_cname(g->k->c, b->dyn[d]));
    return arena_printf(&g->k->c->arena, "%lldLL", (long long)b->shape[d]);
}

char *cg_global_offset(Cg *g, const IrBuf *b, char **coords) {
    Arena *a = &g->k->c->arena;
    char *off = arena_printf(a, "(long long)(%s)", coords[0]);
    for (int d = 1; d < b->rank; d++) off = arena_printf(a, "(%s) * %s + (%s)", off, cg_global_dim(g, b, d), coords[d]);
    return off;
}

char *cg_global_inbounds(Cg *g, const IrBuf *b, char **coords) {
    Arena *a = &g->k->c->arena;
    char *c = "true";
    for (int d = 0; d < b->rank; d++) {
        /* one unsigned compare tests 0 <= x < n */
        char *t = buf_dim_dynamic(b, d)
                      ? arena_printf(a, "(unsigned long long)(long long)(%s) < (unsigned long long)%s", coords[d],
                                     ir_sym_cname(g->k->c, b->dyn[d]))
                      : arena_printf(a, "(unsigned long long)(long long)(%s) < %lldULL", coords[d], (long long)b->shape[d]);
        c = d == 0 ? t : arena_printf(a, "%s && %s", c, t);
    }
    return c;
}

/* Register index, in a parallel loop, of the fragment element e. */
static char *frag_reg(Cg *g, const Node *e, const IrBuf *b, char **coords) {
    Arena *a = &g->k->c->arena;
    const IrBuf *d = g->driver;
    if (b->layout.kind == LAYOUT_REPLICATED) {
        char *lin = coords[0];
        for (int i = 1; i < b->rank; i++) lin = arena_printf(a, "(%s) * %lld + (%s)", lin, (long long)b->shape[i], coords[i]);
        return lin;
    }
    /* stage_elements left only the iteration's own elements */
    if (d && access_is_own(g->par, b, e)) {
        if (d->layout.kind == LAYOUT_ACC && b->layout.kind == LAYOUT_ROW)
            return arena_printf(a, "((%s) / %d * 2 + ((%s) / 2) %% 2)", g->reg, d->layout.ni * 4, g->reg);
        return (char *)g->reg;
    }
    cg_error(g, e->loc, "the element '%s[...]' is held by another thread here (the fragment has %s)", b->sym->name->s,
             layout_describe(g->k->c, &b->layout));
    return "0";
}

char *cg_element_ref(Cg *g, const Node *e, char **cond) {
    IrBuf *b = ir_buf_of(g->k, e->sym);
    char *coords[MAX_RANK];
    for (int i = 0; i < e->u.index.idx.len; i++) coords[i] = cg_expr_str(g, e->u.index.idx.items[i]);
    Arena *a = &g->k->c->arena;
    *cond = NULL;
    switch (b->scope) {
    case SCOPE_GLOBAL:
        *cond = cg_global_inbounds(g, b, coords);
        return arena_printf(a, "%s[%s]", b->cname, cg_global_offset(g, b, coords));
    case SCOPE_SHARED: return arena_printf(a, "%s[%s]", b->cname, cg_shared_offset(g, b, coords));
    case SCOPE_LOCAL: {
        char *lin = coords[0];
        for (int i = 1; i < b->rank; i++) lin = arena_printf(a, "(%s) * %lld + (%s)", lin, (long long)b->shape[i], coords[i]);
        return arena_printf(a, "%s[%s]", b->cname, lin);
    }
    case SCOPE_FRAGMENT: return arena_printf(a, "%s[%s]", b->cname, frag_reg(g, e, b, coords));
    }
    return "0";
}

static const char *math_name(const char *f, bool dbl) {
    static const struct { const char *tile, *flt, *dbl; } map[] = {
        /* exp2 in f32 is the hardware's ex2.approx (2 ulp; the accurate
         * exp2f costs registers that flash attention's loop cannot spare) */
        {"exp", "expf", "exp"}, {"exp2", "tl_exp2", "exp2"}, {"log", "logf", "log"}, {"log2", "log2f", "log2"},
        {"sqrt", "sqrtf", "sqrt"}, {"rsqrt", "rsqrtf", "rsqrt"}, {"tanh", "tanhf", "tanh"},
        {"erf", "erff", "erf"}, {"floor", "floorf", "floor"}, {"ceil", "ceilf", "ceil"}, {"sin", "sinf", "sin"},
        {"cos", "cosf", "cos"}, {"pow", "powf", "pow"}, {"fma", "fmaf", "fma"}, {"min", "fminf", "fmin"},
        {"max", "fmaxf", "fmax"}, {"abs", "fabsf", "fabs"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].tile, f)) return dbl ? map[i].dbl : map[i].flt;
    return f;
}

static void print_call(Cg *g, const Node *e, bool store_rounds) {
    FILE *o = g->o;
    const NodeList *args = &e->u.call.args;
    if (!e->u.call.name) {
        Dtype to = e->u.call.cast;
        /* stored as is, the store's conversion is the rounding (cuda_fp16's
         * conversions are inline asm: a round trip would stay in the code) */
        bool store_converts = cg_narrow_float(to) && store_rounds && args->items[0]->dtype != DT_F64;
        if (store_converts) fputs("((float)(", o);
        else if ((to == DT_F16 || to == DT_BF16) && args->items[0]->dtype == DT_F64) /* rounded once, not through f32 */
            fprintf(o, "tl_to_float(%s((double)(", to == DT_F16 ? "__double2half" : "__double2bfloat16");
        else if (cg_narrow_float(to)) fputs(rounding_open(g, to), o);
        else if (to == DT_BOOL) fputs("((", o);
        else if (dtype_bytes(to) < 4 && dtype_is_float(args->items[0]->dtype)) {
            /* a float to an 8- or 16-bit integer truncates and saturates
             * (NaN: 0), as the 32- and 64-bit conversions do in hardware;
             * through int alone it would wrap (200.0 -> i8 -56) */
            int64_t lo = dtype_is_signed(to) ? -(INT64_C(1) << (dtype_bytes(to) * 8 - 1)) : 0;
            int64_t hi = dtype_is_signed(to) ? (INT64_C(1) << (dtype_bytes(to) * 8 - 1)) - 1 : (INT64_C(1) << (dtype_bytes(to) * 8)) - 1;
            fprintf(o, "min(max(%s(", args->items[0]->dtype == DT_F64 ? "__double2int_rz((double)" : "__float2int_rz((float)");
            cg_expr(g, args->items[0]);
            fprintf(o, ")), %lld), %lld)", (long long)lo, (long long)hi);
            return;
        } else if (dtype_is_int(to) && dtype_bytes(to) < 4) /* an integer to an 8- or 16-bit one wraps */
            fprintf(o, "((int)(%s)(", cg_storage_type(to));
        else
            fprintf(o, "((%s)(", cg_compute_type(to));
        cg_expr(g, args->items[0]);
        fputs(store_converts ? "))" : cg_narrow_float(to) ? ROUNDING_CLOSE : to == DT_BOOL ? ") != 0)" : "))", o);
        return;
    }
    const char *f = e->u.call.name->s;
    if (!strcmp(f, "rand") || !strcmp(f, "randn") || !strcmp(f, "randint")) { /* seed and offset as 64-bit unsigned */
        fprintf(o, "tl_%s((unsigned long long)(long long)(", f);
        cg_expr(g, args->items[0]);
        fputs("), (unsigned long long)(long long)(", o);
        cg_expr(g, args->items[1]);
        fputs("))", o);
        return;
    }
    if (!strcmp(f, "ceildiv")) {
        fputs("tl_ceildiv(", o);
        cg_expr(g, args->items[0]);
        fputs(", ", o);
        cg_expr(g, args->items[1]);
        fputc(')', o);
        return;
    }
    bool fl = dtype_is_float(e->dtype), dbl = e->dtype == DT_F64;
    if (!strcmp(f, "sigmoid")) {
        const char *close = open_rounding(g, e->dtype, store_rounds);
        fprintf(o, dbl ? "(1.0 / (1.0 + exp(-(double)(" : "(1.0f / (1.0f + expf(-(float)(");
        print_in(g, args->items[0], e->dtype);
        fprintf(o, "))))%s", close);
        return;
    }
    if (!fl) { /* integer min, max, abs */
        fprintf(o, "%s(", !strcmp(f, "abs") ? "llabs" : f);
        for (int i = 0; i < args->len; i++) {
            if (i) fputs(", ", o);
            fputs("(long long)(", o);
            cg_expr(g, args->items[i]);
            fputc(')', o);
        }
        fputc(')', o);
        return;
    }
    const char *close = open_rounding(g, e->dtype, store_rounds);
    fprintf(o, "%s(", math_name(f, dbl));
    for (int i = 0; i < args->len; i++) {
        if (i) fputs(", ", o);
        fprintf(o, "(%s)(", dbl ? "double" : "float");
        print_in(g, args->items[i], e->dtype);
        fputc(')', o);
    }
    fprintf(o, ")%s", close);
}

void cg_expr(Cg *g, const Node *e) {
    FILE *o = g->o;
    bool store_rounds = g->store_rounds; /* for this node only */
    g->store_rounds = false;
    if (e->is_const && e->kind != N_INDEX) {
        print_const(g, e);
        return;
    }
    const Node *decided = expr_decided(e); /* e, unless specialisation decided a ?: or && / || */
    switch (e->kind) {
    case N_NAME:
        for (int i = g->nbind - 1; i >= 0; i--)
            if (g->bind_sym[i] == e->sym) {
                fputs(g->bind_expr[i], o);
                return;
            }
        fputs(ir_sym_cname(g->k->c, e->sym), o);
        return;
    case N_INDEX: {
        IrBuf *b = ir_buf_of(g->k, e->sym);
        const char *lane = cg_lane_of(g, e);
        if (lane) {
            fprintf(o, "%s(%s)", cg_load_wrap(b->dtype), lane);
            return;
        }
        char *cond;
        char *ref = cg_element_ref(g, e, &cond);
        if (cond) fprintf(o, "((%s) ? %s(%s) : (%s)0)", cond, cg_load_wrap(b->dtype), ref, cg_compute_type(b->dtype));
        else fprintf(o, "%s(%s)", cg_load_wrap(b->dtype), ref);
        return;
    }
    case N_CALL: print_call(g, e, store_rounds); return;
    case N_UNARY:
        fprintf(o, "(%s", op_spelling(e->u.op.op));
        cg_expr(g, e->u.op.a);
        fputc(')', o);
        return;
    case N_BINARY:
        if (decided != e) { /* `true && x`: x */
            cg_expr(g, decided);
            return;
        }
    {
        AstOp op = e->u.op.op;
        bool arith = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV;
        bool compare = op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
        /* the literal of `x * 0.1` or `x < 0.1` takes x's type */
        Dtype ctx = arith || compare ? dtype_join(e->u.op.a->dtype, e->u.op.b->dtype) : DT_NONE;
        const char *close = arith ? open_rounding(g, e->dtype, store_rounds) : "";
        fputc('(', o);
        print_operand(g, e->u.op.a, ctx, arith && dtype_is_float(e->dtype));
        fprintf(o, " %s ", op_spelling(op));
        print_operand(g, e->u.op.b, ctx, arith && dtype_is_float(e->dtype));
        fprintf(o, ")%s", close);
        return;
    }
    case N_COND:
        /* decided by the specialisation: the taken arm, where it has the C
         * type that the whole `?:` would have had */
        if (decided != e && !strcmp(cg_compute_type(e->u.cond.a->dtype), cg_compute_type(e->u.cond.b->dtype))) {
            print_in(g, decided, e->dtype);
            return;
        }
        fputc('(', o);
        print_in(g, e->u.cond.c, DT_NONE);
        fputs(" ? ", o);
        print_in(g, e->u.cond.a, e->dtype);
        fputs(" : ", o);
        print_in(g, e->u.cond.b, e->dtype);
        fputc(')', o);
        return;
    default: cg_error(g, e->loc, "cannot generate code for this expression"); return;
    }
}
