/* emit.c - the CUDA C printer's kernel skeleton: the header comments, the
 * signature, shared memory and fragments, block indices, and the printing
 * helpers every emit_*.c and lower_*.c file uses. Expressions print in
 * emit_expr.c, statements in emit_stmt.c, tile operations in lower_*.c,
 * the tile order in tile_order.c. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* A #line directive before every line printed for a statement keeps each
 * one on its .tile line (the preprocessor counts on from a directive, so
 * one directive per statement would give its later lines the next .tile
 * lines); code of no statement goes to a file of its own name. */
static void line_directive(Cg *g) {
    if (!g->k->line_directives || !g->src_file) return;
    if (g->src_line > 0) {
        fprintf(g->o, "#line %d \"%s\"\n", g->src_line, g->src_file);
        g->in_tile_line = true;
    } else if (g->in_tile_line) {
        fputs("#line 1 \"tilec-generated\"\n", g->o);
        g->in_tile_line = false;
    }
}

void cg_line(Cg *g, const char *fmt, ...) {
    line_directive(g);
    for (int i = 0; i < g->ind; i++) fputs("    ", g->o);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->o, fmt, ap);
    va_end(ap);
    fputc('\n', g->o);
}

void cg_error(Cg *g, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(g->k->c, loc, fmt, ap);
    va_end(ap);
    g->failed = true;
}

const char *cg_tmp(Cg *g, const char *prefix) {
    return arena_printf(&g->k->c->arena, "%s%d_", prefix, g->uid++);
}

