/* plan_warpgroups.c - the Hopper (sm_90a) path, chosen when the kernel has
 * the shape of a tensor-core pipeline: one top-level pipelined loop whose
 * gemms are f16/bf16 into f32 fragments, with shared operands that TMA can
 * fill (copied from global memory either at the top of the loop body, or
 * once before the loop) and, for A, possibly an f16/bf16 fragment (flash
 * attention's P). Then:
 *
 * - those copies become TMA copies (mech COPY_TMA) issued by one producer
 *   warpgroup: the ones in the loop into rings of `stages` buffers that run
 *   ahead of the consumers (full/empty mbarriers), the ones before the loop
 *   once (a preload barrier); a loop copy whose rows TMA cannot address
 *   (not whole 16-byte units, or gathered by index) becomes cp.async by
 *   all of the producer's threads into the same ring and layout
 *   (COPY_RING_ASYNC), a gather's indices copied by them too
 *   (COPY_RING_INDEX); the producer may load values from tensors the
 *   kernel only reads (a tile's expert);
 * - the gemms become wgmma.mma_async: each consumer warpgroup (128 threads)
 *   computes 64 rows of the tile, warp w of it rows 16w..16w+15 - exactly the
 *   mma.sync accumulator layout with one warp per 16-row band (wn = 1), so
 *   layout inference, softmax-style row reductions and epilogues need
 *   nothing new;
 * - the block becomes BM/64 consumer warpgroups plus the producer; `threads`
 *   (the Ampere path's block size) is replaced by the consumer count.
 *
 * Anything else keeps the Ampere path, from the same source. Runs before
 * infer_layout, which then sees the consumer thread count. */

#include "passes.h"

/* What the producer warpgroup can compute without running the consumers'
 * code: constants, dynamic sizes, block indices, the loop variable (lv, NULL outside the
 * loop) and the top-level lets before the loop or at the top of its body
 * made of those (which the producer then evaluates too: IrStmt.producer_too). */
typedef struct Reach {
    IrKernel *k;
    const Sym *lv;
    int loop_at;
    int depth;
} Reach;

static bool producer_computable(Reach *r, const Node *e);

IrStmt *pass_producer_let(const IrKernel *k, int loop_at, const Sym *sym, bool *in_loop) {
    *in_loop = false;
    for (int i = 0; i < loop_at; i++) {
        IrStmt *s = k->body.items[i];
        if (s->op == IR_LET && s->sym == sym) return s;
    }
    *in_loop = true;
    const IrBlock *body = &k->body.items[loop_at]->body;
    for (int i = 0, n = 0; i < body->len && n < IR_MAX_LOOP_LETS; i++) {
        IrStmt *s = body->items[i];
        if (s->op != IR_LET) continue;
        if (s->sym == sym) return s;
        n++;
    }
    return NULL;
}

static bool let_computable(Reach *r, const Sym *sym) {
    bool inside;
    IrStmt *s = pass_producer_let(r->k, r->loop_at, sym, &inside);
    if (!s || (inside && !r->lv) || r->depth > 32) return false; /* outside the loop: not its lets */
    r->depth++;
    const Sym *lv = r->lv;
    if (!inside) r->lv = NULL; /* before the loop: no loop variable yet */
    bool ok = producer_computable(r, s->value);
    r->lv = lv;
    r->depth--;
    if (ok) s->producer_too = true;
    return ok;
}

