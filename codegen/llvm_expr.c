/* llvm_expr.c - scalar expressions as LLVM values with the C types the
 * printed CUDA gives them (emit_expr.c is the model): C's conversions and
 * usual arithmetic, literals in the type their context gives, f16 results
 * rounded where they are made, element pointers (global with bounds tests,
 * shared with the swizzle, fragment registers), math through libdevice as
 * NVRTC does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_codegen.h"

/* ---- types ---- */

LLVMTypeRef lg_llvm_type(Lg *g, LgType t) {
    switch (t) {
    case LT_BOOL: return g->i1;
    case LT_I8: case LT_U8: return g->i8;
    case LT_I16: case LT_U16: return g->i16;
    case LT_INT: case LT_UINT: return g->i32;
    case LT_LL: case LT_ULL: return g->i64;
    case LT_FLOAT: return g->f32;
    case LT_DOUBLE: return g->f64;
    }
    return g->i32;
}

bool lg_is_float(LgType t) { return t == LT_FLOAT || t == LT_DOUBLE; }
bool lg_is_signed(LgType t) { return t == LT_I8 || t == LT_I16 || t == LT_INT || t == LT_LL; }
static int width(LgType t) {
    static const int w[] = {1, 8, 8, 16, 16, 32, 32, 64, 64, 32, 64};
    return w[t];
}

LgType lg_compute_type(Dtype t) {
    switch (t) {
    case DT_F16: case DT_BF16: case DT_F8E4M3: case DT_F8E5M2: case DT_F32: case DT_FLOAT_LIT: return LT_FLOAT;
    case DT_I8: case DT_U8: case DT_I16: case DT_U16: case DT_I32: return LT_INT;
    case DT_BOOL: return LT_BOOL;
    case DT_U32: return LT_UINT;
    case DT_I64: case DT_INT_LIT: return LT_LL;
    case DT_U64: return LT_ULL;
    case DT_F64: return LT_DOUBLE;
    default: return LT_FLOAT;
    }
}

LgType lg_storage_ctype(Dtype t) {
    switch (t) {
    case DT_I8: return LT_I8;
    case DT_U8: return LT_U8;
    case DT_I16: return LT_I16;
    case DT_U16: return LT_U16;
    default: return lg_compute_type(t);
    }
}

LgType lg_scalar_type(const Lg *g, Dtype t) {
    if (dtype_is_int(t) && dtype_bytes(t) < 4) return lg_storage_ctype(t);
    LgType c = lg_compute_type(t);
    return c == LT_INT ? g->index_type : c;
}

LLVMTypeRef lg_storage_type(Lg *g, Dtype t) {
    switch (t) {
    case DT_F16: return g->f16;
    case DT_BF16: return g->bf16;
    case DT_F8E4M3: case DT_F8E5M2: case DT_BOOL: return g->i8;
    default: return lg_llvm_type(g, lg_storage_ctype(t));
    }
}

/* C's integer promotion: bool, char and short compute as int. */
static LgType promoted(LgType t) { return t <= LT_U16 ? LT_INT : t; }

/* C's usual arithmetic conversions (both sides already promoted). */
static LgType common_type(LgType a, LgType b) {
    a = promoted(a), b = promoted(b);
    if (a == LT_DOUBLE || b == LT_DOUBLE) return LT_DOUBLE;
    if (a == LT_FLOAT || b == LT_FLOAT) return LT_FLOAT;
    if (a == LT_ULL || b == LT_ULL) return LT_ULL;
    if (a == LT_LL || b == LT_LL) return LT_LL; /* long long holds every unsigned */
    if (a == LT_UINT || b == LT_UINT) return LT_UINT;
    return LT_INT;
}

LgVal lg_cast(Lg *g, LgVal v, LgType t) {
    if (v.t == t) return v;
    LLVMTypeRef to = lg_llvm_type(g, t);
    LLVMValueRef r;
    if (t == LT_BOOL) {
        r = lg_truth(g, v);
    } else if (v.t == LT_BOOL) {
        r = lg_is_float(t) ? LLVMBuildUIToFP(g->b, v.v, to, "") : LLVMBuildZExt(g->b, v.v, to, "");
    } else if (lg_is_float(v.t) && lg_is_float(t)) {
        r = t == LT_DOUBLE ? LLVMBuildFPExt(g->b, v.v, to, "") : LLVMBuildFPTrunc(g->b, v.v, to, "");
    } else if (lg_is_float(v.t)) {
        r = lg_is_signed(t) ? LLVMBuildFPToSI(g->b, v.v, to, "") : LLVMBuildFPToUI(g->b, v.v, to, "");
    } else if (lg_is_float(t)) {
        r = lg_is_signed(v.t) ? LLVMBuildSIToFP(g->b, v.v, to, "") : LLVMBuildUIToFP(g->b, v.v, to, "");
    } else if (width(t) < width(v.t)) {
        r = LLVMBuildTrunc(g->b, v.v, to, "");
    } else if (width(t) > width(v.t)) {
        r = lg_is_signed(v.t) ? LLVMBuildSExt(g->b, v.v, to, "") : LLVMBuildZExt(g->b, v.v, to, "");
    } else {
        r = v.v; /* int <-> unsigned: the same bits */
    }
    return (LgVal){r, t};
}

