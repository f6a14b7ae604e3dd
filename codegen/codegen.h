/* codegen.h - CUDA C from the tile IR. The generated file is
 * self-contained: the device helpers (tilec_device.cuh) are pasted in, and
 * only cuda_fp16.h and cuda_bf16.h are included from the toolkit. */
#ifndef TILEC_CODEGEN_H
#define TILEC_CODEGEN_H

#include "passes.h"
#include "launch_shape.h"
#include "tensor_map.h"

/* CG_MAX_TMA: the tensor maps of a kernel, 128 bytes each among its
 * parameters: up to eight loads (plan_warpgroups) and three stores or
 * reductions (plan_store). */
enum { CG_MAX_TMA = 11, CG_MAX_LANE_ACCESSES = 16, CG_MAX_STAGE = 16 };

/* The two code generators: CUDA C that NVRTC compiles (cg_emit), and PTX
 * from LLVM's NVPTX backend (cg_llvm_emit), which ptxas assembles (rt_ptx_to_cubin). */
typedef enum CgBackend { CG_NVRTC, CG_LLVM } CgBackend;

/* What the runtime needs to launch the kernel. */
typedef struct CgKernel {
    CgBackend backend;
    char *source;            /* malloc'd: CUDA C (CG_NVRTC) or PTX (CG_LLVM) */
    size_t source_len;
    char *llvm_ir;           /* CG_LLVM with IrKernel.llvm_text: the module before O3, as text (malloc'd) */
    size_t llvm_ir_len;
    /* CG_LLVM: seconds building the module, linking libdevice, O3, NVPTX */
    double build_s, link_s, opt_s, ptx_s;
    const char *name;        /* extern "C" kernel name, unique per specialisation */
    int64_t grid[3];         /* -1 where grid_expr gives it at launch */
    RtGridExpr grid_expr[3];
    /* The dynamic sizes, int arguments after the parameters (before the
     * tensor maps) in this order; each launch reads them from the tensors'
     * shapes, checks their promises (multiples of divisor) and computes the
     * grid and the tensor maps' dimensions from them. */
    int ndynamic;
    const char *dynamic_name[RT_MAX_DYNAMIC];
    int64_t dynamic_divisor[RT_MAX_DYNAMIC];
    int64_t block;
    int64_t smem_bytes;      /* dynamic shared memory */
    /* TMA tensor maps, passed after the parameters (sm_90a GEMM path) */
    RtTensorMapSpec tma[CG_MAX_TMA];
    int ntma;
    /* grid[0] is the number of tiles: launch min(tiles, SMs) blocks */
    bool persistent;
    /* blocks in a cluster (0: none); a persistent kernel's launch counts
     * whole clusters that can be resident at once */
    int cluster;
    /* a persistent grid of dynamic sizes: how its loop counts its units
     * (half tiles, pairs of tiles in clusters), as the launch must */
    RtUnits units;
    bool lineinfo;           /* the source has #line directives: compile with -lineinfo */
} CgKernel;

/* Generates the kernel; false after reporting an error (located) for what
 * the code generator cannot lower. */
bool cg_emit(IrKernel *k, const char *source_file, CgKernel *out);
void cg_kernel_free(CgKernel *ck);
/* One name per specialisation: the kernel, its values and the target. */
const char *cg_kernel_name(IrKernel *k);
/* The launch fields of out (grid, dynamic sizes, block, shared memory,
 * tensor maps) as both code generators leave them; false after a located
 * error. */
bool cg_launch_info(IrKernel *k, CgKernel *out);

/* llvm_emit.c, in libtilec_llvm.so: only where tilec was built with LLVM
 * (TILEC_HAVE_LLVM). cg_llvm_emit is cg_emit's twin; false after a located
 * error (what it cannot lower) or a sentence on the context's error stream
 * (LLVM failing: a bug). */
#ifdef TILEC_BUILDING_LLVM
#define TILEC_LLVM_API __attribute__((visibility("default")))
#else
#define TILEC_LLVM_API
#endif
TILEC_LLVM_API bool cg_llvm_emit(IrKernel *k, const char *source_file, CgKernel *out);
TILEC_LLVM_API const char *cg_llvm_version(void);  /* "LLVM 19.1.7" */

/* The device helper header (generated from tilec_device.cuh at build time). */
extern const char cg_device_header[];
/* device_header.c: the sections of cg_device_header that the kernel's
 * own code (kernel_text) needs, directly or through each other. */
