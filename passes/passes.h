/* passes.h - the passes over the tile IR, one file each, run in the order
 * pipeline.c lists. A pass reports user errors through the Ctx (located,
 * naming buffers and operations in source terms) and leaves the IR
 * consistent for the next one. */
#ifndef TILEC_PASSES_H
#define TILEC_PASSES_H

#include "ir.h"

/* pipeline.c */
typedef struct PassOptions {
    const char *print_after;  /* comma-separated pass names, or "all"; NULL: none */
    FILE *print_to;
} PassOptions;
/* Runs every pass; false when one reported errors. */
bool pass_run_all(IrKernel *k, const PassOptions *opt);
/* Whether NAME is a pass (for checking --print-ir-after). */
bool pass_exists(const char *name);
/* The pass names in order, separated by ", " (for messages). */
const char *pass_names(void);

/* requires: built IR; provides: every gemm's A and B whole buffers, B in
 * shared memory, A too unless it can stay in registers (full_row, not
 * transposed), and copies into local buffers from shared memory, not from
 * fragments: an operand or source copied into a shared buffer of its own
 * just before where needed. On sm_90a a B that is a part of a shared
 * buffer wgmma can read where it lies (pass_wgmma_region_ok) is left to
 * plan_warpgroups, which stages it where no wgmma reads it after all
 * (pass_stage_regions). */
void pass_stage_operands(IrKernel *k);
void pass_stage_regions(IrKernel *k);
/* requires: built IR; provides: on sm_90a, for a GEMM-shaped pipeline, TMA
 * copies, a wgmma gemm and a producer warpgroup (nothing otherwise) */
void pass_plan_warpgroups(IrKernel *k);
/* Whether wgmma can read region r, a part of a shared buffer, as gemm gm's
 * B where it lies: the buffer's descriptor moved on by whole swizzle atoms
 * (region_bytes in both code generators). The buffer is 2-D, the region
 * starts at a column that is provably the first of a column block (one
 * swizzle span of a row) and at a row that is provably a multiple of 8
 * (an atom's rows), and read N-major it spans whole column blocks. */
bool pass_wgmma_region_ok(const IrStmt *gm, const IrRegion *r);
/* requires: built IR; provides: a layout for every fragment */
void pass_infer_layout(IrKernel *k);
/* requires: layouts; provides: in parallel loops, fragment elements other
 * threads hold read (and written) through a shared copy of the fragment */
void pass_stage_elements(IrKernel *k);
/* requires: layouts; provides: async mechanism and stages for copies in pipelined loops */
void pass_plan_pipeline(IrKernel *k);
/* requires: layouts; provides: cumsums of blocked fragments' rows in
 * registers (an IR_SCAN from src to dst fragments) where the layouts allow,
 * in place of the staging copy, the scan in shared memory and the copy back */
void pass_plan_scan(IrKernel *k);
/* requires: stages; provides: swizzle, offsets and total dynamic shared memory */
void pass_plan_shared(IrKernel *k);
/* requires: shared memory planned; provides: on the sm_90a path, TMA stores
 * (through a staging tile) for the epilogue's accumulator stores that allow them */
void pass_plan_store(IrKernel *k);
/* requires: everything above; provides: sync_before on operations that need a barrier */
void pass_insert_sync(IrKernel *k);
/* requires: everything above (shared memory planned: it fixes the blocks an
 * SM holds); provides: on the sm_90a path, IrKernel.sched, the whole
 * schedule: persistence, split and half tiles, clusters, the tile order,
 * idle warpgroups */
void pass_plan_schedule(IrKernel *k);
void pass_warn_fast_paths(IrKernel *k);

/* The parts of the schedule, in the order plan_schedule decides them. */
/* schedule_split.c: Schedule.split_ways, where a grid of less than a wave
 * runs every tile in pieces along the loop (statement `at` of the body) */
