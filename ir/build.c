/* build.c - the tile IR from a checked, specialised kernel. */
#include <string.h>

#include "ir.h"

void ir_block_push(Ctx *c, IrBlock *b, IrStmt *s) {
    vec_push(&c->arena, (PtrVec *)b, s);
}

void ir_walk(IrBlock *b, IrVisit pre, void *arg) {
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        pre(s, arg);
        ir_walk(&s->body, pre, arg);
        ir_walk(&s->els, pre, arg);
    }
}

IrBuf *ir_buf_of(IrKernel *k, const Sym *sym) {
    for (int i = 0; i < k->params.len; i++)
        if (((IrBuf *)k->params.items[i])->sym == sym) return k->params.items[i];
    for (int i = 0; i < k->buffers.len; i++)
        if (((IrBuf *)k->buffers.items[i])->sym == sym) return k->buffers.items[i];
    die("no IR buffer for '%s'", sym ? sym->name->s : "?");
}

/* C and CUDA spellings a user name must not take in the generated code:
 * C++ keywords and alternative tokens, CUDA's types and built-in variables,
 * and every function the generated kernel body calls. */
static const char *const reserved[] = {
    "alignas", "alignof", "and", "and_eq", "bitand", "bitor", "catch", "char16_t", "char32_t", "compl",
    "concept", "const_cast", "constexpr", "decltype", "dynamic_cast", "export", "mutable", "noexcept", "not",
    "not_eq", "nullptr", "NULL", "or", "or_eq", "reinterpret_cast", "requires", "static_assert", "static_cast",
    "thread_local", "typeid", "wchar_t", "xor", "xor_eq", "int3", "uint3", "float3", "dim3", "nv_bfloat162",
    "expf", "exp2", "logf", "log2", "log2f", "sqrtf", "rsqrt", "rsqrtf", "tanh", "tanhf", "erf", "erff",
    "floor", "floorf", "ceil", "ceilf", "sin", "sinf", "cos", "cosf", "powf", "fmaf", "fmin", "fminf", "fmax",
    "fmaxf", "fabs", "fabsf", "llabs", "make_uint2", "make_uint4",
    "auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do",
    "double", "else", "enum", "explicit", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "namespace", "new", "operator", "private", "protected", "public",
    "register", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template",
    "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned", "using", "virtual",
    "void", "volatile", "while", "half", "half2", "nv_bfloat16", "threadIdx", "blockIdx", "blockDim",
    "gridDim", "warpSize", "smem", "tid", "lane", "warp", "asm", "int2", "int4", "float2", "float4",
    "uint2", "uint4", "min", "max", "abs", "exp", "log", "sqrt", "pow", "fma", "printf", "assert", NULL};

const char *ir_cname(Ctx *c, const Name *n) {
    /* the generated code's own names start with tl_ or end with _ (cg_tmp);
     * a user name that would clash takes one in the tl_ space, which no
     * user name reaches (u_tid would have clashed with tid's u_tid) */
    bool clash = n->s[0] == '_' || strncmp(n->s, "tl_", 3) == 0 || (n->len > 0 && n->s[n->len - 1] == '_');
    for (int i = 0; !clash && reserved[i]; i++) clash = strcmp(n->s, reserved[i]) == 0;
    return clash ? arena_printf(&c->arena, "tl_u_%s", n->s) : n->s;
}

const char *ir_sym_cname(Ctx *c, const Sym *sym) {
    /* a name declared again in an inner block: C would read the new one
     * in its own initialiser (`let a = a + 1` as `const float a = (a +
     * 1)`), so the inner one is tl_s<depth>_<name> */
    if (sym->cname) return sym->cname;
    int depth = 0;
    for (const Sym *p = sym->shadowed; p; p = p->shadowed) depth++;
    return depth ? arena_printf(&c->arena, "tl_s%d_%s", depth, sym->name->s) : ir_cname(c, sym->name);
}

