/* insert_sync.c - block-wide barriers for shared memory, and for global
 * memory the kernel writes and reads back.
 *
 * Threads write and read shared memory in different patterns (a copy deals
 * chunks round-robin, ldmatrix reads by warp), so a read after a write, and
 * a write after a read, of shared memory need __syncthreads() between them.
 * The same holds for an out or inout tensor that one statement writes and
 * a later one reads or writes: two parallel loops with the same indices may
 * still deal their iterations out differently (one element a thread, or
 * vectors of four), so the second loop's thread can read what another
 * thread wrote. Within one parallel loop an iteration's own accesses stay
 * in its thread (and iterations must not share elements: sema), so global
 * memory is tracked between statements outside parallel loops, a parallel
 * loop counting as one. The analysis is conservative: it tracks whether
 * any shared memory (and any such tensor) was written or read since the
 * last barrier, and treats loops as repeating. */
#include <stdint.h>

#include "passes.h"

/* The out and inout tensors a statement reads or writes, one bit each in
 * the kernel's parameter order (the 64th bit for all after the 63rd):
 * parameters do not alias (the kernel's pointers are __restrict__), so
 * only the same tensor's accesses meet. */
typedef uint64_t Tensors;

typedef struct Hazard {
    const IrKernel *k;
    bool wrote, read;       /* shared memory since the last barrier */
    Tensors gwrote, gread;  /* out and inout tensors */
    bool in_parallel;       /* inside a parallel loop: global memory is the loop's */
} Hazard;

typedef struct Touch {
    const IrKernel *k;
    bool reads, writes;
    Tensors greads, gwrites;
} Touch;

static bool shared(const IrRegion *r) { return r->buf && r->buf->scope == SCOPE_SHARED; }

/* sym's bit where it is a tensor the kernel writes (out or inout: in
 * tensors are never written), else 0. */
static Tensors written_tensor(const IrKernel *k, const Sym *sym) {
    if (!sym || sym->kind != SYM_TENSOR || sym->mode == MODE_IN) return 0;
    for (int i = 0; i < k->params.len; i++)
        if (((const IrBuf *)k->params.items[i])->sym == sym) return (Tensors)1 << (i < 63 ? i : 63);
    return (Tensors)1 << 63;
}

static Tensors written_global(const IrKernel *k, const IrRegion *r) {
    return r->buf && r->buf->scope == SCOPE_GLOBAL ? written_tensor(k, r->buf->sym) : 0;
}

static void note_index(Node *e, void *arg) {
    Touch *t = arg;
    if (e->sym && e->sym->kind == SYM_BUFFER && e->sym->scope == SCOPE_SHARED) t->reads = true;
    t->greads |= written_tensor(t->k, e->sym);
}

static bool target_shared(const Node *t) {
    return t && t->kind == N_INDEX && t->sym && t->sym->kind == SYM_BUFFER && t->sym->scope == SCOPE_SHARED;
}

static void touches(IrStmt *s, Touch *t);

static void touches_block(IrBlock *b, Touch *t) {
    for (int i = 0; i < b->len; i++) touches(b->items[i], t);
}

static void touches(IrStmt *s, Touch *t) {
    switch (s->op) {
    case IR_COPY:
        /* the pipeline synchronises its own ring; TMA copies complete on
         * mbarriers the readers wait for; the producer's threads order
         * their own copies (codegen's producer barrier) */
        if (s->pipeline || copy_by_producer(s)) break;
        t->reads |= shared(&s->src);
        t->writes |= shared(&s->dst);
        /* the row indices of a gather or scatter */
        t->reads |= (s->src.gather && s->src.gather->scope == SCOPE_SHARED) ||
                    (s->dst.gather && s->dst.gather->scope == SCOPE_SHARED);
        t->greads |= written_global(t->k, &s->src);
        t->gwrites |= written_global(t->k, &s->dst);
        break;
    case IR_GEMM: t->reads |= shared(&s->a) || shared(&s->b); break;
    case IR_FILL:
        t->writes |= shared(&s->dst);
        t->gwrites |= written_global(t->k, &s->dst);
        break;
    case IR_REDUCE:
        t->reads |= shared(&s->src);
        t->writes |= shared(&s->dst);
        break;
    case IR_ATOMIC_ADD: t->reads |= shared(&s->src); break;
    case IR_SCAN: /* in place, in shared memory; in registers (plan_scan), its own barriers */
        if (!s->dst.buf) t->reads = t->writes = true;
        break;
    default: break;
    }
    expr_visit_indices(s->value, note_index, t);
    expr_visit_indices(s->compare, note_index, t);
    for (int a = 0; a < s->print_args.len; a++) expr_visit_indices(s->print_args.items[a], note_index, t);
    if (s->target) {
        if (target_shared(s->target)) t->writes = true;
        if (s->target->kind == N_INDEX) {
            t->gwrites |= written_tensor(t->k, s->target->sym);
            for (int i = 0; i < s->target->u.index.idx.len; i++)
                expr_visit_indices(s->target->u.index.idx.items[i], note_index, t);
        }
    }
    touches_block(&s->body, t);
    touches_block(&s->els, t);
}

