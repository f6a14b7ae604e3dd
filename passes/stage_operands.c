/* stage_operands.c - gemm operands that the tensor cores cannot read where
 * they are.
 *
 * The tensor cores read gemm's B operand from shared memory: ldmatrix on
 * the mma.sync path, a shared-memory descriptor on sm_90a (wgmma takes only
 * A from registers). They read A from registers only in the layout of the
 * accumulator's rows, whole rows a warp (policy full_row) and not
 * transposed. LANGUAGE.md allows either operand in a fragment, so a
 * fragment B, and a fragment A with another policy or transpose_a, is
 * staged: copied whole into a shared buffer of its own, `<X>_staged` (its
 * shape and type), just before each gemm that reads it, and the gemm reads
 * that instead. The copy is the one `copy(fragment, shared)` lowers to;
 * insert_sync puts a barrier between the threads' stores and the gemm's
 * reads, and before a later copy overwrites what a gemm may still read.
 * It costs a round trip through shared memory a gemm: a kernel that can
 * load B into shared memory directly should.
 *
 * Only whole fragments: a copy moves a fragment whole (lower_copy.c), so a
 * gemm on a part of a fragment it stages is an error here. */
#include <string.h>

#include "passes.h"

typedef struct Staged {
    const IrBuf *frag;
    IrBuf *shared;
} Staged;

typedef struct Stager {
    IrKernel *k;
    Staged staged[16];
    int n;
} Stager;

static bool whole(const IrRegion *r) {
    for (int d = 0; d < r->buf->rank; d++)
        if (r->ext[d] != r->buf->shape[d] || (r->idx[d] && !(r->idx[d]->is_const && r->idx[d]->cval.i == 0)))
            return false;
    return true;
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

/* The shared buffer that fragment f is staged in (made on first use):
 * `<f>_staged`, or `<f>_staged2`, ... where the program has that name. */
static IrBuf *staging_of(Stager *st, const IrBuf *f) {
    for (int i = 0; i < st->n; i++)
        if (st->staged[i].frag == f) return st->staged[i].shared;
    if (st->n == (int)(sizeof st->staged / sizeof *st->staged)) return NULL;
    Ctx *c = st->k->c;
    Sym *sym = arena_alloc(&c->arena, sizeof *sym);
    *sym = *f->sym;
    sym->scope = SCOPE_SHARED;
    sym->shadowed = NULL;
    Name *name = arena_alloc(&c->arena, sizeof *name);
    name->s = arena_printf(&c->arena, "%s_staged", f->sym->name->s);
    for (int i = 2; name_taken(st->k, name->s); i++) name->s = arena_printf(&c->arena, "%s_staged%d", f->sym->name->s, i);
    name->len = strlen(name->s);
    sym->name = name;
    IrBuf *b = arena_alloc(&c->arena, sizeof *b);
    *b = *f;
    memset(&b->layout, 0, sizeof b->layout);
    b->sym = sym;
    b->cname = ir_cname(c, name);
    b->scope = SCOPE_SHARED;
    b->stages = 1;
    vec_push(&c->arena, &st->k->buffers, b);
    st->staged[st->n++] = (Staged){f, b};
    return b;
}

static void stage_block(Stager *st, IrBlock *b);

/* A copy of gemm gm's fragment operand (*op, named `which`) into its
 * staging buffer, gm then reading that; NULL after an error. */
static IrStmt *stage(Stager *st, IrStmt *gm, IrRegion *op, const char *which) {
    const IrBuf *f = op->buf;
    if (!whole(op)) {
        diag_error(st->k->c, gm->loc,
                   "gemm: operand %s is a part of the fragment '%s'; a fragment %s goes to shared memory whole for the "
                   "tensor cores: pass all of it",
                   which, f->sym->name->s, which);
        return NULL;
    }
    IrBuf *sh = staging_of(st, f);
    if (!sh) {
        diag_error(st->k->c, gm->loc, "gemm: too many fragments staged as operands (at most %d a kernel)",
                   (int)(sizeof st->staged / sizeof *st->staged));
        return NULL;
    }
    IrStmt *copy = arena_alloc(&st->k->c->arena, sizeof *copy);
    copy->op = IR_COPY;
    copy->loc = gm->loc;
    copy->src = *op;
    copy->dst = (IrRegion){.buf = sh};
    memcpy(copy->dst.ext, sh->shape, sizeof sh->shape);
    *op = copy->dst;
    return copy;
}

static bool fragment(const IrRegion *r) { return r->buf && r->buf->scope == SCOPE_FRAGMENT; }

static void stage_block(Stager *st, IrBlock *b) {
    IrBlock out = {0};
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        if (s->op == IR_GEMM) {
            /* A stays in registers where the mma A operand can be read from
             * them: whole rows a warp (full_row), not transposed */
            if (fragment(&s->a) && (s->trans_a || s->policy != POLICY_FULL_ROW)) {
                IrStmt *copy = stage(st, s, &s->a, "A");
                if (copy) ir_block_push(st->k->c, &out, copy);
            }
            if (fragment(&s->b)) {
                IrStmt *copy = stage(st, s, &s->b, "B");
                if (copy) ir_block_push(st->k->c, &out, copy);
            }
        }
        stage_block(st, &s->body);
        stage_block(st, &s->els);
        ir_block_push(st->k->c, &out, s);
    }
    *b = out;
}

void pass_stage_operands(IrKernel *k) {
    Stager st = {.k = k};
    stage_block(&st, &k->body);
}
