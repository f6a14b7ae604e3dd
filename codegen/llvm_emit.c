/* llvm_emit.c - the LLVM backend's kernel skeleton: the module, the
 * kernel's signature and annotations, shared memory and fragments, the
 * block indices, control-flow and inline-PTX helpers the other llvm_*.c
 * files use, and cg_llvm_emit, which ends in PTX (llvm_target.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>

#include "llvm_codegen.h"

void lg_error(Lg *g, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(g->k->c, loc, fmt, ap);
    va_end(ap);
    g->failed = true;
}

LLVMValueRef lg_const_int(Lg *g, LgType t, int64_t v) {
    return LLVMConstInt(lg_llvm_type(g, t), (unsigned long long)v, lg_is_signed(t));
}

LgVal lg_int(Lg *g, int64_t v) {
    LgType t = v >= INT32_MIN && v <= INT32_MAX ? LT_INT : LT_LL;
    return (LgVal){lg_const_int(g, t, v), t};
}

LLVMBasicBlockRef lg_block(Lg *g, const char *name) { return LLVMAppendBasicBlockInContext(g->ctx, g->fn, name); }

LLVMBasicBlockRef lg_begin_if(Lg *g, LLVMValueRef cond) {
    LLVMBasicBlockRef then = lg_block(g, "then"), after = lg_block(g, "endif");
    LLVMBuildCondBr(g->b, cond, then, after);
    LLVMPositionBuilderAtEnd(g->b, then);
    return after;
}

void lg_end_if(Lg *g, LLVMBasicBlockRef after) {
    LLVMBuildBr(g->b, after);
    LLVMPositionBuilderAtEnd(g->b, after);
}

void lg_loop_begin(Lg *g, LgLoop *l, LgVal lo, LgVal hi, LgVal step, bool down, const char *name) {
    LgType t = lo.t;
    step = lg_cast(g, step, t);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    l->head = lg_block(g, name);
    l->body = lg_block(g, "body");
    l->latch = lg_block(g, "latch");
    l->exit = lg_block(g, "exit");
    l->step = step.v;
    l->down = down;
    LLVMBuildBr(g->b, l->head);
    LLVMPositionBuilderAtEnd(g->b, l->head);
    l->phi = LLVMBuildPhi(g->b, lg_llvm_type(g, t), name);
    LLVMAddIncoming(l->phi, &lo.v, &pre, 1);
    l->var = (LgVal){l->phi, t};
    /* v < hi (v > hi) as C compares them: in the wider of the two types */
    LLVMBuildCondBr(g->b, lg_truth(g, lg_binary(g, down ? OP_GT : OP_LT, l->var, hi)), l->body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, l->body);
}

void lg_loop_end(Lg *g, LgLoop *l) {
    LLVMBuildBr(g->b, l->latch);
    LLVMPositionBuilderAtEnd(g->b, l->latch);
    LLVMValueRef next = LLVMBuildAdd(g->b, l->phi, l->step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMAddIncoming(l->phi, &next, &latch, 1);
    LLVMBuildBr(g->b, l->head);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

void lg_loop_hint(Lg *g, LgLoop *l, const char *hint, int count) {
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(g->ctx, NULL, 0);
    LLVMMetadataRef ops_hint[2] = {LLVMMDStringInContext2(g->ctx, hint, strlen(hint)),
                                   LLVMValueAsMetadata(LLVMConstInt(g->i32, (unsigned long long)count, 0))};
    LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(g->ctx, ops_hint, count > 0 ? 2 : 1)};
    LLVMMetadataRef loop = LLVMMDNodeInContext2(g->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, loop); /* a loop's id refers to itself */
    unsigned kind = LLVMGetMDKindIDInContext(g->ctx, "llvm.loop", 9);
    LLVMSetMetadata(LLVMGetBasicBlockTerminator(l->latch), kind, LLVMMetadataAsValue(g->ctx, loop));
}

LLVMValueRef lg_shared_addr(Lg *g, LLVMValueRef p) {
    return LLVMBuildTrunc(g->b, LLVMBuildPtrToInt(g->b, p, g->i64, ""), g->i32, "");
}

LLVMValueRef lg_intrinsic(Lg *g, const char *name, LLVMTypeRef *overload, int noverload, LLVMValueRef *args,
                          int nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) die("LLVM has no intrinsic %s", name);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->mod, id, overload, (size_t)noverload);
    LLVMTypeRef ft = LLVMIntrinsicGetType(g->ctx, id, overload, (size_t)noverload);
    return LLVMBuildCall2(g->b, ft, f, args, (unsigned)nargs, "");
}

