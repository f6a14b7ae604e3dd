/* plan_overlap.c - the softmax under the tensor cores (IrKernel.overlap).
 *
 * Attention's loop body on the sm_90a path is
 *
 *     G1: S = Q K^T;  E1a: the softmax of S;  E1b: P = S;
 *     E2: O *= r;     G2: O += P V
 *
 * and run in that order a consumer warpgroup's tensor-core work (G1, G2)
 * and its exp2/FMA work (E1a) follow each other: while E1a runs, only the
 * other warpgroups can keep the tensor cores busy. Rotated (what
 * FlashAttention-3 calls intra-warpgroup overlap), iteration j runs
 * E1b(j-1), G1(j), E2(j-1), G2(j-1), waits for G1(j) only and runs E1a(j)
 * while G2(j-1) is still on the tensor cores (lower_hopper.c: where the
 * waits must be for ptxas to keep it so). Iteration 0 has only G1 and E1a;
 * the loop ends with the last E1b, E2 and G2.
 *
 * Legal when the reordering changes nothing: E1a splits from E1b at the
 * first statement after G1 that names G2's operands (P, O), so E1a never
 * touches what G2 reads or writes; E1b, E2 and G2 run in the next
 * iteration's scope, so they must not use the loop variable or a let of
 * the loop body, nor touch memory; E2 runs after the next G1 is issued,
 * so it must not touch G1's accumulator. The body must be exactly [G1,
 * E1a..., E1b..., E2..., G2] besides its TMA copies (which the producer
 * runs), with G2's A operand a fragment (P) that E1b writes, E1a without
 * branches (attention's causal and ragged masks: ptxas then serialises the
 * wgmmas, C7514) and at most two consumer warpgroups (pass_plan_overlap).
 *
 * An experiment, asked for with TILEC_OVERLAP=1 (with TILEC_TURNS=1 as
 * well, the warpgroups take turns: insert_sync.c): verified and
 * sanitizer-clean on the H200, the softmax interleaved with G2's HGMMAs in
 * the SASS, but not faster: attention D=128 S=4096 1.78 against 1.74 ms
 * (bench/RESULTS.md, session 7); with turns equal in cycles (session 8). */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool names(IrStmt *s, const IrBuf *b) {
    IrBlock one = {.items = &s, .len = 1};
    return buf_use_count(&one, b) > 0;
}

/* ---- symbols of the loop body that the deferred tail must not use ---- */
typedef struct Locals {
    const Sym *syms[64];
    int n;
} Locals;

static bool is_local(const Node *e, const void *arg) {
    const Locals *l = arg;
    if (e->kind != N_NAME) return false;
    for (int i = 0; i < l->n; i++)
        if (e->sym == l->syms[i]) return true;
    return false;
}

static bool region_uses(const IrRegion *r, const Locals *l) {
    for (int d = 0; r->buf && d < r->buf->rank; d++)
        if (expr_any(r->idx[d], is_local, l)) return true;
    return false;
}

static bool stmt_uses(IrStmt *s, const Locals *l);

static bool block_uses(IrBlock *b, const Locals *l) {
    for (int i = 0; i < b->len; i++)
        if (stmt_uses(b->items[i], l)) return true;
    return false;
}

static bool stmt_uses(IrStmt *s, const Locals *l) {
    const Node *exprs[] = {s->value, s->target, s->lo, s->hi, s->step};
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++)
        if (expr_any(exprs[i], is_local, l)) return true;
    for (int i = 0; i < s->print_args.len; i++)
        if (expr_any(s->print_args.items[i], is_local, l)) return true;
    const IrRegion *regions[] = {&s->src, &s->dst, &s->a, &s->b, &s->c};
    for (size_t i = 0; i < sizeof regions / sizeof *regions; i++)
        if (region_uses(regions[i], l)) return true;
    return block_uses(&s->body, l) || block_uses(&s->els, l);
}

/* Whether s names a buffer outside the registers (shared or global). */
static bool names_memory(const IrKernel *k, IrStmt *s) {
    for (int i = 0; i < k->params.len; i++)
        if (names(s, k->params.items[i])) return true;
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        if (b->scope != SCOPE_FRAGMENT && names(s, b)) return true;
    }
    return false;
}

static bool producers(const IrStmt *s) { return s->op == IR_COPY && s->mech == COPY_TMA; }

