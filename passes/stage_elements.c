/* stage_elements.c - parallel loops that touch fragment elements their
 * thread does not hold.
 *
 * A parallel loop runs each iteration on the thread that holds its
 * driver's element (infer_layout), so an iteration reaches, in registers,
 * the elements at its own indices of fragments laid out like the driver,
 * and any element of a replicated fragment for reading. LANGUAGE.md lets
 * the body read and write fragments at any index: x[i, N - 1 - j], RoPE's
 * x[i, j + D / 2], a transpose y[j, i]. Such an element is in another
 * thread's registers, so this pass goes through shared memory, in a buffer
 * of the fragment's shape of its own, `<x>_staged`:
 *   - a fragment read at others' indices is copied there just before the
 *     loop, and those reads read the copy: the element's value before the
 *     loop, which no other iteration writes (iterations are independent);
 *     reads at the loop's own indices stay in registers, so they see what
 *     the iteration itself stored;
 *   - a fragment written at others' indices (or a replicated one written at
 *     all, where a store reaches only the storing thread's copy) is copied
 *     there before the loop, every access of it in the loop goes to the
 *     copy, and the copy is copied back after the loop.
 * insert_sync puts the barriers between the copies and the loop. This
 * costs a round trip through shared memory a loop; a kernel that can read
 * its data from a shared buffer directly should. */
#include <string.h>

#include "passes.h"

typedef struct Access {
    Node *node;
    bool write, own;
} Access;

typedef struct Use {
    IrBuf *buf;
    PtrVec accesses; /* Access* */
    bool foreign_read, foreign_write;
} Use;

typedef struct Scan {
    IrKernel *k;
    IrStmt *loop;
    PtrVec uses; /* Use* */
    bool writing;
} Scan;

static Use *use_of(Scan *sc, IrBuf *b) {
    for (int i = 0; i < sc->uses.len; i++)
        if (((Use *)sc->uses.items[i])->buf == b) return sc->uses.items[i];
    Use *u = arena_alloc(&sc->k->c->arena, sizeof *u);
    memset(u, 0, sizeof *u);
    u->buf = b;
    vec_push(&sc->k->c->arena, &sc->uses, u);
    return u;
}

/* Whether the iteration's thread holds the element e of fragment b. */
static bool own_element(const IrStmt *loop, const IrBuf *b, const Node *e, bool write) {
    if (b->layout.kind == LAYOUT_REPLICATED)
        /* every thread reads its own copy; a store updates every copy only
         * where every thread runs every iteration (a replicated driver) */
        return !write || (loop->driver && loop->driver->layout.kind == LAYOUT_REPLICATED);
    return access_is_own(loop, b, e);
}

static void note(Node *e, void *arg) {
    Scan *sc = arg;
    if (!e->sym || e->sym->kind != SYM_BUFFER || e->sym->scope != SCOPE_FRAGMENT) return;
    IrBuf *b = ir_buf_of(sc->k, e->sym);
    Use *u = use_of(sc, b);
    for (int i = 0; i < u->accesses.len; i++) {
        Access *a = u->accesses.items[i];
        if (a->node == e) { /* a compound assignment's target, seen again */
            a->write |= sc->writing;
            a->own = own_element(sc->loop, b, e, a->write);
            if (!a->own) u->foreign_write |= a->write;
            return;
        }
    }
    Access *a = arena_alloc(&sc->k->c->arena, sizeof *a);
    a->node = e;
    a->write = sc->writing;
    a->own = own_element(sc->loop, b, e, a->write);
    if (!a->own) {
        u->foreign_read |= !a->write;
        u->foreign_write |= a->write;
    }
    vec_push(&sc->k->c->arena, &u->accesses, a);
}

static void note_exprs(Scan *sc, Node *e) {
    sc->writing = false;
    expr_visit_indices(e, note, sc);
}

static void scan_block(Scan *sc, IrBlock *b) {
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        note_exprs(sc, s->value);
        for (int a = 0; a < s->print_args.len; a++) note_exprs(sc, s->print_args.items[a]);
        note_exprs(sc, s->lo);
        note_exprs(sc, s->hi);
        note_exprs(sc, s->step);
        const IrRegion *regions[] = {&s->src, &s->dst};
        for (int r = 0; r < 2; r++)
            for (int d = 0; regions[r]->buf && d < regions[r]->buf->rank; d++) note_exprs(sc, regions[r]->idx[d]);
        if (s->target && s->target->kind == N_INDEX) {
            for (int d = 0; d < s->target->u.index.idx.len; d++) note_exprs(sc, s->target->u.index.idx.items[d]);
            if (s->assign_op != OP_ASSIGN) note(s->target, sc); /* read, then written */
            sc->writing = true;
            note(s->target, sc);
            sc->writing = false;
        }
        scan_block(sc, &s->body);
        scan_block(sc, &s->els);
    }
}

typedef struct Stager {
    IrKernel *k;
    PtrVec from, to; /* fragment -> its shared copy */
} Stager;

static IrBuf *staged_copy_of(Stager *st, IrBuf *b) {
    for (int i = 0; i < st->from.len; i++)
        if (st->from.items[i] == b) return st->to.items[i];
    IrBuf *s = ir_new_staging_buffer(st->k, b, b->rank, b->shape);
    vec_push(&st->k->c->arena, &st->from, b);
    vec_push(&st->k->c->arena, &st->to, s);
    return s;
}

/* Loop p as it goes into block out: preceded and followed by the copies
 * its fragments need. */
static void stage_loop(Stager *st, IrStmt *p, IrBlock *out) {
    Scan sc = {.k = st->k, .loop = p};
    scan_block(&sc, &p->body);
    IrBlock after = {0};
    for (int i = 0; i < sc.uses.len; i++) {
        Use *u = sc.uses.items[i];
        if (!u->foreign_read && !u->foreign_write) continue;
        IrBuf *s = staged_copy_of(st, u->buf);
        ir_block_push(st->k->c, out, ir_new_copy(st->k, p->loc, ir_whole_region(u->buf), ir_whole_region(s)));
        for (int j = 0; j < u->accesses.len; j++) {
            Access *a = u->accesses.items[j];
            if (u->foreign_write || !a->own) a->node->sym = s->sym;
        }
        if (u->foreign_write)
            ir_block_push(st->k->c, &after, ir_new_copy(st->k, p->loc, ir_whole_region(s), ir_whole_region(u->buf)));
    }
    ir_block_push(st->k->c, out, p);
    for (int i = 0; i < after.len; i++) ir_block_push(st->k->c, out, after.items[i]);
}

static void stage_block(Stager *st, IrBlock *b) {
    IrBlock out = {0};
    for (int i = 0; i < b->len; i++) {
        IrStmt *s = b->items[i];
        if (s->op == IR_PARALLEL) {
            stage_loop(st, s, &out);
            continue;
        }
        stage_block(st, &s->body);
        stage_block(st, &s->els);
        ir_block_push(st->k->c, &out, s);
    }
    *b = out;
}

void pass_stage_elements(IrKernel *k) {
    Stager st = {.k = k};
    stage_block(&st, &k->body);
}
