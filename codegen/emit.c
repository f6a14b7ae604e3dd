/* emit.c - the CUDA C printer: the kernel's skeleton, scalar expressions,
 * statements and pipelined loops. Tile operations lower in lower_*.c. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

void cg_line(Cg *g, const char *fmt, ...) {
    for (int i = 0; i < g->ind; i++) fputs("    ", g->o);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->o, fmt, ap);
    va_end(ap);
    fputc('\n', g->o);
}

void cg_error(Cg *g, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(g->k->c, loc, fmt, ap);
    va_end(ap);
    g->failed = true;
}

const char *cg_tmp(Cg *g, const char *prefix) {
    return arena_printf(&g->k->c->arena, "%s%d_", prefix, g->uid++);
}

char *cg_and(Cg *g, const char *a, const char *b) {
    if (!a || !b) return (char *)(a ? a : b);
    return arena_printf(&g->k->c->arena, "(%s) && %s", a, b);
}

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

/* A float value rounded to narrow float type t and back (an f16 value in
 * a float register) is rounding_open(t) + value + ROUNDING_CLOSE. */
static const char ROUNDING_CLOSE[] = ")))";

static const char *rounding_open(Cg *g, Dtype t) {
    return arena_printf(&g->k->c->arena, "tl_to_float(tl_from_float<%s>((float)(", cg_storage_type(t));
}

