/* lower_hopper.c - the warp-specialised sm_90a pipeline that
 * plan_warpgroups chose:
 *
 *   block = consumer warpgroups (threads 0 .. T-1, 64 tile rows each)
 *         + one producer warpgroup (T .. T+127)
 *
 * The producer's first thread issues every TMA copy: the preloads (copies
 * before the loop, e.g. flash attention's Q) once on the preload barrier,
 * then the loop's copies `stages` iterations ahead: it waits until the
 * consumers have released a slot (empty[s]), announces the slot's bytes on
 * full[s] and issues the copies into it. Consumers run the kernel's
 * statements: a preload copy becomes a wait on its barrier; in the loop they
 * wait on full[s], run the body (gemms as wgmma on shared-memory
 * descriptors, A possibly from registers; everything else as usual, since
 * the wgmma accumulator layout is the mma.sync one: warp w owns rows
 * 16w..16w+15) and release the slot. Block-wide barriers among consumers
 * are named barrier 1 over T threads (cg_sync): the producer has left.
 *
 * TMA'd tiles are stored as column blocks of one swizzle span a row (the
 * widest of 128, 64 and 32 bytes that divides the row: pass_swizzle_span),
 * each block rows x span bytes (whole 8-row swizzle periods of the
 * 1024-byte aligned tile, as the rows are multiples of 8): the layout TMA writes
 * with the matching swizzle and the one wgmma descriptors describe. All
 * three spans put the 8 rows of a 16-byte chunk column in 8 different
 * bank groups, so wgmma reads them conflict-free whichever it is. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

static Arena *arena(Cg *g) { return &g->k->c->arena; }
static void push_ring_stages(Cg *g, const char *slot);

/* ---- tile layout (see the comment above) ---- */
/* Columns of one column block of rows of `cols` elements of `esize` bytes
 * (one swizzle span). */
int64_t cg_tma_blk_cols(const IrBuf *b) { return pass_swizzle_cols(b->shape[1], dtype_bytes(b->dtype)); }
int64_t cg_tma_blk_row_bytes(const IrBuf *b) { return cg_tma_blk_cols(b) * dtype_bytes(b->dtype); }
int64_t cg_tma_blk_bytes(const IrBuf *b) { return b->shape[0] * cg_tma_blk_row_bytes(b); }
int cg_tma_swizzle_mode(int64_t row_bytes) { return row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3; }

CgTmaSpan cg_tma_span(const IrBuf *b) {
    int esize = dtype_bytes(b->dtype);
    return (CgTmaSpan){.rows = b->shape[0], .cols = cg_tma_blk_cols(b), .chunks = (int)(cg_tma_blk_row_bytes(b) / 16),
                       .per_chunk = 16 / esize};
}

/* The tensor map (tl_tmapN) of a TMA copy: the loads' maps first, then the
 * stores' (cg_hopper_tensor_maps). */
int cg_tma_index(const IrKernel *k, const IrStmt *copy) {
    for (int i = 0; i < k->tma_copies.len; i++)
        if (k->tma_copies.items[i] == copy) return i;
    for (int i = 0; i < k->tma_stores.len; i++)
        if (k->tma_stores.items[i] == copy) return k->tma_copies.len + i;
    return -1;
}

/* The element coordinates of a TMA box, innermost first, as the copy
 * helpers take them: region r's corner, `col_off` more columns (and the
 * half unit's, schedule_halves, where `half`), the rows shifted by the C
 * expression `row_extra` ("" for none). */
static char *tma_coords(Cg *g, const IrRegion *r, int64_t col_off, bool half, const char *row_extra) {
    int rank = r->buf->rank;
    char *coords = arena_printf(arena(g), "(int)(%s) + %lld%s", r->idx[rank - 1] ? cg_expr_str(g, r->idx[rank - 1]) : "0",
                                (long long)col_off, half ? " + tl_hcol" : "");
    for (int d = rank - 2; d >= 0; d--)
        coords = arena_printf(arena(g), "%s, (int)(%s)%s", coords, r->idx[d] ? cg_expr_str(g, r->idx[d]) : "0",
                              d == region_row_dim(r) ? row_extra : "");
    return coords;
}

/* ---- tensor maps: the loads', then the stores' ---- */

/* The map of global tensor t (a parameter) with boxes of box_cols x
 * box_rows elements, the rows along dimension row_dim (1 in the other
 * dimensions), swizzled by the span of a box row unless `plain`. */
static void tensor_map(const IrKernel *k, const IrBuf *t, int64_t box_cols, int64_t box_rows, int row_dim, bool plain,
                       RtTensorMapSpec *m) {
    memset(m, 0, sizeof *m);
    for (int p = 0; p < k->info->params.len; p++)
        if (k->info->params.items[p] == t->sym) m->param = p;
    m->rank = t->rank;
    m->elem_bytes = dtype_bytes(t->dtype);
    m->bf16 = t->dtype == DT_BF16;
    uint64_t stride = (uint64_t)m->elem_bytes;
    for (int d = 0; d < t->rank; d++) {
        int dim = t->rank - 1 - d; /* innermost first */
        m->dims[d] = (uint64_t)t->shape[dim];
        if (d > 0) m->strides[d - 1] = stride;
        stride *= (uint64_t)t->shape[dim];
        m->box[d] = 1;
    }
    m->box[0] = (uint32_t)box_cols;
    if (row_dim >= 0) m->box[t->rank - 1 - row_dim] = (uint32_t)box_rows;
    m->swizzle_bytes = plain ? 0 : (int)(box_cols * m->elem_bytes);
}

void cg_hopper_tensor_maps(const IrKernel *k, CgKernel *out) {
    out->ntma = 0;
    for (int i = 0; i < k->tma_copies.len && out->ntma < CG_MAX_TMA; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        const IrBuf *dst = c->dst.buf;
        if (dst->rank == 1) { /* a vector: one box along the last dimension, unswizzled */
            tensor_map(k, c->src.buf, dst->shape[0], 1, -1, true, &out->tma[out->ntma++]);
            continue;
        }
        /* a multicast copy: each block of the cluster loads half the rows */
        tensor_map(k, c->src.buf, cg_tma_blk_cols(dst), c->multicast ? dst->shape[0] / 2 : dst->shape[0],
                   region_row_dim(&c->src), false, &out->tma[out->ntma++]);
    }
    for (int i = 0; i < k->tma_stores.len && out->ntma < CG_MAX_TMA; i++) {
        const IrStmt *c = k->tma_stores.items[i];
        const IrBuf *t = c->dst.buf;
        /* each consumer warpgroup stores its 64 rows */
        tensor_map(k, t, pass_swizzle_cols(c->src.buf->shape[1], dtype_bytes(t->dtype)), 64, region_row_dim(&c->dst),
                   false, &out->tma[out->ntma++]);
    }
}

void cg_hopper_params(const IrKernel *k, FILE *o) {
    for (int i = 0; i < k->tma_copies.len + k->tma_stores.len; i++)
        fprintf(o, ", const __grid_constant__ tl_tensor_map tl_tmap%d", i);
}

/* ---- wgmma instructions ---- */
static bool a_in_registers(const IrStmt *gm) { return gm->a.buf->scope == SCOPE_FRAGMENT; }

/* The K of one wgmma: 32 bytes of each operand row (k16 for f16 and bf16,
 * k32 for fp8), so a step advances a K-major descriptor by 32 bytes
 * whatever the dtype. */
int64_t cg_wgmma_k(const IrStmt *gm) { return 32 / dtype_bytes(gm->a.buf->dtype); }

bool cg_wgmma_int(const IrStmt *gm) { return gm->c.buf->dtype == DT_I32; }

/* The n of gemm gm's wgmmas: its accumulator's columns, half of them in
 * the code of a half unit (schedule_halves). */
