/* sema.c - semantic analysis: scopes, kernel headers (parameters, sizes,
 * clauses, specialisation with --set), and the statements of kernel
 * bodies. Expressions, tile operations, the reference block and the race
 * checker of parallel loops (sema_race.c) have files of their own. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sema.h"

/* ---- scopes: names bind directly on their interned Name ---- */

void scope_push(Sema *s) {
    s->depth++;
    vec_push(&s->c->arena, &s->scope_marks, (void *)(intptr_t)s->scope_syms.len);
}

void scope_pop(Sema *s) {
    int mark = (int)(intptr_t)s->scope_marks.items[--s->scope_marks.len];
    while (s->scope_syms.len > mark) {
        Sym *sym = s->scope_syms.items[--s->scope_syms.len];
        sym->name->binding = sym->shadowed;
    }
    s->depth--;
}

Sym *sym_new(Sema *s, SymKind kind, Name *name, Loc loc) {
    Sym *sym = arena_alloc(&s->c->arena, sizeof *sym);
    sym->kind = kind;
    sym->name = name;
    sym->loc = loc;
    return sym;
}

void sym_take_const(Sym *sym, const Node *v) {
    if (!v->is_const) return;
    sym->has_value = true;
    sym->value_float = v->const_float;
    sym->value.i = v->cval.i;
    if (v->const_float) sym->value.f = v->cval.f;
}

Sym *sym_lookup(Name *name) { return name->binding; }

bool sym_declare(Sema *s, Sym *sym) {
    Sym *old = sym->name->binding;
    /* Redefinition in one scope is an error, and so is reusing a name of
     * the file or the kernel header (sizes, parameters, tunables ...)
     * anywhere in a kernel; names local to the body may be shadowed in
     * nested blocks. The reference's own names may take a block index's
     * name: block indices mean nothing there (LANGUAGE.md 5). */
    bool ref_name = sym->kind == SYM_REF_INDEX || sym->kind == SYM_REF_TEMP || sym->kind == SYM_REF_LET;
    bool may_shadow = old && ref_name && old->kind == SYM_BLOCK_IDX && old->scope_depth < s->depth;
    if (old && !may_shadow && (old->scope_depth == s->depth || old->scope_depth <= 1)) {
        if (old->scope_depth == s->depth)
            diag_error(s->c, sym->loc, "'%s' is already defined", sym->name->s);
        else
            diag_error(s->c, sym->loc, "'%s' is already defined as a %s", sym->name->s, sym_kind_name(old->kind));
        diag_note(s->c, old->loc, "'%s' was defined here", sym->name->s);
        return false;
    }
    sym->shadowed = old;
    sym->scope_depth = s->depth;
    sym->name->binding = sym;
    vec_push(&s->c->arena, &s->scope_syms, sym);
    return true;
}

/* ---- run-time guards: the conditions around a statement ---- */

void guard_enter(Sema *s, const Node *cond, bool runtime, int sense) {
    if (!runtime) return;
    s->guarded++;
    vec_push(&s->c->arena, &s->guards, (void *)cond);
    vec_push(&s->c->arena, &s->guard_senses, (void *)(intptr_t)sense);
}

void guard_leave(Sema *s, bool runtime) {
    if (!runtime) return;
    s->guarded--;
    s->guards.len--;
    s->guard_senses.len--;
}

/* ---- kernel header ---- */

static void declare_params(Sema *s, KernelInfo *k) {
    NodeList *params = &k->node->u.kernel.params;
    for (int i = 0; i < params->len; i++) {
        Node *p = params->items[i];
        bool tensor = p->u.param.has_dims;
        Sym *sym = sym_new(s, tensor ? SYM_TENSOR : SYM_SCALAR, p->u.param.name, p->loc);
        sym->decl = p;
        sym->dtype = p->u.param.dt;
        sym->mode = p->u.param.mode;
        sym->scope = SCOPE_GLOBAL;
        if (!tensor && sym->mode != MODE_IN) {
            diag_error(s->c, p->loc, "scalar parameter '%s' cannot be %s; only tensors are outputs", sym->name->s,
                       sym->mode == MODE_OUT ? "out" : "inout");
        }
        if (!sym_declare(s, sym)) continue;
        vec_push(&s->c->arena, &k->params, sym);
        if (!tensor) {
            vec_push(&s->c->arena, &k->values, sym);
            continue;
        }
        NodeList *dims = &p->u.param.dims;
        if (dims->len > MAX_RANK) {
            diag_error(s->c, p->loc, "tensors have at most %d dimensions", MAX_RANK);
            continue;
        }
        sym->rank = dims->len;
        for (int j = 0; j < dims->len; j++) {
            Node *d = dims->items[j];
            if (d->kind == N_INT) {
                if (d->u.ival < 1) diag_error(s->c, d->loc, "tensor dimensions must be positive");
                sym->shape[j] = d->u.ival;
                continue;
            }
            Sym *size = sym_lookup(d->u.name);
            if (size && (size->kind == SYM_SIZE || size->kind == SYM_CONST)) {
                sym->dim_sym[j] = size;
                d->sym = size;
                continue;
            }
            if (size) {
                diag_error(s->c, d->loc, "'%s' is a %s, not a size", size->name->s, sym_kind_name(size->kind));
                continue;
            }
            size = sym_new(s, SYM_SIZE, d->u.name, d->loc);
            size->decl = d;
            size->dtype = DT_INT_LIT;
            sym_declare(s, size);
            vec_push(&s->c->arena, &k->values, size);
            sym->dim_sym[j] = size;
            d->sym = size;
        }
    }
}

