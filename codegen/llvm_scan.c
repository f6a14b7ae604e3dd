/* llvm_scan.c - cumsum's scan (IR_SCAN) for the LLVM backend, the same
 * plan (cg_scan_plan) and the same additions in the same order as
 * lower_scan.c prints them, so both backends give the same bits: a warp a
 * sequence, each lane its chunk's total, the totals scanned up the warp by
 * shuffles, the chunk walked again with the lanes before as the carry. */
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

/* The loop over this lane's chunk; *q its element's position, *in
 * whether it lies in the sequence (the builder inside that test). */
static LLVMBasicBlockRef chunk_begin(Lg *g, LgLoop *e, const CgScanPlan *p, LgVal *q) {
    lg_loop_begin(g, e, lg_int(g, 0), lg_int(g, p->chunk), lg_int(g, 1), false, "e");
    *q = lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, (LgVal){g->lane, LT_INT}, p->chunk), e->var);
    return lg_begin_if(g, lg_truth(g, lg_binary(g, OP_LT, *q, lg_int(g, p->len))));
}

static void chunk_end(Lg *g, LgLoop *e, LLVMBasicBlockRef after) {
    lg_end_if(g, after);
    lg_loop_end(g, e);
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
    LLVMValueRef run = lg_entry_alloca(g, tt, "run"), carry = lg_entry_alloca(g, tt, "carry");
    LgVal zero = lg_cast(g, lg_int(g, 0), t);
    LgLoop sq, e;
    lg_loop_begin(g, &sq, (LgVal){g->warp, LT_INT}, lg_int(g, p.nseq), lg_int(g, p.warps), false, "sq");
    LLVMBuildStore(g->b, zero.v, run);
    LgVal q;
    LLVMBasicBlockRef after = chunk_begin(g, &e, &p, &q);
    LgVal x = lg_from_storage(g, b->dtype, LLVMBuildLoad2(g->b, et, element(g, s, &p, sq.var, q), ""));
    LLVMBuildStore(g->b, lg_binary(g, OP_ADD, (LgVal){LLVMBuildLoad2(g->b, tt, run, ""), t}, x).v, run);
    chunk_end(g, &e, after);
    /* the lanes' totals scanned up the warp: up to and with this lane's */
    LgVal c = {LLVMBuildLoad2(g->b, tt, run, ""), t};
    for (int d = 1; d < 32; d *= 2) {
        LgVal y = lg_shuffle(g, c, true, d);
        LLVMValueRef far = LLVMBuildICmp(g->b, LLVMIntUGE, g->lane, LLVMConstInt(g->i32, (unsigned long long)d, 0), "");
        c.v = LLVMBuildSelect(g->b, far, lg_binary(g, OP_ADD, c, y).v, c.v, "");
    }
    /* the lanes before this one */
    c = lg_shuffle(g, c, true, 1);
    LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, g->lane, LLVMConstInt(g->i32, 0, 0), "");
    LLVMBuildStore(g->b, LLVMBuildSelect(g->b, first, zero.v, c.v, ""), carry);
    after = chunk_begin(g, &e, &p, &q);
    LLVMValueRef ptr = element(g, s, &p, sq.var, q);
    LgVal v = lg_from_storage(g, b->dtype, LLVMBuildLoad2(g->b, et, ptr, ""));
    LgVal cur = {LLVMBuildLoad2(g->b, tt, carry, ""), t}, next = lg_binary(g, OP_ADD, cur, v);
    LLVMBuildStore(g->b, lg_to_storage(g, b->dtype, s->exclusive ? cur : next), ptr);
    LLVMBuildStore(g->b, next.v, carry);
    chunk_end(g, &e, after);
    lg_loop_end(g, &sq);
}