static bool producer_computable(Reach *r, const Node *e) {
    e = expr_decided(e);
    if (!e || e->is_const) return true;
    switch (e->kind) {
    case N_NAME:
        if (r->lv && e->sym == r->lv) return true;
        if (e->sym && e->sym->dynamic) return true; /* a kernel argument, read before the warpgroups part */
        for (int i = 0; i < r->k->info->block_idx.len; i++)
            if (e->sym == r->k->info->block_idx.items[i]) return true;
        return let_computable(r, e->sym);
    case N_INT: case N_FLOAT: case N_BOOL: case N_INF: return true;
    case N_UNARY: return producer_computable(r, e->u.op.a);
    case N_BINARY: return producer_computable(r, e->u.op.a) && producer_computable(r, e->u.op.b);
    case N_COND:
        return producer_computable(r, e->u.cond.c) && producer_computable(r, e->u.cond.a) &&
               producer_computable(r, e->u.cond.b);
    case N_CALL:
        for (int i = 0; i < e->u.call.args.len; i++)
            if (!producer_computable(r, e->u.call.args.items[i])) return false;
        return true;
    case N_INDEX: {
        /* an element of a global tensor the kernel only reads (a grouped
         * GEMM's expert of the tile): the producer loads it too */
        IrBuf *b = ir_buf_of(r->k, e->sym);
        if (!b || b->scope != SCOPE_GLOBAL || buf_written_in(&r->k->body, b)) return false;
        for (int i = 0; i < e->u.index.idx.len; i++)
            if (!producer_computable(r, e->u.index.idx.items[i])) return false;
        return true;
    }
    default: return false;
    }
}

/* The shared-memory layout a TMA'd tile gets (codegen relies on it): rows
 * of at most 128 bytes (32, 64 or 128: the swizzle span), wider tiles split
 * into column blocks of 64 elements, each block its rows x 128 bytes. A TMA
 * box has at most 256 elements per dimension, so at most 256 rows. */
static bool tma_tile_ok(const IrBuf *s) {
    return pass_swizzle_span(s->shape[1] * dtype_bytes(s->dtype)) && s->shape[0] <= 256;
}

/* 8-bit operands (fp8, i8, u8): wgmma reads them K-major only */
static bool is_byte_operand(Dtype t) { return dtype_is_fp8(t) || t == DT_I8 || t == DT_U8; }

/* The dtypes wgmma multiplies: f16, bf16 and fp8 into f32 accumulators,
 * i8 and u8 into i32 ones. */
static bool wgmma_dtype(Dtype t) { return t == DT_F16 || t == DT_BF16 || is_byte_operand(t); }
static Dtype wgmma_acc_dtype(Dtype t) { return t == DT_I8 || t == DT_U8 ? DT_I32 : DT_F32; }

/* A global -> shared copy TMA can do: an f16/bf16/8-bit tensor of rank 2 to 5
 * whose rows are whole 16-byte units (TMA strides), the tile a whole 2-D
 * shared buffer whose columns are the tensor's last dimension and whose
 * rows any other (region_row_dim: the rows of Q[b, i : i + 64, h, 0 : D]
 * are H * D elements apart, TMA's pitch for that dimension), the others
 * extent 1, its corner computable by the producer. */
static bool tma_copy_ok(Reach *r, const IrStmt *c) {
    const IrBuf *g = c->src.buf, *s = c->dst.buf;
    if (g->scope != SCOPE_GLOBAL || s->scope != SCOPE_SHARED || g->rank < 2 || g->rank > 5 || s->rank != 2) return false;
    if (g->dtype != s->dtype || !wgmma_dtype(g->dtype)) return false;
    if (!buf_row_bytes_multiple_of(g, 16) || !region_is_whole(&c->dst) || !tma_tile_ok(s))
        return false;
    for (int d = 0; d < g->rank; d++) {
        int64_t want = d == region_row_dim(&c->src) ? s->shape[0] : d == g->rank - 1 ? s->shape[1] : 1;
        if (c->src.ext[d] != want || !producer_computable(r, c->src.idx[d])) return false;
    }
    return true;
}

/* The bytes of the widest cp.async chunk (16, 8 or 4) in which the
 * producer warpgroup's threads can copy c's rows, or 0: a chunk is
 * aligned in the tensor where its rows and the copy's first column are
 * multiples of it. Chunks of at most 16 aligned bytes never straddle a
 * 16-byte unit of the swizzled tile, so they land where TMA's would. */