/* The body indices of the plan, or false. */
static bool plan(IrKernel *k, IrStmt *loop, int *wait_at, int *tail_from) {
    IrBlock *body = &loop->body;
    int first = -1, last = -1;
    for (int i = 0; i < body->len; i++) {
        IrStmt *s = body->items[i];
        if (producers(s)) continue;
        if (first < 0) first = i;
        last = i;
        if (s->op != IR_GEMM && (block_has_gemm(&s->body) || block_has_gemm(&s->els))) return false;
    }
    if (first < 0 || first == last) return false;
    IrStmt *g1 = body->items[first], *g2 = body->items[last];
    if (g1->op != IR_GEMM || g2->op != IR_GEMM || !g1->wgmma || !g2->wgmma) return false;
    /* fp8 and integer gemms only as cg_wgmma issues them (fp8: promotes) */
    if (dtype_bytes(g1->a.buf->dtype) == 1 || dtype_bytes(g2->a.buf->dtype) == 1) return false;
    const IrBuf *s_acc = g1->c.buf, *p = g2->a.buf, *o = g2->c.buf;
    if (p->scope != SCOPE_FRAGMENT || p == s_acc || o == s_acc) return false;
    /* E1 ends with the last statement that names P; E2 follows */
    int tail = -1;
    for (int i = first + 1; i < last; i++) {
        IrStmt *s = body->items[i];
        if (s->op == IR_GEMM) return false; /* a third gemm */
        if (!producers(s) && names(s, p)) tail = i + 1;
    }
    if (tail < 0) return false;
    int wait = -1;
    for (int i = first + 1; i < tail && wait < 0; i++)
        if (!producers(body->items[i]) && (names(body->items[i], p) || names(body->items[i], o))) wait = i;
    Locals locals = {.n = 0};
    locals.syms[locals.n++] = loop->sym;
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->op != IR_LET && s->op != IR_VAR) continue;
        if (locals.n == 64) return false;
        locals.syms[locals.n++] = s->sym;
    }
    /* E1a runs while G2 is in flight: a branch there (attention's causal
     * mask) makes ptxas serialise the wgmmas (C7514) */
    for (int i = first + 1; i < wait; i++)
        if (body->items[i]->op == IR_IF || body->items[i]->op == IR_FOR) return false;
    /* E1b, E2 and G2 run in the next iteration: E1b before its G1, E2
     * after it */
    for (int i = wait; i <= last; i++) {
        IrStmt *s = body->items[i];
        if (producers(s)) continue;
        if (s->op == IR_SYNC || (i >= tail && names(s, s_acc)) || stmt_uses(s, &locals)) return false;
        if (s != g2 && names_memory(k, s)) return false;
    }
    *wait_at = wait;
    *tail_from = tail;
    return true;
}

/* The loop's TMA copies into rings of mbarriers (IrKernel.rings): one
 * ring per gemm that is the first to read some of the tiles, numbered in
 * the order of those gemms (attention: K on ring 0, V on ring 1). With
 * one ring, V(j-1)'s slot is also K(j-1)'s, and the rotated loop frees
 * it only halfway through iteration j: with 2 stages the producer then
 * loads iteration j+1's K too late (attention D=128: 2.12 against 1.74
 * ms). */
static void plan_rings(IrKernel *k, IrStmt *loop) {
    for (int j = 0; j < k->tma_copies.len; j++) ((IrStmt *)k->tma_copies.items[j])->ring = -1;
    k->rings = 0;
    for (int i = 0; i < loop->body.len; i++) {
        const IrStmt *gm = loop->body.items[i];
        if (gm->op != IR_GEMM) continue;
        bool first_reader = false;
        for (int j = 0; j < k->tma_copies.len; j++) {
            IrStmt *c = k->tma_copies.items[j];
            if (c->pipeline != loop || (gm->a.buf != c->dst.buf && gm->b.buf != c->dst.buf) || c->ring >= 0) continue;
            c->ring = k->rings;
            first_reader = true;
        }
        k->rings += first_reader;
    }
    for (int j = 0; j < k->tma_copies.len; j++) /* the preloads */
        if (((IrStmt *)k->tma_copies.items[j])->ring < 0) ((IrStmt *)k->tma_copies.items[j])->ring = 0;
    if (k->rings == 0) k->rings = 1;
}

void pass_plan_overlap(IrKernel *k) {
    const char *env = getenv("TILEC_OVERLAP");
    if (!k->ws_loop || !env || strcmp(env, "1")) return;
    /* Three consumer warpgroups (and the producer) have 128 registers a
     * thread at launch, and ptxas fits the wgmmas' registers into that
     * share: S, P and O live at once do not fit (attention at D = 64, BM =
     * 192: C7512, the wgmmas serialised, 276 bytes of spills). */
    if (k->threads > 256) return;
    k->overlap = plan(k, k->ws_loop, &k->overlap_wait, &k->overlap_tail);
    if (k->overlap) plan_rings(k, k->ws_loop);
}
