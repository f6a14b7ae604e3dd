/* llvm_copy.c - copy, fill and atomic_add for the LLVM backend, between
 * global, shared, fragment and local memory. lower_copy.c is the model:
 * cg_frag_copy_plan and cg_coop_copy_plan make its decisions for both
 * backends (chunks, vector widths, cp.async, the rows form), and every
 * coordinate, bounds test and conversion here is the one it prints, with
 * the C types it has there. Loops over a thread's registers are unrolled
 * while emitting (register indices are constants); the loops the CUDA
 * keeps stay loops. */
#include <stdio.h>

#include "llvm_codegen.h"

static LgVal tid_val(Lg *g) { return (LgVal){g->tid, LT_INT}; }
static LgVal add(Lg *g, LgVal a, LgVal b) { return lg_binary(g, OP_ADD, a, b); }
static LgVal as_ll(Lg *g, LgVal v) { return lg_cast(g, v, LT_LL); }

/* Where region r starts along dim d (an absent start is the literal 0). */
static LgVal start_of(Lg *g, const IrRegion *r, int d) { return r->idx[d] ? lg_expr(g, r->idx[d]) : lg_int(g, 0); }

/* a && b of two conditions, either of which may be NULL (none) */
static LLVMValueRef and_cond(Lg *g, LLVMValueRef a, LLVMValueRef b) {
    if (!a) return b;
    if (!b) return a;
    return LLVMBuildAnd(g->b, a, b, "");
}

static LLVMBasicBlockRef begin_if(Lg *g, LLVMValueRef cond) { return cond ? lg_begin_if(g, cond) : NULL; }
static void end_if(Lg *g, LLVMBasicBlockRef after) {
    if (after) lg_end_if(g, after);
}

static LLVMValueRef load(Lg *g, Dtype t, LLVMValueRef ptr) { return LLVMBuildLoad2(g->b, lg_storage_type(g, t), ptr, ""); }
static LLVMValueRef reg_ptr(Lg *g, const IrBuf *f, int64_t reg) {
    return lg_frag_reg_ptr(g, f, LLVMConstInt(g->i64, (unsigned long long)reg, 0));
}

/* A stored element of type `from` stored as type `to` (cg_convert_elem):
 * its bits where the types agree, else through the compute type. */
static LLVMValueRef convert_elem(Lg *g, Dtype to, Dtype from, LLVMValueRef stored) {
    if (to == from) return stored;
    return lg_to_storage(g, to, lg_from_storage(g, from, stored));
}

/* The integer type of a vector access of 2-16 bytes (cg_vector_type:
 * unsigned short, unsigned, uint2, uint4). */
static LLVMTypeRef vector_type(Lg *g, int bytes) {
    return bytes == 16 ? LLVMVectorType(g->i32, 4) : bytes == 8 ? LLVMVectorType(g->i32, 2) : bytes == 4 ? g->i32 : g->i16;
}

/* `bytes` bytes at ptr as one aligned vector load where cond holds (NULL:
 * always), zeros otherwise. */
static LLVMValueRef vector_load(Lg *g, LLVMValueRef cond, LLVMValueRef ptr, int bytes) {
    LLVMTypeRef vt = vector_type(g, bytes);
    if (!cond) {
        LLVMValueRef ld = LLVMBuildLoad2(g->b, vt, ptr, "");
        LLVMSetAlignment(ld, (unsigned)bytes);
        return ld;
    }
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b), in = lg_block(g, "vload"), join = lg_block(g, "vloaded");
    LLVMBuildCondBr(g->b, cond, in, join);
    LLVMPositionBuilderAtEnd(g->b, in);
    LLVMValueRef ld = LLVMBuildLoad2(g->b, vt, ptr, "");
    LLVMSetAlignment(ld, (unsigned)bytes);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, vt, "");
    LLVMValueRef vals[2] = {LLVMConstNull(vt), ld};
    LLVMBasicBlockRef blocks[2] = {from, in};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
}

