/* cuda_stub.c - the CUDA driver functions a launcher of `tilec --emit-lib`
 * calls, as cuda_stub.h describes: every call succeeds, counts, and records
 * what a test checks. */
#include "cuda_stub.h"

#include <string.h>

int stub_cc = 80;
uintptr_t stub_context = 1;
int stub_calls, stub_launches, stub_nmaps;
StubMap stub_maps[STUB_MAX_MAPS];
char stub_symbol[128];
unsigned stub_grid[3], stub_block, stub_smem;
void (*stub_on_launch)(void **args);

/* A module and a function: what the launcher passes back (the kernel's name). */
struct CUfunc_st {
    char name[128];
};
/* a function object per cuModuleGetFunction (a kernel's variants are
 * functions of their own), reused round robin */
static struct CUfunc_st functions[16];
static int nfunctions;
static int module;

CUresult cuGetErrorString(CUresult error, const char **s) {
    stub_calls++;
    *s = error == CUDA_SUCCESS ? "no error" : "a stub error";
    return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags) {
    (void)flags;
    stub_calls++;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *ctx) {
    stub_calls++;
    *ctx = (CUcontext)stub_context;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    stub_calls++;
    stub_context = (uintptr_t)ctx;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
    stub_calls++;
    *dev = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
    stub_calls++;
    *ctx = (CUcontext)(uintptr_t)(0x1000 + dev);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *dev) {
    stub_calls++;
    *dev = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev) {
    (void)dev;
    stub_calls++;
    *v = attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR   ? stub_cc / 10
         : attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? stub_cc % 10
         : attr == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT     ? 132
                                                                : 0;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *mod, const void *image) {
    (void)image;
    stub_calls++;
    *mod = (CUmodule)&module;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name) {
    (void)mod;
    stub_calls++;
    struct CUfunc_st *f = &functions[nfunctions++ % 16];
    memset(f->name, 0, sizeof f->name);
    strncpy(f->name, name, sizeof f->name - 1);
    *fn = f;
    return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attr, int value) {
    (void)fn, (void)attr, (void)value;
    stub_calls++;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction fn, int block, size_t smem) {
    (void)fn, (void)block, (void)smem;
    stub_calls++;
    *blocks = 1;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction fn, const CUlaunchConfig *cfg) {
    (void)fn, (void)cfg;
    stub_calls++;
    *clusters = 66;
    return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                                CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
    (void)type, (void)element_strides, (void)interleave, (void)swizzle, (void)l2, (void)fill;
    stub_calls++;
    if (rank < 1 || rank > 5 || stub_nmaps == STUB_MAX_MAPS) return CUDA_ERROR_INVALID_VALUE;
    StubMap *m = &stub_maps[stub_nmaps];
    memset(m, 0, sizeof *m);
    m->rank = (int)rank, m->address = address;
    for (cuuint32_t d = 0; d < rank; d++) {
        m->dims[d] = dims[d], m->box[d] = box[d];
        if (d > 0) m->strides[d - 1] = strides[d - 1];
    }
    memset(map, 0, sizeof *map);
    map->opaque[0] = (cuuint64_t)++stub_nmaps;
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream stream, void **args, void **extra) {
    (void)by, (void)bz, (void)stream, (void)extra;
    stub_calls++;
    stub_launches++;
    memcpy(stub_symbol, fn->name, sizeof stub_symbol);
    stub_grid[0] = gx, stub_grid[1] = gy, stub_grid[2] = gz, stub_block = bx, stub_smem = smem;
    if (stub_on_launch) stub_on_launch(args);
    return CUDA_SUCCESS;
}
