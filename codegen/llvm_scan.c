/* llvm_scan.c - cumsum's scan (IR_SCAN) for the LLVM backend, the same
 * plan (cg_scan_plan) and the same additions in the same order as
 * lower_scan.c prints them, so both backends give the same bits: a warp a
 * sequence, 32 consecutive elements at a time, each group scanned up the
 * warp by shuffles, the groups before added as the carry. */
#include "llvm_codegen.h"

/* Element q of sequence sq of the staged buffer (from the end where the
 * scan runs in reverse). */
static LLVMValueRef element(Lg *g, const IrStmt *s, const CgScanPlan *p, LgVal sq, LgVal q) {
    const IrBuf *b = s->src.buf;
    LgVal pos = s->reverse ? lg_binary(g, OP_SUB, lg_int(g, p->len - 1), q) : q;
    LgVal coords[2];
    if (b->rank == 1) coords[0] = pos;
    else if (p->rows) coords[0] = sq, coords[1] = pos;
    else coords[0] = pos, coords[1] = sq;
    LgVal off = lg_shared_offset(g, b, coords, NULL);
    return lg_gep(g, lg_storage_type(g, b->dtype), lg_buf_base(g, b), off.v);
}

void lg_scan(Lg *g, IrStmt *s) {
    CgScanPlan p;
    const char *why = cg_scan_plan(g->k, s, &p);
    if (why) {
        lg_error(g, s->loc, "%s", why);
        return;
    }
    const IrBuf *b = s->src.buf;
    LgType t = lg_compute_type(b->dtype);
    LLVMTypeRef tt = lg_llvm_type(g, t), et = lg_storage_type(g, b->dtype);
    LLVMValueRef carry = lg_entry_alloca(g, tt, "carry");
    LgVal zero = lg_cast(g, lg_int(g, 0), t);
    LgVal lane = {g->lane, LT_INT};
    LgLoop sq, e;
    lg_loop_begin(g, &sq, (LgVal){g->warp, LT_INT}, lg_int(g, p.nseq), lg_int(g, p.warps), false, "sq");
    LLVMBuildStore(g->b, zero.v, carry);
    lg_loop_begin(g, &e, lg_int(g, 0), lg_int(g, p.groups), lg_int(g, 1), false, "e");
    LgVal q = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, e.var, 32), lane);
    LLVMValueRef in = lg_truth(g, lg_binary(g, OP_LT, q, lg_int(g, p.len)));
    /* the element where it lies in the sequence, else 0 (a clamped
     * address: the load must not leave the buffer) */
    LgVal qc = {LLVMBuildSelect(g->b, in, q.v, lg_int(g, 0).v, ""), LT_INT};
    LgVal v = lg_from_storage(g, b->dtype, LLVMBuildLoad2(g->b, et, element(g, s, &p, sq.var, qc), ""));
    v.v = LLVMBuildSelect(g->b, in, v.v, zero.v, "");
    /* up to and with this lane's */
    LgVal x = v;
    for (int d = 1; d < 32; d *= 2) {
        LgVal y = lg_shuffle(g, x, LG_SHFL_UP, d);
        LLVMValueRef far = LLVMBuildICmp(g->b, LLVMIntUGE, g->lane, LLVMConstInt(g->i32, (unsigned long long)d, 0), "");
        x.v = LLVMBuildSelect(g->b, far, lg_binary(g, OP_ADD, x, y).v, x.v, "");
    }
    LgVal before = x;
    if (s->exclusive) { /* the lanes before this one */
        LgVal y = lg_shuffle(g, x, LG_SHFL_UP, 1);
        LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, g->lane, LLVMConstInt(g->i32, 0, 0), "");
        before.v = LLVMBuildSelect(g->b, first, zero.v, y.v, "");
    }
    LgVal cur = {LLVMBuildLoad2(g->b, tt, carry, ""), t};
    LLVMBasicBlockRef after = lg_begin_if(g, in);
    LLVMBuildStore(g->b, lg_to_storage(g, b->dtype, lg_binary(g, OP_ADD, cur, before)), element(g, s, &p, sq.var, q));
    lg_end_if(g, after);
    LLVMBuildStore(g->b, lg_binary(g, OP_ADD, cur, lg_shuffle(g, x, LG_SHFL_IDX, 31)).v, carry);
    lg_loop_end(g, &e);
    lg_loop_end(g, &sq);
}
