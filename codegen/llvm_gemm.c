/* llvm_gemm.c - gemm off the sm_90a path for the LLVM backend, ldmatrix +
 * mma.sync on tensor cores (m16n8k16 for f16/bf16 into f32, m16n8k32 for
 * 8-bit integers and fp8: gemm_mma_form), an FMA loop otherwise
 * (lower_gemm.c is the model, decision for decision: cg_gemm_plan,
 * cg_ldm_swizzle); and the software-pipelined
 * loop of cp.async copies (emit_stmt.c's cg_pipelined).
 *
 * Fragment facts used here (PTX ISA, mma.m16n8k16 and ldmatrix):
 * - ldmatrix .x4 loads four 8x8 b16 matrices; lanes 8i..8i+7 give the row
 *   addresses of matrix i; each thread receives, per matrix, the two
 *   elements of row lane/4 at columns 2(lane%4), 2(lane%4)+1 (with .trans:
 *   of column lane/4 at rows 2(lane%4), 2(lane%4)+1); .x2 is matrices 0
 *   and 1, from the addresses of lanes 0-15.
 * - mma A (16x16, row) is four such matrices: rows 0-7/8-15 x k 0-7, then
 *   rows 0-7/8-15 x k 8-15; B (16x8, col) is two: k 0-7 and k 8-15 at the
 *   thread's column lane/4; C holds rows lane/4 and lane/4+8, columns
 *   2(lane%4) and +1.
 * - An "r" operand of two 16-bit elements holds the first in its low half.
 *
 * The inline PTX reads registers as values: an ldmatrix result is a
 * struct of i32s, an mma's accumulator four "=f" outputs tied to four
 * inputs (LLVM has no "+f"). The fragments' allocas are indexed by
 * constants only, so SROA turns them into registers. */
#include <string.h>


#include "llvm_codegen.h"

static LgVal num(Lg *g, int64_t v) { return lg_int(g, v); }
static LgVal add(Lg *g, LgVal a, LgVal b) { return lg_binary(g, OP_ADD, a, b); }
static LgVal addc(Lg *g, LgVal a, int64_t c) { return lg_binary(g, OP_ADD, a, num(g, c)); }
static LgVal mulc(Lg *g, LgVal a, int64_t c) { return lg_binary(g, OP_MUL, a, num(g, c)); }
static LgVal divc(Lg *g, LgVal a, int64_t c) { return lg_binary(g, OP_DIV, a, num(g, c)); }
static LgVal modc(Lg *g, LgVal a, int64_t c) { return lg_binary(g, OP_MOD, a, num(g, c)); }

/* A loop for (int v = 0; v < n; ++v) the CUDA marks #pragma unroll 1. */
static void rolled_begin(Lg *g, LgLoop *l, int64_t n, const char *name) {
    lg_loop_begin(g, l, num(g, 0), num(g, n), num(g, 1), false, name);
}
static void rolled_end(Lg *g, LgLoop *l) {
    lg_loop_end(g, l);
    lg_loop_hint(g, l, "llvm.loop.unroll.disable", 0);
}

/* ---- tensor cores ---- */

/* tl_smem_addr(&b[offset]): the 32-bit .shared address of an element. */
static LLVMValueRef smem_addr(Lg *g, const IrBuf *b, LgVal offset) {
    LLVMValueRef p = lg_gep(g, lg_storage_type(g, b->dtype), lg_buf_base(g, b), lg_cast(g, offset, LT_LL).v);
    return lg_shared_addr(g, p);
}

/* smem_addr of element (row, col) through the buffer's own offset. */
static LLVMValueRef smem_addr_at(Lg *g, const IrBuf *b, LgVal row, LgVal col) {
    LgVal coords[MAX_RANK] = {row, col};
    return smem_addr(g, b, lg_shared_offset(g, b, coords, NULL));
}

/* lower_gemm.c's ldm_addr: the address from the few lane-dependent terms
 * (cg_ldm_swizzle says when, and what it computes), NULL where the buffer
 * does not allow it. wc NULL: the warp has no column offset. */
