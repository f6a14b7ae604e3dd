/* frontend.h - the front end: tokens, the syntax tree, parsing, semantic
 * analysis and specialisation of `.tile` programs (LANGUAGE.md §2-5). */
#ifndef TILEC_FRONTEND_H
#define TILEC_FRONTEND_H

#include "support.h"

/* ---- targets (target_name.c) ---- */
/* 80 for "sm_80", 90 for "sm_90a" (*specific: the "a" suffix); 0 if the
 * name is not a target's as --arch and `tune TARGET:` spell it. */
int target_arch_number(const char *arch, bool *specific);

/* ---- dtypes (dtype.c) ---- */
#define DTYPES(X)                                                        \
    X(BOOL, "bool", 1, 0, 0) X(I8, "i8", 1, 1, 1) X(U8, "u8", 1, 1, 0)   \
    X(I16, "i16", 2, 1, 1) X(U16, "u16", 2, 1, 0) X(I32, "i32", 4, 1, 1) \
    X(U32, "u32", 4, 1, 0) X(I64, "i64", 8, 1, 1) X(U64, "u64", 8, 1, 0) \
    X(F16, "f16", 2, 2, 1) X(BF16, "bf16", 2, 2, 1)                      \
    X(F32, "f32", 4, 2, 1) X(F64, "f64", 8, 2, 1)                        \
    X(F8E4M3, "f8e4m3", 1, 2, 1) X(F8E5M2, "f8e5m2", 1, 2, 1)

typedef enum Dtype {
    DT_NONE,
#define X(id, name, bytes, cls, sgn) DT_##id,
    DTYPES(X)
#undef X
    DT_INT_LIT,   /* an integer whose type context decides (literals, sizes) */
    DT_FLOAT_LIT, /* a float whose type context decides (float literals) */
    DT_COUNT
} Dtype;

const char *dtype_name(Dtype t);
int dtype_bytes(Dtype t);
bool dtype_is_int(Dtype t);   /* integer dtypes and DT_INT_LIT */
bool dtype_is_float(Dtype t); /* float dtypes and DT_FLOAT_LIT */
bool dtype_is_signed(Dtype t);
bool dtype_is_fp8(Dtype t);   /* f8e4m3, f8e5m2 */
/* Whether integer v is a value of integer dtype t. */
bool dtype_int_fits(Dtype t, int64_t v);
/* Whether dtype t holds every integer from lo to hi exactly (f16: up to
 * 2048, bf16: 256, f32: 2^24; bool: 0 and 1). */
bool dtype_holds_ints(Dtype t, int64_t lo, int64_t hi);
Dtype dtype_from_name(const char *s, size_t n); /* DT_NONE if not a dtype */
/* The type of `a op b` for arithmetic (C's usual conversions, with literals
 * taking the other side's type: a float literal meeting f16 becomes f16). */
Dtype dtype_join(Dtype a, Dtype b);
/* float_format.c: the narrow floats (f16, bf16, f8e4m3, f8e5m2), rounding
 * to nearest even; f8e4m3 saturates to +-448, the others overflow to inf. */
uint32_t dtype_narrow_bits(Dtype t, double v);     /* v in t's bit pattern; 0 for other t */
/* A scalar kernel argument's bytes, as a parameter of dtype t takes them. */
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
/* v converted to dtype t (narrow floats rounded to nearest even). */
void dtype_scalar_arg(Dtype t, double v, ScalarArg *out);
double dtype_narrow_value(Dtype t, uint32_t bits);  /* the value of t's bit pattern */
double dtype_round_float(Dtype t, double v);        /* v rounded to what float type t holds (f32 too); others: v */

/* ---- tokens (lex.re) ---- */
typedef struct Token {
    Loc loc;
    uint32_t len;      /* bytes of source text */
    Name *name;        /* identifiers */
    int64_t ival;      /* integer literals */
    double fval;       /* float literals */
    Dtype dtype;       /* dtype keywords */
    const char *str;   /* string literals, unescaped */
    uint32_t str_len;
    bool fsuffix;      /* float literal written with a trailing f */
} Token;