static int ring_async_chunk_bytes(const IrStmt *c) {
    const IrBuf *g = c->src.buf, *s = c->dst.buf;
    int esize = dtype_bytes(g->dtype), last = g->rank - 1;
    for (int bytes = 16; bytes >= 4 && bytes >= esize; bytes /= 2) {
        int64_t v = bytes / esize;
        if (buf_dim_multiple_of(g, last, v) && expr_multiple_of(c->src.idx[last], v) && s->shape[1] % v == 0)
            return bytes;
    }
    return 0;
}

/* A copy in the loop that the producer warpgroup's threads can issue as
 * cp.async into the ring where TMA cannot (rows not whole 16-byte units:
 * fp8 at K = 1000; rows gathered by index, whose indices gather_index_ok
 * vets): what tma_copy_ok asks but the rows' alignment, which need only
 * be 4 bytes, and the copy must be the loop's (the ring's mbarriers see
 * the cp.asyncs complete; preloads have no such ring). */
static bool ring_async_copy_ok(Reach *r, const IrStmt *c) {
    const IrBuf *g = c->src.buf, *s = c->dst.buf;
    if (!r->lv) return false;
    if (g->scope != SCOPE_GLOBAL || s->scope != SCOPE_SHARED || g->rank < 2 || g->rank > 5 || s->rank != 2) return false;
    if (g->dtype != s->dtype || !wgmma_dtype(g->dtype) || !region_is_whole(&c->dst) || !tma_tile_ok(s)) return false;
    for (int d = 0; d < g->rank; d++) {
        int64_t want = d == region_row_dim(&c->src) ? s->shape[0] : d == g->rank - 1 ? s->shape[1] : 1;
        if (c->src.ext[d] != want || !producer_computable(r, c->src.idx[d])) return false;
    }
    return ring_async_chunk_bytes(c) > 0;
}

/* A global -> shared copy of a 1-D tile TMA can do unswizzled (a row of
 * per-row values: attention's log-sum-exps): a tensor of 1- to 4-byte
 * elements whose rows are whole 16-byte units, the tile a whole shared
 * vector of whole 16-byte units and at most 256 elements (a TMA box's
 * most), taken along the tensor's last dimension, its corner computable
 * by the producer. */
static bool tma_vector_copy_ok(Reach *r, const IrStmt *c) {
    const IrBuf *g = c->src.buf, *s = c->dst.buf;
    int esize = dtype_bytes(s->dtype);
    if (g->scope != SCOPE_GLOBAL || s->scope != SCOPE_SHARED || g->rank > 5 || s->rank != 1 || g->dtype != s->dtype ||
        esize > 4 || c->src.gather)
        return false;
    if (!buf_row_bytes_multiple_of(g, 16) || !region_is_whole(&c->dst) || s->shape[0] * esize % 16 || s->shape[0] > 256)
        return false;
    for (int d = 0; d < g->rank; d++)
        if (c->src.ext[d] != (d == g->rank - 1 ? s->shape[0] : 1) || !producer_computable(r, c->src.idx[d])) return false;
    return true;
}

/* Whether s is a copy into b from memory (global or shared), not from the
 * kernel's registers: a load TMA may do. */
static bool loads(const IrStmt *s, const IrBuf *b) {
    return s->op == IR_COPY && s->dst.buf == b && s->src.buf->scope != SCOPE_FRAGMENT && s->src.buf->scope != SCOPE_LOCAL;
}

/* The load into b at the top level of block, if exactly one. */
static IrStmt *only_load_into(IrBlock *block, const IrBuf *b) {
    IrStmt *found = NULL;
    for (int i = 0; i < block->len; i++) {
        IrStmt *s = block->items[i];
        if (loads(s, b)) {
            if (found) return NULL;
            found = s;
        }
    }
    return found;
}

/* Whether a load in block (nested ones too) writes b. */
static bool loads_into(const IrBlock *block, const IrBuf *b) {
    for (int i = 0; i < block->len; i++) {
        const IrStmt *s = block->items[i];
        if (loads(s, b) || loads_into(&s->body, b) || loads_into(&s->els, b)) return true;
    }
    return false;
}

/* The most TMA copies into shared memory (each a tensor map: CG_MAX_TMA
 * holds these and plan_store's stores and reductions). */