static LLVMValueRef ldm_addr(Lg *g, const IrBuf *b, LgVal Rc, LgVal rv, LgVal Cc, LgVal cv, const LgVal *wc,
                             int64_t wc_step) {
    CgLdmSwizzle z;
    if (!cg_ldm_swizzle(b, wc_step, &z)) return NULL;
    int P = z.period;
    LgVal chunk = add(g, add(g, wc ? *wc : num(g, 0), mulc(g, divc(g, Cc, P), P)),
                      lg_binary(g, OP_BXOR, add(g, modc(g, Cc, P), cv), modc(g, divc(g, rv, z.rows_per_line), P)));
    LgVal off = add(g, add(g, mulc(g, lg_stage(g, b), z.stage_elems), mulc(g, add(g, Rc, rv), z.cols)),
                    mulc(g, chunk, z.per_chunk));
    return smem_addr(g, b, off);
}

/* ldmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16 into out[0..n-1]:
 * it reads shared memory, so it keeps its place between the barriers. */
static void ldmatrix(Lg *g, int n, bool trans, LLVMValueRef addr, LLVMValueRef *out) {
    char text[128], cons[64];
    const char *regs = n == 1 ? "{%0}" : n == 2 ? "{%0, %1}" : "{%0, %1, %2, %3}";
    snprintf(text, sizeof text, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, [%%%d];", n, trans ? ".trans" : "", regs, n);
    cons[0] = 0;
    for (int i = 0; i < n; i++) strcat(cons, "=r,");
    strcat(cons, "r,~{memory}");
    LLVMTypeRef fields[4] = {g->i32, g->i32, g->i32, g->i32};
    LLVMTypeRef ret = n == 1 ? g->i32 : LLVMStructTypeInContext(g->ctx, fields, (unsigned)n, 0);
    LLVMValueRef r = lg_asm(g, ret, text, cons, &addr, 1, true);
    for (int i = 0; i < n; i++) out[i] = n == 1 ? r : LLVMBuildExtractValue(g->b, r, (unsigned)i, "");
}

static LLVMValueRef frag_reg(Lg *g, const IrBuf *b, int64_t reg) {
    return lg_frag_reg_ptr(g, b, LLVMConstInt(g->i64, (unsigned long long)reg, 0));
}

/* tl_mma_* (lower_gemm.c) on C's registers base .. base + 3: the
 * mma.sync of form f (f32 or s32 sums). */
static void mma(Lg *g, const MmaForm *f, const IrBuf *C, int64_t base, LLVMValueRef *a, LLVMValueRef *b) {
    char text[160];
    snprintf(text, sizeof text,
             "mma.sync.aligned.m16n8k%d.row.col.%s.%s.%s.%s {%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, "
             "{%%0, %%1, %%2, %%3};",
             f->k, f->c, f->a, f->b, f->c);
    bool ints = !strcmp(f->c, "s32");
    LLVMTypeRef ct = ints ? g->i32 : g->f32;
    LLVMValueRef args[10], ptr[4];
    for (int i = 0; i < 4; i++) args[i] = a[i];
    args[4] = b[0];
    args[5] = b[1];
    for (int i = 0; i < 4; i++) {
        ptr[i] = frag_reg(g, C, base + i);
        args[6 + i] = LLVMBuildLoad2(g->b, ct, ptr[i], "");
    }
    LLVMTypeRef fields[4] = {ct, ct, ct, ct};
    LLVMTypeRef ret = LLVMStructTypeInContext(g->ctx, fields, 4, 0);
    /* the accumulator is read and written: outputs 0-3 tied to inputs 6-9 */
    LLVMValueRef d = lg_asm(g, ret, text, ints ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3" : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", args,
                            10, false);
    for (int i = 0; i < 4; i++) LLVMBuildStore(g->b, LLVMBuildExtractValue(g->b, d, (unsigned)i, ""), ptr[i]);
}

/* lower_gemm.c's gather_bytes: elements (k + i, mn), i = 0..3, of an
 * 8-bit buffer packed into one register, the first in the low byte. */
static LLVMValueRef gather_bytes(Lg *g, const IrBuf *b, LgVal k, LgVal mn) {
    LLVMValueRef r = LLVMConstInt(g->i32, 0, 0);
    for (int i = 0; i < 4; i++) {
        LgVal coords[MAX_RANK] = {addc(g, k, i), mn};
        LLVMValueRef p = lg_gep(g, g->i8, lg_buf_base(g, b), lg_cast(g, lg_shared_offset(g, b, coords, NULL), LT_LL).v);
        LLVMValueRef byte = LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i8, p, ""), g->i32, "");
        r = LLVMBuildOr(g->b, r, LLVMBuildShl(g->b, byte, LLVMConstInt(g->i32, (unsigned long long)(8 * i), 0), ""), "");
    }
    return r;
}

