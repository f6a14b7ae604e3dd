/* lower_gemm.c - gemm: ldmatrix + mma.sync on tensor cores (m16n8k16 for
 * f16/bf16 operands into f32; m16n8k32 for 8-bit integers into i32 and
 * fp8 into f32: gemm_mma_form), an FMA loop otherwise.
 *
 * Fragment facts used here (PTX ISA, mma.m16n8k16 and ldmatrix):
 * - ldmatrix .x4 loads four 8x8 b16 matrices; lanes 8i..8i+7 give the row
 *   addresses of matrix i; each thread receives, per matrix, the two
 *   elements of row lane/4 at columns 2(lane%4), 2(lane%4)+1 (with .trans:
 *   of column lane/4 at rows 2(lane%4), 2(lane%4)+1).
 * - mma A (16x16, row) is four such matrices: rows 0-7/8-15 x k 0-7, then
 *   rows 0-7/8-15 x k 8-15; B (16x8, col) is two: k 0-7 and k 8-15 at the
 *   thread's column lane/4; C holds rows lane/4 and lane/4+8, columns
 *   2(lane%4) and +1.
 * - Hence A from registers: an accumulator of two neighbouring n8 tiles,
 *   converted to 16 bits, is exactly the A operand of one k16 step. */
#include <string.h>

#include "codegen.h"

static Arena *arena(Cg *g) { return &g->k->c->arena; }

static char *smem_addr(Cg *g, const IrBuf *b, const char *row, const char *col) {
    char *coords[2] = {(char *)row, (char *)col};
    return arena_printf(arena(g), "tl_smem_addr(&%s[%s])", b->cname, cg_shared_offset(g, b, coords));
}

/* The shared address of an ldmatrix row for row = Rc + rv, column chunk
 * = Cc + cv + wc (16-byte chunks): Rc, Cc step with the k/m/n loops, rv and
 * cv are the lane's part, wc the warp's column offset in chunks. The XOR
 * swizzle of a row only depends on rv (Rc is a multiple of 16, the rows of
 * a swizzle period), and with wc a multiple of the period the chunk is
 * wc + Cc rounded to the period + ((Cc mod period + cv) ^ f(rv)): only a
 * few lane-dependent terms for all the loads of a warp tile, so the
 * compiler keeps a few registers instead of one address per load. */
bool cg_ldm_swizzle(const IrBuf *b, int64_t wc_step, CgLdmSwizzle *z) {
    int eb = dtype_bytes(b->dtype), pc = 16 / eb, P = b->swizzle_chunks;
    int64_t cols = b->shape[b->rank - 1];
    if (b->rank != 2 || !P || cols % pc) return false;
    int64_t chunks = cols / pc, rpl = chunks >= 8 ? 1 : 8 / chunks;
    if (16 % (rpl * P) != 0 || wc_step % P != 0) return false;
    *z = (CgLdmSwizzle){.per_chunk = pc, .period = P, .cols = cols, .rows_per_line = rpl,
                        .stage_elems = b->stage_bytes / eb};
    return true;
}

/* The shared address of an ldmatrix row (cg_ldm_swizzle): rv, cv are the
 * lane's part, wc the warp's column offset in chunks ("0": none, with
 * wc_step 0). NULL when the buffer does not allow it. */
static char *ldm_addr(Cg *g, const IrBuf *b, const char *Rc, const char *rv, const char *Cc, const char *cv,
                      const char *wc, int64_t wc_step) {
    CgLdmSwizzle z;
    if (!cg_ldm_swizzle(b, wc_step, &z)) return NULL;
    int P = z.period, pc = z.per_chunk;
    const char *stage = cg_stage(g, b);
    return arena_printf(arena(g),
                        "tl_smem_addr(&%s[(%s) * %lld + ((%s) + (%s)) * %lld + ((%s) + (%s) / %d * %d + ((((%s) %% %d) + (%s)) ^ "
                        "(((%s) / %lld) %% %d))) * %d])",
                        b->cname, stage, (long long)z.stage_elems, Rc, rv, (long long)z.cols, wc, Cc, P, P, Cc, P, cv, rv,
                        (long long)z.rows_per_line, P, pc);
}

static bool whole(const IrRegion *r) {
    for (int d = 0; d < r->buf->rank; d++)
        if (r->idx[d] || r->ext[d] != r->buf->shape[d]) return false;
    return true;
}

/* An 8-bit operand's k32 fragment register where the bytes run across the
 * buffer's rows (A stored [K][M], B stored [K][N]): element (k + i, mn)
 * for i = 0..3 (transposed: the rows are k), packed, read byte by byte
 * since ldmatrix's .trans moves 16-bit elements. */