LLVMValueRef lg_truth(Lg *g, LgVal v) {
    if (v.t == LT_BOOL) return v.v;
    if (lg_is_float(v.t)) return LLVMBuildFCmp(g->b, LLVMRealUNE, v.v, LLVMConstNull(LLVMTypeOf(v.v)), "");
    return LLVMBuildICmp(g->b, LLVMIntNE, v.v, LLVMConstNull(LLVMTypeOf(v.v)), "");
}

/* fp8 conversions as the printed CUDA's cuda_fp8.h makes them: the
 * hardware's cvt on sm_89 and later for widening and for narrowing to e4m3
 * (saturating), which is what cuda_fp8.h uses there; its software
 * otherwise (llvm_fp8.c): everything on sm_80, and narrowing to e5m2 on
 * every arch (no saturation: overflow keeps infinity, which cvt lacks). */
static bool fp8_hardware(Lg *g) { return g->k->arch >= 89; }

static LLVMValueRef fp8_from_float(Lg *g, Dtype t, LLVMValueRef f) {
    if (!fp8_hardware(g) || t == DT_F8E5M2) return lg_fp8_from_float_soft(g->b, t, f);
    /* cvt of two floats into a pair of fp8 (the second in the low byte):
     * e4m3 saturates to its largest finite value */
    LLVMValueRef pair = lg_asm(g, g->i16, "cvt.rn.satfinite.e4m3x2.f32 %0, %1, %1;", "=h,f", &f, 1, false);
    return LLVMBuildTrunc(g->b, pair, g->i8, "");
}

static LLVMValueRef fp8_to_float(Lg *g, Dtype t, LLVMValueRef byte) {
    /* exact through f16, which holds every fp8 value */
    LLVMValueRef h;
    if (fp8_hardware(g)) {
        const char *text = t == DT_F8E4M3
                               ? "{ .reg .b32 p; .reg .b16 hi; cvt.rn.f16x2.e4m3x2 p, %1; mov.b32 {%0, hi}, p; }"
                               : "{ .reg .b32 p; .reg .b16 hi; cvt.rn.f16x2.e5m2x2 p, %1; mov.b32 {%0, hi}, p; }";
        LLVMValueRef wide = LLVMBuildZExt(g->b, byte, g->i16, "");
        h = lg_asm(g, g->i16, text, "=h,h", &wide, 1, false);
    } else {
        h = lg_fp8_to_half_bits_soft(g->b, t, byte);
    }
    /* f16 to float as cuda_fp16.h's __half2float: its cvt in inline PTX,
     * which O3 cannot fold (an fpext of the NaN constant 0x7FFF would fold
     * to LLVM's choice of float NaN, not necessarily the hardware's) */
    return lg_asm(g, g->f32, "cvt.f32.f16 %0, %1;", "=f,h", &h, 1, false);
}

LLVMValueRef lg_to_storage(Lg *g, Dtype t, LgVal v) {
    switch (t) {
    case DT_F16: case DT_BF16:
        return LLVMBuildFPTrunc(g->b, lg_cast(g, v, LT_FLOAT).v, lg_storage_type(g, t), "");
    case DT_F8E4M3: case DT_F8E5M2:
        return fp8_from_float(g, t, lg_cast(g, v, LT_FLOAT).v);
    case DT_BOOL: return LLVMBuildZExt(g->b, lg_truth(g, v), g->i8, "");
    default: return lg_cast(g, v, lg_storage_ctype(t)).v;
    }
}

LgVal lg_from_storage(Lg *g, Dtype t, LLVMValueRef s) {
    switch (t) {
    case DT_F16: case DT_BF16: return (LgVal){LLVMBuildFPExt(g->b, s, g->f32, ""), LT_FLOAT};
    case DT_F8E4M3: case DT_F8E5M2:
        return (LgVal){fp8_to_float(g, t, s), LT_FLOAT};
    case DT_BOOL: return (LgVal){LLVMBuildICmp(g->b, LLVMIntNE, s, LLVMConstInt(g->i8, 0, 0), ""), LT_BOOL};
    default: return lg_cast(g, (LgVal){s, lg_storage_ctype(t)}, promoted(lg_storage_ctype(t)));
    }
}

LgVal lg_rounded(Lg *g, Dtype t, LgVal v) {
    if (!cg_narrow_float(t)) return v;
    return lg_from_storage(g, t, lg_to_storage(g, t, v));
}

/* ---- float arithmetic flags ---- */

/* NVRTC contracts a * b + c into an fma by default (-fmad=true): the same
 * permission on every float operation */
static LLVMValueRef contract(LLVMValueRef v) {
    if (LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v)) LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
    return v;
}

/* ---- literals ---- */

static Dtype enter_lit_type(Lg *g, Dtype t) {
    Dtype saved = g->lit_type;
    if (t != DT_FLOAT_LIT && t != DT_INT_LIT) g->lit_type = t;
    return saved;
}

