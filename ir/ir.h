/* ir.h - the tile IR: buffers with memory scope, shape, layout, swizzle and
 * stages; tile operations on regions; loops with kinds and pipeline
 * schedules; copies with a mechanism and explicit completion. One IR for
 * both GPU generations: Hopper's TMA copies, mbarriers and warpgroup roles
 * are further values of the same fields (CopyMech, the completion object,
 * IrKernel.roles), not a second IR.
 *
 * Scalar expressions are the checked, folded syntax-tree expressions of the
 * front end (their symbols name buffers and values); statements are IR. */
#ifndef TILEC_IR_H
#define TILEC_IR_H

#include "frontend.h"
#include "launch_shape.h"

/* The lets of a pipelined loop's body that its early copies may use. */
enum { IR_MAX_LOOP_LETS = 16 };

/* What the generated code may assume of the GPU it runs on: the device's
 * own figures when tilec runs the kernel, else a preset for --arch
 * (target.c). Everything the passes size by the machine (waves of tiles,
 * blocks an SM holds, shared memory a block may have) comes from here. */
typedef struct Target {
    char name[16];          /* "sm_90a" */
    int arch;               /* 80, 90 ... */
    bool arch_specific;     /* an "a" target (sm_90a): wgmma and setmaxnreg exist only there */
    int sms;                /* streaming multiprocessors */
    int64_t smem_per_sm;    /* bytes of shared memory an SM has (1 KiB of each block's is the system's) */
    int64_t smem_per_block; /* the most dynamic shared memory a block may opt in to */
    int64_t regs_per_sm;    /* 32-bit registers */
    int threads_per_sm;
} Target;

/* The schedule choices of the sm_90a path that the command line may force
 * (tilec --help, docs/profiling.md); AUTO is the compiler's own choice. */
typedef enum Choice { CHOICE_AUTO, CHOICE_ON, CHOICE_OFF } Choice;
/* Warpgroups whose rows all lie past a ragged edge: skip their work and
 * take their tiles last (AUTO), skip it in the plain tile order (SKIP), or
 * run them like the others (OFF). */
typedef enum IdleChoice { IDLE_AUTO, IDLE_SKIP, IDLE_OFF } IdleChoice;
enum { PLAN_SPLIT_MAX = 16 }; /* the most pieces a split tile may run as */
/* The kernels of a persistent grid of dynamic sizes whose tile count is
 * known only at launch (docs/decisions.md, "Variants chosen at launch"):
 * the base one (whole tiles, a last wave filled at most half in halves),
 * one that runs every tile in halves (for grids of at most half a wave),
 * and one that splits tiles along the loop (for grids of less than a
 * wave). Each computes the right result at every size, each carrying only
 * the code of its own case; a launch takes the one its sizes suit
 * (rt_variant_fits). Specialised kernels know their tile count and are
 * always the base one. */
typedef enum LaunchVariant { VARIANT_BASE, VARIANT_HALVES, VARIANT_SPLIT, VARIANT_COUNT } LaunchVariant;
typedef struct PlanOptions {
    Choice clusters;         /* clusters of two with TMA multicast */
    Choice persistent;       /* persistent blocks looping over the tiles */
    int split_max;           /* split tiles: at most this many pieces; below 2, none */
    LaunchVariant variant;   /* which kernel of a dynamic grid's family to build */
    Choice halves;           /* a last wave filled at most half in halves of its tiles (ON: as AUTO) */
    Choice longest_first;    /* tiles of unequal length taken longest first (ON: as AUTO) */
    IdleChoice idle;
} PlanOptions;

/* ---- target.c ---- */
/* The preset Target of an --arch name; false if the name is malformed. */
bool target_preset(const char *arch, Target *t);
/* One line naming every field, for cache keys and -v. */
void target_describe(const Target *t, char *out, size_t n);
PlanOptions plan_defaults(void);
void plan_describe(const PlanOptions *p, char *out, size_t n);
/* "base", "halves" or "split" (--variant). */
const char *plan_variant_name(LaunchVariant v);

typedef enum IrOp {
#define X(id, name, tile) IR_##id,
#include "ops.h"
    IR_OPS(X)
#undef X
    IR_COUNT
} IrOp;