/* The vec lanes (of storage type et) of `bits`, a vector access of
 * vector_type(bytes), and back. Lanes of one byte are shifted out of (and
 * into) its integer words: LLVM 19's NVPTX backend splits an access of
 * more than four i8 lanes into 4-byte ones, while the words stay one
 * access (the CUDA's union of uint2 or uint4 and bytes). */
static void unpack_lanes(Lg *g, LLVMValueRef bits, int bytes, LLVMTypeRef et, int vec, LLVMValueRef *lane) {
    if (bytes / vec > 1) {
        LLVMValueRef v = LLVMBuildBitCast(g->b, bits, LLVMVectorType(et, (unsigned)vec), "");
        for (int u = 0; u < vec; u++) lane[u] = LLVMBuildExtractElement(g->b, v, LLVMConstInt(g->i32, (unsigned)u, 0), "");
        return;
    }
    for (int u = 0; u < vec; u++) {
        LLVMValueRef word = bytes > 4 ? LLVMBuildExtractElement(g->b, bits, LLVMConstInt(g->i32, (unsigned)(u / 4), 0), "") : bits;
        LLVMValueRef shifted = LLVMBuildLShr(g->b, word, LLVMConstInt(LLVMTypeOf(word), (unsigned)(u % 4 * 8), 0), "");
        lane[u] = LLVMBuildTrunc(g->b, shifted, et, "");
    }
}

static LLVMValueRef pack_lanes(Lg *g, LLVMValueRef *lane, int bytes, LLVMTypeRef et, int vec) {
    LLVMTypeRef vt = vector_type(g, bytes);
    if (bytes / vec > 1) {
        LLVMValueRef v = LLVMGetPoison(LLVMVectorType(et, (unsigned)vec));
        for (int u = 0; u < vec; u++) v = LLVMBuildInsertElement(g->b, v, lane[u], LLVMConstInt(g->i32, (unsigned)u, 0), "");
        return LLVMBuildBitCast(g->b, v, vt, "");
    }
    LLVMTypeRef wt = bytes > 4 ? g->i32 : vt;
    LLVMValueRef bits = LLVMGetPoison(vt), word = NULL;
    for (int u = 0; u < vec; u++) {
        LLVMValueRef b = LLVMBuildShl(g->b, LLVMBuildZExt(g->b, lane[u], wt, ""), LLVMConstInt(wt, (unsigned)(u % 4 * 8), 0), "");
        word = u % 4 ? LLVMBuildOr(g->b, word, b, "") : b;
        if (u % 4 == 3 || u == vec - 1)
            bits = bytes > 4 ? LLVMBuildInsertElement(g->b, bits, word, LLVMConstInt(g->i32, (unsigned)(u / 4), 0), "") : word;
    }
    return bits;
}

static void vector_store(Lg *g, LLVMValueRef cond, LLVMValueRef bits, LLVMValueRef ptr, int bytes) {
    LLVMBasicBlockRef after = begin_if(g, cond);
    LLVMSetAlignment(LLVMBuildStore(g->b, bits, ptr), (unsigned)bytes);
    end_if(g, after);
}

/* ---- regions ---- */

/* Coordinates in r's buffer of the element at linear position `lin` of the
 * region (row-major over the region's extents). */
static void region_coords(Lg *g, const IrRegion *r, LgVal lin, LgVal *coords) {
    int64_t inner = 1;
    for (int d = r->buf->rank - 1; d >= 0; d--) {
        LgVal start = start_of(g, r, d);
        if (r->ext[d] == 1) coords[d] = start;
        else if (inner == 1 && d == 0) coords[d] = add(g, start, lin);
        else if (d == 0) coords[d] = add(g, start, lg_binc(g, OP_DIV, lin, inner));
        else coords[d] = add(g, start, lg_binc(g, OP_MOD, lg_binc(g, OP_DIV, lin, inner), r->ext[d]));
        inner *= r->ext[d];
    }
}

/* Coordinates in r's buffer of the tile element whose coordinates in a
 * fragment tile of `rank` dims and extents `shape` are fc: direct when r's
 * extents are that shape (possibly with leading 1s), through the linear
 * index otherwise. */
