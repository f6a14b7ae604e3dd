/* llvm_reduce.c - reductions of fragments along a dimension for the LLVM
 * backend. lower_reduce.c is the model, decision for decision: the same
 * path (reduce_path), accumulation type (cg_reduce_dtype), identities,
 * combine order, shuffle offsets and barriers, so both backends give the
 * same bits.
 *
 * Accumulator layout, dim 1: each thread combines its columns, the 4 lanes
 * of a quad (which share rows) exchange with shuffles, and with several
 * warps across the columns the partial rows meet in the shared scratch.
 * Blocked layout, last dim: one partial per row, warp shuffles, then the
 * warps' results meet in the scratch (every thread ends with every row).
 * Otherwise the source is staged in the scratch and `lanes` threads reduce
 * each output. Loops the CUDA C unrolls (over registers, rows, shuffle
 * offsets) are unrolled here while emitting; the others stay loops. */
#include <math.h>
#include <string.h>


#include "llvm_codegen.h"

/* The C type the reduction computes in, and how it combines: `merge` is
 * the operation partials meet with (absmax's partials are magnitudes
 * already: max). */
typedef struct Red {
    LgType t;
    int kind, merge;
} Red;

/* ---- small pieces ---- */

static LgVal tid_val(Lg *g) { return (LgVal){g->tid, LT_INT}; }   /* const int tid = threadIdx.x */
static LgVal lane_val(Lg *g) { return (LgVal){g->lane, LT_INT}; } /* lane = tid % 32 */
static LgVal warp_val(Lg *g) { return (LgVal){g->warp, LT_INT}; } /* warp = tid / 32 */

/* The partials `p[n]` of the CUDA C: an array of the reduction's type. */
typedef struct Partials {
    LLVMValueRef slots;
    LLVMTypeRef type;
    LgType t;
} Partials;

static Partials partials(Lg *g, LgType t, int64_t n) {
    Partials p = {.type = LLVMArrayType2(lg_llvm_type(g, t), (uint64_t)n), .t = t};
    p.slots = lg_entry_alloca(g, p.type, "p");
    return p;
}

static LLVMValueRef slot(Lg *g, Partials *p, int64_t i) {
    LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), LLVMConstInt(g->i64, (unsigned long long)i, 0)};
    return LLVMBuildInBoundsGEP2(g->b, p->type, p->slots, idx, 2, "");
}

static LgVal get(Lg *g, Partials *p, int64_t i) {
    return (LgVal){LLVMBuildLoad2(g->b, lg_llvm_type(g, p->t), slot(g, p, i), ""), p->t};
}

static void set(Lg *g, Partials *p, int64_t i, LgVal v) { LLVMBuildStore(g->b, lg_cast(g, v, p->t).v, slot(g, p, i)); }

/* Element `index` of the shared scratch seen as an array of the
 * reduction's type (`((float *)tl_scratch)[index]`, `tl_scratch[index]`
 * for double): f32 partials travel as floats, plan_shared sized it with
 * 8 bytes an element for f64 and the 64-bit integers, 4 for the rest. */
LLVMValueRef lg_scratch(Lg *g, LgType t, LgVal index) {
    LLVMValueRef off = LLVMConstInt(g->i64, (unsigned long long)g->k->scratch_offset, 0);
    LLVMValueRef base = LLVMBuildInBoundsGEP2(g->b, g->i8, g->smem, &off, 1, "tl_scratch");
    return lg_gep(g, lg_llvm_type(g, t), base, lg_cast(g, index, LT_LL).v);
}

static LgVal scratch_load(Lg *g, LgType t, LgVal index) {
    return (LgVal){LLVMBuildLoad2(g->b, lg_llvm_type(g, t), lg_scratch(g, t, index), ""), t};
}

static void scratch_store(Lg *g, LgVal v, LgVal index) { LLVMBuildStore(g->b, v.v, lg_scratch(g, v.t, index)); }