int64_t cg_wgmma_n(const IrStmt *gm, bool half) { return gm->c.buf->shape[1] / (half ? 2 : 1); }

static const char *wgmma_name(Arena *a, const IrStmt *gm, int64_t n) {
    return arena_printf(a, "tl_wgmma_m64n%lldk%lld_%s_%s%s%s", (long long)n, (long long)cg_wgmma_k(gm),
                        mma_ptx_type(gm->a.buf->dtype), a_in_registers(gm) ? "rs" : "ss", gm->trans_b ? "_kb" : "_nb",
                        gm->trans_a ? "_ma" : "");
}

/* One wgmma.mma_async of this shape: m64 x n x k, f32 (i8/u8: s32)
 * accumulators (n / 2 per thread, in the order of mma.sync's n8 tiles), A
 * from a descriptor ("ss") or from four registers of f16 pairs ("rs",
 * mma.sync's A fragment layout), B from a descriptor, read N-major
 * (imm-trans-b 1) unless the gemm transposes B, A M-major (imm-trans-a 1)
 * where the gemm transposes A (16-bit only). 8-bit wgmmas read both
 * operands K-major only and take no transpose operands, the integer ones
 * no negation (imm-scale) operands either: they wrap on overflow as C's
 * int arithmetic does (no .satfinite). scale_d 0 ignores the accumulator's
 * old value: the first k step of a clearing gemm, which so needs no
 * zeroing moves. */
char *cg_wgmma_instr(Arena *ar, const IrStmt *gm, int64_t n) {
    int64_t regs = n / 2;
    bool rs = a_in_registers(gm), ints = cg_wgmma_int(gm), bytes = dtype_bytes(gm->a.buf->dtype) == 1;
    int64_t a = regs, b = regs + (rs ? 4 : 1);
    const char *ty = mma_ptx_type(gm->a.buf->dtype);
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    fprintf(o, "wgmma.mma_async.sync.aligned.m64n%lldk%lld.%s.%s.%s {", (long long)n, (long long)cg_wgmma_k(gm),
            ints ? "s32" : "f32", ty, ty);
    for (int64_t r = 0; r < regs; r++) fprintf(o, "%s%%%lld", r ? ", " : "", (long long)r);
    if (rs)
        fprintf(o, "}, {%%%lld, %%%lld, %%%lld, %%%lld}, %%%lld, p, 1, 1, %d;", (long long)a, (long long)a + 1,
                (long long)a + 2, (long long)a + 3, (long long)b, gm->trans_b ? 0 : 1);
    else if (ints)
        fprintf(o, "}, %%%lld, %%%lld, p;", (long long)a, (long long)b);
    else if (bytes)
        fprintf(o, "}, %%%lld, %%%lld, p, 1, 1;", (long long)a, (long long)b);
    else
        fprintf(o, "}, %%%lld, %%%lld, p, 1, 1, %d, %d;", (long long)a, (long long)b, gm->trans_a ? 1 : 0, gm->trans_b ? 0 : 1);
    fclose(o);
    char *copy = arena_printf(ar, "%s", out);
    free(out);
    return copy;
}

static void print_wgmma(Arena *ar, FILE *o, const char *name, const IrStmt *gm, int64_t n) {
    int64_t regs = n / 2;
    bool rs = a_in_registers(gm), ints = cg_wgmma_int(gm);
    int64_t one = regs + (rs ? 4 : 1) + 1;
    fprintf(o, "\nstatic __device__ __forceinline__ void %s(%s *d, %s, unsigned long long b, int scale_d)\n{\n", name,
            ints ? "int" : "float", rs ? "unsigned a0, unsigned a1, unsigned a2, unsigned a3" : "unsigned long long a");
    fprintf(o, "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%lld, 0;\\n\"\n", (long long)one);
    fprintf(o, "                 \"%s\\n}\\n\"\n", cg_wgmma_instr(ar, gm, n));
    fputs("                 : ", o);
    for (int64_t r = 0; r < regs; r++) fprintf(o, "%s\"+%c\"(d[%lld])", r ? ", " : "", ints ? 'r' : 'f', (long long)r);
    fprintf(o, "\n                 : %s, \"l\"(b), \"r\"(scale_d));\n}\n",
            rs ? "\"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3)" : "\"l\"(a)");
}

void cg_hopper_helpers(const IrKernel *k, FILE *o) {
    Arena *a = &k->c->arena;
    const char *done[8];
    int ndone = 0;
    for (int i = 0; i < k->ws_loop->body.len; i++) {
        const IrStmt *gm = k->ws_loop->body.items[i];
        if (gm->op != IR_GEMM || !gm->wgmma) continue;
        for (int half = k->sched.half_all; half <= sched_has_halves(&k->sched); half++) {
            int64_t n = cg_wgmma_n(gm, half);
            const char *name = wgmma_name(a, gm, n);
            bool seen = false;
            for (int j = 0; j < ndone; j++) seen |= !strcmp(done[j], name);
            if (seen || ndone == 8) continue;
            done[ndone++] = name;
            print_wgmma(a, o, name, gm, n);
        }
    }
}

/* ---- wgmma descriptors ----
 * Every descriptor a consumer uses is the one of its operand buffer's
 * start plus a byte offset (ring slot, warpgroup rows, k16 step): the
 * buffer's is built once before the loops (tl_wgmma_desc) and the offsets
 * added to its address field (tl_wgmma_desc_at). Building each one from
 * its address cost ~25 instructions between a k-tile's wait and its first
 * wgmma, with both consumer warpgroups drained (SASS of the 4096^3 GEMM).
 *
 * K-major tiles (rows x K): 8-row groups one swizzle atom (8 rows of a
 * column block) apart, LBO unused. MN-major (B as K x N, A as K x M with
 * transpose_a): column blocks of K rows x one span LBO apart, 8-row groups
 * (an atom) 8 spans apart. */
enum DescRole { DESC_A, DESC_MMAJOR_A, DESC_KMAJOR_B, DESC_NMAJOR_B };

static const char *desc_base(Cg *g, const IrBuf *b, enum DescRole role) {
    return arena_printf(arena(g), "tl_%cdesc_%s", "amkn"[role], b->cname);
}

int64_t cg_wgmma_a_wg_bytes(const IrStmt *gm) {
    const IrBuf *A = gm->a.buf;
    return gm->trans_a ? 64 / cg_tma_blk_cols(A) * cg_tma_blk_bytes(A) : 64 * cg_tma_blk_row_bytes(A);
}

int64_t cg_wgmma_step_bytes(const IrBuf *b, bool kmajor, int64_t kk) {
    return kmajor ? cg_wgmma_kmajor_offset(b, kk) : kk * 16 * cg_tma_blk_row_bytes(b);
}

static void declare_desc_base(Cg *g, const IrStmt *gm, const IrBuf *b, enum DescRole role, const char **seen, int *nseen) {
    const char *name = desc_base(g, b, role);
    for (int i = 0; i < *nseen; i++)
        if (!strcmp(seen[i], name)) return;
    seen[(*nseen)++] = name;
    if (role == DESC_NMAJOR_B)
        cg_line(g, "const unsigned long long %s = tl_wgmma_desc(%s, %lld, %lld, %d);", name, b->cname,
                (long long)cg_tma_blk_bytes(b), (long long)(8 * cg_tma_blk_row_bytes(b)), cg_tma_swizzle_mode(cg_tma_blk_row_bytes(b)));
    else /* K-major, or an A tile from this warpgroup's 64 rows on (cg_wgmma_a_wg_bytes) */
        cg_line(g, "const unsigned long long %s = tl_wgmma_desc((const unsigned char *)%s%s, %lld, %lld, %d);", name,
                b->cname, role == DESC_KMAJOR_B ? "" : arena_printf(arena(g), " + tl_wg * %lld", (long long)cg_wgmma_a_wg_bytes(gm)),
                (long long)(role == DESC_MMAJOR_A ? cg_tma_blk_bytes(b) : 16), (long long)(8 * cg_tma_blk_row_bytes(b)),
                cg_tma_swizzle_mode(cg_tma_blk_row_bytes(b)));
}