void lg_assume(Lg *g, LLVMValueRef cond) { lg_intrinsic(g, "llvm.assume", NULL, 0, &cond, 1); }

LLVMValueRef lg_rounds_tid(Lg *g, int64_t rounds) {
    LLVMValueRef tid = g->tid;
    if (!cg_opaque_thread_index(g->loops, rounds)) return tid;
    tid = lg_asm(g, g->i32, "mov.u32 %0, %1;", "=r,r", &tid, 1, true);
    /* the range the move hid: divisions by powers of two stay shifts */
    lg_assume(g, LLVMBuildICmp(g->b, LLVMIntULT, tid, LLVMConstInt(g->i32, (unsigned long long)g->k->threads, 0), ""));
    return tid;
}

LLVMValueRef lg_sreg(Lg *g, const char *name) {
    char full[96];
    snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
    return lg_intrinsic(g, full, NULL, 0, NULL, 0);
}

/* GCC's inline-asm template (what CUDA C and tilec_device.cuh use: %0,
 * %%) in LLVM's syntax ($0, %, $$). Braces and bars stay as they are:
 * LLVM reads $( $| $) as dialect variants, plain ones are text. */
static char *llvm_template(Lg *g, const char *text) {
    size_t n = strlen(text);
    char *out = arena_alloc(&g->k->c->arena, 2 * n + 1), *o = out;
    for (const char *p = text; *p; p++) {
        if (*p == '%' && p[1] == '%') *o++ = '%', p++;
        else if (*p == '%') *o++ = '$';
        else if (*p == '$') *o++ = '$', *o++ = '$';
        else *o++ = *p;
    }
    *o = 0;
    return out;
}

LLVMValueRef lg_asm(Lg *g, LLVMTypeRef ret, const char *gcc_text, const char *constraints, LLVMValueRef *args,
                    int nargs, bool side_effects) {
    char *text = llvm_template(g, gcc_text);
    LLVMTypeRef *params = arena_alloc(&g->k->c->arena, sizeof(LLVMTypeRef) * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef ft = LLVMFunctionType(ret ? ret : g->vd, params, (unsigned)nargs, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(ft, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
                                       side_effects, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(g->b, ft, fn, args, (unsigned)nargs, "");
    /* convergent: no transform may make it depend on more or fewer lanes */
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->ctx, kind, 0));
    return call;
}

void lg_syncthreads(Lg *g) {
    /* bar.sync 0 (__syncthreads); the intrinsic's name changed after LLVM
     * 19, so inline PTX, with the memory clobber a barrier implies */
    lg_asm(g, NULL, "bar.sync 0;", "~{memory}", NULL, 0, true);
}

void lg_sync(Lg *g) {
    if (!g->k->producer_threads) {
        lg_syncthreads(g);
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "bar.sync %d, %lld;", CG_BAR_CONSUMERS, (long long)g->k->threads);
    lg_asm(g, NULL, text, "~{memory}", NULL, 0, true);
}

void lg_bind(Lg *g, const Sym *s, LgVal v) {
    if (g->nbind == LG_MAX_BIND) die("too many names bound in the LLVM emitter");
    g->bind_sym[g->nbind] = s;
    g->bind_val[g->nbind] = v;
    g->bind_var[g->nbind++] = false;
}

void lg_bind_var(Lg *g, const Sym *s, LLVMValueRef slot, LgType t) {
    lg_bind(g, s, (LgVal){slot, t});
    g->bind_var[g->nbind - 1] = true;
}

LLVMValueRef lg_entry_alloca(Lg *g, LLVMTypeRef t, const char *name) {
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->ctx);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->fn);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first) LLVMPositionBuilderBefore(eb, first);
    else LLVMPositionBuilderAtEnd(eb, entry);
    LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
    LLVMDisposeBuilder(eb);
    return a;
}

/* ---- the kernel skeleton ---- */

static void add_fn_attr(Lg *g, LLVMValueRef fn, const char *key, const char *value) {
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(g->ctx, key, (unsigned)strlen(key), value,
                                                             (unsigned)strlen(value)));
}