void cg_write_device_header(FILE *o, const char *kernel_text, size_t kernel_len);
/* tidy.c: text[0..len) with the identity operations of its index
 * arithmetic (x * 1, x + 0, x / 1, 0 + x) and doubled parentheses removed,
 * outside comments, literals and preprocessor lines (malloc'd). */
char *cg_tidy(const char *text, size_t len, size_t *out_len);

/* ---- internal to the codegen files ---- */
typedef struct Cg {
    IrKernel *k;
    FILE *o;
    int ind;
    /* The .tile file and the line of the statement being printed (0: none),
     * for the comments that quote it and --lineinfo's #line directives. */
    const char *src_file;
    int src_line, quoted_line;
    bool in_tile_line;          /* the last #line named a .tile line */
    int uid;                    /* counter for unique temporaries */
    bool failed;
    /* split tiles decided at launch: the consumers' `if (tl_top) {` around
     * the rest of the tile is open (cg_hopper_consumer) */
    bool split_open;
    /* Names bound to C expressions while printing (a loop variable
     * renamed in a pipeline prologue, a parallel loop's coordinates). */
    const Sym *bind_sym[16 + IR_MAX_LOOP_LETS];
    const char *bind_expr[16 + IR_MAX_LOOP_LETS];
    int nbind;
    /* The loops (for, pipelined, the consumers') around what is printed. */
    int loops;
    /* Stage expression of each ring buffer while printing. */
    const IrBuf *stage_buf[CG_MAX_STAGE];
    const char *stage_expr[CG_MAX_STAGE];
    int nstage;
    /* Inside a parallel loop: the loop (each iteration one thread's, or
     * its owner's: below); over a driver also the register variable. */
    const IrStmt *par;
    const IrBuf *driver;
    const char *reg;
    /* Inside a parallel loop over a driver that several threads hold
     * whole or in part (replicated; the row layout, whose rows repeat over
     * a quad's lanes and the warps of a row band): the condition under
     * which this thread is the iteration's one owner, for the effects
     * others must not repeat (stores to global and shared memory, atomics,
     * print). NULL when every iteration has one thread. */
    const char *owner;
    /* The type a float literal printed now takes from its context (the
     * other operand, the target of a store): DT_NONE for f32. */
    Dtype lit_type;
    /* The expression printed next is converted to its own f16 or bf16 type
     * right away (a store): its top node need not round as well. */
    bool store_rounds;
    /* Inside a vectorised parallel loop (lower_parallel.c): the global
     * element accesses that are a lane of a vector register instead (its
     * lvalue, e.g. "v3_.e[l2_]"). */
    const Node *lane_node[CG_MAX_LANE_ACCESSES];
    const char *lane_ref[CG_MAX_LANE_ACCESSES];
    int nlane;
    /* The C type of the block indices and of integer lets and vars: "int",
     * or "long long" when a tensor has 2^31 elements or more, where
     * `bx * BLOCK + i` would overflow 32 bits (cg_emit). */
    const char *index_type;
    /* Printing the code of a half unit (schedule_halves): the gemm's n, B's
     * loads and the epilogue's store cover half of the tile's columns. */
    bool half;
    /* Printing the producer warpgroup's code: its copies run there
     * (COPY_RING_INDEX is skipped elsewhere). */
    bool in_producer;
} Cg;

/* "// x.tile:14  reduce_max(...);" before a statement's code, unless
 * that .tile line was quoted just before. */