static char *gather_bytes(Cg *g, const IrBuf *b, const char *k, const char *mn) {
    char *parts[4];
    for (int i = 0; i < 4; i++) {
        char *coords[2] = {arena_printf(arena(g), "%s + %d", k, i), (char *)mn};
        parts[i] = arena_printf(arena(g), "((const unsigned char *)%s)[%s]", b->cname, cg_shared_offset(g, b, coords));
    }
    return arena_printf(arena(g), "tl_pack_u8x4(%s, %s, %s, %s)", parts[0], parts[1], parts[2], parts[3]);
}

static void gemm_mma(Cg *g, IrStmt *s) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    const Layout *l = &C->layout;
    int64_t K = gemm_k(s);
    MmaForm f;
    gemm_mma_form(g->k->arch, A->dtype, B->dtype, C->dtype, &f);
    /* ks: k per mma; half of it is one 16-byte chunk of a row (8 16-bit or
     * 16 8-bit elements), so the ldmatrix addresses in chunks are the same
     * for both */
    int ks = f.k, pc = ks / 2;
    const char *mma = ks == 32 ? arena_printf(arena(g), "tl_mma_%s_%s_16832", f.a, f.b)
                      : A->dtype == DT_BF16 ? "tl_mma_bf16_16816" : "tl_mma_f16_16816";
    const char *acc_type = !strcmp(f.c, "s32") ? "int" : "float";
    const char *pack = A->dtype == DT_BF16 ? "tl_pack_bf162" : "tl_pack_half2";
    int MI = l->mi, NI = l->ni;
    const char *kk = cg_tmp(g, "kk"), *wm = cg_tmp(g, "wm"), *wn = cg_tmp(g, "wn");
    cg_line(g, "{");
    g->ind++;
    cg_line(g, "const int %s = warp / %d * %lld, %s = warp %% %d * %lld;", wm, l->wn, (long long)l->wtm, wn, l->wn,
            (long long)l->wtn);
    /* A rolled k loop: unrolled, the compiler hoists every ldmatrix
     * address of every k step out of the main loop and spills. With A in
     * registers it must unroll: register indices must be constants. */
    cg_line(g, A->scope == SCOPE_FRAGMENT ? "#pragma unroll" : "#pragma unroll 1");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", kk, kk, (long long)(K / ks), kk);
    g->ind++;
    /* A for the whole warp tile, then B two n8 tiles at a time, each used
     * at once: only 4 B registers live, which keeps big tiles unspilled */
    const char *av = cg_tmp(g, "a"); /* not `a`: a user's fragment may have that name */
    cg_line(g, "unsigned %s[%d][4];", av, MI);
    /* A operand */
    if (A->scope == SCOPE_FRAGMENT) { /* 16-bit only (cg_gemm_plan) */
        int ni_a = A->layout.ni;
        for (int mi = 0; mi < MI; mi++)
            for (int h = 0; h < 4; h++) {
                /* h: 0 rows 0-7 k 0-7, 1 rows 8-15 k 0-7, 2 rows 0-7 k 8-15, 3 rows 8-15 k 8-15 */
                const char *tile = arena_printf(arena(g), "(%d * %d + 2 * %s + %d) * 4 + %d", mi, ni_a, kk, h / 2, (h % 2) * 2);
                cg_line(g, "%s[%d][%d] = %s(tl_to_float(%s[%s]), tl_to_float(%s[%s + 1]));", av, mi, h, pack, A->cname,
                        tile, A->cname, tile);
            }
    } else {
        for (int mi = 0; mi < MI; mi++) {
            if (!s->trans_a) {
                char *row = arena_printf(arena(g), "%s + %d + lane %% 16", wm, mi * 16);
                char *col = arena_printf(arena(g), "%s * %d + lane / 16 * %d", kk, ks, pc);
                char *fast = ldm_addr(g, A, arena_printf(arena(g), "%d", mi * 16), arena_printf(arena(g), "%s + lane %% 16", wm),
                                      arena_printf(arena(g), "%s * 2", kk), "lane / 16", "0", 0);
                cg_line(g, "tl_ldmatrix_x4(%s[%d], %s);", av, mi, fast ? fast : smem_addr(g, A, row, col));
            } else if (ks == 32) { /* 8-bit, stored [K][M] */
                for (int h = 0; h < 4; h++) /* h: rows +8 when odd, k +16 from 2 */
                    cg_line(g, "%s[%d][%d] = %s;", av, mi, h,
                            gather_bytes(g, A, arena_printf(arena(g), "%s * 32 + %d + lane %% 4 * 4", kk, h / 2 * 16),
                                         arena_printf(arena(g), "%s + %d + lane / 4", wm, mi * 16 + h % 2 * 8)));
            } else { /* stored [K][M]: transposed loads */
                char *row = arena_printf(arena(g), "%s * 16 + lane / 16 * 8 + lane %% 8", kk);
                char *col = arena_printf(arena(g), "%s + %d + lane / 8 %% 2 * 8", wm, mi * 16);
                char *fast = ldm_addr(g, A, arena_printf(arena(g), "%s * 16", kk), "lane / 16 * 8 + lane % 8",
                                      arena_printf(arena(g), "%d", mi * 2), "lane / 8 % 2",
                                      arena_printf(arena(g), "%s / %d", wm, pc), l->wtm / pc);
                cg_line(g, "tl_ldmatrix_x4_trans(%s[%d], %s);", av, mi, fast ? fast : smem_addr(g, A, row, col));
            }
        }
    }
    /* B operand, two n8 tiles per ldmatrix.x4 */
    for (int nj = 0; nj < (NI + 1) / 2; nj++) {
        bool pair = 2 * nj + 1 < NI;
        const char *t = cg_tmp(g, "t");
        cg_line(g, "{");
        g->ind++;
        cg_line(g, "unsigned %s[4];", t);
        const char *bn = cg_tmp(g, "b");
        if (!s->trans_b && ks == 32) { /* 8-bit, stored [K][N] */
            for (int half = 0; half < (pair ? 2 : 1); half++)
                for (int r = 0; r < 2; r++)
                    cg_line(g, "%s[%d] = %s;", t, 2 * half + r,
                            gather_bytes(g, B, arena_printf(arena(g), "%s * 32 + %d + lane %% 4 * 4", kk, r * 16),
                                         arena_printf(arena(g), "%s + %d + lane / 4", wn, (2 * nj + half) * 8)));
        } else if (!s->trans_b) { /* stored [K][N] */
            char *row = arena_printf(arena(g), "%s * 16 + lane / 8 %% 2 * 8 + lane %% 8", kk);
            char *col = arena_printf(arena(g), "%s + %d + lane / 16 * 8", wn, nj * 16);
            char *fast = ldm_addr(g, B, arena_printf(arena(g), "%s * 16", kk), "lane / 8 % 2 * 8 + lane % 8",
                                  arena_printf(arena(g), "%d", nj * 2), "lane / 16", arena_printf(arena(g), "%s / %d", wn, pc),
                                  l->wtn / pc);
            if (pair) cg_line(g, "tl_ldmatrix_x4_trans(%s, %s);", t, fast ? fast : smem_addr(g, B, row, col));
            else cg_line(g, "tl_ldmatrix_x2_trans(*(unsigned (*)[2])%s, %s);", t,
                         smem_addr(g, B, arena_printf(arena(g), "%s * 16 + lane / 8 %% 2 * 8 + lane %% 8", kk),
                                   arena_printf(arena(g), "%s + %d", wn, nj * 16)));
        } else { /* stored [N][K] */
            char *row = arena_printf(arena(g), "%s + %d + lane / 16 * 8 + lane %% 8", wn, nj * 16);
            char *col = arena_printf(arena(g), "%s * %d + lane / 8 %% 2 * %d", kk, ks, pc);
            char *fast = ldm_addr(g, B, arena_printf(arena(g), "%d", nj * 16),
                                  arena_printf(arena(g), "%s + lane / 16 * 8 + lane %% 8", wn),
                                  arena_printf(arena(g), "%s * 2", kk), "lane / 8 % 2", "0", 0);
            if (pair) cg_line(g, "tl_ldmatrix_x4(%s, %s);", t, fast ? fast : smem_addr(g, B, row, col));
            else cg_line(g, "tl_ldmatrix_x2(*(unsigned (*)[2])%s, %s);", t,
                         smem_addr(g, B, arena_printf(arena(g), "%s + %d + lane %% 8", wn, nj * 16), col));
        }
        cg_line(g, "const unsigned %s[2][2] = {{%s[0], %s[1]}, {%s[2], %s[3]}};", bn, t, t, t, t);
        for (int half = 0; half < (pair ? 2 : 1); half++)
            for (int mi = 0; mi < MI; mi++)
                cg_line(g, "%s(*(%s (*)[4])&%s[%d], %s[%d], %s[%d]);", mma, acc_type, C->cname, (mi * NI + 2 * nj + half) * 4,
                        av, mi, bn, half);
        g->ind--;
        cg_line(g, "}");
    }
    g->ind--;
    cg_line(g, "}");
    g->ind--;
    cg_line(g, "}");
}