static void coords_from_frag(Lg *g, const IrRegion *r, int rank, const int64_t *shape, LgVal *fc, LgVal *coords) {
    int lead = region_lead(r, rank, shape);
    if (lead >= 0) {
        for (int d = 0; d < r->buf->rank; d++) coords[d] = d < lead ? start_of(g, r, d) : add(g, start_of(g, r, d), fc[d - lead]);
        return;
    }
    LgVal lin = fc[0];
    for (int d = 1; d < rank; d++) lin = add(g, lg_binc(g, OP_MUL, lin, shape[d]), fc[d]);
    region_coords(g, r, lin, coords);
}

/* For a part fr of a fragment: the coordinates fc of a register in the
 * whole fragment made relative to the part (in place), and the condition
 * that the register lies in it (NULL for the whole fragment). */
static LLVMValueRef frag_part(Lg *g, const IrRegion *fr, LgVal *fc) {
    LLVMValueRef in = NULL;
    for (int d = 0; d < fr->buf->rank; d++) {
        if (expr_is_zero(fr->idx[d]) && fr->ext[d] == fr->buf->shape[d]) continue;
        fc[d] = lg_binary(g, OP_SUB, fc[d], start_of(g, fr, d));
        /* (unsigned)x < ext: one compare tests 0 <= x < ext */
        LgVal ext = {lg_const_int(g, LT_UINT, fr->ext[d]), LT_UINT};
        in = and_cond(g, in, lg_binary(g, OP_LT, lg_cast(g, fc[d], LT_UINT), ext).v);
    }
    return in;
}

/* The pointer to an element of a non-fragment region; *cond: its bounds
 * test (global), NULL otherwise. */
/* Row `rel` of a gather region: the tensor row element rel of its index
 * buffer names (shared or local), as lower_copy.c's gathered_row. */
static LgVal gathered_row(Lg *g, const IrBuf *rows, LgVal rel) {
    LLVMTypeRef et = lg_storage_type(g, rows->dtype);
    LLVMValueRef ptr = rows->scope == SCOPE_SHARED
                           ? lg_gep(g, et, lg_buf_base(g, rows), as_ll(g, lg_shared_offset(g, rows, &rel, NULL)).v)
                           : lg_frag_reg_ptr(g, rows, as_ll(g, rel).v);
    return as_ll(g, lg_from_storage(g, rows->dtype, LLVMBuildLoad2(g->b, et, ptr, "")));
}

static LLVMValueRef region_ptr(Lg *g, const IrRegion *r, LgVal *coords, LLVMValueRef *cond) {
    const IrBuf *b = r->buf;
    LLVMTypeRef et = lg_storage_type(g, b->dtype);
    *cond = NULL;
    if (r->gather) coords[0] = gathered_row(g, r->gather, coords[0]); /* the region's row: its start is 0 */
    if (b->scope == SCOPE_GLOBAL) {
        *cond = lg_global_inbounds(g, b, coords);
        return lg_gep(g, et, lg_buf_base(g, b), lg_global_offset(g, b, coords));
    }
    if (b->scope == SCOPE_SHARED) return lg_gep(g, et, lg_buf_base(g, b), as_ll(g, lg_shared_offset(g, b, coords, NULL)).v);
    LgVal lin = coords[0];
    for (int d = 1; d < b->rank; d++) lin = add(g, lg_binc(g, OP_MUL, lin, b->shape[d]), coords[d]);
    return lg_frag_reg_ptr(g, b, as_ll(g, lin).v);
}

/* ---- copies with a fragment on one side ---- */

/* The row-major index of fragment b's element at coords (cg_frag_linear). */
static LgVal frag_linear(Lg *g, const IrBuf *b, LgVal *coords) {
    LgVal lin = b->rank ? coords[0] : lg_int(g, 0);
    for (int d = 1; d < b->rank; d++) lin = add(g, lg_binc(g, OP_MUL, lin, b->shape[d]), coords[d]);
    return lin;
}

/* A whole fragment into one laid out otherwise: the elements go to the
 * shared scratch, row-major, in the source's type, each written by one of
 * the threads that hold it; then every thread reads the destination's. */
