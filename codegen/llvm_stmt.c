/* llvm_stmt.c - statements for the LLVM backend (emit_stmt.c and
 * lower_parallel.c are the model): stores, lets and vars, loops, ifs,
 * barriers, prints, parallel loops (over a fragment's registers, dealt
 * round-robin, or vectorised), and the dispatch of tile operations. */
#include <stdlib.h>
#include <string.h>

#include "llvm_codegen.h"

void lg_loop_end_unrolled(Lg *g, LgLoop *l) {
    lg_loop_end(g, l);
    lg_loop_hint(g, l, "llvm.loop.unroll.full", 0);
}

/* Closes loop l, fully unrolled where `unroll` asks. */
static void loop_end(Lg *g, LgLoop *l, bool unroll) {
    if (unroll) lg_loop_end_unrolled(g, l);
    else lg_loop_end(g, l);
}

/* ---- stores ---- */

static void store_var(Lg *g, IrStmt *s, LgVal rhs, AstOp op) {
    const Sym *v = s->target->sym;
    for (int i = g->nbind - 1; i >= 0; i--) {
        if (g->bind_sym[i] != v || !g->bind_var[i]) continue;
        LgType t = g->bind_val[i].t;
        LgVal val = rhs;
        if (op) val = lg_binary(g, op, (LgVal){LLVMBuildLoad2(g->b, lg_llvm_type(g, t), g->bind_val[i].v, ""), t}, rhs);
        /* an f16 var holds f16 values (in a float register) */
        if (cg_narrow_float(v->dtype)) val = lg_rounded(g, v->dtype, lg_cast(g, val, LT_FLOAT));
        LLVMBuildStore(g->b, lg_cast(g, val, t).v, g->bind_val[i].v);
        return;
    }
    lg_error(g, s->loc, "the llvm backend has no variable '%s' here", v->name->s);
}

/* A register's value held in the block that computes it. The backend's
 * machine sinking moves a value computed before a branch down to the
 * block of its first use; over a fragment's registers whose bodies branch
 * (a guarded load, an if) every register's last operations then sink to
 * the statement after the loop, each keeping two operands alive instead
 * of one result: on gemm_bias_gelu's 128 accumulators a thread, 8 bytes
 * of spill at sm_90a's consumer registers. An empty asm that passes the
 * value through keeps the result where it is computed. */
static LLVMValueRef pin_in_block(Lg *g, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    const char *c = t == g->f32 ? "=f,0" : t == g->i32 ? "=r,0" : NULL;
    return c ? lg_asm(g, t, "", c, &v, 1, true) : v;
}

static void store(Lg *g, IrStmt *s) {
    Node *t = s->target;
    Dtype td = t->sym->dtype;
    g->store_rounds = t->kind != N_NAME && cg_narrow_float(td) && s->value->dtype == td && s->assign_op == OP_ASSIGN;
    LgVal rhs = lg_value(g, s->value, td);
    g->store_rounds = false;
    AstOp op = s->assign_op == OP_ASSIGN ? OP_NONE : op_assign_binary(s->assign_op);
    if (t->kind == N_NAME) {
        store_var(g, s, rhs, op);
        return;
    }
    IrBuf *b = ir_buf_of(g->k, t->sym);
    for (int i = 0; i < g->nlane; i++)
        if (g->lane_node[i] == t) { /* vectorised: the loop stores the whole vector afterwards */
            LLVMBuildStore(g->b, lg_to_storage(g, b->dtype, rhs), g->lane_ref[i]);
            return;
        }
    LLVMValueRef cond;
    Dtype dt;
    LLVMValueRef p = lg_element_ptr(g, t, &cond, &dt);
    /* memory other threads see: stored by the iteration's one owner */
    if (g->owner && (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_SHARED))
        cond = cond ? LLVMBuildAnd(g->b, g->owner, cond, "") : g->owner;
    LLVMBasicBlockRef after = cond ? lg_begin_if(g, cond) : NULL;
    LgVal val = rhs;
    if (op) val = lg_binary(g, op, lg_from_storage(g, dt, LLVMBuildLoad2(g->b, lg_storage_type(g, dt), p, "")), rhs);
    LLVMValueRef stored = lg_to_storage(g, dt, val);
    if (b->scope == SCOPE_FRAGMENT && g->reg_block && LLVMGetInsertBlock(g->b) != g->reg_block)
        stored = pin_in_block(g, stored);
    LLVMBuildStore(g->b, stored, p);
    if (after) lg_end_if(g, after);
}