/* How a fragment's elements are spread over the block's threads. */
typedef enum LayoutKind {
    LAYOUT_NONE,       /* not decided yet */
    LAYOUT_ACC,        /* mma.sync m16n8k16 accumulator, warps in a wm x wn grid */
    LAYOUT_ROW,        /* one value per row of an ACC layout (reduction along dim 1) */
    LAYOUT_BLOCKED,    /* chunks of `vec` elements dealt round-robin to threads */
    LAYOUT_REPLICATED, /* every thread holds every element */
} LayoutKind;

typedef struct Layout {
    LayoutKind kind;
    int wm, wn;         /* ACC/ROW: warp grid */
    int64_t wtm, wtn;   /* ACC/ROW: rows/columns of one warp's tile */
    int mi, ni;         /* ACC/ROW: m16 and n8 tiles per warp */
    int vec;            /* BLOCKED: elements per chunk */
    int64_t chunks;     /* BLOCKED: chunks per thread (the last may be partial) */
    int64_t pitch;      /* BLOCKED: the elements a row of the last dim takes, padding included (a
                         * multiple of threads x vec: every chunk within one row), or 0: rows packed */
    int64_t regs;       /* registers (elements) per thread */
    Loc origin;         /* the operation that decided it, for errors */
} Layout;

/* How a copy moves data. */
typedef enum CopyMech {
    COPY_SYNC,      /* loads and stores by the threads */
    COPY_CP_ASYNC,  /* Ampere cp.async into shared memory, completed by commit groups */
    COPY_TMA,       /* Hopper bulk tensor copy, completed by an mbarrier */
    COPY_RING_ASYNC, /* Hopper: cp.async by the producer warpgroup's threads into ws_loop's ring
                      * (rows TMA cannot address, gathered rows), completed on the slot's full mbarrier */
    COPY_RING_INDEX, /* Hopper: the row indices of the ring's gathers, copied into shared memory by the
                      * producer warpgroup's threads at the start of each tile */
    COPY_TMA_STORE, /* Hopper: fragment -> shared staging tile -> bulk tensor store to global */
} CopyMech;

typedef struct IrBuf {
    Sym *sym;
    const char *cname;     /* its name in the generated code */
    MemScope scope;
    Dtype dtype;
    int rank;
    int64_t shape[MAX_RANK];
    /* Tensors: the dynamic size of each dimension, or NULL where shape[d]
     * is compiled in. A dynamic dimension's shape[d] is only the value of
     * tilec's own run: passes and code generation must not read it (the
     * buf_dim_* queries answer for both kinds). */
    const Sym *dyn[MAX_RANK];
    ParamMode mode;        /* tensors */
    Layout layout;         /* fragments */
    int swizzle_chunks;    /* shared: XOR swizzle period in 16-byte chunks (0: none) */
    int stages;            /* shared: copies kept in flight by a pipelined loop */
    int64_t stage_bytes;   /* shared: bytes of one stage */
    int64_t smem_offset;   /* shared: offset in dynamic shared memory */
    /* shared, on the sm_90a path: stored as TMA writes tiles and wgmma
     * reads them (column blocks of one swizzle span a row, each stage
     * 1024-byte aligned), because a TMA copy fills it or the consumers
     * write a wgmma operand into it (`consumer_written`: their ordinary
     * stores reach the wgmmas' async proxy only through a proxy fence). */
    bool tma_layout;
    bool consumer_written;
    Loc loc;
} IrBuf;

/* A tile operand: buf[idx0 + 0 : idx0 + ext0, ...]; idx NULL means 0.
 * A gather (scatter) region of a tensor takes its row r along dim 0 from
 * element r of `gather`, a 1-D integer buffer in shared or local memory
 * (idx[0] is then NULL); a row index past the tensor reads 0, writes
 * nothing. */
typedef struct IrRegion {
    IrBuf *buf;
    Node *idx[MAX_RANK];
    int64_t ext[MAX_RANK];
    IrBuf *gather;
} IrRegion;

typedef struct IrStmt IrStmt;
typedef struct IrBlock {
    IrStmt **items;
    int len, cap;
} IrBlock;

enum { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ABSMAX };
/* ATOMIC: what the atomic on one element does */
typedef enum AtomicKind { ATOMIC_ADD_OLD, ATOMIC_MAX, ATOMIC_MIN, ATOMIC_EXCH, ATOMIC_CAS } AtomicKind;
enum { POLICY_SQUARE, POLICY_FULL_ROW, POLICY_FULL_COL };