enum { MAX_TMA_LOADS = 8 };

typedef struct Plan {
    IrStmt *gemms[8];
    int ngemm;
    IrStmt *copies[MAX_TMA_LOADS];   /* the TMA copies, loop body first then preloads */
    int ncopy;
    IrStmt *async_copies[8];         /* the loop's copies the producer issues as cp.async */
    int nasync;
    IrStmt *index_copies[8];         /* the copies of their gathers' row indices (gather_index_ok) */
    int nindex;
    IrBuf *written[8];               /* shared operands the consumers write (consumer_operand_ok) */
    int nwritten;
} Plan;

/* Copy c into the plan: a TMA copy (tma) or a cp.async by the producer's
 * threads. NULL, or why not (too many of the kind). */
static const char *plan_copy(Plan *p, IrStmt *c, bool tma) {
    if (tma && p->ncopy == MAX_TMA_LOADS) return "more than eight TMA copies";
    if (!tma && p->nasync == 8) return "more than eight cp.async copies into the ring";
    if (tma) p->copies[p->ncopy++] = c;
    else p->async_copies[p->nasync++] = c;
    return NULL;
}

/* How often statement s (what is nested in it too) names b. */
static int stmt_uses(IrStmt *s, const IrBuf *b) {
    IrBlock one = {.items = &s, .len = 1};
    return buf_use_count(&one, b);
}

/* Whether s writes b from the consumers' registers: a parallel loop, or a
 * copy from a fragment or a local buffer. */
static bool consumer_writer(const IrStmt *s, const IrBuf *b) {
    return s->op == IR_PARALLEL ||
           (s->op == IR_COPY && s->dst.buf == b && (s->src.buf->scope == SCOPE_FRAGMENT || s->src.buf->scope == SCOPE_LOCAL));
}

/* A shared gemm operand the consumers compute themselves (W4A16's weights,
 * dequantised): only parallel loops at the top level of the loop body, or
 * copies into it from registers, name it besides the gemms, all before the
 * first gemm that reads it, and nothing outside the loop does. NULL, or
 * why not. */
static const char *consumer_operand_ok(IrKernel *k, IrStmt *loop, Plan *p, IrBuf *b) {
    for (int i = 0; i < p->nwritten; i++)
        if (p->written[i] == b) return NULL;
    if (!tma_tile_ok(b))
        return "a gemm operand the kernel writes is not a tile wgmma reads (rows of a multiple of 32 bytes, at most 256 "
               "of them)";
    int in_loop = 0;
    bool gemm_seen = false;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        int uses = stmt_uses(s, b);
        in_loop += uses;
        if (!uses) continue;
        if (s->op == IR_GEMM) {
            gemm_seen = true;
        } else if (!consumer_writer(s, b) || gemm_seen) {
            return "a gemm operand the kernel writes is named other than by parallel loops or copies from registers "
                   "before its gemms";
        }
    }
    if (buf_use_count(&k->body, b) != in_loop) return "a gemm operand the kernel writes is used outside the loop";
    if (p->nwritten == 8) return "more than eight gemm operands the kernel writes";
    p->written[p->nwritten++] = b;
    return NULL;
}

/* The row indices of gather c (a loop copy from X[rows_s, ...]) where the
 * producer's threads can load them for each tile: a shared buffer filled
 * by one copy from a global tensor before the loop, its corner computable
 * by the producer, and named by nothing but that copy and the loop's
 * gathers. NULL, or why not. */