static void copy_relayout(Lg *g, IrStmt *s) {
    const IrBuf *a = s->src.buf, *b = s->dst.buf;
    LLVMTypeRef at = lg_storage_type(g, a->dtype);
    LLVMValueRef area = lg_gep(g, g->i8, g->smem, LLVMConstInt(g->i64, (unsigned long long)g->k->scratch_offset, 0));
    for (int64_t r = 0; r < a->layout.regs; r++) {
        LgVal ac[MAX_RANK];
        LLVMValueRef valid;
        lg_frag_coords(g, a, r, ac, &valid);
        LLVMBasicBlockRef after = begin_if(g, and_cond(g, valid, lg_element_owner(g, a, r)));
        LLVMBuildStore(g->b, load(g, a->dtype, reg_ptr(g, a, r)), lg_gep(g, at, area, as_ll(g, frag_linear(g, a, ac)).v));
        end_if(g, after);
    }
    lg_sync(g);
    for (int64_t q = 0; q < b->layout.regs; q++) {
        LgVal bc[MAX_RANK];
        LLVMValueRef valid;
        lg_frag_coords(g, b, q, bc, &valid);
        LLVMBasicBlockRef after = begin_if(g, valid);
        LLVMValueRef v = load(g, a->dtype, lg_gep(g, at, area, as_ll(g, frag_linear(g, b, bc)).v));
        LLVMBuildStore(g->b, convert_elem(g, b->dtype, a->dtype, v), reg_ptr(g, b, q));
        end_if(g, after);
    }
    lg_sync(g); /* the scratch is free again */
}

static void copy_frag_frag(Lg *g, IrStmt *s) {
    const IrBuf *a = s->src.buf, *b = s->dst.buf;
    /* register i of one holds element i of the other only whole: a part
     * of either is staged through shared memory (stage_operands) */
    if (!region_is_whole(&s->src) || !region_is_whole(&s->dst)) {
        lg_error(g, s->loc, "compiler bug: a copy between parts of fragments ('%s' to '%s') was not staged",
                 a->sym->name->s, b->sym->name->s);
        return;
    }
    if (copy_relayouts(s)) {
        copy_relayout(g, s);
        return;
    }
    for (int64_t r = 0; r < a->layout.regs; r++)
        LLVMBuildStore(g->b, convert_elem(g, b->dtype, a->dtype, load(g, a->dtype, reg_ptr(g, a, r))), reg_ptr(g, b, r));
}

/* Registers reg .. reg + vec - 1 of fragment f as one vector access of
 * the other side o (vec > 1: global or shared, aligned). */
static void frag_vector(Lg *g, IrStmt *s, bool frag_is_src, int64_t reg, int vec) {
    const IrBuf *f = frag_is_src ? s->src.buf : s->dst.buf;
    const IrRegion *o = frag_is_src ? &s->dst : &s->src;
    Dtype ot = o->buf->dtype;
    LgVal fc[MAX_RANK], coords[MAX_RANK];
    LLVMValueRef valid, cond;
    lg_frag_coords(g, f, reg, fc, &valid);
    coords_from_frag(g, o, f->rank, f->shape, fc, coords);
    LLVMValueRef ptr = region_ptr(g, o, coords, &cond);
    cond = and_cond(g, valid, cond);
    int bytes = vec * dtype_bytes(ot);
    LLVMTypeRef et = lg_storage_type(g, ot);
    LLVMValueRef lane[16];
    if (frag_is_src) {
        cond = and_cond(g, lg_element_owner(g, f, reg), cond);
        for (int u = 0; u < vec; u++) lane[u] = convert_elem(g, ot, f->dtype, load(g, f->dtype, reg_ptr(g, f, reg + u)));
        vector_store(g, cond, pack_lanes(g, lane, bytes, et, vec), ptr, bytes);
        return;
    }
    unpack_lanes(g, vector_load(g, cond, ptr, bytes), bytes, et, vec, lane);
    for (int u = 0; u < vec; u++) LLVMBuildStore(g->b, convert_elem(g, f->dtype, ot, lane[u]), reg_ptr(g, f, reg + u));
}

