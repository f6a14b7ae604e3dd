/* llvm_codegen.h - the second code generator: tile IR to an LLVM module
 * through the LLVM C API, then LLVM's O3 pipeline and NVPTX backend to PTX.
 *
 * It makes the decisions the CUDA C printer makes, from the same IR and the
 * same queries (layouts, swizzles, stages, the schedule), and computes
 * every value with the C type the printed CUDA would give it (llvm_expr.c:
 * LgVal), so the two backends agree on integer widths, signedness,
 * rounding and what overflows. Loops over a thread's registers are
 * unrolled here, while emitting (register indices are constants, so
 * fragments live in SSA values once SROA has run). The device helpers of
 * tilec_device.cuh are inline PTX here too, written per use.
 *
 * Only llvm_*.c include this header (and LLVM's); the rest of tilec sees
 * cg_llvm_emit (codegen.h). */
#ifndef TILEC_LLVM_CODEGEN_H
#define TILEC_LLVM_CODEGEN_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "codegen.h"

/* The C type of a value as the printed CUDA would have it. Narrow stored
 * types (f16, i8, ...) appear only at loads and stores; arithmetic on them
 * happens in their compute type (float, int). */
typedef enum LgType {
    LT_BOOL, LT_I8, LT_U8, LT_I16, LT_U16, LT_INT, LT_UINT, LT_LL, LT_ULL, LT_FLOAT, LT_DOUBLE
} LgType;

typedef struct LgVal {
    LLVMValueRef v;
    LgType t;
} LgVal;

enum { LG_MAX_BIND = 64, LG_MAX_STAGE = 16 };

typedef struct Lg {
    IrKernel *k;
    const char *file;
    bool failed;
    /* --lineinfo: the kernel's debug scope (NULL: none); every instruction
     * built while a statement is emitted carries its .tile line */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_scope;
    int di_line;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, vd;
    LLVMTypeRef ptr, gptr, sptr;     /* generic, global (1), shared (3) */
    /* the kernel's fixed values */
    LLVMValueRef tid, lane, warp;
    LLVMValueRef smem;               /* ptr addrspace(3): the dynamic shared memory (aligned) */
    LgType index_type;               /* LT_INT, or LT_LL when a tensor has 2^31 elements */
    /* names bound to values: parameters, sizes, block indices, lets, loop
     * variables; vars are allocas (is_var) */
    const Sym *bind_sym[LG_MAX_BIND];
    LgVal bind_val[LG_MAX_BIND];
    bool bind_var[LG_MAX_BIND];
    int nbind;
    /* every buffer's storage: tensors' pointers, shared buffers' base
     * addresses, fragments' and local buffers' allocas (by k->params and
     * k->buffers order) */
    LLVMValueRef *param_ptr;
    LLVMValueRef *buf_ptr;
    LLVMTypeRef *buf_elem;           /* the element type of a fragment's alloca */
    /* the stage of each ring buffer while emitting a pipelined body */
    const IrBuf *stage_buf[LG_MAX_STAGE];
    LgVal stage_val[LG_MAX_STAGE];
    int nstage;
    /* the loops (for, pipelined, the consumers') around what is emitted */
    int loops;
    /* inside a parallel loop: the loop; over a driver also the driver,
     * the register (a constant), and the owner condition (NULL: all own) */
    const IrStmt *par;
    const IrBuf *driver;
    int64_t reg;
    LLVMValueRef owner;
    /* the block the register's body began in: a body that branched
     * (guarded loads, ifs) pins what it stores (store in llvm_stmt.c) */
    LLVMBasicBlockRef reg_block;
    /* the type float literals take from their context (DT_NONE: f32) */
    Dtype lit_type;
    bool store_rounds;
    /* vectorised parallel loops: element accesses that are lanes of a
     * vector (an alloca'd array of `lane_elem`, indexed by the lane) */
    const Node *lane_node[CG_MAX_LANE_ACCESSES];
    LLVMValueRef lane_ref[CG_MAX_LANE_ACCESSES]; /* pointer to the lane's element */
    int nlane;
    /* the libdevice functions the module calls (linked in after building) */
    bool uses_libdevice;
    /* ---- the sm_90a warp-specialised path (llvm_hopper.c) ---- */
    LLVMValueRef tmap[CG_MAX_TMA];   /* the tensor maps' generic addresses (i64) */
    LLVMValueRef full, empty, preload, preload_free;  /* mbarriers (ptr addrspace(3)) */
    LLVMValueRef it;                 /* tl_it: the consumers' pipeline iterations (an alloca) */
    LgVal wg;                        /* this consumer warpgroup */
    LLVMValueRef desc[16];           /* wgmma descriptor bases (i64), by buffer and role */
    const IrBuf *desc_buf[16];
    int desc_role[16], ndesc;
    bool half;                       /* emitting a half unit's code (schedule_halves) */
    bool in_producer;                /* emitting the producer warpgroup's code (Cg.in_producer) */
    LLVMBasicBlockRef idle_join;     /* after the idle warpgroups' branch */
    /* ---- persistent schedules (llvm_schedule.c) ---- */
    LLVMValueRef next_tile;          /* the longest-first order's shared slot */
    LgVal tile_n, tile_half, tile_hcol, tile_at, tile_piece, cta_rank;
    LgVal tile_ways;                 /* split tiles decided at launch: this launch's pieces a tile (1: none) */
    LLVMBasicBlockRef tile_next;     /* `continue` of the tile loop */
} Lg;