/* The consumers' descriptor bases: one per shared operand and role. The
 * warpgroup index goes through a shuffle so the compiler knows it is the
 * same in every lane and keeps the descriptors in uniform registers, as
 * wgmma wants them (otherwise each is moved there again: R2UR). */
static void declare_desc_bases(Cg *g) {
    const IrBlock *body = &g->k->ws_loop->body;
    const char *seen[2 * 8];
    int nseen = 0;
    cg_line(g, "const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup");
    for (int i = 0; i < body->len && nseen + 2 <= 2 * 8; i++) {
        const IrStmt *gm = body->items[i];
        if (gm->op != IR_GEMM || !gm->wgmma) continue;
        if (!a_in_registers(gm)) declare_desc_base(g, gm, gm->a.buf, gm->trans_a ? DESC_MMAJOR_A : DESC_A, seen, &nseen);
        declare_desc_base(g, gm, gm->b.buf, gm->trans_b ? DESC_KMAJOR_B : DESC_NMAJOR_B, seen, &nseen);
    }
}

/* The descriptor of K step kk of a K-major tile: the step's column
 * block, 32 bytes per step inside it. */
int64_t cg_wgmma_kmajor_offset(const IrBuf *b, int64_t kk) {
    int64_t step = 32 / dtype_bytes(b->dtype), cols = cg_tma_blk_cols(b);
    return (kk * step / cols) * cg_tma_blk_bytes(b) + (kk * step % cols) * dtype_bytes(b->dtype);
}

/* The descriptor of k step kk of operand b in `role`, its ring slot at slot_off. */
static char *step_desc(Cg *g, const char *slot_off, const IrBuf *b, enum DescRole role, int64_t kk) {
    bool kmajor = role == DESC_A || role == DESC_KMAJOR_B;
    return arena_printf(arena(g), "tl_wgmma_desc_at(%s, %s%lld)", desc_base(g, b, role), slot_off,
                        (long long)cg_wgmma_step_bytes(b, kmajor, kk));
}

/* `bytes + ` from the start of operand r's buffer to r's where r is a part
 * of it (pass_wgmma_region_ok: whole column blocks, then whole 8-row
 * swizzle atoms, so the buffer's descriptor reads it as it reads the
 * whole), "" where r is the whole buffer. */
static const char *region_bytes(Cg *g, const IrRegion *r) {
    if (region_is_whole(r)) return "";
    const IrBuf *b = r->buf;
    const char *cols = expr_is_zero(r->idx[1]) ? ""
                       : arena_printf(arena(g), "(%s) / %lld * %lld + ", cg_expr_str(g, r->idx[1]),
                                      (long long)cg_tma_blk_cols(b), (long long)cg_tma_blk_bytes(b));
    const char *rows = expr_is_zero(r->idx[0]) ? ""
                       : arena_printf(arena(g), "(%s) * %lld + ", cg_expr_str(g, r->idx[0]), (long long)cg_tma_blk_row_bytes(b));
    return arena_printf(arena(g), "%s%s", cols, rows);
}

/* ---- the rings of mbarriers ----
 * The full (or empty) mbarrier of slot `slot`: tl_full[slot]. */
static const char *ring_bar(Cg *g, const char *which, const char *slot) {
    return arena_printf(arena(g), "&tl_%s[%s]", which, slot);
}

/* The bytes of the loop's TMA copies, which complete on the full ring. */
/* The bytes of the TMA copies in the loop (in_loop) or before it. */
static int64_t tma_copy_bytes(const IrKernel *k, bool in_loop) {
    int64_t bytes = 0;
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if ((c->pipeline != NULL) == in_loop) bytes += buf_bytes(c->dst.buf);
    }
    return bytes;
}

int64_t cg_hopper_ring_bytes(const IrKernel *k) { return tma_copy_bytes(k, true); }

/* ---- the producer ---- */

/* Whether c is the loop's copy of B that schedule_halves' half units load half
 * of (its one gemm's). */
bool cg_hopper_half_copy(const IrKernel *k, const IrStmt *c) {
    return sched_has_halves(&k->sched) && c->pipeline == k->ws_loop && cg_loop_gemm(k)->b.buf == c->dst.buf;
}

/* The TMA copies of c into the tile at dst_expr (one per column block).
 * A multicast copy: this block of the cluster loads rows [rank * R/2,
 * (rank + 1) * R/2) of each column block into both blocks' tiles. */
static void issue_tma(Cg *g, const IrStmt *c, const char *dst_expr, const char *bar) {
    const IrBuf *src = c->src.buf, *dst = c->dst.buf;
    int map = cg_tma_index(g->k, c), r = src->rank;
    if (dst->rank == 1) { /* a vector: one box */
        cg_line(g, "tl_tma_load<%d>(%s, &tl_tmap%d, %s, 0, %s);", r, dst_expr, map, bar, tma_coords(g, &c->src, 0, false, ""));
        return;
    }
    int64_t cols = cg_tma_blk_cols(dst), blocks = dst->shape[1] / cols, half = dst->shape[0] / 2;
    const char *half_rows = c->multicast ? arena_printf(arena(g), " + tl_cta_rank * %lld", (long long)half) : "";
    const char *half_bytes =
        c->multicast ? arena_printf(arena(g), " + tl_cta_rank * %lld", (long long)(half * cg_tma_blk_row_bytes(dst))) : "";
    /* a half unit (schedule_halves) loads the column blocks of its half of B's
     * columns into the tile's first half */
    bool halves = cg_hopper_half_copy(g->k, c);
    /* the halves variant's units are all halves: no second half to load */
    if (halves && g->k->sched.half_all) blocks /= 2;
    for (int64_t j = 0; j < blocks; j++) {
        if (halves && !g->k->sched.half_all && j == blocks / 2) {
            cg_line(g, "if (!tl_half) {");
            g->ind++;
        }
        /* a multicast copy: into both blocks of the cluster (mask 0b11) */
        cg_line(g, "tl_tma_load<%d>(%s + %lld%s, &tl_tmap%d, %s, %s, %s);", r, dst_expr, (long long)(j * cg_tma_blk_bytes(dst)),
                half_bytes, map, bar, c->multicast ? "0x3" : "0", tma_coords(g, &c->src, j * cols, halves, half_rows));
    }
    if (halves && !g->k->sched.half_all) {
        g->ind--;
        cg_line(g, "}");
    }
}

int64_t cg_hopper_preload_bytes(const IrKernel *k) { return tma_copy_bytes(k, false); }

int64_t cg_hopper_halved_bytes(const IrKernel *k) {
    int64_t bytes = 0;
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if (cg_hopper_half_copy(k, c)) bytes += buf_bytes(c->dst.buf) / 2;
    }
    return bytes;
}

bool cg_hopper_has_preloads(const IrKernel *k) { return cg_hopper_preload_bytes(k) > 0; }

/* ---- registers between the warpgroups (setmaxnreg) ----
 * With one block an SM (__launch_bounds__(threads, 1)), ptxas gives every
 * thread the same share of the 64K registers at entry (rounded down to 8);
 * setmaxnreg.dec in the producer returns what its TMA loop does not need
 * to the block's pool and setmaxnreg.inc in the consumers takes it, in
 * steps of 8 (the count lies in 24..256). The counts are chosen so the
 * consumers take no more than the producer frees: an inc that the pool
 * cannot grant waits for ever. Only worth it for large accumulators: it
 * pins the kernel at its entry share, which a small tile's kernel would
 * not have needed. */
