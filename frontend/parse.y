/* parse.y - the Lemon grammar of `.tile` programs (LANGUAGE.md §3).
 *
 * Statements are parsed loosely (`expr = expr;`, `expr;`) and sema decides
 * what may stand where; that keeps the grammar LALR(1) and lets errors say
 * "cannot assign to ..." instead of "syntax error". */
%name TileParse
%token_prefix TK_
%token_type {Token}
%default_type {Node *}
%extra_argument {ParseState *ps}
%stack_size 20000
%start_symbol program

%include {
#include <assert.h>
#include "frontend.h"
#include "parse_state.h"
static int expected_tokens(void *parser, int *out, int max);
}

%syntax_error {
    int expected[YYNTOKEN];
    int n = expected_tokens(yypParser, expected, YYNTOKEN);
    parse_syntax_error(ps, yymajor, &TOKEN, expected, n);
}

/* The tokens the parser could take in its current state, for "expected
 * ';'" in messages. */
%code {
static int expected_tokens(void *parser, int *out, int max) {
    yyParser *p = parser;
    int st = p->yytos->stateno, n = 0;
    if (st > YY_MAX_SHIFT) return 0;
    for (int t = 1; t < YYNTOKEN; t++) {
        if (t == YYERRORSYMBOL) continue;
        int i = yy_shift_ofst[st] + t;
        if (i < 0 || i >= (int)YY_NLOOKAHEAD || yy_lookahead[i] != t) continue;
        if (yy_action[i] == YY_ERROR_ACTION) continue;
        if (n == max) return max + 1;
        out[n++] = t;
    }
    return n;
}
}
%stack_overflow {
    parse_stack_overflow(ps);
}

/* Token order fixes the TK_ codes; the lexer and parser.c use them. The
 * actions translate operator tokens into the AST's own AstOp. */
%token IDENT INT FLOAT STRING DTYPE.
%token KERNEL CONST LET VAR OUT INOUT WHERE TUNE IN GRID AS THREADS FOR IF ELSE
       REFERENCE FLOPS BYTES TRUE FALSE INF DYNAMIC INPUTS PIPELINE.
%token LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA SEMI.
%token ASSIGN PLUSEQ MINUSEQ STAREQ SLASHEQ.

/* C precedence, lowest first. */
%right QUESTION COLON.
%left OROR.
%left ANDAND.
%left PIPE.
%left CARET.
%left AMP.
%left EQ NE.
%left LT LE GT GE.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right BANG TILDE UMINUS.

program ::= items.

items ::= .
items ::= items item.

item ::= CONST(T) IDENT(N) ASSIGN expr(E) SEMI. {
    Node *n = node_new(ps->c, N_CONST, T.loc);
    n->u.decl.name = N.name; n->u.decl.value = E; node_child(ps->c, n, E);
    add_item(ps, n);
}
item ::= kernel(K). { add_item(ps, K); }
/* pipeline NAME(params) clauses { let s = alloc_global(...); stage(args); ... }:
 * a kernel node whose body sema checks as a pipeline's */
item ::= PIPELINE(T) IDENT(N) LPAREN params(P) RPAREN clauses(C) block(B) ref_opt(R). {
    Node *K = node_new(ps->c, N_KERNEL, T.loc);
    K->u.kernel.name = N.name;
    K->u.kernel.params = P->u.list; K->u.kernel.clauses = C->u.list;
    K->u.kernel.body = B; K->u.kernel.ref = R;
    K->u.kernel.pipeline = true;
    add_item(ps, K);
}
item ::= error SEMI.
item ::= error RBRACE.

kernel(K) ::= KERNEL(T) IDENT(N) LPAREN params(P) RPAREN clauses(C) block(B) ref_opt(R). {
    K = node_new(ps->c, N_KERNEL, T.loc);
    K->u.kernel.name = N.name;
    K->u.kernel.params = P->u.list; K->u.kernel.clauses = C->u.list;
    K->u.kernel.body = B; K->u.kernel.ref = R;
}

params(L) ::= . { L = node_new(ps->c, N_LIST, ps->here); }
params(L) ::= param_list(A) comma_opt. { L = A; }
param_list(L) ::= param(P). { L = node_new(ps->c, N_LIST, P->loc); list_push(ps->c, &L->u.list, P); }
param_list(L) ::= param_list(A) COMMA param(P). { L = A; list_push(ps->c, &L->u.list, P); }