static const char *gather_index_ok(IrKernel *k, IrStmt *loop, int loop_at, Plan *p, const IrStmt *c) {
    IrBuf *rows = c->src.gather;
    for (int i = 0; i < p->nindex; i++)
        if (p->index_copies[i]->dst.buf == rows) return NULL;
    IrBlock before = {.items = k->body.items, .len = loop_at};
    IrStmt *fill = rows->scope == SCOPE_SHARED ? only_load_into(&before, rows) : NULL;
    if (!fill || fill->src.buf->scope != SCOPE_GLOBAL || fill->src.gather || !region_is_whole(&fill->dst) ||
        loads_into(&loop->body, rows) || buf_written_in(&k->body, fill->src.buf))
        return "a gemm operand's rows are gathered by indices that are not a shared buffer filled by one copy before "
               "the loop from a tensor the kernel only reads";
    Reach reach = {.k = k, .loop_at = loop_at};
    for (int d = 0; d < fill->src.buf->rank; d++)
        if (!producer_computable(&reach, fill->src.idx[d]))
            return "a gemm operand's rows are gathered by indices whose copy's corner the producer cannot compute";
    int gathers = 0;
    for (int i = 0; i < loop->body.len; i++) {
        const IrStmt *s = loop->body.items[i];
        gathers += s->op == IR_COPY && s->src.gather == rows;
    }
    if (buf_use_count(&k->body, rows) != 1 + gathers)
        return "a gemm operand's rows are gathered by indices the kernel also uses otherwise";
    if (p->nindex == 8) return "more than eight buffers of gathered rows' indices";
    p->index_copies[p->nindex++] = fill;
    return NULL;
}

/* A shared gemm operand: one TMA-able copy writes it (in the loop body, or
 * before the loop at the top level), and it is read by gemms only. NULL, or
 * why not. */
static const char *operand_ok(IrKernel *k, IrStmt *loop, int loop_at, Plan *p, IrBuf *b) {
    for (int i = 0; i < p->ncopy; i++)
        if (p->copies[i]->dst.buf == b) return NULL;
    for (int i = 0; i < p->nasync; i++)
        if (p->async_copies[i]->dst.buf == b) return NULL;
    IrStmt *c = only_load_into(&loop->body, b);
    const Sym *lv = loop->sym;
    if (!c) {
        /* a preload: the only copy into b before the loop */
        IrBlock before = {.items = k->body.items, .len = loop_at};
        c = only_load_into(&before, b);
        lv = NULL;
        if (!c && !loads_into(&loop->body, b) && !loads_into(&before, b)) return consumer_operand_ok(k, loop, p, b);
        if (!c || only_load_into(&loop->body, b)) return "a gemm operand is not filled by exactly one copy";
    }
    Reach reach = {.k = k, .lv = lv, .loop_at = loop_at};
    /* gathered rows: cp.async by the producer's threads (TMA gathers rows
     * from sm_100 on) */
    const char *why = c->src.gather ? gather_index_ok(k, loop, loop_at, p, c) : NULL;
    if (why) return why;
    bool tma = !c->src.gather && tma_copy_ok(&reach, c);
    if (!tma && !ring_async_copy_ok(&reach, c))
        return "a copy into a gemm operand is neither one TMA can do (f16/bf16/8-bit rows of 16-byte units, a whole 2-D "
               "tile of a multiple of 32 bytes a row and at most 256 rows, its corner from block indices and "
               "the loop variable) nor, in the loop, one cp.async can (the same with rows of 4-byte units)";
    if ((why = plan_copy(p, c, tma))) return why; /* (a failure below drops the whole plan) */
    /* a copy in the loop comes before the gemms that read its buffer (the
     * producer fills this iteration's slot, not the next one's) */
    for (int i = 0, seen = 0; lv && i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        seen |= s == c;
        if (s->op == IR_GEMM && (s->a.buf == b || s->b.buf == b) && !seen)
            return "a gemm reads its operand before the copy that fills it";
    }
    /* the copy and the gemms' operands are among the uses: nothing else */
    int gemm_reads = 0;
    for (int i = 0; i < p->ngemm; i++)
        gemm_reads += (p->gemms[i]->a.buf == b) + (p->gemms[i]->b.buf == b);
    if (buf_use_count(&k->body, b) != 1 + gemm_reads) return "a gemm operand in shared memory is also used outside the gemms";
    return NULL;
}

/* A load at the top of the loop body (statement i) into a shared tile that
 * no gemm reads: a TMA copy into the ring where statements after it only
 * read the tile, and nothing before it or outside the loop names it. NULL,
 * or why not. */