enum { REG_POOL = 65536 };

/* The producer thread's registers: its loop of TMA copies fits in 40; with
 * plan_schedule's counter and the longest-first order to decode it needs
 * more (at 48 ptxas spilled 48 bytes in causal attention at 192 x 96 and,
 * for the whole kernel, serialised the wgmmas: C7512); a producer whose
 * threads issue cp.asyncs holds their chunks' addresses and bounds (at 56
 * the llvm backend's split f16 GEMM with A's rows of 16360 bytes spilled
 * 12 bytes; 72 spills nothing in the kernels of tests/gpu_run.sh). */
int cg_hopper_producer_regs(const IrKernel *k) {
    if (cg_hopper_ring_async(k)) return 72;
    return k->sched.order == ORDER_LONGEST_FIRST ? 56 : 40;
}

/* Whether every producer thread issues cp.asyncs into the ring
 * (COPY_RING_ASYNC), not only its first the TMA copies. */
bool cg_hopper_ring_async(const IrKernel *k) { return k->ring_async_copies.len > 0; }

int cg_hopper_consumer_regs(const IrKernel *k) {
    if (!k->ws_loop || !k->arch_specific) return 0;
    int64_t frag_regs = 0;
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        if (b->scope == SCOPE_FRAGMENT) frag_regs += b->layout.regs;
    }
    int64_t block = k->threads + k->producer_threads;
    int64_t entry = REG_POOL / block / 8 * 8;
    if (frag_regs < 96 || entry > 248 || entry <= cg_hopper_producer_regs(k)) return 0;
    int64_t more = k->producer_threads * (entry - cg_hopper_producer_regs(k)) / k->threads / 8 * 8;
    int64_t regs = entry + more > 256 ? 256 : entry + more;
    return regs > entry ? (int)regs : 0;
}

/* The top-level lets before the loop that the copies' corners and the
 * trip count need (IrStmt.producer_too). */
static void producer_lets(Cg *g) {
    IrKernel *k = g->k;
    for (int i = 0; i < k->body.len && k->body.items[i] != k->ws_loop; i++)
        if (k->body.items[i]->producer_too) {
            IrBlock one = {.items = &k->body.items[i], .len = 1};
            cg_block(g, &one);
        }
}

/* One of the producer's cp.async copies into the ring slot. Where the
 * plan allows it (cg_ring_copy_plan) and the tile lies wholly inside the
 * tensor, each chunk is one cp.async at a constant offset from the
 * thread's first global and shared addresses; tiles across an edge take
 * the copy's general code (lower_copy.c), a bounds test and a select a
 * chunk. */
static void ring_async_copy(Cg *g, IrStmt *c) {
    IrBlock one = {.items = &c, .len = 1};
    CgCoopCopyPlan p;
    if (!cg_ring_copy_plan(g->k, c, &p)) {
        cg_block(g, &one);
        return;
    }
    const IrRegion *src = &c->src;
    const IrBuf *G = src->buf, *S = c->dst.buf;
    int rk = G->rank, esize = dtype_bytes(G->dtype);
    int outer = g->src_line;
    g->src_line = c->loc.line;
    cg_quote_line(g, c->loc);
    cg_line(g, "{");
    g->ind++;
    const char *tr = cg_tmp(g, "tr"), *tc = cg_tmp(g, "tc");
    cg_line(g, "const int %s = tl_ptid * %d / %lld, %s = tl_ptid * %d %% %lld;", tr, p.vec, (long long)p.C, tc, p.vec,
            (long long)p.C);
    char *inside = NULL, *gc[MAX_RANK];
    for (int d = 0; d < rk; d++) {
        const char *start = src->idx[d] ? cg_expr_str(g, src->idx[d]) : "0";
        gc[d] = d == rk - 2 ? arena_printf(arena(g), "(%s + %s)", start, tr)
              : d == rk - 1 ? arena_printf(arena(g), "(%s + %s)", start, tc)
                            : arena_printf(arena(g), "(%s)", start);
        inside = cg_and(g, inside, arena_printf(arena(g), "(long long)(%s) >= 0 && (long long)(%s) + %lld <= %s", start,
                                                start, (long long)src->ext[d], cg_global_dim(g, G, d)));
    }
    char *sc[2] = {arena_printf(arena(g), "(%s)", tr), arena_printf(arena(g), "(%s)", tc)};
    cg_line(g, "if (%s) {  // the tile inside the tensor: one cp.async a chunk at constant offsets", inside);
    g->ind++;
    const char *gp = cg_tmp(g, "gp"), *sp = cg_tmp(g, "sp"), *q = cg_tmp(g, "q");
    cg_line(g, "const char *const %s = (const char *)&%s[%s];", gp, G->cname, cg_global_offset(g, G, gc));
    cg_line(g, "const unsigned %s = tl_smem_addr(&%s[%s]);", sp, S->cname, cg_shared_offset_x(g, S, sc, tr));
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s)", q, q, (long long)p.rounds, q);
    cg_line(g, "    tl_cp_async%d(%s + %s * %lld, %s + %s * (%lldLL * %s), true);", p.vec * esize, sp, q,
            (long long)(p.rpr * cg_tma_blk_row_bytes(S)), gp, q, (long long)(p.rpr * esize), cg_global_dim(g, G, rk - 1));
    g->ind--;
    cg_line(g, "} else {");
    g->ind++;
    cg_block(g, &one);
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
    g->src_line = outer;
}

/* This producer thread's share of the loop's cp.async copies into ring
 * slot `slot` (each a cooperative copy over the producer's threads,
 * lower_copy.c), then its arrival on the slot's full barrier once they
 * have landed. */
static void ring_async_copies(Cg *g, const char *slot) {
    IrKernel *k = g->k;
    int saved = g->nstage;
    push_ring_stages(g, slot);
    for (int i = 0; i < k->ring_async_copies.len; i++) ring_async_copy(g, k->ring_async_copies.items[i]);
    g->nstage = saved;
    cg_line(g, "tl_mbar_arrive_cp_async(%s);  // once this thread's copies have landed", ring_bar(g, "full", slot));
}

/* The row indices of the ring's gathers for this tile, copied by the
 * producer's threads: once all of them are past the last tile's copies
 * (whose addresses read the old ones), and before any reads the new. */
static void ring_index_copies(Cg *g) {
    IrKernel *k = g->k;
    if (!k->ring_index_copies.len) return;
    const char *bar = arena_printf(arena(g), "asm volatile(\"bar.sync %d, %lld;\\n\" ::: \"memory\");", CG_BAR_PRODUCER,
                                   (long long)k->producer_threads);
    if (k->sched.persistent) cg_line(g, "%s  // the producer's threads are past the last tile's gathers", bar);
    for (int i = 0; i < k->ring_index_copies.len; i++) {
        IrBlock one = {.items = (IrStmt **)&k->ring_index_copies.items[i], .len = 1};
        cg_block(g, &one);
    }
    cg_line(g, "%s  // the gathers' row indices are in", bar);
}