static char *rounded(Cg *g, Dtype t, const char *v) {
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

char *cg_global_offset(Cg *g, const IrBuf *b, char **coords) {
    Arena *a = &g->k->c->arena;
    char *off = arena_printf(a, "(long long)(%s)", coords[0]);
    for (int d = 1; d < b->rank; d++) off = arena_printf(a, "(%s) * %lldLL + (%s)", off, (long long)b->shape[d], coords[d]);
    return off;
}

char *cg_global_inbounds(Cg *g, const IrBuf *b, char **coords) {
    Arena *a = &g->k->c->arena;
    char *c = "true";
    for (int d = 0; d < b->rank; d++) {
        /* one unsigned compare tests 0 <= x < n */
        char *t = arena_printf(a, "(unsigned long long)(long long)(%s) < %lldULL", coords[d], (long long)b->shape[d]);
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

/* The C lvalue of an element (tensor, shared, fragment, local); for global
 * tensors *cond receives the bounds condition. */
static char *element_ref(Cg *g, const Node *e, char **cond) {
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
        if ((to == DT_F16 || to == DT_BF16) && args->items[0]->dtype == DT_F64) /* rounded once, not through f32 */
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
        fputs(cg_narrow_float(to) ? ROUNDING_CLOSE : to == DT_BOOL ? ") != 0)" : "))", o);
        return;
    }
    const char *f = e->u.call.name->s;
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
        char *ref = element_ref(g, e, &cond);
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
        print_in(g, e->u.op.a, ctx);
        fprintf(o, " %s ", op_spelling(op));
        print_in(g, e->u.op.b, ctx);
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

/* ---- statements ---- */

static void cg_store(Cg *g, IrStmt *s) {
    Node *t = s->target;
    Dtype td = t->sym->dtype;
    /* an element store of an f16 value into f16 memory rounds once, there */
    g->store_rounds = t->kind != N_NAME && cg_narrow_float(td) && s->value->dtype == td && s->assign_op == OP_ASSIGN;
    char *rhs = cg_value_str(g, s->value, td);
    g->store_rounds = false;
    const char *op = s->assign_op == OP_ASSIGN ? NULL : op_spelling(op_assign_binary(s->assign_op));
    if (t->kind == N_NAME) {
        const char *name = ir_sym_cname(g->k->c, t->sym);
        Dtype vt = t->sym->dtype;
        if (cg_narrow_float(vt)) /* an f16 var holds f16 values (in a float register) */
            cg_line(g, "%s = %s;", name,
                    rounded(g, vt, op ? arena_printf(&g->k->c->arena, "%s %s (%s)", name, op, rhs) : rhs));
        else if (op) cg_line(g, "%s %s= %s;", name, op, rhs);
        else cg_line(g, "%s = %s;", name, rhs);
        return;
    }
    IrBuf *b = ir_buf_of(g->k, t->sym);
    const char *lane = cg_lane_of(g, t);
    if (lane) { /* vectorised: the loop stores the whole vector afterwards */
        cg_line(g, "%s = %s;", lane, cg_convert(g, b->dtype, rhs));
        return;
    }
    char *cond;
    char *ref = element_ref(g, t, &cond);
    char *val = op ? arena_printf(&g->k->c->arena, "%s(%s) %s (%s)", cg_load_wrap(b->dtype), ref, op, rhs) : rhs;
    /* memory other threads see: stored by the iteration's one owner */
    if (g->owner && (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_SHARED))
        cond = cg_and(g, g->owner, cond);
    if (cond) cg_line(g, "if (%s) %s = %s;", cond, ref, cg_convert(g, b->dtype, val));
    else cg_line(g, "%s = %s;", ref, cg_convert(g, b->dtype, val));
}

static void cg_print(Cg *g, IrStmt *s) {
    char *fmt = NULL, *args = NULL;
    size_t fl = 0, al = 0;
    FILE *f = open_memstream(&fmt, &fl), *a = open_memstream(&args, &al);
    for (int i = 0; i < s->print_args.len; i++) {
        Node *e = s->print_args.items[i];
        if (i) fputc(' ', f);
        if (e->kind == N_STR) {
            for (uint32_t j = 0; j < e->u.str.len; j++) {
                unsigned char ch = (unsigned char)e->u.str.s[j];
                if (ch == '%') fputs("%%", f);
                else if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
                else if (ch == '\n') fputs("\\n", f);
                else if (ch == '\t') fputs("\\t", f);
                else if (ch < 0x20) fprintf(f, "\\%03o", ch);
                else fputc(ch, f);
            }
            continue;
        }
        bool fl_ = dtype_is_float(e->dtype);
        fputs(fl_ ? "%g" : "%lld", f);
        fprintf(a, ", (%s)(%s)", fl_ ? "double" : "long long", cg_expr_str(g, e));
    }
    fclose(f);
    fclose(a);
    if (g->owner) cg_line(g, "if (%s) printf(\"%s\\n\"%s);", g->owner, fmt, args); /* once an iteration */
    else cg_line(g, "printf(\"%s\\n\"%s);", fmt, args);
    free(fmt);
    free(args);
}

/* The copies a pipelined loop prefetches, for iteration `iter` into the
 * ring slot `slot`. */
static void issue_producers(Cg *g, IrStmt *loop, const char *iter, const char *slot) {
    int saved = g->nbind;
    g->bind_sym[g->nbind] = loop->sym;
    g->bind_expr[g->nbind++] = iter;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *c = loop->body.items[i];
        if (c->op == IR_LET && c->producer_too) { /* the body's let, for that iteration */
            g->bind_expr[g->nbind] = arena_printf(&g->k->c->arena, "(%s)", cg_expr_str(g, c->value));
            g->bind_sym[g->nbind++] = c->sym;
        }
        if (c->op != IR_COPY || c->pipeline != loop) continue;
        g->stage_buf[g->nstage] = c->dst.buf;
        g->stage_expr[g->nstage++] = slot;
        cg_copy(g, c);
        g->nstage--;
    }
    g->nbind = saved;
}

/* Software pipeline (plan_pipeline.c): producers run stages-1 iterations
 * ahead; cp.async groups are committed every iteration, even empty, so
 * "wait until at most stages-1 groups are pending" always means "this
 * iteration's data has landed"; a barrier after each iteration protects the
 * slot the next prefetch overwrites. Right for any trip count, 0 included. */
static void cg_pipelined(Cg *g, IrStmt *s) {
    int S = s->stages;
    const char *n = cg_tmp(g, "n"), *kp = cg_tmp(g, "kp"), *stage = cg_tmp(g, "stage");
    const char *var = ir_sym_cname(g->k->c, s->sym);
    bool any = false;
    for (int i = 0; i < s->body.len; i++) any |= s->body.items[i]->op == IR_COPY && s->body.items[i]->pipeline == s;
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, s->hi));
    if (any && S > 1) {
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %d; ++%s) {", kp, kp, S - 1, kp);
        g->ind++;
        cg_line(g, "if (%s < %s) {", kp, n);
        g->ind++;
        issue_producers(g, s, kp, kp);
        g->ind--;
        cg_line(g, "}");
        cg_line(g, "tl_cp_async_commit();");
        g->ind--;
        cg_line(g, "}");
    }
    cg_line(g, "for (int %s = 0; %s < %s; ++%s) {", var, var, n, var);
    g->ind++;
    if (any) {
        cg_line(g, "{");
        g->ind++;
        cg_line(g, "const int %s = %s + %d;", kp, var, S - 1);
        cg_line(g, "if (%s < %s) {", kp, n);
        g->ind++;
        issue_producers(g, s, kp, arena_printf(&g->k->c->arena, "(%s %% %d)", kp, S));
        g->ind--;
        cg_line(g, "}");
        cg_line(g, "tl_cp_async_commit();");
        g->ind--;
        cg_line(g, "}");
        cg_line(g, "tl_cp_async_wait<%d>();", S - 1);
        cg_sync(g);
    }
    cg_line(g, "const int %s = %s %% %d;", stage, var, S);
    int saved = g->nstage;
    for (int i = 0; i < s->body.len; i++) {
        IrStmt *c = s->body.items[i];
        if (c->op == IR_COPY && c->pipeline == s) {
            g->stage_buf[g->nstage] = c->dst.buf;
            g->stage_expr[g->nstage++] = stage;
        }
    }
    for (int i = 0; i < s->body.len; i++) {
        IrStmt *c = s->body.items[i];
        if (c->op == IR_COPY && c->pipeline == s) continue;
        IrBlock one = {.items = &s->body.items[i], .len = 1};
        cg_block(g, &one);
    }
    g->nstage = saved;
    cg_sync(g);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}