static bool name_taken(const IrKernel *k, const char *s) {
    const PtrVec *lists[] = {&k->params, &k->buffers};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l]->len; i++) {
            const IrBuf *b = lists[l]->items[i];
            if (!strcmp(b->sym->name->s, s) || !strcmp(b->cname, s)) return true;
        }
    return false;
}

IrBuf *ir_new_staging_buffer(IrKernel *k, const IrBuf *from, int rank, const int64_t *shape) {
    Ctx *c = k->c;
    Sym *sym = arena_alloc(&c->arena, sizeof *sym);
    *sym = *from->sym;
    sym->scope = SCOPE_SHARED;
    sym->shadowed = NULL;
    sym->rank = rank;
    memset(sym->shape, 0, sizeof sym->shape);
    memcpy(sym->shape, shape, sizeof(int64_t) * (size_t)rank);
    Name *name = arena_alloc(&c->arena, sizeof *name);
    name->s = arena_printf(&c->arena, "%s_staged", from->sym->name->s);
    for (int i = 2; name_taken(k, name->s); i++) name->s = arena_printf(&c->arena, "%s_staged%d", from->sym->name->s, i);
    name->len = strlen(name->s);
    sym->name = name;
    IrBuf *b = arena_alloc(&c->arena, sizeof *b);
    b->sym = sym;
    b->cname = arena_printf(&c->arena, "tl_%s", name->s); /* beside the user's names: a let may be x_staged */
    b->scope = SCOPE_SHARED;
    b->dtype = from->dtype;
    b->rank = rank;
    memcpy(b->shape, sym->shape, sizeof b->shape);
    b->stages = 1;
    b->loc = from->loc;
    vec_push(&c->arena, &k->buffers, b);
    return b;
}

static IrBuf *new_buf(IrKernel *k, Sym *sym) {
    IrBuf *b = arena_alloc(&k->c->arena, sizeof *b);
    b->sym = sym;
    b->cname = ir_cname(k->c, sym->name);
    /* buffers of one name in sibling scopes (a local array in each of two
     * parallel loops) are declared together at the kernel's top: the later
     * ones get names in tilec's own tl_ space */
    for (int n = 2; name_taken(k, b->cname); n++) b->cname = arena_printf(&k->c->arena, "tl_%s_%d", sym->name->s, n);
    b->scope = sym->kind == SYM_TENSOR ? SCOPE_GLOBAL : sym->scope;
    b->dtype = sym->dtype;
    b->rank = sym->rank;
    memcpy(b->shape, sym->shape, sizeof b->shape);
    for (int d = 0; d < b->rank && sym->kind == SYM_TENSOR; d++)
        if (sym->dim_sym[d] && sym->dim_sym[d]->dynamic) b->dyn[d] = sym->dim_sym[d];
    b->mode = sym->mode;
    b->stages = 1;
    b->loc = sym->loc;
    return b;
}

static IrStmt *new_stmt(IrKernel *k, IrOp op, Loc loc) {
    IrStmt *s = arena_alloc(&k->c->arena, sizeof *s);
    s->op = op;
    s->loc = loc;
    return s;
}

IrRegion ir_whole_region(IrBuf *b) {
    IrRegion r = {.buf = b};
    memcpy(r.ext, b->shape, sizeof r.ext);
    return r;
}

IrStmt *ir_new_copy(IrKernel *k, Loc at, IrRegion src, IrRegion dst) {
    IrStmt *s = new_stmt(k, IR_COPY, at);
    s->src = src;
    s->dst = dst;
    return s;
}

static IrRegion region_of(IrKernel *k, Node *e) {
    IrRegion r = {0};
    r.buf = ir_buf_of(k, e->sym);
    if (!e->region_ext) die("region without extents at line %u", e->loc.line);
    memcpy(r.ext, e->region_ext, sizeof(int64_t) * (size_t)r.buf->rank);
    if (e->kind == N_INDEX)
        for (int i = 0; i < e->u.index.idx.len; i++) {
            Node *ix = e->u.index.idx.items[i];
            if (i == 0 && ix->kind == N_NAME && ix->sym && ix->sym->kind == SYM_BUFFER) { /* rows gathered */
                r.gather = ir_buf_of(k, ix->sym);
                continue;
            }
            r.idx[i] = ix->kind == N_SLICE ? ix->u.slice.lo : ix;
        }
    return r;
}