LgVal lg_value(Lg *g, const Node *e, Dtype t) {
    Dtype saved = enter_lit_type(g, t);
    LgVal v = lg_expr(g, e);
    g->lit_type = saved;
    return v;
}

static LgVal constant(Lg *g, const Node *e) {
    if (dtype_is_float(e->dtype)) {
        Dtype t = e->dtype != DT_FLOAT_LIT ? e->dtype : dtype_is_float(g->lit_type) ? g->lit_type : DT_F32;
        double v = dtype_round_float(t, e->const_float ? e->cval.f : (double)e->cval.i);
        if (t == DT_F64) return (LgVal){LLVMConstReal(g->f64, v), LT_DOUBLE};
        return (LgVal){LLVMConstReal(g->f32, (float)v), LT_FLOAT};
    }
    if (e->dtype == DT_BOOL) return (LgVal){LLVMConstInt(g->i1, node_const_true(e), 0), LT_BOOL};
    return lg_int(g, e->const_float ? (int64_t)e->cval.f : e->cval.i);
}

/* ---- memory ---- */

LLVMValueRef lg_gep(Lg *g, LLVMTypeRef elem, LLVMValueRef base, LLVMValueRef offset) {
    return LLVMBuildInBoundsGEP2(g->b, elem, base, &offset, 1, "");
}

LLVMValueRef lg_global_dim(Lg *g, const IrBuf *b, int d) {
    if (!buf_dim_dynamic(b, d)) return LLVMConstInt(g->i64, (unsigned long long)b->shape[d], 0);
    for (int i = g->nbind - 1; i >= 0; i--)
        if (g->bind_sym[i] == b->dyn[d]) return lg_cast(g, g->bind_val[i], LT_LL).v;
    die("dynamic size of %s unbound in the LLVM emitter", b->cname);
}

LLVMValueRef lg_global_offset(Lg *g, const IrBuf *b, LgVal *coords) {
    LLVMValueRef off = lg_cast(g, coords[0], LT_LL).v;
    for (int d = 1; d < b->rank; d++)
        off = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, off, lg_global_dim(g, b, d), ""), lg_cast(g, coords[d], LT_LL).v, "");
    return off;
}

LLVMValueRef lg_global_inbounds(Lg *g, const IrBuf *b, LgVal *coords) {
    LLVMValueRef c = NULL;
    for (int d = 0; d < b->rank; d++) {
        /* one unsigned compare tests 0 <= x < n */
        LLVMValueRef t = LLVMBuildICmp(g->b, LLVMIntULT, lg_cast(g, coords[d], LT_LL).v, lg_global_dim(g, b, d), "");
        c = c ? LLVMBuildAnd(g->b, c, t, "") : t;
    }
    return c ? c : LLVMConstInt(g->i1, 1, 0);
}

LgVal lg_stage(Lg *g, const IrBuf *b) {
    for (int i = g->nstage - 1; i >= 0; i--)
        if (g->stage_buf[i] == b) return g->stage_val[i];
    return lg_int(g, 0);
}


LgVal lg_binc(Lg *g, AstOp op, LgVal a, int64_t c) { return lg_binary(g, op, a, lg_int(g, c)); }

LgVal lg_shared_offset(Lg *g, const IrBuf *b, LgVal *coords, const LgVal *xor_row) {
    int64_t cols = b->shape[b->rank - 1];
    LgVal row = b->rank == 1 ? lg_int(g, 0) : coords[0];
    for (int d = 1; d < b->rank - 1; d++) row = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, row, b->shape[d]), coords[d]);
    LgVal col = coords[b->rank - 1];
    LgVal stage = lg_stage(g, b);
    int64_t stage_elems = b->stage_bytes / dtype_bytes(b->dtype);
    LgVal off;
    if (b->tma_layout) {
        /* TMA's and wgmma's tile (ir.h, cg_shared_offset_x) */
        CgTmaSpan t = cg_tma_span(b);
        LgVal xr = xor_row ? *xor_row : row, in_blk = lg_binc(g, OP_MOD, col, t.cols);
        LgVal chunk = lg_binary(g, OP_BXOR, lg_binc(g, OP_DIV, in_blk, t.per_chunk),
                                lg_binc(g, OP_MOD, lg_binc(g, OP_DIV, xr, 8 / t.chunks), t.chunks));
        off = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, col, t.cols), t.rows * t.cols),
                        lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, row, t.cols),
                                  lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, chunk, t.per_chunk),
                                            lg_binc(g, OP_MOD, col, t.per_chunk))));
    } else if (!b->swizzle_chunks) {
        off = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, row, cols), col);
    } else {
        /* chunk c of row r lives at c ^ ((r / rows_per_line) % period) */
        int per_chunk = 16 / dtype_bytes(b->dtype);
        int64_t chunks = cols / per_chunk;
        int period = b->swizzle_chunks;
        int64_t rows_per_line = chunks >= 8 ? 1 : 8 / chunks;
        LgVal xr = xor_row ? *xor_row : row;
        LgVal chunk = lg_binary(g, OP_BXOR, lg_binc(g, OP_DIV, col, per_chunk), lg_binc(g, OP_MOD, lg_binc(g, OP_DIV, xr, rows_per_line), period));
        off = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, row, cols),
                        lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, chunk, per_chunk), lg_binc(g, OP_MOD, col, per_chunk)));
    }
    if (!(LLVMIsAConstantInt(stage.v) && LLVMConstIntGetZExtValue(stage.v) == 0))
        off = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, stage, stage_elems), off);
    return off;
}