/* The partials v[0..n) are finished here, before the barrier that frees
 * the scratch: an empty asm takes them. Without it LLVM's machine sinking
 * moves the combining past the barrier, down to where the results are
 * used, after whatever branches come between, and every partial read from
 * the scratch stays live that far (spills where NVRTC, which combines
 * them here, has none). */
static void hold(Lg *g, const LgVal *v, int n) {
    enum { PER_ASM = 16 };
    for (int i = 0; i < n; i += PER_ASM) {
        char cons[PER_ASM * 2 + 1] = "";
        LLVMValueRef args[PER_ASM];
        int m = 0;
        for (; m < PER_ASM && i + m < n; m++) {
            LgType t = v[i + m].t;
            strcat(cons, m ? "," : "");
            strcat(cons, t == LT_FLOAT ? "f" : t == LT_DOUBLE ? "d" : t == LT_LL || t == LT_ULL ? "l" : "r");
            args[m] = v[i + m].v;
        }
        lg_asm(g, NULL, "", cons, args, m, true);
    }
}

/* ---- the arithmetic (identity, combine, as_red, element of lower_reduce.c) ---- */

/* What a partial starts from: 0 for sums and for absmax (magnitudes are
 * at least 0); for max and min the infinity on the far side, or the
 * type's far end. */
static LgVal identity(Lg *g, int kind, LgType t) {
    LLVMTypeRef ty = lg_llvm_type(g, t);
    if (kind != REDUCE_MAX && kind != REDUCE_MIN) return (LgVal){LLVMConstNull(ty), t};
    bool max = kind == REDUCE_MAX;
    switch (t) {
    case LT_FLOAT: case LT_DOUBLE: return (LgVal){LLVMConstReal(ty, max ? -INFINITY : INFINITY), t};
    case LT_UINT: case LT_ULL: return (LgVal){max ? LLVMConstNull(ty) : LLVMConstAllOnes(ty), t};
    case LT_LL: return (LgVal){lg_const_int(g, t, max ? INT64_MIN : INT64_MAX), t};
    default: return (LgVal){lg_const_int(g, t, max ? INT32_MIN : INT32_MAX), t};
    }
}

/* a + b, or min/max(a, b): fminf/fmaxf and fmin/fmax for floats (a NaN
 * operand loses to a number: llvm.minnum/maxnum, PTX min/max.f32/f64 as
 * libdevice has them), CUDA's integer min/max overloads otherwise. */
static LgVal combine(Lg *g, int merge, LgVal a, LgVal b, LgType t) {
    a = lg_cast(g, a, t);
    b = lg_cast(g, b, t);
    if (merge == REDUCE_SUM) return lg_binary(g, OP_ADD, a, b);
    bool max = merge != REDUCE_MIN;
    const char *f;
    if (lg_is_float(t)) f = max ? "llvm.maxnum" : "llvm.minnum";
    else if (lg_is_signed(t)) f = max ? "llvm.smax" : "llvm.smin";
    else f = max ? "llvm.umax" : "llvm.umin";
    LLVMTypeRef ty = lg_llvm_type(g, t);
    LLVMValueRef ops[2] = {a.v, b.v};
    return (LgVal){lg_intrinsic(g, f, &ty, 1, ops, 2), t};
}

/* shfl.sync over the whole warp with CUDA's default width 32: bfly is
 * __shfl_xor_sync(0xffffffffu, v, off) (its c operand 0x1f), up is
 * __shfl_up_sync(0xffffffffu, v, off) (c 0), down __shfl_down_sync (c
 * 0x1f). */
static LLVMValueRef shfl32(Lg *g, LLVMValueRef v, bool flt, LgShuffle mode, int64_t off) {
    static const char *const names[] = {"up", "bfly", "idx", "down"};
    /* the c operand: 0 for up (the lowest lane), 0x1f for the others (the highest lane, the whole warp) */
    LLVMValueRef args[4] = {LLVMConstInt(g->i32, 0xffffffffu, 0), v, LLVMConstInt(g->i32, (unsigned long long)off, 0),
                            LLVMConstInt(g->i32, mode == LG_SHFL_UP ? 0 : 0x1f, 0)};
    char name[40];
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", names[mode], flt ? "f32" : "i32");
    return lg_intrinsic(g, name, NULL, 0, args, 4);
}