/* `dynamic M, K % 64`: each name a size of the kernel's tensors, once. */
static void declare_dynamic(Sema *s, KernelInfo *k, Node *c) {
    for (int j = 0; j < c->u.list.len; j++) {
        Node *b = c->u.list.items[j];
        Sym *size = sym_lookup(b->u.named.name);
        if (!size || size->scope_depth != 1 || size->kind != SYM_SIZE) {
            if (size && size->kind == SYM_CONST)
                diag_error(s->c, b->loc, "'%s' is a file-level constant; `dynamic` names sizes of the kernel's tensors",
                           size->name->s);
            else
                diag_error(s->c, b->loc, "'%s' is not a size of the kernel's tensors; `dynamic` names tensor dimensions "
                           "(A: f16[M, K] makes M and K sizes)", b->u.named.name->s);
            continue;
        }
        if (size->dynamic) {
            diag_error(s->c, b->loc, "'%s' is named dynamic twice", size->name->s);
            continue;
        }
        if (k->dynamic.len == 8) { /* RT_MAX_DYNAMIC: the launch's table of sizes */
            diag_error(s->c, b->loc, "a kernel has at most 8 dynamic sizes");
            continue;
        }
        Node *d = b->u.named.value;
        /* a promise past 2^30 could only be kept by sizes past 2^31 - 1 */
        if (d && (d->u.ival < 1 || d->u.ival > (INT64_C(1) << 30)))
            diag_error(s->c, d->loc, "the divisor a dynamic size is promised to be a multiple of is 1 to 2^30, not %lld",
                       (long long)d->u.ival);
        if (s->opt->specialise) continue; /* checked, then compiled in like any size */
        size->dynamic = true;
        size->divisor = d && d->u.ival >= 1 && d->u.ival <= (INT64_C(1) << 30) ? d->u.ival : 1;
        vec_push(&s->c->arena, &k->dynamic, size);
    }
}

/* Why value v of dynamic size sym cannot be used, or NULL. */
static const char *dynamic_value_fault(const Sym *sym, int64_t v) {
    if (v > INT32_MAX) return "a dynamic size is at most 2^31 - 1";
    if (v % sym->divisor) return "the value breaks the dynamic size's `%` promise";
    return NULL;
}

static void declare_clauses(Sema *s, KernelInfo *k) {
    NodeList *cl = &k->node->u.kernel.clauses;
    bool seen_grid = false, seen_threads = false;
    for (int i = 0; i < cl->len; i++) {
        Node *c = cl->items[i];
        if (k->pipeline && (c->kind == N_GRID || c->kind == N_THREADS || c->kind == N_TUNE || c->kind == N_TUNE_FOR)) {
            diag_error(s->c, c->loc, "a pipeline has no %s: its stages are kernels with their own",
                       c->kind == N_GRID ? "grid" : c->kind == N_THREADS ? "threads" : "tunables");
            continue;
        }
        if (c->kind == N_WHERE) {
            for (int j = 0; j < c->u.list.len; j++) {
                Node *b = c->u.list.items[j];
                Sym *old = sym_lookup(b->u.named.name);
                if (old && old->scope_depth == 1 && (old->kind == SYM_SIZE || old->kind == SYM_SCALAR)) {
                    if (old->value_expr) {
                        diag_error(s->c, b->loc, "'%s' is given a value twice", old->name->s);
                        diag_note(s->c, old->value_expr->loc, "the first value is here");
                        continue;
                    }
                    old->value_expr = b->u.named.value;
                    continue;
                }
                if (old && old->kind == SYM_TENSOR) {
                    diag_error(s->c, b->loc, "'%s' is a tensor parameter; `where` gives values to sizes, scalars and constants",
                               old->name->s);
                    continue;
                }
                Sym *sym = sym_new(s, SYM_WHERE, b->u.named.name, b->loc);
                sym->decl = b;
                sym->value_expr = b->u.named.value;
                if (sym_declare(s, sym)) vec_push(&s->c->arena, &k->values, sym);
            }
        } else if (c->kind == N_TUNE) {
            for (int j = 0; j < c->u.list.len; j++) {
                Node *t = c->u.list.items[j];
                Sym *old = sym_lookup(t->u.tunable.name);
                if (old && old->scope_depth == 1 && old->kind == SYM_SIZE) {
                    /* a tensor dimension is a size, given in where or --set,
                     * not searched by --autotune; it takes the value
                     * written here, so its uses bring no more errors */
                    diag_error(s->c, t->loc, "'%s' is a size (a tensor's dimension): give it its value in `where`, "
                               "not `tune`", old->name->s);
                    if (!old->value_expr) old->value_expr = t->u.tunable.value;
                    continue;
                }
                Sym *sym = sym_new(s, SYM_TUNE, t->u.tunable.name, t->loc);
                sym->decl = t;
                sym->value_expr = t->u.tunable.value;
                if (sym_declare(s, sym)) vec_push(&s->c->arena, &k->values, sym);
            }
        } else if (c->kind == N_DYNAMIC) {
            declare_dynamic(s, k, c);
        } else if (c->kind == N_GRID) {
            if (seen_grid) {
                diag_error(s->c, c->loc, "grid is given twice");
                continue;
            }
            seen_grid = true;
            NodeList *ex = &c->u.grid.exprs, *names = &c->u.grid.names;
            if (ex->len > 3) diag_error(s->c, c->loc, "grid has at most 3 dimensions, not %d", ex->len);
            else if (names->len != ex->len)
                diag_error(s->c, c->u.grid.names.items[0]->loc, "grid has %d dimension%s but `as` names %d block ind%s",
                           ex->len, ex->len == 1 ? "" : "s", names->len, names->len == 1 ? "ex" : "ices");
            for (int j = 0; j < names->len; j++) {
                Node *n = names->items[j];
                Sym *sym = sym_new(s, SYM_BLOCK_IDX, n->u.name, n->loc);
                sym->decl = n;
                sym->dtype = DT_I32;
                n->sym = sym;
                if (sym_declare(s, sym)) vec_push(&s->c->arena, &k->block_idx, sym);
            }
        } else if (c->kind == N_THREADS) {
            if (seen_threads) diag_error(s->c, c->loc, "threads is given twice");
            seen_threads = true;
        }
    }
}