/* mbarriers, then the producer warpgroup's whole job; the consumers go on. */
void cg_hopper_split(Cg *g) {
    IrKernel *k = g->k;
    IrStmt *loop = k->ws_loop;
    int S = loop->stages;
    int64_t T = k->threads;
    cg_line(g, "unsigned long long *const tl_full = (unsigned long long *)(tl_smem + %lld), *const tl_empty = tl_full + %d;",
            (long long)k->mbar_offset, S);
    cg_line(g, "unsigned long long *const tl_preload = tl_full + %d, *const tl_preload_free = tl_full + %d;", 2 * S,
            2 * S + 1);
    if (k->sched.order == ORDER_LONGEST_FIRST) {
        /* static, so that the dynamic layout plan_shared made does not depend on the schedule */
        cg_line(g, "__shared__ int tl_next_tile_slot;");
        cg_line(g, "int *const tl_next_tile = &tl_next_tile_slot;  // the next tile (the longest-first order)");
    }
    cg_line(g, "if (tid == 0) {");
    cg_line(g, "    #pragma unroll");
    cg_line(g, "    for (int s = 0; s < %d; ++s) {", S);
    if (cg_hopper_ring_async(k))
        cg_line(g, "        tl_mbar_init(&tl_full[s], %lld);  // the first producer thread's arrive + the TMA bytes, and "
                   "each producer thread's cp.asyncs landed",
                (long long)(1 + k->producer_threads));
    else
        cg_line(g, "        tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes");
    if (k->sched.cluster)
        cg_line(g, "        tl_mbar_init(&tl_empty[s], %lld);  // one arrive per consumer warp of both blocks: both fill it",
                (long long)(k->sched.cluster * T / 32));
    else
        cg_line(g, "        tl_mbar_init(&tl_empty[s], %lld);  // one arrive per consumer warp", (long long)(T / 32));
    cg_line(g, "    }");
    cg_line(g, "    tl_mbar_init(tl_preload, 1);");
    cg_line(g, "    tl_mbar_init(tl_preload_free, %lld);  // a persistent block's consumer warps, done with a tile's preloads",
            (long long)(T / 32));
    cg_line(g, "    tl_mbar_fence_init();");
    cg_line(g, "}");
    cg_line(g, k->sched.cluster ? "tl_cluster_sync();  // the peer's mbarriers are ready before anything is multicast into them"
                          : "__syncthreads();");
    bool async = cg_hopper_ring_async(k);
    cg_line(g, async ? "if (tid >= %lld) {  // the producer warpgroup: its first thread issues every TMA copy, each "
                       "thread its share of the cp.asyncs"
                     : "if (tid >= %lld) {  // the producer warpgroup: its first thread issues every TMA copy",
            (long long)T);
    g->ind++;
    g->in_producer = true;
    int consumer_regs = cg_hopper_consumer_regs(k);
    if (consumer_regs)
        cg_line(g, "asm volatile(\"setmaxnreg.dec.sync.aligned.u32 %d;\\n\" ::: \"memory\");  // to the consumers",
                cg_hopper_producer_regs(k));
    if (async) {
        cg_line(g, "const int tl_ptid = tid - %lld;  // this thread among the producer's", (long long)T);
    } else {
        cg_line(g, "if (tid == %lld) {", (long long)T);
        g->ind++;
    }
    int64_t pre_bytes = cg_hopper_preload_bytes(k);
    const char *var = ir_sym_cname(k->c, loop->sym), *n = cg_tmp(g, "n"), *s = cg_tmp(g, "s");
    cg_line(g, "int tl_it = 0;");
    if (k->sched.persistent) cg_tile_loop_begin(g, true);
    producer_lets(g);
    ring_index_copies(g);
    if (pre_bytes) {
        if (async) {
            cg_line(g, "if (tid == %lld) {", (long long)T);
            g->ind++;
        }
        /* a persistent block's next tile: once its consumers have left the
         * last tile's loop, the preloaded tiles are free */
        if (k->sched.persistent) cg_line(g, "if (tl_n > 0) tl_mbar_wait(tl_preload_free, (tl_n - 1) & 1);");
        cg_line(g, "tl_mbar_arrive_expect_tx(tl_preload, %lld);", (long long)pre_bytes);
        for (int i = 0; i < k->tma_copies.len; i++) {
            const IrStmt *c = k->tma_copies.items[i];
            if (!c->pipeline)
                issue_tma(g, c, arena_printf(arena(g), "(unsigned char *)%s", c->dst.buf->cname), "tl_preload");
        }
        if (async) {
            g->ind--;
            cg_line(g, "}");
        }
    }
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, loop->hi));
    cg_split_loop(g, var, n);
    g->ind++;
    cg_line(g, "const int %s = tl_it %% %d;", s, S);
    /* the lets at the top of the body that the copies' corners need */
    for (int i = 0; i < loop->body.len; i++)
        if (loop->body.items[i]->op == IR_LET && loop->body.items[i]->producer_too) {
            IrBlock one = {.items = &loop->body.items[i], .len = 1};
            cg_block(g, &one);
        }
    cg_line(g, "if (tl_it >= %d) tl_mbar_wait(%s, (tl_it / %d - 1) & 1);  // the consumers freed the slot", S,
            ring_bar(g, "empty", s), S);
    if (async) {
        cg_line(g, "if (tid == %lld) {", (long long)T);
        g->ind++;
    }
    int64_t halved = cg_hopper_halved_bytes(k);
    if (async && !cg_hopper_ring_bytes(k))
        cg_line(g, "tl_mbar_arrive(%s);  // no TMA bytes", ring_bar(g, "full", s));
    else if (halved && k->sched.half_all)
        cg_line(g, "tl_mbar_arrive_expect_tx(%s, %lld);  // half tiles", ring_bar(g, "full", s),
                (long long)(cg_hopper_ring_bytes(k) - halved));
    else if (halved)
        cg_line(g, "tl_mbar_arrive_expect_tx(%s, tl_half ? %lld : %lld);", ring_bar(g, "full", s),
                (long long)(cg_hopper_ring_bytes(k) - halved), (long long)cg_hopper_ring_bytes(k));
    else
        cg_line(g, "tl_mbar_arrive_expect_tx(%s, %lld);", ring_bar(g, "full", s), (long long)cg_hopper_ring_bytes(k));
    for (int i = 0; i < k->tma_copies.len; i++) {
        const IrStmt *c = k->tma_copies.items[i];
        if (!c->pipeline) continue;
        const IrBuf *dst = c->dst.buf;
        issue_tma(g, c, arena_printf(arena(g), "(unsigned char *)%s + %s * %lld", dst->cname, s, (long long)dst->stage_bytes),
                  ring_bar(g, "full", s));
    }
    if (async) {
        g->ind--;
        cg_line(g, "}");
        ring_async_copies(g, s);
    }
    g->ind--;
    cg_line(g, "}");
    if (k->sched.persistent) cg_tile_loop_end(g, true);
    if (async) {
        /* (a thread's cp.asyncs land whether or not it has left; waiting
         * keeps the producer's last copies visibly inside the block's life) */
        cg_line(g, "tl_cp_async_wait_all();");
    } else {
        g->ind--;
        cg_line(g, "}");
    }
    cg_line(g, "return;");
    g->in_producer = false;
    g->ind--;
    cg_line(g, "}");
    if (consumer_regs)
        cg_line(g, "asm volatile(\"setmaxnreg.inc.sync.aligned.u32 %d;\\n\" ::: \"memory\");  // what the producer freed",
                consumer_regs);
    declare_desc_bases(g);
}

/* ---- the consumers ---- */

/* A preload copy, where the consumers meet it: wait until it has landed. */
void cg_hopper_preload_wait(Cg *g, IrStmt *copy) {
    (void)copy;
    cg_line(g, "tl_mbar_wait(tl_preload, %s);  // the TMA preloads have landed", g->k->sched.persistent ? "tl_n & 1" : "0");
}

/* Where shared operand b's tile starts in the buffer, "<bytes> + ": its
 * ring slot for the loop's copies, nothing for preloads. */
static const char *operand_slot(Cg *g, const IrBuf *b, const char *slot) {
    return cg_ring_buf(g->k, b) ? arena_printf(arena(g), "%s * %lld + ", slot, (long long)b->stage_bytes) : "";
}