static const char *element_copy_ok(IrKernel *k, IrStmt *loop, int loop_at, int i, Plan *p) {
    IrStmt *c = loop->body.items[i];
    IrBuf *b = c->dst.buf;
    Reach reach = {.k = k, .lv = loop->sym, .loop_at = loop_at};
    bool tma = !c->src.gather && (tma_copy_ok(&reach, c) || tma_vector_copy_ok(&reach, c));
    if (!tma && !ring_async_copy_ok(&reach, c))
        return "the loop loads shared memory that no gemm reads, and not as TMA can (f16/bf16/8-bit rows of 16-byte "
               "units, a whole 2-D tile of a multiple of 32 bytes a row and at most 256 rows or a whole vector of "
               "16-byte units, its corner from block indices and the loop variable) nor as cp.async can (the same "
               "2-D tiles with rows of 4-byte units)";
    int in_loop = 0;
    for (int j = 0; j < loop->body.len; j++) {
        IrStmt *s = loop->body.items[j];
        int uses = stmt_uses(s, b);
        in_loop += uses;
        if (j == i || !uses) continue;
        IrBlock one = {.items = &s, .len = 1};
        if (j < i || buf_written_in(&one, b)) return "the loop loads shared memory that no gemm reads, and also writes it";
    }
    if (buf_use_count(&k->body, b) != in_loop)
        return "the loop loads shared memory that no gemm reads, and it is used outside the loop";
    return plan_copy(p, c, tma);
}

bool pass_wgmma_region_ok(const IrStmt *gm, const IrRegion *r) {
    if (region_is_whole(r)) return true;
    const IrBuf *b = r->buf;
    if (b->scope != SCOPE_SHARED || b->rank != 2 || r->gather || buf_dim_dynamic(b, 0) || buf_dim_dynamic(b, 1)) return false;
    int64_t cols = pass_swizzle_cols(b->shape[1], dtype_bytes(b->dtype));
    if (!cols || !expr_multiple_of(r->idx[1], cols) || !expr_multiple_of(r->idx[0], 8)) return false;
    return gm->trans_b || r->ext[1] % cols == 0;
}