struct IrStmt {
    IrOp op;
    Loc loc;
    IrRegion src, dst;         /* COPY, ATOMIC_ADD (src or value), FILL (dst), REDUCE */
    IrRegion a, b, c;          /* GEMM */
    bool trans_a, trans_b, clear;
    int policy;                /* GEMM */
    int reduce_kind, dim;      /* REDUCE; SCAN: dim */
    bool reverse, exclusive;   /* SCAN: suffix sums; each element's sum without itself */
    AtomicKind atomic;         /* ATOMIC: on element `target` with `value` (and `compare`); its old value in
                                  the let `sym`, or none (NULL) */
    Node *compare;
    Node *value;               /* FILL value, LET/VAR init, STORE rhs, IF cond, ATOMIC_ADD scalar */
    Node *target;              /* STORE lhs (a var name or an element) */
    AstOp assign_op;           /* STORE: OP_ASSIGN, OP_ADD_ASSIGN ... */
    Sym *sym;                  /* LET/VAR symbol; FOR loop variable */
    /* FOR / PARALLEL */
    LoopKind loop;
    Node *lo, *hi, *step;      /* FOR range: [lo, hi) by step (NULL: 0 / 1) */
    Sym *vars[MAX_RANK];       /* PARALLEL loop variables */
    int64_t extents[MAX_RANK];
    int nvars;
    int stages;                /* pipelined */
    IrBlock body, els;         /* FOR/PARALLEL/IF bodies; IF else */
    IrBuf *driver;             /* PARALLEL: the fragment whose layout spreads it */
    /* COPY: mechanism; for pipelined producers, the loop that prefetches. */
    CopyMech mech;
    IrStmt *pipeline;          /* COPY hoisted into this pipelined FOR */
    bool wgmma;                /* GEMM: Hopper warpgroup MMA from shared-memory descriptors */
    bool multicast;            /* COPY (TMA): the cluster's blocks load the same tile, half each */
    bool producer_too;         /* LET the copies a pipeline issues ahead need: before a warp-specialised loop (the
                                  producer warpgroup evaluates it too), or at the top of a pipelined loop's body
                                  (evaluated for the iteration a copy is issued for; at most IR_MAX_LOOP_LETS) */
    bool sync_before;          /* a block-wide barrier is needed before it */
    const char *not_pipelined; /* COPY at the top of a pipelined loop's body, loading in its own iteration: why */
    const char *not_async;     /* COPY issued ahead with plain loads (COPY_SYNC), not cp.async: why */
    const char *not_in_registers; /* SCAN still in shared memory (plan_scan): why */
    NodeList print_args;       /* PRINT */
};

/* Whether copy s is the producer warpgroup's (sm_90a): a TMA copy, a
 * cp.async into the ring or its gathers' row indices; the consumers skip
 * it or wait for it. */
static inline bool copy_by_producer(const IrStmt *s) {
    return s->mech == COPY_TMA || s->mech == COPY_RING_ASYNC || s->mech == COPY_RING_INDEX;
}

/* The order in which the units of a persistent block's loop take the
 * grid's tiles (codegen/tile_order.c prints it). */
typedef enum TileOrder {
    /* Round n of the G blocks takes tiles nG .. nG + G - 1, block b the
     * b-th in even rounds and the (G-1-b)-th in odd ones. */
    ORDER_SNAKE,
    /* Longest tiles first: where the loop's trip count grows (reverse: the
     * last index first) or shrinks along grid dimension dim only, blocks
     * draw their tiles from a counter in that order, through the other
     * dimensions' units in sections of `section`. */
    ORDER_LONGEST_FIRST,
    /* The tiles at the end of grid dimension dim, those with idle
     * warpgroups, after all the others. */
    ORDER_IDLE_LAST,
} TileOrder;

/* The sm_90a path's schedule: how the grid's tiles are dealt to blocks,
 * decided in one place (passes/plan_schedule.c) once the kernel's shared
 * memory is planned, and read by the code generators. */