/* Whether b is one of the ring's tiles (a loop copy's, TMA or cp.async). */
bool cg_ring_buf(const IrKernel *k, const IrBuf *b) {
    const PtrVec *lists[2] = {&k->tma_copies, &k->ring_async_copies};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l]->len; i++) {
            const IrStmt *c = lists[l]->items[i];
            if (c->dst.buf == b && c->pipeline) return true;
        }
    return false;
}

/* Waits at this consumer warpgroup's named barrier base + tl_wg until
 * `threads` threads have arrived there (codegen.h: CG_BAR_*). */
static void warpgroup_bar_sync(Cg *g, int base, int threads, const char *what) {
    cg_line(g, "asm volatile(\"bar.sync %%0, %d;\\n\" ::\"r\"(%d + tl_wg) : \"memory\");  // %s", threads, base, what);
}


static bool is_exponential(const Node *e, const void *unused) {
    (void)unused;
    return e->kind == N_CALL && e->u.call.name &&
           (!strcmp(e->u.call.name->s, "exp") || !strcmp(e->u.call.name->s, "exp2"));
}

/* Packs gemm gm's A fragment into `regs` (unsigned [K/16][4]): mma.sync's
 * A fragment from the accumulator-layout registers, rows g / g+8 of n8
 * tiles 2kk and 2kk+1. (Before the wgmma fence: packing after it would
 * make ptxas fence again and serialise, C7520.) The half-precision values
 * are packed as they are, except in a softmax (a kernel that computes
 * exponentials) with two consumer warpgroups: there they go through float
 * and back (two conversions more a pair), which is faster: ptxas then
 * spreads the exp2s among the conversions instead of after all of the row
 * maxima, and two warps an SM sub-partition hide less of a bunched
 * schedule than three (docs/decisions.md, "P packed from its halves only
 * with three consumer warpgroups").
 * False (after an error) when the fragment is not in the layout wgmma reads. */
static bool pack_a_regs(Cg *g, const IrStmt *gm, const char *regs) {
    const IrBuf *A = gm->a.buf, *C = gm->c.buf;
    if (A->layout.kind != LAYOUT_ACC || A->layout.wn != 1 || A->layout.mi != 1 || C->layout.mi != 1) {
        cg_error(g, gm->loc, "gemm: '%s' in registers is not in the layout wgmma reads (one warp per 16 rows)",
                 A->sym->name->s);
        return false;
    }
    const char *pack = A->dtype == DT_BF16 ? "tl_pack_bf162" : "tl_pack_half2";
    bool as_halves = g->k->threads >= 384 || !block_any_expr(&g->k->body, is_exponential, NULL);
    for (int64_t kk = 0; kk < A->shape[1] / 16; kk++)
        for (int h = 0; h < 4; h++) {
            int64_t t = (2 * kk + h / 2) * 4 + (h % 2) * 2;
            const char *lo = arena_printf(arena(g), "%s[%lld]", A->cname, (long long)t);
            const char *hi = arena_printf(arena(g), "%s[%lld]", A->cname, (long long)t + 1);
            if (!as_halves) {
                lo = arena_printf(arena(g), "tl_to_float(%s)", lo);
                hi = arena_printf(arena(g), "tl_to_float(%s)", hi);
            }
            cg_line(g, "%s[%lld][%d] = %s(%s, %s);", regs, (long long)kk, h, pack, lo, hi);
        }
    return true;
}

/* fp8 wgmmas add their products in the tensor cores with fewer mantissa
 * bits than f32 (about 14: DeepSeek-V3's report), too few for sums of
 * thousands of products (docs/decisions.md, "fp8 sums promoted to f32
 * every 128 products"). So an
 * fp8 gemm sums every CG_WGMMA_PROMOTE_K products into registers of their own,
 * started from zero, which are then added to the accumulator in f32: as
 * cuBLAS's fp8 GEMMs do unless asked for "fast accumulation", and at
 * DeepSeek-V3's interval (128, four wgmmas of k32), whatever the K tile:
 * the error grows with the products summed in the narrow adds. */
bool cg_wgmma_promotes(const IrStmt *gm) { return dtype_is_fp8(gm->a.buf->dtype); }

/* Issues wgmma steps [kk_lo, kk_hi) of gemm gm (k steps of cg_wgmma_k; its
 * ring operands in slot `slot`) as one commit group, into its accumulator
 * or, where it cg_wgmma_promotes, into tl_part (the steps' first one starts it from
 * zero); cg_wgmma_wait completes the group. The gemm's first steps
 * synchronise and pack a register A. */
static void cg_wgmma_steps(Cg *g, IrStmt *gm, const char *slot, int64_t kk_lo, int64_t kk_hi) {
    const IrBuf *A = gm->a.buf, *B = gm->b.buf, *C = gm->c.buf;
    int64_t K = gemm_k(gm);
    const char *name = wgmma_name(arena(g), gm, cg_wgmma_n(gm, g->half)), *acc = cg_wgmma_promotes(gm) ? "tl_part" : C->cname;
    const char *a_slot = A->scope == SCOPE_SHARED ? operand_slot(g, A, slot) : NULL;
    const char *b_slot = arena_printf(arena(g), "%s%s", operand_slot(g, B, slot), region_bytes(g, &gm->b));
    const char *a_regs = "tl_a_regs";
    if (kk_lo == 0) {
        if (gm->sync_before) cg_sync(g);
        if (A->scope == SCOPE_FRAGMENT) {
            cg_line(g, "unsigned tl_a_regs[%lld][4];", (long long)(K / 16));
            if (!pack_a_regs(g, gm, a_regs)) return;
        }
    }
    /* orders the accumulator's (and a register A's) earlier writes before
     * the wgmmas; ptxas keeps the running wgmmas themselves in order */
    cg_line(g, "tl_wgmma_fence();");
    for (int64_t kk = kk_lo; kk < kk_hi; kk++) {
        char *a = A->scope == SCOPE_FRAGMENT
                      ? arena_printf(arena(g), "%s[%lld][0], %s[%lld][1], %s[%lld][2], %s[%lld][3]", a_regs, (long long)kk,
                                     a_regs, (long long)kk, a_regs, (long long)kk, a_regs, (long long)kk)
                      : step_desc(g, a_slot, A, gm->trans_a ? DESC_MMAJOR_A : DESC_A, kk);
        char *b = step_desc(g, b_slot, B, gm->trans_b ? DESC_KMAJOR_B : DESC_NMAJOR_B, kk);
        cg_line(g, "%s(%s, %s, %s, %d);", name, acc, a, b, (gm->clear || cg_wgmma_promotes(gm)) && kk == kk_lo ? 0 : 1);
    }
    cg_line(g, "tl_wgmma_commit();");
}

/* Issues all of gemm gm (not promoting) as one commit group. */
static void cg_wgmma_issue(Cg *g, IrStmt *gm, const char *slot) {
    cg_wgmma_steps(g, gm, slot, 0, gemm_k(gm) / cg_wgmma_k(gm));
}

/* Waits until at most `pending` commit groups of this warpgroup's wgmmas
 * are running (gm's is done: groups complete in order) and pins gm's
 * accumulator, so that the compiler reads it no earlier. */
static void cg_wgmma_wait(Cg *g, const IrStmt *gm, int pending) {
    cg_line(g, "tl_wgmma_wait<%d>();", pending);
    const char *r = cg_tmp(g, "r"); /* not `r`: the accumulator may have that name */
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) tl_pin(%s[%s]);", r, r, (long long)gm->c.buf->layout.regs, r,
            gm->c.buf->cname, r);
}

/* Issues gemm gm and waits for it; a promoting one in runs of CG_WGMMA_PROMOTE_K
 * products, each waited for and added to the accumulator in f32. */