/* ---- print ---- */

static void print(Lg *g, IrStmt *s) {
    char *fmt = NULL;
    size_t fl = 0;
    FILE *f = open_memstream(&fmt, &fl);
    LLVMValueRef vals[64];
    int n = 0;
    for (int i = 0; i < s->print_args.len; i++) {
        Node *e = s->print_args.items[i];
        if (i) fputc(' ', f);
        if (e->kind == N_STR) {
            for (uint32_t j = 0; j < e->u.str.len; j++) {
                char ch = e->u.str.s[j];
                if (ch == '%') fputs("%%", f);
                else fputc(ch, f);
            }
            continue;
        }
        bool flt = dtype_is_float(e->dtype);
        fputs(flt ? "%g" : "%lld", f);
        if (n < 64) vals[n++] = lg_cast(g, lg_expr(g, e), flt ? LT_DOUBLE : LT_LL).v;
    }
    fputc('\n', f);
    fclose(f);
    LLVMValueRef str = LLVMBuildGlobalStringPtr(g->b, fmt, "tl_fmt");
    free(fmt);
    /* vprintf(format, a buffer of the arguments, 8 bytes each) */
    LLVMTypeRef slots = LLVMArrayType2(g->i64, (uint64_t)(n ? n : 1));
    LLVMValueRef buf = lg_entry_alloca(g, slots, "tl_args");
    for (int i = 0; i < n; i++) {
        LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), LLVMConstInt(g->i64, (unsigned long long)i, 0)};
        LLVMBuildStore(g->b, vals[i], LLVMBuildInBoundsGEP2(g->b, slots, buf, idx, 2, ""));
    }
    LLVMTypeRef params[2] = {g->ptr, g->ptr};
    LLVMTypeRef ft = LLVMFunctionType(g->i32, params, 2, 0);
    LLVMValueRef vprintf = LLVMGetNamedFunction(g->mod, "vprintf");
    if (!vprintf) vprintf = LLVMAddFunction(g->mod, "vprintf", ft);
    LLVMBasicBlockRef after = g->owner ? lg_begin_if(g, g->owner) : NULL; /* once an iteration */
    LLVMValueRef args[2] = {str, LLVMBuildAddrSpaceCast(g->b, buf, g->ptr, "")};
    LLVMBuildCall2(g->b, ft, vprintf, args, 2, "");
    if (after) lg_end_if(g, after);
}

/* ---- loops ---- */

static void for_loop_body(Lg *g, IrStmt *s);

static void for_loop(Lg *g, IrStmt *s) {
    g->loops++;
    for_loop_body(g, s);
    g->loops--;
}

static void for_loop_body(Lg *g, IrStmt *s) {
    if (s == g->k->ws_loop) {
        lg_hopper_consumer(g, s);
        return;
    }
    if (s->loop == LOOP_PIPELINED) {
        lg_pipelined(g, s);
        return;
    }
    LgVal lo = s->lo ? lg_expr(g, s->lo) : lg_int(g, 0);
    LgVal hi = lg_expr(g, s->hi);
    /* for (int v = lo; ...; ++v), or long long with a step */
    LgType t = s->step ? LT_LL : LT_INT;
    LgVal step = s->step ? lg_expr(g, s->step) : lg_int(g, 1);
    bool down = s->step && s->step->is_const && s->step->cval.i < 0;
    LgLoop l;
    lg_loop_begin(g, &l, lg_cast(g, lo, t), hi, step, down, ir_sym_cname(g->k->c, s->sym));
    int saved = g->nbind;
    lg_bind(g, s->sym, l.var);
    lg_block_emit(g, &s->body);
    g->nbind = saved;
    loop_end(g, &l, s->loop == LOOP_UNROLL);
}

