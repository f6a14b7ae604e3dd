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
    RtCompileOptions ro = {.arch = b->arch, .want_cubin = true, .extra = ck->lineinfo ? lineinfo : NULL};
    RtCompileResult res;
    bool llvm = ck->backend == CG_LLVM;
    char *cu_name = arena_printf(&c->arena, "%s.%s", ck->name, llvm ? "ptx" : "cu");
    if (llvm ? !rt_ptx_to_cubin(ck->source, ck->source_len, cu_name, b->arch, ck->lineinfo, &res)
             : !rt_compile(ck->source, cu_name, &ro, &res)) {
        int rc = compile_failed(c, ck, cu_name, &res, b);
        rt_compile_result_free(&res);
        return rc;
    }
    if (b->verbose)
        fprintf(b->err, "tilec: %s for %s: %d registers, %d bytes spill stores, %d bytes spill loads, %lld bytes "
                        "dynamic shared memory, %s in %.3f s\n",
                ck->name, b->arch, res.registers, res.spill_store_bytes, res.spill_load_bytes,
                (long long)ck->smem_bytes, llvm ? arena_printf(&c->arena, "PTX assembled by %s", rt_ptx_assembler()) : "compiled by NVRTC", res.seconds);
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

int lib_obtain_ptx(Ctx *c, const CgKernel *ck, const LibBuild *b, char **ptx, size_t *size) {
    *ptx = NULL;
    *size = 0;
    if (ck->backend == CG_LLVM) { /* the backend's own output */
        *ptx = xmalloc(ck->source_len + 1);
        memcpy(*ptx, ck->source, ck->source_len + 1);
        *size = ck->source_len;
        return LIB_OK;
    }
    RtCompileOptions ro = {.arch = b->arch, .want_ptx = true, .extra = ck->lineinfo ? lineinfo : NULL};
    RtCompileResult res;
    char *cu_name = arena_printf(&c->arena, "%s.cu", ck->name);
    int rc = LIB_OK;
    if (rt_compile(ck->source, cu_name, &ro, &res)) {
        *ptx = res.ptx;
        *size = res.ptx_size;
        res.ptx = NULL;
    } else {
        rc = compile_failed(c, ck, cu_name, &res, b);
    }
    rt_compile_result_free(&res);
    return rc;
}