static int buf_index(const IrKernel *k, const IrBuf *b, bool *param) {
    for (int i = 0; i < k->params.len; i++)
        if (k->params.items[i] == b) return *param = true, i;
    for (int i = 0; i < k->buffers.len; i++)
        if (k->buffers.items[i] == b) return *param = false, i;
    die("buffer %s unknown to the LLVM emitter", b->cname);
}

LLVMValueRef lg_buf_base(Lg *g, const IrBuf *b) {
    bool param;
    int i = buf_index(g->k, b, &param);
    return param ? g->param_ptr[i] : g->buf_ptr[i];
}

LLVMValueRef lg_frag_reg_ptr(Lg *g, const IrBuf *b, LLVMValueRef reg) {
    bool param;
    int i = buf_index(g->k, b, &param);
    LLVMValueRef idx[2] = {LLVMConstInt(g->i64, 0, 0), reg};
    int64_t regs = b->scope == SCOPE_LOCAL ? buf_elems(b) : b->layout.regs;
    return LLVMBuildInBoundsGEP2(g->b, LLVMArrayType2(g->buf_elem[i], (uint64_t)regs), g->buf_ptr[i], idx, 2, "");
}

/* The register of fragment element e in the current parallel loop
 * (frag_reg in emit_expr.c). */
static LgVal frag_reg(Lg *g, const Node *e, const IrBuf *b, LgVal *coords) {
    if (b->layout.kind == LAYOUT_REPLICATED) {
        LgVal lin = coords[0];
        for (int i = 1; i < b->rank; i++) lin = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lin, b->shape[i]), coords[i]);
        return lin;
    }
    const IrBuf *d = g->driver;
    if (d && access_is_own(g->par, b, e)) {
        if (d->layout.kind == LAYOUT_ACC && b->layout.kind == LAYOUT_ROW)
            return lg_int(g, g->reg / (d->layout.ni * 4) * 2 + (g->reg / 2) % 2);
        return lg_int(g, g->reg);
    }
    lg_error(g, e->loc, "the element '%s[...]' is held by another thread here (the fragment has %s)", b->sym->name->s,
             layout_describe(g->k->c, &b->layout));
    return lg_int(g, 0);
}

LLVMValueRef lg_element_ptr(Lg *g, const Node *e, LLVMValueRef *cond, Dtype *dt) {
    IrBuf *b = ir_buf_of(g->k, e->sym);
    LgVal coords[MAX_RANK];
    for (int i = 0; i < e->u.index.idx.len; i++) coords[i] = lg_expr(g, e->u.index.idx.items[i]);
    *cond = NULL;
    *dt = b->dtype;
    LLVMTypeRef et = lg_storage_type(g, b->dtype);
    switch (b->scope) {
    case SCOPE_GLOBAL:
        *cond = lg_global_inbounds(g, b, coords);
        return lg_gep(g, et, lg_buf_base(g, b), lg_global_offset(g, b, coords));
    case SCOPE_SHARED:
        return lg_gep(g, et, lg_buf_base(g, b), lg_cast(g, lg_shared_offset(g, b, coords, NULL), LT_LL).v);
    case SCOPE_LOCAL: {
        LgVal lin = coords[0];
        for (int i = 1; i < b->rank; i++) lin = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lin, b->shape[i]), coords[i]);
        return lg_frag_reg_ptr(g, b, lg_cast(g, lin, LT_LL).v);
    }
    case SCOPE_FRAGMENT: return lg_frag_reg_ptr(g, b, lg_cast(g, frag_reg(g, e, b, coords), LT_LL).v);
    }
    return NULL;
}

/* ---- control flow inside expressions ---- */

LgVal lg_guarded_load(Lg *g, LLVMValueRef cond, LLVMValueRef ptr, Dtype dt) {
    LLVMTypeRef st = lg_storage_type(g, dt);
    if (LLVMIsAConstantInt(cond) && LLVMConstIntGetZExtValue(cond)) return lg_from_storage(g, dt, LLVMBuildLoad2(g->b, st, ptr, ""));
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef load = lg_block(g, "load"), join = lg_block(g, "loaded");
    LLVMBuildCondBr(g->b, cond, load, join);
    LLVMPositionBuilderAtEnd(g->b, load);
    LgVal v = lg_from_storage(g, dt, LLVMBuildLoad2(g->b, st, ptr, ""));
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, LLVMTypeOf(v.v), "");
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(v.v));
    LLVMValueRef vals[2] = {zero, v.v};
    LLVMBasicBlockRef from_blocks[2] = {from, end};
    LLVMAddIncoming(phi, vals, from_blocks, 2);
    return (LgVal){phi, v.t};
}

