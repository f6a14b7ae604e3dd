/* parser.c - feeds the lexer's tokens to the Lemon parser (parse.y),
 * enforcing the nesting limit and reporting syntax errors. */
#include <stdlib.h>

#include "frontend.h"
#include "parse.h"
#include "parse_state.h"

/* Lemon's generated interface (parse.c). */
void *TileParseAlloc(void *(*malloc_fn)(size_t));
void TileParse(void *parser, int major, Token minor, ParseState *ps);
void TileParseFree(void *parser, void (*free_fn)(void *));

/* How a token is named in syntax errors. */
static const char *token_describe(int code) {
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
    case TK_DYNAMIC: return "'dynamic'";
    case TK_INPUTS: return "'inputs'";
    case TK_PIPELINE: return "'pipeline'";
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

void add_item(ParseState *ps, Node *item) {
    list_push(ps->c, &ps->program->u.list, item);
}

Node *binary(ParseState *ps, AstOp op, Loc loc, Node *a, Node *b) {
    Node *n = node_new(ps->c, N_BINARY, loc);
    n->u.op.op = op;
    n->u.op.a = a;
    n->u.op.b = b;
    node_child(ps->c, n, a);
    node_child(ps->c, n, b);
    return n;
}

Node *unary(ParseState *ps, AstOp op, Loc loc, Node *a) {
    Node *n = node_new(ps->c, N_UNARY, loc);
    n->u.op.op = op;
    n->u.op.a = a;
    node_child(ps->c, n, a);
    return n;
}

void parse_syntax_error(ParseState *ps, int major, const Token *tok, const int *expected, int n) {
    bool earlier = ps->syntax_error;
    ps->syntax_error = true;
    /* After an error inside a kernel the parser may resume as if at the
     * top level; what it then finds there (the kernel's own statements,
     * its reference block) is no mistake of its own. */
    bool top_level_only = n > 0;
    for (int i = 0; i < n; i++) top_level_only &= expected[i] == TK_KERNEL || expected[i] == TK_CONST;
    if (earlier && (top_level_only || (major == TK_REFERENCE && ps->nesting == 0))) return;
    char what[256] = "";
    bool semi = false;
    for (int i = 0; i < n; i++) semi |= expected[i] == TK_SEMI;
    /* after a complete expression anything binary may follow; the likely
     * fix is the missing semicolon */
    bool missing_semi = n > 4 && semi;
    if (missing_semi && major != 0 && ps->prev_end.line && tok->loc.line > ps->prev_end.line) {
        /* a statement's line without its ';': say so where it is missing,
         * not at the next line's first token */
        diag_error(ps->c, ps->prev_end, "expected ';' at the end of the line (the next one starts with %s)",
                   major == TK_IDENT ? arena_printf(&ps->c->arena, "'%s'", tok->name->s) : token_describe(major));
        return;
    }
    if (missing_semi) {
        snprintf(what, sizeof what, "; expected ';'");
    } else if (n > 0 && n <= 4) {
        int len = snprintf(what, sizeof what, "; expected ");
        for (int i = 0; i < n && len < (int)sizeof what; i++)
            len += snprintf(what + len, sizeof what - (size_t)len, "%s%s",
                            i == 0 ? "" : i == n - 1 ? " or " : ", ", token_describe(expected[i]));
    }
    if (major == 0 && ps->nesting > 0)
        diag_error(ps->c, tok->loc, "unexpected end of file: %d bracket%s still open%s", ps->nesting,
                   ps->nesting == 1 ? " is" : "s are", what);
    else if (major == 0)
        diag_error(ps->c, tok->loc, "unexpected end of file%s", what);
    else if (major == TK_IDENT)
        diag_error(ps->c, tok->loc, "unexpected identifier '%s'%s", tok->name->s, what);
    else if (major == TK_REFERENCE && ps->nesting == 0)
        diag_error(ps->c, tok->loc, "unexpected 'reference': a kernel has one reference block, right after its body");
    else if ((major == TK_REFERENCE || major == TK_KERNEL) && ps->open_kind[ps->nesting] == '{') {
        /* the kernel body (or a block in it) was never closed */
        diag_error(ps->c, tok->loc, "missing '}' before '%s'", major == TK_REFERENCE ? "reference" : "kernel");
        diag_note(ps->c, ps->open_at[ps->nesting], "the innermost '{' still open is here");
    }
    else
        diag_error(ps->c, tok->loc, "unexpected %s%s", token_describe(major), what);
}

void parse_stack_overflow(ParseState *ps) {
    diag_error(ps->c, ps->here, "program nested too deeply for the parser");
    ps->stop = true;
}

Node *fe_parse(Ctx *c) {
    ParseState ps = {.c = c};
    ps.program = node_new(c, N_PROGRAM, (Loc){0, 1});
    void *parser = TileParseAlloc(malloc);
    if (!parser) die("out of memory creating the parser");
    Lexer lx;
    lex_init(&lx, c);
    Token t;
    int code;
    do {
        code = lex_next(&lx, &t);
        t.len = (uint32_t)(lx.cur - lx.tok); /* every token's, not only names' and strings' */
        ps.here = t.loc;
        if (code == TK_LPAREN || code == TK_LBRACKET || code == TK_LBRACE) {
            /* Bounding nesting here keeps the parser stack and every
             * recursive walk of the tree small. */
            if (++ps.nesting > LIMIT_NESTING) {
                diag_error(c, t.loc, "brackets nested too deeply (more than %d levels)", LIMIT_NESTING);
                break;
            }
            ps.open_at[ps.nesting] = t.loc;
            ps.open_kind[ps.nesting] = code == TK_LPAREN ? '(' : code == TK_LBRACKET ? '[' : '{';
        } else if (code == TK_RPAREN || code == TK_RBRACKET || code == TK_RBRACE) {
            if (ps.nesting > 0) ps.nesting--;
        }
        TileParse(parser, code, t, &ps);
        ps.prev_end = (Loc){t.loc.off + t.len, t.loc.line};
    } while (code != 0 && !ps.stop && !c->too_many);
    TileParseFree(parser, free);
    return ps.program;
}