param(P) ::= mode(M) IDENT(N) COLON DTYPE(D) dims(S). {
    P = node_new(ps->c, N_PARAM, N.loc);
    P->u.param.mode = (ParamMode)M.ival; P->u.param.name = N.name; P->u.param.dt = D.dtype;
    if (S) { P->u.param.dims = S->u.list; P->u.param.has_dims = true; }
}
%type mode {Token}
mode(M) ::= . { M.ival = MODE_IN; }
mode(M) ::= OUT. { M.ival = MODE_OUT; }
mode(M) ::= INOUT. { M.ival = MODE_INOUT; }

dims(S) ::= . { S = NULL; }
dims(S) ::= LBRACKET dim_list(L) comma_opt RBRACKET. { S = L; }
dim_list(L) ::= dim(D). { L = node_new(ps->c, N_LIST, D->loc); list_push(ps->c, &L->u.list, D); }
dim_list(L) ::= dim_list(A) COMMA dim(D). { L = A; list_push(ps->c, &L->u.list, D); }
dim(D) ::= IDENT(N). { D = node_new(ps->c, N_NAME, N.loc); D->u.name = N.name; }
dim(D) ::= INT(I). { D = node_new(ps->c, N_INT, I.loc); D->u.ival = I.ival; }

comma_opt ::= .
comma_opt ::= COMMA.

clauses(L) ::= . { L = node_new(ps->c, N_LIST, ps->here); }
clauses(L) ::= clauses(A) clause(C). { L = A; list_push(ps->c, &L->u.list, C); }

clause(C) ::= WHERE(T) bind_list(L) comma_opt. { C = L; C->kind = N_WHERE; C->loc = T.loc; }
clause(C) ::= TUNE(T) tunable_list(L) comma_opt. { C = L; C->kind = N_TUNE; C->loc = T.loc; }
/* tune sm_90a: BM = 192, BN = 96: other defaults of tunables on one target */
clause(C) ::= TUNE(T) IDENT(A) COLON bind_list(L) comma_opt. {
    C = node_new(ps->c, N_TUNE_FOR, T.loc); C->u.tune_for.arch = A.name; C->u.tune_for.arch_loc = A.loc;
    C->u.tune_for.binds = L->u.list;
    for (int i = 0; i < L->u.list.len; i++) node_child(ps->c, C, L->u.list.items[i]);
}
clause(C) ::= GRID(T) LPAREN expr_list(E) comma_opt RPAREN AS LPAREN name_list(N) comma_opt RPAREN. {
    C = node_new(ps->c, N_GRID, T.loc);
    C->u.grid.exprs = E->u.list; C->u.grid.names = N->u.list;
    for (int i = 0; i < E->u.list.len; i++) node_child(ps->c, C, E->u.list.items[i]);
}
/* dynamic M, N, K % 64: sizes passed at launch (a BIND each, value the
 * promised divisor or NULL) */
clause(C) ::= DYNAMIC(T) dynsize_list(L) comma_opt. { C = L; C->kind = N_DYNAMIC; C->loc = T.loc; }
/* inputs ids = integers(0, E), ...: how --run fills those tensors */
clause(C) ::= INPUTS(T) bind_list(L) comma_opt. { C = L; C->kind = N_INPUTS; C->loc = T.loc; }
clause(C) ::= THREADS(T) expr(E). { C = node_new(ps->c, N_THREADS, T.loc); C->u.expr = E; node_child(ps->c, C, E); }
clause(C) ::= FLOPS(T) expr(E). { C = node_new(ps->c, N_FLOPS, T.loc); C->u.expr = E; node_child(ps->c, C, E); }
clause(C) ::= BYTES(T) expr(E). { C = node_new(ps->c, N_BYTES, T.loc); C->u.expr = E; node_child(ps->c, C, E); }