/* Register reg of fragment f and its element of the other side o, alone
 * (of a part of f: where the register lies in the part). */
static void frag_element(Lg *g, IrStmt *s, bool frag_is_src, int64_t reg, bool part) {
    const IrBuf *f = frag_is_src ? s->src.buf : s->dst.buf;
    const IrRegion *fr = frag_is_src ? &s->src : &s->dst, *o = frag_is_src ? &s->dst : &s->src;
    LgVal fc[MAX_RANK], coords[MAX_RANK];
    LLVMValueRef valid, cond;
    lg_frag_coords(g, f, reg, fc, &valid);
    LLVMValueRef in = part ? frag_part(g, fr, fc) : NULL;
    coords_from_frag(g, o, f->rank, fr->ext, fc, coords);
    LLVMValueRef ptr = region_ptr(g, o, coords, &cond);
    cond = and_cond(g, valid, cond);
    if (frag_is_src) {
        cond = and_cond(g, in, and_cond(g, lg_element_owner(g, f, reg), cond));
        LLVMBasicBlockRef after = begin_if(g, cond);
        LLVMBuildStore(g->b, convert_elem(g, o->buf->dtype, f->dtype, load(g, f->dtype, reg_ptr(g, f, reg))), ptr);
        end_if(g, after);
        return;
    }
    /* registers outside the part keep their values; elements outside the
     * tensor are 0, in the compute type */
    LLVMBasicBlockRef after = begin_if(g, in);
    LgVal v = cond ? lg_guarded_load(g, cond, ptr, o->buf->dtype) : lg_from_storage(g, o->buf->dtype, load(g, o->buf->dtype, ptr));
    LLVMBuildStore(g->b, lg_to_storage(g, f->dtype, v), reg_ptr(g, f, reg));
    end_if(g, after);
}

static void copy_with_frag(Lg *g, IrStmt *s, bool frag_is_src) {
    CgFragCopyPlan p;
    cg_frag_copy_plan(s, frag_is_src, &p);
    for (int64_t q = 0; q < p.groups && !g->failed; q++)
        for (int start = 0; start < p.group; start += p.vec) {
            int64_t reg = q * p.group + start;
            if (p.vec > 1) frag_vector(g, s, frag_is_src, reg, p.vec);
            else frag_element(g, s, frag_is_src, reg, p.part);
        }
}

/* ---- copies without fragments: the block deals out chunks ---- */

/* cp.async of `bytes` (16, 8 or 4) from global memory to shared memory
 * (tl_cp_async16 ..), 16 bypassing L1 (.cg; the smaller ones must use
 * .ca). Its shared operand is a 32-bit .shared address: the
 * shared window is far below 4 GiB, and a 64-bit addrspace(3) pointer
 * handed to an "r" operand would be truncated silently, so it is
 * truncated here, visibly. With a source size of 0 (cond false) nothing
 * is read and the chunk becomes zeros; the source address is then the
 * tensor's base, a valid one. */
void lg_cp_async(Lg *g, int bytes, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef base, LLVMValueRef cond) {
    LLVMValueRef saddr = lg_shared_addr(g, dst);
    const char *level = bytes == 16 ? "cg" : "ca";
    char text[64];
    if (!cond) {
        LLVMValueRef args[2] = {saddr, LLVMBuildPtrToInt(g->b, src, g->i64, "")};
        snprintf(text, sizeof text, "cp.async.%s.shared.global [%%0], [%%1], %d;", level, bytes);
        lg_asm(g, NULL, text, "r,l,~{memory}", args, 2, true);
        return;
    }
    LLVMValueRef from = LLVMBuildSelect(g->b, cond, src, base, "");
    LLVMValueRef size = LLVMBuildSelect(g->b, cond, LLVMConstInt(g->i32, (unsigned long long)bytes, 0),
                                        LLVMConstInt(g->i32, 0, 0), "");
    LLVMValueRef args[3] = {saddr, LLVMBuildPtrToInt(g->b, from, g->i64, ""), size};
    snprintf(text, sizeof text, "cp.async.%s.shared.global [%%0], [%%1], %d, %%2;", level, bytes);
    lg_asm(g, NULL, text, "r,l,r,~{memory}", args, 3, true);
}