static void cg_wgmma(Cg *g, IrStmt *gm, const char *slot) {
    cg_line(g, "{");
    g->ind++;
    const IrBuf *C = gm->c.buf;
    if (!cg_wgmma_promotes(gm)) {
        cg_wgmma_issue(g, gm, slot);
        cg_wgmma_wait(g, gm, 0);
    } else {
        int64_t steps = gemm_k(gm) / cg_wgmma_k(gm), run = CG_WGMMA_PROMOTE_K / cg_wgmma_k(gm);
        cg_line(g, "float tl_part[%lld];  // the sums of %d products (promotes)", (long long)C->layout.regs, CG_WGMMA_PROMOTE_K);
        for (int64_t lo = 0; lo < steps; lo += run) {
            int64_t hi = lo + run < steps ? lo + run : steps;
            cg_wgmma_steps(g, gm, slot, lo, hi);
            cg_wgmma_wait(g, gm, 0);
            const char *r = cg_tmp(g, "r");
            cg_line(g, "#pragma unroll");
            cg_line(g, "for (int %s = 0; %s < %lld; ++%s) { tl_pin(tl_part[%s]); %s[%s] %s tl_part[%s]; }", r, r,
                    (long long)C->layout.regs, r, r, C->cname, r, gm->clear && lo == 0 ? "=" : "+=", r);
        }
    }
    g->ind--;
    cg_line(g, "}");
}

/* Waits until ring r's tiles of slot `slot` have landed; `it` is the
 * iteration count (tl_it) that filled it, for the phase. */
static void ring_wait(Cg *g, const char *slot, const char *it) {
    cg_line(g, "tl_mbar_wait(%s, (%s / %d) & 1);  // the tiles have landed", ring_bar(g, "full", slot), it,
            g->k->ws_loop->stages);
}

/* Gives ring r's slot back to the producer after iteration `kt` of `n`. */
static void ring_release(Cg *g, const char *slot, const char *kt, const char *n) {
    const IrKernel *k = g->k;
    if (!k->sched.cluster) {
        cg_line(g, "if (lane == 0) tl_mbar_arrive(%s);  // this warp is done with the slot", ring_bar(g, "empty", slot));
        return;
    }
    /* Both blocks' producers fill this slot: free it in both. A block of
     * one tile skips its last `stages` releases (no producer waits for
     * them, and a finished peer's shared memory must not be written); a
     * persistent block's producer goes on into the next tile's iterations,
     * which wait for every release, and the kernel ends on a cluster
     * barrier (cg_hopper_finish), so no peer has exited when they arrive. */
    const char *when = k->sched.persistent ? "lane < 2"
                                     : arena_printf(arena(g), "%s < %s - %d && lane < 2", kt, n, k->ws_loop->stages);
    cg_line(g, "if (%s) tl_mbar_arrive_cluster(%s, lane);  // in block `lane` of the cluster", when,
            ring_bar(g, "empty", slot));
}

/* Statement i of the loop body for the consumers (the producer runs the TMA copies). */
static void consumer_stmt(Cg *g, int i, const char *slot) {
    IrStmt *c = g->k->ws_loop->body.items[i];
    if (c->op == IR_COPY && copy_by_producer(c)) return;
    if (c->op == IR_GEMM && c->wgmma) {
        cg_wgmma(g, c, slot);
        return;
    }
    IrBlock one = {.items = &g->k->ws_loop->body.items[i], .len = 1};
    cg_block(g, &one);
    if (cg_writes_consumer_operand(g->k, c)) cg_line(g, "tl_fence_proxy_async();  // the writes, visible to the wgmmas");
}

bool cg_writes_consumer_operand(const IrKernel *k, IrStmt *s) {
    for (int i = 0; i < k->buffers.len; i++) {
        const IrBuf *b = k->buffers.items[i];
        IrBlock one = {.items = &s, .len = 1};
        if (b->consumer_written && s->op != IR_GEMM && buf_use_count(&one, b)) return true;
    }
    return false;
}

/* Element accesses to the loop's TMA'd tiles (those the consumers read
 * themselves) find them in ring slot `slot`: from the stage stack. */
static void push_ring_stages(Cg *g, const char *slot) {
    for (int i = 0; i < g->k->buffers.len && g->nstage < CG_MAX_STAGE; i++) {
        const IrBuf *b = g->k->buffers.items[i];
        if (!cg_ring_buf(g->k, b)) continue;
        g->stage_buf[g->nstage] = b;
        g->stage_expr[g->nstage++] = slot;
    }
}

/* The consumers' side of the loop. (Each k-tile waits for all of its
 * wgmmas: with one group kept in flight across k-tiles (wait_group 1)
 * ptxas of CUDA 13.0 moves the epilogue's reads of the accumulator above
 * the final wait, and the GEMM is no faster: docs/decisions.md, "No wgmma
 * group in flight across k-tiles".) The slot is waited for at the top of
 * the body and freed at the end (freeing K after QK^T slows the plain loop
 * of attention: docs/decisions.md, "K and V on one ring in the plain
 * loop"). */
void cg_hopper_consumer(Cg *g, IrStmt *loop) {
    IrKernel *k = g->k;
    int S = loop->stages;
    const char *n = cg_tmp(g, "n"), *s = cg_tmp(g, "s"), *kt = ir_sym_cname(k->c, loop->sym);
    if (k->sched.split_slots) cg_line(g, "bool tl_top = true;  // split tiles: this piece is left with the tile's sum");
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, loop->hi));
    /* a half unit (schedule_halves) runs the loop with wgmmas of half the
     * n; the halves variant has no other */
    bool both = sched_has_halves(&k->sched) && !k->sched.half_all;
    for (int half = sched_has_halves(&k->sched) ? 1 : 0; half >= (k->sched.half_all ? 1 : 0); half--) {
        if (both) {
            cg_line(g, half ? "if (tl_half) {  // half of the tile's columns" : "} else {");
            g->ind++;
        }
        g->half = half;
        cg_split_loop(g, kt, n);
        g->ind++;
        cg_line(g, "const int %s = tl_it %% %d;", s, S);
        ring_wait(g, s, "tl_it");
        /* cp.async writes shared memory in the generic proxy, wgmma reads
         * it in the async proxy: the landed tiles, made visible to it */
        if (cg_hopper_ring_async(k)) cg_line(g, "tl_fence_proxy_async();  // the cp.async tiles, visible to the wgmmas");
        int saved = g->nstage;
        push_ring_stages(g, s);
        for (int i = 0; i < loop->body.len && !g->failed; i++) consumer_stmt(g, i, s);
        g->nstage = saved;
        ring_release(g, s, kt, n);
        g->ind--;
        cg_line(g, "}");
        if (both) g->ind--;
    }
    g->half = false;
    if (both) cg_line(g, "}");
    if (k->sched.persistent && cg_hopper_has_preloads(k))
        cg_line(g, "if (lane == 0) tl_mbar_arrive(tl_preload_free);  // the next tile's preloads may come");
    if (sched_has_split(&k->sched)) cg_split_sum(g);
    g->ind--;
    cg_line(g, "}");
    /* The rest of the tile, by the piece left with its sum: closed after
     * the tile's statements (emit.c). (Split tiles never come with half
     * tiles: those are another variant of the kernel, schedule_halves.) */
    if (k->sched.split_slots) {
        cg_line(g, "if (tl_top) {  // the rest of the tile: by the piece left with its sum");
        g->ind++;
        g->split_open = true;
    }
}

/* ---- warpgroups with nothing to store (schedule_idle) ---- */