typedef struct Lexer {
    Ctx *c;
    const char *cur, *lim, *tok, *marker;
    uint32_t line;
} Lexer;

void lex_init(Lexer *lx, Ctx *c);
int lex_next(Lexer *lx, Token *t);      /* returns a TK_ code (parse.h), 0 at the end */

/* ---- operators (ops.c) ---- */
/* The operators of expressions and assignments, independent of the
 * parser's token codes (which stay in the front end): the parser translates
 * each operator token into one of these. X(ID, spelling). */
#define AST_OPS(X)                                                               \
    /* binary */                                                                 \
    X(ADD, "+") X(SUB, "-") X(MUL, "*") X(DIV, "/") X(MOD, "%")                  \
    X(SHL, "<<") X(SHR, ">>") X(BAND, "&") X(BOR, "|") X(BXOR, "^")              \
    X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=")        \
    X(LAND, "&&") X(LOR, "||")                                                   \
    /* unary */                                                                  \
    X(NEG, "-") X(NOT, "!") X(BNOT, "~")                                         \
    /* assignments: plain, and the compound ones `a op= b` */                   \
    X(ASSIGN, "=") X(ADD_ASSIGN, "+=") X(SUB_ASSIGN, "-=") X(MUL_ASSIGN, "*=")   \
    X(DIV_ASSIGN, "/=")

typedef enum AstOp {
    OP_NONE,
#define X(id, sp) OP_##id,
    AST_OPS(X)
#undef X
    OP_COUNT
} AstOp;

const char *op_spelling(AstOp op);   /* "+", "<<", "+=", ... */
/* The binary operator of compound assignment op (OP_ADD for OP_ADD_ASSIGN);
 * OP_NONE for the plain OP_ASSIGN. */
AstOp op_assign_binary(AstOp op);
/* The integer operators on int64 values, as C computes them: *out is the
 * result and the return true where it is defined, false where it is not:
 * + - * and unary - overflowing, / and % by zero or INT64_MIN / -1, a shift
 * count outside 0..63, a left shift that loses bits. a << b is a * 2^b for
 * negative a too, a >> b of negative a shifts in sign bits; / and % truncate
 * toward zero. Comparisons, && || ! give 0 or 1 (both sides evaluated:
 * short circuits are the caller's). Constant folding, int_value.c and the
 * reference evaluator all compute through these. */
bool int_binop(AstOp op, int64_t a, int64_t b, int64_t *out);
bool int_unop(AstOp op, int64_t a, int64_t *out);

/* ---- random numbers (random.c) ---- */
/* The constants of rand and randn, as exact floats. The device's code
 * (tilec_device.cuh, codegen/llvm_random.c) uses these same values. */