LgVal lg_shuffle(Lg *g, LgVal v, LgShuffle up, int64_t off) {
    if (v.t == LT_FLOAT) return (LgVal){shfl32(g, v.v, true, up, off), v.t};
    if (v.t != LT_DOUBLE && v.t != LT_LL && v.t != LT_ULL) return (LgVal){shfl32(g, v.v, false, up, off), v.t};
    LLVMBuilderRef B = g->b;
    LLVMValueRef bits = v.t == LT_DOUBLE ? LLVMBuildBitCast(B, v.v, g->i64, "") : v.v;
    LLVMValueRef lo = LLVMBuildTrunc(B, bits, g->i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(B, LLVMBuildLShr(B, bits, LLVMConstInt(g->i64, 32, 0), ""), g->i32, "");
    hi = shfl32(g, hi, false, up, off);
    lo = shfl32(g, lo, false, up, off);
    LLVMValueRef r = LLVMBuildOr(B, LLVMBuildZExt(B, lo, g->i64, ""),
                                 LLVMBuildShl(B, LLVMBuildZExt(B, hi, g->i64, ""), LLVMConstInt(g->i64, 32, 0), ""), "");
    if (v.t == LT_DOUBLE) r = LLVMBuildBitCast(B, r, g->f64, "");
    return (LgVal){r, v.t};
}

/* v = combine(v, the same partial of lane ^ off) */
static LgVal butterfly(Lg *g, Red *r, LgVal v, int64_t off) {
    return combine(g, r->merge, v, lg_shuffle(g, v, LG_SHFL_XOR, off), r->t);
}

/* Register `reg` of fragment b as the reduction's type:
 * (float)tl_to_float(b[reg]), (int)b[reg], ... */
static LgVal as_red(Lg *g, const IrBuf *b, int64_t reg, LgType t) {
    LLVMValueRef p = lg_frag_reg_ptr(g, b, LLVMConstInt(g->i64, (unsigned long long)reg, 0));
    return lg_cast(g, lg_from_storage(g, b->dtype, LLVMBuildLoad2(g->b, lg_storage_type(g, b->dtype), p, "")), t);
}

/* The value register reg contributes: absmax takes magnitudes (fabsf,
 * fabs, abs, llabs; unsigned values are their own), llvm.abs with
 * INT_MIN staying INT_MIN as abs's wrap-around has it. */
static LgVal element(Lg *g, Red *r, const IrBuf *b, int64_t reg) {
    LgVal v = as_red(g, b, reg, r->t);
    if (r->kind != REDUCE_ABSMAX || r->t == LT_UINT || r->t == LT_ULL) return v;
    LLVMTypeRef ty = lg_llvm_type(g, r->t);
    if (lg_is_float(r->t)) return (LgVal){lg_intrinsic(g, "llvm.fabs", &ty, 1, &v.v, 1), r->t};
    LLVMValueRef ops[2] = {v.v, LLVMConstInt(g->i1, 0, 0)};
    return (LgVal){lg_intrinsic(g, "llvm.abs", &ty, 1, ops, 2), r->t};
}

/* dst[reg] = v, or combined with what dst holds when the reduction does
 * not clear it, converted to dst's type. */
static void store_result(Lg *g, IrStmt *s, Red *r, int64_t reg, LgVal v) {
    const IrBuf *d = s->dst.buf;
    if (!s->clear) v = combine(g, r->merge, as_red(g, d, reg, r->t), v, r->t);
    LLVMValueRef p = lg_frag_reg_ptr(g, d, LLVMConstInt(g->i64, (unsigned long long)reg, 0));
    LLVMBuildStore(g->b, lg_to_storage(g, d->dtype, v), p);
}

/* ---- the accumulator's rows ---- */

static void reduce_acc(Lg *g, IrStmt *s, Red *r) {
    const IrBuf *src = s->src.buf;
    const Layout *l = &src->layout;
    int n = l->mi * 2;
    LgVal *p = arena_alloc(&g->k->c->arena, sizeof(LgVal) * (size_t)n);
    for (int mi = 0; mi < l->mi; mi++)
        for (int h = 0; h < 2; h++) {
            int row = mi * 2 + h;
            p[row] = identity(g, r->kind, r->t);
            for (int ni = 0; ni < l->ni; ni++)
                for (int c = 0; c < 2; c++)
                    p[row] = combine(g, r->merge, p[row], element(g, r, src, (mi * l->ni + ni) * 4 + h * 2 + c), r->t);
            /* the quad's lanes hold the other columns of the same rows */
            for (int off = 1; off <= 2; off *= 2) p[row] = butterfly(g, r, p[row], off);
        }
    if (l->wn > 1) {
        /* warps side by side along the columns: meet in shared memory,
         * the quad's first lane writing its rows for warp column warp % wn */
        int64_t rows = src->shape[0];
        LgVal band = lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, warp_val(g), l->wn), l->wtm), quad_row = lg_binc(g, OP_DIV, lane_val(g), 4);
        LLVMValueRef first = lg_binc(g, OP_EQ, lg_binc(g, OP_MOD, lane_val(g), 4), 0).v;
        LLVMBasicBlockRef after = lg_begin_if(g, first);
        for (int i = 0; i < n; i++) {
            /* warp % wn * rows + warp / wn * wtm + (i / 2) * 16 + (i % 2) * 8 + lane / 4 */
            LgVal at = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_MOD, warp_val(g), l->wn), rows), band);
            at = lg_binary(g, OP_ADD, lg_binc(g, OP_ADD, at, (i / 2) * 16 + (i % 2) * 8), quad_row);
            scratch_store(g, p[i], at);
        }
        lg_end_if(g, after);
        lg_sync(g);
        for (int i = 0; i < n; i++) {
            p[i] = identity(g, r->kind, r->t);
            for (int w = 0; w < l->wn; w++) {
                /* w * rows + warp / wn * wtm + (i / 2) * 16 + (i % 2) * 8 + lane / 4 */
                LgVal at = lg_binary(g, OP_ADD, lg_int(g, w * rows), band);
                at = lg_binary(g, OP_ADD, lg_binc(g, OP_ADD, at, (i / 2) * 16 + (i % 2) * 8), quad_row);
                p[i] = combine(g, r->merge, p[i], scratch_load(g, r->t, at), r->t);
            }
        }
        hold(g, p, n);
        lg_sync(g); /* the scratch is free again */
    }
    for (int i = 0; i < n; i++) store_result(g, s, r, i, p[i]);
}