bind_list(L) ::= bind(B). { L = node_new(ps->c, N_LIST, B->loc); list_push(ps->c, &L->u.list, B); }
bind_list(L) ::= bind_list(A) COMMA bind(B). { L = A; list_push(ps->c, &L->u.list, B); }
bind(B) ::= IDENT(N) ASSIGN expr(E). {
    B = node_new(ps->c, N_BIND, N.loc); B->u.named.name = N.name; B->u.named.value = E; node_child(ps->c, B, E);
}
dynsize_list(L) ::= dynsize(B). { L = node_new(ps->c, N_LIST, B->loc); list_push(ps->c, &L->u.list, B); }
dynsize_list(L) ::= dynsize_list(A) COMMA dynsize(B). { L = A; list_push(ps->c, &L->u.list, B); }
dynsize(B) ::= IDENT(N). { B = node_new(ps->c, N_BIND, N.loc); B->u.named.name = N.name; }
dynsize(B) ::= IDENT(N) PERCENT INT(I). {
    B = node_new(ps->c, N_BIND, N.loc); B->u.named.name = N.name;
    Node *d = node_new(ps->c, N_INT, I.loc); d->u.ival = I.ival;
    B->u.named.value = d; node_child(ps->c, B, d);
}
tunable_list(L) ::= tunable(B). { L = node_new(ps->c, N_LIST, B->loc); list_push(ps->c, &L->u.list, B); }
tunable_list(L) ::= tunable_list(A) COMMA tunable(B). { L = A; list_push(ps->c, &L->u.list, B); }
tunable(B) ::= IDENT(N) ASSIGN expr(E). {
    B = node_new(ps->c, N_TUNABLE, N.loc); B->u.tunable.name = N.name; B->u.tunable.value = E; node_child(ps->c, B, E);
}
tunable(B) ::= IDENT(N) ASSIGN expr(E) IN LBRACKET expr_list(L) comma_opt RBRACKET. {
    B = node_new(ps->c, N_TUNABLE, N.loc); B->u.tunable.name = N.name; B->u.tunable.value = E; node_child(ps->c, B, E);
    B->u.tunable.choices = L->u.list; B->u.tunable.has_choices = true;
}

name_list(L) ::= IDENT(N). {
    L = node_new(ps->c, N_LIST, N.loc);
    Node *n = node_new(ps->c, N_NAME, N.loc); n->u.name = N.name; list_push(ps->c, &L->u.list, n);
}
name_list(L) ::= name_list(A) COMMA IDENT(N). {
    L = A; Node *n = node_new(ps->c, N_NAME, N.loc); n->u.name = N.name; list_push(ps->c, &L->u.list, n);
}

expr_list(L) ::= expr(E). { L = node_new(ps->c, N_LIST, E->loc); list_push(ps->c, &L->u.list, E); }
expr_list(L) ::= expr_list(A) COMMA expr(E). { L = A; list_push(ps->c, &L->u.list, E); }

ref_opt(R) ::= . { R = NULL; }
ref_opt(R) ::= REFERENCE(T) LBRACE stmts(S) RBRACE. { R = S; R->kind = N_REFERENCE; R->loc = T.loc; }

block(B) ::= LBRACE(T) stmts(S) RBRACE. { B = S; B->loc = T.loc; }
stmts(L) ::= . { L = node_new(ps->c, N_BLOCK, ps->here); }
stmts(L) ::= stmts(A) stmt(S). { L = A; if (S) { list_push(ps->c, &L->u.list, S); node_child(ps->c, L, S); } }

stmt(S) ::= LET(T) IDENT(N) ASSIGN expr(E) SEMI. {
    S = node_new(ps->c, N_LET, T.loc); S->u.decl.name = N.name; S->u.decl.value = E; node_child(ps->c, S, E);
}
stmt(S) ::= VAR(T) IDENT(N) COLON DTYPE(D) SEMI. {
    S = node_new(ps->c, N_VAR, T.loc); S->u.decl.name = N.name; S->u.decl.dt = D.dtype;
}
stmt(S) ::= VAR(T) IDENT(N) COLON DTYPE(D) ASSIGN expr(E) SEMI. {
    S = node_new(ps->c, N_VAR, T.loc); S->u.decl.name = N.name; S->u.decl.dt = D.dtype;
    S->u.decl.value = E; node_child(ps->c, S, E);
}
stmt(S) ::= expr(L) assign_op(O) expr(R) SEMI. {
    S = node_new(ps->c, N_ASSIGN, O.loc); S->u.assign.op = (AstOp)O.ival;
    S->u.assign.lhs = L; S->u.assign.rhs = R; node_child(ps->c, S, L); node_child(ps->c, S, R);
}
stmt(S) ::= expr(E) SEMI. { S = node_new(ps->c, N_EXPR_STMT, E->loc); S->u.expr = E; node_child(ps->c, S, E); }
stmt(S) ::= FOR(T) IDENT(N) IN expr(E) block(B). {
    S = node_new(ps->c, N_FOR, T.loc);
    Node *v = node_new(ps->c, N_NAME, N.loc); v->u.name = N.name; list_push(ps->c, &S->u.loop.vars, v);
    S->u.loop.iter = E; S->u.loop.body = B; node_child(ps->c, S, E); node_child(ps->c, S, B);
}
stmt(S) ::= FOR(T) LPAREN name_list(V) comma_opt RPAREN IN expr(E) block(B). {
    S = node_new(ps->c, N_FOR, T.loc); S->u.loop.vars = V->u.list;
    S->u.loop.iter = E; S->u.loop.body = B; node_child(ps->c, S, E); node_child(ps->c, S, B);
}
stmt(S) ::= if_stmt(I). { S = I; }
stmt(S) ::= block(B). { S = B; }
stmt(S) ::= error SEMI. { S = NULL; }

