/* lower_hopper.c - the warp-specialised sm_90a GEMM pipeline that
 * plan_warpgroups chose:
 *
 *   block = consumer warpgroups (threads 0 .. T-1, 64 tile rows each)
 *         + one producer warpgroup (T .. T+127)
 *
 * The producer's first thread walks the K loop `stages` tiles ahead: it
 * waits until the consumers have released a slot (empty[s]), announces the
 * slot's bytes on full[s] and issues the TMA copies into it. Consumers wait
 * on full[s], run the tile's wgmmas on shared-memory descriptors, wait for
 * them and release the slot; then every statement after the loop (the
 * epilogue) runs on the consumers with the usual code, since the wgmma
 * accumulator layout is the mma.sync one (warp w: rows 16w..16w+15).
 * Block-wide barriers among consumers are named barrier 1 over T threads
 * (cg_sync): the producer has left by then. */
#include <string.h>

#include "codegen.h"

static Arena *arena(Cg *g) { return &g->k->c->arena; }

static IrStmt *ws_gemm(const IrKernel *k) {
    for (int i = 0; i < k->ws_loop->body.len; i++)
        if (k->ws_loop->body.items[i]->op == IR_GEMM) return k->ws_loop->body.items[i];
    return NULL;
}

/* The tensor map of each TMA copy of the loop, in body order. */
static int tma_index(const IrKernel *k, const IrStmt *copy) {
    int n = 0;
    for (int i = 0; i < k->ws_loop->body.len; i++) {
        IrStmt *s = k->ws_loop->body.items[i];
        if (s->op != IR_COPY || s->mech != COPY_TMA) continue;
        if (s == copy) return n;
        n++;
    }
    return -1;
}

/* B tiles stored N-major (B_s[BK, BN], not transposed) are copied as
 * column blocks of 64 elements: the 128-byte swizzle span is the widest box
 * row TMA can swizzle. */
static bool n_major(const IrStmt *g, const IrBuf *b) { return b == g->b.buf && !g->trans_b; }

static int swizzle_mode(int64_t row_bytes) { return row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3; }

void cg_hopper_tensor_maps(const IrKernel *k, CgKernel *out) {
    IrStmt *g = ws_gemm(k);
    out->ntma = 0;
    for (int i = 0; i < k->ws_loop->body.len; i++) {
        IrStmt *s = k->ws_loop->body.items[i];
        if (s->op != IR_COPY || s->mech != COPY_TMA || out->ntma >= CG_MAX_TMA) continue;
        const IrBuf *src = s->src.buf, *dst = s->dst.buf;
        RtTensorMapSpec *m = &out->tma[out->ntma++];
        memset(m, 0, sizeof *m);
        for (int p = 0; p < k->info->params.len; p++)
            if (k->info->params.items[p] == src->sym) m->param = p;
        m->rank = 2;
        m->elem_bytes = dtype_bytes(src->dtype);
        m->bf16 = src->dtype == DT_BF16;
        m->dims[0] = (uint64_t)src->shape[1];
        m->dims[1] = (uint64_t)src->shape[0];
        m->strides[0] = (uint64_t)(src->shape[1] * m->elem_bytes);
        int64_t row = dst->shape[1];
        if (n_major(g, dst)) row = 64;
        m->box[0] = (uint32_t)row;
        m->box[1] = (uint32_t)dst->shape[0];
        m->swizzle_bytes = (int)(row * m->elem_bytes);
    }
}

void cg_hopper_params(const IrKernel *k, FILE *o) {
    for (int i = 0; i < k->ws_loop->body.len; i++) {
        IrStmt *s = k->ws_loop->body.items[i];
        if (s->op == IR_COPY && s->mech == COPY_TMA)
            fprintf(o, ", const __grid_constant__ tl_tensor_map tl_tmap%d", tma_index(k, s));
    }
}

static const char *wgmma_name(Cg *g, const IrStmt *gm) {
    return arena_printf(arena(g), "tl_wgmma_m64n%lldk16_%s_%s", (long long)gm->c.buf->shape[1],
                        gm->a.buf->dtype == DT_BF16 ? "bf16" : "f16", gm->trans_b ? "tn" : "nn");
}

/* The wgmma.mma_async of this tile width: m64 x n x k16, f32 accumulators
 * (n / 2 per thread, in the order of mma.sync's n8 tiles), A and B from
 * descriptors; imm-trans-b 1 reads B N-major. Printed before the kernel. */