static Sym *find_value(KernelInfo *k, const char *name) {
    for (int i = 0; i < k->values.len; i++) {
        Sym *v = k->values.items[i];
        if (strcmp(v->name->s, name) == 0) return v;
    }
    return NULL;
}

/* e checked as a tunable's default: a compile-time constant; false after
 * its error. */
static bool const_default(Sema *s, Node *e) {
    ExprMode mode = s->mode;
    s->mode = EM_CONST;
    bool ok = check_expr(s, e);
    s->mode = mode;
    if (ok && !e->is_const) diag_error(s->c, e->loc, "a tunable's default must be a compile-time constant");
    return ok && e->is_const;
}

/* `tune sm_90a: BM = 192, BN = 96`: other defaults of the kernel's tunables
 * where it is compiled for that target (a --set value, or an autotuned
 * one, still wins). Every such clause is checked whatever the target: the
 * names are tunables of the kernel, each once, the values compile-time
 * constants (among the tunable's choices: evaluate_values, where the
 * choices are checked, once). */
static void tune_for_clauses(Sema *s, KernelInfo *k) {
    NodeList *cl = &k->node->u.kernel.clauses;
    for (int i = 0; i < cl->len; i++) {
        Node *c = cl->items[i];
        if (c->kind != N_TUNE_FOR || k->pipeline) continue;
        const char *arch = c->u.tune_for.arch->s;
        bool specific;
        if (!target_arch_number(arch, &specific)) {
            diag_error(s->c, c->u.tune_for.arch_loc, "'%s' is not a target (sm_80, sm_90a, ...): `tune TARGET:` gives "
                       "tunables their defaults on one target", arch);
            continue;
        }
        bool twice = false;
        for (int j = 0; j < i && !twice; j++) {
            Node *e = cl->items[j];
            if (e->kind == N_TUNE_FOR && !strcmp(e->u.tune_for.arch->s, arch)) {
                diag_error(s->c, c->u.tune_for.arch_loc, "the defaults for %s are given twice", arch);
                diag_note(s->c, e->u.tune_for.arch_loc, "the first are here");
                twice = true;
            }
        }
        if (twice) continue;
        bool here = s->opt->arch && !strcmp(s->opt->arch, arch);
        NodeList *binds = &c->u.tune_for.binds;
        for (int j = 0; j < binds->len; j++) {
            Node *b = binds->items[j];
            Sym *v = find_value(k, b->u.named.name->s);
            if (!v || v->kind != SYM_TUNE) {
                diag_error(s->c, b->loc, "'%s' is not a tunable of kernel '%s': `tune %s:` gives the kernel's tunables "
                           "their defaults on %s", b->u.named.name->s, k->name->s, arch, arch);
                continue;
            }
            bool again = false;
            for (int m = 0; m < j; m++) again |= ((Node *)binds->items[m])->u.named.name == b->u.named.name;
            if (again) {
                diag_error(s->c, b->loc, "'%s' is given twice for %s", v->name->s, arch);
                continue;
            }
            if (!const_default(s, b->u.named.value)) continue;
            b->sym = v; /* accepted: evaluate_values checks it against the choices */
            if (here) {
                v->value_expr = b->u.named.value;
                v->target_default = true;
            }
        }
    }
}

/* False when a --set value for k cannot be used (the driver says why). */
static bool apply_overrides(Sema *s, KernelInfo *k) {
    bool usable = true;
    for (int i = 0; i < s->opt->n_overrides; i++) {
        Override *o = &s->opt->overrides[i];
        Sym *v = find_value(k, o->name);
        if (!v || (o->where_only && v->kind != SYM_WHERE)) continue;
        o->used = true;
        v->overridden = true;
        v->has_value = true;
        v->value_float = o->is_float;
        if (o->is_float) v->value.f = o->f;
        else v->value.i = o->i;
        /* A value that cannot be used is a command-line error (exit 2),
         * reported by the driver from o->invalid. */
        if (v->kind == SYM_SIZE && (o->is_float || o->is_bool || o->i < 1)) {
            o->invalid = "a size must be a positive integer";
        } else if (v->kind == SYM_SIZE && v->dynamic) {
            o->invalid = dynamic_value_fault(v, o->i);
        } else if (v->kind == SYM_SCALAR && !dtype_is_float(v->dtype) && o->is_float) {
            o->invalid = "this scalar parameter is an integer";
        } else if (v->kind == SYM_SCALAR && dtype_is_float(v->dtype)) {
            /* what the dtype holds, as from `where` */
            double given = o->is_float ? o->f : (double)o->i;
            v->value_float = true;
            v->value.f = dtype_round_float(v->dtype, given);
            if (isfinite(given) && !isfinite(v->value.f)) o->invalid = "the value does not fit the parameter's dtype";
        } else if (v->kind == SYM_SCALAR && !o->is_float) {
            int bits = dtype_bytes(v->dtype) * 8;
            bool sgn = dtype_is_signed(v->dtype);
            if (v->dtype == DT_BOOL ? (o->i != 0 && o->i != 1)
                : bits < 64 && (sgn ? (o->i < -(INT64_C(1) << (bits - 1)) || o->i >= (INT64_C(1) << (bits - 1)))
                                    : (o->i < 0 || o->i >= (INT64_C(1) << bits))))
                o->invalid = "the value does not fit the parameter's dtype";
        }
        if (o->invalid) v->has_value = false, usable = false;
        if (v->kind != SYM_SCALAR) v->dtype = v->kind == SYM_SIZE || !o->is_float ? DT_INT_LIT : DT_FLOAT_LIT;
    }
    return usable;
}

