/* cubin.c - generated code to a cubin: from the disk cache when an entry
 * for the same source, target, plan options, backend, compiler versions and
 * tilec exists, else from NVRTC (CUDA C) or ptxas (the LLVM backend's
 * PTX), and then stored. The `tilec` command and tilec_compile both
 * come here. Entries are written atomically (runtime/cache.c), so threads
 * and processes compiling one kernel at once leave one whole entry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib.h"

/* Generated code that does not compile is a tilec bug: say so in one
 * sentence (res->error has NVRTC's or ptxas's first error) and return 4. The evidence
 * (source and log) goes to tilec's cache directory, under failed/, and
 * nowhere else: no input may make tilec write outside its cache and the
 * files it was asked for. With the cache off nothing is kept (--emit-cuda
 * shows the source). */
static int compile_failed(Ctx *c, const CgKernel *ck, const char *cu_name, const RtCompileResult *res,
                        const LibBuild *b) {
    RtCache cache;
    char warn[256];
    rt_cache_init(&cache, b->cache_dir, b->no_cache, warn);
    char *kept = NULL;
    if (cache.enabled) {
        char *dir = arena_printf(&c->arena, "%s/failed", cache.dir);
        char *src = arena_printf(&c->arena, "%s/%s", dir, cu_name);
        char *log = arena_printf(&c->arena, "%s/%s.%s.log", dir, ck->name, ck->backend == CG_LLVM ? "ptxas" : "nvrtc");
        if ((mkdir(dir, 0700) == 0 || errno == EEXIST) && file_write_atomic(src, ck->source, ck->source_len) &&
            file_write_atomic(log, res->log, strlen(res->log)))
            kept = arena_printf(&c->arena, "; the source and log are in %s", dir);
    }
    fprintf(b->err, "tilec: %s (this is a bug in tilec%s)\n", res->error,
            kept ? kept : ck->backend == CG_LLVM ? "; --emit-ptx --backend llvm shows the PTX" : "; --emit-cuda shows the source");
    return LIB_CUDA;
}

/* NVRTC's option for a source with #line directives (CgKernel.lineinfo). */
static const char *const lineinfo[] = {"-lineinfo", NULL};

static void report_one_block(const CgKernel *ck, const LibBuild *b, const LibBuildNote *note) {
    if (note->one_block)
        fprintf(b->err, "tilec: %s for %s: ptxas capped it at %d registers and spilled %d bytes; built again asking for one "
                        "resident block an SM, which spills less\n",
                ck->name, b->arch, note->first_registers, note->first_spill_bytes);
}

/* The cache key of ck's cubin: everything that changes the binary. */
static void cubin_key(const CgKernel *ck, const LibBuild *b, char key[HASH_KEY_SIZE]) {
    char target[256], plan[256];
    target_describe(b->target, target, sizeof target);
    plan_describe(b->plan, plan, sizeof plan);
    const char *backend = "nvrtc", *tools = rt_nvrtc_version();
    if (ck->backend == CG_LLVM) { /* PTX made by the LLVM the module was built with */
        backend = "llvm";
        tools = rt_ptx_assembler_key();
        if (!tools) tools = "no PTX assembler";
    }
    const char *parts[] = {ck->source, b->arch, target, plan, backend, tools, TILEC_VERSION, "cubin"};
    hash_key(key, parts, 8);
}

/* ptxas's register and spill counts are known only when it runs: they
 * are kept beside the cubin (KEY.info), so that a cache hit still
 * reports them. */
static void cache_resources(const RtCache *cache, const char *key, int registers, int spill_bytes) {
    char text[64];
    int n = snprintf(text, sizeof text, "%d %d\n", registers, spill_bytes);
    rt_cache_put_ext(cache, key, "info", text, (size_t)n);
}

/* Leaves bin's counts at -1 (unknown) when the entry is missing or damaged. */
static void cached_resources(const RtCache *cache, const char *key, LibBinary *bin) {
    void *data;
    size_t size;
    if (!rt_cache_get_ext(cache, key, "info", &data, &size)) return;
    char text[64] = "";
    memcpy(text, data, size < sizeof text - 1 ? size : sizeof text - 1);
    free(data);
    int registers, spills;
    if (sscanf(text, "%d %d", &registers, &spills) == 2 && registers >= 0 && spills >= 0) {
        bin->registers = registers;
        bin->spill_bytes = spills;
    }
}

