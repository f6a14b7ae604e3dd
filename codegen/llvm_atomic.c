/* llvm_atomic.c - atomics on one element that return the old value
 * (IR_ATOMIC) for the LLVM backend, as lower_atomic.c prints them: each
 * iteration of a parallel loop its own, outside one the block's one by
 * thread 0 through a shared slot; integer maxima, minima, exchanges and
 * adds as atomicrmw, compare-and-swap as cmpxchg, float maxima and minima
 * as the same compare-and-swap loop as tl_atomic_extreme's (it stops
 * where the stored value needs no change). Relaxed ordering, as CUDA's
 * atomics are. */
#include "llvm_codegen.h"

/* A float maximum or minimum by compare-and-swap on its bits. */
static LLVMValueRef extreme(Lg *g, bool max, Dtype t, LLVMValueRef ptr, LLVMValueRef v) {
    LLVMBuilderRef b = g->b;
    bool dbl = t == DT_F64;
    LLVMTypeRef ft = dbl ? g->f64 : g->f32, it = dbl ? g->i64 : g->i32;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b), head = lg_block(g, "extreme"), swap = lg_block(g, "swap"),
                      done = lg_block(g, "extreme_done");
    LLVMValueRef first = LLVMBuildLoad2(b, it, ptr, "");
    LLVMSetVolatile(first, true);
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef old = LLVMBuildPhi(b, it, "old");
    LLVMAddIncoming(old, &first, &pre, 1);
    LLVMValueRef cur = LLVMBuildBitCast(b, old, ft, "");
    /* already there where v is not beyond it (NaN in v changes nothing) */
    LLVMValueRef beyond = LLVMBuildFCmp(b, max ? LLVMRealOGT : LLVMRealOLT, v, cur, "");
    LLVMBuildCondBr(b, beyond, swap, done);
    LLVMPositionBuilderAtEnd(b, swap);
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, ptr, old, LLVMBuildBitCast(b, v, it, ""), LLVMAtomicOrderingMonotonic,
                                               LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef seen = LLVMBuildExtractValue(b, pair, 0, ""), won = LLVMBuildExtractValue(b, pair, 1, "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMAddIncoming(old, &seen, &from, 1);
    LLVMBuildCondBr(b, won, done, head);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef result = LLVMBuildPhi(b, it, "");
    LLVMValueRef ins[2] = {old, seen};
    LLVMBasicBlockRef blocks[2] = {head, from};
    LLVMAddIncoming(result, ins, blocks, 2);
    return LLVMBuildBitCast(b, result, ft, "");
}

/* The atomic on ptr, its old value (in storage type). */
static LLVMValueRef atomic(Lg *g, const IrStmt *s, Dtype t, LLVMValueRef ptr) {
    LLVMValueRef v = lg_to_storage(g, t, lg_value(g, s->value, t));
    bool flt = t == DT_F32 || t == DT_F64, uns = t == DT_U32 || t == DT_U64;
    switch (s->atomic) {
    case ATOMIC_ADD_OLD: return lg_atomic(g, flt ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd, ptr, v);
    case ATOMIC_MAX:
        return flt ? extreme(g, true, t, ptr, v) : lg_atomic(g, uns ? LLVMAtomicRMWBinOpUMax : LLVMAtomicRMWBinOpMax, ptr, v);
    case ATOMIC_MIN:
        return flt ? extreme(g, false, t, ptr, v) : lg_atomic(g, uns ? LLVMAtomicRMWBinOpUMin : LLVMAtomicRMWBinOpMin, ptr, v);
    case ATOMIC_EXCH: return lg_atomic(g, LLVMAtomicRMWBinOpXchg, ptr, v);
    case ATOMIC_CAS: {
        LLVMValueRef c = lg_to_storage(g, t, lg_value(g, s->compare, t));
        LLVMValueRef pair = LLVMBuildAtomicCmpXchg(g->b, ptr, c, v, LLVMAtomicOrderingMonotonic,
                                                   LLVMAtomicOrderingMonotonic, 0);
        return LLVMBuildExtractValue(g->b, pair, 0, "");
    }
    }
    return v;
}

/* In the current block: where cond holds (NULL: always) the atomic's old
 * value, else 0, stored into slot (NULL: not kept). */
static void atomic_into(Lg *g, const IrStmt *s, LLVMValueRef cond, LLVMValueRef slot) {
    Dtype t;
    LLVMValueRef in;
    LLVMValueRef ptr = lg_element_ptr(g, s->target, &in, &t);
    LLVMTypeRef st = lg_storage_type(g, t);
    if (slot) LLVMBuildStore(g->b, LLVMConstNull(st), slot);
    cond = !cond ? in : !in ? cond : LLVMBuildAnd(g->b, cond, in, "");
    LLVMBasicBlockRef after = cond ? lg_begin_if(g, cond) : NULL;
    LLVMValueRef old = atomic(g, s, t, ptr);
    if (slot) LLVMBuildStore(g->b, old, slot);
    if (after) lg_end_if(g, after);
}

void lg_atomic_value(Lg *g, IrStmt *s) {
    const char *why = cg_atomic_check(s, g->par && g->owner);
    if (why) {
        lg_error(g, s->loc, "%s", why);
        return;
    }
    Dtype t = s->target->sym->dtype;
    LLVMTypeRef st = lg_storage_type(g, t);
    if (g->par) { /* each iteration its own; the owner where several threads hold one */
        LLVMValueRef slot = s->sym ? lg_entry_alloca(g, st, "old") : NULL;
        atomic_into(g, s, g->owner, slot);
        if (s->sym) lg_bind(g, s->sym, lg_from_storage(g, t, LLVMBuildLoad2(g->b, st, slot, "")));
        return;
    }
    LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, g->tid, LLVMConstInt(g->i32, 0, 0), "");
    if (!s->sym) {
        atomic_into(g, s, first, NULL);
        return;
    }
    /* the block's one: thread 0 puts the old value in a shared slot */
    LLVMValueRef slot = LLVMAddGlobalInAddressSpace(g->mod, st, "tl_old", 3);
    LLVMSetInitializer(slot, LLVMGetUndef(st));
    LLVMSetLinkage(slot, LLVMInternalLinkage);
    LLVMBasicBlockRef after = lg_begin_if(g, first);
    atomic_into(g, s, NULL, slot);
    lg_end_if(g, after);
    lg_sync(g);
    LgVal old = lg_from_storage(g, t, LLVMBuildLoad2(g->b, st, slot, ""));
    lg_sync(g);
    lg_bind(g, s->sym, old);
}