static void if_stmt(Lg *g, IrStmt *s) {
    if (!s->value) {
        lg_block_emit(g, &s->body);
        return;
    }
    LLVMValueRef c = lg_truth(g, lg_expr(g, s->value));
    LLVMBasicBlockRef then = lg_block(g, "then"), els = s->els.len ? lg_block(g, "else") : NULL, join = lg_block(g, "endif");
    LLVMBuildCondBr(g->b, c, then, els ? els : join);
    LLVMPositionBuilderAtEnd(g->b, then);
    int saved = g->nbind;
    lg_block_emit(g, &s->body);
    g->nbind = saved;
    LLVMBuildBr(g->b, join);
    if (els) {
        LLVMPositionBuilderAtEnd(g->b, els);
        lg_block_emit(g, &s->els);
        g->nbind = saved;
        LLVMBuildBr(g->b, join);
    }
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* ---- parallel loops ---- */

LLVMValueRef lg_element_owner(Lg *g, const IrBuf *d, int64_t reg) {
    LLVMBuilderRef B = g->b;
    if (d->layout.kind == LAYOUT_REPLICATED)
        return LLVMBuildICmp(B, LLVMIntEQ, g->tid, LLVMConstInt(g->i32, (unsigned long long)(reg % g->k->threads), 0), "");
    if (d->layout.kind == LAYOUT_ROW) {
        LLVMValueRef q = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildURem(B, g->lane, LLVMConstInt(g->i32, 4, 0), ""),
                                       LLVMConstInt(g->i32, 0, 0), "");
        LLVMValueRef w = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildURem(B, g->warp, LLVMConstInt(g->i32, (unsigned)d->layout.wn, 0), ""),
                                       LLVMConstInt(g->i32, 0, 0), "");
        return LLVMBuildAnd(B, q, w, "");
    }
    return NULL;
}

/* Over the driver's registers, unrolled here: each register's
 * coordinates, its validity, the body. */
static void over_registers(Lg *g, IrStmt *s) {
    const IrBuf *d = s->driver;
    for (int64_t r = 0; r < d->layout.regs && !g->failed; r++) {
        LgVal coords[MAX_RANK];
        LLVMValueRef valid;
        g->driver = NULL; /* coordinates are the driver's own */
        lg_frag_coords(g, d, r, coords, &valid);
        LLVMBasicBlockRef after = valid ? lg_begin_if(g, valid) : NULL;
        g->reg_block = LLVMGetInsertBlock(g->b);
        int saved = g->nbind;
        for (int i = 0; i < s->nvars; i++) lg_bind(g, s->vars[i], lg_cast(g, coords[i], LT_INT));
        g->driver = d;
        g->par = s;
        g->reg = r;
        g->owner = lg_element_owner(g, d, r);
        lg_block_emit(g, &s->body);
        g->nbind = saved;
        g->reg_block = NULL;
        if (after) lg_end_if(g, after);
    }
}

/* The iterations dealt to the threads `per` at a time (deal_rounds): the
 * loop over a thread's rounds with the variables at its group's first
 * iteration bound; the caller closes it with loop_end. Returns the exit
 * test's block for the break of a last partial round. */
static void deal_rounds(Lg *g, IrStmt *s, int per, LgLoop *l) {
    int64_t total = 1, t = g->k->threads;
    for (int i = 0; i < s->nvars; i++) total *= s->extents[i];
    int64_t groups = total / per, rounds = (groups + t - 1) / t;
    LLVMValueRef tid = lg_rounds_tid(g, rounds);
    lg_loop_begin(g, l, lg_int(g, 0), lg_int(g, rounds), lg_int(g, 1), false, "q");
    /* e = (tid + q * t) * per, in int where it fits (cg_deal_fits_int) */
    LgType et = cg_deal_fits_int(rounds, t, per) ? LT_INT : LT_LL;
    LgVal e = lg_binary(g, OP_ADD, lg_cast(g, (LgVal){tid, LT_INT}, et),
                        lg_binary(g, OP_MUL, lg_cast(g, l->var, et), lg_cast(g, lg_int(g, t), et)));
    if (per > 1) e = lg_binary(g, OP_MUL, e, lg_cast(g, lg_int(g, per), et));
    if (groups % t) { /* if (e >= total) break; */
        LLVMValueRef in = LLVMBuildICmp(g->b, LLVMIntSLT, e.v, lg_cast(g, lg_int(g, total), et).v, "");
        LLVMBasicBlockRef go = lg_block(g, "in");
        LLVMBuildCondBr(g->b, in, go, l->exit);
        LLVMPositionBuilderAtEnd(g->b, go);
    }
    int64_t inner = 1;
    for (int i = s->nvars - 1; i >= 0; i--) {
        LgVal v = lg_binary(g, OP_DIV, e, lg_cast(g, lg_int(g, inner), et));
        if (i) v = lg_binary(g, OP_MOD, v, lg_cast(g, lg_int(g, s->extents[i]), et));
        lg_bind(g, s->vars[i], lg_cast(g, v, LT_INT));
        inner *= s->extents[i];
    }
}

