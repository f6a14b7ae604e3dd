/* int_eval.c - the value of an integer expression of a kernel for given
 * block indices, at compile time: a tile's row start (schedule_idle), its
 * loop's trip count (plan_schedule). After specialisation such
 * expressions are made of constants, block indices and the top-level lets
 * before the pipelined loop (`let n_blocks = min(ceildiv((bx + 1) * BM,
 * BN), ceildiv(S, BN))`), which this follows where asked; the arithmetic
 * is the front end's node_int_value. */
#include <stdint.h>

#include "passes.h"

typedef struct TileNames {
    const IrKernel *k;
    const int64_t *at;
    bool lets;
} TileNames;

/* A block index's value at the tile; a let before the loop, its value's expression. */
static bool tile_name(void *ctx, const Sym *sym, int64_t *value, const Node **expr) {
    const TileNames *t = ctx;
    for (int d = 0; t->at && d < t->k->info->block_idx.len; d++)
        if (sym == t->k->info->block_idx.items[d]) return *value = t->at[d], true;
    for (int i = 0; t->lets && i < t->k->body.len && t->k->body.items[i] != t->k->ws_loop; i++) {
        const IrStmt *s = t->k->body.items[i];
        if (s->op == IR_LET && s->sym == sym) return *expr = s->value, true;
    }
    return false;
}

bool int_eval(const IrKernel *k, const Node *e, const int64_t *at, bool lets, int64_t *out) {
    TileNames t = {.k = k, .at = at, .lets = lets};
    int budget = 4096;
    return node_int_value(expr_decided(e), tile_name, &t, &budget, out);
}