#define RANDOM_UNIT_SCALE 0x1.fffffep-32f /* the largest float s with (2^31 - 1) s < 1 in float */
#define RANDOM_MIN_U1 0x1.ad7f2ap-24f     /* 1e-7: randn's least u1, so log(u1) stays finite */
#define RANDOM_SQRT2 0x1.6a09e6p+0f
#define RANDOM_LN2_HI 0x1.62e4p-1f        /* log 2 in two parts: hi has 15 bits, so e * hi is exact */
#define RANDOM_LN2_LO 0x1.7f7d1cp-20f
#define RANDOM_LOG_C3 0x1.555556p-2f      /* 1/3 ... 1/11: atanh's series */
#define RANDOM_LOG_C5 0x1.99999ap-3f
#define RANDOM_LOG_C7 0x1.24924ap-3f
#define RANDOM_LOG_C9 0x1.c71c72p-4f
#define RANDOM_LOG_C11 0x1.745d18p-4f
#define RANDOM_TWO_PI 0x1.921fb6p+2f
#define RANDOM_COS_C4 0x1.555556p-5f      /* 1/4!, -1/6!, 1/8!, -1/10! */
#define RANDOM_COS_C6 -0x1.6c16c2p-10f
#define RANDOM_COS_C8 0x1.a01a02p-16f
#define RANDOM_COS_C10 -0x1.27e4fcp-22f
#define RANDOM_SIN_C3 -0x1.555556p-3f     /* -1/3!, 1/5!, -1/7!, 1/9!, -1/11! */
#define RANDOM_SIN_C5 0x1.111112p-7f
#define RANDOM_SIN_C7 -0x1.a01a02p-13f
#define RANDOM_SIN_C9 0x1.71de3ap-19f
#define RANDOM_SIN_C11 -0x1.ae6456p-26f
/* Ten rounds of Philox-4x32 on counter ctr with key (key0, key1). */
void philox4x32_10(uint32_t key0, uint32_t key1, const uint32_t ctr[4], uint32_t out[4]);
uint32_t random_int(uint64_t seed, uint64_t offset);    /* randint */
float random_uniform(uint64_t seed, uint64_t offset);   /* rand: [0, 1) */
float random_normal(uint64_t seed, uint64_t offset);    /* randn */
/* Their steps, for tests: a word to [0, 1), log(u) of u in (0, 1],
 * cos(2 pi u) of u in [0, 1]. */
float random_unit(uint32_t word);
float random_log(float u);
float random_cos2pi(float u);

/* ---- syntax tree (ast.c) ---- */
#define NODE_KINDS(X)                                                        \
    /* expressions */                                                        \
    X(INT) X(FLOAT) X(BOOL) X(INF) X(STR) X(NAME) X(DTYPE) X(INDEX) X(CALL)   \
    X(NAMED_ARG) X(LIST) X(SLICE) X(UNARY) X(BINARY) X(COND)                 \
    /* statements */                                                         \
    X(LET) X(VAR) X(ASSIGN) X(EXPR_STMT) X(FOR) X(IF) X(BLOCK)               \
    /* declarations */                                                       \
    X(PARAM) X(BIND) X(TUNABLE) X(WHERE) X(TUNE) X(TUNE_FOR) X(DYNAMIC) X(INPUTS) X(GRID)  \
    X(THREADS)                                                               \
    X(FLOPS) X(BYTES) X(REFERENCE) X(KERNEL) X(CONST) X(PROGRAM)

typedef enum NodeKind {
#define X(k) N_##k,
    NODE_KINDS(X)
#undef X
    N_COUNT
} NodeKind;

typedef enum ParamMode { MODE_IN, MODE_OUT, MODE_INOUT } ParamMode;

typedef struct Node Node;
typedef struct Sym Sym;

typedef struct NodeList {
    Node **items;
    int len, cap;
} NodeList;

