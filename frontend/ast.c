/* ast.c - building syntax tree nodes. */
#include "frontend.h"
#include "parse.h"

static const char *kind_names[N_COUNT] = {
#define X(k) #k,
    NODE_KINDS(X)
#undef X
};

const char *node_kind_name(NodeKind k) { return kind_names[k]; }

Node *node_new(Ctx *c, NodeKind k, Loc loc) {
    Node *n = arena_alloc(&c->arena, sizeof *n);
    n->kind = k;
    n->loc = loc;
    n->depth = 1;
    return n;
}

bool node_const_true(const Node *e) { return e->const_float ? e->cval.f != 0 : e->cval.i != 0; }

void list_push(Ctx *c, NodeList *l, Node *n) {
    vec_push(&c->arena, (PtrVec *)l, n);
}

void node_child(Ctx *c, Node *parent, Node *child) {
    if (!child || child->depth < parent->depth) return;
    parent->depth = child->depth + 1;
    /* Every later stage walks the tree recursively; refusing very deep
     * trees here keeps them within the C stack. Report only at the
     * crossing, not again for every ancestor. */
    if (parent->depth == LIMIT_EXPR_DEPTH + 1)
        diag_error(c, child->loc,
                   "expression nested too deeply (more than %d levels; each operator of a chain such as a + b + c "
                   "is one): split it with lets",
                   LIMIT_EXPR_DEPTH);
}

const char *op_spelling(int tk) {
    switch (tk) {
    case TK_OROR: return "||";
    case TK_ANDAND: return "&&";
    case TK_PIPE: return "|";
    case TK_CARET: return "^";
    case TK_AMP: return "&";
    case TK_EQ: return "==";
    case TK_NE: return "!=";
    case TK_LT: return "<";
    case TK_LE: return "<=";
    case TK_GT: return ">";
    case TK_GE: return ">=";
    case TK_SHL: return "<<";
    case TK_SHR: return ">>";
    case TK_PLUS: return "+";
    case TK_MINUS: return "-";
    case TK_STAR: return "*";
    case TK_SLASH: return "/";
    case TK_PERCENT: return "%";
    case TK_BANG: return "!";
    case TK_TILDE: return "~";
    case TK_ASSIGN: return "=";
    case TK_PLUSEQ: return "+=";
    case TK_MINUSEQ: return "-=";
    case TK_STAREQ: return "*=";
    case TK_SLASHEQ: return "/=";
    default: return "?";
    }
}

const char *token_describe(int code) {
    switch (code) {
    case 0: return "end of file";
    case TK_IDENT: return "identifier";
    case TK_INT: return "integer literal";
    case TK_FLOAT: return "float literal";
    case TK_STRING: return "string literal";
    case TK_DTYPE: return "dtype name";
    case TK_KERNEL: return "'kernel'";
    case TK_CONST: return "'const'";
    case TK_LET: return "'let'";
    case TK_VAR: return "'var'";
    case TK_OUT: return "'out'";
    case TK_INOUT: return "'inout'";
    case TK_WHERE: return "'where'";
    case TK_TUNE: return "'tune'";
    case TK_IN: return "'in'";
    case TK_GRID: return "'grid'";
    case TK_AS: return "'as'";
    case TK_THREADS: return "'threads'";
    case TK_FOR: return "'for'";
    case TK_IF: return "'if'";
    case TK_ELSE: return "'else'";
    case TK_REFERENCE: return "'reference'";
    case TK_FLOPS: return "'flops'";
    case TK_BYTES: return "'bytes'";
    case TK_TRUE: return "'true'";
    case TK_FALSE: return "'false'";
    case TK_INF: return "'inf'";
    case TK_LPAREN: return "'('";
    case TK_RPAREN: return "')'";
    case TK_LBRACKET: return "'['";
    case TK_RBRACKET: return "']'";
    case TK_LBRACE: return "'{'";
    case TK_RBRACE: return "'}'";
    case TK_COMMA: return "','";
    case TK_SEMI: return "';'";
    case TK_COLON: return "':'";
    case TK_QUESTION: return "'?'";
    case TK_ASSIGN: return "'='";
    case TK_PLUSEQ: return "'+='";
    case TK_MINUSEQ: return "'-='";
    case TK_STAREQ: return "'*='";
    case TK_SLASHEQ: return "'/='";
    case TK_OROR: return "'||'";
    case TK_ANDAND: return "'&&'";
    case TK_PIPE: return "'|'";
    case TK_CARET: return "'^'";
    case TK_AMP: return "'&'";
    case TK_EQ: return "'=='";
    case TK_NE: return "'!='";
    case TK_LT: return "'<'";
    case TK_LE: return "'<='";
    case TK_GT: return "'>'";
    case TK_GE: return "'>='";
    case TK_SHL: return "'<<'";
    case TK_SHR: return "'>>'";
    case TK_PLUS: return "'+'";
    case TK_MINUS: return "'-'";
    case TK_STAR: return "'*'";
    case TK_SLASH: return "'/'";
    case TK_PERCENT: return "'%'";
    case TK_BANG: return "'!'";
    case TK_TILDE: return "'~'";
    default: return "token";
    }
}