/* llvm_emit.c */
void lg_error(Lg *g, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
LLVMValueRef lg_const_int(Lg *g, LgType t, int64_t v);
/* A new basic block in the kernel, placed last. */
LLVMBasicBlockRef lg_block(Lg *g, const char *name);
/* --lineinfo: what is built from now on carries .tile line `line` (no-op
 * without a debug scope, or for line 0). */
void lg_debug_line(Lg *g, int line);
/* if (cond) { then() } as blocks: returns the block to continue in after
 * positioning the builder at the start of the then block; lg_end_if
 * branches to it. */
LLVMBasicBlockRef lg_begin_if(Lg *g, LLVMValueRef cond);
void lg_end_if(Lg *g, LLVMBasicBlockRef after);
/* A counted loop for (v = lo; v < hi; v += step) of type t; the body is
 * emitted between lg_loop_begin and lg_loop_end. */
typedef struct LgLoop {
    LLVMBasicBlockRef head, body, latch, exit;
    LLVMValueRef phi;
    LgVal var;
    LLVMValueRef step;
    bool down;                       /* step < 0: v > hi */
} LgLoop;
void lg_loop_begin(Lg *g, LgLoop *l, LgVal lo, LgVal hi, LgVal step, bool down, const char *name);
void lg_loop_end(Lg *g, LgLoop *l);
/* A hint on loop l's latch (llvm.loop.unroll.full for the CUDA's #pragma
 * unroll, .disable for #pragma unroll 1, .count with count > 0 for
 * #pragma unroll count). */
void lg_loop_hint(Lg *g, LgLoop *l, const char *hint, int count);
/* lg_loop_end of a loop the CUDA C marks #pragma unroll: fully unrolled
 * by O3 (llvm.loop.unroll.full). */
void lg_loop_end_unrolled(Lg *g, LgLoop *l);
/* The NVVM special registers and intrinsics (looked up by name). */
LLVMValueRef lg_intrinsic(Lg *g, const char *name, LLVMTypeRef *overload, int noverload, LLVMValueRef *args,
                          int nargs);
LLVMValueRef lg_sreg(Lg *g, const char *name);
void lg_assume(Lg *g, LLVMValueRef cond); /* llvm.assume(cond) */
/* The thread index for work dealt in `rounds` rounds a thread: g->tid, or
 * where cg_opaque_thread_index says so an opaque move of it made here (its
 * range assumed again), so that the addresses computed from it are
 * neither hoisted out of the enclosing loop nor shared with the same
 * addresses computed before it. */
LLVMValueRef lg_rounds_tid(Lg *g, int64_t rounds);
/* Inline PTX, its template written as for CUDA C (%0, %%, braces) and
 * its constraints LLVM's ("=r,r,~{memory}"): `ret` NULL for none. Every
 * call is convergent; side_effects also keeps it in place (fences,
 * barriers, copies). */
LLVMValueRef lg_asm(Lg *g, LLVMTypeRef ret, const char *text, const char *constraints, LLVMValueRef *args, int nargs,
                    bool side_effects);
void lg_syncthreads(Lg *g);
void lg_sync(Lg *g);                 /* cg_sync: the block, or the consumer warpgroups */
/* An alloca in the entry block, where mem2reg and SROA make registers of
 * it (every index used being a constant). */
LLVMValueRef lg_entry_alloca(Lg *g, LLVMTypeRef t, const char *name);
void lg_bind(Lg *g, const Sym *s, LgVal v);
void lg_bind_var(Lg *g, const Sym *s, LLVMValueRef slot, LgType t);

/* llvm_expr.c */
LLVMTypeRef lg_llvm_type(Lg *g, LgType t);
LgType lg_compute_type(Dtype t);     /* cg_compute_type */
LgType lg_storage_ctype(Dtype t);    /* the C type a value of t is loaded as (narrow floats: float) */
LgType lg_scalar_type(const Lg *g, Dtype t);  /* cg_scalar_type: of lets and vars */
LLVMTypeRef lg_storage_type(Lg *g, Dtype t);  /* in memory: half, bfloat, i8 for fp8 ... */
bool lg_is_float(LgType t);
bool lg_is_signed(LgType t);
/* C's conversion of v to type t (a cast). */
LgVal lg_cast(Lg *g, LgVal v, LgType t);
/* A compute-type value converted for storage as t (cg_convert). */
LLVMValueRef lg_to_storage(Lg *g, Dtype t, LgVal v);
/* A stored element of type t as its compute type (cg_load_wrap). */
LgVal lg_from_storage(Lg *g, Dtype t, LLVMValueRef stored);
/* v (a float) rounded to narrow float type t and back (cg_rounded). */
LgVal lg_rounded(Lg *g, Dtype t, LgVal v);
LgVal lg_expr(Lg *g, const Node *e);
LgVal lg_value(Lg *g, const Node *e, Dtype t);  /* e with its float literals in t (cg_value_str) */
/* C's usual arithmetic on two values (+ - * / % << >> & | ^ and compares). */
LgVal lg_binary(Lg *g, AstOp op, LgVal a, LgVal b);
LgVal lg_binc(Lg *g, AstOp op, LgVal a, int64_t c);  /* a op c, c a literal (int or long long) */
/* The truth of a value (for if, &&, ?:). */
LLVMValueRef lg_truth(Lg *g, LgVal v);
/* The pointer to an element (global: its bounds test in *cond, NULL when
 * none), and its stored type. */
LLVMValueRef lg_element_ptr(Lg *g, const Node *e, LLVMValueRef *cond, Dtype *dt);
/* Offsets as values of type long long (global) or int (shared). */
LLVMValueRef lg_global_dim(Lg *g, const IrBuf *b, int d);
LLVMValueRef lg_global_offset(Lg *g, const IrBuf *b, LgVal *coords);
LLVMValueRef lg_global_inbounds(Lg *g, const IrBuf *b, LgVal *coords);
LgVal lg_shared_offset(Lg *g, const IrBuf *b, LgVal *coords, const LgVal *xor_row);
LgVal lg_stage(Lg *g, const IrBuf *b);
/* Pointer to element `offset` (in elements) of a buffer's storage. */
LLVMValueRef lg_gep(Lg *g, LLVMTypeRef elem, LLVMValueRef base, LLVMValueRef offset);
/* The fragment's register `reg` coordinates (cg_frag_coords), and whether
 * it holds a real element (NULL: always). */
void lg_frag_coords(Lg *g, const IrBuf *b, int64_t reg, LgVal *coords, LLVMValueRef *valid);
LLVMValueRef lg_frag_reg_ptr(Lg *g, const IrBuf *b, LLVMValueRef reg);
/* The element of type dt at ptr as its compute type where cond holds, 0
 * otherwise, loaded only where cond holds (C's `cond ? x : 0`). */
LgVal lg_guarded_load(Lg *g, LLVMValueRef cond, LLVMValueRef ptr, Dtype dt);
LLVMValueRef lg_buf_base(Lg *g, const IrBuf *b);
/* The 32-bit .shared address of a shared pointer (tl_smem_addr): the
 * addrspace(3) pointer is 64 bits wide in nvptx64, and handed to an "r"
 * operand it would be truncated silently; the window fits 32 bits. */
LLVMValueRef lg_shared_addr(Lg *g, LLVMValueRef p);  /* a shared buffer's address (ptr addrspace(3)) */
LgVal lg_int(Lg *g, int64_t v);      /* an int constant (long long past 32 bits), as C types a literal */

/* llvm_stmt.c */
void lg_block_emit(Lg *g, IrBlock *b);
/* The condition under which this thread is the one that stores register
 * reg's element of fragment d (cg_element_owner), or NULL. */
LLVMValueRef lg_element_owner(Lg *g, const IrBuf *d, int64_t reg);

/* llvm_copy.c, llvm_reduce.c, llvm_gemm.c: the tile operations
 * (lower_copy.c, lower_reduce.c, lower_gemm.c are the model), and the
 * software-pipelined loop of cp.async copies (emit_stmt.c's cg_pipelined) */
void lg_copy(Lg *g, IrStmt *s);
void lg_fill(Lg *g, IrStmt *s);
void lg_atomic_add(Lg *g, IrStmt *s);
void lg_reduce(Lg *g, IrStmt *s);
/* Element `index` of the shared scratch (k->scratch_offset, plan_shared)
 * as an array of type t (llvm_reduce.c). */
LLVMValueRef lg_scratch(Lg *g, LgType t, LgVal index);
void lg_scan(Lg *g, IrStmt *s);  /* llvm_scan.c (lower_scan.c is the model) */
void lg_atomic_value(Lg *g, IrStmt *s);  /* llvm_atomic.c (lower_atomic.c is the model) */
/* v from another lane of the warp: lane - off, its own below lane off
 * (LG_SHFL_UP, __shfl_up_sync), lane ^ off (LG_SHFL_XOR, __shfl_xor_sync),
 * lane off (LG_SHFL_IDX, __shfl_sync) or lane + off, its own past lane 31
 * (LG_SHFL_DOWN, __shfl_down_sync); 64-bit values move as two 32-bit
 * halves, the high one first, as CUDA's overloads move them. */
typedef enum LgShuffle { LG_SHFL_UP, LG_SHFL_XOR, LG_SHFL_IDX, LG_SHFL_DOWN } LgShuffle;
LgVal lg_shuffle(Lg *g, LgVal v, LgShuffle mode, int64_t off);
void lg_gemm(Lg *g, IrStmt *s);
void lg_pipelined(Lg *g, IrStmt *s);
/* cp.async groups (tl_cp_async_commit, tl_cp_async_wait<pending>): the
 * thread's copies issued since the last commit become one group; the wait
 * returns once at most `pending` of its groups are still in flight. */
/* cp.async of `bytes` (16, 8 or 4) from src to shared dst; with cond (may
 * be NULL: always) false, zeros, read from nowhere (src then base). */
void lg_cp_async(Lg *g, int bytes, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef base, LLVMValueRef cond);
void lg_cp_async_commit(Lg *g);
void lg_cp_async_wait(Lg *g, int pending);

/* llvm_schedule.c: block indices, the persistent tile loop and split tiles
 * (emit.c's cg_block_indices, tile_order.c and lower_split.c are the
 * model) */
/* The block indices from blockIdx (lin NULL) or from the linear tile
 * number *lin, in panels where use_swizzle asks, and clusters' ranks. */
void lg_block_indices(Lg *g, const LgVal *lin);
typedef struct LgTileLoop {
    LLVMBasicBlockRef head, latch, exit;
    LLVMValueRef n, tile;            /* the phis */
    bool producer;
} LgTileLoop;
void lg_tile_loop_begin(Lg *g, LgTileLoop *l, bool producer);
void lg_tile_loop_end(Lg *g, LgTileLoop *l);
/* The loop over the iterations of this unit (all n unless split), var
 * bound to the iteration (NULL: none); its end counts the pipeline's
 * iterations in the i32 alloca `it` (tl_it). */
void lg_split_loop_begin(Lg *g, LgLoop *l, LgVal n, const Sym *var);
void lg_split_loop_end(Lg *g, LgLoop *l, LLVMValueRef it);
void lg_split_sum(Lg *g);
void lg_schedule_globals(Lg *g);     /* the counters and partial sums the schedule keeps */
/* The atomics and fences the schedules use. */
void lg_threadfence(Lg *g);
LLVMValueRef lg_atomic(Lg *g, LLVMAtomicRMWBinOp op, LLVMValueRef ptr, LLVMValueRef v);
LLVMValueRef lg_shfl0(Lg *g, LLVMValueRef v);  /* lane 0's v in every lane */
void lg_named_bar(Lg *g, const char *op, LLVMValueRef id, int threads);  /* bar.sync / bar.arrive */
LLVMValueRef lg_warpgroup_leader(Lg *g);  /* tid % 128 == 0: the first thread of its warpgroup */

/* llvm_hopper.c: the warp-specialised sm_90a pipeline (lower_hopper.c is
 * the model) */
void lg_hopper_params(Lg *g);        /* the tensor maps' addresses */
void lg_hopper_split(Lg *g);         /* mbarriers, the producer; the consumers go on */
void lg_hopper_consumer(Lg *g, IrStmt *loop);
void lg_hopper_preload_wait(Lg *g);
void lg_hopper_tma_store(Lg *g, IrStmt *s);
void lg_hopper_idle_begin(Lg *g);
void lg_hopper_idle_end(Lg *g);
void lg_hopper_finish(Lg *g);
/* The byval tensor-map parameters the kernel type gets, and the PTX
 * directives LLVM 19 does not print (clusters). */
int lg_hopper_nparams(const IrKernel *k);
char *lg_hopper_ptx_directives(const IrKernel *k, char *ptx, size_t *len);

/* llvm_target.c */
/* PTX of module m for sm_<arch>(a), after O3 (and the libdevice link where
 * the module calls __nv_* functions). The module is consumed. False after
 * a sentence in err. */
typedef struct LgTimes { double link_s, opt_s, ptx_s; } LgTimes;
bool lg_module_to_ptx(LLVMContextRef ctx, LLVMModuleRef m, int arch, bool arch_specific, bool libdevice, char **ptx,
                      size_t *ptx_len, LgTimes *t, char err[256]);
double lg_now_s(void);  /* a monotonic clock */
const char *lg_triple(void);
const char *lg_data_layout(void);

/* llvm_random.c: randint (i32), rand and randn (float) of an i64 seed
 * and offset, bit for bit as frontend/random.c computes them. rn_ops:
 * multiplies and adds through NVPTX's .rn intrinsics (the GPU); without,
 * target-free (the host runs it: tests/llvm/test_random.c). */
typedef enum RandomKind { RANDOM_INT, RANDOM_UNIFORM, RANDOM_NORMAL } RandomKind;
LLVMValueRef lg_random_soft(LLVMBuilderRef b, LLVMModuleRef m, RandomKind kind, LLVMValueRef seed, LLVMValueRef offset,
                            bool rn_ops);

/* llvm_fp8.c: cuda_fp8.h's software conversions (every fp8 conversion on
 * sm_80, float -> f8e5m2 everywhere) as straight-line integer IR at b's
 * position, target-free (the host runs it too: tests/llvm/test_fp8.c). */
/* Float v to the fp8 byte (i8) of t, rounded to nearest even: f8e4m3
 * saturates to +-448 (infinity too), f8e5m2 overflows to infinity; NaN
 * gives 0x7F. */
LLVMValueRef lg_fp8_from_float_soft(LLVMBuilderRef b, Dtype t, LLVMValueRef v);
/* The fp8 byte (i8) of t to the bits (i16) of the f16 that holds it
 * exactly; NaN gives 0x7FFF. */
LLVMValueRef lg_fp8_to_half_bits_soft(LLVMBuilderRef b, Dtype t, LLVMValueRef byte);

#endif
