/* ast.c - building syntax tree nodes. */
#include "frontend.h"

static const char *kind_names[N_COUNT] = {
#define X(k) #k,
    NODE_KINDS(X)
#undef X
};

const char *node_kind_name(NodeKind k) { return kind_names[k]; }

Node *node_new(Ctx *c, NodeKind k, Loc loc) {
    Node *n = arena_alloc(&c->arena, sizeof *n);
    n->kind = k;
    n->loc = loc;
    n->depth = 1;
    return n;
}

bool node_const_true(const Node *e) { return e->const_float ? e->cval.f != 0 : e->cval.i != 0; }

void list_push(Ctx *c, NodeList *l, Node *n) {
    vec_push(&c->arena, (PtrVec *)l, n);
}

void node_child(Ctx *c, Node *parent, Node *child) {
    if (!child || child->depth < parent->depth) return;
    parent->depth = child->depth + 1;
    /* Every later stage walks the tree recursively; refusing very deep
     * trees here keeps them within the C stack. Report only at the
     * crossing, not again for every ancestor. */
    if (parent->depth == LIMIT_EXPR_DEPTH + 1)
        diag_error(c, child->loc,
                   "expression nested too deeply (more than %d levels; each operator of a chain such as a + b + c "
                   "is one): split it with lets",
                   LIMIT_EXPR_DEPTH);
}