void cg_quote_line(Cg *g, Loc loc);
void cg_line(Cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_error(Cg *g, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *cg_tmp(Cg *g, const char *prefix);
/* "(a) && b" of two guard conditions, either of which may be NULL (none) */
char *cg_and(Cg *g, const char *a, const char *b);
/* A scalar let (IR_LET) as a C constant of its type. */
void cg_let(Cg *g, const IrStmt *s);
bool cg_narrow_float(Dtype t);       /* f16, bf16 and the fp8s: stored narrow, computed in float */
const char *cg_storage_type(Dtype t);  /* __half, float, ... */
const char *cg_compute_type(Dtype t);  /* float for f16/bf16/f32, ... */
/* The conversion that turns a stored t into its compute type ("" or
 * "tl_to_float"), and the unsigned vector type of 2-16 bytes and its zero. */
const char *cg_load_wrap(Dtype t);
const char *cg_vector_type(int bytes);
const char *cg_vector_zero(int bytes);
/* The lane that stands for element access e in a vectorised loop, or NULL. */
const char *cg_lane_of(const Cg *g, const Node *e);
/* A compute-type C expression converted for storage as t. */
char *cg_convert(Cg *g, Dtype t, const char *value);
/* Stored element `ref` of type `from`, stored as type `to`: its bits as they
 * are where the types agree, else through the compute type. */
char *cg_convert_elem(Cg *g, Dtype to, Dtype from, const char *ref);
/* A scalar expression as C, in its compute type. */
void cg_expr(Cg *g, const Node *e);
char *cg_expr_str(Cg *g, const Node *e);
/* Extent d of global tensor b as a long long C expression: the constant,
 * or its dynamic size. */
char *cg_global_dim(Cg *g, const IrBuf *b, int d);
char *cg_value_str(Cg *g, const Node *e, Dtype t); /* e as a value of type t: its float literals in t */
/* The C type a scalar of dtype t (a let, a scalar parameter) is held in. */
const char *cg_scalar_type(const Cg *g, Dtype t);
/* The float value v rounded to narrow float type t and back (an f16 value
 * in a float register). */
char *cg_rounded(Cg *g, Dtype t, const char *v);
/* The C lvalue of an element (tensor, shared, fragment, local); for global
 * tensors *cond receives the bounds condition. */
char *cg_element_ref(Cg *g, const Node *e, char **cond);
/* The C expression for the stage of a ring buffer (or "0"). */
const char *cg_stage(Cg *g, const IrBuf *b);
/* Offset of element (coords) in a shared buffer, with its swizzle; coords
 * are C expressions. */
char *cg_shared_offset(Cg *g, const IrBuf *b, char **coords);
/* The same, with the swizzle computed from xor_row, a row that is known to
 * equal the real one modulo the swizzle's 8 rows (cheaper to keep live). */
char *cg_shared_offset_x(Cg *g, const IrBuf *b, char **coords, const char *xor_row);
/* Row-major offset in a global tensor and the in-bounds condition. */
char *cg_global_offset(Cg *g, const IrBuf *b, char **coords);
char *cg_global_inbounds(Cg *g, const IrBuf *b, char **coords);
/* The coordinates of register `reg` of a fragment, and whether it holds a
 * real element (NULL: always). */
void cg_frag_coords(Cg *g, const IrBuf *b, const char *reg, char **coords, char **valid);
/* The row-major index of fragment b's element at coords (a staging area's). */
char *cg_frag_linear(Cg *g, const IrBuf *b, char **coords);
/* The condition under which this thread is the one that stores register
 * reg's element of fragment d (several threads hold it), or NULL. */
const char *cg_element_owner(Cg *g, const IrBuf *d, const char *reg);
void cg_block(Cg *g, IrBlock *b);
/* A barrier over every thread that runs the kernel's statements: the whole
 * block, or only the consumer warpgroups of a warp-specialised kernel. */
void cg_sync(Cg *g);
/* Named barriers of a warp-specialised kernel (bar.sync IDs; 0 is
 * __syncthreads): all consumer warpgroups (cg_sync); warpgroup w alone,
 * WARPGROUP + w, for up to three consumer warpgroups; the next tile's number
 * put in shared memory by the producer thread, and taken by every
 * consumer thread (TILE_FULL, TILE_EMPTY: cg_tile_loop_begin); the
 * producer warpgroup alone (PRODUCER). */
enum {
    CG_BAR_CONSUMERS = 1,
    CG_BAR_WARPGROUP = 2,
    CG_BAR_TILE_FULL = CG_BAR_WARPGROUP + 3,
    CG_BAR_TILE_EMPTY,
    CG_BAR_PRODUCER   /* the producer warpgroup's threads (its gathers' row indices) */
};
/* Defines the kernel's block index names from blockIdx (lin NULL) or from
 * the linear tile number lin of a persistent kernel. */
void cg_block_indices(Cg *g, const char *lin);
/* Grid dimension d as C: the constant, or its expression of dynamic sizes. */
const char *cg_grid_dim(Cg *g, int d);
/* The grid's units as C (a long long): its tiles, or in clusters of two its
 * pairs, a dimension of dynamic sizes rounded up to whole pairs (the last
 * one's second tile past the end where the count is odd). */
const char *cg_grid_units(Cg *g);
/* host_grid.c: grid dimension e (of dynamic sizes) as the program the host
 * evaluates at launch; false where it has too many operations. */
bool cg_host_grid(const Node *e, const PtrVec *dynamic, RtGridExpr *out);

/* tile_order.c: the order of a persistent block's tiles (Schedule) */
/* The figures of k's order that the arithmetic needs. */
typedef struct TileOrderPlan {
    TileOrder order;
    int64_t units;            /* of the persistent loop (cg_loop_units) */
    int64_t tiles;            /* of the grid, pairs of them in clusters */
    int64_t G, inner;         /* LONGEST_FIRST, IDLE_LAST: the order's dimension's
                               * extent, and the tiles of the dimensions below it */
    int64_t section;          /* LONGEST_FIRST */
    bool reverse;             /* LONGEST_FIRST */
    int split_ways;
    int64_t half_from, half_tiles, half_cols;
    int64_t half_slots;       /* half tiles decided at run time (Schedule.half_slots) */
} TileOrderPlan;
/* What unit u of a persistent loop runs: the linear tile number it
 * defines its block indices from, and of split or half tiles which part. */
typedef struct TileUnit {
    int64_t tile;
    int piece;                /* split tiles */
    bool half;                /* half tiles: a half unit, at column half_col */
    int64_t half_col;
} TileUnit;
void cg_tile_order_plan(const IrKernel *k, TileOrderPlan *p);
void cg_tile_order_unit(const TileOrderPlan *p, int64_t unit, TileUnit *out);
/* The unit block `block` of `blocks` runs in round `round`: the snake. */
int64_t cg_tile_snake(int64_t round, int64_t blocks, int64_t block);
/* The units of a persistent block's loop. */
int64_t cg_loop_units(const IrKernel *k);
/* Opens a persistent block's loop over its units (tl_tile, the tl_n-th of
 * this block; rounds of gridDim.x units, dealt out in a snake, or longest
 * first drawn from a counter by the producer thread, which hands each to
 * the consumers) and defines their block indices. */
void cg_tile_loop_begin(Cg *g, bool producer);
void cg_tile_loop_end(Cg *g, bool producer);

/* lower_parallel.c: a vectorised parallel loop (no driving fragment)
 * runs V consecutive iterations a thread, every global access that steps
 * by one element with the innermost variable one vector load or store. */
typedef struct CgVecPlan {
    const Sym *iv;                       /* the innermost loop variable */
    const Node *acc[CG_MAX_LANE_ACCESSES]; /* the global accesses that use iv */
    bool store[CG_MAX_LANE_ACCESSES];
    int n;
    /* The body's lets; those free of iv and of memory accesses (a row
     * index, say) are evaluated once before the vector loads too. */
    IrStmt *let[CG_MAX_LANE_ACCESSES];
    bool hoist[CG_MAX_LANE_ACCESSES];
    int nlet;
    bool ok;
} CgVecPlan;
/* The vector width V for loop s (0: element by element), and its plan. */
int cg_vector_width(const IrKernel *k, IrStmt *s, CgVecPlan *p);
/* Whether a parallel loop dealt in `rounds` rounds a thread, inside
 * `loops` enclosing loops, takes its thread index through an opaque move
 * made there (both code generators): with many rounds inside a loop the
 * compilers' LICM computes every unrolled round's addresses before the
 * loop and keeps them all live across it (W4A16's dequantisation: 32 to 64
 * elements a thread, three addresses each, spilled on the llvm backend). */
bool cg_opaque_thread_index(int loops, int64_t rounds);
/* Whether the iteration numbers of a loop dealt in `rounds` rounds of
 * `threads` threads taking `per` iterations each fit in 32 bits (both code
 * generators then compute them, and the variables' divisions, in int). */
bool cg_deal_fits_int(int64_t rounds, int64_t threads, int per);

/* lower_reduce.c: what both code generators decide alike for a reduction
 * (llvm_reduce.c is the other), so that their results agree bit for bit. */
/* The type a reduction of t computes in: f32 for the float types narrower
 * than f64, f64 for f64, i32 for bool and the integers narrower than 4
 * bytes, and the wider integers their own (i32, u32, i64, u64), so that
 * integer sums and extrema stay exact. Partials travel through the shared
 * scratch in it too. */
Dtype cg_reduce_dtype(Dtype t);
/* Chunk q of the registers of a blocked source (REDUCE_PATH_BLOCKED_ROWS):
 * the row its elements lie in, for every thread; with a pitch, the column
 * its first thread's elements start at; and whether some threads' elements
 * of it are none (the padding past the row's columns, or the fragment's
 * end), which a test on tid leaves out. */
typedef struct CgReduceChunk {
    int64_t row, at;
    bool partial;
} CgReduceChunk;
CgReduceChunk cg_reduce_chunk(const IrBuf *src, int64_t threads, int64_t q);
/* Lanes that reduce one output of the staged path (REDUCE_PATH_STAGED)
 * together: a power of two up to a warp (their partials meet by
 * shuffles), as many as the threads give every output; 1 where the
 * threads are not whole warps. */
int64_t cg_reduce_lanes(int64_t outputs, int64_t threads);
/* lower_copy.c: the decisions of a copy, which both code generators make.
 * The elements of a region. */
int64_t cg_region_total(const IrRegion *r);
/* A copy with a fragment on one side (the other global, shared or local):
 * each thread walks its registers in `groups` groups of `group` (elements
 * in consecutive registers and consecutive columns), `vec` of them one
 * vector access of the other side (1: element by element); a part of the
 * fragment (`part`) goes element by element, each register testing that
 * it lies in the part. */
typedef struct CgFragCopyPlan {
    int group, vec;
    int64_t groups;
    bool part;
} CgFragCopyPlan;
void cg_frag_copy_plan(const IrStmt *s, bool frag_is_src, CgFragCopyPlan *p);
/* A copy without fragments: the threads (t of them; 1 with a local side;
 * the producer warpgroup's for a COPY_RING_ASYNC, thread numbers
 * tl_ptid) deal out `chunks` chunks of `vec` elements of the region's
 * `total`, consecutive threads consecutive chunks, in `rounds` rounds; a
 * chunk from global to shared memory is one cp.async where `async` (16
 * bytes, or 4 or 8 for a COPY_RING_ASYNC).
 * In `rows_form`, a round is rpr whole rows of C columns apart: thread
 * tid's row is tid * vec / C + q * rpr in round q, its column
 * tid * vec % C; xor_first_row[side] (0: source, 1: destination): that
 * shared side's swizzle is computed from the thread's first row. The
 * rounds are unrolled fully up to 64 (`unroll`), the producer's cp.asyncs
 * where all its copies into a slot take at most 32 rounds, else in fours:
 * unrolled, fp8 tiles of 128 x 128 (16 + 16 rounds) ran 1.3x faster, but
 * the f16 tiles of 128 x 64 and 64 x 256 (16 + 32) spilled at the
 * producer's few registers (setmaxnreg) and, without spills, ran 1.4x
 * slower than in fours (docs/decisions.md, "A cp.async producer"). */
typedef struct CgCoopCopyPlan {
    int64_t total, chunks, t, rounds;
    int unroll;                      /* the rounds' loop unrolled this many times, 0: fully */
    int vec;
    bool local, async, rows_form;
    int64_t C, rpr;
    bool xor_first_row[2];
} CgCoopCopyPlan;
void cg_coop_copy_plan(const IrKernel *k, const IrStmt *s, CgCoopCopyPlan *p);
/* The plan of the producer's ring copy c, and whether a tile inside the
 * tensor takes one cp.async a chunk at constant offsets from the thread's
 * first addresses: chunks whole rows apart (rows_form) whose shared
 * swizzle follows from the thread's first row, every thread as many,
 * rows not gathered (lower_hopper.c, llvm_hopper.c: ring_async_copy). */
bool cg_ring_copy_plan(const IrKernel *k, const IrStmt *c, CgCoopCopyPlan *p);
/* Whether the producer warpgroup's threads (tl_ptid 0..127) run copy s. */
static inline bool cg_copy_by_producer_threads(const IrStmt *s) {
    return s->mech == COPY_RING_ASYNC || s->mech == COPY_RING_INDEX;
}

/* lower_scan.c: cumsum's scan in place in shared memory (IR_SCAN), as
 * both code generators lay it out: `nseq` sequences of `len` elements
 * (rows for dim 1 and 1-D buffers, else columns), dealt to the block's
 * warps round-robin, each warp's taken in `groups` of 32 * `vec`
 * consecutive elements, `vec` a lane (one 16-byte vector where rows are
 * whole groups of them, else one). NULL, or why it cannot be lowered (a
 * sentence for a located error). */
typedef struct CgScanPlan {
    int64_t nseq, len, groups;
    bool rows;          /* sequences are rows */
    int warps;
    int vec;            /* consecutive elements a lane */
} CgScanPlan;
const char *cg_scan_plan(const IrKernel *k, const IrStmt *s, CgScanPlan *p);
void cg_scan(Cg *g, IrStmt *s);

/* lower_atomic.c: an atomic on one element (IR_ATOMIC). NULL, or why it
 * cannot be lowered in a parallel loop whose iterations several threads
 * hold (shared_iterations) or outside one (a sentence for an error). */
const char *cg_atomic_check(const IrStmt *s, bool shared_iterations);
void cg_atomic(Cg *g, IrStmt *s);

/* lower_copy.c, lower_gemm.c, lower_reduce.c, lower_parallel.c */
void cg_copy(Cg *g, IrStmt *s);
void cg_fill(Cg *g, IrStmt *s);
void cg_atomic_add(Cg *g, IrStmt *s);
void cg_gemm(Cg *g, IrStmt *s);
void cg_reduce(Cg *g, IrStmt *s);
void cg_parallel(Cg *g, IrStmt *s);

/* lower_gemm.c: what both code generators decide for a gemm off the
 * sm_90a path. NULL when gemm s can be lowered, *tensor_cores then saying
 * whether on mma.sync m16n8k16 (ldmatrix from shared memory) or as an FMA
 * loop; else why not (a sentence for a located error). */
const char *cg_gemm_plan(const IrKernel *k, const IrStmt *s, bool *tensor_cores);
/* ldmatrix row addresses of shared buffer b as
 *   stage * stage_elems + (Rc + rv) * cols
 *   + (wc + Cc / period * period + ((Cc % period + cv) ^ (rv / rows_per_line % period))) * per_chunk
 * (rows Rc + rv, 16-byte chunks Cc + cv + wc; Rc a multiple of 16, wc of
 * wc_step, 0 when the warp has no column offset): true where b's swizzle
 * allows it, with its figures in *z. */
typedef struct CgLdmSwizzle {
    int per_chunk, period;
    int64_t cols, rows_per_line, stage_elems;
} CgLdmSwizzle;
bool cg_ldm_swizzle(const IrBuf *b, int64_t wc_step, CgLdmSwizzle *z);

/* lower_hopper.c: the warp-specialised sm_90a pipeline (k->ws_loop) */
void cg_hopper_helpers(const IrKernel *k, FILE *o);    /* before the kernel */
void cg_hopper_params(const IrKernel *k, FILE *o);     /* after the parameters */
void cg_hopper_split(Cg *g);                           /* mbarriers and the producer */
void cg_hopper_consumer(Cg *g, IrStmt *loop);          /* the consumers' loop */
void cg_hopper_preload_wait(Cg *g, IrStmt *copy);      /* a TMA copy before the loop */
void cg_hopper_tma_store(Cg *g, IrStmt *copy);         /* an epilogue store (plan_store) */
void cg_hopper_finish(Cg *g);                          /* the consumers' end */
void cg_hopper_idle_begin(Cg *g);                      /* a warpgroup with nothing to store: if (idle) ... else { */
void cg_hopper_idle_end(Cg *g);                        /* } */
void cg_hopper_tensor_maps(const IrKernel *k, CgKernel *out);
/* split tiles (lower_split.c, IrKernel.split_ways) */
int64_t cg_split_units(const IrKernel *k);             /* the persistent blocks' units: every tile's pieces */
int64_t cg_split_partial_units(const IrKernel *k);     /* the most units whose partial sums are kept at once */
int cg_split_max_levels(const IrKernel *k);            /* the most levels of the pairwise sum */
void cg_split_globals(const IrKernel *k, FILE *o);     /* before the kernel */
void cg_split_unit(Cg *g, const char *unit);          /* unit's tile and piece, its block indices */
/* After `const int n = <trip count>;`: the head of the loop over the
 * iterations this unit runs (all n unless the kernel splits tiles), with
 * loop variable var, counting tl_it. */
void cg_split_loop(Cg *g, const char *var, const char *n);
void cg_split_sum(Cg *g);                              /* after the consumers' loop */
/* The first gemm of the sm_90a path's loop (schedule_split and schedule_halves
 * take loops with one), NULL where it has none. */
const IrStmt *cg_loop_gemm(const IrKernel *k);
/* The registers a consumer thread takes from the producer (setmaxnreg), 0: none. */
int cg_hopper_consumer_regs(const IrKernel *k);
/* ... and what the producer warpgroup keeps (setmaxnreg.dec). */
int cg_hopper_producer_regs(const IrKernel *k);
bool cg_hopper_ring_async(const IrKernel *k);
bool cg_ring_buf(const IrKernel *k, const IrBuf *b);

/* The sm_90a path's decisions both code generators share (lower_hopper.c). */
/* A TMA'd tile's column blocks (one swizzle span a row): their columns,
 * bytes a row and bytes; the wgmma descriptor's swizzle mode of a span. */
int64_t cg_tma_blk_cols(const IrBuf *b);
int64_t cg_tma_blk_row_bytes(const IrBuf *b);
int64_t cg_tma_blk_bytes(const IrBuf *b);
int cg_tma_swizzle_mode(int64_t row_bytes);
/* Where element accesses find the elements of a tma_layout tile (ir.h):
 * column blocks of `cols` columns, rows x cols elements each, a block row
 * `chunks` 16-byte chunks (2, 4 or 8) of `per_chunk` elements. */
typedef struct CgTmaSpan {
    int64_t rows, cols;
    int chunks, per_chunk;
} CgTmaSpan;
CgTmaSpan cg_tma_span(const IrBuf *b);
/* The tensor map (parameter after the kernel's own) of a TMA copy or store. */
int cg_tma_index(const IrKernel *k, const IrStmt *copy);
/* The bytes of the loop's TMA copies (the full ring's), of the preloads,
 * and those a half unit (schedule_halves) does not load. */
int64_t cg_hopper_ring_bytes(const IrKernel *k);
int64_t cg_hopper_preload_bytes(const IrKernel *k);
int64_t cg_hopper_halved_bytes(const IrKernel *k);
bool cg_hopper_has_preloads(const IrKernel *k);
/* Whether statement s (not a gemm) names a wgmma operand the consumers
 * write (IrBuf.consumer_written): their writes are then fenced for the
 * async proxy after it. */
bool cg_writes_consumer_operand(const IrKernel *k, IrStmt *s);
/* Whether c is the loop's copy of B of which a half unit loads half. */
bool cg_hopper_half_copy(const IrKernel *k, const IrStmt *c);
/* A wgmma of gemm gm: its k (32 bytes of a row), operand type name, n
 * (half of it in a half unit), whether it accumulates integers, and
 * whether it promotes (fp8: sums of CG_WGMMA_PROMOTE_K products added in
 * f32). */
int64_t cg_wgmma_k(const IrStmt *gm);
int64_t cg_wgmma_n(const IrStmt *gm, bool half);
bool cg_wgmma_int(const IrStmt *gm);
bool cg_wgmma_promotes(const IrStmt *gm);
enum { CG_WGMMA_PROMOTE_K = 128 };
/* The wgmma.mma_async instruction of gm at n, as inline-asm text (GCC
 * operand numbers): the n/2 accumulators %0.., then A (a descriptor, or
 * four registers), B's descriptor, and the predicate p (scale_d) that the
 * caller declares from the operand after B's. */
char *cg_wgmma_instr(Arena *ar, const IrStmt *gm, int64_t n);
/* An epilogue's TMA store (plan_store): the element size, the columns and
 * bytes of a row of one column block (one swizzle span), a column block's
 * 64 rows, a warpgroup's part of the staging tile, the tensor map. */
typedef struct CgTmaStorePlan {
    int64_t esize, cols, row_bytes, block_bytes, wg_bytes;
    int map;
} CgTmaStorePlan;
void cg_tma_store_plan(const IrKernel *k, const IrStmt *s, CgTmaStorePlan *p);
/* The byte offset of k step kk in a K-major tile (its column block, 32
 * bytes a step inside it). */
int64_t cg_wgmma_kmajor_offset(const IrBuf *b, int64_t kk);
/* The descriptor offset of k step kk in operand tile b: K-major, as
 * cg_wgmma_kmajor_offset; MN-major (B as K x N, A as K x M with
 * transpose_a), 16 rows of a column block down. */
int64_t cg_wgmma_step_bytes(const IrBuf *b, bool kmajor, int64_t kk);
/* How far apart the consumer warpgroups' parts of gemm gm's A tile start,
 * in bytes: K-major (M x K), 64 rows down every column block; M-major
 * (transpose_a), 64 columns on: whole column blocks (plan_warpgroups). */
int64_t cg_wgmma_a_wg_bytes(const IrStmt *gm);

#endif