/* tl_pack_half2 / tl_pack_bf162 of two 16-bit registers of fragment A:
 * A is f16 (bf16), so through float and back is the identity, and the
 * bits move as they are. */
static LLVMValueRef pack_pair(Lg *g, const IrBuf *A, int64_t reg) {
    LLVMTypeRef et = lg_storage_type(g, A->dtype);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, 2));
    for (int i = 0; i < 2; i++)
        v = LLVMBuildInsertElement(g->b, v, LLVMBuildLoad2(g->b, et, frag_reg(g, A, reg + i), ""),
                                   LLVMConstInt(g->i32, (unsigned long long)i, 0), "");
    return LLVMBuildBitCast(g->b, v, g->i32, "");
}

/* One k step (16 or 32: f->k) of gemm_mma at kk (an int: a constant when
 * A is in registers). */
static void mma_step(Lg *g, IrStmt *s, const MmaForm *f, LgVal kk, int64_t kk_const, LgVal wm, LgVal wn) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    const Layout *l = &C->layout;
    int ks = f->k, pc = ks / 2; /* k per mma; a 16-byte chunk is half of it */
    int MI = l->mi, NI = l->ni;
    LgVal lane = {g->lane, LT_INT};
    /* A for the whole warp tile, then B two n8 tiles at a time, each used
     * at once: only 4 B registers live, which keeps big tiles unspilled */
    LLVMValueRef (*av)[4] = arena_alloc(&g->k->c->arena, sizeof *av * (size_t)MI);
    if (A->scope == SCOPE_FRAGMENT) {
        int ni_a = A->layout.ni;
        for (int mi = 0; mi < MI; mi++)
            for (int h = 0; h < 4; h++) /* h: 0 rows 0-7 k 0-7, 1 rows 8-15 k 0-7, 2 rows 0-7 k 8-15, 3 rows 8-15 k 8-15 */
                av[mi][h] = pack_pair(g, A, ((int64_t)mi * ni_a + 2 * kk_const + h / 2) * 4 + (h % 2) * 2);
    } else {
        for (int mi = 0; mi < MI; mi++) {
            LLVMValueRef addr;
            if (!s->trans_a) {
                addr = ldm_addr(g, A, num(g, mi * 16), add(g, wm, modc(g, lane, 16)), mulc(g, kk, 2), divc(g, lane, 16), NULL, 0);
                if (!addr)
                    addr = smem_addr_at(g, A, add(g, addc(g, wm, mi * 16), modc(g, lane, 16)),
                                        add(g, mulc(g, kk, ks), mulc(g, divc(g, lane, 16), pc)));
            } else if (ks == 32) { /* 8-bit, stored [K][M] */
                for (int h = 0; h < 4; h++) /* h: rows +8 when odd, k +16 from 2 */
                    av[mi][h] = gather_bytes(g, A, add(g, addc(g, mulc(g, kk, 32), h / 2 * 16), mulc(g, modc(g, lane, 4), 4)),
                                             add(g, addc(g, wm, mi * 16 + h % 2 * 8), divc(g, lane, 4)));
                continue;
            } else { /* stored [K][M]: transposed loads */
                LgVal wc = divc(g, wm, pc);
                addr = ldm_addr(g, A, mulc(g, kk, 16), add(g, mulc(g, divc(g, lane, 16), 8), modc(g, lane, 8)), num(g, mi * 2),
                                modc(g, divc(g, lane, 8), 2), &wc, l->wtm / pc);
                if (!addr)
                    addr = smem_addr_at(g, A, add(g, add(g, mulc(g, kk, 16), mulc(g, divc(g, lane, 16), 8)), modc(g, lane, 8)),
                                        add(g, addc(g, wm, mi * 16), mulc(g, modc(g, divc(g, lane, 8), 2), 8)));
            }
            ldmatrix(g, 4, s->trans_a, addr, av[mi]);
        }
    }
    /* B operand, two n8 tiles per ldmatrix.x4 */
    for (int nj = 0; nj < (NI + 1) / 2; nj++) {
        bool pair = 2 * nj + 1 < NI;
        LLVMValueRef t[4] = {0};
        if (!s->trans_b && ks == 32) { /* 8-bit, stored [K][N] */
            for (int half = 0; half < (pair ? 2 : 1); half++)
                for (int r = 0; r < 2; r++)
                    t[2 * half + r] = gather_bytes(g, B, add(g, addc(g, mulc(g, kk, 32), r * 16), mulc(g, modc(g, lane, 4), 4)),
                                                   add(g, addc(g, wn, (2 * nj + half) * 8), divc(g, lane, 4)));
        } else if (!s->trans_b) { /* stored [K][N] */
            LgVal row = add(g, add(g, mulc(g, kk, 16), mulc(g, modc(g, divc(g, lane, 8), 2), 8)), modc(g, lane, 8));
            if (pair) {
                LgVal wc = divc(g, wn, pc);
                LLVMValueRef addr = ldm_addr(g, B, mulc(g, kk, 16), add(g, mulc(g, modc(g, divc(g, lane, 8), 2), 8), modc(g, lane, 8)),
                                             num(g, nj * 2), divc(g, lane, 16), &wc, l->wtn / pc);
                if (!addr) addr = smem_addr_at(g, B, row, add(g, addc(g, wn, nj * 16), mulc(g, divc(g, lane, 16), 8)));
                ldmatrix(g, 4, true, addr, t);
            } else {
                ldmatrix(g, 2, true, smem_addr_at(g, B, row, addc(g, wn, nj * 16)), t);
            }
        } else { /* stored [N][K] */
            LgVal col = add(g, mulc(g, kk, ks), mulc(g, modc(g, divc(g, lane, 8), 2), pc));
            if (pair) {
                LLVMValueRef addr = ldm_addr(g, B, num(g, nj * 16), add(g, add(g, wn, mulc(g, divc(g, lane, 16), 8)), modc(g, lane, 8)),
                                             mulc(g, kk, 2), modc(g, divc(g, lane, 8), 2), NULL, 0);
                if (!addr)
                    addr = smem_addr_at(g, B, add(g, add(g, addc(g, wn, nj * 16), mulc(g, divc(g, lane, 16), 8)), modc(g, lane, 8)), col);
                ldmatrix(g, 4, false, addr, t);
            } else {
                ldmatrix(g, 2, false, smem_addr_at(g, B, add(g, addc(g, wn, nj * 16), modc(g, lane, 8)), col), t);
            }
        }
        for (int half = 0; half < (pair ? 2 : 1); half++)
            for (int mi = 0; mi < MI; mi++) mma(g, f, C, ((int64_t)mi * NI + 2 * nj + half) * 4, av[mi], &t[2 * half]);
    }
}