/* A tagged union; the comment at each member says which kinds use it. */
struct Node {
    NodeKind kind;
    Loc loc;
    int depth;          /* height of the subtree, bounded by LIMIT_EXPR_DEPTH */
    /* Filled in by sema for expressions: */
    Dtype dtype;        /* scalar type (DT_NONE: not a scalar) */
    Sym *sym;           /* NAME/INDEX: the symbol; LET/VAR: the one declared */
    bool is_const;      /* a compile-time constant after specialisation */
    bool const_float;   /* the constant's value is cval.f (else cval.i) */
    union { int64_t i; double f; } cval;
    /* Tile-operation operands: the extent of the region in each dimension
     * of its tensor or buffer (1 for plain indices), set by sema. */
    int64_t *region_ext;
    union {
        int64_t ival;                                         /* INT */
        struct { double v; bool fsuffix; } fval;              /* FLOAT */
        bool bval;                                            /* BOOL */
        struct { const char *s; uint32_t len; } str;          /* STR */
        Name *name;                                           /* NAME */
        Dtype dt;                                             /* DTYPE */
        struct { Name *name; Loc name_loc; NodeList idx; } index; /* INDEX */
        /* CALL: `f(args)`, `f32(x)` (cast: dt set, name NULL), and the
         * reference's reductions `sum(k, l: body)` (reduce_vars set). */
        struct {
            Name *name;
            Dtype cast;
            NodeList args;
            NodeList reduce_vars; /* NAME nodes before the ':' */
            Node *body;           /* after the ':' */
        } call;
        struct { Name *name; Node *value; } named;            /* NAMED_ARG, BIND (in DYNAMIC: value the divisor or NULL) */
        NodeList list;                                        /* LIST, BLOCK, REFERENCE, PROGRAM, WHERE, TUNE, DYNAMIC */
        struct { Node *lo, *hi; } slice;                      /* SLICE `lo : hi` */
        struct { AstOp op; Node *a, *b; } op;                 /* UNARY (a), BINARY */
        struct { Node *c, *a, *b; } cond;                     /* COND */
        /* LET, VAR, CONST: name, declared dtype (VAR), value (may be NULL) */
        struct { Name *name; Dtype dt; Node *value; } decl;
        struct { AstOp op; Node *lhs, *rhs; } assign;         /* ASSIGN: OP_ASSIGN, OP_ADD_ASSIGN, ... */
        Node *expr;                                           /* EXPR_STMT, THREADS, FLOPS, BYTES */
        struct { NodeList vars; Node *iter; Node *body; } loop; /* FOR */
        struct { Node *c, *then, *els; } ifs;                 /* IF */
        struct { ParamMode mode; Name *name; Dtype dt; NodeList dims; bool has_dims; } param; /* PARAM */
        struct { Name *name; Node *value; NodeList choices; bool has_choices; } tunable; /* TUNABLE */
        struct { Name *arch; Loc arch_loc; NodeList binds; } tune_for; /* TUNE_FOR `tune sm_90a: X = v, ...` (BINDs) */
        struct { NodeList exprs; NodeList names; } grid;      /* GRID */
        struct { Name *name; NodeList params; NodeList clauses; Node *body; Node *ref; bool pipeline; } kernel; /* KERNEL (and pipelines) */
    } u;
};

Node *node_new(Ctx *c, NodeKind k, Loc loc);
/* Whether the compile-time constant e (is_const) is non-zero: true. */
bool node_const_true(const Node *e);
/* int_value.c: the value of integer expression e (NULL: 0) where `name`
 * gives each name it meets either its value or (in *expr) an expression to
 * evaluate instead, and returns false for a name without one; false too
 * where e is anything else, would overflow, or visits more than *budget
 * nodes. */
typedef bool (*IntNameFn)(void *ctx, const Sym *sym, int64_t *value, const Node **expr);
bool node_int_value(const Node *e, IntNameFn name, void *ctx, int *budget, int64_t *out);
/* Whether checked expression e is provably a multiple of m > 0 (NULL
 * counts as 0): constants, lets of such values, dynamic sizes by their
 * promise, products with such a factor, sums and differences of such
 * terms, quotients by a constant c of multiples of m * c, and left shifts
 * by a constant. */
bool expr_multiple_of(const Node *e, int64_t m);
void list_push(Ctx *c, NodeList *l, Node *n);
/* Records n as a child of parent for the depth limit; reports once when
 * the tree gets deeper than LIMIT_EXPR_DEPTH. */
void node_child(Ctx *c, Node *parent, Node *child);
const char *node_kind_name(NodeKind k);

/* ---- parser.c (driving the Lemon grammar parse.y) ---- */
/* Lexes and parses the source in c->src; returns the program (possibly
 * partial when there were errors: check c->errors). */
Node *fe_parse(Ctx *c);

/* ---- ast_print.c ---- */
void ast_print(FILE *out, const Node *program);
void expr_print(FILE *out, const Node *e);

/* ---- symbols and sema (sema*.c) ---- */

/* The `inputs` clause (LANGUAGE.md §8): how --run fills one tensor. Row
 * distributions work along the last dimension. */