void schedule_split(IrKernel *k, int at);
/* The blocks of kernel k (a thread's accumulator: acc_regs registers) that
 * the target's SMs run at once. */
int64_t pass_hopper_slots(const IrKernel *k, int64_t acc_regs);
/* schedule_clusters.c: Schedule.cluster and cluster_dim, and the loop's
 * copies that multicast (loop: statement loop_at of the body) */
void schedule_clusters(IrKernel *k, IrStmt *loop, int loop_at);
/* schedule_order.c: ORDER_LONGEST_FIRST, where the loop's trip count varies
 * monotonically along one grid dimension */
void schedule_longest_first(IrKernel *k);
/* schedule_idle.c: Schedule.idle_stores, where a warpgroup whose rows are
 * past every store's edge may skip its work, and ORDER_IDLE_LAST, the
 * order that takes such tiles last */
void schedule_idle(IrKernel *k);
/* schedule_halves.c: Schedule.half_from and half_tiles, where a GEMM's last
 * wave is filled at most half: its tiles run in halves of their columns */
void schedule_halves(IrKernel *k);
/* plan_warpgroups.c: the let that defines sym among the top-level
 * statements before the loop (statement loop_at) or else among the first
 * IR_MAX_LOOP_LETS lets at the top of its body (*in_loop: the producer
 * evaluates that one in its own loop, for the iteration it issues); NULL
 * if neither. */
IrStmt *pass_producer_let(const IrKernel *k, int loop_at, const Sym *sym, bool *in_loop);
/* Why the consumer warpgroups of the sm_90a path cannot each go their own
 * way after the loop (they meet at a barrier, write shared memory, ...), or
 * NULL where what each computes reaches the others only through its
 * whole-fragment stores to global memory. With `stores` (schedule_idle,
 * which tells a warpgroup's rows past their edge from them) those are
 * collected there and must not run along a dynamic size. */
const char *pass_warpgroups_apart(IrKernel *k, PtrVec *stores);

/* The bytes of a row of one column block of a tile that TMA writes or reads
 * with a swizzle and wgmma reads: the widest swizzle span (128, 64 or 32
 * bytes) that divides a tile row of row_bytes, 0 when none does. A 192-byte
 * row (96 halves, attention at D = 96) is three 64-byte blocks. */
int64_t pass_swizzle_span(int64_t row_bytes);
/* The elements of such a column block's row, for rows of `cols` elements
 * of `esize` bytes; 0 when no span divides the row. */
int64_t pass_swizzle_cols(int64_t cols, int64_t esize);
/* Whether s clears all of fragment f: a fill of the whole of it with 0
 * (clear()). */
bool pass_clears(const IrStmt *s, const IrBuf *f);
static inline int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* decisions shared by passes and code generation (layout.c); the pure
 * queries they share are ir.h's (query.c) */
/* int_eval.c: the value of integer expression e (NULL: 0) for block
 * indices `at` (NULL: e may not name them): constants, block indices, with
 * `lets` the top-level lets before the pipelined loop, and the operators
 * node_int_value (frontend.h) computes; false where it is anything else or
 * would overflow. */
bool int_eval(const IrKernel *k, const Node *e, const int64_t *at, bool lets, int64_t *out);
/* The rows of the warp grid (wm; the columns are warps / wm) over an m x n
 * gemm accumulator under `policy`: the squarest warp tile that splits it
 * into multiples of 16 x 8; -1 when none does. */
int acc_warp_rows(int64_t m, int64_t n, int warps, int policy);
/* The PTX name of a tensor-core operand type (mma.sync and wgmma): f16,
 * bf16, e4m3, e5m2, s8, u8; NULL for the others. */
const char *mma_ptx_type(Dtype t);
/* The mma.sync instruction a gemm of these dtypes takes on sm_<arch>
 * (f16/bf16 into f32, 8-bit integers into i32, fp8 into f32 from sm_89):
 * k per instruction and the PTX names of the operands' and accumulator's
 * types; false where there is none. */