void cg_sync(Cg *g) {
    if (g->k->producer_threads)
        cg_line(g, "asm volatile(\"bar.sync %d, %lld;\\n\" ::: \"memory\");  // the consumer warpgroups", CG_BAR_CONSUMERS,
                (long long)g->k->threads);
    else
        cg_line(g, "__syncthreads();");
}

static void cg_for(Cg *g, IrStmt *s) {
    if (s == g->k->ws_loop) {
        cg_hopper_consumer(g, s);
        return;
    }
    if (s->loop == LOOP_PIPELINED) {
        cg_pipelined(g, s);
        return;
    }
    const char *var = ir_sym_cname(g->k->c, s->sym);
    const char *lo = s->lo ? cg_expr_str(g, s->lo) : "0";
    const char *hi = cg_expr_str(g, s->hi);
    if (s->loop == LOOP_UNROLL) cg_line(g, "#pragma unroll");
    if (s->step && s->step->is_const && s->step->cval.i < 0)
        cg_line(g, "for (long long %s = %s; %s > %s; %s += %s) {", var, lo, var, hi, var, cg_expr_str(g, s->step));
    else if (s->step)
        cg_line(g, "for (long long %s = %s; %s < %s; %s += %s) {", var, lo, var, hi, var, cg_expr_str(g, s->step));
    else
        cg_line(g, "for (int %s = %s; %s < %s; ++%s) {", var, lo, var, hi, var);
    g->ind++;
    cg_block(g, &s->body);
    g->ind--;
    cg_line(g, "}");
}

/* A let's or var's C type: 8- and 16-bit integers their own (a value
 * stored into one wraps, as the reference's conversions do), other
 * integers computed in int widen with the block indices (Cg.index_type). */
static const char *scalar_type(const Cg *g, Dtype t) {
    if (dtype_is_int(t) && dtype_bytes(t) < 4) return cg_storage_type(t);
    const char *c = cg_compute_type(t);
    return strcmp(c, "int") ? c : g->index_type;
}