static void gemm_mma(Lg *g, IrStmt *s) {
    const IrBuf *A = s->a.buf;
    const Layout *l = &s->c.buf->layout;
    int64_t K = gemm_k(s);
    MmaForm f;
    gemm_mma_form(g->k->arch, A->dtype, s->b.buf->dtype, s->c.buf->dtype, &f);
    LgVal warp = {g->warp, LT_INT};
    LgVal wm = mulc(g, divc(g, warp, l->wn), l->wtm), wn = mulc(g, modc(g, warp, l->wn), l->wtn);
    if (A->scope == SCOPE_FRAGMENT) { /* register indices must be constants: unrolled */
        for (int64_t kk = 0; kk < K / f.k && !g->failed; kk++) mma_step(g, s, &f, num(g, kk), kk, wm, wn);
        return;
    }
    /* A rolled k loop: unrolled, the compiler hoists every ldmatrix
     * address of every k step out of the main loop and spills */
    LgLoop lk;
    rolled_begin(g, &lk, K / f.k, "kk");
    mma_step(g, s, &f, lk.var, 0, wm, wn);
    rolled_end(g, &lk);
}

/* ---- without tensor cores ---- */

/* Any dtypes, any shapes: each thread computes its own accumulator
 * elements with a loop over K (lower_gemm.c's gemm_fma, which says why
 * the loops are ordered and rolled as they are). */