void lg_cp_async_commit(Lg *g) { lg_asm(g, NULL, "cp.async.commit_group;", "~{memory}", NULL, 0, true); }

void lg_cp_async_wait(Lg *g, int pending) {
    char text[48];
    snprintf(text, sizeof text, "cp.async.wait_group %d;", pending); /* an immediate */
    lg_asm(g, NULL, text, "~{memory}", NULL, 0, true);
}

/* One round q of a cooperative copy: this thread's chunk. loop: the
 * round's loop (the break of a last partial round leaves it), NULL where
 * the rounds are unrolled here. tid: the thread index (lg_rounds_tid); tr,
 * tc: the thread's first row and its column in the rows form. */
static void copy_round(Lg *g, IrStmt *s, const CgCoopCopyPlan *p, LgVal q, LgLoop *loop, LgVal tid, LgVal tr,
                       LgVal tc) {
    const IrRegion *src = &s->src, *dst = &s->dst;
    /* the chunk's first element: (tid + (long long)q * t) * vec */
    LgVal l = p->local ? lg_binc(g, OP_MUL, as_ll(g, q), p->vec)
                       : lg_binc(g, OP_MUL, add(g, tid, lg_binc(g, OP_MUL, as_ll(g, q), p->t)), p->vec);
    if (!p->local && p->chunks % p->t) { /* if (l >= total) break; */
        LLVMValueRef in = lg_binary(g, OP_LT, l, as_ll(g, lg_int(g, p->total))).v;
        LLVMBasicBlockRef go = lg_block(g, "chunk");
        LLVMBuildCondBr(g->b, in, go, loop->exit);
        LLVMPositionBuilderAtEnd(g->b, go);
    }
    const IrRegion *sides[2] = {src, dst};
    LLVMValueRef ptr[2], cond[2];
    for (int side = 0; side < 2; side++) {
        const IrRegion *r = sides[side];
        int rk = r->buf->rank;
        LgVal c[MAX_RANK];
        if (!p->rows_form) {
            region_coords(g, r, l, c);
        } else {
            for (int d = 0; d < rk; d++) {
                LgVal start = start_of(g, r, d);
                c[d] = d < rk - 2    ? start
                       : d == rk - 2 ? add(g, add(g, start, tr), lg_binc(g, OP_MUL, q, p->rpr))
                                     : add(g, start, tc);
            }
        }
        if (p->xor_first_row[side]) {
            cond[side] = NULL;
            LLVMTypeRef et = lg_storage_type(g, r->buf->dtype);
            ptr[side] = lg_gep(g, et, lg_buf_base(g, r->buf), as_ll(g, lg_shared_offset(g, r->buf, c, &tr)).v);
        } else {
            ptr[side] = region_ptr(g, r, c, &cond[side]);
        }
    }
    if (p->async) {
        lg_cp_async(g, p->vec * dtype_bytes(src->buf->dtype), ptr[1], ptr[0], lg_buf_base(g, src->buf), cond[0]);
    } else if (p->vec > 1) {
        int bytes = p->vec * dtype_bytes(src->buf->dtype);
        vector_store(g, cond[1], vector_load(g, cond[0], ptr[0], bytes), ptr[1], bytes);
    } else {
        LLVMBasicBlockRef after = begin_if(g, cond[1]);
        Dtype sd = src->buf->dtype, dd = dst->buf->dtype;
        LLVMValueRef val = cond[0] ? lg_to_storage(g, dd, lg_guarded_load(g, cond[0], ptr[0], sd)) /* 0 past the edge */
                                   : convert_elem(g, dd, sd, load(g, sd, ptr[0]));
        LLVMBuildStore(g->b, val, ptr[1]);
        end_if(g, after);
    }
}