/* Any dtypes, any shapes: each thread computes its own accumulator
 * elements with a loop over K. Correct but slow. With an f32 accumulator
 * the loop over K is the outer one, rolled, around one multiply-add a
 * register (independent chains, and code that does not grow with K); else
 * each register sums over a rolled loop of its own, in the accumulator's
 * precision: f64 for an f64 one, 64-bit integers for an integer one (an
 * i8 x i8 -> i32 sum through f32 lost its low bits past 2^24), f32 for
 * f16 / bf16. Unrolled both ways it is registers x K multiply-adds of
 * code, which took NVRTC 30 s at 128 x 40. */
static void gemm_fma(Cg *g, IrStmt *s) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    int64_t K = gemm_k(s);
    const char *r = cg_tmp(g, "r"), *k = cg_tmp(g, "k"), *acc = cg_tmp(g, "acc");
    char *cc[MAX_RANK], *valid;
    bool k_outer = C->dtype == DT_F32;
    if (k_outer) {
        cg_line(g, "#pragma unroll 1");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", k, k, (long long)K, k);
        g->ind++;
    }
    cg_frag_coords(g, C, r, cc, &valid);
    char *ac[2] = {s->trans_a ? (char *)k : cc[0], s->trans_a ? cc[0] : (char *)k};
    char *bc[2] = {s->trans_b ? cc[1] : (char *)k, s->trans_b ? (char *)k : cc[1]};
    const char *sum_type = C->dtype == DT_F64 ? "double" : dtype_is_int(C->dtype) ? "long long" : "float";
    bool in_float = !strcmp(sum_type, "float");
    const char *a_elem = arena_printf(arena(g), "%s[%s]", A->cname, cg_shared_offset(g, A, ac));
    const char *b_elem = arena_printf(arena(g), "%s[%s]", B->cname, cg_shared_offset(g, B, bc));
    char *product = in_float
                        ? arena_printf(arena(g), "tl_to_float(%s) * tl_to_float(%s)", a_elem, b_elem)
                        : arena_printf(arena(g), "(%s)(%s(%s)) * (%s)(%s(%s))", sum_type, cg_load_wrap(A->dtype), a_elem,
                                       sum_type, cg_load_wrap(B->dtype), b_elem);
    cg_line(g, "#pragma unroll");
    cg_line(g, "for (int %s = 0; %s < %lld; ++%s) {", r, r, (long long)C->layout.regs, r);
    g->ind++;
    if (valid) cg_line(g, "if (!(%s)) continue;", valid);
    if (k_outer) {
        cg_line(g, "%s[%s] += %s;", C->cname, r, product);
    } else {
        cg_line(g, "%s %s = %s;", sum_type, acc, in_float ? "0.0f" : "0");
        cg_line(g, "#pragma unroll 1");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s += %s;", k, k, (long long)K, k, acc, product);
        const char *old_value = in_float ? arena_printf(arena(g), "tl_to_float(%s[%s])", C->cname, r)
                                                           : arena_printf(arena(g), "(%s)(%s[%s])", sum_type, C->cname, r);
        cg_line(g, "%s[%s] = %s;", C->cname, r, cg_convert(g, C->dtype, arena_printf(arena(g), "%s + %s", old_value, acc)));
    }
    g->ind--;
    cg_line(g, "}");
    if (k_outer) {
        g->ind--;
        cg_line(g, "}");
    }
}