typedef enum InputDist {
    INPUT_INTEGERS,    /* integers(lo, hi): uniform in [lo, hi) */
    INPUT_PERMUTATION, /* permutation(n): each row the first elements of a random permutation of 0 .. n-1 */
    INPUT_OFFSETS,     /* offsets(total): each row non-decreasing from 0 to total, the last element total */
    INPUT_UNIFORM,     /* uniform(lo, hi): reals in [lo, hi) */
    INPUT_NORMAL,      /* normal(mean, std) */
    INPUT_CONSTANT,    /* constant(v) */
} InputDist;
typedef struct InputSpec {
    InputDist dist;
    int64_t n[2];      /* the integer arguments: integers' lo and hi, permutation's n, offsets' total */
    double x[2];       /* the real ones: uniform's lo and hi, normal's mean and std, constant's value */
    bool known;        /* false where an argument uses a dynamic size without a value (no run to fill) */
    Loc loc;
} InputSpec;
const char *input_dist_name(InputDist d);
typedef enum SymKind {
    SYM_CONST,      /* file-level const */
    SYM_SIZE,       /* size variable named in a tensor's dims */
    SYM_SCALAR,     /* scalar parameter (specialised to a value) */
    SYM_TENSOR,     /* tensor parameter in global memory */
    SYM_WHERE,      /* further compile-time constant from `where` */
    SYM_TUNE,       /* tunable */
    SYM_BLOCK_IDX,  /* grid index bound by `as (...)` */
    SYM_LET,        /* immutable scalar */
    SYM_BUFFER,     /* alloc_shared / alloc_fragment / alloc_local */
    SYM_VAR,        /* mutable per-thread scalar */
    SYM_LOOP,       /* loop variable */
    SYM_REF_INDEX,  /* reference: index variable (free or reduced) */
    SYM_REF_TEMP,   /* reference: temporary tensor */
    SYM_REF_LET,    /* reference: let scalar */
} SymKind;

typedef enum MemScope { SCOPE_GLOBAL, SCOPE_SHARED, SCOPE_FRAGMENT, SCOPE_LOCAL } MemScope;
typedef enum LoopKind { LOOP_RANGE, LOOP_PIPELINED, LOOP_PARALLEL, LOOP_UNROLL } LoopKind;

enum { MAX_RANK = 8 };

struct Sym {
    SymKind kind;
    Name *name;
    Loc loc;
    Node *decl;
    Sym *shadowed;      /* the name's previous binding, restored at scope exit */
    int scope_depth;
    Dtype dtype;        /* element type of tensors/buffers; type of scalars */
    /* Compile-time value (CONST, SIZE, SCALAR, WHERE, TUNE, constant LET). */
    bool has_value;
    bool value_float;
    union { int64_t i; double f; } value;
    Node *value_expr;   /* where it comes from, for evaluation and errors */
    int eval_state;     /* 0 new, 1 evaluating (cycle check), 2 done */
    bool overridden;    /* set from --set */
    bool target_default; /* TUNE: its default from the target's `tune TARGET:` clause */
    /* Sizes named in `dynamic`: kernel arguments read from the tensors'
     * shapes at launch (the value above only serves tilec's own runs and
     * the reference), promised to be multiples of divisor (1: no promise). */
    bool dynamic;
    int64_t divisor;
    /* Tensors, buffers and reference temporaries. */
    ParamMode mode;
    MemScope scope;
    int rank;
    Sym *dim_sym[MAX_RANK];  /* tensors: the size variable of each dim, or NULL */
    int64_t shape[MAX_RANK]; /* the extent of each dim after specialisation */
    bool ref_defined;        /* reference: defined by a statement so far */
    bool body_written;       /* out tensors: a statement of the kernel body so far writes it */
    int parallel_depth;      /* vars: the parallel loops around the declaration; parallel loop variables: those around their body */
    /* Reference index variables: the dimension that gives the range. */
    bool range_known;        /* parallel and unroll loop variables too */
    int64_t range;           /* values range_lo .. range_lo + range - 1 (both ends reached) */
    int64_t range_lo;        /* loop variables: the least value (range(a, b)'s a); else 0 */
    int range_guard;         /* loop variables: Sema.guarded where the loop starts */
    Sym *range_dim_sym;      /* size variable of that dim (NULL: a literal) */
    Loc range_loc;
    bool used;
    bool broken;             /* a buffer whose declaration had errors: its uses are not checked again */
    const char *cname;       /* a symbol of tilec's own making (the IR's): its name in the generated code */
    const InputSpec *input;  /* tensors: how --run fills it (the `inputs` clause), or NULL: --supply */
};