char *cg_and(Cg *g, const char *a, const char *b) {
    if (!a || !b) return (char *)(a ? a : b);
    return arena_printf(&g->k->c->arena, "(%s) && %s", a, b);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

const char *cg_kernel_name(IrKernel *k) {
    uint64_t h = 1469598103934665603ull;
    KernelInfo *info = k->info;
    h = fnv(h, info->name->s, strlen(info->name->s));
    for (int i = 0; i < info->values.len; i++) {
        Sym *v = info->values.items[i];
        if (v->kind == SYM_SCALAR) continue; /* a run-time argument: one kernel serves every value */
        h = fnv(h, v->name->s, strlen(v->name->s) + 1);
        /* a dynamic size too, but its promise is compiled in */
        h = v->dynamic ? fnv(h, &v->divisor, sizeof v->divisor) : fnv(h, &v->value, sizeof v->value);
    }
    h = fnv(h, &k->arch, sizeof k->arch);
    h = fnv(h, &k->arch_specific, sizeof k->arch_specific);
    /* a variant of a dynamic grid's kernel says which (in profilers' lists too) */
    LaunchVariant v = sched_variant(&k->sched);
    return arena_printf(&k->c->arena, "tilec_%s_%08llx%s%s", info->name->s, (unsigned long long)(h & 0xffffffffu),
                        v == VARIANT_BASE ? "" : "_", v == VARIANT_BASE ? "" : plan_variant_name(v));
}

static void emit_frag_decl(Cg *g, IrBuf *b) {
    int64_t regs = b->scope == SCOPE_LOCAL ? buf_elems(b) : b->layout.regs;
    cg_line(g, "%s %s[%lld];  // %s", cg_storage_type(b->dtype), b->cname, (long long)regs,
            b->scope == SCOPE_LOCAL ? "per-thread local buffer" : layout_describe(g->k->c, &b->layout));
}

/* The block indices the kernel names (bx, by, bz), from blockIdx or, in a
 * persistent kernel, from the linear tile number `lin`; in panels when
 * use_swizzle asks (L2 reuse of the operand tiles neighbours share). In a
 * kernel of clusters of two the hardware grid is linear: the pair
 * blockIdx.x / 2 takes the indices of that tile of the grid halved along
 * the cluster dimension, and the block's rank in the cluster (blockIdx.x %
 * 2) is the low bit of its index there. */
const char *cg_grid_dim(Cg *g, int d) {
    if (g->k->grid[d] >= 0) return arena_printf(&g->k->c->arena, "%lld", (long long)g->k->grid[d]);
    return cg_expr_str(g, g->k->info->grid_expr[d]);
}

const char *cg_grid_units(Cg *g) {
    const IrKernel *k = g->k;
    const char *dim[3];
    for (int d = 0; d < 3; d++) {
        dim[d] = cg_grid_dim(g, d);
        if (k->sched.cluster && d == k->sched.cluster_dim)
            dim[d] = k->grid[d] >= 0 ? arena_printf(&k->c->arena, "%lld", (long long)(k->grid[d] / 2))
                                     : arena_printf(&k->c->arena, "((%s + 1) / 2)", dim[d]);
    }
    return arena_printf(&k->c->arena, "(long long)(%s) * (%s) * (%s)", dim[0], dim[1], dim[2]);
}

void cg_block_indices(Cg *g, const char *lin) {
    IrKernel *k = g->k;
    KernelInfo *info = k->info;
    Arena *ar = &k->c->arena;
    int64_t grid[3] = {k->grid[0], k->grid[1], k->grid[2]};
    /* A persistent kernel of dynamic sizes decodes its tile number lin in
     * 32 bits: its tile numbers are ints (the launch refuses more tiles:
     * rt_launch_units), and a 64-bit division by a run-time value is a
     * long subroutine (some 100 instructions each; gemm's halves variant
     * 1576 -> 1144 SASS instructions). A grid launched as it is numbers
     * its blocks past 2^32. */
    bool narrow = lin && (grid[0] < 0 || grid[1] < 0 || grid[2] < 0);
    const char *wide = narrow ? "unsigned" : "long long", *wide_c = narrow ? "u" : "LL";
    /* a dimension of dynamic sizes: launched as it is, gridDim holds it,
     * or in a persistent kernel (no clusters: plan_schedule) the tile
     * number lin is decoded by its extent at these sizes */
    static const char *const launched[3] = {"(long long)gridDim.x", "(long long)gridDim.y", "(long long)gridDim.z"};
    const char *extent[3];
    for (int d = 0; d < 3; d++)
        extent[d] = grid[d] >= 0 ? arena_printf(ar, "%lld", (long long)grid[d])
                    : lin       ? arena_printf(ar, "(%s)(%s)", wide, cg_grid_dim(g, d))
                                : launched[d];
    if (narrow) lin = arena_printf(ar, "(unsigned)%s", lin);
    int cd = k->sched.cluster ? k->sched.cluster_dim : -1;
    if (k->sched.cluster) {
        cg_line(g, "const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x %% 2");
        if (grid[cd] >= 0) grid[cd] /= 2;
        if (!lin) lin = "(blockIdx.x >> 1)"; /* a persistent kernel's lin numbers pairs */
    }
    /* the panels cut the grid of pairs in a kernel of clusters: lin numbers
     * them (of dynamic sizes, the last pair along the cluster dimension
     * may have one tile: cg_grid_units) */
    const char *pairs[3];
    for (int d = 0; d < 3; d++)
        pairs[d] = grid[d] >= 0 ? arena_printf(ar, "%lld", (long long)grid[d])
                   : d == cd    ? arena_printf(ar, "((%s + 1) / 2)", extent[d])
                                : extent[d];
    static const char *const bidx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    const char *val[3] = {bidx[0], bidx[1], bidx[2]};
    /* the pairs of the first two dimensions: a constant, or a product at these sizes */
    bool whole_known = grid[0] >= 0 && grid[1] >= 0;
    const char *whole = whole_known ? arena_printf(ar, "%lld", (long long)(grid[0] * grid[1]))
                                    : arena_printf(ar, "(%s * %s)", pairs[0], pairs[1]);
    if (lin) {
        val[0] = arena_printf(ar, "(int)(%s %% %s)", lin, pairs[0]);
        val[1] = arena_printf(ar, "(int)(%s / %s %% %s)", lin, pairs[0], pairs[1]);
        val[2] = arena_printf(ar, "(int)(%s / %s)", lin, whole);
    }
    bool panels = k->swizzle_panel > 0 && k->grid_rank >= 2 && info->block_idx.len >= 2;
    if (panels) {
        int a = k->swizzle_col ? 1 : 0, b = 1 - a; /* a: the dimension cut into panels */
        cg_line(g, "int tl_bx, tl_by;");
        cg_line(g, "{");
        if (lin)
            cg_line(g, "    const %s lin = %s %% %s%s;", wide, lin, whole, whole_known ? wide_c : "");
        else
            cg_line(g, "    const long long lin = (long long)blockIdx.y * gridDim.x + blockIdx.x;");
        cg_line(g, "    const %s per_panel = %d%s * %s;", wide, k->swizzle_panel, wide_c, pairs[b]);
        cg_line(g, "    const %s first = lin / per_panel * %d, rem = lin %% per_panel;", wide, k->swizzle_panel);
        cg_line(g, "    const %s width = min(%d%s, %s%s - first);", wide, k->swizzle_panel, wide_c, pairs[a],
                grid[a] >= 0 ? wide_c : "");
        cg_line(g, "    %s = (int)(first + rem %% width); %s = (int)(rem / width);", a == 0 ? "tl_bx" : "tl_by",
                a == 0 ? "tl_by" : "tl_bx");
        cg_line(g, "}");
        val[0] = "tl_bx";
        val[1] = "tl_by";
    }
    if (k->sched.cluster) val[k->sched.cluster_dim] = arena_printf(ar, "2 * %s + tl_cta_rank", val[k->sched.cluster_dim]);
    const char *names[3];
    for (int i = 0; i < info->block_idx.len; i++) names[i] = ir_sym_cname(k->c, info->block_idx.items[i]);
    int i = 0;
    if (panels) {
        cg_line(g, "const %s %s = %s, %s = %s;", g->index_type, names[0], val[0], names[1], val[1]);
        i = 2;
    }
    for (; i < info->block_idx.len; i++) cg_line(g, "const %s %s = %s;", g->index_type, names[i], val[i]);
    /* Block index i runs over [0, grid[i]) (the panel swizzle permutes the
     * tiles, it does not leave the grid). Said to the compiler, this lets it
     * prove that the tiles of a grid that divides the tensor are in bounds,
     * and drop their bounds tests and the branches around the loads. */
    for (i = 0; i < info->block_idx.len; i++)
        cg_line(g, "__builtin_assume(%s >= 0 && %s < %s%s);", names[i], names[i], extent[i],
                i == cd && k->grid[i] < 0 ? " + 1" : ""); /* + 1: a cluster's tile past the end */
}

/* Whether kernel k stores or computes an fp8 value anywhere. */

static bool fp8_node(const Node *e, const void *arg) {
    (void)arg;
    return dtype_is_fp8(e->dtype) || (e->kind == N_CALL && !e->u.call.name && dtype_is_fp8(e->u.call.cast));
}

static void fp8_stmt(IrStmt *s, void *arg) {
    bool *found = arg;
    *found |= (s->value && expr_any(s->value, fp8_node, NULL)) || (s->target && expr_any(s->target, fp8_node, NULL));
    *found |= (s->op == IR_LET || s->op == IR_VAR) && s->sym && dtype_is_fp8(s->sym->dtype);
}

static bool uses_fp8(IrKernel *k) {
    for (int i = 0; i < k->buffers.len; i++)
        if (dtype_is_fp8(((const IrBuf *)k->buffers.items[i])->dtype)) return true;
    for (int i = 0; i < k->info->params.len; i++)
        if (dtype_is_fp8(((const Sym *)k->info->params.items[i])->dtype)) return true;
    bool found = false;
    ir_walk(&k->body, fp8_stmt, &found);
    return found;
}

/* The .tile file as a C string literal's contents (quotes and backslashes
 * escaped, control characters dropped), or NULL without one. */
static const char *directive_file(IrKernel *k, const char *file) {
    if (!file) return NULL;
    char *s = arena_alloc(&k->c->arena, 2 * strlen(file) + 1), *o = s;
    for (const char *p = file; *p; p++) {
        if ((unsigned char)*p < 0x20) continue;
        if (*p == '"' || *p == '\\') *o++ = '\\';
        *o++ = *p;
    }
    *o = 0;
    return s;
}

bool cg_emit(IrKernel *k, const char *source_file, CgKernel *out) {
    memset(out, 0, sizeof *out);
    Cg g = {.k = k, .index_type = "int", .src_file = directive_file(k, source_file)};
    for (int i = 0; i < k->params.len; i++) {
        /* a dynamic size is at most 2^31 - 1 and its coordinates are int;
         * the offsets are computed in 64 bits whatever the sizes */
        const IrBuf *p = k->params.items[i];
        int64_t elems = 1;
        for (int d = 0; d < p->rank; d++)
            if (!buf_dim_dynamic(p, d) && __builtin_mul_overflow(elems, p->shape[d], &elems)) elems = INT64_MAX;
        if (elems > INT32_MAX) g.index_type = "long long";
    }
    char *buf = NULL;
    size_t len = 0;
    g.o = open_memstream(&buf, &len);
    const char *name = cg_kernel_name(k);
    KernelInfo *info = k->info;
    fprintf(g.o, "// Generated by tilec %s from %s: kernel '%s' for sm_%d%s.\n", TILEC_VERSION,
            source_file ? source_file : "<input>", info->name->s, k->arch, k->arch >= 90 ? "a" : "");
    fprintf(g.o, "// values:");
    for (int i = 0; i < info->values.len; i++) {
        Sym *v = info->values.items[i];
        if (v->kind == SYM_SCALAR) continue; /* passed at launch, not compiled in */
        if (v->dynamic && v->divisor > 1) fprintf(g.o, " %s=dynamic%%%lld", v->name->s, (long long)v->divisor);
        else if (v->dynamic) fprintf(g.o, " %s=dynamic", v->name->s);
        else if (v->value_float) fprintf(g.o, " %s=%g", v->name->s, v->value.f);
        else fprintf(g.o, " %s=%lld", v->name->s, (long long)v->value.i);
    }
    fputs("\n// launch: grid (", g.o);
    for (int d = 0; d < 3; d++) fprintf(g.o, "%s%s", d ? ", " : "", cg_grid_dim(&g, d));
    fprintf(g.o, "), block %lld, dynamic shared memory %lld bytes\n", (long long)(k->threads + k->producer_threads),
            (long long)k->smem_bytes);
    if (k->ws_loop)
        fprintf(g.o, "// sm_90a path: %lld consumer threads (wgmma) + a %lld-thread TMA producer warpgroup%s\n",
                (long long)k->threads, (long long)k->producer_threads,
                k->sched.persistent ? "; persistent: min(tiles, SMs) blocks loop over the grid's tiles" : "");
    if (k->sched.cluster)
        fprintf(g.o, "// clusters of 2 blocks along grid dimension %d (a linear grid of %lld blocks): TMA multicast of the tiles they share\n",
                k->sched.cluster_dim, (long long)(k->grid[0] * k->grid[1] * k->grid[2]));
    /* cuda_fp8.h only where needed: it costs NVRTC ~70 ms a compile */
    fprintf(g.o, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n%s\n", uses_fp8(k) ? "#include <cuda_fp8.h>\n" : "");
    /* the device header goes here once the code after it is known */
    fflush(g.o);
    size_t header_at = len;
    if (k->ws_loop) cg_hopper_helpers(k, g.o);
    if (k->sched.order == ORDER_LONGEST_FIRST)
        fputs("\n// the tiles this launch's persistent blocks have drawn, and the blocks done drawing (tl_tiles_draw, tl_tiles_done)\n"
              "__device__ unsigned tl_tile_count[2] = {0, 0};\n", g.o);
    if (sched_has_split(&k->sched)) cg_split_globals(k, g.o);
    /* setmaxnreg needs a register cap at entry: one block an SM */
    fprintf(g.o, "\nextern \"C\" __global__ void __launch_bounds__(%lld%s)%s %s(",
            (long long)(k->threads + k->producer_threads), cg_hopper_consumer_regs(k) ? ", 1" : "",
            k->sched.cluster ? " __cluster_dims__(2, 1, 1)" : "", name);
    for (int i = 0; i < info->params.len; i++) {
        Sym *p = info->params.items[i];
        if (i) fputs(", ", g.o);
        if (p->kind == SYM_TENSOR)
            fprintf(g.o, "%s%s *__restrict__ %s", p->mode == MODE_IN ? "const " : "", cg_storage_type(p->dtype),
                    ir_sym_cname(k->c, p));
        else
            fprintf(g.o, "%s tl_arg_%s", cg_storage_type(p->dtype), ir_sym_cname(k->c, p));
    }
    for (int i = 0; i < info->dynamic.len; i++)
        fprintf(g.o, ", int tl_dim_%s", ir_sym_cname(k->c, info->dynamic.items[i]));
    if (k->ws_loop) cg_hopper_params(k, g.o);
    fputs(") {\n", g.o);
    /* nvcc -arch=sm_90a also builds compute_90 PTX (for later GPUs), where
     * wgmma, setmaxnreg and the TMA do not exist: there the kernel traps */
    if (k->ws_loop)
        fputs("#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
              "    __trap();  // built for sm_90a only\n"
              "#else\n", g.o);
    g.ind = 1;
    if (k->ws_loop) {
        /* TMA swizzles by shared-memory address bits: stages start on
         * 1024-byte boundaries of the window (plan_shared left the room) */
        cg_line(&g, "extern __shared__ __align__(1024) unsigned char tl_smem_raw[];");
        cg_line(&g, "unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);");
    } else {
        cg_line(&g, "extern __shared__ __align__(128) unsigned char tl_smem[];");
    }
    cg_line(&g, "const int tid = threadIdx.x, lane = tid %% 32, warp = tid / 32;");
    cg_line(&g, "(void)lane; (void)warp;");
    /* NVRTC does not know the block size: without this, tid / 4096 and
     * tid %% 4096 cost sign fix-ups and bounds tests stay in the code */
    cg_line(&g, "__builtin_assume(tid >= 0 && tid < %lld);", (long long)(k->threads + k->producer_threads));
    for (int i = 0; i < info->dynamic.len; i++) {
        const Sym *v = info->dynamic.items[i];
        const char *size = ir_sym_cname(k->c, v);
        cg_line(&g, "const int %s = tl_dim_%s;  // a dynamic size", size, size);
        /* what the launch checked: the compiler may drop tests they decide */
        if (v->divisor > 1) cg_line(&g, "__builtin_assume(%s >= %lld && %s %% %lld == 0);", size, (long long)v->divisor, size,
                                    (long long)v->divisor);
        else cg_line(&g, "__builtin_assume(%s >= 1);", size);
    }
    if (!k->sched.persistent) cg_block_indices(&g, NULL);
    for (int i = 0; i < info->params.len; i++) {
        Sym *p = info->params.items[i];
        const char *arg = ir_sym_cname(k->c, p);
        if (p->kind == SYM_SCALAR)
            cg_line(&g, "const %s %s = %s(tl_arg_%s);  // a run-time argument", cg_scalar_type(&g, p->dtype), arg,
                    cg_load_wrap(p->dtype), arg);
    }
    for (int i = 0; i < k->buffers.len; i++) {
        IrBuf *b = k->buffers.items[i];
        if (b->scope == SCOPE_SHARED)
            cg_line(&g, "%s *const %s = (%s *)(tl_smem + %lld);  // %d stage%s, swizzle %d", cg_storage_type(b->dtype),
                    b->cname, cg_storage_type(b->dtype), (long long)b->smem_offset, b->stages, b->stages == 1 ? "" : "s",
                    b->swizzle_chunks);
        else
            emit_frag_decl(&g, b);
    }
    if (k->scratch_bytes)
        cg_line(&g, "double *const tl_scratch = (double *)(tl_smem + %lld);", (long long)k->scratch_offset);
    if (k->ws_loop) cg_hopper_split(&g);
    if (k->ws_loop) cg_line(&g, "int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for");
    if (k->sched.persistent) cg_tile_loop_begin(&g, false);
    if (k->sched.idle_stores.len) cg_hopper_idle_begin(&g);
    cg_block(&g, &k->body);
    if (g.split_open) {
        g.ind--;
        cg_line(&g, "}");
    }
    if (k->sched.idle_stores.len) cg_hopper_idle_end(&g);
    if (k->sched.persistent) cg_tile_loop_end(&g, false);
    if (k->ws_loop) {
        cg_hopper_finish(&g);
        fputs("#endif\n", g.o);
    }
    fputs("}\n", g.o);
    fclose(g.o);
    if (g.failed) {
        free(buf);
        return false;
    }
    char *whole = NULL;
    size_t whole_len = 0;
    FILE *o = open_memstream(&whole, &whole_len);
    if (!o) die("out of memory printing the kernel");
    size_t kernel_len;
    char *kernel = cg_tidy(buf + header_at, len - header_at, &kernel_len);
    fwrite(buf, 1, header_at, o);
    cg_write_device_header(o, kernel, kernel_len);
    fwrite(kernel, 1, kernel_len, o);
    free(kernel);
    fclose(o);
    free(buf);
    buf = whole;
    len = whole_len;
    out->source = buf;
    out->source_len = len;
    out->name = name;
    out->lineinfo = k->line_directives;
    if (!cg_launch_info(k, out)) {
        cg_kernel_free(out);
        return false;
    }
    return true;
}

bool cg_launch_info(IrKernel *k, CgKernel *out) {
    KernelInfo *info = k->info;
    memcpy(out->grid, k->grid, sizeof out->grid);
    for (int d = 0; d < 3; d++)
        if (k->grid[d] < 0 && !ir_host_program(info->grid_expr[d], &info->dynamic, &out->grid_expr[d])) {
            diag_error(k->c, info->grid_expr[d]->loc, "grid dimension %d is too long an expression for tilec's launch "
                       "(at most %d operations of dynamic sizes)", d, RT_MAX_GRID_OPS);
            return false;
        }
    out->ndynamic = info->dynamic.len;
    for (int i = 0; i < info->dynamic.len; i++) {
        const Sym *v = info->dynamic.items[i];
        out->dynamic_name[i] = v->name->s;
        out->dynamic_divisor[i] = v->divisor;
    }
    out->persistent = k->sched.persistent;
    out->cluster = k->sched.cluster;
    if (kernel_grid_dynamic(k) && k->sched.persistent)
        out->units = (RtUnits){.half_slots = k->sched.half_slots, .half_all = k->sched.half_all, .cluster = k->sched.cluster,
                               .cluster_dim = k->sched.cluster_dim, .split_slots = k->sched.split_slots,
                               .split_max = k->sched.split_max, .trips = k->sched.split_trips};
    /* a linear grid (cg_block_indices); a persistent one of dynamic sizes
     * keeps its expressions and is put in a line at launch (rt_launch_grid) */
    if ((k->sched.persistent || k->sched.cluster) && !kernel_grid_dynamic(k)) {
        out->grid[0] = cg_loop_units(k) * (k->sched.cluster ? 2 : 1);
        out->grid[1] = out->grid[2] = 1;
    }
    out->block = k->threads + k->producer_threads;
    out->smem_bytes = k->smem_bytes;
    if (k->ws_loop) cg_hopper_tensor_maps(k, out);
    return true;
}

void cg_kernel_free(CgKernel *ck) {
    free(ck->source);
    free(ck->llvm_ir);
    ck->source = ck->llvm_ir = NULL;
}
