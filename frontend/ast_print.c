/* ast_print.c - `--emit-ast`: the syntax tree as indented S-expressions.
 * Statements and declarations take a line each; expressions print inline,
 * fully parenthesised, so precedence is visible. */
#include <inttypes.h>

#include "frontend.h"

static void list_print(FILE *o, const NodeList *l, const char *sep) {
    for (int i = 0; i < l->len; i++) {
        if (i) fputs(sep, o);
        expr_print(o, l->items[i]);
    }
}

static void str_print(FILE *o, const char *s, uint32_t n) {
    fputc('"', o);
    for (uint32_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\n') fputs("\\n", o);
        else if (ch == '\t') fputs("\\t", o);
        else if (ch == '"' || ch == '\\') fprintf(o, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f) fprintf(o, "\\x%02x", ch);
        else fputc(ch, o);
    }
    fputc('"', o);
}

void expr_print(FILE *o, const Node *e) {
    switch (e->kind) {
    case N_INT: fprintf(o, "%" PRId64, e->u.ival); break;
    case N_FLOAT: fprintf(o, "%.17g%s", e->u.fval.v, e->u.fval.fsuffix ? "f" : ""); break;
    case N_BOOL: fputs(e->u.bval ? "true" : "false", o); break;
    case N_INF: fputs("inf", o); break;
    case N_STR: str_print(o, e->u.str.s, e->u.str.len); break;
    case N_NAME: fputs(e->u.name->s, o); break;
    case N_DTYPE: fputs(dtype_name(e->u.dt), o); break;
    case N_INDEX:
        /* the symbol's name: a pass may point the access at another buffer */
        fprintf(o, "(index %s ", e->sym && e->sym->name ? e->sym->name->s : e->u.index.name->s);
        list_print(o, &e->u.index.idx, " ");
        fputc(')', o);
        break;
    case N_CALL:
        if (e->u.call.name) fprintf(o, "(call %s", e->u.call.name->s);
        else fprintf(o, "(cast %s", dtype_name(e->u.call.cast));
        if (e->u.call.body) {
            fputs(" (over ", o);
            list_print(o, &e->u.call.reduce_vars, " ");
            fputs(") ", o);
            expr_print(o, e->u.call.body);
        } else if (e->u.call.args.len) {
            fputc(' ', o);
            list_print(o, &e->u.call.args, " ");
        }
        fputc(')', o);
        break;
    case N_NAMED_ARG:
        fprintf(o, "(= %s ", e->u.named.name->s);
        expr_print(o, e->u.named.value);
        fputc(')', o);
        break;
    case N_LIST: fputc('[', o); list_print(o, &e->u.list, " "); fputc(']', o); break;
    case N_SLICE:
        fputs("(: ", o);
        expr_print(o, e->u.slice.lo);
        fputc(' ', o);
        expr_print(o, e->u.slice.hi);
        fputc(')', o);
        break;
    case N_UNARY:
        fprintf(o, "(%s ", op_spelling(e->u.op.op));
        expr_print(o, e->u.op.a);
        fputc(')', o);
        break;
    case N_BINARY:
        fprintf(o, "(%s ", op_spelling(e->u.op.op));
        expr_print(o, e->u.op.a);
        fputc(' ', o);
        expr_print(o, e->u.op.b);
        fputc(')', o);
        break;
    case N_COND:
        fputs("(? ", o);
        expr_print(o, e->u.cond.c);
        fputc(' ', o);
        expr_print(o, e->u.cond.a);
        fputc(' ', o);
        expr_print(o, e->u.cond.b);
        fputc(')', o);
        break;
    default: fprintf(o, "<%s>", node_kind_name(e->kind)); break;
    }
}

static void indent(FILE *o, int d) {
    for (int i = 0; i < d; i++) fputs("  ", o);
}

static void stmt_print(FILE *o, const Node *s, int d);

static void block_print(FILE *o, const char *head, const Node *b, int d) {
    indent(o, d);
    fprintf(o, "(%s", head);
    for (int i = 0; i < b->u.list.len; i++) {
        fputc('\n', o);
        stmt_print(o, b->u.list.items[i], d + 1);
    }
    fputc(')', o);
}