void cg_let(Cg *g, const IrStmt *s) {
    cg_line(g, "const %s %s = %s;", scalar_type(g, s->sym->dtype), ir_sym_cname(g->k->c, s->sym),
            cg_value_str(g, s->value, s->sym->dtype));
}

static void cg_stmt(Cg *g, IrStmt *s) {
    if (s->sync_before) cg_sync(g);
    switch (s->op) {
    case IR_COPY: cg_copy(g, s); break;
    case IR_GEMM: cg_gemm(g, s); break;
    case IR_FILL: cg_fill(g, s); break;
    case IR_REDUCE: cg_reduce(g, s); break;
    case IR_ATOMIC_ADD: cg_atomic_add(g, s); break;
    case IR_PARALLEL: cg_parallel(g, s); break;
    case IR_FOR: cg_for(g, s); break;
    case IR_IF:
        if (s->value) cg_line(g, "if (%s) {", cg_expr_str(g, s->value));
        else cg_line(g, "{");
        g->ind++;
        cg_block(g, &s->body);
        g->ind--;
        if (s->els.len) {
            cg_line(g, "} else {");
            g->ind++;
            cg_block(g, &s->els);
            g->ind--;
        }
        cg_line(g, "}");
        break;
    case IR_LET: cg_let(g, s); break;
    case IR_VAR: {
        Dtype vt = s->sym->dtype;
        const char *init = s->value ? cg_value_str(g, s->value, vt) : "0";
        if (s->value && cg_narrow_float(vt) && s->value->dtype != vt)
            init = rounded(g, vt, init);
        cg_line(g, "%s %s = %s;", scalar_type(g, vt), ir_sym_cname(g->k->c, s->sym), init);
        break;
    }
    case IR_STORE: cg_store(g, s); break;
    case IR_SYNC: cg_sync(g); break;
    case IR_PRINT: cg_print(g, s); break;
    default: break;
    }
}

void cg_block(Cg *g, IrBlock *b) {
    for (int i = 0; i < b->len && !g->failed; i++) cg_stmt(g, b->items[i]);
}

/* ---- the kernel ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* One name per specialisation: the kernel, its values and the target. */
static const char *unique_name(IrKernel *k, const char *source_file) {
    uint64_t h = 1469598103934665603ull;
    KernelInfo *info = k->info;
    h = fnv(h, info->name->s, strlen(info->name->s));
    for (int i = 0; i < info->values.len; i++) {
        Sym *v = info->values.items[i];
        h = fnv(h, v->name->s, strlen(v->name->s) + 1);
        h = fnv(h, &v->value, sizeof v->value);
    }
    h = fnv(h, &k->arch, sizeof k->arch);
    h = fnv(h, &k->arch_specific, sizeof k->arch_specific);
    (void)source_file;
    return arena_printf(&k->c->arena, "tilec_%s_%08llx", info->name->s, (unsigned long long)(h & 0xffffffffu));
}

static void emit_frag_decl(Cg *g, IrBuf *b) {
    int64_t regs = b->scope == SCOPE_LOCAL ? buf_elems(b) : b->layout.regs;
    cg_line(g, "%s %s[%lld];  // %s", cg_storage_type(b->dtype), b->cname, (long long)regs,
            b->scope == SCOPE_LOCAL ? "per-thread local buffer" : layout_describe(g->k->c, &b->layout));
}

/* The block indices the kernel names (bx, by, bz), from blockIdx or, in a
 * persistent kernel, from the linear tile number `lin`; in panels when
 * use_swizzle asks (L2 reuse of the operand tiles neighbours share). In a
 * kernel of clusters of two the hardware grid is linear: the pair
 * blockIdx.x / 2 takes the indices of that tile of the grid halved along
 * the cluster dimension, and the block's rank in the cluster (blockIdx.x %
 * 2) is the low bit of its index there. */