/* The most registers a thread of a block of `threads` can have with the
 * block resident: 64K registers an SM, allocated 256 a warp (8 a
 * thread), and never more than 255. */
static int register_limit(int64_t threads) {
    int64_t warps = threads < 32 ? 1 : (threads + 31) / 32;
    int64_t per_thread = 65536 / (warps * 32) / 8 * 8;
    return per_thread < 255 ? (int)per_thread : 255;
}

/* s's first `head` bytes, then insert, then rest (malloc'd). */
static char *spliced(const char *s, size_t head, const char *insert, const char *rest) {
    size_t ni = strlen(insert), nr = strlen(rest);
    char *out = xmalloc(head + ni + nr + 1);
    memcpy(out, s, head);
    memcpy(out + head, insert, ni);
    memcpy(out + head + ni, rest, nr + 1);
    return out;
}

/* ck's source asking for at least one resident block an SM
 * (__launch_bounds__(T, 1) / .minnctapersm 1), malloc'd; NULL where it
 * already asks for a number of blocks. */
static char *one_block_source(const CgKernel *ck) {
    const char *s = ck->source;
    if (ck->backend == CG_LLVM) {
        const char *at = strstr(s, "\n.maxntid");
        if (!at || strstr(s, ".minnctapersm")) return NULL;
        const char *eol = strchr(at + 1, '\n');
        if (!eol) return NULL;
        size_t head = (size_t)(eol - s);
        return spliced(s, head, "\n.minnctapersm 1", eol);
    }
    const char *at = strstr(s, "__launch_bounds__(");
    if (!at) return NULL;
    const char *d = at + strlen("__launch_bounds__(");
    while (*d >= '0' && *d <= '9') d++;
    if (*d != ')') return NULL;
    return spliced(s, (size_t)(d - s), ", 1", d);
}

static bool build_source(const CgKernel *ck, const char *source, size_t len, const char *arch, bool want_ptx,
                         RtCompileResult *res) {
    char name[300];
    snprintf(name, sizeof name, "%s.%s", ck->name, ck->backend == CG_LLVM ? "ptx" : "cu");
    if (ck->backend == CG_LLVM) {
        if (!rt_ptx_to_cubin(source, len, name, arch, ck->lineinfo, res)) return false;
        if (want_ptx) {
            res->ptx = xmalloc(len + 1);
            memcpy(res->ptx, source, len + 1);
            res->ptx_size = len;
        }
        return true;
    }
    RtCompileOptions ro = {.arch = arch, .want_ptx = want_ptx, .want_cubin = true, .extra = ck->lineinfo ? lineinfo : NULL};
    return rt_compile(source, name, &ro, res);
}

/* ptxas, told only a kernel's block size (__launch_bounds__(T),
 * .maxntid T), may cap the registers below what the block size allows so
 * that more blocks fit on an SM, and spill to stay under its cap (seen at
 * 62, 64 and 72 registers for blocks of 128 threads). Asking for at least
 * one resident block an SM lifts that cap and promises nothing else, so a
 * kernel that spills below its block size's register limit is built once
 * more with that request, and the build that spills less is kept. */
bool lib_build(const CgKernel *ck, const char *arch, bool want_ptx, RtCompileResult *res, LibBuildNote *note) {
    if (note) memset(note, 0, sizeof *note);
    if (!build_source(ck, ck->source, ck->source_len, arch, want_ptx, res)) return false;
    if (res->spill_store_bytes <= 0 || res->registers < 0 || res->registers >= register_limit(ck->block)) return true;
    char *again = one_block_source(ck);
    if (!again) return true;
    RtCompileResult second;
    bool better = build_source(ck, again, strlen(again), arch, want_ptx, &second) &&
                  second.spill_store_bytes >= 0 && second.spill_store_bytes < res->spill_store_bytes;
    if (note && better) {
        note->one_block = true;
        note->first_registers = res->registers;
        note->first_spill_bytes = res->spill_store_bytes;
    }
    if (better) {
        second.seconds += res->seconds;
        rt_compile_result_free(res);
        *res = second;
    } else {
        res->seconds += second.seconds;
        rt_compile_result_free(&second);
    }
    free(again);
    return true;
}