/* Every value gets evaluated, so an unused where constant with a bad
 * value is still reported, and tunables are checked against their list. */
static void evaluate_values(Sema *s, KernelInfo *k) {
    for (int i = 0; i < k->values.len; i++) {
        Sym *v = k->values.items[i];
        /* a scalar parameter needs a value only to be run by tilec itself
         * (the profiler says so then): a program passes it at launch */
        if ((v->kind == SYM_SCALAR || v->dynamic) && !v->value_expr && !v->overridden) continue;
        bool valued = sym_value(s, v, v->loc);
        if (valued && v->dynamic && !v->overridden) {
            if (v->value.i > INT32_MAX)
                diag_error(s->c, v->value_expr->loc, "dynamic size %s = %lld: a dynamic size is at most 2^31 - 1",
                           v->name->s, (long long)v->value.i);
            else if (v->value.i % v->divisor)
                diag_error(s->c, v->value_expr->loc, "%s = %lld breaks the promise %s %% %lld of the dynamic clause",
                           v->name->s, (long long)v->value.i, v->name->s, (long long)v->divisor);
        }
        if (!valued || v->kind != SYM_TUNE) continue;
        Node *t = v->decl;
        if (!t->u.tunable.has_choices) continue;
        /* the default as written, checked here where a `tune TARGET:` one
         * (checked against the choices there) is in force instead */
        if (v->value_expr != t->u.tunable.value && !const_default(s, t->u.tunable.value)) continue;
        bool found = false;
        for (int j = 0; j < t->u.tunable.choices.len; j++) {
            Node *ch = t->u.tunable.choices.items[j];
            ExprMode mode = s->mode;
            s->mode = EM_CONST;
            bool ok = check_expr(s, ch);
            s->mode = mode;
            if (!ok) continue;
            if (!ch->is_const) {
                diag_error(s->c, ch->loc, "the choices of a tunable must be compile-time constants");
                continue;
            }
            if (!v->overridden && const_as_float(ch) == const_as_float(t->u.tunable.value)) found = true;
        }
        if (!v->overridden && !found)
            diag_error(s->c, t->u.tunable.value->loc, "the default of tunable '%s' is not one of its choices", v->name->s);
        /* the defaults `tune TARGET:` clauses give it (those tune_for_clauses accepted) */
        NodeList *cl = &k->node->u.kernel.clauses;
        for (int c = 0; c < cl->len; c++) {
            const Node *tf = cl->items[c];
            for (int j = 0; tf->kind == N_TUNE_FOR && j < tf->u.tune_for.binds.len; j++) {
                const Node *b = tf->u.tune_for.binds.items[j];
                if (b->sym != v) continue;
                bool listed = false;
                for (int m = 0; m < t->u.tunable.choices.len; m++) {
                    const Node *ch = t->u.tunable.choices.items[m];
                    listed |= ch->is_const && const_as_float(ch) == const_as_float(b->u.named.value);
                }
                if (!listed)
                    diag_error(s->c, b->u.named.value->loc, "the default of tunable '%s' on %s is not one of its choices",
                               v->name->s, tf->u.tune_for.arch->s);
            }
        }
    }
    /* Tensor extents after specialisation. */
    for (int i = 0; i < k->params.len; i++) {
        Sym *p = k->params.items[i];
        if (p->kind != SYM_TENSOR) continue;
        int64_t elems = 1;
        bool huge = false;
        for (int j = 0; j < p->rank; j++) {
            if (p->dim_sym[j]) p->shape[j] = p->dim_sym[j]->has_value && !p->dim_sym[j]->value_float ? p->dim_sym[j]->value.i : 1;
            huge |= __builtin_mul_overflow(elems, p->shape[j], &elems) || elems > (INT64_C(1) << 48);
        }
        /* element offsets are 64-bit, and no device holds 2^48 elements */
        if (huge)
            diag_error(s->c, p->loc, "the tensor '%s' is absurdly large (more than 2^48 elements at these sizes)", p->name->s);
    }
}

static bool valueless_dynamic(const KernelInfo *k) {
    for (int i = 0; i < k->dynamic.len; i++)
        if (!((const Sym *)k->dynamic.items[i])->has_value) return true;
    return false;
}