typedef struct Schedule {
    /* Persistent: as many blocks as fit on the GPU at once, each looping
     * over the grid's tiles (tile = blockIdx.x, + gridDim.x, ...), so a
     * block's producer loads the next tile during the epilogue of this one. */
    bool persistent;
    /* Thread-block clusters: `cluster` blocks (0: none, or 2) neighbouring
     * along grid dimension `cluster_dim` run as one cluster; the loop's
     * copies marked `multicast` are loaded half by each block and
     * multicast into both. */
    int cluster, cluster_dim;
    TileOrder order;
    int order_dim;           /* LONGEST_FIRST, IDLE_LAST: the grid dimension */
    bool order_reverse;      /* LONGEST_FIRST: from the last index */
    int64_t order_section;   /* LONGEST_FIRST: units a section */
    /* Warpgroups with nothing to store: the epilogue's stores (IrStmt*)
     * whose row starts tell, at run time, whether this warpgroup's rows all
     * lie past their edges (then it only waits for and frees each slot);
     * empty where that cannot happen or be told. */
    PtrVec idle_stores;
    /* Split tiles: every tile runs as split_ways pieces (0: none), piece p
     * taking iterations [p n / ways, (p + 1) n / ways) of the loop's n,
     * each as a unit of a persistent block's loop (units t * ways + p); the
     * pieces' warpgroups add their partial sums up pairwise in global
     * memory, and the one left with the tile's sum runs the epilogue
     * (codegen/lower_split.c). */
    int split_ways;
    /* Half tiles: the units of a persistent block's loop (tiles, or pairs
     * of them in clusters) from half_from on, the last half_tiles of the
     * grid's order, run as two units each, one per half of the tile's
     * columns (the gemm's N): a last wave filled at most half then takes
     * half the time. Units half_from + 2i + h: tile half_from + i, columns
     * [h N/2, (h + 1) N/2). 0: none. */
    int64_t half_from, half_tiles;
    /* Half tiles of a grid of dynamic sizes, decided at launch: the block
     * slots (SMs times blocks an SM holds) a wave has; the kernel and the
     * host both take the run-time tile count T and, where its last wave's
     * rest r = T mod half_slots is at most half a wave, run T - r whole
     * tiles then 2r halves (rt_half_units). 0: none. */
    int64_t half_slots;
    /* ... with every unit in halves (VARIANT_HALVES): 2T units, no whole
     * tiles */
    bool half_all;
    /* Split tiles of a grid of dynamic sizes, decided at launch: the slots
     * a wave has for the loop's units (tiles, or pairs of them in
     * clusters, which then split alike: both blocks of a cluster run the
     * same piece), and the most pieces a tile; the kernel and the host
     * both take the run-time unit count U and trip count n and run every
     * unit in rt_split_ways(U, split_slots, n, split_max) pieces where
     * that is 2 or more (then no half tiles). 0: none. */
    int64_t split_slots;
    int split_max;
    RtGridExpr split_trips;  /* n as the program the launch evaluates */
} Schedule;

/* Which variant of a dynamic grid's kernel (PlanOptions.variant) a
 * schedule is: its own case's code says so. */
static inline LaunchVariant sched_variant(const Schedule *s) {
    return s->half_all ? VARIANT_HALVES : s->split_slots ? VARIANT_SPLIT : VARIANT_BASE;
}

/* Whether k's tiles may run in pieces (compiled in, or decided at launch). */
static inline bool sched_has_split(const Schedule *s) { return s->split_ways || s->split_slots; }

/* Whether units of k's persistent loop may be half tiles (compiled in, or
 * decided at launch). */
static inline bool sched_has_halves(const Schedule *s) { return s->half_tiles || s->half_slots; }

