/* insert_sync.c - block-wide barriers for shared memory.
 *
 * Threads write and read shared memory in different patterns (a copy deals
 * chunks round-robin, ldmatrix reads by warp), so a read after a write, and
 * a write after a read, of shared memory need __syncthreads() between them.
 * The analysis is conservative: it tracks whether any shared memory was
 * written or read since the last barrier, and treats loops as repeating. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct Hazard {
    bool wrote, read;
} Hazard;

typedef struct Touch {
    bool reads, writes;
} Touch;

static bool shared(const IrRegion *r) { return r->buf && r->buf->scope == SCOPE_SHARED; }

static void note_index(Node *e, void *arg) {
    Touch *t = arg;
    if (e->sym && e->sym->kind == SYM_BUFFER && e->sym->scope == SCOPE_SHARED) t->reads = true;
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
         * mbarriers the readers wait for */
        if (s->pipeline || s->mech == COPY_TMA) break;
        t->reads |= shared(&s->src);
        t->writes |= shared(&s->dst);
        break;
    case IR_GEMM: t->reads |= shared(&s->a) || shared(&s->b); break;
    case IR_FILL: t->writes |= shared(&s->dst); break;
    case IR_REDUCE:
        t->reads |= shared(&s->src);
        t->writes |= shared(&s->dst);
        break;
    case IR_ATOMIC_ADD: t->reads |= shared(&s->src); break;
    default: break;
    }
    expr_visit_indices(s->value, note_index, t);
    for (int a = 0; a < s->print_args.len; a++) expr_visit_indices(s->print_args.items[a], note_index, t);
    if (s->target) {
        if (target_shared(s->target)) t->writes = true;
        if (s->target->kind == N_INDEX)
            for (int i = 0; i < s->target->u.index.idx.len; i++)
                expr_visit_indices(s->target->u.index.idx.items[i], note_index, t);
    }
    touches_block(&s->body, t);
    touches_block(&s->els, t);
}

static void sync_block(IrBlock *b, Hazard *h);

static void sync_stmt(IrStmt *s, Hazard *h) {
    bool compound = s->op == IR_FOR || s->op == IR_IF;
    if (!compound) {
        Touch t = {0};
        touches(s, &t);
        /* Reductions across warps and pipelined copies barrier internally. */
        if ((t.reads && h->wrote) || (t.writes && (h->read || h->wrote))) {
            s->sync_before = true;
            h->wrote = h->read = false;
        }
        h->wrote |= t.writes;
        h->read |= t.reads;
        if (s->op == IR_SYNC) h->wrote = h->read = false;
        return;
    }
    Touch t = {0};
    touches_block(&s->body, &t);
    touches_block(&s->els, &t);
    if (s->op == IR_FOR && s->loop == LOOP_PIPELINED) {
        /* Its prologue writes the ring: settle earlier accesses first. */
        if (h->read || h->wrote) s->sync_before = true;
        Hazard inner = {0};
        sync_block(&s->body, &inner);
        h->wrote = h->read = false; /* each iteration ends with a barrier */
        return;
    }
    if (s->op == IR_FOR) {
        /* The body follows itself: enter it as if everything it touches
         * had just been touched. */
        Hazard inner = {h->wrote || t.writes, h->read || t.reads};
        sync_block(&s->body, &inner);
        h->wrote |= inner.wrote || t.writes;
        h->read |= inner.read || t.reads;
        return;
    }
    Hazard a = *h, b = *h;
    sync_block(&s->body, &a);
    sync_block(&s->els, &b);
    h->wrote = a.wrote || b.wrote;
    h->read = a.read || b.read;
}

static void sync_block(IrBlock *b, Hazard *h) {
    for (int i = 0; i < b->len; i++) sync_stmt(b->items[i], h);
}

/* ---- turns of the consumer warpgroups at the tensor cores ----
 * An experiment (TILEC_TURNS=1; verified, not faster: bench/RESULTS.md,
 * session 6). Two or more consumer warpgroups running attention's loop
 * (S = Q K^T, the softmax, O += P V) wait for the same slot and so run in
 * step: all gemms, then all softmaxes, the tensor cores idle during the
 * latter. With turns (FlashAttention-3's ping-pong) warpgroup w issues the
 * last gemm of iteration j and the first of j + 1, then hands the turn
 * on, so that its softmax runs under the others' gemms. Only for loops
 * with two or more gemms at their top level and nothing inside that
 * waits for all the consumer warpgroups at once (a barrier there would
 * wait for a warpgroup that waits for its turn). With TILEC_OVERLAP=1 too
 * (the rotated loop of plan_overlap.c) a turn is G1(j) and G2(j-1),
 * FlashAttention-3's ping-pong and intra-warpgroup overlap together:
 * verified, equal to the plain loop (session 8). */
static bool waits_for_all(const IrStmt *s, int64_t threads);

static bool block_waits_for_all(const IrBlock *b, int64_t threads) {
    for (int i = 0; i < b->len; i++)
        if (waits_for_all(b->items[i], threads)) return true;
    return false;
}

static bool waits_for_all(const IrStmt *s, int64_t threads) {
    if (s->sync_before || s->op == IR_SYNC) return true;
    if (s->op == IR_REDUCE && (reduce_path(s, threads) != REDUCE_PATH_ACC_ROWS || s->src.buf->layout.wn > 1))
        return true;
    return block_waits_for_all(&s->body, threads) || block_waits_for_all(&s->els, threads);
}

static void plan_turns(IrKernel *k) {
    const IrStmt *loop = k->ws_loop;
    const char *env = getenv("TILEC_TURNS");
    if (!loop || k->threads < 256 || !env || strcmp(env, "1")) return;
    int gemms = 0;
    for (int i = 0; i < loop->body.len; i++) {
        const IrStmt *s = loop->body.items[i];
        if (s->op == IR_GEMM && s->wgmma) gemms++;
        else if (s->op == IR_GEMM || block_has_gemm(&s->body) || block_has_gemm(&s->els)) return;
    }
    k->turns = gemms >= 2 && !block_waits_for_all(&loop->body, k->threads);
}

void pass_insert_sync(IrKernel *k) {
    Hazard h = {0};
    sync_block(&k->body, &h);
    plan_turns(k);
}