static void check_launch(Sema *s, KernelInfo *k) {
    NodeList *cl = &k->node->u.kernel.clauses;
    k->threads = 128;
    k->grid[0] = k->grid[1] = k->grid[2] = 1;
    k->grid_rank = 1;
    s->mode = EM_CONST;
    for (int i = 0; i < cl->len; i++) {
        Node *c = cl->items[i];
        if (c->kind == N_GRID) {
            NodeList *ex = &c->u.grid.exprs;
            /* CUDA's limits: x up to 2^31 - 1 blocks, y and z up to 65535. */
            static const int64_t limit[3] = {2147483647, 65535, 65535};
            k->grid_rank = ex->len > 3 ? 3 : ex->len;
            for (int j = 0; j < ex->len && j < 3; j++) {
                int64_t g;
                k->grid_expr[j] = ex->items[j];
                s->mode = EM_GRID;
                bool ok = check_int(s, ex->items[j], "a grid dimension");
                s->mode = EM_CONST;
                if (ok && !ex->items[j]->is_const) { /* of dynamic sizes: evaluated at launch */
                    k->grid[j] = -1;
                    continue;
                }
                if (!ok || !const_int_of(s, ex->items[j], "a grid dimension", &g)) continue;
                if (g < 1) diag_error(s->c, ex->items[j]->loc, "grid dimension %d is %lld; it must be at least 1", j, (long long)g);
                else if (g > limit[j])
                    diag_error(s->c, ex->items[j]->loc, "grid dimension %d is %lld blocks; CUDA allows at most %lld", j,
                               (long long)g, (long long)limit[j]);
                k->grid[j] = g;
            }
        } else if (c->kind == N_THREADS) {
            int64_t t;
            if (!check_const_int(s, c->u.expr, "threads", &t)) continue;
            if (t < 1 || t > 1024)
                diag_error(s->c, c->u.expr->loc, "threads is %lld; a block has 1 to 1024 threads", (long long)t);
            k->threads = t;
        } else if (c->kind == N_INPUTS) {
            s->mode = EM_HOST;
            check_inputs(s, k, c);
            s->mode = EM_CONST;
        } else if (c->kind == N_FLOPS || c->kind == N_BYTES) {
            Node *e = c->u.expr;
            s->mode = EM_HOST;
            bool ok = check_expr(s, e);
            s->mode = EM_CONST;
            if (!ok) continue;
            /* a dynamic size without a value leaves them unknown until a run gives one */
            if (!e->is_const && valueless_dynamic(k)) continue;
            if (!e->is_const)
                diag_error(s->c, e->loc, "%s must be a compile-time constant", c->kind == N_FLOPS ? "flops" : "bytes");
            else if (!dtype_is_int(e->dtype) && !dtype_is_float(e->dtype))
                diag_error(s->c, e->loc, "%s must be a number", c->kind == N_FLOPS ? "flops" : "bytes");
            else if (const_as_float(e) < 0)
                diag_error(s->c, e->loc, "%s must not be negative", c->kind == N_FLOPS ? "flops" : "bytes");
        }
    }
}

/* ---- kernel body ---- */

static void check_block(Sema *s, Node *block);

/* The out tensor a region names (T, T[...]), if any. */
static Sym *out_tensor_named(const Node *e) {
    const Name *n = e->kind == N_INDEX ? e->u.index.name : e->kind == N_NAME ? e->u.name : NULL;
    Sym *sym = n ? sym_lookup((Name *)n) : NULL;
    return sym && sym->kind == SYM_TENSOR && sym->mode == MODE_OUT ? sym : NULL;
}

/* Marks the out tensors a loop body stores into (an element assigned with
 * =, a copy's or a fill's destination) as written before the loop runs:
 * an iteration may read back what an earlier one wrote, wherever the store
 * stands in the body (`Y = (k == 0 ? 0 : Y) + X`). atomic_add is no such
 * store: it adds to the old values. */
static void mark_loop_writes(Node *block);

static void mark_stmt_writes(Node *st) {
    Sym *t = NULL;
    if (st->kind == N_ASSIGN && st->u.assign.op == OP_ASSIGN) {
        t = out_tensor_named(st->u.assign.lhs);
    } else if (st->kind == N_EXPR_STMT && st->u.expr->kind == N_CALL && st->u.expr->u.call.name) {
        const char *f = st->u.expr->u.call.name->s;
        const NodeList *args = &st->u.expr->u.call.args;
        int dst = !strcmp(f, "copy") ? 1 : !strcmp(f, "fill") || !strcmp(f, "clear") ? 0 : -1;
        if (dst >= 0 && dst < args->len && args->items[dst]->kind != N_NAMED_ARG) t = out_tensor_named(args->items[dst]);
    } else if (st->kind == N_FOR) {
        mark_loop_writes(st->u.loop.body);
    } else if (st->kind == N_IF) {
        mark_loop_writes(st->u.ifs.then);
        if (st->u.ifs.els && st->u.ifs.els->kind == N_IF) mark_stmt_writes(st->u.ifs.els);
        else if (st->u.ifs.els) mark_loop_writes(st->u.ifs.els);
    }
    if (t) t->body_written = true;
}

static void mark_loop_writes(Node *block) {
    for (int i = 0; block && i < block->u.list.len; i++) mark_stmt_writes(block->u.list.items[i]);
}

/* `x = alloc_fragment(...)` and `var x = alloc_fragment(...)` for `let x =
 * ...`: said once, and x declared as the buffer, so its uses are checked
 * as such instead of each bringing an error of its own. */
static bool misbound_alloc(Sema *s, Node *value, Name *name, Loc loc, const char *wrote) {
    if (value->kind != N_CALL || !value->u.call.name || strncmp(value->u.call.name->s, "alloc_", 6) != 0) return false;
    diag_error(s->c, loc, "%s: a buffer is bound with let (let %s = %s(...))", wrote, name->s, value->u.call.name->s);
    bool was_alloc;
    Sym *buf = check_alloc(s, value, name, loc, &was_alloc);
    if (buf) sym_declare(s, buf);
    return true;
}