/* ---- a blocked fragment's rows ---- */

static void reduce_blocked(Lg *g, IrStmt *s, Red *r) {
    const IrBuf *src = s->src.buf;
    const Layout *l = &src->layout;
    int64_t cols = src->shape[src->rank - 1], total = buf_elems(src), rows = total / cols, t = g->k->threads;
    int64_t warps = (t + 31) / 32;
    Partials p = partials(g, r->t, rows);
    for (int64_t i = 0; i < rows; i++) set(g, &p, i, identity(g, r->kind, r->t));
    for (int64_t q = 0; q < l->chunks; q++) {
        CgReduceChunk ch = cg_reduce_chunk(src, t, q);
        LLVMBasicBlockRef after = NULL;
        if (ch.partial && l->pitch) /* tid * vec + at < cols */
            after = lg_begin_if(g, lg_binc(g, OP_LT, lg_binc(g, OP_ADD, lg_binc(g, OP_MUL, tid_val(g), l->vec), ch.at), cols).v);
        else if (ch.partial) /* (tid + q * t) * vec < total */
            after = lg_begin_if(g, lg_binc(g, OP_LT, lg_binc(g, OP_MUL, lg_binc(g, OP_ADD, tid_val(g), q * t), l->vec), total).v);
        for (int v = 0; v < l->vec; v++)
            set(g, &p, ch.row, combine(g, r->merge, get(g, &p, ch.row), element(g, r, src, q * l->vec + v), r->t));
        if (after) lg_end_if(g, after);
    }
    /* each row over the warp, then lane 0 hands the warp's result over */
    for (int64_t i = 0; i < rows; i++) {
        LgVal cur = get(g, &p, i);
        for (int off = 16; off >= 1; off /= 2) cur = butterfly(g, r, cur, off);
        set(g, &p, i, cur);
        LLVMBasicBlockRef after = lg_begin_if(g, lg_binc(g, OP_EQ, lane_val(g), 0).v);
        scratch_store(g, cur, lg_binc(g, OP_ADD, lg_binc(g, OP_MUL, warp_val(g), rows), i));
        lg_end_if(g, after);
    }
    lg_sync(g);
    /* every thread combines the warps' results, each row in warp order
     * (the rows inside one loop over the warps: a warp's rows lie side by
     * side in the scratch, so each round's loads are one vector whose
     * elements are consumed at once, where a loop per row would load every
     * warp's rows before the first add) */
    for (int64_t i = 0; i < rows; i++) set(g, &p, i, identity(g, r->kind, r->t));
    LgLoop w;
    lg_loop_begin(g, &w, lg_int(g, 0), lg_int(g, warps), lg_int(g, 1), false, "w");
    for (int64_t i = 0; i < rows; i++) {
        LgVal part = scratch_load(g, r->t, lg_binc(g, OP_ADD, lg_binc(g, OP_MUL, w.var, rows), i));
        set(g, &p, i, combine(g, r->merge, get(g, &p, i), part, r->t));
    }
    lg_loop_end(g, &w);
    LgVal *done = arena_alloc(&g->k->c->arena, sizeof(LgVal) * (size_t)rows);
    for (int64_t i = 0; i < rows; i++) done[i] = get(g, &p, i);
    hold(g, done, (int)rows);
    lg_sync(g); /* the scratch is free again */
    for (int64_t i = 0; i < rows; i++) store_result(g, s, r, i, done[i]);
}

