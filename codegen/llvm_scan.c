/* llvm_scan.c - cumsum's scan (IR_SCAN) for the LLVM backend, the same
 * plan (cg_scan_plan) and the same additions in the same order as
 * lower_scan.c prints them, so both backends give the same bits: a warp a
 * sequence, 32 * V consecutive elements at a time, V a lane (one 16-byte
 * vector of a row), the lanes' totals scanned up the warp by shuffles,
 * the groups before added as the carry. A scan in registers (plan_scan)
 * makes lower_scan.c's scan_registers additions, in its order. */
#include "llvm_codegen.h"

/* Element q of sequence sq of the staged buffer (counted from the end
 * where reverse). */
static LLVMValueRef element(Lg *g, const IrStmt *s, const CgScanPlan *p, LgVal sq, LgVal q, bool reverse) {
    const IrBuf *b = s->src.buf;
    LgVal pos = reverse ? lg_binary(g, OP_SUB, lg_int(g, p->len - 1), q) : q;
    LgVal coords[2];
    if (b->rank == 1) coords[0] = pos;
    else if (p->rows) coords[0] = sq, coords[1] = pos;
    else coords[0] = pos, coords[1] = sq;
    LgVal off = lg_shared_offset(g, b, coords, NULL);
    return lg_gep(g, lg_storage_type(g, b->dtype), lg_buf_base(g, b), off.v);
}

/* (lane % w) op c */
static LLVMValueRef lane_is(Lg *g, AstOp op, int64_t w, int64_t c) {
    LgVal lane = {g->lane, LT_INT};
    return lg_binc(g, op, lg_binc(g, OP_MOD, lane, w), c).v;
}

/* IR_SCAN in registers (lower_scan.c's scan_registers, step for step):
 * element k of chunk q ends as (carry + (earlier warps + earlier lanes)) +
 * the chunk's own elements up to k, mirrored where reverse. */