static void copy_cooperative(Lg *g, IrStmt *s) {
    CgCoopCopyPlan p;
    cg_coop_copy_plan(g->k, s, &p);
    if (s->mech == COPY_RING_ASYNC && !p.async) {
        lg_error(g, s->loc, "compiler bug: a copy the producer issues as cp.async has chunks of %d bytes",
                 p.vec * dtype_bytes(s->src.buf->dtype));
        return;
    }
    LgVal tid = {lg_rounds_tid(g, p.rounds), LT_INT}, tr = lg_int(g, 0), tc = lg_int(g, 0);
    if (p.rows_form) {
        LgVal first = lg_binc(g, OP_MUL, tid, p.vec);
        tr = lg_binc(g, OP_DIV, first, p.C);
        tc = lg_binc(g, OP_MOD, first, p.C);
    }
    if (p.local && p.rounds <= 64) {
        /* a local buffer's index is the round: unrolled here, as the
         * CUDA's #pragma unroll does, so it is a constant */
        for (int64_t q = 0; q < p.rounds && !g->failed; q++) copy_round(g, s, &p, lg_int(g, q), NULL, tid, tr, tc);
        return;
    }
    LgLoop l;
    lg_loop_begin(g, &l, lg_int(g, 0), lg_int(g, p.rounds), lg_int(g, 1), false, "q");
    copy_round(g, s, &p, l.var, &l, tid, tr, tc);
    if (p.unroll == 0) {
        lg_loop_end_unrolled(g, &l);
    } else {
        lg_loop_end(g, &l);
        if (p.unroll > 1) lg_loop_hint(g, &l, "llvm.loop.unroll.count", p.unroll);
    }
}

void lg_copy(Lg *g, IrStmt *s) {
    if (s->mech == COPY_TMA) { /* the producer warpgroup issued it */
        lg_hopper_preload_wait(g);
        return;
    }
    if (s->mech == COPY_TMA_STORE) {
        lg_hopper_tma_store(g, s);
        return;
    }
    if (s->mech == COPY_RING_INDEX && !g->in_producer) return; /* the producer's (lg_hopper_split) */
    bool fs = s->src.buf->scope == SCOPE_FRAGMENT, fd = s->dst.buf->scope == SCOPE_FRAGMENT;
    if (fs && fd) copy_frag_frag(g, s);
    else if (fs || fd) copy_with_frag(g, s, fs); /* local -> fragment too (fragment -> local was staged) */
    else copy_cooperative(g, s);
}

/* ---- fill ---- */

/* for (long long l = first; l < total; l += t): the loop over a region's
 * elements dealt to the threads (t of them, from tid) or walked by one
 * (t = 1, from 0). */
static void deal_elements(Lg *g, LgLoop *l, int64_t total, int64_t t) {
    LgVal first = t == 1 ? lg_int(g, 0) : tid_val(g);
    lg_loop_begin(g, l, as_ll(g, first), lg_int(g, total), lg_int(g, t), false, "l");
}

void lg_fill(Lg *g, IrStmt *s) {
    const IrBuf *b = s->dst.buf;
    LgVal value = s->value ? lg_value(g, s->value, b->dtype) : lg_int(g, 0);
    if (b->scope == SCOPE_FRAGMENT) {
        LLVMValueRef v = lg_to_storage(g, b->dtype, value);
        for (int64_t r = 0; r < b->layout.regs; r++) LLVMBuildStore(g->b, v, reg_ptr(g, b, r));
        return;
    }
    LgLoop l;
    deal_elements(g, &l, cg_region_total(&s->dst), b->scope == SCOPE_LOCAL ? 1 : g->k->threads);
    LgVal coords[MAX_RANK];
    LLVMValueRef cond;
    region_coords(g, &s->dst, l.var, coords);
    LLVMValueRef ptr = region_ptr(g, &s->dst, coords, &cond);
    LLVMBasicBlockRef after = begin_if(g, cond);
    LLVMBuildStore(g->b, lg_to_storage(g, b->dtype, value), ptr);
    end_if(g, after);
    lg_loop_end(g, &l);
}

/* ---- atomic_add ---- */