/* A gather's row indices in a fragment are other threads' elements: the
 * copy reads them from a shared copy made just before it. */
static void stage_gather_rows(IrKernel *k, Loc at, IrRegion *r, IrBlock *out) {
    if (!r->gather || r->gather->scope != SCOPE_FRAGMENT) return;
    IrBuf *tmp = ir_new_staging_buffer(k, r->gather, 1, r->gather->shape);
    ir_block_push(k->c, out, ir_new_copy(k, at, ir_whole_region(r->gather), ir_whole_region(tmp)));
    r->gather = tmp;
}

/* Named or positional argument `pos`/`name` of a call (sema bound them). */
static Node *arg_of(Node *call, int pos, const char *name) {
    NodeList *args = &call->u.call.args;
    for (int i = 0; i < args->len; i++) {
        Node *a = args->items[i];
        if (a->kind == N_NAMED_ARG && strcmp(a->u.named.name->s, name) == 0) return a->u.named.value;
    }
    return pos < args->len && args->items[pos]->kind != N_NAMED_ARG ? args->items[pos] : NULL;
}

static bool bool_arg(Node *call, int pos, const char *name, bool dflt) {
    Node *a = arg_of(call, pos, name);
    return a ? a->cval.i != 0 : dflt;
}

static void build_block(IrKernel *k, Node *block, IrBlock *out);

/* cumsum(src, dst): the threads that hold a row of a fragment differ by
 * layout, so the scan runs in shared memory, on a copy in the sum's type
 * (f32 for narrower floats, 32- or 64-bit integers): copy src there, scan
 * it in place (IR_SCAN: a warp a row), copy it to dst. plan_scan turns
 * the three into one scan in registers where the layouts allow. */
static void build_cumsum(IrKernel *k, Node *call, IrBlock *out) {
    IrRegion src = region_of(k, arg_of(call, 0, "src")), dst = region_of(k, arg_of(call, 1, "dst"));
    const IrBuf *f = src.buf;
    IrBuf *tmp = ir_new_staging_buffer(k, f, f->rank, f->shape);
    tmp->dtype = scan_sum_dtype(f->dtype);
    tmp->sym->dtype = tmp->dtype;
    IrRegion whole = ir_whole_region(tmp);
    ir_block_push(k->c, out, ir_new_copy(k, call->loc, src, whole));
    IrStmt *scan = new_stmt(k, IR_SCAN, call->loc);
    scan->src = whole;
    Node *d = arg_of(call, 2, "dim");
    int64_t dim = d ? d->cval.i : f->rank - 1;
    scan->dim = (int)(dim < 0 ? dim + f->rank : dim);
    scan->reverse = bool_arg(call, 3, "reverse", false);
    scan->exclusive = bool_arg(call, 4, "exclusive", false);
    ir_block_push(k->c, out, scan);
    ir_block_push(k->c, out, ir_new_copy(k, call->loc, whole, dst));
}

