/* emit_stmt.c - CUDA C of statements: stores, prints, loops (pipelined
 * ones with their producers' prefetch), lets, barriers, and the dispatch
 * of tile operations to lower_*.c. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

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
                    cg_rounded(g, vt, op ? arena_printf(&g->k->c->arena, "%s %s (%s)", name, op, rhs) : rhs));
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
    char *ref = cg_element_ref(g, t, &cond);
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

static void cg_for_body(Cg *g, IrStmt *s);

static void cg_for(Cg *g, IrStmt *s) {
    g->loops++;
    cg_for_body(g, s);
    g->loops--;
}

static void cg_for_body(Cg *g, IrStmt *s) {
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
const char *cg_scalar_type(const Cg *g, Dtype t) {
    if (dtype_is_int(t) && dtype_bytes(t) < 4) return cg_storage_type(t);
    const char *c = cg_compute_type(t);
    return strcmp(c, "int") ? c : g->index_type;
}

void cg_let(Cg *g, const IrStmt *s) {
    cg_line(g, "const %s %s = %s;", cg_scalar_type(g, s->sym->dtype), ir_sym_cname(g->k->c, s->sym),
            cg_value_str(g, s->value, s->sym->dtype));
}

static void cg_stmt_here(Cg *g, IrStmt *s);

/* "// softmax.tile:14  reduce_max(x, mx, dim = 1);" before the code of a
 * statement on a .tile line not quoted just before. */
void cg_quote_line(Cg *g, Loc loc) {
    if ((int)loc.line == g->quoted_line) return;
    g->quoted_line = (int)loc.line;
    const Source *src = &g->k->c->src;
    if (!src->text) return;
    char text[101];
    source_line_text(src, loc.off, text, sizeof text);
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\\')) text[--n] = 0; /* a trailing backslash would splice lines */
    const char *name = src->name ? strrchr(src->name, '/') : NULL;
    name = name ? name + 1 : src->name ? src->name : "input";
    cg_line(g, "// %s:%u  %s", name, loc.line, text);
}

static void cg_stmt(Cg *g, IrStmt *s) {
    int outer = g->src_line;
    if (s->loc.line > 0) {
        g->src_line = s->loc.line;
        cg_quote_line(g, s->loc);
    }
    cg_stmt_here(g, s);
    g->src_line = outer;
}

static void cg_stmt_here(Cg *g, IrStmt *s) {
    if (s->sync_before) cg_sync(g);
    switch (s->op) {
    case IR_COPY: cg_copy(g, s); break;
    case IR_GEMM: cg_gemm(g, s); break;
    case IR_FILL: cg_fill(g, s); break;
    case IR_REDUCE: cg_reduce(g, s); break;
    case IR_SCAN: cg_scan(g, s); break;
    case IR_ATOMIC: cg_atomic(g, s); break;
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
            init = cg_rounded(g, vt, init);
        cg_line(g, "%s %s = %s;", cg_scalar_type(g, vt), ir_sym_cname(g->k->c, s->sym), init);
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
