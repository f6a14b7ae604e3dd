/* sema_pipeline.c - a pipeline's body (LANGUAGE.md §8): scratch buffers
 * (`let part = alloc_global([B, H, SPLITS], f32);`) and stages (`split(Q,
 * K, part);`), kernels of the same file run in order on one stream.
 *
 * A stage's arguments bind the kernel's parameters by position: tensors
 * (the pipeline's own or its scratch) of the parameter's dtype and rank,
 * scalars as constants or the pipeline's scalar parameters. The kernel's
 * size variables take the extents of the tensors passed (its `where`
 * values for them give way); one that two arguments give different values
 * is an error there. The driver then specialises each stage's kernel with
 * those sizes (PipelineStage.sizes) and compiles it as any kernel. */
#include <string.h>

#include "sema.h"

/* The kernel of the file a stage names, or NULL after an error. */
static Node *stage_kernel(Sema *s, const Node *call) {
    const Name *name = call->u.call.name;
    const NodeList *items = &s->program->u.list;
    for (int i = 0; i < items->len; i++) {
        Node *it = items->items[i];
        if (it->kind != N_KERNEL || it->u.kernel.name != name) continue;
        if (it->u.kernel.pipeline) {
            diag_error(s->c, call->loc, "'%s' is a pipeline; a stage is a kernel", name->s);
            return NULL;
        }
        return it;
    }
    diag_error(s->c, call->loc, "'%s' is not a kernel of this file; a pipeline's stages are its kernels", name->s);
    return NULL;
}

/* `let NAME = alloc_global([dims], dtype);`: a tensor tilec allocates for
 * the run, read and written by the stages. */
static void declare_scratch(Sema *s, KernelInfo *k, Node *st) {
    Node *v = st->u.decl.value;
    NodeList *args = &v->u.call.args;
    if (args->len != 2 || args->items[0]->kind != N_LIST || args->items[1]->kind != N_DTYPE) {
        diag_error(s->c, v->loc, "alloc_global takes a shape and a dtype: alloc_global([B, H, D], f32)");
        return;
    }
    Sym *t = sym_new(s, SYM_TENSOR, st->u.decl.name, st->loc);
    t->decl = st;
    t->dtype = args->items[1]->u.dt;
    t->mode = MODE_INOUT;
    t->scope = SCOPE_GLOBAL;
    NodeList *dims = &args->items[0]->u.list;
    if (dims->len < 1 || dims->len > MAX_RANK) {
        diag_error(s->c, args->items[0]->loc, "a scratch buffer has 1 to %d dimensions", MAX_RANK);
        return;
    }
    t->rank = dims->len;
    int64_t elems = 1;
    for (int d = 0; d < dims->len; d++) {
        Node *e = dims->items[d];
        t->shape[d] = 1;
        if (!check_int(s, e, "a dimension of alloc_global")) return;
        if (!e->is_const) {
            /* a dynamic size without a value: nothing runs, nothing to size */
            if (e->kind == N_NAME && e->sym && e->sym->dynamic) continue;
            diag_error(s->c, e->loc, "a dimension of alloc_global is a size or a constant, known before the run");
            return;
        }
        if (e->cval.i < 1) {
            diag_error(s->c, e->loc, "a dimension of alloc_global must be positive, not %lld", (long long)e->cval.i);
            return;
        }
        t->shape[d] = e->cval.i;
        if (__builtin_mul_overflow(elems, e->cval.i, &elems) || elems > (INT64_C(1) << 40)) {
            diag_error(s->c, e->loc, "this scratch buffer is absurdly large (more than 2^40 elements)");
            return;
        }
        if (e->kind == N_NAME && e->sym && (e->sym->kind == SYM_SIZE || e->sym->kind == SYM_CONST)) t->dim_sym[d] = e->sym;
    }
    if (sym_declare(s, t)) vec_push(&s->c->arena, &k->scratch, t);
}

/* Binds size variable `size` of the stage's kernel to v; false after an
 * error at `at` when an earlier argument gave it another value. */
static bool bind_size(Sema *s, PipelineStage *st, const Name *size, int64_t v, const Node *at, const char *what) {
    for (int i = 0; i < st->nsizes; i++) {
        if (strcmp(st->sizes[i].name, size->s)) continue;
        if (st->sizes[i].i == v) return true;
        diag_error(s->c, at->loc, "the shapes passed to '%s' do not agree: its size '%s' is %lld from an earlier "
                   "argument, but %lld from %s", st->kernel->s, size->s, (long long)st->sizes[i].i, (long long)v, what);
        return false;
    }
    st->sizes[st->nsizes++] = (Override){.name = size->s, .i = v};
    return true;
}