void cg_hopper_helpers(const IrKernel *k, FILE *o) {
    Cg tmp = {.k = (IrKernel *)k};
    IrStmt *gm = ws_gemm(k);
    int64_t n = gm->c.buf->shape[1], regs = n / 2;
    const char *ty = gm->a.buf->dtype == DT_BF16 ? "bf16" : "f16";
    fprintf(o, "\nstatic __device__ __forceinline__ void %s(float *d, unsigned long long a, unsigned long long b)\n{\n",
            wgmma_name(&tmp, gm));
    fprintf(o, "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%lld, 0;\\n\"\n", (long long)regs + 2);
    fprintf(o, "                 \"wgmma.mma_async.sync.aligned.m64n%lldk16.f32.%s.%s {", (long long)n, ty, ty);
    for (int64_t r = 0; r < regs; r++) fprintf(o, "%s%%%lld", r ? ", " : "", (long long)r);
    fprintf(o, "}, %%%lld, %%%lld, p, 1, 1, 0, %d;\\n}\\n\"\n", (long long)regs, (long long)regs + 1,
            gm->trans_b ? 0 : 1);
    fputs("                 : ", o);
    for (int64_t r = 0; r < regs; r++) fprintf(o, "%s\"+f\"(d[%lld])", r ? ", " : "", (long long)r);
    fputs("\n                 : \"l\"(a), \"l\"(b), \"r\"(1));\n}\n", o);
}

/* mbarriers, then the producer warpgroup's whole job; the consumers go on. */
void cg_hopper_split(Cg *g) {
    IrKernel *k = g->k;
    IrStmt *loop = k->ws_loop, *gm = ws_gemm(k);
    int S = loop->stages;
    int64_t T = k->threads;
    cg_line(g, "unsigned long long *const tl_full = (unsigned long long *)(tl_smem + %lld), *const tl_empty = tl_full + %d;",
            (long long)k->mbar_offset, S);
    cg_line(g, "if (tid == 0) {");
    cg_line(g, "    #pragma unroll");
    cg_line(g, "    for (int s = 0; s < %d; ++s) {", S);
    cg_line(g, "        tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes");
    cg_line(g, "        tl_mbar_init(&tl_empty[s], %lld);  // one arrive per consumer warp", (long long)(T / 32));
    cg_line(g, "    }");
    cg_line(g, "    tl_mbar_fence_init();");
    cg_line(g, "}");
    cg_line(g, "__syncthreads();");
    cg_line(g, "if (tid >= %lld) {  // the producer warpgroup: its first thread issues every TMA copy", (long long)T);
    g->ind++;
    cg_line(g, "if (tid == %lld) {", (long long)T);
    g->ind++;
    const char *var = ir_cname(k->c, loop->sym->name), *n = cg_tmp(g, "n"), *s = cg_tmp(g, "s");
    int64_t bytes = 0;
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *c = loop->body.items[i];
        if (c->op == IR_COPY && c->mech == COPY_TMA) bytes += buf_elems(c->dst.buf) * dtype_bytes(c->dst.buf->dtype);
    }
    cg_line(g, "int tl_it = 0;");
    if (k->persistent) {
        cg_line(g, "for (int tl_tile = blockIdx.x; tl_tile < %lld; tl_tile += gridDim.x) {",
                (long long)(k->grid[0] * k->grid[1] * k->grid[2]));
        g->ind++;
        cg_block_indices(g, "tl_tile");
    }
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, loop->hi));
    cg_line(g, "for (int %s = 0; %s < %s; ++%s, ++tl_it) {", var, var, n, var);
    g->ind++;
    cg_line(g, "const int %s = tl_it %% %d;", s, S);
    cg_line(g, "if (tl_it >= %d) tl_mbar_wait(&tl_empty[%s], (tl_it / %d - 1) & 1);  // the consumers freed the slot", S,
            s, S);
    cg_line(g, "tl_mbar_arrive_expect_tx(&tl_full[%s], %lld);", s, (long long)bytes);
    for (int i = 0; i < loop->body.len; i++) {
        IrStmt *c = loop->body.items[i];
        if (c->op != IR_COPY || c->mech != COPY_TMA) continue;
        const IrBuf *dst = c->dst.buf;
        int map = tma_index(k, c);
        const char *row = c->src.idx[0] ? cg_expr_str(g, c->src.idx[0]) : "0";
        const char *col = c->src.idx[1] ? cg_expr_str(g, c->src.idx[1]) : "0";
        const char *base = arena_printf(arena(g), "(unsigned char *)%s + %s * %lld", dst->cname, s,
                                        (long long)dst->stage_bytes);
        if (n_major(gm, dst)) {
            int64_t blocks = dst->shape[1] / 64, block_bytes = dst->shape[0] * 128;
            for (int64_t j = 0; j < blocks; j++)
                cg_line(g, "tl_tma_load_2d(%s + %lld, &tl_tmap%d, &tl_full[%s], (int)(%s) + %lld, (int)(%s));", base,
                        (long long)(j * block_bytes), map, s, col, (long long)(j * 64), row);
        } else {
            cg_line(g, "tl_tma_load_2d(%s, &tl_tmap%d, &tl_full[%s], (int)(%s), (int)(%s));", base, map, s, col, row);
        }
    }
    g->ind--;
    cg_line(g, "}");
    if (k->persistent) {
        g->ind--;
        cg_line(g, "}");
    }
    g->ind--;
    cg_line(g, "}");
    cg_line(g, "return;");
    g->ind--;
    cg_line(g, "}");
}

