/* api.c - the small calls of tilec.h: the version, freeing, and the bytes
 * of a compiled kernel (tilec_get). */
#include <stdlib.h>
#include <string.h>

#include "lib.h"

const char *tilec_version(void) { return TILEC_VERSION; }

void tilec_free_string(char *s) { free(s); }

void tilec_kernel_free(tilec_kernel *k) {
    if (!k) return;
    rt_module_unload(k->module);
    for (int i = 0; i < k->npartners; i++) tilec_kernel_free(k->partner[i]);
    for (int i = 0; i < k->nparams; i++) {
        free(k->params[i].name);
        for (int d = 0; d < MAX_RANK; d++) free(k->params[i].dim_name[d]);
    }
    free(k->params);
    for (int i = 0; i < k->nstages; i++) {
        tilec_kernel_free(k->stages[i].k);
        free(k->stages[i].arg);
        free(k->stages[i].value);
    }
    free(k->stages);
    free(k->scratch);
    for (int i = 0; i < k->ndynamic; i++) free(k->dynamic_name[i]);
    free(k->name);
    free(k->symbol);
    free(k->arch);
    free(k->cache_dir);
    free(k->cuda);
    free(k->ir);
    free(k->params_json);
    free(k->cubin);
    free(k->ptx);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* The PTX, made by NVRTC on the first request and kept in k. */
static int kernel_ptx(tilec_kernel *k) {
    pthread_mutex_lock(&k->lock);
    int rc = LIB_OK;
    if (!k->ptx) {
        Ctx c;
        LibText log;
        ctx_init(&c, lib_text_open(&log));
        CgKernel ck = {.source = k->cuda, .source_len = k->cuda_len, .name = k->symbol};
        LibBuild b = {.arch = k->arch, .cache_dir = k->cache_dir, .err = c.err};
        rc = lib_obtain_ptx(&c, &ck, &b, &k->ptx, &k->ptx_size);
        lib_text_close(&log, NULL);
        ctx_free(&c);
    }
    pthread_mutex_unlock(&k->lock);
    return rc;
}

int tilec_get(const tilec_kernel *k, const char *what, const void **data, size_t *size) {
    if (data) *data = NULL;
    if (size) *size = 0;
    if (!k || !what || !data || !size) return LIB_USAGE;
    if (!strcmp(what, "cuda")) {
        *data = k->cuda;
        *size = k->cuda_len;
    } else if (!strcmp(what, "ir")) {
        *data = k->ir;
        *size = k->ir_len;
    } else if (!strcmp(what, "params")) {
        *data = k->params_json;
        *size = k->params_json_len;
    } else if (k->stages && (!strcmp(what, "cubin") || !strcmp(what, "ptx"))) {
        return LIB_USAGE; /* a pipeline: each stage has its own (compile the stage's kernel by name) */
    } else if (!strcmp(what, "cubin")) {
        *data = k->cubin;
        *size = k->cubin_size;
    } else if (!strcmp(what, "ptx")) {
        /* the only lazily made part: k is const to the caller, not inside */
        tilec_kernel *mk = (tilec_kernel *)k;
        int rc = kernel_ptx(mk);
        if (rc != LIB_OK) return rc;
        *data = mk->ptx;
        *size = mk->ptx_size;
    } else {
        return LIB_USAGE;
    }
    return LIB_OK;
}