static void build_call(IrKernel *k, Node *call, IrBlock *out) {
    const char *f = call->u.call.name->s;
    IrStmt *s;
    if (!strcmp(f, "copy")) {
        s = new_stmt(k, IR_COPY, call->loc);
        s->src = region_of(k, arg_of(call, 0, "src"));
        s->dst = region_of(k, arg_of(call, 1, "dst"));
        stage_gather_rows(k, call->loc, &s->src, out);
        stage_gather_rows(k, call->loc, &s->dst, out);
    } else if (!strcmp(f, "gemm")) {
        s = new_stmt(k, IR_GEMM, call->loc);
        s->a = region_of(k, arg_of(call, 0, "A"));
        s->b = region_of(k, arg_of(call, 1, "B"));
        s->c = region_of(k, arg_of(call, 2, "C"));
        s->trans_a = bool_arg(call, 3, "transpose_a", false);
        s->trans_b = bool_arg(call, 4, "transpose_b", false);
        s->clear = bool_arg(call, 5, "clear", false);
        Node *p = arg_of(call, 6, "policy");
        /* Unsaid, the policy is square, but full_row where A is in
         * registers: the mma A operand there is the accumulator layout of
         * whole rows (infer_layout), so no other split works. */
        bool a_regs = s->a.buf && s->a.buf->scope == SCOPE_FRAGMENT;
        s->policy = !p ? (a_regs ? POLICY_FULL_ROW : POLICY_SQUARE)
                  : !strcmp(p->u.name->s, "full_row") ? POLICY_FULL_ROW
                  : !strcmp(p->u.name->s, "full_col") ? POLICY_FULL_COL : POLICY_SQUARE;
    } else if (!strcmp(f, "clear") || !strcmp(f, "fill")) {
        s = new_stmt(k, IR_FILL, call->loc);
        s->dst = region_of(k, arg_of(call, 0, "buf"));
        s->value = f[0] == 'f' ? arg_of(call, 1, "value") : NULL;
    } else if (!strncmp(f, "reduce_", 7)) {
        s = new_stmt(k, IR_REDUCE, call->loc);
        s->src = region_of(k, arg_of(call, 0, "src"));
        s->dst = region_of(k, arg_of(call, 1, "dst"));
        s->reduce_kind = !strcmp(f, "reduce_sum") ? REDUCE_SUM : !strcmp(f, "reduce_max") ? REDUCE_MAX
                       : !strcmp(f, "reduce_min") ? REDUCE_MIN : REDUCE_ABSMAX;
        Node *d = arg_of(call, 2, "dim");
        int64_t dim = d ? d->cval.i : (s->src.buf->rank == 1 ? 0 : 1);
        s->dim = (int)(dim < 0 ? dim + s->src.buf->rank : dim);
        s->clear = bool_arg(call, 3, "clear", true);
    } else if (!strcmp(f, "cumsum")) {
        build_cumsum(k, call, out);
        return;
    } else if (!strcmp(f, "atomic_add")) {
        s = new_stmt(k, IR_ATOMIC_ADD, call->loc);
        s->dst = region_of(k, arg_of(call, 0, "dst"));
        Node *src = arg_of(call, 1, "src");
        if (src->region_ext) s->src = region_of(k, src);
        else s->value = src;
    } else if (!strcmp(f, "use_swizzle")) {
        Node *p = arg_of(call, 0, "panel"), *o = arg_of(call, 1, "order");
        k->swizzle_panel = p ? (int)p->cval.i : 8;
        k->swizzle_col = o && strcmp(o->u.name->s, "row") != 0;
        return;
    } else if (!strcmp(f, "sync_threads")) {
        s = new_stmt(k, IR_SYNC, call->loc);
    } else if (!strcmp(f, "print")) {
        s = new_stmt(k, IR_PRINT, call->loc);
        s->print_args = call->u.call.args;
    } else {
        die("unexpected call '%s' in the IR builder", f);
    }
    ir_block_push(k->c, out, s);
}

static bool is_atomic_call(const Node *e) {
    return e->kind == N_CALL && e->u.call.name && !strncmp(e->u.call.name->s, "atomic_", 7);
}

/* An atomic on one element; the old value into let `old` (NULL: none). */
static void build_atomic(IrKernel *k, Node *call, Sym *old, IrBlock *out) {
    const char *f = call->u.call.name->s + 7;
    IrStmt *s = new_stmt(k, IR_ATOMIC, call->loc);
    s->atomic = !strcmp(f, "add") ? ATOMIC_ADD_OLD : !strcmp(f, "max") ? ATOMIC_MAX : !strcmp(f, "min") ? ATOMIC_MIN
              : !strcmp(f, "exch") ? ATOMIC_EXCH : ATOMIC_CAS;
    NodeList *args = &call->u.call.args;
    s->target = args->items[0];
    s->compare = s->atomic == ATOMIC_CAS ? args->items[1] : NULL;
    s->value = args->items[args->len - 1];
    s->sym = old;
    ir_block_push(k->c, out, s);
}