static void check_assign(Sema *s, Node *st) {
    Node *lhs = st->u.assign.lhs, *rhs = st->u.assign.rhs;
    if (lhs->kind == N_NAME && !sym_lookup(lhs->u.name) && st->u.assign.op == OP_ASSIGN &&
        misbound_alloc(s, rhs, lhs->u.name, lhs->loc,
                       arena_printf(&s->c->arena, "'%s' is not declared", lhs->u.name->s)))
        return;
    bool ok = check_expr(s, rhs);
    if (lhs->kind == N_NAME) {
        Sym *sym = sym_lookup(lhs->u.name);
        if (!sym) {
            undefined_name(s, lhs->loc, lhs->u.name);
            return;
        }
        lhs->sym = sym;
        if (sym->kind == SYM_LET) {
            diag_error(s->c, lhs->loc, "cannot assign to '%s': names bound by let are immutable (declare it with var)",
                       sym->name->s);
            return;
        }
        if (sym->kind == SYM_TENSOR || sym->kind == SYM_BUFFER) {
            diag_error(s->c, lhs->loc, "cannot assign to the whole %s '%s'; use copy or fill, or assign elements",
                       sym_kind_name(sym->kind), sym->name->s);
            return;
        }
        if (sym->kind != SYM_VAR) {
            diag_error(s->c, lhs->loc, "cannot assign to '%s': it is a %s", sym->name->s, sym_kind_name(sym->kind));
            return;
        }
        if (s->in_parallel > sym->parallel_depth) {
            /* each thread runs some of the iterations with its own copy */
            diag_error(s->c, lhs->loc, "cannot change the var '%s' inside a parallel loop it is declared outside of: "
                       "the iterations run in different threads, each with its own '%s' (sum with a reduction, or "
                       "declare it inside)", sym->name->s, sym->name->s);
            return;
        }
        lhs->dtype = sym->dtype;
    } else if (lhs->kind == N_INDEX) {
        s->writing = st->u.assign.op == OP_ASSIGN; /* `+=` reads the element too */
        bool lhs_ok = check_expr(s, lhs);
        s->writing = false;
        if (!lhs_ok) return;
        Sym *sym = lhs->sym;
        if (!s->dead) sym->body_written = true; /* a dead branch writes nothing */
        if (sym->kind == SYM_TENSOR && sym->mode == MODE_IN) {
            diag_error(s->c, lhs->loc, "cannot write '%s': it is an input (declare it `out` or `inout`)", sym->name->s);
            return;
        }
        if (ok && s->in_parallel) check_parallel_store(s, st, sym);
    } else {
        diag_error(s->c, lhs->loc, "cannot assign to this expression; the left side must be a var or an element");
        return;
    }
    if (ok && !dtype_is_int(rhs->dtype) && !dtype_is_float(rhs->dtype) && rhs->dtype != DT_BOOL)
        diag_error(s->c, rhs->loc, "the assigned value must be a number");
    else if (ok && st->u.assign.op == OP_DIV_ASSIGN && dtype_is_int(lhs->dtype) && rhs->is_const && !rhs->const_float &&
             rhs->cval.i == 0 && !s->dead)
        diag_error(s->c, rhs->loc, "integer division by zero");
    else if (ok && st->u.assign.op == OP_ASSIGN)
        literal_fits(s, rhs, lhs->dtype);
}

/* range(a, b[, step]) with constant bounds: the first and last values the
 * variable takes (sym->range_lo, sym->range: 0 for an empty loop), for
 * index bounds checks; bounds near the 64-bit limits tell nothing. */
static void range_span(Sym *sym, const NodeList *args, int guarded) {
    const int64_t BIG = SEMA_INDEX_LIMIT;
    for (int i = 0; i < args->len; i++) {
        const Node *a = args->items[i];
        if (a->kind == N_NAMED_ARG || !a->is_const || a->const_float || a->cval.i <= -BIG || a->cval.i >= BIG) return;
    }
    int64_t a = args->items[0]->cval.i, b = args->items[1]->cval.i, step = args->len == 3 ? args->items[2]->cval.i : 1;
    int64_t first, last;
    if (step > 0 && a < b) {
        first = a;
        last = a + (b - 1 - a) / step * step;
    } else if (step < 0 && a > b) {
        first = a - (a - b - 1) / -step * -step;
        last = a;
    } else { /* no iteration */
        first = a;
        last = a - 1;
    }
    sym->range_known = true;
    sym->range_lo = first;
    sym->range = last - first + 1;
    sym->range_guard = guarded;
}

/* let NAME = alloc_...(...) or a scalar value. */
static void check_let(Sema *s, Node *st) {
    Node *v = st->u.decl.value;
    bool was_alloc;
    Sym *buf = check_alloc(s, v, st->u.decl.name, st->loc, &was_alloc);
    if (was_alloc) {
        st->sym = buf;
        if (buf && sym_declare(s, buf)) vec_push(&s->c->arena, &s->k->buffers, buf);
        return;
    }
    Sym *sym = sym_new(s, SYM_LET, st->u.decl.name, st->loc);
    sym->decl = st;
    st->sym = sym;
    if (v->kind == N_NAME || v->kind == N_INDEX) {
        Sym *target = sym_lookup(v->kind == N_NAME ? v->u.name : v->u.index.name);
        if (target && (target->kind == SYM_TENSOR || target->kind == SYM_BUFFER) && v->kind == N_NAME) {
            diag_error(s->c, v->loc, "let binds scalars and new buffers; '%s' is already a %s",
                       target->name->s, sym_kind_name(target->kind));
            return;
        }
    }
    s->let_value = v;
    bool ok = check_expr(s, v);
    s->let_value = NULL;
    if (ok) {
        sym->dtype = v->dtype;
        /* let v = c ? 300 : x_u8: the branch literal takes the u8 */
        if (v->kind == N_COND && v->dtype != DT_INT_LIT && v->dtype != DT_FLOAT_LIT) literal_fits(s, v, v->dtype);
        sym_take_const(sym, v);
    } else {
        sym->dtype = DT_F32; /* keep going with a plausible type */
        sym->broken = true;  /* and its uses bring no errors of their own */
    }
    sym_declare(s, sym);
    return;
}