typedef struct IrKernel {
    Ctx *c;
    KernelInfo *info;
    const char *name;          /* unique per specialisation */
    PtrVec params;             /* IrBuf* of tensors; scalars are Sym* in info->params */
    PtrVec buffers;            /* IrBuf* of alloc_* buffers */
    IrBlock body;
    int64_t grid[3];           /* -1: a dimension of dynamic sizes (info->grid_expr) */
    int grid_rank;
    int64_t threads;
    int swizzle_panel;         /* use_swizzle: 0 when absent */
    bool swizzle_col;
    int64_t smem_bytes;        /* dynamic shared memory */
    int64_t scratch_offset;    /* reduction scratch in shared memory */
    int64_t scratch_bytes;
    int arch;                  /* target.arch: 80, 90 ... */
    bool arch_specific;        /* target.arch_specific */
    Target target;
    PlanOptions plan;
    /* --lineinfo: the CUDA C carries a #line directive naming the .tile
     * line before every line printed for a statement, and NVRTC compiles
     * it with -lineinfo (the profilers and debuggers then show .tile lines). */
    bool line_directives;
    /* --emit-llvm: the llvm backend keeps the module's text before O3
     * (printing it costs about as much as building the module: ~10 ms). */
    bool llvm_text;
    /* Warp specialisation (sm_90a GEMM path): `threads` consumer threads run
     * the kernel, and one more warpgroup of `producer_threads` issues the TMA
     * copies of `ws_loop` (0 / NULL: every thread runs everything). */
    int64_t producer_threads;
    IrStmt *ws_loop;
    const char *hopper_declined;   /* a kernel with gemms on sm_90a without ws_loop: why (for -v) */
    /* Its TMA copies, one tensor map each: those of ws_loop's body (into
     * rings of stages, completing on full[stage]) and those before the loop
     * (loaded once, completing on the preload barrier). */
    PtrVec tma_copies;
    /* The copies of ws_loop's body that the producer warpgroup's threads
     * issue as cp.async into the ring (COPY_RING_ASYNC): rows TMA cannot
     * address (gathered by index, or not whole 16-byte units). */
    PtrVec ring_async_copies;
    /* Copies before ws_loop into the shared row indices of its gathers
     * (COPY_RING_INDEX): the producer's threads run them for each tile. */
    PtrVec ring_index_copies;
    /* The loop's TMA copies complete on a ring of `stages` full mbarriers,
     * and the consumers free the slots on a ring of empty ones. */
    int64_t mbar_offset;       /* its mbarriers in shared memory: full[stages], empty[stages], preload,
                                * preload_free */
    /* Epilogue copies stored through shared memory and TMA (plan_store),
     * one tensor map each after the loads' maps; their staging tile (one
     * for all, store_bytes: the largest store's BM x BN elements of its
     * tensor's type) at store_offset. Warpgroup g's rows of every store lie
     * at g * store_bytes / warpgroups, so that no two warpgroups' slices
     * overlap whichever store each is at (one accumulator stored as f32 and
     * then as f16: warpgroup 1's f16 rows would have fallen inside
     * warpgroup 0's f32 ones while TMA still read those). */
    PtrVec tma_stores;
    int64_t store_offset, store_bytes;
    const char *store_declined;  /* why an epilogue store of a fragment stays direct (for -v), or NULL */
    Schedule sched;              /* the sm_90a path's schedule (plan_schedule) */
} IrKernel;

/* ---- build.c ---- */
IrKernel *ir_build(Ctx *c, KernelInfo *info, const Target *target, const PlanOptions *plan);
IrBuf *ir_buf_of(IrKernel *k, const Sym *sym);
void ir_block_push(Ctx *c, IrBlock *b, IrStmt *s);
/* A user name as spelled in generated code (prefixed when it would clash
 * with C, CUDA or the helpers). */
const char *ir_cname(Ctx *c, const Name *n);
/* A symbol's name in generated code: ir_cname's, or where it shadows a
 * name of an outer block, one of its own. */
const char *ir_sym_cname(Ctx *c, const Sym *sym);
/* A new shared buffer of k, of from's type and the given shape, named
 * `<from>_staged` (`<from>_staged2`, ... where the program has the name):
 * what a pass copies a region of `from` into for another reader. */
IrBuf *ir_new_staging_buffer(IrKernel *k, const IrBuf *from, int rank, const int64_t *shape);
/* All of buffer b as a region. */
IrRegion ir_whole_region(IrBuf *b);
/* A new statement copy(src, dst), for a pass to place. */
IrStmt *ir_new_copy(IrKernel *k, Loc at, IrRegion src, IrRegion dst);

/* ---- print.c ---- */
void ir_print(FILE *out, const IrKernel *k);
const char *ir_op_name(IrOp op);

/* ---- verify.c ---- */
/* Structural checks between passes (debug builds); a failure is a bug. */
void ir_verify(const IrKernel *k, const char *after_pass);

/* ---- query.c ---- */
/* Pure queries of IR and syntax-tree data, shared by the passes and code
 * generation. */
int64_t buf_elems(const IrBuf *b);
int64_t buf_bytes(const IrBuf *b); /* buf_elems times the element size */
/* The type a cumsum of t adds in: f64, f32 for narrower floats, 64-bit
 * integers as themselves, narrower ones as i32 or u32. */