/* c ? a : b evaluating one arm; the result has the arms' common C type. */
static LgVal choose(Lg *g, LLVMValueRef c, const Node *a, const Node *b, Dtype lit) {
    LLVMBasicBlockRef ta = lg_block(g, "cond.a"), tb = lg_block(g, "cond.b"), join = lg_block(g, "cond");
    LLVMBuildCondBr(g->b, c, ta, tb);
    LLVMPositionBuilderAtEnd(g->b, ta);
    LgVal va = lg_value(g, a, lit);
    LLVMBasicBlockRef ea = LLVMGetInsertBlock(g->b);
    LLVMPositionBuilderAtEnd(g->b, tb);
    LgVal vb = lg_value(g, b, lit);
    LLVMBasicBlockRef eb = LLVMGetInsertBlock(g->b);
    LgType t = va.t == vb.t ? va.t : common_type(va.t, vb.t);
    LLVMPositionBuilderAtEnd(g->b, ea);
    va = lg_cast(g, va, t);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, eb);
    vb = lg_cast(g, vb, t);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, lg_llvm_type(g, t), "");
    LLVMValueRef vals[2] = {va.v, vb.v};
    LLVMBasicBlockRef blocks[2] = {ea, eb};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return (LgVal){phi, t};
}

/* a && b, a || b: b evaluated only where it decides (C's short circuit). */
static LgVal logical(Lg *g, AstOp op, const Node *a, const Node *b) {
    LLVMValueRef ca = lg_truth(g, lg_value(g, a, DT_NONE));
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef rhs = lg_block(g, "rhs"), join = lg_block(g, "logic");
    if (op == OP_LAND) LLVMBuildCondBr(g->b, ca, rhs, join);
    else LLVMBuildCondBr(g->b, ca, join, rhs);
    LLVMPositionBuilderAtEnd(g->b, rhs);
    LLVMValueRef cb = lg_truth(g, lg_value(g, b, DT_NONE));
    LLVMBasicBlockRef end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, g->i1, "");
    LLVMValueRef vals[2] = {LLVMConstInt(g->i1, op == OP_LOR, 0), cb};
    LLVMBasicBlockRef blocks[2] = {from, end};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return (LgVal){phi, LT_BOOL};
}

/* ---- operators ---- */

LgVal lg_binary(Lg *g, AstOp op, LgVal a, LgVal b) {
    LLVMBuilderRef B = g->b;
    if (op == OP_SHL || op == OP_SHR) {
        /* the result has the promoted left type; the count is converted to it */
        LgType t = promoted(a.t);
        a = lg_cast(g, a, t);
        b = lg_cast(g, lg_cast(g, b, promoted(b.t)), t);
        if (op == OP_SHL) return (LgVal){LLVMBuildShl(B, a.v, b.v, ""), t};
        return (LgVal){lg_is_signed(t) ? LLVMBuildAShr(B, a.v, b.v, "") : LLVMBuildLShr(B, a.v, b.v, ""), t};
    }
    LgType t = common_type(a.t, b.t);
    a = lg_cast(g, a, t);
    b = lg_cast(g, b, t);
    bool fl = lg_is_float(t), sg = lg_is_signed(t);
    switch (op) {
    case OP_ADD: return (LgVal){fl ? contract(LLVMBuildFAdd(B, a.v, b.v, "")) : LLVMBuildAdd(B, a.v, b.v, ""), t};
    case OP_SUB: return (LgVal){fl ? contract(LLVMBuildFSub(B, a.v, b.v, "")) : LLVMBuildSub(B, a.v, b.v, ""), t};
    case OP_MUL: return (LgVal){fl ? contract(LLVMBuildFMul(B, a.v, b.v, "")) : LLVMBuildMul(B, a.v, b.v, ""), t};
    case OP_DIV:
        return (LgVal){fl ? contract(LLVMBuildFDiv(B, a.v, b.v, "")) : sg ? LLVMBuildSDiv(B, a.v, b.v, "") : LLVMBuildUDiv(B, a.v, b.v, ""), t};
    case OP_MOD:
        return (LgVal){fl ? LLVMBuildFRem(B, a.v, b.v, "") : sg ? LLVMBuildSRem(B, a.v, b.v, "") : LLVMBuildURem(B, a.v, b.v, ""), t};
    case OP_BAND: return (LgVal){LLVMBuildAnd(B, a.v, b.v, ""), t};
    case OP_BOR: return (LgVal){LLVMBuildOr(B, a.v, b.v, ""), t};
    case OP_BXOR: return (LgVal){LLVMBuildXor(B, a.v, b.v, ""), t};
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
        static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
        static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
        static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
        int i = op - OP_EQ;
        LLVMValueRef r = fl ? LLVMBuildFCmp(B, fp[i], a.v, b.v, "") : LLVMBuildICmp(B, sg ? sp[i] : up[i], a.v, b.v, "");
        return (LgVal){r, LT_BOOL};
    }
    default: break;
    }
    die("operator %s in the LLVM emitter", op_spelling(op));
}

/* ---- calls ---- */

/* A libdevice function (__nv_expf, ...): declared here, linked in by
 * llvm_target.c. */
