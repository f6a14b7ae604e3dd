/* test_int_ops.c - the three evaluators of integer expressions agree on
 * the edge cases of the integer operators: sema's constant folding (a
 * `where` value), int_value.c (names bound by the caller, as the passes
 * use it) and the reference evaluator (operands read from a tensor at run
 * time), each against int_binop/int_unop and a hand-written expectation.
 * Undefined results are a compile error, no value, and NaN respectively. */
#include <stdint.h>

#include "profiler.h"
#include "test_util.h"

typedef struct Case {
    AstOp op;
    int64_t a, b;     /* b unused for the unary operators */
    bool defined;
    int64_t want;
} Case;

#define P2(n) ((int64_t)1 << (n))

static const Case cases[] = {
    /* overflow */
    {OP_ADD, P2(62), P2(62), false, 0},
    {OP_ADD, INT64_MIN, -1, false, 0},
    {OP_ADD, INT64_MAX, 1, false, 0},
    {OP_ADD, -5, 3, true, -2},
    {OP_SUB, INT64_MIN, 1, false, 0},
    {OP_SUB, 0, INT64_MIN, false, 0},
    {OP_SUB, 5, 7, true, -2},
    {OP_MUL, P2(32), P2(31), false, 0},
    {OP_MUL, -P2(32), P2(31), true, INT64_MIN},
    {OP_MUL, INT64_MIN, -1, false, 0},
    {OP_MUL, -3, 4, true, -12},
    /* division truncates toward zero; by zero and INT64_MIN / -1 are undefined */
    {OP_DIV, -7, 2, true, -3},
    {OP_DIV, 7, 0, false, 0},
    {OP_DIV, INT64_MIN, -1, false, 0},
    {OP_MOD, -7, 2, true, -1},
    {OP_MOD, 7, -2, true, 1},
    {OP_MOD, 7, 0, false, 0},
    {OP_MOD, INT64_MIN, -1, false, 0},
    /* shift counts 0..63; a left shift is a * 2^b where that fits */
    {OP_SHL, 1, 62, true, P2(62)},
    {OP_SHL, 1, 63, false, 0},
    {OP_SHL, 3, 62, false, 0},
    {OP_SHL, 0, 63, true, 0},
    {OP_SHL, -1, 63, true, INT64_MIN},
    {OP_SHL, -7, 4, true, -112},
    {OP_SHL, -P2(62), 1, true, INT64_MIN},
    {OP_SHL, INT64_MIN, 1, false, 0},
    {OP_SHL, 1, 64, false, 0},
    {OP_SHL, 1, -1, false, 0},
    {OP_SHR, -8, 1, true, -4},
    {OP_SHR, -1, 63, true, -1},
    {OP_SHR, INT64_MIN, 63, true, -1},
    {OP_SHR, P2(62), 62, true, 1},
    {OP_SHR, 1, 64, false, 0},
    {OP_SHR, 8, -1, false, 0},
    {OP_BAND, -8, 12, true, 8},
    {OP_BOR, -8, 3, true, -5},
    {OP_BXOR, -1, 5, true, -6},
    /* unary */
    {OP_NEG, INT64_MIN, 0, false, 0},
    {OP_NEG, 5, 0, true, -5},
    {OP_BNOT, 0, 0, true, -1},
    {OP_BNOT, INT64_MIN, 0, true, INT64_MAX},
    {OP_NOT, -3, 0, true, 0},
};

static bool is_unary(AstOp op) { return op == OP_NEG || op == OP_NOT || op == OP_BNOT; }

/* An int64 as .tile source (INT64_MIN has no literal). */
static const char *lit(char *buf, int64_t v) {
    if (v == INT64_MIN) return "(-9223372036854775807 - 1)";
    snprintf(buf, 32, "(%lld)", (long long)v);
    return buf;
}

/* Whether v is exactly a double (the reference computes in f64). */
static bool exact(int64_t v) {
    double d = (double)v;
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (int64_t)d == v;
}

static FILE *quiet;