/* Argument a for tensor parameter p of the stage's kernel. */
static bool bind_tensor(Sema *s, PipelineStage *st, int i, Node *a, const Node *p) {
    const char *pname = p->u.param.name->s, *kname = st->kernel->s;
    Sym *t = a->kind == N_NAME ? sym_lookup(a->u.name) : NULL;
    if (!t || t->kind != SYM_TENSOR) {
        diag_error(s->c, a->loc, "parameter '%s' of '%s' is a tensor: pass a tensor of the pipeline or a buffer of "
                   "alloc_global", pname, kname);
        return false;
    }
    t->used = true;
    a->sym = t;
    const NodeList *dims = &p->u.param.dims;
    if (t->dtype != p->u.param.dt || t->rank != dims->len) {
        diag_error(s->c, a->loc, "'%s' is %s with %d dimension%s, but parameter '%s' of '%s' is %s with %d",
                   t->name->s, dtype_name(t->dtype), t->rank, t->rank == 1 ? "" : "s", pname, kname,
                   dtype_name(p->u.param.dt), dims->len);
        return false;
    }
    if (p->u.param.mode != MODE_IN) t->body_written = true;
    if (p->u.param.mode != MODE_IN && t->mode == MODE_IN) {
        diag_error(s->c, a->loc, "'%s' writes its parameter '%s', but '%s' is an input of the pipeline (declare it "
                   "inout)", kname, pname, t->name->s);
        return false;
    }
    for (int d = 0; d < dims->len; d++) {
        const Node *dn = dims->items[d];
        /* a dynamic size of the pipeline without a value: no run, no extent */
        if (t->dim_sym[d] && t->dim_sym[d]->dynamic && !t->dim_sym[d]->has_value) continue;
        if (dn->kind == N_INT) {
            if (dn->u.ival == t->shape[d]) continue;
            diag_error(s->c, a->loc, "dimension %d of parameter '%s' of '%s' is %lld, but '%s' has %lld there", d, pname,
                       kname, (long long)dn->u.ival, t->name->s, (long long)t->shape[d]);
            return false;
        }
        char what[160];
        snprintf(what, sizeof what, "'%s' (dimension %d)", t->name->s, d);
        if (!bind_size(s, st, dn->u.name, t->shape[d], a, what)) return false;
    }
    st->tensor[i] = t;
    return true;
}

/* Argument a for scalar parameter p: a constant, or a scalar parameter of
 * the pipeline (a run-time value passed on). */
static bool bind_scalar(Sema *s, PipelineStage *st, int i, Node *a, const Node *p) {
    Sym *named = a->kind == N_NAME ? sym_lookup(a->u.name) : NULL;
    bool param = named && named->kind == SYM_SCALAR && named->scope_depth == 1;
    if (param) { /* passed on at launch, as its value at run time */
        named->used = true;
        a->sym = named;
        a->dtype = named->dtype;
    } else if (!check_expr(s, a)) {
        return false;
    }
    if (!a->is_const && !param) {
        diag_error(s->c, a->loc, "parameter '%s' of '%s' is a scalar: pass a constant or a scalar parameter of the "
                   "pipeline", p->u.param.name->s, st->kernel->s);
        return false;
    }
    if (dtype_is_float(a->dtype) && !dtype_is_float(p->u.param.dt)) {
        diag_error(s->c, a->loc, "parameter '%s' of '%s' is %s, and this is a float", p->u.param.name->s,
                   st->kernel->s, dtype_name(p->u.param.dt));
        return false;
    }
    st->value[i] = a;
    return true;
}

static void check_stage(Sema *s, KernelInfo *k, Node *call) {
    Node *kernel = stage_kernel(s, call);
    if (!kernel) return;
    NodeList *params = &kernel->u.kernel.params, *args = &call->u.call.args;
    if (args->len != params->len) {
        diag_error(s->c, call->loc, "'%s' takes %d argument%s (its parameters), not %d", kernel->u.kernel.name->s,
                   params->len, params->len == 1 ? "" : "s", args->len);
        diag_note(s->c, kernel->loc, "'%s' is declared here", kernel->u.kernel.name->s);
        return;
    }
    Arena *a = &s->c->arena;
    PipelineStage *st = arena_alloc(a, sizeof *st);
    st->call = call;
    st->kernel = kernel->u.kernel.name;
    st->nargs = params->len;
    st->tensor = arena_alloc(a, sizeof(Sym *) * (size_t)(params->len + 1));
    st->value = arena_alloc(a, sizeof(Node *) * (size_t)(params->len + 1));
    st->sizes = arena_alloc(a, sizeof(Override) * (size_t)(params->len * MAX_RANK + 1));
    bool ok = true;
    for (int i = 0; i < args->len && ok; i++) {
        Node *arg = args->items[i];
        const Node *p = params->items[i];
        if (arg->kind == N_NAMED_ARG) {
            diag_error(s->c, arg->loc, "a stage's arguments bind the kernel's parameters by position");
            return;
        }
        ok = p->u.param.has_dims ? bind_tensor(s, st, i, arg, p) : bind_scalar(s, st, i, arg, p);
    }
    if (ok) vec_push(a, &k->stages, st);
}

void check_pipeline_body(Sema *s, KernelInfo *k) {
    Node *body = k->node->u.kernel.body;
    scope_push(s);
    for (int i = 0; i < body->u.list.len; i++) {
        Node *st = body->u.list.items[i];
        Node *v = st->kind == N_LET ? st->u.decl.value : st->kind == N_EXPR_STMT ? st->u.expr : NULL;
        bool call = v && v->kind == N_CALL && v->u.call.name;
        if (st->kind == N_LET && call && !strcmp(v->u.call.name->s, "alloc_global")) declare_scratch(s, k, st);
        else if (st->kind == N_EXPR_STMT && call) check_stage(s, k, v);
        else
            diag_error(s->c, st->loc, "a pipeline's body has scratch buffers (let NAME = alloc_global(shape, dtype);) "
                       "and stages (kernel(arguments);), nothing else");
    }
    if (!k->stages.len && !s->c->errors) diag_error(s->c, k->node->loc, "pipeline '%s' has no stages", k->name->s);
    for (int i = 0; i < k->params.len && k->stages.len && !s->c->errors; i++) {
        const Sym *t = k->params.items[i];
        if (t->kind == SYM_TENSOR && t->mode == MODE_OUT && !t->body_written)
            diag_error(s->c, t->loc, "no stage writes the output '%s' (pass it to a kernel's out or inout parameter)",
                       t->name->s);
    }
    scope_pop(s);
}