const char *cg_gemm_plan(const IrKernel *k, const IrStmt *s, bool *tensor_cores) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    Arena *a = &k->c->arena;
    *tensor_cores = false;
    if (!whole(&s->c)) /* (parts of A and B are staged whole: stage_operands) */
        return arena_printf(a, "gemm: the accumulator C is a part of the fragment '%s'; it takes a whole fragment",
                            C->sym->name->s);
    if (C->layout.kind != LAYOUT_ACC) return arena_printf(a, "gemm accumulator '%s' has no accumulator layout", C->sym->name->s);
    bool tc = !gemm_stmt_mma_why_not(k->arch, s);
    if (A->scope == SCOPE_FRAGMENT &&
        (!tc || dtype_bytes(A->dtype) != 2 || A->layout.kind != LAYOUT_ACC || A->layout.wn != 1))
        return arena_printf(a, "gemm with A in registers ('%s') needs f16/bf16 tensor-core shapes", A->sym->name->s);
    if (!tc && (A->scope != SCOPE_SHARED || B->scope != SCOPE_SHARED))
        return "gemm without tensor cores needs A and B in shared memory";
    *tensor_cores = tc;
    return NULL;
}

void cg_gemm(Cg *g, IrStmt *s) {
    const IrBuf *C = s->c.buf;
    bool tensor_cores;
    const char *why = cg_gemm_plan(g->k, s, &tensor_cores);
    if (why) {
        cg_error(g, s->loc, "%s", why);
        return;
    }
    if (s->clear) {
        const char *r = cg_tmp(g, "r");
        cg_line(g, "#pragma unroll");
        cg_line(g, "for (int %s = 0; %s < %lld; ++%s) %s[%s] = 0;", r, r, (long long)C->layout.regs, r, C->cname, r);
    }
    if (tensor_cores) gemm_mma(g, s);
    else gemm_fma(g, s);
}