static void scan_registers(Lg *g, IrStmt *s) {
    ScanRegs p;
    const IrBuf *src = s->src.buf, *dst = s->dst.buf;
    const char *why = scan_in_registers(src, dst, s->dim, g->k->threads, &p);
    if (why) {
        lg_error(g, s->loc, "cumsum in registers: %s", why);
        return;
    }
    const Layout *l = &src->layout;
    LgType t = lg_compute_type(scan_sum_dtype(src->dtype));
    int64_t Q = l->chunks, V = l->vec, w = p.seg < 32 ? p.seg : 32, wps = p.seg / 32;
    bool rev = s->reverse;
    Arena *a = &g->k->c->arena;
    LgVal *part = arena_alloc(a, sizeof(LgVal) * (size_t)(Q * V)), *x = arena_alloc(a, sizeof(LgVal) * (size_t)Q);
    LgVal *before = arena_alloc(a, sizeof(LgVal) * (size_t)Q), *total = arena_alloc(a, sizeof(LgVal) * (size_t)Q);
    LgVal zero = lg_cast(g, lg_int(g, 0), t);
    LLVMTypeRef et = lg_storage_type(g, src->dtype);
    for (int64_t q = 0; q < Q; q++)
        for (int64_t i = 0; i < V; i++) {
            int64_t k = rev ? V - 1 - i : i;
            LLVMValueRef r = lg_frag_reg_ptr(g, src, LLVMConstInt(g->i64, (unsigned long long)(q * V + k), 0));
            LgVal in = lg_cast(g, lg_from_storage(g, src->dtype, LLVMBuildLoad2(g->b, et, r, "")), t);
            part[q * V + k] = i == 0 ? in : lg_binary(g, OP_ADD, part[q * V + (rev ? k + 1 : k - 1)], in);
        }
    LgShuffle shfl = rev ? LG_SHFL_DOWN : LG_SHFL_UP;
    for (int64_t q = 0; q < Q; q++) x[q] = part[q * V + (rev ? 0 : V - 1)];
    for (int64_t d = 1; d < w; d *= 2)
        for (int64_t q = 0; q < Q; q++) {
            LgVal y = lg_shuffle(g, x[q], shfl, d);
            LLVMValueRef far = rev ? lane_is(g, OP_LT, w, w - d) : lane_is(g, OP_GE, w, d);
            x[q].v = LLVMBuildSelect(g->b, far, lg_binary(g, OP_ADD, x[q], y).v, x[q].v, "");
        }
    for (int64_t q = 0; q < Q; q++) {
        LgVal y = lg_shuffle(g, x[q], shfl, 1);
        before[q] = (LgVal){LLVMBuildSelect(g->b, lane_is(g, OP_EQ, w, rev ? w - 1 : 0), zero.v, y.v, ""), t};
    }
    if (p.seg > 32) {
        LLVMBasicBlockRef after = lg_begin_if(g, lane_is(g, OP_EQ, 32, rev ? 0 : 31));
        LgVal warp = {g->warp, LT_INT};
        for (int64_t q = 0; q < Q; q++)
            LLVMBuildStore(g->b, x[q].v, lg_scratch(g, t, lg_binc(g, OP_ADD, lg_binc(g, OP_MUL, warp, Q), q)));
        lg_end_if(g, after);
        lg_sync(g);
        LgVal first = lg_binc(g, OP_MUL, lg_binc(g, OP_DIV, warp, wps), wps);
        for (int64_t q = 0; q < Q; q++) {
            LgVal warps = zero, all = zero;
            for (int64_t i = 0; i < wps; i++) {
                LgVal ws = lg_binc(g, OP_ADD, first, i);
                LLVMValueRef at = lg_scratch(g, t, lg_binc(g, OP_ADD, lg_binc(g, OP_MUL, ws, Q), q));
                LgVal v = {LLVMBuildLoad2(g->b, lg_llvm_type(g, t), at, ""), t};
                LLVMValueRef counts = lg_binary(g, rev ? OP_GT : OP_LT, ws, warp).v;
                warps.v = LLVMBuildSelect(g->b, counts, lg_binary(g, OP_ADD, warps, v).v, warps.v, "");
                if (p.slices > 1) all = lg_binary(g, OP_ADD, all, v);
            }
            before[q] = lg_binary(g, OP_ADD, warps, before[q]);
            total[q] = all;
        }
        lg_sync(g);
    } else if (p.slices > 1) {
        for (int64_t q = 0; q < Q; q++) total[q] = lg_shuffle(g, x[q], LG_SHFL_IDX, rev ? 0 : 31);
    }
    if (p.slices > 1) { /* the row's earlier slices (later where reverse) */
        LgVal carry = zero;
        for (int64_t n = 0; n < Q; n++) {
            int64_t q = rev ? Q - 1 - n : n;
            if (q % p.slices == (rev ? p.slices - 1 : 0)) carry = zero;
            before[q] = lg_binary(g, OP_ADD, carry, before[q]);
            carry = lg_binary(g, OP_ADD, carry, total[q]);
        }
    }
    for (int64_t q = 0; q < Q; q++)
        for (int64_t i = 0; i < V; i++) {
            int64_t k = rev ? V - 1 - i : i, prev = rev ? k + 1 : k - 1;
            LgVal value = s->exclusive && i == 0 ? before[q]
                                                 : lg_binary(g, OP_ADD, before[q], part[q * V + (s->exclusive ? prev : k)]);
            LLVMValueRef r = lg_frag_reg_ptr(g, dst, LLVMConstInt(g->i64, (unsigned long long)(q * V + k), 0));
            LLVMBuildStore(g->b, lg_to_storage(g, dst->dtype, value), r);
        }
}