static LLVMValueRef libdevice(Lg *g, const char *name, LgType t, LLVMValueRef *args, int n) {
    LLVMTypeRef ty = lg_llvm_type(g, t), params[3] = {ty, ty, ty};
    LLVMTypeRef ft = LLVMFunctionType(ty, params, (unsigned)n, 0);
    LLVMValueRef f = LLVMGetNamedFunction(g->mod, name);
    if (!f) f = LLVMAddFunction(g->mod, name, ft);
    g->uses_libdevice = true;
    return LLVMBuildCall2(g->b, ft, f, args, (unsigned)n, "");
}

static LLVMValueRef exp2_approx(Lg *g, LLVMValueRef x) {
    /* tl_exp2: the hardware's ex2.approx (2 ulp), as the CUDA path has it */
    return lg_asm(g, g->f32, "ex2.approx.ftz.f32 %0, %1;", "=f,f", &x, 1, false);
}

static LgVal math_call(Lg *g, const char *f, const Node *e) {
    const NodeList *args = &e->u.call.args;
    bool dbl = e->dtype == DT_F64;
    LgType t = dbl ? LT_DOUBLE : LT_FLOAT;
    LLVMValueRef v[3];
    for (int i = 0; i < args->len && i < 3; i++) v[i] = lg_cast(g, lg_value(g, args->items[i], e->dtype), t).v;
    static const struct { const char *tile, *nv; } map[] = {
        {"exp", "exp"}, {"exp2", "exp2"}, {"log", "log"}, {"log2", "log2"}, {"sqrt", "sqrt"}, {"rsqrt", "rsqrt"},
        {"tanh", "tanh"}, {"erf", "erf"}, {"floor", "floor"}, {"ceil", "ceil"}, {"sin", "sin"}, {"cos", "cos"},
        {"pow", "pow"}, {"fma", "fma"}, {"min", "fmin"}, {"max", "fmax"}, {"abs", "fabs"},
    };
    if (!strcmp(f, "exp2") && !dbl) return (LgVal){exp2_approx(g, v[0]), t};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].tile, f)) {
            char name[32];
            snprintf(name, sizeof name, "__nv_%s%s", map[i].nv, dbl ? "" : "f");
            return (LgVal){libdevice(g, name, t, v, args->len), t};
        }
    lg_error(g, e->loc, "the llvm backend has no lowering for '%s'", f);
    return (LgVal){LLVMConstReal(lg_llvm_type(g, t), 0), t};
}

/* An f16 or bf16 result (arithmetic, a math function) is rounded to its
 * type where it is made, unless a store right after rounds it. */
static LgVal round_result(Lg *g, Dtype t, LgVal v, bool store_rounds) {
    return cg_narrow_float(t) && !store_rounds ? lg_rounded(g, t, v) : v;
}

static LgVal cast_call(Lg *g, const Node *e, bool store_rounds) {
    Dtype to = e->u.call.cast;
    const Node *arg = e->u.call.args.items[0];
    LgVal x = lg_expr(g, arg);
    if (cg_narrow_float(to) && store_rounds && arg->dtype != DT_F64) /* the store rounds it */
        return lg_cast(g, x, LT_FLOAT);
    if ((to == DT_F16 || to == DT_BF16) && arg->dtype == DT_F64) { /* rounded once, not through f32 */
        LLVMValueRef n = LLVMBuildFPTrunc(g->b, lg_cast(g, x, LT_DOUBLE).v, lg_storage_type(g, to), "");
        return (LgVal){LLVMBuildFPExt(g->b, n, g->f32, ""), LT_FLOAT};
    }
    if (cg_narrow_float(to)) return lg_rounded(g, to, lg_cast(g, x, LT_FLOAT));
    if (to == DT_BOOL) return (LgVal){lg_truth(g, x), LT_BOOL};
    if (dtype_bytes(to) < 4 && dtype_is_float(arg->dtype)) {
        /* truncates and saturates (NaN: 0) as __float2int_rz does */
        bool d = arg->dtype == DT_F64;
        LLVMTypeRef ov[2] = {g->i32, d ? g->f64 : g->f32};
        LLVMValueRef f = lg_cast(g, x, d ? LT_DOUBLE : LT_FLOAT).v;
        LLVMValueRef i = lg_intrinsic(g, "llvm.fptosi.sat", ov, 2, &f, 1);
        int64_t lo = dtype_is_signed(to) ? -(INT64_C(1) << (dtype_bytes(to) * 8 - 1)) : 0;
        int64_t hi = dtype_is_signed(to) ? (INT64_C(1) << (dtype_bytes(to) * 8 - 1)) - 1 : (INT64_C(1) << (dtype_bytes(to) * 8)) - 1;
        LLVMValueRef mm[2] = {i, LLVMConstInt(g->i32, (unsigned long long)lo, 1)};
        LLVMValueRef m = lg_intrinsic(g, "llvm.smax", &g->i32, 1, mm, 2);
        LLVMValueRef nn[2] = {m, LLVMConstInt(g->i32, (unsigned long long)hi, 1)};
        return (LgVal){lg_intrinsic(g, "llvm.smin", &g->i32, 1, nn, 2), LT_INT};
    }
    if (dtype_is_int(to) && dtype_bytes(to) < 4) /* wraps */
        return lg_cast(g, lg_cast(g, x, lg_storage_ctype(to)), LT_INT);
    return lg_cast(g, x, lg_compute_type(to));
}

