/* sema.h - internal to the semantic analysis files (sema*.c). */
#ifndef TILEC_SEMA_H
#define TILEC_SEMA_H

#include "frontend.h"

/* Where an expression stands decides what it may refer to. */
typedef enum ExprMode {
    EM_CONST,     /* where/tune/const/threads: compile time */
    EM_GRID,      /* grid: compile time, except that dynamic sizes are read at launch */
    EM_HOST,      /* flops/bytes: evaluated by tilec for a run, dynamic sizes at their values */
    EM_BODY,      /* kernel body */
    EM_REFERENCE, /* reference block (dynamic sizes at their values) */
} ExprMode;

typedef struct Sema {
    Ctx *c;
    const SemaOptions *opt;
    KernelInfo *k;           /* kernel being checked (NULL for file consts) */
    int depth;               /* 0 file, 1 kernel header, 2+ blocks */
    PtrVec scope_syms;       /* every declared Sym, popped at scope exit */
    PtrVec scope_marks;      /* scope_syms.len at each scope entry (as ints) */
    ExprMode mode;
    int in_parallel;         /* nesting of parallel loops */
    PtrVec parallel_vars;    /* the variables of the parallel loops around the statement (Sym*), outermost first */
    int collide_budget;      /* expression nodes the parallel-store check may still evaluate in this file */
    int in_loop;             /* nesting of any loop */
    int dead;                /* inside a branch the specialisation never takes */
    int guarded;             /* inside a condition decided at run time (if, ?:, && and ||, a loop that may not run) */
    PtrVec guards;           /* those conditions (Node*: the if's or ?:'s condition, the left of && or ||, the
                                loop's iterator), outermost first: guards.len == guarded (guard_enter) */
    PtrVec guard_senses;     /* each guard's sense (guard_enter), as intptr_t */
    bool seen_swizzle;
    Sym *ref_reducing;       /* reference: reduction var being scoped */
    const Name *ref_defining; /* reference: the name the statement being checked defines */
    int64_t unrolled;        /* copies of the current statement that enclosing unroll loops make (0: 1) */
    bool writing;            /* checking the element an `=` stores into: not a read */
    PtrVec undefined;        /* Name*s reported undefined in this kernel: reported once */
    Node *program;           /* the whole file (a pipeline's stages are its kernels) */
    const Node *let_value;   /* the value of the let being checked: where an atomic's old value may go */
    bool gather_ok;          /* checking a copy's operands: a gather region may stand here */
} Sema;

/* sema.c */
/* Entering and leaving what `cond` decides at run time (nothing where
 * runtime is false): Sema.guarded and Sema.guards. */
/* sense: the guarded code runs where cond is true (1), false (0), or
 * neither can be said (-1: a loop's iterator) */
void guard_enter(Sema *s, const Node *cond, bool runtime, int sense);
void guard_leave(Sema *s, bool runtime);
void scope_push(Sema *s);
void scope_pop(Sema *s);
Sym *sym_new(Sema *s, SymKind kind, Name *name, Loc loc);
/* A let's symbol takes the value of its checked initialiser v where v is
 * a constant. */
void sym_take_const(Sym *sym, const Node *v);
/* Binds sym in the current scope; reports a redefinition and returns false. */
bool sym_declare(Sema *s, Sym *sym);
Sym *sym_lookup(Name *name);
const char *sym_kind_name(SymKind k);

/* sema_const.c: checked arithmetic and lazily evaluated named values. */
bool const_binary(Sema *s, Node *e, AstOp op, const Node *a, const Node *b);
bool const_unary(Sema *s, Node *e, AstOp op, const Node *a);
void const_set_int(Node *e, int64_t v);
void const_set_float(Node *e, double v);
double const_as_float(const Node *e);
/* Makes sure sym's value is known (evaluating its expression on first use,
 * with cycle detection); false after reporting why not. */
bool sym_value(Sema *s, Sym *sym, Loc use);
/* Converts a constant to the dtype of a scalar parameter; false if it
 * cannot be represented (reports at e). */
bool const_fits(Sema *s, const Node *e, Dtype to, Loc loc, const char *what);
/* A literal stored into a `to` (a var's initial value, an assigned value,
 * fill's value) must fit it: i8 300 or f16 1e10 is an error, not a wrap or
 * an infinity. Typed values convert as C does. */