void cg_block_indices(Cg *g, const char *lin) {
    IrKernel *k = g->k;
    KernelInfo *info = k->info;
    Arena *ar = &k->c->arena;
    int64_t grid[3] = {k->grid[0], k->grid[1], k->grid[2]};
    if (k->sched.cluster) {
        cg_line(g, "const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x %% 2");
        grid[k->sched.cluster_dim] /= 2;
        if (!lin) lin = "(blockIdx.x >> 1)"; /* a persistent kernel's lin numbers pairs */
    }
    static const char *const bidx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    const char *val[3] = {bidx[0], bidx[1], bidx[2]};
    if (lin) {
        val[0] = arena_printf(ar, "(int)(%s %% %lld)", lin, (long long)grid[0]);
        val[1] = arena_printf(ar, "(int)(%s / %lld %% %lld)", lin, (long long)grid[0], (long long)grid[1]);
        val[2] = arena_printf(ar, "(int)(%s / %lld)", lin, (long long)(grid[0] * grid[1]));
    }
    bool panels = k->swizzle_panel > 0 && k->grid_rank >= 2 && info->block_idx.len >= 2;
    if (panels) {
        int a = k->swizzle_col ? 1 : 0, b = 1 - a; /* a: the dimension cut into panels */
        cg_line(g, "int tl_bx, tl_by;");
        cg_line(g, "{");
        if (lin)
            cg_line(g, "    const long long lin = %s %% %lldLL;", lin, (long long)(grid[0] * grid[1]));
        else
            cg_line(g, "    const long long lin = (long long)blockIdx.y * gridDim.x + blockIdx.x;");
        cg_line(g, "    const long long per_panel = %dLL * %lld;", k->swizzle_panel, (long long)grid[b]);
        cg_line(g, "    const long long first = lin / per_panel * %d, rem = lin %% per_panel;", k->swizzle_panel);
        cg_line(g, "    const long long width = min(%dLL, %lldLL - first);", k->swizzle_panel, (long long)grid[a]);
        cg_line(g, "    %s = (int)(first + rem %% width); %s = (int)(rem / width);", a == 0 ? "tl_bx" : "tl_by",
                a == 0 ? "tl_by" : "tl_bx");
        cg_line(g, "}");
        val[0] = "tl_bx";
        val[1] = "tl_by";
    }
    if (k->sched.cluster) val[k->sched.cluster_dim] = arena_printf(ar, "2 * %s + tl_cta_rank", val[k->sched.cluster_dim]);
    const char *names[3];
    for (int i = 0; i < info->block_idx.len; i++) names[i] = ir_sym_cname(k->c, info->block_idx.items[i]);
    int i = 0;
    if (panels) {
        cg_line(g, "const %s %s = %s, %s = %s;", g->index_type, names[0], val[0], names[1], val[1]);
        i = 2;
    }
    for (; i < info->block_idx.len; i++) cg_line(g, "const %s %s = %s;", g->index_type, names[i], val[i]);
    /* Block index i runs over [0, grid[i]) (the panel swizzle permutes the
     * tiles, it does not leave the grid). Said to the compiler, this lets it
     * prove that the tiles of a grid that divides the tensor are in bounds,
     * and drop their bounds tests and the branches around the loads. */
    for (i = 0; i < info->block_idx.len; i++)
        cg_line(g, "__builtin_assume(%s >= 0 && %s < %lld);", names[i], names[i], (long long)k->grid[i]);
}

/* Whether kernel k stores or computes an fp8 value anywhere. */

static bool fp8_node(const Node *e, const void *arg) {
    (void)arg;
    return dtype_is_fp8(e->dtype) || (e->kind == N_CALL && !e->u.call.name && dtype_is_fp8(e->u.call.cast));
}

static void fp8_stmt(IrStmt *s, void *arg) {
    bool *found = arg;
    *found |= (s->value && expr_any(s->value, fp8_node, NULL)) || (s->target && expr_any(s->target, fp8_node, NULL));
    *found |= (s->op == IR_LET || s->op == IR_VAR) && s->sym && dtype_is_fp8(s->sym->dtype);
}