static LgVal call(Lg *g, const Node *e, bool store_rounds) {
    if (!e->u.call.name) return cast_call(g, e, store_rounds);
    const NodeList *args = &e->u.call.args;
    const char *f = e->u.call.name->s;
    if (!strcmp(f, "rand") || !strcmp(f, "randn") || !strcmp(f, "randint")) { /* seed and offset as 64-bit unsigned */
        RandomKind kind = !strcmp(f, "randint") ? RANDOM_INT : !strcmp(f, "rand") ? RANDOM_UNIFORM : RANDOM_NORMAL;
        LgVal seed = lg_cast(g, lg_expr(g, args->items[0]), LT_LL), offset = lg_cast(g, lg_expr(g, args->items[1]), LT_LL);
        return (LgVal){lg_random_soft(g->b, g->mod, kind, seed.v, offset.v, true), kind == RANDOM_INT ? LT_UINT : LT_FLOAT};
    }
    if (!strcmp(f, "ceildiv")) { /* tl_ceildiv(long long a, long long b) */
        LgVal a = lg_cast(g, lg_expr(g, args->items[0]), LT_LL), b = lg_cast(g, lg_expr(g, args->items[1]), LT_LL);
        return lg_binary(g, OP_DIV, lg_binary(g, OP_SUB, lg_binary(g, OP_ADD, a, b), lg_cast(g, lg_int(g, 1), LT_LL)), b);
    }
    bool dbl = e->dtype == DT_F64;
    if (!strcmp(f, "sigmoid")) {
        LgType t = dbl ? LT_DOUBLE : LT_FLOAT;
        LLVMValueRef x = lg_cast(g, lg_value(g, args->items[0], e->dtype), t).v;
        LLVMValueRef neg = LLVMBuildFNeg(g->b, x, "");
        LLVMValueRef ex = libdevice(g, dbl ? "__nv_exp" : "__nv_expf", t, &neg, 1);
        LLVMValueRef one = LLVMConstReal(lg_llvm_type(g, t), 1.0);
        LLVMValueRef r = contract(LLVMBuildFDiv(g->b, one, contract(LLVMBuildFAdd(g->b, one, ex, "")), ""));
        return round_result(g, e->dtype, (LgVal){r, t}, store_rounds);
    }
    if (!dtype_is_float(e->dtype)) { /* integer min, max, abs: in long long */
        LgVal a = lg_cast(g, lg_expr(g, args->items[0]), LT_LL);
        if (!strcmp(f, "abs")) {
            LLVMValueRef ops[2] = {a.v, LLVMConstInt(g->i1, 0, 0)};
            return (LgVal){lg_intrinsic(g, "llvm.abs", &g->i64, 1, ops, 2), LT_LL};
        }
        LgVal b = lg_cast(g, lg_expr(g, args->items[1]), LT_LL);
        LLVMValueRef ops[2] = {a.v, b.v};
        return (LgVal){lg_intrinsic(g, !strcmp(f, "min") ? "llvm.smin" : "llvm.smax", &g->i64, 1, ops, 2), LT_LL};
    }
    return round_result(g, e->dtype, math_call(g, f, e), store_rounds);
}

/* ---- expressions ---- */