/* An int expression node of the IR's own making, folded where both
 * operands are constants. */
static Node *int_node(Ctx *c, Loc at, AstOp op, Node *a, Node *b) {
    Node *n = node_new(c, N_BINARY, at);
    n->u.op.op = op;
    n->u.op.a = a;
    n->u.op.b = b;
    n->dtype = DT_I32;
    n->depth = (a->depth > b->depth ? a->depth : b->depth) + 1;
    int64_t v;
    if (a->is_const && b->is_const && int_binop(op, a->cval.i, b->cval.i, &v)) {
        n->is_const = true;
        n->cval.i = v;
    }
    return n;
}

/* pipelined(a, b): every pipelining path runs its loops from 0, so the
 * loop counts tl_step_<k> over 0 .. b - a - 1 and the body starts with
 * `let k = a + tl_step_<k>`, a let of the counter and outside values that
 * the copies issued ahead evaluate for their iteration like any other. */
static void build_pipelined_span(IrKernel *k, IrStmt *loop, Node *start, Node *stop) {
    Ctx *c = k->c;
    Sym *var = loop->sym, *counter = arena_alloc(&c->arena, sizeof *counter);
    *counter = *var;
    counter->shadowed = NULL;
    counter->cname = arena_printf(&c->arena, "tl_step_%s", ir_sym_cname(c, var));
    Node *name = node_new(c, N_NAME, loop->loc);
    name->u.name = var->name;
    name->sym = counter;
    name->dtype = DT_I32;
    loop->sym = counter;
    /* b - a iterations, none where b <= a (the split and persistent
     * schedules count them as they count any trip count) */
    Node *span = int_node(c, loop->loc, OP_SUB, stop, start), *zero = node_new(c, N_INT, loop->loc);
    zero->dtype = DT_I32, zero->is_const = true;
    Node *more = int_node(c, loop->loc, OP_GT, stop, start);
    more->dtype = DT_BOOL;
    if (more->is_const) {
        loop->hi = more->cval.i ? span : zero;
    } else {
        Node *hi = node_new(c, N_COND, loop->loc);
        hi->u.cond.c = more, hi->u.cond.a = span, hi->u.cond.b = zero;
        hi->dtype = DT_I32;
        hi->depth = span->depth + 1;
        loop->hi = hi;
    }
    IrStmt *let = new_stmt(k, IR_LET, loop->loc);
    let->sym = var;
    let->value = int_node(c, loop->loc, OP_ADD, start, name);
    ir_block_push(c, &loop->body, let);
}