/* tl_atomic_add(ptr, v), its result unused: a relaxed atomic add (the
 * 8- and 16-bit integer adds, which the hardware lacks, LLVM expands into
 * a compare-and-swap loop on their 32-bit word, as tl_atomic_add_narrow
 * does). v is in t's storage type. */
static void atomic_add(Lg *g, Loc loc, Dtype t, LLVMValueRef ptr, LLVMValueRef v) {
    LLVMAtomicRMWBinOp op;
    switch (t) {
    case DT_F16: case DT_BF16: case DT_F32: case DT_F64: op = LLVMAtomicRMWBinOpFAdd; break;
    case DT_I8: case DT_U8: case DT_I16: case DT_U16: case DT_I32: case DT_U32: case DT_I64: case DT_U64:
        op = LLVMAtomicRMWBinOpAdd;
        break;
    default: lg_error(g, loc, "the llvm backend has no atomic add of %s", dtype_name(t)); return;
    }
    LLVMBuildAtomicRMW(g->b, op, ptr, v, LLVMAtomicOrderingMonotonic, 0);
}

void lg_atomic_add(Lg *g, IrStmt *s) {
    if (s->mech == COPY_TMA_STORE) { /* a TMA reduction (plan_store) */
        lg_hopper_tma_store(g, s);
        return;
    }
    const IrBuf *d = s->dst.buf;
    LgVal coords[MAX_RANK], fc[MAX_RANK];
    LLVMValueRef cond, valid;
    if (s->value) { /* one value into one element */
        for (int i = 0; i < d->rank; i++) coords[i] = start_of(g, &s->dst, i);
        LLVMValueRef ptr = region_ptr(g, &s->dst, coords, &cond);
        LLVMBasicBlockRef after = begin_if(g, and_cond(g, g->owner, cond)); /* one add an iteration */
        atomic_add(g, s->loc, d->dtype, ptr, lg_to_storage(g, d->dtype, lg_value(g, s->value, d->dtype)));
        end_if(g, after);
        return;
    }
    const IrBuf *f = s->src.buf;
    if (f->scope == SCOPE_FRAGMENT) {
        for (int64_t r = 0; r < f->layout.regs && !g->failed; r++) {
            lg_frag_coords(g, f, r, fc, &valid);
            /* every thread holds every element of a replicated fragment:
             * they are dealt out, element r to thread r % threads (the
             * CUDA's loop from tid in steps of the block, unrolled here so
             * the register index is a constant), or each would be added
             * once per thread; rows repeat over a quad's lanes and the
             * warps of a row band: the first lane of the quad in the
             * band's first warp adds */
            if (f->layout.kind == LAYOUT_REPLICATED || f->layout.kind == LAYOUT_ROW) valid = lg_element_owner(g, f, r);
            coords_from_frag(g, &s->dst, f->rank, f->shape, fc, coords);
            LLVMValueRef ptr = region_ptr(g, &s->dst, coords, &cond);
            LLVMBasicBlockRef after = begin_if(g, and_cond(g, valid, cond));
            LgVal v = lg_from_storage(g, f->dtype, load(g, f->dtype, reg_ptr(g, f, r)));
            atomic_add(g, s->loc, d->dtype, ptr, lg_to_storage(g, d->dtype, v));
            end_if(g, after);
        }
        return;
    }
    LgLoop l;
    deal_elements(g, &l, cg_region_total(&s->src), f->scope == SCOPE_LOCAL ? 1 : g->k->threads);
    LgVal sc[MAX_RANK];
    LLVMValueRef scond;
    region_coords(g, &s->src, l.var, sc);
    region_coords(g, &s->dst, l.var, coords);
    LLVMValueRef sptr = region_ptr(g, &s->src, sc, &scond);
    LLVMValueRef dptr = region_ptr(g, &s->dst, coords, &cond);
    LLVMBasicBlockRef after = begin_if(g, cond);
    LgVal v = lg_from_storage(g, f->dtype, load(g, f->dtype, sptr));
    atomic_add(g, s->loc, d->dtype, dptr, lg_to_storage(g, d->dtype, v));
    end_if(g, after);
    lg_loop_end(g, &l);
}