if_stmt(S) ::= IF(T) LPAREN expr(C) RPAREN block(B). {
    S = node_new(ps->c, N_IF, T.loc); S->u.ifs.c = C; S->u.ifs.then = B; node_child(ps->c, S, C); node_child(ps->c, S, B);
}
if_stmt(S) ::= IF(T) LPAREN expr(C) RPAREN block(B) ELSE block(E). {
    S = node_new(ps->c, N_IF, T.loc); S->u.ifs.c = C; S->u.ifs.then = B; S->u.ifs.els = E;
    node_child(ps->c, S, C); node_child(ps->c, S, B); node_child(ps->c, S, E);
}
if_stmt(S) ::= IF(T) LPAREN expr(C) RPAREN block(B) ELSE if_stmt(E). {
    S = node_new(ps->c, N_IF, T.loc); S->u.ifs.c = C; S->u.ifs.then = B; S->u.ifs.els = E;
    node_child(ps->c, S, C); node_child(ps->c, S, B); node_child(ps->c, S, E);
}

%type assign_op {Token}
assign_op(O) ::= ASSIGN(T). { O = T; O.ival = OP_ASSIGN; }
assign_op(O) ::= PLUSEQ(T). { O = T; O.ival = OP_ADD_ASSIGN; }
assign_op(O) ::= MINUSEQ(T). { O = T; O.ival = OP_SUB_ASSIGN; }
assign_op(O) ::= STAREQ(T). { O = T; O.ival = OP_MUL_ASSIGN; }
assign_op(O) ::= SLASHEQ(T). { O = T; O.ival = OP_DIV_ASSIGN; }