LgVal lg_expr(Lg *g, const Node *e) {
    bool store_rounds = g->store_rounds;
    g->store_rounds = false;
    if (e->is_const && e->kind != N_INDEX) return constant(g, e);
    const Node *decided = expr_decided(e);
    switch (e->kind) {
    case N_NAME:
        for (int i = g->nbind - 1; i >= 0; i--)
            if (g->bind_sym[i] == e->sym) {
                LgVal v = g->bind_val[i];
                if (g->bind_var[i]) v.v = LLVMBuildLoad2(g->b, lg_llvm_type(g, v.t), v.v, "");
                return v;
            }
        lg_error(g, e->loc, "the llvm backend has no value for '%s' here", e->sym->name->s);
        return lg_int(g, 0);
    case N_INDEX: {
        for (int i = 0; i < g->nlane; i++)
            if (g->lane_node[i] == e) {
                Dtype dt = ir_buf_of(g->k, e->sym)->dtype;
                return lg_from_storage(g, dt, LLVMBuildLoad2(g->b, lg_storage_type(g, dt), g->lane_ref[i], ""));
            }
        LLVMValueRef cond;
        Dtype dt;
        LLVMValueRef p = lg_element_ptr(g, e, &cond, &dt);
        if (cond) return lg_guarded_load(g, cond, p, dt);
        return lg_from_storage(g, dt, LLVMBuildLoad2(g->b, lg_storage_type(g, dt), p, ""));
    }
    case N_CALL: return call(g, e, store_rounds);
    case N_UNARY: {
        LgVal a = lg_expr(g, e->u.op.a);
        switch (e->u.op.op) {
        case OP_NEG:
            a = lg_cast(g, a, promoted(a.t));
            return (LgVal){lg_is_float(a.t) ? LLVMBuildFNeg(g->b, a.v, "") : LLVMBuildNeg(g->b, a.v, ""), a.t};
        case OP_NOT: return (LgVal){LLVMBuildNot(g->b, lg_truth(g, a), ""), LT_BOOL};
        case OP_BNOT: a = lg_cast(g, a, promoted(a.t)); return (LgVal){LLVMBuildNot(g->b, a.v, ""), a.t};
        default: break;
        }
        break;
    }
    case N_BINARY: {
        if (decided != e) return lg_expr(g, decided);
        AstOp op = e->u.op.op;
        if (op == OP_LAND || op == OP_LOR) return logical(g, op, e->u.op.a, e->u.op.b);
        bool arith = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV;
        bool compare = op >= OP_EQ && op <= OP_GE;
        /* the literal of `x * 0.1` or `x < 0.1` takes x's type */
        Dtype ctx = arith || compare ? dtype_join(e->u.op.a->dtype, e->u.op.b->dtype) : DT_NONE;
        LgVal a = lg_value(g, e->u.op.a, ctx), b = lg_value(g, e->u.op.b, ctx);
        LgVal r = lg_binary(g, op, a, b);
        return arith ? round_result(g, e->dtype, r, store_rounds) : r;
    }
    case N_COND: {
        if (decided != e && lg_compute_type(e->u.cond.a->dtype) == lg_compute_type(e->u.cond.b->dtype))
            return lg_value(g, decided, e->dtype);
        LLVMValueRef c = lg_truth(g, lg_value(g, e->u.cond.c, DT_NONE));
        return choose(g, c, e->u.cond.a, e->u.cond.b, e->dtype);
    }
    default: break;
    }
    lg_error(g, e->loc, "the llvm backend cannot generate code for this expression");
    return lg_int(g, 0);
}

/* ---- fragment layouts ---- */

void lg_frag_coords(Lg *g, const IrBuf *b, int64_t reg, LgVal *coords, LLVMValueRef *valid) {
    const Layout *l = &b->layout;
    LgVal warp = {g->warp, LT_INT}, lane = {g->lane, LT_INT}, tid = {g->tid, LT_INT};
    *valid = NULL;
    switch (l->kind) {
    case LAYOUT_ACC:
        /* mma.sync m16n8k16 accumulator: lane = 4 * g + t holds rows g and
         * g + 8, columns 2t and 2t + 1 of each 16x8 tile */
        coords[0] = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, warp, l->wn), l->wtm),
                              lg_binary(g, OP_ADD, lg_int(g, reg / (l->ni * 4) * 16 + (reg / 2 % 2) * 8), lg_binc(g, OP_DIV, lane, 4)));
        coords[1] = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_MOD, warp, l->wn), l->wtn),
                              lg_binary(g, OP_ADD, lg_int(g, reg / 4 % l->ni * 8 + reg % 2), lg_binc(g, OP_MUL, lg_binc(g, OP_MOD, lane, 4), 2)));
        return;
    case LAYOUT_ROW:
        coords[0] = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, warp, l->wn), l->wtm),
                              lg_binary(g, OP_ADD, lg_int(g, reg / 2 * 16 + reg % 2 * 8), lg_binc(g, OP_DIV, lane, 4)));
        return;
    case LAYOUT_BLOCKED: {
        int64_t total = buf_elems(b), t = g->k->threads;
        LgVal e = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, lg_binc(g, OP_ADD, tid, reg / l->vec * t), l->vec), lg_int(g, reg % l->vec));
        if (l->pitch) {
            /* rows padded to the pitch: the padding is no element */
            int64_t cols = b->shape[b->rank - 1];
            *valid = lg_binary(g, OP_LT, lg_binc(g, OP_MOD, e, l->pitch), lg_int(g, cols)).v;
            coords[b->rank - 1] = lg_binc(g, OP_MOD, e, l->pitch);
            LgVal row = lg_binc(g, OP_DIV, e, l->pitch);
            for (int d = b->rank - 2; d >= 0; d--) {
                int64_t inner = 1;
                for (int j = d + 1; j < b->rank - 1; j++) inner *= b->shape[j];
                coords[d] = d == 0 ? lg_binc(g, OP_DIV, row, inner) : lg_binc(g, OP_MOD, lg_binc(g, OP_DIV, row, inner), b->shape[d]);
            }
            return;
        }
        if (total % (t * l->vec) != 0) *valid = lg_binary(g, OP_LT, e, lg_int(g, total)).v;
        for (int d = b->rank - 1; d >= 0; d--) {
            int64_t inner = 1;
            for (int j = d + 1; j < b->rank; j++) inner *= b->shape[j];
            coords[d] = d == 0 ? lg_binc(g, OP_DIV, e, inner) : lg_binc(g, OP_MOD, lg_binc(g, OP_DIV, e, inner), b->shape[d]);
        }
        return;
    }
    default: {
        int64_t inner = 1;
        for (int d = b->rank - 1; d >= 0; d--) {
            coords[d] = lg_int(g, reg / inner % b->shape[d]);
            inner *= b->shape[d];
        }
        return;
    }
    }
}