/* Plans the loop for the Hopper path; NULL, or why it cannot be. */
static const char *plan(IrKernel *k, IrStmt *loop, int loop_at) {
    Plan p = {0};
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        if (s->op == IR_GEMM) {
            if (p.ngemm == 8) return "more than eight gemms in the loop";
            p.gemms[p.ngemm++] = s;
        }
    }
    if (p.ngemm == 0) return "no gemm at the top level of the pipelined loop";
    Reach reach = {.k = k, .loop_at = loop_at};
    if (!producer_computable(&reach, loop->hi))
        return "the loop's trip count depends on more than block indices and constants";
    int64_t bm = -1;
    for (int i = 0; i < p.ngemm; i++) {
        IrStmt *g = p.gemms[i];
        IrBuf *A = g->a.buf, *B = g->b.buf, *C = g->c.buf;
        if (!region_is_whole(&g->a) || !region_is_whole(&g->c)) return "a gemm works on parts of buffers";
        if (!pass_wgmma_region_ok(g, &g->b))
            return "a gemm's B is a part of a shared buffer that wgmma cannot read where it lies (a 2-D buffer, from a "
                   "column that starts a swizzle span's block and a row that is a multiple of 8)";
        if (A->dtype != B->dtype || !wgmma_dtype(A->dtype) || B->scope != SCOPE_SHARED ||
            (A->scope != SCOPE_SHARED && A->scope != SCOPE_FRAGMENT))
            return "a gemm's operands are not f16/bf16/fp8/i8/u8 with B in shared memory";
        if (A->rank != 2 || B->rank != 2 || C->rank != 2 || C->scope != SCOPE_FRAGMENT ||
            C->dtype != wgmma_acc_dtype(A->dtype))
            return wgmma_acc_dtype(A->dtype) == DT_I32 ? "an i8/u8 gemm accumulates into something other than a 2-D "
                                                          "i32 fragment"
                                                        : "a gemm accumulates into something other than a 2-D f32 fragment";
        /* 8-bit wgmmas read both operands from shared memory, K-major only
         * (A as M x K, B as N x K: transpose_b) */
        bool bytes = is_byte_operand(A->dtype);
        if (bytes && (A->scope != SCOPE_SHARED || !g->trans_b || g->trans_a))
            return "an 8-bit gemm's operands are not both K-major in shared memory (A as M x K, B as N x K with "
                   "transpose_b)";
        if (g->trans_a && A->scope != SCOPE_SHARED) return "a gemm with transpose_a reads A from registers";
        int64_t m = C->shape[0], n = C->shape[1], kd = gemm_k(g);
        if (bm >= 0 && m != bm) return "the gemms' accumulators have different row counts";
        bm = m;
        /* one m64 wgmma per consumer warpgroup, at most 3 of them (4
         * warpgroups: the register file gives 128 registers a thread);
         * n 8..256 in steps of 8; the accumulator n / 2 registers a thread */
        if (m % 64 != 0 || m / 64 > 3) return "an accumulator's rows are not 64, 128 or 192";
        if (n % 8 != 0 || n < 8 || n > 256) return "an accumulator's columns are not a multiple of 8 up to 256";
        /* 3 consumer warpgroups + the producer are 512 threads: 128
         * registers a thread at launch, and ptxas checks a wgmma's registers
         * (its n / 2 accumulators plus ~26) against that share, not against
         * the consumers' setmaxnreg count (C7602 at n = 256) */
        /* fp8: a second set of n / 2 registers for the sums of each 128
         * products (codegen's promotes: the tensor cores' fp8 sums are not f32) */
        if (dtype_is_fp8(A->dtype) && n > (m / 64 == 3 ? 96 : 192))
            return m / 64 == 3 ? "an fp8 accumulator of 192 rows wider than 96 columns does not fit twice (its partial "
                                 "sums, added in f32, take as many registers again)"
                               : "an fp8 accumulator wider than 192 columns does not fit twice (its partial sums, "
                                 "added in f32, take as many registers again)";
        if (m / 64 == 3 && n / 2 > 96)
            return "a 192-row accumulator wider than 192 columns does not fit the 128 registers a thread of "
                   "four warpgroups";
        /* a wgmma's K step is 32 bytes of each row: 16 f16/bf16 values, 32 8-bit ones */
        if (kd * dtype_bytes(A->dtype) % 32 != 0) return bytes ? "an 8-bit gemm's K tile is not a multiple of 32"
                                                                : "a gemm's K tile is not a multiple of 16";
        /* N-major B: whole column blocks of a swizzle span (the MN-major
         * swizzle atom is 8 rows of one span) */
        if (!g->trans_b && !pass_swizzle_span(n * dtype_bytes(B->dtype)))
            return "B's rows are not a multiple of 32 bytes (use transpose_b or wider tiles)";
        /* M-major A (transpose_a: K x M): its rows of m 16-bit values, m a
         * multiple of 64, are whole 128-byte column blocks, one a
         * consumer warpgroup (cg_wgmma_a_wg_bytes) */
    }
    for (int i = 0; i < p.ngemm; i++) {
        IrStmt *g = p.gemms[i];
        const char *why = g->a.buf->scope == SCOPE_SHARED ? operand_ok(k, loop, loop_at, &p, g->a.buf) : NULL;
        if (!why) why = operand_ok(k, loop, loop_at, &p, g->b.buf);
        if (why) return why;
    }
    /* every other load into shared memory at the top of the loop becomes
     * a TMA (or cp.async) copy too, into the ring, which the consumers read
     * element by element (W4A16's packed weights) */
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *s = loop->body.items[i];
        bool planned = false;
        for (int j = 0; j < p.ncopy; j++) planned |= p.copies[j] == s;
        for (int j = 0; j < p.nasync; j++) planned |= p.async_copies[j] == s;
        if (s->op == IR_COPY && s->src.buf->scope == SCOPE_GLOBAL && s->dst.buf->scope == SCOPE_SHARED && !planned) {
            const char *why = element_copy_ok(k, loop, loop_at, i, &p);
            if (why) return why;
        }
    }
    for (int i = 0; i < p.nwritten; i++) p.written[i]->tma_layout = p.written[i]->consumer_written = true;
    for (int i = 0; i < p.ncopy; i++) {
        IrStmt *c = p.copies[i];
        c->mech = COPY_TMA;
        c->dst.buf->tma_layout = c->dst.buf->rank == 2; /* a vector is loaded unswizzled, as it is laid out */
        bool in_loop = false;
        for (int j = 0; j < loop->body.len; j++) in_loop |= loop->body.items[j] == c;
        c->pipeline = in_loop ? loop : NULL;
        c->dst.buf->stages = in_loop ? loop->stages : 1;
        vec_push(&k->c->arena, &k->tma_copies, c);
    }
    for (int i = 0; i < p.nindex; i++) {
        p.index_copies[i]->mech = COPY_RING_INDEX;
        vec_push(&k->c->arena, &k->ring_index_copies, p.index_copies[i]);
    }
    for (int i = 0; i < p.nasync; i++) {
        IrStmt *c = p.async_copies[i];
        c->mech = COPY_RING_ASYNC;
        c->dst.buf->tma_layout = true; /* the layout TMA would write: the one wgmma reads */
        c->pipeline = loop;
        c->dst.buf->stages = loop->stages;
        vec_push(&k->c->arena, &k->ring_async_copies, c);
    }
    for (int i = 0; i < p.ngemm; i++) {
        p.gemms[i]->wgmma = true;
        p.gemms[i]->policy = POLICY_FULL_ROW; /* one warp per 16-row band: the wgmma layout */
    }
    k->threads = bm * 2; /* bm / 16 consumer warps */
    k->producer_threads = 128;
    k->ws_loop = loop;
    return NULL;
}