static bool uses_fp8(IrKernel *k) {
    for (int i = 0; i < k->buffers.len; i++)
        if (dtype_is_fp8(((const IrBuf *)k->buffers.items[i])->dtype)) return true;
    for (int i = 0; i < k->info->params.len; i++)
        if (dtype_is_fp8(((const Sym *)k->info->params.items[i])->dtype)) return true;
    bool found = false;
    ir_walk(&k->body, fp8_stmt, &found);
    return found;
}

bool cg_emit(IrKernel *k, const char *source_file, CgKernel *out) {
    memset(out, 0, sizeof *out);
    Cg g = {.k = k, .index_type = "int"};
    for (int i = 0; i < k->params.len; i++)
        if (buf_elems(k->params.items[i]) > INT32_MAX) g.index_type = "long long";
    char *buf = NULL;
    size_t len = 0;
    g.o = open_memstream(&buf, &len);
    const char *name = unique_name(k, source_file);
    KernelInfo *info = k->info;
    fprintf(g.o, "// Generated by tilec %s from %s: kernel '%s' for sm_%d%s.\n", TILEC_VERSION,
            source_file ? source_file : "<input>", info->name->s, k->arch, k->arch >= 90 ? "a" : "");
    fprintf(g.o, "// values:");
    for (int i = 0; i < info->values.len; i++) {
        Sym *v = info->values.items[i];
        if (v->value_float) fprintf(g.o, " %s=%g", v->name->s, v->value.f);
        else fprintf(g.o, " %s=%lld", v->name->s, (long long)v->value.i);
    }
    fprintf(g.o, "\n// launch: grid (%lld, %lld, %lld), block %lld, dynamic shared memory %lld bytes\n",
            (long long)k->grid[0], (long long)k->grid[1], (long long)k->grid[2],
            (long long)(k->threads + k->producer_threads), (long long)k->smem_bytes);
    if (k->ws_loop)
        fprintf(g.o, "// sm_90a path: %lld consumer threads (wgmma) + a %lld-thread TMA producer warpgroup%s\n",
                (long long)k->threads, (long long)k->producer_threads,
                k->sched.persistent ? "; persistent: min(tiles, SMs) blocks loop over the grid's tiles" : "");
    if (k->sched.cluster)
        fprintf(g.o, "// clusters of 2 blocks along grid dimension %d (a linear grid of %lld blocks): TMA multicast of the tiles they share\n",
                k->sched.cluster_dim, (long long)(k->grid[0] * k->grid[1] * k->grid[2]));
    /* cuda_fp8.h only where needed: it costs NVRTC ~70 ms a compile */
    fprintf(g.o, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n%s\n", uses_fp8(k) ? "#include <cuda_fp8.h>\n" : "");
    fputs(cg_device_header, g.o);
    if (k->ws_loop) cg_hopper_helpers(k, g.o);
    if (k->sched.order == ORDER_LONGEST_FIRST)
        fputs("\n// the tiles this launch's persistent blocks have drawn, and the blocks done drawing (tl_tiles_draw, tl_tiles_done)\n"
              "__device__ unsigned tl_tile_count[2] = {0, 0};\n", g.o);
    if (k->sched.split_ways) cg_split_globals(k, g.o);
    /* setmaxnreg needs a register cap at entry: one block an SM */
    fprintf(g.o, "\nextern \"C\" __global__ void __launch_bounds__(%lld%s)%s %s(",
            (long long)(k->threads + k->producer_threads), cg_hopper_consumer_regs(k) ? ", 1" : "",
            k->sched.cluster ? " __cluster_dims__(2, 1, 1)" : "", name);
    for (int i = 0; i < info->params.len; i++) {
        Sym *p = info->params.items[i];
        if (i) fputs(", ", g.o);
        if (p->kind == SYM_TENSOR)
            fprintf(g.o, "%s%s *__restrict__ %s", p->mode == MODE_IN ? "const " : "", cg_storage_type(p->dtype),
                    ir_sym_cname(k->c, p));
        else
            fprintf(g.o, "%s tl_arg_%s", cg_storage_type(p->dtype), ir_sym_cname(k->c, p));
    }
    if (k->ws_loop) cg_hopper_params(k, g.o);
    fputs(") {\n", g.o);
    /* nvcc -arch=sm_90a also builds compute_90 PTX (for later GPUs), where
     * wgmma, setmaxnreg and the TMA do not exist: there the kernel traps */
    if (k->ws_loop)
        fputs("#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
              "    __trap();  // built for sm_90a only\n"
              "#else\n", g.o);
    g.ind = 1;
    if (k->ws_loop) {
        /* TMA swizzles by shared-memory address bits: stages start on
         * 1024-byte boundaries of the window (plan_shared left the room) */
        cg_line(&g, "extern __shared__ __align__(1024) unsigned char tl_smem_raw[];");
        cg_line(&g, "unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);");
    } else {
        cg_line(&g, "extern __shared__ __align__(128) unsigned char tl_smem[];");
    }
    cg_line(&g, "const int tid = threadIdx.x, lane = tid %% 32, warp = tid / 32;");
    cg_line(&g, "(void)lane; (void)warp;");
    /* NVRTC does not know the block size: without this, tid / 4096 and
     * tid %% 4096 cost sign fix-ups and bounds tests stay in the code */
    cg_line(&g, "__builtin_assume(tid >= 0 && tid < %lld);", (long long)(k->threads + k->producer_threads));
    if (!k->sched.persistent) cg_block_indices(&g, NULL);
    for (int i = 0; i < info->params.len; i++) {
        Sym *p = info->params.items[i];
        if (p->kind == SYM_SCALAR)
            cg_line(&g, "(void)tl_arg_%s;  // specialised: its value is folded into the code", ir_sym_cname(k->c, p));
    }
    for (int i = 0; i < k->buffers.len; i++) {
        IrBuf *b = k->buffers.items[i];
        if (b->scope == SCOPE_SHARED)
            cg_line(&g, "%s *const %s = (%s *)(tl_smem + %lld);  // %d stage%s, swizzle %d", cg_storage_type(b->dtype),
                    b->cname, cg_storage_type(b->dtype), (long long)b->smem_offset, b->stages, b->stages == 1 ? "" : "s",
                    b->swizzle_chunks);
        else
            emit_frag_decl(&g, b);
    }
    if (k->scratch_bytes)
        cg_line(&g, "double *const tl_scratch = (double *)(tl_smem + %lld);", (long long)k->scratch_offset);
    if (k->ws_loop) cg_hopper_split(&g);
    if (k->ws_loop) cg_line(&g, "int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for");
    if (k->sched.persistent) cg_tile_loop_begin(&g, false);
    if (k->sched.idle_stores.len) cg_hopper_idle_begin(&g);
    cg_block(&g, &k->body);
    if (k->sched.idle_stores.len) cg_hopper_idle_end(&g);
    if (k->sched.persistent) cg_tile_loop_end(&g, false);
    if (k->ws_loop) {
        cg_hopper_finish(&g);
        fputs("#endif\n", g.o);
    }
    fputs("}\n", g.o);
    fclose(g.o);
    if (g.failed) {
        free(buf);
        return false;
    }
    out->source = buf;
    out->source_len = len;
    out->name = name;
    memcpy(out->grid, k->grid, sizeof out->grid);
    if (k->sched.persistent || k->sched.cluster) { /* a linear grid (cg_block_indices) */
        out->persistent = k->sched.persistent;
        out->cluster = k->sched.cluster;
        out->grid[0] = cg_loop_units(k) * (k->sched.cluster ? 2 : 1);
        out->grid[1] = out->grid[2] = 1;
    }
    out->block = k->threads + k->producer_threads;
    out->smem_bytes = k->smem_bytes;
    if (k->ws_loop) cg_hopper_tensor_maps(k, out);
    return true;
}

void cg_kernel_free(CgKernel *ck) {
    free(ck->source);
    ck->source = NULL;
}