static void add_param_attr(Lg *g, LLVMValueRef fn, unsigned idx, const char *name) {
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, idx + 1, LLVMCreateEnumAttribute(g->ctx, kind, 0));
}

/* !nvvm.annotations = !{!{ptr @fn, !"key", i32 value}} */
static void annotate(Lg *g, const char *key, int value) {
    LLVMMetadataRef ops[3] = {LLVMValueAsMetadata(g->fn), LLVMMDStringInContext2(g->ctx, key, strlen(key)),
                              LLVMValueAsMetadata(LLVMConstInt(g->i32, (unsigned)value, 0))};
    LLVMValueRef node = LLVMMetadataAsValue(g->ctx, LLVMMDNodeInContext2(g->ctx, ops, 3));
    LLVMAddNamedMetadataOperand(g->mod, "nvvm.annotations", node);
}

/* The sm_90a path's tensor maps: 128-byte CUtensorMaps passed by value,
 * 64-byte aligned, and __grid_constant__ (the "grid_constant" annotation
 * lists their 1-based indices): the TMA unit reads them in the parameter
 * space by their generic address, so they must not be copied to local
 * memory as other byval parameters are. */
static void tensor_map_params(Lg *g) {
    const IrKernel *k = g->k;
    int n = lg_hopper_nparams(k), first = k->info->params.len + k->info->dynamic.len;
    if (!n) return;
    LLVMTypeRef map = LLVMArrayType2(g->i64, 16);
    LLVMMetadataRef idx[CG_MAX_TMA];
    for (int i = 0; i < n && i < CG_MAX_TMA; i++) {
        unsigned at = (unsigned)(first + i);
        unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), align = LLVMGetEnumAttributeKindForName("align", 5);
        LLVMAddAttributeAtIndex(g->fn, at + 1, LLVMCreateTypeAttribute(g->ctx, byval, map));
        LLVMAddAttributeAtIndex(g->fn, at + 1, LLVMCreateEnumAttribute(g->ctx, align, 64));
        idx[i] = LLVMValueAsMetadata(LLVMConstInt(g->i32, at + 1, 0));
    }
    LLVMMetadataRef ops[3] = {LLVMValueAsMetadata(g->fn), LLVMMDStringInContext2(g->ctx, "grid_constant", 13),
                              LLVMMDNodeInContext2(g->ctx, idx, (size_t)(n < CG_MAX_TMA ? n : CG_MAX_TMA))};
    LLVMAddNamedMetadataOperand(g->mod, "nvvm.annotations", LLVMMetadataAsValue(g->ctx, LLVMMDNodeInContext2(g->ctx, ops, 3)));
}

static void declare_buffers(Lg *g, LLVMBasicBlockRef entry) {
    IrKernel *k = g->k;
    g->buf_ptr = arena_alloc(&k->c->arena, sizeof(LLVMValueRef) * (size_t)(k->buffers.len + 1));
    g->buf_elem = arena_alloc(&k->c->arena, sizeof(LLVMTypeRef) * (size_t)(k->buffers.len + 1));
    for (int i = 0; i < k->buffers.len; i++) {
        IrBuf *b = k->buffers.items[i];
        LLVMTypeRef et = lg_storage_type(g, b->dtype);
        g->buf_elem[i] = et;
        if (b->scope == SCOPE_SHARED) {
            LLVMValueRef off = LLVMConstInt(g->i64, (unsigned long long)b->smem_offset, 0);
            g->buf_ptr[i] = LLVMBuildGEP2(g->b, g->i8, g->smem, &off, 1, b->cname);
            continue;
        }
        /* registers (fragments) and per-thread arrays: allocas in the
         * entry block, promoted to SSA values where indices are constant */
        int64_t regs = b->scope == SCOPE_LOCAL ? buf_elems(b) : b->layout.regs;
        LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->ctx);
        LLVMPositionBuilderAtEnd(eb, entry);
        g->buf_ptr[i] = LLVMBuildAlloca(eb, LLVMArrayType2(et, (uint64_t)regs), b->cname);
        LLVMDisposeBuilder(eb);
    }
}

/* The parameters: tensors as global pointers (noalias, as __restrict__;
 * inputs readonly, which gives ld.global.nc), scalars by value, then the
 * dynamic sizes (int). */