/* A `--set NAME=VALUE` override. */
typedef struct Override {
    const char *name;
    bool is_float;
    bool is_bool;         /* true or false: i is 1 or 0 */
    int64_t i;
    double f;
    bool used;
    const char *invalid;  /* set by sema: why the value cannot be used */
    /* a pipeline's value passed to a stage by name: it sets only a `where`
     * constant of the stage (sizes come from the shapes passed, tunables
     * are the stage's own) */
    bool where_only;
} Override;

/* One stage of a pipeline: a kernel of the file, its parameters bound by
 * position to the pipeline's tensors, scratch buffers and scalars. */
typedef struct PipelineStage {
    Node *call;             /* the statement, for locations */
    Name *kernel;           /* the kernel it runs */
    int nargs;              /* the kernel's parameters */
    Sym **tensor;           /* per parameter: the pipeline's tensor or scratch buffer; NULL for a scalar */
    Node **value;           /* per parameter: a scalar's value (a constant or a scalar of the pipeline) */
    Override *sizes;        /* the kernel's size variables, from the shapes of the tensors passed */
    int nsizes;
} PipelineStage;

/* What sema knows about one kernel after checking and specialisation; the
 * IR builder starts from this. */
typedef struct KernelInfo {
    Node *node;
    Name *name;
    PtrVec params;      /* Sym* in declaration order (tensors and scalars) */
    PtrVec values;      /* Sym* of every size, scalar, where and tune value */
    PtrVec block_idx;   /* Sym* of bx, by, bz */
    int64_t grid[3];    /* -1 when not a compile-time constant (it uses a dynamic size) */
    Node *grid_expr[3]; /* the grid's expressions (NULL past grid_rank) */
    int grid_rank;
    PtrVec dynamic;     /* Sym* of the dynamic sizes, in the order of the `dynamic` clause */
    int64_t threads;
    PtrVec buffers;     /* Sym* of alloc_* buffers */
    bool has_reference;
    /* The first atomic_add into a floating-point tensor, else NULL: the
     * order the additions land in changes the last bits of the sums, so
     * runs on the same inputs may differ (the profiler then checks them
     * against the verification tolerance, not bitwise). */
    const Node *float_atomic;
    /* A pipeline (LANGUAGE.md §8): its params, values and reference as a
     * kernel's, no body of its own but stages. */
    bool pipeline;
    PtrVec scratch;     /* Sym* of its alloc_global buffers (global tensors tilec owns, mode inout) */
    PtrVec stages;      /* PipelineStage* in order */
    PtrVec ref_temps;   /* Sym* of reference temporaries, in order */
} KernelInfo;

typedef struct SemaOptions {
    Override *overrides;
    int n_overrides;
    const char *only_kernel;   /* --kernel, or NULL for all */
    bool specialise;           /* --specialise: dynamic sizes compiled in at their values */
    const char *arch;          /* the target compiled for: its `tune sm_XX:` defaults apply (NULL: none do) */
} SemaOptions;

/* Checks the program, specialising each kernel with the overrides (marking
 * each used, or invalid with why, afresh). Returns the checked kernels
 * (only the selected one with --kernel); errors go to c's diagnostics. */
PtrVec sema_check(Ctx *c, Node *program, const SemaOptions *opt);

#endif