static void gemm_fma(Lg *g, IrStmt *s) {
    const IrBuf *A = s->a.buf, *B = s->b.buf, *C = s->c.buf;
    int64_t K = gemm_k(s);
    bool k_outer = C->dtype == DT_F32;
    /* the sum's C type: double for f64, long long for integers, else float */
    LgType sum = C->dtype == DT_F64 ? LT_DOUBLE : dtype_is_int(C->dtype) ? LT_LL : LT_FLOAT;
    LLVMTypeRef at = lg_storage_type(g, A->dtype), bt = lg_storage_type(g, B->dtype), ct = lg_storage_type(g, C->dtype);
    LgLoop lk;
    if (k_outer) rolled_begin(g, &lk, K, "k");
    for (int64_t r = 0; r < C->layout.regs && !g->failed; r++) {
        LgVal cc[MAX_RANK];
        LLVMValueRef valid;
        lg_frag_coords(g, C, r, cc, &valid);
        LLVMBasicBlockRef after = valid ? lg_begin_if(g, valid) : NULL;
        LLVMValueRef cr = frag_reg(g, C, r);
        LgLoop li;
        LLVMValueRef acc = NULL;
        if (!k_outer) {
            acc = lg_entry_alloca(g, lg_llvm_type(g, sum), "acc");
            LLVMBuildStore(g->b, LLVMConstNull(lg_llvm_type(g, sum)), acc);
            rolled_begin(g, &li, K, "k");
        }
        LgVal k = k_outer ? lk.var : li.var;
        LgVal ac[MAX_RANK] = {s->trans_a ? k : cc[0], s->trans_a ? cc[0] : k};
        LgVal bc[MAX_RANK] = {s->trans_b ? cc[1] : k, s->trans_b ? k : cc[1]};
        LLVMValueRef pa = lg_gep(g, at, lg_buf_base(g, A), lg_cast(g, lg_shared_offset(g, A, ac, NULL), LT_LL).v);
        LLVMValueRef pb = lg_gep(g, bt, lg_buf_base(g, B), lg_cast(g, lg_shared_offset(g, B, bc, NULL), LT_LL).v);
        LgVal va = lg_cast(g, lg_from_storage(g, A->dtype, LLVMBuildLoad2(g->b, at, pa, "")), sum);
        LgVal vb = lg_cast(g, lg_from_storage(g, B->dtype, LLVMBuildLoad2(g->b, bt, pb, "")), sum);
        LgVal product = lg_binary(g, OP_MUL, va, vb);
        if (k_outer) { /* C[r] += product (float: contracted into an fma, as NVRTC does) */
            LgVal old = {LLVMBuildLoad2(g->b, g->f32, cr, ""), LT_FLOAT};
            LLVMBuildStore(g->b, lg_binary(g, OP_ADD, old, product).v, cr);
        } else {
            /* acc += product over a rolled loop, then C[r] = C[r] + acc
             * (acc: a slot mem2reg makes a register) */
            LLVMBuildStore(g->b, lg_binary(g, OP_ADD, (LgVal){LLVMBuildLoad2(g->b, lg_llvm_type(g, sum), acc, ""), sum}, product).v,
                           acc);
            rolled_end(g, &li);
            LgVal total = {LLVMBuildLoad2(g->b, lg_llvm_type(g, sum), acc, ""), sum};
            LgVal old = lg_cast(g, lg_from_storage(g, C->dtype, LLVMBuildLoad2(g->b, ct, cr, "")), sum);
            LLVMBuildStore(g->b, lg_to_storage(g, C->dtype, lg_binary(g, OP_ADD, old, total)), cr);
        }
        if (after) lg_end_if(g, after);
    }
    if (k_outer) rolled_end(g, &lk);
}