static LLVMTypeRef kernel_type(Lg *g) {
    KernelInfo *info = g->k->info;
    int n = info->params.len + info->dynamic.len + lg_hopper_nparams(g->k);
    LLVMTypeRef *types = arena_alloc(&g->k->c->arena, sizeof(LLVMTypeRef) * (size_t)(n + 1));
    int i = 0;
    for (int p = 0; p < info->params.len; p++) {
        const Sym *s = info->params.items[p];
        types[i++] = s->kind == SYM_TENSOR ? g->gptr : lg_storage_type(g, s->dtype);
    }
    for (int d = 0; d < info->dynamic.len; d++) types[i++] = g->i32;
    while (i < n) types[i++] = g->ptr; /* the tensor maps (tensor_map_params) */
    return LLVMFunctionType(g->vd, types, (unsigned)n, 0);
}

static void bind_parameters(Lg *g) {
    IrKernel *k = g->k;
    KernelInfo *info = k->info;
    g->param_ptr = arena_alloc(&k->c->arena, sizeof(LLVMValueRef) * (size_t)(k->params.len + 1));
    int i = 0;
    for (int p = 0; p < info->params.len; p++, i++) {
        Sym *s = info->params.items[p];
        LLVMValueRef arg = LLVMGetParam(g->fn, (unsigned)i);
        LLVMSetValueName2(arg, ir_sym_cname(k->c, s), strlen(ir_sym_cname(k->c, s)));
        if (s->kind == SYM_TENSOR) {
            add_param_attr(g, g->fn, (unsigned)i, "noalias");
            if (s->mode == MODE_IN) add_param_attr(g, g->fn, (unsigned)i, "readonly");
            for (int b = 0; b < k->params.len; b++)
                if (((IrBuf *)k->params.items[b])->sym == s) g->param_ptr[b] = arg;
            continue;
        }
        /* a run-time argument, in the type lets of its dtype have */
        LgVal v = lg_from_storage(g, s->dtype, arg);
        lg_bind(g, s, lg_cast(g, v, lg_scalar_type(g, s->dtype)));
    }
    for (int d = 0; d < info->dynamic.len; d++, i++) {
        const Sym *v = info->dynamic.items[d];
        LLVMValueRef arg = LLVMGetParam(g->fn, (unsigned)i);
        const char *name = arena_printf(&k->c->arena, "tl_dim_%s", ir_sym_cname(k->c, v));
        LLVMSetValueName2(arg, name, strlen(name));
        lg_bind(g, v, (LgVal){arg, LT_INT});
        /* what the launch checked: tests it decides may go */
        int64_t div = v->divisor > 1 ? v->divisor : 1;
        lg_assume(g, LLVMBuildICmp(g->b, LLVMIntSGE, arg, LLVMConstInt(g->i32, (unsigned long long)div, 0), ""));
        if (div > 1)
            lg_assume(g, LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildSRem(g->b, arg, LLVMConstInt(g->i32, (unsigned long long)div, 0), ""),
                                    LLVMConstInt(g->i32, 0, 0), ""));
    }
}

static void init_types(Lg *g) {
    g->i1 = LLVMInt1TypeInContext(g->ctx);
    g->i8 = LLVMInt8TypeInContext(g->ctx);
    g->i16 = LLVMInt16TypeInContext(g->ctx);
    g->i32 = LLVMInt32TypeInContext(g->ctx);
    g->i64 = LLVMInt64TypeInContext(g->ctx);
    g->f16 = LLVMHalfTypeInContext(g->ctx);
    g->bf16 = LLVMBFloatTypeInContext(g->ctx);
    g->f32 = LLVMFloatTypeInContext(g->ctx);
    g->f64 = LLVMDoubleTypeInContext(g->ctx);
    g->vd = LLVMVoidTypeInContext(g->ctx);
    g->ptr = LLVMPointerTypeInContext(g->ctx, 0);
    g->gptr = LLVMPointerTypeInContext(g->ctx, 1);
    g->sptr = LLVMPointerTypeInContext(g->ctx, 3);
}

void lg_debug_line(Lg *g, int line) {
    if (!g->di_scope || line <= 0) return;
    g->di_line = line;
    LLVMMetadataRef at = LLVMDIBuilderCreateDebugLocation(g->ctx, (unsigned)line, 0, g->di_scope, NULL);
    LLVMSetCurrentDebugLocation2(g->b, at);
}