static void build_stmt(IrKernel *k, Node *st, IrBlock *out) {
    IrStmt *s;
    switch (st->kind) {
    case N_LET: {
        Node *v = st->u.decl.value;
        if (v->kind == N_CALL && v->u.call.name && !strncmp(v->u.call.name->s, "alloc_", 6)) return; /* buffers */
        if (v->kind == N_CALL && is_atomic_call(v)) {
            build_atomic(k, v, st->sym, out);
            return;
        }
        s = new_stmt(k, IR_LET, st->loc);
        s->value = v;
        s->sym = st->sym;
        break;
    }
    case N_VAR:
        s = new_stmt(k, IR_VAR, st->loc);
        s->value = st->u.decl.value;
        s->sym = st->sym;
        break;
    case N_ASSIGN:
        s = new_stmt(k, IR_STORE, st->loc);
        s->target = st->u.assign.lhs;
        s->value = st->u.assign.rhs;
        s->assign_op = st->u.assign.op;
        break;
    case N_EXPR_STMT:
        if (is_atomic_call(st->u.expr) && strcmp(st->u.expr->u.call.name->s, "atomic_add") != 0)
            build_atomic(k, st->u.expr, NULL, out);
        else
            build_call(k, st->u.expr, out);
        return;
    case N_FOR: {
        Node *it = st->u.loop.iter;
        const char *f = it->u.call.name->s;
        if (!strcmp(f, "parallel")) {
            s = new_stmt(k, IR_PARALLEL, st->loc);
            s->loop = LOOP_PARALLEL;
            s->nvars = st->u.loop.vars.len;
            for (int i = 0; i < s->nvars; i++) {
                s->vars[i] = st->u.loop.vars.items[i]->sym;
                s->extents[i] = it->u.call.args.items[i]->cval.i;
            }
        } else {
            s = new_stmt(k, IR_FOR, st->loc);
            s->sym = st->u.loop.vars.items[0]->sym;
            s->loop = !strcmp(f, "range") ? LOOP_RANGE : !strcmp(f, "pipelined") ? LOOP_PIPELINED : LOOP_UNROLL;
            if (s->loop == LOOP_RANGE) {
                Node *a0 = arg_of(it, 0, "start"), *a1 = arg_of(it, 1, "stop"), *a2 = arg_of(it, 2, "step");
                if (a1) { s->lo = a0; s->hi = a1; s->step = a2; }
                else s->hi = a0;
            } else if (s->loop == LOOP_UNROLL) {
                s->hi = arg_of(it, 0, "n");
            } else {
                Node *stages = arg_of(it, 2, "stages"), *start = arg_of(it, 0, "start"), *stop = arg_of(it, 1, "stop");
                s->stages = stages ? (int)stages->cval.i : 3;
                if (!stop) s->hi = start;
                else {
                    build_pipelined_span(k, s, start, stop);
                    build_block(k, st->u.loop.body, &s->body);
                    break;
                }
            }
        }
        build_block(k, st->u.loop.body, &s->body);
        break;
    }
    case N_IF:
        if (st->u.ifs.c->is_const) { /* decided by the specialisation: the branch taken, as a scope */
            const Node *c = st->u.ifs.c;
            Node *taken = node_const_true(c) ? st->u.ifs.then : st->u.ifs.els;
            if (!taken) return;
            if (taken->kind == N_IF) {
                build_stmt(k, taken, out);
                return;
            }
            s = new_stmt(k, IR_IF, st->loc);
            build_block(k, taken, &s->body);
            break;
        }
        s = new_stmt(k, IR_IF, st->loc);
        s->value = st->u.ifs.c;
        build_block(k, st->u.ifs.then, &s->body);
        if (st->u.ifs.els) {
            if (st->u.ifs.els->kind == N_IF) build_stmt(k, st->u.ifs.els, &s->els);
            else build_block(k, st->u.ifs.els, &s->els);
        }
        break;
    case N_BLOCK: /* a nested scope: an IF without a condition */
        s = new_stmt(k, IR_IF, st->loc);
        build_block(k, st, &s->body);
        break;
    default: die("unexpected statement %s in the IR builder", node_kind_name(st->kind));
    }
    ir_block_push(k->c, out, s);
}

static void build_block(IrKernel *k, Node *block, IrBlock *out) {
    for (int i = 0; i < block->u.list.len; i++) build_stmt(k, block->u.list.items[i], out);
}

IrKernel *ir_build(Ctx *c, KernelInfo *info, const Target *target, const PlanOptions *plan) {
    IrKernel *k = arena_alloc(&c->arena, sizeof *k);
    k->c = c;
    k->info = info;
    k->target = *target;
    k->plan = *plan;
    k->arch = target->arch;
    k->arch_specific = target->arch_specific;
    for (int i = 0; i < info->params.len; i++) {
        Sym *p = info->params.items[i];
        if (p->kind == SYM_TENSOR) vec_push(&c->arena, &k->params, new_buf(k, p));
    }
    for (int i = 0; i < info->buffers.len; i++) vec_push(&c->arena, &k->buffers, new_buf(k, info->buffers.items[i]));
    memcpy(k->grid, info->grid, sizeof k->grid);
    k->grid_rank = info->grid_rank;
    k->threads = info->threads;
    k->sched.order_dim = -1;
    build_block(k, info->node->u.kernel.body, &k->body);
    return k;
}
