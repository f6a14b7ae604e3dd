/* parse_state.h - what the Lemon actions in parse.y share with parser.c. */
#ifndef TILEC_PARSE_STATE_H
#define TILEC_PARSE_STATE_H

#include "frontend.h"

typedef struct ParseState {
    Ctx *c;
    Node *program;
    Loc here;              /* location of the token being parsed */
    Loc prev_end;          /* just past the token before it (line 0: none) */
    bool syntax_error;     /* at least one syntax error was reported */
    bool stop;             /* give up: stack overflow or the error limit */
    int nesting;           /* open ( [ { */
    Loc open_at[LIMIT_NESTING + 1];  /* where each open bracket is, outermost first */
    char open_kind[LIMIT_NESTING + 1]; /* and which: '(', '[' or '{' */
} ParseState;

void add_item(ParseState *ps, Node *item);
Node *binary(ParseState *ps, AstOp op, Loc loc, Node *a, Node *b);
Node *unary(ParseState *ps, AstOp op, Loc loc, Node *a);
void parse_syntax_error(ParseState *ps, int major, const Token *tok, const int *expected, int n_expected);
void parse_stack_overflow(ParseState *ps);

#endif