/* --lineinfo: a compile unit of debug directives only, the kernel a
 * subprogram of the .tile file; NVPTX then writes .file/.loc and nothing
 * else, which ptxas turns into the cubin's line table (with -lineinfo).
 * Line tables proper would make NVPTX mark the target `debug`, and ptxas
 * refuses to optimise code it is asked to debug. LLVM's C API names only
 * the first three emission kinds; DebugDirectivesOnly is the fourth. */
enum { DEBUG_DIRECTIVES_ONLY = 3 };
static void debug_scope(Lg *g, const char *name) {
    IrKernel *k = g->k;
    const char *path = g->file ? g->file : "input.tile", *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    g->dib = LLVMCreateDIBuilder(g->mod);
    LLVMMetadataRef file = LLVMDIBuilderCreateFile(g->dib, base, strlen(base), slash ? path : ".", dir_len);
    LLVMDIBuilderCreateCompileUnit(g->dib, LLVMDWARFSourceLanguageC, file, "tilec", 5, 1, "", 0, 0, "", 0,
                                   (LLVMDWARFEmissionKind)DEBUG_DIRECTIVES_ONLY, 0, 0, 0, "", 0, "", 0);
    LLVMMetadataRef type = LLVMDIBuilderCreateSubroutineType(g->dib, file, NULL, 0, LLVMDIFlagZero);
    unsigned line = (unsigned)(k->info->node->loc.line > 0 ? k->info->node->loc.line : 1);
    g->di_scope = LLVMDIBuilderCreateFunction(g->dib, file, name, strlen(name), name, strlen(name), file, line, type, 0, 1,
                                              line, LLVMDIFlagZero, 1);
    LLVMSetSubprogram(g->fn, g->di_scope);
    LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(LLVMConstInt(g->i32, LLVMDebugMetadataVersion(), 0)));
    LLVMAddModuleFlag(g->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(LLVMConstInt(g->i32, 2, 0)));
    lg_debug_line(g, (int)line);
}

static void build_kernel(Lg *g) {
    IrKernel *k = g->k;
    const char *name = cg_kernel_name(k);
    g->fn = LLVMAddFunction(g->mod, name, kernel_type(g));
    if (k->line_directives) debug_scope(g, name);
    /* a kernel: the PTX_Kernel calling convention and the annotation */
    LLVMSetFunctionCallConv(g->fn, 71);
    annotate(g, "kernel", 1);
    int64_t block = k->threads + k->producer_threads;
    annotate(g, "maxntidx", (int)block);
    /* setmaxnreg needs a register cap at entry: one block an SM */
    if (cg_hopper_consumer_regs(k)) annotate(g, "minctasm", 1);
    tensor_map_params(g);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)block);
    add_fn_attr(g, g->fn, "nvvm.maxntid", buf);
    LLVMBasicBlockRef entry = lg_block(g, "entry");
    LLVMBasicBlockRef start = lg_block(g, "start");
    LLVMPositionBuilderAtEnd(g->b, start);
    /* dynamic shared memory: an external array; the kernel's buffers at
     * their offsets from it (plan_shared aligned them) */
    LLVMTypeRef smem_t = LLVMArrayType2(g->i8, 0);
    LLVMValueRef smem = LLVMAddGlobalInAddressSpace(g->mod, smem_t, "tl_smem", 3);
    LLVMSetLinkage(smem, LLVMExternalLinkage);
    LLVMSetAlignment(smem, k->ws_loop ? 1024 : 128);
    g->smem = smem;
    if (k->ws_loop) {
        /* TMA swizzles by shared-memory address bits: stages start on
         * 1024-byte boundaries of the window (plan_shared left the room) */
        LLVMValueRef low = LLVMBuildAnd(g->b, lg_shared_addr(g, smem), LLVMConstInt(g->i32, 1023, 0), "");
        LLVMValueRef pad = LLVMBuildAnd(g->b, LLVMBuildSub(g->b, LLVMConstInt(g->i32, 1024, 0), low, ""),
                                        LLVMConstInt(g->i32, 1023, 0), "");
        LLVMValueRef off = LLVMBuildZExt(g->b, pad, g->i64, "");
        g->smem = LLVMBuildInBoundsGEP2(g->b, g->i8, smem, &off, 1, "tl_smem");
    }
    g->tid = lg_sreg(g, "tid.x");
    lg_assume(g, LLVMBuildICmp(g->b, LLVMIntULT, g->tid, LLVMConstInt(g->i32, (unsigned long long)block, 0), ""));
    LLVMValueRef c32 = LLVMConstInt(g->i32, 32, 0);
    g->lane = LLVMBuildURem(g->b, g->tid, c32, "lane");
    g->warp = LLVMBuildUDiv(g->b, g->tid, c32, "warp");
    bind_parameters(g);
    lg_hopper_params(g);
    if (!k->sched.persistent) lg_block_indices(g, NULL);
    declare_buffers(g, entry);
    lg_schedule_globals(g);
    if (k->ws_loop) lg_hopper_split(g);
    LgTileLoop tiles;
    if (k->sched.persistent) lg_tile_loop_begin(g, &tiles, false);
    if (k->sched.idle_stores.len) lg_hopper_idle_begin(g);
    lg_block_emit(g, &k->body);
    if (k->sched.idle_stores.len) lg_hopper_idle_end(g);
    if (k->sched.persistent) lg_tile_loop_end(g, &tiles);
    if (k->ws_loop) lg_hopper_finish(g);
    LLVMBuildRetVoid(g->b);
    LLVMPositionBuilderAtEnd(g->b, entry);
    LLVMBuildBr(g->b, start);
}