static void find_gemm(IrStmt *s, void *arg) {
    if (s->op == IR_GEMM && !*(IrStmt **)arg) *(IrStmt **)arg = s;
}

/* a statement the warp-specialised path has no place for: a scan deals
 * rows to all the block's warps, an atomic outside a parallel loop is the
 * block's one (lower_scan.c, lower_atomic.c) */
static void note_scan(IrStmt *s, void *arg) { *(bool *)arg |= s->op == IR_SCAN || s->op == IR_ATOMIC; }

static void plan_kernel(IrKernel *k) {
    IrStmt *gemm = NULL;
    ir_walk(&k->body, find_gemm, &gemm);
    /* on every target, before this pass picks its own thread counts for
     * the Hopper path (the mma accumulator layouts split C over warps) */
    if (gemm && k->threads % 32 != 0) {
        diag_error(k->c, gemm->loc, "gemm needs whole warps: threads (%lld) must be a multiple of 32", (long long)k->threads);
        return;
    }
    if (k->arch != 90 || !k->arch_specific || !gemm) return; /* nothing for the tensor cores */
    int at = -1;
    for (int i = 0; i < k->body.len; i++) {
        IrStmt *s = k->body.items[i];
        if (s->op == IR_FOR && s->loop == LOOP_PIPELINED) {
            if (at >= 0) {
                k->hopper_declined = "more than one pipelined loop";
                return;
            }
            at = i;
        }
    }
    if (at < 0) {
        k->hopper_declined = "no pipelined loop at the top level of the kernel";
        return;
    }
    bool scans = false;
    ir_walk(&k->body, note_scan, &scans);
    if (scans) {
        k->hopper_declined = "a cumsum or an atomic that returns its old value";
        return;
    }
    k->hopper_declined = plan(k, k->body.items[at], at);
}

void pass_plan_warpgroups(IrKernel *k) {
    plan_kernel(k);
    /* the parts of buffers stage_operands left for wgmma that no wgmma
     * reads after all (the kernel keeps the Ampere path, or the gemm is
     * outside the loop) */
    if (k->arch == 90 && k->arch_specific) pass_stage_regions(k);
}