/* The vector loads of a vectorised round (vector_accesses): every access
 * gets a lane array (an alloca of V elements); loads fill it when the
 * vector is in bounds, zeros otherwise. */
static void vector_round(Lg *g, IrStmt *s, const CgVecPlan *p, int v) {
    int saved_lanes = g->nlane, saved_bind = g->nbind;
    for (int i = 0; i < p->nlet; i++)
        if (p->hoist[i]) lg_block_emit(g, &(IrBlock){.items = (IrStmt **)&p->let[i], .len = 1});
    LLVMValueRef arr[CG_MAX_LANE_ACCESSES], ptr[CG_MAX_LANE_ACCESSES], cond[CG_MAX_LANE_ACCESSES];
    LLVMTypeRef arr_t[CG_MAX_LANE_ACCESSES];
    for (int i = 0; i < p->n; i++) {
        const Node *e = p->acc[i];
        const IrBuf *b = ir_buf_of(g->k, e->sym);
        LgVal coords[MAX_RANK];
        for (int d = 0; d < b->rank; d++) coords[d] = lg_expr(g, e->u.index.idx.items[d]);
        cond[i] = lg_global_inbounds(g, b, coords);
        ptr[i] = lg_gep(g, lg_storage_type(g, b->dtype), lg_buf_base(g, b), lg_global_offset(g, b, coords));
        arr_t[i] = LLVMArrayType2(lg_storage_type(g, b->dtype), (uint64_t)v);
        arr[i] = NULL;
        for (int j = 0; j < i; j++) /* the same element twice: one vector */
            if (p->store[j] == p->store[i] && p->acc[j]->sym == e->sym && ptr[j] == ptr[i]) arr[i] = arr[j];
        if (arr[i]) continue;
        int bytes = v * dtype_bytes(b->dtype);
        arr[i] = lg_entry_alloca(g, arr_t[i], p->store[i] ? "w" : "v");
        LLVMSetAlignment(arr[i], (unsigned)bytes); /* it is loaded and stored whole */
        if (p->store[i]) continue;
        LLVMTypeRef vec = bytes >= 4 ? LLVMVectorType(g->i32, (unsigned)(bytes / 4)) : g->i16;
        LLVMBuildStore(g->b, LLVMConstNull(vec), arr[i]);
        LLVMBasicBlockRef after = lg_begin_if(g, cond[i]);
        LLVMValueRef ld = LLVMBuildLoad2(g->b, vec, ptr[i], "");
        LLVMSetAlignment(ld, (unsigned)bytes);
        LLVMBuildStore(g->b, ld, arr[i]);
        lg_end_if(g, after);
    }
    for (int lane = 0; lane < v && !g->failed; lane++) {
        for (int i = 0; i < p->n; i++) {
            LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), LLVMConstInt(g->i64, (unsigned long long)lane, 0)};
            g->lane_node[saved_lanes + i] = p->acc[i];
            g->lane_ref[saved_lanes + i] = LLVMBuildInBoundsGEP2(g->b, arr_t[i], arr[i], idx, 2, "");
        }
        g->nlane = saved_lanes + p->n;
        /* the lane's own value of the innermost variable */
        const Sym *iv = s->vars[s->nvars - 1];
        LgVal base = lg_int(g, 0);
        for (int i = g->nbind - 1; i >= 0; i--)
            if (g->bind_sym[i] == iv) {
                base = g->bind_val[i];
                break;
            }
        int before = g->nbind;
        lg_bind(g, iv, lg_binary(g, OP_ADD, base, lg_int(g, lane)));
        for (int i = 0; i < s->body.len; i++) {
            bool hoisted = false;
            for (int j = 0; j < p->nlet; j++) hoisted |= p->hoist[j] && p->let[j] == s->body.items[i];
            if (!hoisted) lg_block_emit(g, &(IrBlock){.items = &s->body.items[i], .len = 1});
        }
        g->nbind = before;
    }
    g->nlane = saved_lanes;
    for (int i = 0; i < p->n; i++) {
        bool first = true;
        for (int j = 0; j < i; j++) first &= arr[j] != arr[i];
        if (!p->store[i] || !first) continue;
        int bytes = v * dtype_bytes(ir_buf_of(g->k, p->acc[i]->sym)->dtype);
        LLVMTypeRef vec = bytes >= 4 ? LLVMVectorType(g->i32, (unsigned)(bytes / 4)) : g->i16;
        LLVMBasicBlockRef after = lg_begin_if(g, cond[i]);
        LLVMValueRef st = LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, vec, arr[i], ""), ptr[i]);
        LLVMSetAlignment(st, (unsigned)bytes);
        lg_end_if(g, after);
    }
    g->nbind = saved_bind;
}