static char *module_text(LLVMModuleRef m, size_t *len) {
    char *s = LLVMPrintModuleToString(m);
    char *copy = xstrdup(s);
    *len = strlen(copy);
    LLVMDisposeMessage(s);
    return copy;
}

bool cg_llvm_emit(IrKernel *k, const char *source_file, CgKernel *out) {
    memset(out, 0, sizeof *out);
    out->backend = CG_LLVM;
    Lg g = {.k = k, .file = source_file, .index_type = LT_INT};
    for (int i = 0; i < k->params.len; i++) { /* as cg_emit chooses Cg.index_type */
        const IrBuf *p = k->params.items[i];
        int64_t elems = 1;
        for (int d = 0; d < p->rank; d++)
            if (!buf_dim_dynamic(p, d) && __builtin_mul_overflow(elems, p->shape[d], &elems)) elems = INT64_MAX;
        if (elems > INT32_MAX) g.index_type = LT_LL;
    }
    double t0 = lg_now_s();
    g.ctx = LLVMContextCreate();
    g.mod = LLVMModuleCreateWithNameInContext(source_file ? source_file : "<input>", g.ctx);
    LLVMSetTarget(g.mod, lg_triple());
    LLVMSetDataLayout(g.mod, lg_data_layout());
    g.b = LLVMCreateBuilderInContext(g.ctx);
    init_types(&g);
    build_kernel(&g);
    if (g.dib) {
        LLVMDIBuilderFinalize(g.dib);
        LLVMDisposeDIBuilder(g.dib);
    }
    LLVMDisposeBuilder(g.b);
    char *why = NULL;
    if (!g.failed && LLVMVerifyModule(g.mod, LLVMReturnStatusAction, &why)) {
        fprintf(k->c->err, "tilec: the llvm backend built an invalid module for kernel '%s' (this is a bug in tilec): %.200s\n",
                k->info->name->s, why);
        g.failed = true;
    }
    LLVMDisposeMessage(why);
    bool ok = !g.failed;
    if (ok) {
        if (k->llvm_text) out->llvm_ir = module_text(g.mod, &out->llvm_ir_len);
        out->build_s = lg_now_s() - t0;
        LgTimes times = {0};
        char err[256];
        ok = lg_module_to_ptx(g.ctx, g.mod, k->arch, k->arch_specific, g.uses_libdevice, &out->source,
                              &out->source_len, &times, err);
        g.mod = NULL; /* consumed */
        out->link_s = times.link_s;
        out->opt_s = times.opt_s;
        out->ptx_s = times.ptx_s;
        if (!ok) fprintf(k->c->err, "tilec: %s (this is a bug in tilec)\n", err);
        else out->source = lg_hopper_ptx_directives(k, out->source, &out->source_len);
    }
    if (g.mod) LLVMDisposeModule(g.mod);
    LLVMContextDispose(g.ctx);
    out->lineinfo = k->line_directives;
    if (ok) {
        out->name = cg_kernel_name(k);
        ok = cg_launch_info(k, out);
    }
    if (!ok) cg_kernel_free(out);
    return ok;
}