/* Opens the consumers' tile body with the test for this warpgroup's rows
 * lying past the edge of every store (each store's rows begin at its
 * start, warpgroup g's 64 at start + 64g); such a warpgroup only keeps
 * the pipeline's protocol: the preloads' barrier (a persistent block's
 * producer loads the next tile's once every consumer warp has freed
 * them) and every slot of the loop waited for and freed. The tile's code
 * for the others follows in the else branch (cg_hopper_idle_end). */
void cg_hopper_idle_begin(Cg *g) {
    IrKernel *k = g->k;
    IrStmt *loop = k->ws_loop;
    char *cond = NULL;
    for (int i = 0; i < k->sched.idle_stores.len; i++) {
        const IrStmt *st = k->sched.idle_stores.items[i];
        int d = region_lead(&st->dst, st->src.buf->rank, st->src.buf->shape); /* the rows' dimension */
        const char *start = st->dst.idx[d] ? cg_expr_str(g, st->dst.idx[d]) : "0";
        cond = cg_and(g, cond, arena_printf(arena(g), "(%s) + tl_wg * 64 >= %lld", start, (long long)st->dst.buf->shape[d]));
    }
    cg_line(g, "if (%s) {  // this warpgroup's rows are all past the stores' edge: it only keeps the pipeline going", cond);
    g->ind++;
    bool preload_free = k->sched.persistent && cg_hopper_has_preloads(k);
    if (preload_free) cg_line(g, "tl_mbar_wait(tl_preload, tl_n & 1);  // this tile's preloads (then the next may come)");
    producer_lets(g);
    const char *n = cg_tmp(g, "n"), *s = cg_tmp(g, "s"), *kt = cg_tmp(g, "kb");
    cg_line(g, "const int %s = %s;", n, cg_expr_str(g, loop->hi));
    cg_split_loop(g, kt, n);
    g->ind++;
    cg_line(g, "const int %s = tl_it %% %d;", s, loop->stages);
    ring_wait(g, s, "tl_it");
    ring_release(g, s, kt, n);
    g->ind--;
    cg_line(g, "}");
    if (preload_free) cg_line(g, "if (lane == 0) tl_mbar_arrive(tl_preload_free);");
    g->ind--;
    cg_line(g, "} else {");
    g->ind++;
}

void cg_hopper_idle_end(Cg *g) {
    g->ind--;
    cg_line(g, "}");
}

/* ---- the epilogue's TMA stores (plan_store) ---- */

/* A barrier over this consumer warpgroup's 128 threads only. */
static void warpgroup_sync(Cg *g) { warpgroup_bar_sync(g, CG_BAR_WARPGROUP, 128, "this warpgroup"); }

/* The accumulator through this warpgroup's 64 rows of the staging tile:
 * wait until the previous stores have read the tile, write it two columns
 * at a time (one 4- or 8-byte access; the swizzle puts a warp's 8 rows in
 * 8 different 16-byte bank groups), make the writes visible to the TMA
 * unit, and let one thread store each column block. */
void cg_tma_store_plan(const IrKernel *k, const IrStmt *s, CgTmaStorePlan *p) {
    p->esize = dtype_bytes(s->dst.buf->dtype);
    p->cols = pass_swizzle_cols(s->src.buf->shape[1], p->esize);
    p->row_bytes = p->cols * p->esize;
    p->block_bytes = 64 * p->row_bytes;
    p->wg_bytes = k->store_bytes / (k->threads / 128); /* ir.h: store_bytes */
    p->map = cg_tma_index(k, s);
}

static void tma_store(Cg *g, IrStmt *s) {
    const IrKernel *k = g->k;
    const IrBuf *f = s->src.buf, *t = s->dst.buf;
    CgTmaStorePlan p;
    cg_tma_store_plan(k, s, &p);
    int64_t esize = p.esize, cols = p.cols, row_bytes = p.row_bytes, block_bytes = p.block_bytes, wg_bytes = p.wg_bytes;
    int map = p.map;
    const char *st = cg_tmp(g, "st"), *q = cg_tmp(g, "q"), *v = cg_tmp(g, "v"), *row = cg_tmp(g, "r"), *col = cg_tmp(g, "c");
    const char *vt = cg_vector_type((int)(2 * esize)), *et = cg_storage_type(t->dtype);
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "unsigned char *const %s = tl_smem + %lld + tl_wg * %lld;  // this warpgroup's rows of the staging tile", st,
            (long long)k->store_offset, (long long)wg_bytes);
    cg_line(g, "if (tid %% 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it");
    warpgroup_sync(g);
    cg_line(g, "#pragma unroll");
    /* a half unit's columns: the first half of each thread's registers
     * (the wgmma layout runs through the columns 8 at a time) */
    cg_line(g, "for (int %s = 0; %s < %lld; %s += 2) {", q, q, (long long)(f->layout.regs / (g->half ? 2 : 1)), q);
    g->ind++;
    char *fc[MAX_RANK], *valid; /* valid: NULL for the accumulator layout */
    cg_frag_coords(g, f, q, fc, &valid);
    cg_line(g, "const int %s = %s %% 64, %s = %s;", row, fc[0], col, fc[1]);
    cg_line(g, "union { %s v; %s e[2]; } %s;", vt, et, v);
    for (int u = 0; u < 2; u++)
        cg_line(g, "%s.e[%d] = %s;", v, u,
                cg_convert(g, t->dtype, arena_printf(arena(g), "%s(%s[%s + %d])", cg_load_wrap(f->dtype), f->cname, q, u)));
    cg_line(g, "*(%s *)(%s + %s / %lld * %lld + tl_tma_swizzle(%s, %s %% %lld * %lld, %lld)) = %s.v;", vt, st, col,
            (long long)cols, (long long)block_bytes, row, col, (long long)cols, (long long)esize, (long long)row_bytes, v);
    g->ind--;
    cg_line(g, "}");
    cg_line(g, "tl_fence_proxy_async();  // the writes, visible to the TMA unit");
    warpgroup_sync(g);
    cg_line(g, "if (tid %% 128 == 0) {");
    g->ind++;
    for (int64_t j = 0; j < f->shape[1] / cols / (g->half ? 2 : 1); j++)
        cg_line(g, "%s<%d>(&tl_tmap%d, %s + %lld, %s);", s->op == IR_ATOMIC_ADD ? "tl_tma_reduce_add" : "tl_tma_store",
                t->rank, map, st, (long long)(j * block_bytes),
                tma_coords(g, &s->dst, j * cols, g->half, " + tl_wg * 64"));
    cg_line(g, "tl_tma_store_commit();");
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}

void cg_hopper_tma_store(Cg *g, IrStmt *s) {
    if (!sched_has_halves(&g->k->sched) || g->k->sched.half_all) {
        g->half = g->k->sched.half_all; /* the halves variant stores only half tiles */
        tma_store(g, s);
        g->half = false;
        return;
    }
    cg_line(g, "if (tl_half) {  // half of the tile's columns (plan_halves)");
    g->ind++;
    g->half = true;
    tma_store(g, s);
    g->half = false;
    g->ind--;
    cg_line(g, "} else {");
    g->ind++;
    tma_store(g, s);
    g->ind--;
    cg_line(g, "}");
}

/* The end of the consumers: their last stores are done before the block's
 * shared memory is given up. */
void cg_hopper_finish(Cg *g) {
    if (g->k->tma_stores.len) cg_line(g, "if (tid %% 128 == 0) tl_tma_store_wait_all();  // the last TMA stores");
    /* The producers have returned; an exited thread counts as arrived at a
     * cluster barrier (PTX ISA, exit), so this waits for the consumers of
     * both blocks: the peer's last releases have landed in this block's
     * barriers before its shared memory goes. */
    if (g->k->sched.cluster && g->k->sched.persistent)
        cg_line(g, "tl_cluster_sync();  // the peer's releases into this block have landed");
}