static void stmt_print(FILE *o, const Node *s, int d) {
    switch (s->kind) {
    case N_LET:
        indent(o, d);
        fprintf(o, "(let %s ", s->u.decl.name->s);
        expr_print(o, s->u.decl.value);
        fputc(')', o);
        break;
    case N_VAR:
        indent(o, d);
        fprintf(o, "(var %s %s", s->u.decl.name->s, dtype_name(s->u.decl.dt));
        if (s->u.decl.value) {
            fputc(' ', o);
            expr_print(o, s->u.decl.value);
        }
        fputc(')', o);
        break;
    case N_ASSIGN:
        indent(o, d);
        fprintf(o, "(%s ", op_spelling(s->u.assign.op));
        expr_print(o, s->u.assign.lhs);
        fputc(' ', o);
        expr_print(o, s->u.assign.rhs);
        fputc(')', o);
        break;
    case N_EXPR_STMT:
        indent(o, d);
        expr_print(o, s->u.expr);
        break;
    case N_FOR:
        indent(o, d);
        fputs("(for (", o);
        list_print(o, &s->u.loop.vars, " ");
        fputs(") ", o);
        expr_print(o, s->u.loop.iter);
        fputc('\n', o);
        block_print(o, "block", s->u.loop.body, d + 1);
        fputc(')', o);
        break;
    case N_IF:
        indent(o, d);
        fputs("(if ", o);
        expr_print(o, s->u.ifs.c);
        fputc('\n', o);
        block_print(o, "block", s->u.ifs.then, d + 1);
        if (s->u.ifs.els) {
            fputc('\n', o);
            if (s->u.ifs.els->kind == N_IF) stmt_print(o, s->u.ifs.els, d + 1);
            else block_print(o, "block", s->u.ifs.els, d + 1);
        }
        fputc(')', o);
        break;
    case N_BLOCK: block_print(o, "block", s, d); break;
    default: indent(o, d); expr_print(o, s); break;
    }
}

static const char *mode_name(ParamMode m) {
    return m == MODE_OUT ? "out" : m == MODE_INOUT ? "inout" : "in";
}

static void clause_print(FILE *o, const Node *cl, int d) {
    indent(o, d);
    switch (cl->kind) {
    case N_WHERE:
    case N_TUNE:
    case N_INPUTS:
        fputs(cl->kind == N_WHERE ? "(where" : cl->kind == N_TUNE ? "(tune" : "(inputs", o);
        for (int i = 0; i < cl->u.list.len; i++) {
            const Node *b = cl->u.list.items[i];
            if (b->kind == N_BIND) {
                fprintf(o, " (%s ", b->u.named.name->s);
                expr_print(o, b->u.named.value);
            } else {
                fprintf(o, " (%s ", b->u.tunable.name->s);
                expr_print(o, b->u.tunable.value);
                if (b->u.tunable.has_choices) {
                    fputs(" in [", o);
                    list_print(o, &b->u.tunable.choices, " ");
                    fputc(']', o);
                }
            }
            fputc(')', o);
        }
        fputc(')', o);
        break;
    case N_TUNE_FOR:
        fprintf(o, "(tune_for %s", cl->u.tune_for.arch->s);
        for (int i = 0; i < cl->u.tune_for.binds.len; i++) {
            const Node *b = cl->u.tune_for.binds.items[i];
            fprintf(o, " (%s ", b->u.named.name->s);
            expr_print(o, b->u.named.value);
            fputc(')', o);
        }
        fputc(')', o);
        break;
    case N_DYNAMIC:
        fputs("(dynamic", o);
        for (int i = 0; i < cl->u.list.len; i++) {
            const Node *b = cl->u.list.items[i];
            fprintf(o, " (%s", b->u.named.name->s);
            if (b->u.named.value) fprintf(o, " %% %lld", (long long)b->u.named.value->u.ival);
            fputc(')', o);
        }
        fputc(')', o);
        break;
    case N_GRID:
        fputs("(grid (", o);
        list_print(o, &cl->u.grid.exprs, " ");
        fputs(") as (", o);
        list_print(o, &cl->u.grid.names, " ");
        fputs("))", o);
        break;
    case N_THREADS:
    case N_FLOPS:
    case N_BYTES:
        fprintf(o, "(%s ", cl->kind == N_THREADS ? "threads" : cl->kind == N_FLOPS ? "flops" : "bytes");
        expr_print(o, cl->u.expr);
        fputc(')', o);
        break;
    default: break;
    }
}

void ast_print(FILE *o, const Node *prog) {
    fputs("(program", o);
    for (int i = 0; i < prog->u.list.len; i++) {
        const Node *it = prog->u.list.items[i];
        fputc('\n', o);
        if (it->kind == N_CONST) {
            fprintf(o, "  (const %s ", it->u.decl.name->s);
            expr_print(o, it->u.decl.value);
            fputc(')', o);
            continue;
        }
        fprintf(o, "  (%s %s", it->u.kernel.pipeline ? "pipeline" : "kernel", it->u.kernel.name->s);
        for (int j = 0; j < it->u.kernel.params.len; j++) {
            const Node *p = it->u.kernel.params.items[j];
            fprintf(o, "\n    (param %s %s %s", mode_name(p->u.param.mode), p->u.param.name->s,
                    dtype_name(p->u.param.dt));
            if (p->u.param.has_dims) {
                fputs(" [", o);
                list_print(o, &p->u.param.dims, " ");
                fputc(']', o);
            }
            fputc(')', o);
        }
        for (int j = 0; j < it->u.kernel.clauses.len; j++) {
            fputc('\n', o);
            clause_print(o, it->u.kernel.clauses.items[j], 2);
        }
        fputc('\n', o);
        block_print(o, "body", it->u.kernel.body, 2);
        if (it->u.kernel.ref) {
            fputc('\n', o);
            block_print(o, "reference", it->u.kernel.ref, 2);
        }
        fputc(')', o);
    }
    fputs(")\n", o);
}