static void parallel(Lg *g, IrStmt *s) {
    const IrBuf *saved_driver = g->driver;
    const IrStmt *saved_par = g->par;
    int64_t saved_reg = g->reg;
    LLVMValueRef saved_owner = g->owner;
    int saved_bind = g->nbind;
    if (s->driver) {
        over_registers(g, s);
    } else {
        CgVecPlan plan;
        int vw = cg_vector_width(g->k, s, &plan);
        LgLoop l;
        deal_rounds(g, s, vw ? vw : 1, &l);
        g->driver = NULL;
        g->par = s; /* each iteration one thread's */
        g->owner = NULL;
        if (vw) vector_round(g, s, &plan, vw);
        else lg_block_emit(g, &s->body);
        int64_t total = 1;
        for (int i = 0; i < s->nvars; i++) total *= s->extents[i];
        int64_t rounds = (total / (vw ? vw : 1) + g->k->threads - 1) / g->k->threads;
        g->nbind = saved_bind;
        loop_end(g, &l, rounds <= 64);
    }
    g->driver = saved_driver;
    g->par = saved_par;
    g->reg = saved_reg;
    g->owner = saved_owner;
    g->nbind = saved_bind;
}

/* ---- statements ---- */

static void let(Lg *g, IrStmt *s) {
    LgVal v = lg_value(g, s->value, s->sym->dtype);
    lg_bind(g, s->sym, lg_cast(g, v, lg_scalar_type(g, s->sym->dtype)));
}

static void var(Lg *g, IrStmt *s) {
    Dtype vt = s->sym->dtype;
    LgType t = lg_scalar_type(g, vt);
    LgVal init = s->value ? lg_value(g, s->value, vt) : lg_int(g, 0);
    if (s->value && cg_narrow_float(vt) && s->value->dtype != vt) init = lg_rounded(g, vt, lg_cast(g, init, LT_FLOAT));
    LLVMValueRef slot = lg_entry_alloca(g, lg_llvm_type(g, t), ir_sym_cname(g->k->c, s->sym));
    LLVMBuildStore(g->b, lg_cast(g, init, t).v, slot);
    lg_bind_var(g, s->sym, slot, t);
}

static void stmt_here(Lg *g, IrStmt *s);

/* The statement's .tile line on what it builds (--lineinfo). */
static void stmt(Lg *g, IrStmt *s) {
    int outer = g->di_line;
    if (s->loc.line > 0) lg_debug_line(g, s->loc.line);
    stmt_here(g, s);
    lg_debug_line(g, outer);
}

static void stmt_here(Lg *g, IrStmt *s) {
    if (s->sync_before) lg_sync(g);
    switch (s->op) {
    case IR_COPY: lg_copy(g, s); break;
    case IR_GEMM: lg_gemm(g, s); break;
    case IR_FILL: lg_fill(g, s); break;
    case IR_REDUCE: lg_reduce(g, s); break;
    case IR_SCAN: lg_scan(g, s); break;
    case IR_ATOMIC: lg_atomic_value(g, s); break;
    case IR_ATOMIC_ADD: lg_atomic_add(g, s); break;
    case IR_PARALLEL: parallel(g, s); break;
    case IR_FOR: for_loop(g, s); break;
    case IR_IF: if_stmt(g, s); break;
    case IR_LET: let(g, s); break;
    case IR_VAR: var(g, s); break;
    case IR_STORE: store(g, s); break;
    case IR_SYNC: lg_sync(g); break;
    case IR_PRINT: print(g, s); break;
    default: break;
    }
}

void lg_block_emit(Lg *g, IrBlock *b) {
    for (int i = 0; i < b->len && !g->failed; i++) stmt(g, b->items[i]);
}