static void check_var(Sema *s, Node *st) {
    if (st->u.decl.value && misbound_alloc(s, st->u.decl.value, st->u.decl.name, st->loc, "a var holds a scalar"))
        return;
    Sym *sym = sym_new(s, SYM_VAR, st->u.decl.name, st->loc);
    sym->decl = st;
    st->sym = sym;
    sym->dtype = st->u.decl.dt;
    sym->parallel_depth = s->in_parallel;
    if (st->u.decl.value && check_expr(s, st->u.decl.value)) {
        Node *v = st->u.decl.value;
        if (!dtype_is_int(v->dtype) && !dtype_is_float(v->dtype) && v->dtype != DT_BOOL)
            diag_error(s->c, v->loc, "the initial value must be a number");
        else if (dtype_is_float(v->dtype) && !dtype_is_float(sym->dtype) && v->dtype != DT_FLOAT_LIT)
            ; /* an explicit float-to-int narrowing of a typed value: C semantics */
        else if (v->dtype == DT_FLOAT_LIT && dtype_is_int(sym->dtype))
            diag_error(s->c, v->loc, "a float literal cannot initialise the %s var '%s'", dtype_name(sym->dtype),
                       sym->name->s);
        else
            literal_fits(s, v, sym->dtype);
    }
    sym_declare(s, sym);
    return;
}

/* A call statement (a tile operation); break, continue and return, which
 * the language has not, said so. */
static void check_expr_stmt(Sema *s, Node *st) {
    Node *e = st->u.expr;
    const char *word = e->kind == N_NAME && !sym_lookup(e->u.name) ? e->u.name->s : "";
    if (!strcmp(word, "break") || !strcmp(word, "continue") || !strcmp(word, "return")) {
        diag_error(s->c, e->loc, "the language has no '%s': loops run all their iterations and a kernel its whole "
                   "body; put what should not run under an if", word);
        return;
    }
    if (e->kind != N_CALL) {
        diag_error(s->c, e->loc, "this expression does nothing as a statement");
        return;
    }
    check_op_call(s, e);
    return;
}

/* The loop variables of loop st (of kind `kind`) declared with the values
 * each takes; *runs_always where every extent is a known positive
 * constant, *never_runs where one is known to be empty. */
static void declare_loop_vars(Sema *s, Node *st, int kind, bool *runs_always, bool *never_runs) {
    *runs_always = true, *never_runs = false;
    for (int i = 0; i < st->u.loop.vars.len; i++) {
        Node *v = st->u.loop.vars.items[i];
        Sym *sym = sym_new(s, SYM_LOOP, v->u.name, v->loc);
        sym->decl = v;
        sym->dtype = DT_I32;
        v->sym = sym;
        /* the values a loop variable takes: 0 to its extent, where that
         * is a constant (range's one-argument form, pipelined's count),
         * or range(a, b[, step])'s and pipelined(a, b)'s first to last value */
        const NodeList *args = &st->u.loop.iter->u.call.args;
        /* pipelined(a, b, stages = s) spans as range(a, b) */
        bool pipelined_span = kind == LOOP_PIPELINED && args->len >= 2 && args->items[1]->kind != N_NAMED_ARG;
        const Node *n = kind == LOOP_PARALLEL && i < args->len ? args->items[i]
                      : (kind == LOOP_UNROLL || kind == LOOP_RANGE) && args->len == 1 ? args->items[0]
                      : kind == LOOP_PIPELINED && args->len >= 1 && !pipelined_span ? args->items[0] : NULL;
        if (n && n->kind != N_NAMED_ARG && n->is_const && !n->const_float) {
            sym->range_known = true;
            sym->range = n->cval.i;
            sym->range_guard = s->guarded;
        } else if (kind == LOOP_RANGE && (args->len == 2 || args->len == 3)) {
            range_span(sym, args, s->guarded);
        } else if (pipelined_span) {
            const NodeList bounds = {.items = args->items, .len = 2};
            range_span(sym, &bounds, s->guarded);
        }
        sym_declare(s, sym);
        if (kind == LOOP_PARALLEL) {
            sym->parallel_depth = s->in_parallel + 1; /* inside it (names_sym compares vars' with it) */
            vec_push(&s->c->arena, &s->parallel_vars, sym);
        }
        *runs_always &= sym->range_known && sym->range >= 1;
        *never_runs |= sym->range_known && sym->range <= 0;
    }
}

static void check_for(Sema *s, Node *st) {
    int kind = check_loop_iter(s, st);
    /* the outermost sequential loop: an iteration may read what an
     * earlier one wrote further down the body (a parallel loop's
     * iterations read nothing another writes) */
    if (kind != LOOP_PARALLEL && s->in_loop == s->in_parallel) mark_loop_writes(st->u.loop.body);
    scope_push(s);
    /* a loop whose trip count is not a known positive constant (range(m)
     * inside a loop over m, an empty range) runs its body for only some
     * values of the variables outside it: a condition, for the bounds
     * checks (index_range) */
    bool runs_always, never_runs; /* the body of an empty loop is dead code */
    declare_loop_vars(s, st, kind, &runs_always, &never_runs);
    /* nested unroll loops multiply their bodies: past this many copies
     * NVRTC takes minutes (10^9 of a one-line body: over a minute) */
    enum { MAX_UNROLLED = 1 << 16 };
    int64_t outer = s->unrolled ? s->unrolled : 1, copies = outer;
    const NodeList *iter_args = &st->u.loop.iter->u.call.args;
    if (kind == LOOP_UNROLL && iter_args->len == 1 && iter_args->items[0]->is_const && iter_args->items[0]->cval.i > 0)
        copies = outer * iter_args->items[0]->cval.i;
    if (copies > MAX_UNROLLED && outer <= MAX_UNROLLED)
        diag_error(s->c, st->loc, "these unroll loops repeat their body %lld times (at most %d): roll the outer "
                   "ones (range)", (long long)copies, MAX_UNROLLED);
    s->unrolled = copies;
    s->in_loop++;
    if (kind == LOOP_PARALLEL) s->in_parallel++;
    guard_enter(s, st->u.loop.iter, !runs_always, -1);
    s->dead += never_runs;
    check_block(s, st->u.loop.body);
    s->dead -= never_runs;
    guard_leave(s, !runs_always);
    if (kind == LOOP_PARALLEL) {
        s->in_parallel--;
        s->parallel_vars.len -= st->u.loop.vars.len;
    }
    s->in_loop--;
    s->unrolled = outer;
    scope_pop(s);
    return;
}