bool literal_fits(Sema *s, const Node *v, Dtype to);
/* False, after "'Y' is an out tensor and nothing before this writes it",
 * where t is an out tensor that no statement of the kernel body has
 * written yet (Sym.body_written) and is read here: an element, a copy's
 * source, an atomic_add's destination. */
bool out_read_ok(Sema *s, Loc loc, const Sym *t);
/* Affine form c0 + sum(ci * xi) of an integer expression (sema_expr.c):
 * for telling that `k * BK + BK` minus `k * BK` is the constant BK, and
 * which values a buffer index takes. A let stands for its value where
 * that is affine and reads no var, else for itself (a let never changes:
 * `let h = bx % 2` makes `h * 256 + 256` minus `h * 256` 256), which
 * `opaque` says; ok false where the form is not affine or has more than
 * eight names. */
typedef struct Affine {
    int n;
    const Sym *var[8];
    int64_t coef[8];
    int64_t c;
    bool ok;
    bool opaque; /* a let stands for itself */
} Affine;
Affine affine_of(const Node *e);
/* The values an index takes, where it is affine in loop variables with
 * known extents and no run-time condition between their loops and the
 * access: then every combination of the variables' values, and so both
 * ends of [*lo, *hi], is reached. False where that cannot be told. */
/* The value of integer expression e at loop variable var = x, where e
 * names nothing but var, constants and lets of those (node_int_value). */
bool value_at(const Node *e, const Sym *var, int64_t x, int *budget, int64_t *out);
bool index_range(const Sema *s, const Node *e, int64_t *lo, int64_t *hi);
/* Past this magnitude no tile index is meant: the buffer-index bounds
 * checks tell nothing about such values (and cannot overflow below it). */
#define SEMA_INDEX_LIMIT (INT64_C(1) << 40)
void affine_add(Affine *r, const Affine *a, int64_t scale); /* r += scale * a */
/* "undefined name 'x'", once per name and kernel (its other uses would
 * only repeat it), with a hint for block index names without a grid clause. */
void undefined_name(Sema *s, Loc loc, const Name *name);

/* sema_race.c: checks a store `st` into target inside parallel loops for
 * iterations that store the one element or read another's (a race). */
void check_parallel_store(Sema *s, const Node *st, const Sym *target);

/* sema_expr.c */
/* Checks a scalar expression; false after an error. Sets e->dtype, and
 * e->is_const with its value when it folds. */
bool check_expr(Sema *s, Node *e);
/* check_expr, then requires an integer; `what` names it in the error. */
bool check_int(Sema *s, Node *e, const char *what);
/* check_int, then requires a compile-time constant (after specialisation). */
bool check_const_int(Sema *s, Node *e, const char *what, int64_t *out);
/* The value of e, checked already by check_int: an error unless it is a
 * compile-time constant integer (not a bool). */
bool const_int_of(Sema *s, const Node *e, const char *what, int64_t *out);
bool is_builtin_function(const Name *n);
bool is_tile_op(const Name *n);
bool is_reduction_name(const Name *n);

/* sema_atomic.c: atomic_add/max/min/exch/cas(dst, [compare,] value) on
 * one element of a global tensor: as a let's whole value (its old value)
 * or, stmt, as a statement; false after an error. */
bool is_atomic_name(const Name *n);
bool check_atomic(Sema *s, Node *call, bool stmt);

/* sema_pipeline.c: a pipeline's body (its scratch buffers and stages),
 * after its header */
void check_pipeline_body(Sema *s, KernelInfo *k);

/* sema_inputs.c: the `inputs` clause c of kernel k (after specialisation) */
void check_inputs(Sema *s, KernelInfo *k, Node *c);

/* sema_ops.c */
/* A call statement in the kernel body (copy, gemm, ...). */
void check_op_call(Sema *s, Node *call);
/* `let x = alloc_*(...)`: returns the buffer symbol, or NULL if the call is
 * not an allocation (nothing reported then) or is invalid (reported). */
Sym *check_alloc(Sema *s, Node *call, Name *name, Loc name_loc, bool *was_alloc);
/* The iterator of a for loop; returns its kind, or -1 after an error. */
int check_loop_iter(Sema *s, Node *stmt);

/* sema_ref.c */
void check_reference(Sema *s, Node *ref);
/* The reference's view of an indexing or reduction expression. */
bool check_ref_index(Sema *s, Node *e);
bool check_ref_reduction(Sema *s, Node *e);

#endif