/* ---- expressions ---- */
expr(E) ::= expr(C) QUESTION(T) expr(A) COLON expr(B). {
    E = node_new(ps->c, N_COND, T.loc); E->u.cond.c = C; E->u.cond.a = A; E->u.cond.b = B;
    node_child(ps->c, E, C); node_child(ps->c, E, A); node_child(ps->c, E, B);
}
expr(E) ::= expr(A) OROR(T) expr(B). { E = binary(ps, OP_LOR, T.loc, A, B); }
expr(E) ::= expr(A) ANDAND(T) expr(B). { E = binary(ps, OP_LAND, T.loc, A, B); }
expr(E) ::= expr(A) PIPE(T) expr(B). { E = binary(ps, OP_BOR, T.loc, A, B); }
expr(E) ::= expr(A) CARET(T) expr(B). { E = binary(ps, OP_BXOR, T.loc, A, B); }
expr(E) ::= expr(A) AMP(T) expr(B). { E = binary(ps, OP_BAND, T.loc, A, B); }
expr(E) ::= expr(A) EQ(T) expr(B). { E = binary(ps, OP_EQ, T.loc, A, B); }
expr(E) ::= expr(A) NE(T) expr(B). { E = binary(ps, OP_NE, T.loc, A, B); }
expr(E) ::= expr(A) LT(T) expr(B). { E = binary(ps, OP_LT, T.loc, A, B); }
expr(E) ::= expr(A) LE(T) expr(B). { E = binary(ps, OP_LE, T.loc, A, B); }
expr(E) ::= expr(A) GT(T) expr(B). { E = binary(ps, OP_GT, T.loc, A, B); }
expr(E) ::= expr(A) GE(T) expr(B). { E = binary(ps, OP_GE, T.loc, A, B); }
expr(E) ::= expr(A) SHL(T) expr(B). { E = binary(ps, OP_SHL, T.loc, A, B); }
expr(E) ::= expr(A) SHR(T) expr(B). { E = binary(ps, OP_SHR, T.loc, A, B); }
expr(E) ::= expr(A) PLUS(T) expr(B). { E = binary(ps, OP_ADD, T.loc, A, B); }
expr(E) ::= expr(A) MINUS(T) expr(B). { E = binary(ps, OP_SUB, T.loc, A, B); }
expr(E) ::= expr(A) STAR(T) expr(B). { E = binary(ps, OP_MUL, T.loc, A, B); }
expr(E) ::= expr(A) SLASH(T) expr(B). { E = binary(ps, OP_DIV, T.loc, A, B); }
expr(E) ::= expr(A) PERCENT(T) expr(B). { E = binary(ps, OP_MOD, T.loc, A, B); }
expr(E) ::= MINUS(T) expr(A). [UMINUS] { E = unary(ps, OP_NEG, T.loc, A); }
expr(E) ::= BANG(T) expr(A). { E = unary(ps, OP_NOT, T.loc, A); }
expr(E) ::= TILDE(T) expr(A). { E = unary(ps, OP_BNOT, T.loc, A); }
expr(E) ::= LPAREN expr(A) RPAREN. { E = A; }
expr(E) ::= IDENT(N) LPAREN args(A) RPAREN. {
    E = A; E->loc = N.loc; E->u.call.name = N.name;
}
expr(E) ::= DTYPE(D) LPAREN args(A) RPAREN. {
    E = A; E->loc = D.loc; E->u.call.cast = D.dtype;
}
expr(E) ::= IDENT(N) LBRACKET index_list(L) comma_opt RBRACKET. {
    E = node_new(ps->c, N_INDEX, N.loc); E->u.index.name = N.name; E->u.index.name_loc = N.loc;
    E->u.index.idx = L->u.list;
    for (int i = 0; i < L->u.list.len; i++) node_child(ps->c, E, L->u.list.items[i]);
}
expr(E) ::= IDENT(N). { E = node_new(ps->c, N_NAME, N.loc); E->u.name = N.name; }
expr(E) ::= INT(I). { E = node_new(ps->c, N_INT, I.loc); E->u.ival = I.ival; }
expr(E) ::= FLOAT(F). { E = node_new(ps->c, N_FLOAT, F.loc); E->u.fval.v = F.fval; E->u.fval.fsuffix = F.fsuffix; }
expr(E) ::= STRING(S). { E = node_new(ps->c, N_STR, S.loc); E->u.str.s = S.str; E->u.str.len = S.str_len; }
expr(E) ::= TRUE(T). { E = node_new(ps->c, N_BOOL, T.loc); E->u.bval = true; }
expr(E) ::= FALSE(T). { E = node_new(ps->c, N_BOOL, T.loc); E->u.bval = false; }
expr(E) ::= INF(T). { E = node_new(ps->c, N_INF, T.loc); }
expr(E) ::= DTYPE(D). { E = node_new(ps->c, N_DTYPE, D.loc); E->u.dt = D.dtype; }

index_list(L) ::= index(I). { L = node_new(ps->c, N_LIST, I->loc); list_push(ps->c, &L->u.list, I); }
index_list(L) ::= index_list(A) COMMA index(I). { L = A; list_push(ps->c, &L->u.list, I); }
index(I) ::= expr(E). { I = E; }
index(I) ::= expr(A) COLON(T) expr(B). {
    I = node_new(ps->c, N_SLICE, T.loc); I->u.slice.lo = A; I->u.slice.hi = B;
    node_child(ps->c, I, A); node_child(ps->c, I, B);
}

/* Call arguments; `sum(k, l: body)` is a reduction: the names before the
 * colon parse as ordinary arguments and sema checks they are names. */
args(A) ::= . { A = node_new(ps->c, N_CALL, ps->here); }
args(A) ::= arg_list(L) comma_opt. { A = L; }
args(A) ::= arg_list(L) comma_opt COLON(T) expr(B). {
    A = L; A->u.call.reduce_vars = A->u.call.args; A->u.call.args = (NodeList){0};
    A->u.call.body = B; node_child(ps->c, A, B); (void)T;
}
arg_list(L) ::= arg(X). { L = node_new(ps->c, N_CALL, X->loc); list_push(ps->c, &L->u.call.args, X); node_child(ps->c, L, X); }
arg_list(L) ::= arg_list(A) COMMA arg(X). { L = A; list_push(ps->c, &L->u.call.args, X); node_child(ps->c, L, X); }
arg(X) ::= expr(E). { X = E; }
arg(X) ::= IDENT(N) ASSIGN expr(E). {
    X = node_new(ps->c, N_NAMED_ARG, N.loc); X->u.named.name = N.name; X->u.named.value = E; node_child(ps->c, X, E);
}
arg(X) ::= LBRACKET(T) expr_list(L) comma_opt RBRACKET. {
    X = L; X->kind = N_LIST; X->loc = T.loc;
    for (int i = 0; i < L->u.list.len; i++) node_child(ps->c, X, L->u.list.items[i]);
}