void lg_scan(Lg *g, IrStmt *s) {
    if (s->dst.buf) {
        scan_registers(g, s);
        return;
    }
    CgScanPlan p;
    const char *why = cg_scan_plan(g->k, s, &p);
    if (why) {
        lg_error(g, s->loc, "%s", why);
        return;
    }
    const IrBuf *b = s->src.buf;
    LgType t = lg_compute_type(b->dtype);
    LLVMTypeRef tt = lg_llvm_type(g, t), et = lg_storage_type(g, b->dtype);
    int v = p.vec;
    LLVMTypeRef vt = LLVMVectorType(et, (unsigned)v);
    LLVMValueRef carry = lg_entry_alloca(g, tt, "carry");
    LgVal zero = lg_cast(g, lg_int(g, 0), t);
    LgVal lane = {g->lane, LT_INT};
    LgLoop sq, e;
    lg_loop_begin(g, &sq, (LgVal){g->warp, LT_INT}, lg_int(g, p.nseq), lg_int(g, p.warps), false, "sq");
    LLVMBuildStore(g->b, zero.v, carry);
    lg_loop_begin(g, &e, lg_int(g, 0), lg_int(g, p.groups), lg_int(g, 1), false, "e");
    /* q = (e * 32 + lane) * v: the lane's first element */
    LgVal q = lg_binc(g, OP_MUL, lg_binary(g, OP_ADD, lg_binc(g, OP_MUL, e.var, 32), lane), v);
    LLVMValueRef in = NULL, at = NULL, vec = NULL;
    LgVal part[16];
    if (v > 1) {
        /* the vector at the lane's lowest address (from the end where
         * reverse: its elements then run backwards) */
        LgVal lo = s->reverse ? lg_binary(g, OP_SUB, lg_int(g, p.len - v), q) : q;
        at = element(g, s, &p, sq.var, lo, false);
        LLVMValueRef ld = LLVMBuildLoad2(g->b, vt, at, "");
        LLVMSetAlignment(ld, 16);
        vec = LLVMGetUndef(vt); /* every element is written back */
        for (int k = 0; k < v; k++) {
            int i = s->reverse ? v - 1 - k : k;
            LgVal x = lg_from_storage(g, b->dtype, LLVMBuildExtractElement(g->b, ld, LLVMConstInt(g->i32, (unsigned)i, 0), ""));
            part[k] = k ? lg_binary(g, OP_ADD, part[k - 1], x) : x;
        }
    } else {
        in = lg_truth(g, lg_binary(g, OP_LT, q, lg_int(g, p.len)));
        /* the element where it lies in the sequence, else 0 without a load:
         * a load from a clamped address would read an element another lane
         * of the warp writes in this round (its value unused, but a
         * warp-level hazard to racecheck), as the C path's ?: does not */
        LLVMValueRef slot = lg_entry_alloca(g, et, "scan_in");
        LLVMBuildStore(g->b, LLVMConstNull(et), slot);
        LLVMBasicBlockRef loaded = lg_begin_if(g, in);
        LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, et, element(g, s, &p, sq.var, q, s->reverse), ""), slot);
        lg_end_if(g, loaded);
        part[0] = lg_from_storage(g, b->dtype, LLVMBuildLoad2(g->b, et, slot, ""));
    }
    /* the lanes' totals up to and with this lane's */
    LgVal x = part[v - 1];
    for (int d = 1; d < 32; d *= 2) {
        LgVal y = lg_shuffle(g, x, LG_SHFL_UP, d);
        LLVMValueRef far = LLVMBuildICmp(g->b, LLVMIntUGE, g->lane, LLVMConstInt(g->i32, (unsigned long long)d, 0), "");
        x.v = LLVMBuildSelect(g->b, far, lg_binary(g, OP_ADD, x, y).v, x.v, "");
    }
    LgVal before = zero;
    if (v > 1 || s->exclusive) { /* the lanes before this one */
        LgVal y = lg_shuffle(g, x, LG_SHFL_UP, 1);
        LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, g->lane, LLVMConstInt(g->i32, 0, 0), "");
        before.v = LLVMBuildSelect(g->b, first, zero.v, y.v, "");
    }
    LgVal cur = {LLVMBuildLoad2(g->b, tt, carry, ""), t};
    /* element k: carry + (before + part[k]); exclusive: part[k - 1], and
     * carry + before for the first. One a lane: carry + the scan. */
    for (int k = 0; k < v; k++) {
        LgVal value = s->exclusive && k == 0 ? lg_binary(g, OP_ADD, cur, before)
                    : v == 1 ? lg_binary(g, OP_ADD, cur, x)
                    : lg_binary(g, OP_ADD, cur, lg_binary(g, OP_ADD, before, part[s->exclusive ? k - 1 : k]));
        if (v > 1) {
            int i = s->reverse ? v - 1 - k : k;
            vec = LLVMBuildInsertElement(g->b, vec, lg_to_storage(g, b->dtype, value), LLVMConstInt(g->i32, (unsigned)i, 0), "");
        } else {
            LLVMBasicBlockRef after = lg_begin_if(g, in);
            LLVMBuildStore(g->b, lg_to_storage(g, b->dtype, value), element(g, s, &p, sq.var, q, s->reverse));
            lg_end_if(g, after);
        }
    }
    if (v > 1) LLVMSetAlignment(LLVMBuildStore(g->b, vec, at), 16);
    LLVMBuildStore(g->b, lg_binary(g, OP_ADD, cur, lg_shuffle(g, x, LG_SHFL_IDX, 31)).v, carry);
    lg_loop_end(g, &e);
    lg_loop_hint(g, &e, "llvm.loop.unroll.count", 2); /* two groups' shuffles in flight */
    lg_loop_end(g, &sq);
}