int lib_obtain_cubin(Ctx *c, const CgKernel *ck, const LibBuild *b, LibBinary *bin) {
    memset(bin, 0, sizeof *bin);
    bin->registers = bin->spill_bytes = -1;
    RtCache cache;
    char key[HASH_KEY_SIZE] = "", warn[256];
    rt_cache_init(&cache, b->cache_dir, b->no_cache, warn);
    if (warn[0]) fprintf(b->err, "tilec: warning: %s\n", warn);
    if (cache.enabled) {
        cubin_key(ck, b, key);
        if (rt_cache_get(&cache, key, &bin->cubin, &bin->size)) {
            bin->cache_hit = true;
            cached_resources(&cache, key, bin);
            if (b->verbose) fprintf(b->err, "tilec: cache hit for %s (%s/%s.cubin)\n", ck->name, cache.dir, key);
            return LIB_OK;
        }
        if (b->verbose) fprintf(b->err, "tilec: cache miss for %s\n", ck->name);
    }
    RtCompileResult res;
    LibBuildNote note;
    bool llvm = ck->backend == CG_LLVM;
    if (!lib_build(ck, b->arch, false, &res, &note)) {
        int rc = compile_failed(c, ck, arena_printf(&c->arena, "%s.%s", ck->name, llvm ? "ptx" : "cu"), &res, b);
        rt_compile_result_free(&res);
        return rc;
    }
    if (b->verbose) {
        report_one_block(ck, b, &note);
        fprintf(b->err, "tilec: %s for %s: %d registers, %d bytes spill stores, %d bytes spill loads, %lld bytes "
                        "dynamic shared memory, %s in %.3f s\n",
                ck->name, b->arch, res.registers, res.spill_store_bytes, res.spill_load_bytes,
                (long long)ck->smem_bytes, llvm ? arena_printf(&c->arena, "PTX assembled by %s", rt_ptx_assembler()) : "compiled by NVRTC", res.seconds);
    }
    if (b->verbose && res.perf_warning[0]) fprintf(b->err, "tilec: ptxas: %s\n", res.perf_warning);
    rt_cache_put(&cache, key, res.cubin, res.cubin_size);
    if (cache.enabled) cache_resources(&cache, key, res.registers, res.spill_store_bytes);
    bin->cubin = res.cubin;
    bin->size = res.cubin_size;
    res.cubin = NULL;
    bin->compile_s = res.seconds;
    bin->registers = res.registers;
    bin->spill_bytes = res.spill_store_bytes;
    rt_compile_result_free(&res);
    return LIB_OK;
}

/* The PTX that became the cubin: built as lib_obtain_cubin builds it, so
 * that it is the second build's where that one was kept. */
int lib_obtain_ptx(Ctx *c, const CgKernel *ck, const LibBuild *b, char **ptx, size_t *size) {
    *ptx = NULL;
    *size = 0;
    RtCompileResult res;
    LibBuildNote note;
    int rc = LIB_OK;
    if (lib_build(ck, b->arch, true, &res, &note)) {
        if (b->verbose) report_one_block(ck, b, &note);
        *ptx = res.ptx;
        *size = res.ptx_size;
        res.ptx = NULL;
    } else if (ck->backend == CG_LLVM) {
        /* the backend's own output, as it is: the PTX shows why ptxas
         * (or no ptxas here) refused it; a cubin would report that */
        *ptx = xmalloc(ck->source_len + 1);
        memcpy(*ptx, ck->source, ck->source_len + 1);
        *size = ck->source_len;
    } else {
        rc = compile_failed(c, ck, arena_printf(&c->arena, "%s.cu", ck->name), &res, b);
    }
    rt_compile_result_free(&res);
    return rc;
}