Dtype scan_sum_dtype(Dtype t);
/* How often the statements of b (nested ones too) name buf: as an operand
 * region (copy, gemm, fill, reduce, atomic) or in an element access. */
int buf_use_count(IrBlock *b, const IrBuf *buf);
/* Whether a statement of b, or one nested in it, writes buf: a copy's,
 * fill's, reduction's or atomic_add's destination, a gemm's accumulator, a
 * scan's tile (scanned in place) or destination, the element an assignment
 * or a scalar atomic names. */
bool buf_written_in(IrBlock *b, const IrBuf *buf);
/* Whether a statement of b, or one nested in it, is a gemm. */
bool block_has_gemm(const IrBlock *b);
/* The dimension of tensor region r that a 2-D tile's rows lie on: the
 * last but one whose extent is not 1 (Q[b, i : i + 64, h, 0 : D]: 1), the
 * last but one where there is none. The columns lie on the last. */
int region_row_dim(const IrRegion *r);
/* The K of gemm s: the columns of its A, or the rows with transpose_a. */
int64_t gemm_k(const IrStmt *s);
/* Calls fn for every element access (N_INDEX) inside the expression. */
typedef void (*IndexVisit)(Node *index, void *arg);
void expr_visit_indices(Node *e, IndexVisit fn, void *arg);
/* Every element access in the statements of a block (expressions, store targets and print arguments). */
void block_visit_indices(IrBlock *b, IndexVisit fn, void *arg);
/* Whether pred holds for e or for any expression below it (indices and
 * call arguments included). */
typedef bool (*ExprPred)(const Node *e, const void *arg);
bool expr_any(const Node *e, ExprPred pred, const void *arg);
/* Whether pred holds for an expression of a statement of b or of one
 * nested in it (values, conditions, store targets). */
bool block_any_expr(const IrBlock *b, ExprPred pred, const void *arg);
/* The first node (in that order) for which pred holds, or NULL. */
const Node *expr_find(const Node *e, ExprPred pred, const void *arg);
/* e without the conditionals its specialisation decided: the taken arm of
 * `c ? a : b` with a constant c, x for `true && x` or `x || false` (x a
 * boolean), repeatedly; e itself otherwise. The front end leaves the tree
 * as written (it is checked again for every specialisation), so the passes
 * and the code generator fold where they read it. */
const Node *expr_decided(const Node *e);
/* Whether dimension d of b is a dynamic size (a kernel argument). */
bool buf_dim_dynamic(const IrBuf *b, int d);
/* Whether dimension d of b is certainly a multiple of m: its compiled
 * extent is, or its dynamic size is promised a multiple of one that is. */
bool buf_dim_multiple_of(const IrBuf *b, int d, int64_t m);
/* Whether a row of b (its last dimension) certainly takes a multiple of
 * `bytes` bytes. */
bool buf_row_bytes_multiple_of(const IrBuf *b, int64_t bytes);
/* Whether k's grid has a dimension of dynamic sizes (k->grid[d] is -1). */
bool kernel_grid_dynamic(const IrKernel *k);
/* host_program.c: integer expression e of the dynamic sizes (in
 * `dynamic`'s order) as the program a launch evaluates (launch_shape.h);
 * false where it uses anything else or has too many operations. */
bool ir_host_program(const Node *e, const PtrVec *dynamic, RtGridExpr *out);
/* Whether e is absent (a region's start of 0) or the integer constant 0. */
bool expr_is_zero(const Node *e);
/* Where region r is a tile of `rank` dims with this shape in its buffer's
 * last dims (the leading extents 1): how many leading dims; else -1. A
 * fragment of that shape copied there maps its dim i to the buffer's
 * dim lead + i. */
int region_lead(const IrRegion *r, int rank, const int64_t *shape);
/* Whether region r covers all of its buffer (starts at 0, full extents). */
bool region_is_whole(const IrRegion *r);
bool layout_equal(const Layout *a, const Layout *b);
const char *layout_describe(Ctx *c, const Layout *l); /* in words, for messages */

/* ---- walk helpers (build.c) ---- */
typedef void (*IrVisit)(IrStmt *s, void *arg);
void ir_walk(IrBlock *b, IrVisit pre, void *arg);

#endif