/* ---- staged through shared memory ---- */

/* The row-major index of b's element at coords (cg_frag_linear). */
static LgVal frag_linear(Lg *g, const IrBuf *b, LgVal *coords) {
    if (!b->rank) return lg_int(g, 0);
    LgVal lin = coords[0];
    for (int d = 1; d < b->rank; d++) lin = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lin, b->shape[d]), coords[d]);
    return lin;
}

static void reduce_staged(Lg *g, IrStmt *s, Red *r) {
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    /* the source's elements to the scratch, row-major */
    for (int64_t reg = 0; reg < src->layout.regs; reg++) {
        LgVal coords[MAX_RANK];
        LLVMValueRef valid;
        lg_frag_coords(g, src, reg, coords, &valid);
        LgVal lin = frag_linear(g, src, coords);
        LLVMBasicBlockRef after = valid ? lg_begin_if(g, valid) : NULL;
        scratch_store(g, element(g, r, src, reg), lin);
        if (after) lg_end_if(g, after);
    }
    lg_sync(g);
    /* output o (row-major over the dims kept) reads source elements
     * (o / inner) * extent * inner + k * inner + o % inner, k < extent */
    int64_t total = buf_elems(src), extent = src->shape[s->dim], outputs = total / extent, inner = 1;
    for (int d = s->dim + 1; d < src->rank; d++) inner *= src->shape[d];
    int64_t lanes = cg_reduce_lanes(outputs, g->k->threads), groups = g->k->threads / lanes;
    /* every thread runs the same rounds: the shuffles need whole warps */
    LgVal first = lanes > 1 ? lg_binc(g, OP_DIV, tid_val(g), lanes) : tid_val(g);
    LgLoop o;
    lg_loop_begin(g, &o, first, lg_int(g, (outputs + groups - 1) / groups * groups), lg_int(g, groups), false, "o");
    Partials v = partials(g, r->t, 1);
    set(g, &v, 0, identity(g, r->kind, r->t));
    LLVMBasicBlockRef after = lg_begin_if(g, lg_binc(g, OP_LT, o.var, outputs).v);
    LgLoop k;
    lg_loop_begin(g, &k, lanes > 1 ? lg_binc(g, OP_MOD, tid_val(g), lanes) : lg_int(g, 0), lg_int(g, extent), lg_int(g, lanes), false,
                  "k");
    LgVal at;
    if (inner == 1) /* the last dim: o's elements are a row */
        at = outputs > 1 ? lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, o.var, extent), k.var) : k.var;
    else if (outputs == inner) /* the first dim: o is the inner part */
        at = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, k.var, inner), o.var);
    else
        at = lg_binary(g, OP_ADD,
                       lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, o.var, inner), extent * inner),
                                 lg_binc(g, OP_MUL, k.var, inner)),
                       lg_binc(g, OP_MOD, o.var, inner));
    set(g, &v, 0, combine(g, r->merge, get(g, &v, 0), scratch_load(g, r->t, at), r->t));
    lg_loop_end(g, &k);
    lg_loop_hint(g, &k, "llvm.loop.unroll.count", 4);
    lg_end_if(g, after);
    LgVal cur = get(g, &v, 0);
    for (int64_t off = lanes / 2; off >= 1; off /= 2) cur = butterfly(g, r, cur, off);
    LLVMValueRef keep = lg_binc(g, OP_LT, o.var, outputs).v;
    if (lanes > 1) keep = LLVMBuildAnd(g->b, lg_binc(g, OP_EQ, lg_binc(g, OP_MOD, tid_val(g), lanes), 0).v, keep, "");
    after = lg_begin_if(g, keep);
    scratch_store(g, cur, lg_binary(g, OP_ADD, lg_int(g, total), o.var));
    lg_end_if(g, after);
    lg_loop_end(g, &o);
    lg_sync(g);
    /* the destination's elements, row-major over its dims (the kept ones) */
    for (int64_t reg = 0; reg < dst->layout.regs; reg++) {
        LgVal dc[MAX_RANK];
        LLVMValueRef dvalid;
        lg_frag_coords(g, dst, reg, dc, &dvalid);
        LgVal dlin = outputs > 1 ? frag_linear(g, dst, dc) : lg_int(g, 0);
        LLVMBasicBlockRef skip = dvalid ? lg_begin_if(g, dvalid) : NULL;
        store_result(g, s, r, reg, scratch_load(g, r->t, lg_binary(g, OP_ADD, lg_int(g, total), dlin)));
        if (skip) lg_end_if(g, skip);
    }
    lg_sync(g); /* the scratch is free again */
}

void lg_reduce(Lg *g, IrStmt *s) {
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    if (src->scope != SCOPE_FRAGMENT || dst->scope != SCOPE_FRAGMENT) {
        lg_error(g, s->loc, "reductions of shared or local buffers are not supported yet; reduce a fragment");
        return;
    }
    int kind = s->reduce_kind;
    Red r = {lg_compute_type(cg_reduce_dtype(src->dtype)), kind, kind == REDUCE_ABSMAX ? REDUCE_MAX : kind};
    switch (reduce_path(s, g->k->threads)) {
    case REDUCE_PATH_ACC_ROWS: reduce_acc(g, s, &r); break;
    case REDUCE_PATH_BLOCKED_ROWS: reduce_blocked(g, s, &r); break;
    case REDUCE_PATH_STAGED: reduce_staged(g, s, &r); break;
    }
}