static void sync_block(IrBlock *b, Hazard *h);

/* Whether what statement (or loop) t touches needs a barrier after what h
 * has seen: a read after a write, a write after a read or a write. */
static bool hazard(const Hazard *h, const Touch *t) {
    bool global = !h->in_parallel && ((t->greads & h->gwrote) || (t->gwrites & (h->gread | h->gwrote)));
    return (t->reads && h->wrote) || (t->writes && (h->read || h->wrote)) || global;
}

/* After a barrier: nothing touched since. */
static void settle(Hazard *h) {
    h->wrote = h->read = false;
    h->gwrote = h->gread = 0;
}

static void barrier(IrStmt *s, Hazard *h) {
    s->sync_before = true;
    settle(h);
}

static void seen(Hazard *h, const Touch *t) {
    h->wrote |= t->writes;
    h->read |= t->reads;
    if (h->in_parallel) return;
    h->gwrote |= t->gwrites;
    h->gread |= t->greads;
}

/* Loop s, which touches t: the body follows itself, so it is entered as if
 * everything it touches had just been touched. */
static void sync_repeating(IrStmt *s, const Touch *t, Hazard *h) {
    Hazard inner = *h;
    seen(&inner, t);
    sync_block(&s->body, &inner);
    seen(h, t);
    h->wrote |= inner.wrote;
    h->read |= inner.read;
    if (!h->in_parallel) {
        h->gwrote |= inner.gwrote;
        h->gread |= inner.gread;
    }
}

static void sync_stmt(IrStmt *s, Hazard *h) {
    bool compound = s->op == IR_FOR || s->op == IR_IF;
    if (!compound) {
        Touch t = {.k = h->k};
        touches(s, &t);
        /* Reductions across warps and pipelined copies barrier internally. */
        if (hazard(h, &t)) barrier(s, h);
        seen(h, &t);
        if (s->op == IR_SYNC) settle(h);
        return;
    }
    Touch t = {.k = h->k};
    touches_block(&s->body, &t);
    touches_block(&s->els, &t);
    if (s->op == IR_FOR && s->loop == LOOP_PARALLEL && !h->in_parallel) {
        /* global memory: the loop as one statement */
        Touch g = {.greads = t.greads, .gwrites = t.gwrites};
        if (hazard(h, &g)) barrier(s, h);
        Hazard inner = *h;
        inner.in_parallel = true;
        sync_repeating(s, &t, &inner);
        h->wrote = inner.wrote;
        h->read = inner.read;
        seen(h, &g);
        return;
    }
    if (s->op == IR_FOR && s->loop == LOOP_PIPELINED) {
        /* Its prologue writes the ring: settle earlier accesses first. */
        if (h->read || h->wrote || hazard(h, &t)) barrier(s, h);
        Hazard inner = {.k = h->k, .gwrote = h->gwrote | t.gwrites, .gread = h->gread | t.greads};
        /* The sm_90a consumers meet at no barrier between iterations (the
         * producer's mbarriers order only the TMA'd tiles): their body
         * follows itself, as any loop's (W4A16's weights, written again
         * while another warpgroup's wgmma may still read them) */
        bool consumers = s == h->k->ws_loop;
        if (consumers) {
            inner.wrote = t.writes;
            inner.read = t.reads;
        }
        sync_block(&s->body, &inner);
        /* Each iteration ends with a barrier of its ring; the consumers'
         * rings are the TMA'd tiles, which nothing after the loop names,
         * so only shared memory they write themselves is still in play. */
        h->wrote = h->read = consumers && t.writes;
        h->gwrote |= inner.gwrote;
        h->gread |= inner.gread;
        return;
    }
    if (s->op == IR_FOR) {
        sync_repeating(s, &t, h);
        return;
    }
    Hazard a = *h, b = *h;
    sync_block(&s->body, &a);
    sync_block(&s->els, &b);
    h->wrote = a.wrote || b.wrote;
    h->read = a.read || b.read;
    h->gwrote = a.gwrote | b.gwrote;
    h->gread = a.gread | b.gread;
}

static void sync_block(IrBlock *b, Hazard *h) {
    for (int i = 0; i < b->len; i++) sync_stmt(b->items[i], h);
}

void pass_insert_sync(IrKernel *k) {
    Hazard h = {.k = k};
    sync_block(&k->body, &h);
}