typedef struct MmaForm {
    int k;
    const char *a, *b, *c;
} MmaForm;
bool gemm_mma_form(int arch, Dtype a, Dtype b, Dtype c, MmaForm *f);
/* Whether sm_<arch>'s mma.sync path multiplies these operands: a
 * gemm_mma_form, K a multiple of its k, B's rows (b_row elements) whole
 * 16-byte units, a warp tile of the accumulator of whole 16 x 8 blocks
 * (otherwise the multiply-add fallback; codegen's cg_gemm, and
 * stage_operands, which stages a fragment A for that fallback). */
bool gemm_mma_ok(int arch, Dtype a, Dtype b, Dtype c, int64_t k, int64_t b_row, int64_t wtm, int64_t wtn);
/* NULL where gemm_mma_ok, else why not (for the warning). */
const char *gemm_mma_why_not(int arch, Dtype a, Dtype b, Dtype c, int64_t k, int64_t b_row, int64_t wtm, int64_t wtn);
/* Why gemm s, its accumulator laid out, runs on multiply-adds, not
 * mma.sync (gemm_mma_why_not, or A's rows in shared memory not whole
 * 16-byte units for ldmatrix); NULL where the tensor cores take it. */
const char *gemm_stmt_mma_why_not(int arch, const IrStmt *s);
typedef enum ReducePath { REDUCE_PATH_ACC_ROWS, REDUCE_PATH_BLOCKED_ROWS, REDUCE_PATH_STAGED } ReducePath;
ReducePath reduce_path(const IrStmt *s, int64_t threads);
/* A cumsum along the rows of a blocked fragment, in registers (plan_scan):
 * chunk c = t + q * threads of the fragment's row-major chunks (layout.vec
 * elements each) lies in row c / (slices * seg); a row's chunks are
 * `slices` runs of `seg` consecutive threads' chunks (seg a power of two up
 * to 32 or a multiple of 32), so a row is scanned by each thread over its
 * chunk, by shuffles over a run's lanes, across a run's warps through the
 * shared scratch, and over the row's runs in each thread's registers. */
typedef struct ScanRegs {
    int64_t seg, slices;
} ScanRegs;
/* NULL and *p where cumsum(src -> dst, dim) can run in registers, else
 * why not (for -v). */
const char *scan_in_registers(const IrBuf *src, const IrBuf *dst, int dim, int64_t threads, ScanRegs *p);
/* Whether s copies a whole fragment into one that other operations laid
 * out otherwise: each element moves to another thread, through the shared
 * scratch (plan_shared sizes it, lower_copy.c moves it). */
bool copy_relayouts(const IrStmt *s);
/* Whether the element access e indexes its buffer with exactly the first
 * nvars variables of parallel loop `loop`, in order. */
bool indexed_by_loop_vars(const Node *e, const IrStmt *loop, int nvars);
/* The layout of one value per row of an accumulator layout. */
Layout row_layout_of(const Layout *acc);
/* The layout fragment b must have for its access e in parallel loop p
 * (whose driver is set) to be an element of the thread that runs the
 * iteration: its driver's, where b has the driver's shape and e indexes it
 * with the loop's variables; one value per row of the driver, where b is
 * rank 1 and indexed by the row variable. False when no layout would do. */
bool own_access_layout(const IrStmt *p, const IrBuf *b, const Node *e, Layout *l);
/* Whether the access e of fragment b in parallel loop p (after
 * infer_layout) is to an element of the thread that runs the iteration:
 * b indexed by the loop's variables with its driver's shape and layout, or
 * a rank-1 b of one value per row of the driver indexed by the row
 * variable. Never for a replicated b (every thread holds every element,
 * but a store reaches only the storing thread's copy). */
bool access_is_own(const IrStmt *p, const IrBuf *b, const Node *e);

#endif