static void check_stmt(Sema *s, Node *st);

static void check_if(Sema *s, Node *st) {
    Node *c = st->u.ifs.c;
    if (check_expr(s, c) && !dtype_is_int(c->dtype) && !dtype_is_float(c->dtype) && c->dtype != DT_BOOL)
        diag_error(s->c, c->loc, "the condition of if must be a boolean or a number");
    bool known = c->is_const, taken = known && node_const_true(c);
    guard_enter(s, c, !known, 1);
    s->dead += known && !taken;
    check_block(s, st->u.ifs.then);
    s->dead -= known && !taken;
    guard_leave(s, !known);
    if (st->u.ifs.els) {
        guard_enter(s, c, !known, 0);
        s->dead += taken;
        if (st->u.ifs.els->kind == N_IF) check_stmt(s, st->u.ifs.els);
        else check_block(s, st->u.ifs.els);
        s->dead -= taken;
        guard_leave(s, !known);
    }
    return;
}

static void check_stmt(Sema *s, Node *st) {
    switch (st->kind) {
    case N_LET: check_let(s, st); return;
    case N_VAR: check_var(s, st); return;
    case N_ASSIGN: check_assign(s, st); return;
    case N_EXPR_STMT: check_expr_stmt(s, st); return;
    case N_FOR: check_for(s, st); return;
    case N_IF: check_if(s, st); return;
    case N_BLOCK: check_block(s, st); return;
    default: diag_error(s->c, st->loc, "unexpected %s here", node_kind_name(st->kind)); return;
    }
}

static void check_block(Sema *s, Node *block) {
    scope_push(s);
    for (int i = 0; i < block->u.list.len && !s->c->too_many; i++) check_stmt(s, block->u.list.items[i]);
    scope_pop(s);
}

/* ---- program ---- */

static void check_kernel(Sema *s, KernelInfo *k) {
    s->k = k;
    s->seen_swizzle = false;
    s->undefined.len = 0;
    int errors_before = s->c->errors;
    scope_push(s); /* depth 1: the kernel header */
    declare_params(s, k);
    declare_clauses(s, k);
    tune_for_clauses(s, k);
    /* with a --set value it cannot use, the kernel's checks would only
     * report the consequences (names whose shapes have no value) */
    bool usable = apply_overrides(s, k);
    if (usable) {
        evaluate_values(s, k);
        check_launch(s, k);
    }
    if (usable && s->c->errors == errors_before) {
        /* Body checks rely on the values; with a broken header they would
         * only repeat its errors. */
        if (k->pipeline) {
            s->mode = EM_HOST;
            check_pipeline_body(s, k);
        } else {
            s->mode = EM_BODY;
            check_block(s, k->node->u.kernel.body);
        }
        if (k->node->u.kernel.ref) {
            k->has_reference = true;
            s->mode = EM_REFERENCE;
            s->undefined.len = 0; /* the reference's names are its own */
            check_reference(s, k->node->u.kernel.ref);
        }
    }
    scope_pop(s);
    s->k = NULL;
}

PtrVec sema_check(Ctx *c, Node *program, const SemaOptions *opt) {
    /* ~0.1 s of evaluating store indices over loop variables' values at most */
    Sema s = {.c = c, .opt = opt, .mode = EM_CONST, .collide_budget = 1 << 24, .program = program};
    PtrVec kernels = {0};
    /* the marks are this check's: none left from another check of the same values */
    for (int i = 0; i < opt->n_overrides; i++) opt->overrides[i].used = false, opt->overrides[i].invalid = NULL;
    NodeList *items = &program->u.list;
    /* File-level constants first, so kernels and other constants can use
     * them in any order (values are evaluated lazily). */
    PtrVec consts = {0};
    for (int i = 0; i < items->len; i++) {
        Node *it = items->items[i];
        if (it->kind != N_CONST) continue;
        Sym *sym = sym_new(&s, SYM_CONST, it->u.decl.name, it->loc);
        sym->decl = it;
        sym->value_expr = it->u.decl.value;
        if (sym_declare(&s, sym)) vec_push(&c->arena, &consts, sym);
    }
    for (int i = 0; i < consts.len; i++) {
        Sym *sym = consts.items[i];
        sym_value(&s, sym, sym->loc);
    }
    for (int i = 0; i < items->len && !c->too_many; i++) {
        Node *it = items->items[i];
        if (it->kind != N_KERNEL) continue;
        for (int j = 0; j < i; j++) {
            Node *prev = items->items[j];
            if (prev->kind == N_KERNEL && prev->u.kernel.name == it->u.kernel.name) {
                diag_error(c, it->loc, "%s '%s' is defined twice", it->u.kernel.pipeline ? "pipeline" : "kernel",
                           it->u.kernel.name->s);
                diag_note(c, prev->loc, "the first definition is here");
            }
        }
        if (opt->only_kernel && strcmp(opt->only_kernel, it->u.kernel.name->s) != 0) continue;
        KernelInfo *k = arena_alloc(&c->arena, sizeof *k);
        k->node = it;
        k->name = it->u.kernel.name;
        k->pipeline = it->u.kernel.pipeline;
        check_kernel(&s, k);
        vec_push(&c->arena, &kernels, k);
    }
    /* Leave the names unbound so another Ctx-less walk starts clean. */
    while (s.depth > 0) scope_pop(&s);
    for (int i = 0; i < s.scope_syms.len; i++) ((Sym *)s.scope_syms.items[i])->name->binding = NULL;
    return kernels;
}