/* The consumers' side of the loop. */
void cg_hopper_consumer(Cg *g, IrStmt *loop) {
    IrKernel *k = g->k;
    IrStmt *gm = ws_gemm(k);
    const IrBuf *A = gm->a.buf, *B = gm->b.buf, *C = gm->c.buf;
    int S = loop->stages;
    int64_t bk = A->shape[1], a_row = bk * 2, regs = C->layout.regs;
    const char *n = cg_tmp(g, "n"), *s = cg_tmp(g, "s"), *kt = cg_tmp(g, "kt");
    const char *acc = C->cname, *name = wgmma_name(g, gm);
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, loop->hi));
    cg_line(g, "for (int %s = 0; %s < %s; ++%s, ++tl_it) {", kt, kt, n, kt);
    g->ind++;
    cg_line(g, "const int %s = tl_it %% %d;", s, S);
    cg_line(g, "tl_mbar_wait(&tl_full[%s], (tl_it / %d) & 1);  // the tiles have landed", s, S);
    cg_line(g, "const unsigned char *const a_tile = (const unsigned char *)%s + %s * %lld + warp / 4 * %lld;",
            A->cname, s, (long long)A->stage_bytes, (long long)(64 * a_row));
    cg_line(g, "const unsigned char *const b_tile = (const unsigned char *)%s + %s * %lld;", B->cname, s,
            (long long)B->stage_bytes);
    /* the fence orders earlier accumulator writes (the clear) before the
     * wgmmas; ptxas itself keeps later ones (running wgmmas) in order */
    cg_line(g, "tl_wgmma_fence();");
    for (int64_t kk = 0; kk < bk / 16; kk++) {
        /* A: K-major, rows of a_row bytes, 8-row groups a_row * 8 apart; a
         * k16 step is 32 bytes further along the (swizzled) row */
        char *da = arena_printf(arena(g), "tl_wgmma_desc(a_tile + %lld, 16, %lld, %d)", (long long)(kk * 32),
                                (long long)(8 * a_row), swizzle_mode(a_row));
        char *db;
        if (gm->trans_b) {
            db = arena_printf(arena(g), "tl_wgmma_desc(b_tile + %lld, 16, %lld, %d)", (long long)(kk * 32),
                              (long long)(8 * a_row), swizzle_mode(a_row));
        } else {
            /* B: N-major 64-column blocks of bk rows x 128 bytes; a k16
             * step is 16 rows further down every block */
            db = arena_printf(arena(g), "tl_wgmma_desc(b_tile + %lld, %lld, 1024, 1)", (long long)(kk * 16 * 128),
                              (long long)(bk * 128));
        }
        cg_line(g, "%s(%s, %s, %s);", name, acc, da, db);
    }
    /* Wait for this tile's wgmmas before handing its slot back. (Keeping
     * one group in flight with wait<1> and releasing the previous slot was
     * measured 5-15% slower on the H200: bench/RESULTS.md.) */
    cg_line(g, "tl_wgmma_commit();");
    cg_line(g, "tl_wgmma_wait<0>();");
    cg_line(g, "if (lane == 0) tl_mbar_arrive(&tl_empty[%s]);  // this warp is done with the slot", s);
    g->ind--;
    cg_line(g, "}");
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int r = 0; r < %lld; ++r) tl_pin(%s[r]);", (long long)regs, acc);
    g->ind--;
    cg_line(g, "}");
}