/* Sema: `where R = a op b` folded, or an error. */
static void check_sema(const Case *k) {
    char src[512], la[32], lb[32];
    if (is_unary(k->op))
        snprintf(src, sizeof src, "kernel k(out Y: f64[1]) where R = %s%s { }\n", op_spelling(k->op), lit(la, k->a));
    else
        snprintf(src, sizeof src, "kernel k(out Y: f64[1]) where R = %s %s %s { }\n", lit(la, k->a),
                 op_spelling(k->op), lit(lb, k->b));
    Ctx c;
    ctx_init(&c, quiet);
    source_from_string(&c.src, "t.tile", src, strlen(src));
    Node *prog = fe_parse(&c);
    SemaOptions opt = {0};
    PtrVec ks = c.errors ? (PtrVec){0} : sema_check(&c, prog, &opt);
    const Sym *r = NULL;
    if (!c.errors && ks.len == 1) {
        KernelInfo *ki = ks.items[0];
        for (int i = 0; i < ki->values.len; i++)
            if (!strcmp(((Sym *)ki->values.items[i])->name->s, "R")) r = ki->values.items[i];
    }
    if (k->defined)
        CHECK(r && r->has_value && !r->value_float && r->value.i == k->want, "sema: %s: %lld wanted", src,
              (long long)k->want);
    else
        CHECK(c.errors > 0, "sema: %s: an error wanted", src);
    ctx_free(&c);
}

/* int_value.c: x op y with x and y names bound to a and b. */
typedef struct Bound {
    const Sym *x, *y;
    int64_t a, b;
} Bound;

static bool bind(void *ctx, const Sym *s, int64_t *v, const Node **expr) {
    const Bound *bd = ctx;
    *expr = NULL;
    *v = s == bd->x ? bd->a : bd->b;
    return true;
}

static void check_int_value(const Case *k) {
    Ctx c;
    ctx_init(&c, quiet);
    Sym sx = {0}, sy = {0};
    Node *x = node_new(&c, N_NAME, (Loc){0, 1}), *y = node_new(&c, N_NAME, (Loc){0, 1});
    x->sym = &sx;
    y->sym = &sy;
    Node *e = node_new(&c, is_unary(k->op) ? N_UNARY : N_BINARY, (Loc){0, 1});
    e->u.op.op = k->op;
    e->u.op.a = x;
    e->u.op.b = is_unary(k->op) ? NULL : y;
    Bound bd = {&sx, &sy, k->a, k->b};
    int budget = 100;
    int64_t got = 0;
    bool ok = node_int_value(e, bind, &bd, &budget, &got);
    CHECK(ok == k->defined && (!ok || got == k->want), "int_value: %lld %s %lld: %s %lld", (long long)k->a,
          op_spelling(k->op), (long long)k->b, ok ? "value" : "no value", (long long)got);
    ctx_free(&c);
}

/* The reference: Y[0] = f64(A[0] op A[1]) with A read at run time. */
static void check_reference(const Case *k) {
    if (!exact(k->a) || !exact(k->b)) return; /* an f64 evaluator cannot be given it */
    char src[512];
    if (is_unary(k->op))
        snprintf(src, sizeof src, "kernel k(A: i64[2], out Y: f64[1]) { }\nreference { Y[i] = f64(%sA[0]); }\n",
                 op_spelling(k->op));
    else
        snprintf(src, sizeof src, "kernel k(A: i64[2], out Y: f64[1]) { }\nreference { Y[i] = f64(A[0] %s A[1]); }\n",
                 op_spelling(k->op));
    Ctx c;
    KernelInfo *ki = load_with(&c, src, NULL, 0);
    HostTensor *t;
    int n;
    CHECK(prof_supply(ki, SUPPLY_INTEGER, 1, &t, &n) && n == 2, "supply");
    HostTensor *A = t[0].sym->name->s[0] == 'A' ? &t[0] : &t[1], *Y = A == &t[0] ? &t[1] : &t[0];
    A->values[0] = (double)k->a;
    A->values[1] = (double)k->b;
    RefEval *r = prof_ref_new(ki, t, n);
    int64_t i0 = 0;
    double got = prof_ref_element(r, Y->sym, &i0);
    if (k->defined)
        CHECK(got == (double)k->want, "reference: %lld %s %lld: got %.17g, want %lld", (long long)k->a,
              op_spelling(k->op), (long long)k->b, got, (long long)k->want);
    else
        CHECK(isnan(got), "reference: %lld %s %lld: got %.17g, want NaN", (long long)k->a, op_spelling(k->op),
              (long long)k->b, got);
    prof_ref_free(r);
    prof_tensors_free(t, n);
    ctx_free(&c);
}

int main(void) {
    quiet = fopen("/dev/null", "w");
    if (!quiet) return 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const Case *k = &cases[i];
        int64_t got = 0;
        bool ok = is_unary(k->op) ? int_unop(k->op, k->a, &got) : int_binop(k->op, k->a, k->b, &got);
        CHECK(ok == k->defined && (!ok || got == k->want), "int_binop: %lld %s %lld", (long long)k->a,
              op_spelling(k->op), (long long)k->b);
        check_sema(k);
        check_int_value(k);
        check_reference(k);
    }
    fclose(quiet);
    printf("test_int_ops: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