void lg_gemm(Lg *g, IrStmt *s) {
    const IrBuf *C = s->c.buf;
    bool tensor_cores;
    const char *why = cg_gemm_plan(g->k, s, &tensor_cores);
    if (why) {
        lg_error(g, s->loc, "%s", why);
        return;
    }
    if (s->clear) {
        LLVMValueRef zero = LLVMConstNull(lg_storage_type(g, C->dtype));
        for (int64_t r = 0; r < C->layout.regs; r++) LLVMBuildStore(g->b, zero, frag_reg(g, C, r));
    }
    if (tensor_cores) gemm_mma(g, s);
    else gemm_fma(g, s);
}

/* ---- the software-pipelined loop ---- */

static void push_stage(Lg *g, const IrBuf *b, LgVal v) {
    if (g->nstage == LG_MAX_STAGE) die("too many ring buffers in the LLVM emitter");
    g->stage_buf[g->nstage] = b;
    g->stage_val[g->nstage++] = v;
}

/* The copies a pipelined loop prefetches, for iteration `iter` into the
 * ring slot `slot`, with the body's lets they need evaluated for that
 * iteration. */
static void issue_producers(Lg *g, IrStmt *loop, LgVal iter, LgVal slot) {
    int saved = g->nbind;
    lg_bind(g, loop->sym, iter);
    for (int i = 0; i < loop->body.len && !g->failed; i++) {
        IrStmt *c = loop->body.items[i];
        if (c->op == IR_LET && c->producer_too) lg_bind(g, c->sym, lg_expr(g, c->value));
        if (c->op != IR_COPY || c->pipeline != loop) continue;
        push_stage(g, c->dst.buf, slot);
        lg_copy(g, c);
        g->nstage--;
    }
    g->nbind = saved;
}

/* Software pipeline (plan_pipeline.c): producers run stages-1 iterations
 * ahead; cp.async groups are committed every iteration, even empty, so
 * "wait until at most stages-1 groups are pending" always means "this
 * iteration's data has landed"; a barrier after each iteration protects the
 * slot the next prefetch overwrites. Right for any trip count, 0 included. */
void lg_pipelined(Lg *g, IrStmt *s) {
    int S = s->stages;
    bool any = false;
    for (int i = 0; i < s->body.len; i++) any |= s->body.items[i]->op == IR_COPY && s->body.items[i]->pipeline == s;
    LgVal n = lg_cast(g, lg_expr(g, s->hi), LT_INT);
    if (any && S > 1) /* the prologue, unrolled */
        for (int kp = 0; kp < S - 1 && !g->failed; kp++) {
            LLVMBasicBlockRef after = lg_begin_if(g, lg_binary(g, OP_LT, num(g, kp), n).v);
            issue_producers(g, s, num(g, kp), num(g, kp));
            lg_end_if(g, after);
            lg_cp_async_commit(g);
        }
    LgLoop l;
    lg_loop_begin(g, &l, num(g, 0), n, num(g, 1), false, ir_sym_cname(g->k->c, s->sym));
    int saved_bind = g->nbind, saved_stage = g->nstage;
    lg_bind(g, s->sym, l.var);
    if (any) {
        LgVal kp = addc(g, l.var, S - 1);
        LLVMBasicBlockRef after = lg_begin_if(g, lg_binary(g, OP_LT, kp, n).v);
        issue_producers(g, s, kp, modc(g, kp, S));
        lg_end_if(g, after);
        lg_cp_async_commit(g);
        lg_cp_async_wait(g, S - 1);
        lg_sync(g);
    }
    LgVal stage = modc(g, l.var, S);
    for (int i = 0; i < s->body.len; i++) {
        IrStmt *c = s->body.items[i];
        if (c->op == IR_COPY && c->pipeline == s) push_stage(g, c->dst.buf, stage);
    }
    for (int i = 0; i < s->body.len && !g->failed; i++) {
        IrStmt *c = s->body.items[i];
        if (c->op == IR_COPY && c->pipeline == s) continue;
        lg_block_emit(g, &(IrBlock){.items = &s->body.items[i], .len = 1});
    }
    g->nstage = saved_stage;
    g->nbind = saved_bind;
    lg_sync(g);
    lg_loop_end(g, &l);
}
