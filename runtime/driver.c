/* driver.c - running cubins on the GPU through the CUDA driver API: the
 * device, modules, kernels, launches, device memory and events.
 *
 * libcuda.so.1 is opened with dlopen on first use and every function is
 * looked up with dlsym, so nothing here links the driver: tilec must start
 * (and compile with NVRTC) on machines that have no GPU and no driver, such
 * as CI. cuda.h is included for its types and enums only; no function it
 * declares is ever called directly. */
#include "runtime.h"
#include "launch_shape.h"

#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The CUDA driver's Linux soname; "libcuda.so" without the version is the
 * toolkit's link-time stub and only exists where the toolkit does. */
#define DRIVER_LIBRARY "libcuda.so.1"

/* Without an opt-in a block may use at most 48 KiB of shared memory, static
 * and dynamic together (the limit of GPUs before Volta, kept so old code
 * keeps its occupancy); more needs CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
 * raised on the function first, up to the device's per-block opt-in maximum. */
enum { SMEM_WITHOUT_OPT_IN = 48 * 1024 };

/* ---- the driver's functions ----
 * Each entry is (field, symbol, fallback symbol or NULL). The field's type is
 * taken from cuda.h's own prototype of the symbol, so a wrong signature here
 * cannot compile. Where cuda.h maps a name to a versioned one (cuMemAlloc to
 * cuMemAlloc_v2 and so on), the entry names the versioned symbol: the
 * unversioned ones are kept in libcuda for binaries from before CUDA 3.2 and
 * 4.0 and have the old ABI (32-bit sizes and device pointers, or the old
 * destroy semantics), which would silently truncate on a 64-bit process. */
#define DRIVER_FUNCTIONS(X)                                                   \
    X(get_error_name, cuGetErrorName, NULL)                                   \
    X(get_error_string, cuGetErrorString, NULL)                               \
    X(init, cuInit, NULL)                                                     \
    X(driver_get_version, cuDriverGetVersion, NULL)                           \
    X(device_get_count, cuDeviceGetCount, NULL)                               \
    X(device_get, cuDeviceGet, NULL)                                          \
    X(device_get_name, cuDeviceGetName, NULL)                                 \
    X(device_get_attribute, cuDeviceGetAttribute, NULL)                       \
    X(device_total_mem, cuDeviceTotalMem_v2, NULL)                            \
    X(primary_ctx_retain, cuDevicePrimaryCtxRetain, NULL)                     \
    X(ctx_set_current, cuCtxSetCurrent, NULL)                                 \
    X(ctx_synchronize, cuCtxSynchronize, NULL)                                \
    X(module_load_data_ex, cuModuleLoadDataEx, NULL)                          \
    X(module_unload, cuModuleUnload, NULL)                                    \
    X(module_get_function, cuModuleGetFunction, NULL)                         \
    X(func_get_attribute, cuFuncGetAttribute, NULL)                           \
    X(func_set_attribute, cuFuncSetAttribute, NULL)                           \
    X(launch_kernel, cuLaunchKernel, NULL)                                    \
    X(occupancy_max_active_blocks, cuOccupancyMaxActiveBlocksPerMultiprocessor, NULL) \
    X(mem_alloc, cuMemAlloc_v2, NULL)                                         \
    X(mem_free, cuMemFree_v2, NULL)                                           \
    X(mem_get_info, cuMemGetInfo_v2, NULL)                                    \
    X(memcpy_htod, cuMemcpyHtoD_v2, NULL)                                     \
    X(memcpy_dtoh, cuMemcpyDtoH_v2, NULL)                                     \
    X(memcpy_dtod, cuMemcpyDtoD_v2, NULL)                                     \
    X(memset_d8, cuMemsetD8_v2, NULL)                                         \
    X(event_create, cuEventCreate, NULL)                                      \
    X(event_record, cuEventRecord, NULL)                                      \
    X(event_synchronize, cuEventSynchronize, NULL)                            \
    X(event_elapsed_time, cuEventElapsedTime_v2, "cuEventElapsedTime")        \
    X(event_destroy, cuEventDestroy_v2, NULL)
/* cuEventElapsedTime_v2 (CUDA 12.8, what cuda.h 13 maps the name to) has the
 * same signature as the original, which older drivers export instead. */

#define DECLARE_FIELD(field, symbol, fallback) __typeof__(&symbol) field;
typedef struct DriverApi {
    DRIVER_FUNCTIONS(DECLARE_FIELD)
} DriverApi;

typedef struct DriverSymbol {
    const char *name, *fallback;
    size_t offset;  /* of the function pointer in DriverApi */
} DriverSymbol;

#define SYMBOL_ENTRY(field, symbol, fallback) {#symbol, fallback, offsetof(DriverApi, field)},
static const DriverSymbol driver_symbols[] = {DRIVER_FUNCTIONS(SYMBOL_ENTRY)};

/* POSIX (for dlsym) guarantees that object and function pointers convert
 * into each other; storing dlsym's result byte for byte relies on that. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers must fit in void *");

/* ---- the one state of this file ----
 * The library and its functions are loaded once under pthread_once and only
 * read afterwards. The device is opened under open_lock; `opened` is set
 * last (release) so a thread that sees it (acquire) also sees the device and
 * context. Nothing is ever closed: the primary context lives until exit. */
static struct {
    pthread_once_t load_once;
    void *library;
    DriverApi api;
    char load_error[256];  /* "" once the library and all functions are loaded */

    pthread_mutex_t open_lock;
    atomic_bool opened;
    RtDevice device;
    CUdevice cu_device;
    CUcontext context;
} driver = {
    .load_once = PTHREAD_ONCE_INIT,
    .open_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* A context is current per thread, not per process, so each thread that
 * calls in makes the primary context current once; tilec sets no other
 * context, so the flag cannot go stale. */
static _Thread_local bool context_current_here;

/* ---- error sentences ---- */

double rt_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rt_device_arch(const RtDevice *d, char out[16]) {
    /* from Hopper on, wgmma, setmaxnreg and TMA multicast exist only in the
     * architecture-specific "a" target */
    snprintf(out, 16, "sm_%d%d%s", d->cc_major, d->cc_minor, d->cc_major >= 9 ? "a" : "");
}

bool rt_fail(char *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, 256, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* cuGetErrorName and cuGetErrorString say "unrecognized error code" by
 * failing, which happens for codes newer than the driver. */
static void describe_result(CUresult rc, const char **name, const char **text) {
    *name = NULL;
    *text = NULL;
    if (driver.api.get_error_name && driver.api.get_error_name(rc, name) != CUDA_SUCCESS) *name = NULL;
    if (driver.api.get_error_string && driver.api.get_error_string(rc, text) != CUDA_SUCCESS) *text = NULL;
}

/* Errors that come from a kernel that ran and faulted, not from the call
 * that reports them: they are raised asynchronously by the next call that
 * waits for the GPU, and they are sticky (the context stays broken). */
static bool is_kernel_fault(CUresult rc) {
    switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
        return true;
    default:
        return false;
    }
}

/* Writes "<what>: <driver's text> (<CUDA_ERROR_NAME>)<tail>" into err, where
 * a kernel fault replaces <what> with "the kernel failed", since the call
 * that reports a fault is rarely its cause. Returns false. */
static bool cu_fail_with_tail(char *err, CUresult rc, const char *tail, const char *what_fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool cu_fail_with_tail(char *err, CUresult rc, const char *tail, const char *what_fmt, ...) {
    char what[160];
    if (is_kernel_fault(rc)) {
        snprintf(what, sizeof what, "the kernel failed");
    } else {
        va_list ap;
        va_start(ap, what_fmt);
        vsnprintf(what, sizeof what, what_fmt, ap);
        va_end(ap);
    }
    const char *name, *text;
    describe_result(rc, &name, &text);
    char code[48];
    if (name)
        snprintf(code, sizeof code, "%s", name);
    else
        snprintf(code, sizeof code, "CUDA error %d", (int)rc);
    if (text)
        return rt_fail(err, "%s: %s (%s)%s", what, text, code, tail);
    return rt_fail(err, "%s (%s)%s", what, code, tail);
}
#define cu_fail(err, rc, ...) cu_fail_with_tail(err, rc, "", __VA_ARGS__)

/* ---- loading the driver ---- */

static void load_driver(void) {
    /* RTLD_LOCAL keeps the driver's symbols out of the global namespace, so
     * they cannot bind to other libraries' lookups; RTLD_NOW fails here
     * rather than at some later call if the library is broken. */
    driver.library = dlopen(DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!driver.library) {
        snprintf(driver.load_error, sizeof driver.load_error,
                 "no CUDA driver (" DRIVER_LIBRARY ") on this machine");
        return;
    }
    for (size_t i = 0; i < sizeof driver_symbols / sizeof driver_symbols[0]; i++) {
        const DriverSymbol *s = &driver_symbols[i];
        void *fn = dlsym(driver.library, s->name);
        if (!fn && s->fallback) fn = dlsym(driver.library, s->fallback);
        if (!fn) {
            snprintf(driver.load_error, sizeof driver.load_error,
                     "the CUDA driver (" DRIVER_LIBRARY ") is too old for tilec: it has no %s", s->name);
            memset(&driver.api, 0, sizeof driver.api);
            return;
        }
        memcpy((char *)&driver.api + s->offset, &fn, sizeof fn);
    }
}

static bool driver_loaded(char *err) {
    pthread_once(&driver.load_once, load_driver);
    if (driver.load_error[0]) return rt_fail(err, "%s", driver.load_error);
    return true;
}

/* Every call that touches the device goes through here first. */
static bool ensure_context(char *err) {
    if (!atomic_load_explicit(&driver.opened, memory_order_acquire)) {
        if (!driver_loaded(err)) return false;
        return rt_fail(err, "the CUDA device is not open (rt_device_open was not called or failed)");
    }
    if (context_current_here) return true;
    CUresult rc = driver.api.ctx_set_current(driver.context);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not make the CUDA context current in this thread");
    context_current_here = true;
    return true;
}

/* ---- the device ---- */

/* $TILEC_DEVICE picks the device by ordinal; unset or empty means 0. */
static bool choose_ordinal(int count, int *ordinal, char *err) {
    const char *text = getenv("TILEC_DEVICE");
    *ordinal = 0;
    if (!text || !*text) return true;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || end == text || v < 0 || v >= count)
        return rt_fail(err, "TILEC_DEVICE='%.32s' is not a device number: this machine has %d CUDA device%s (0 to %d)",
                    text, count, count == 1 ? "" : "s", count - 1);
    *ordinal = (int)v;
    return true;
}

static bool read_device(CUdevice cu_dev, int ordinal, RtDevice *d, char *err) {
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    CUresult rc = driver.api.device_get_name(d->name, (int)sizeof d->name, cu_dev);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the name of CUDA device %d", ordinal);
    d->name[sizeof d->name - 1] = 0;

    const struct {
        CUdevice_attribute attribute;
        int *i;
        long long *ll;
    } attributes[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d->cc_major, NULL},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d->cc_minor, NULL},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d->sms, NULL},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, NULL, &d->l2_bytes},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &d->sm_clock_khz, NULL},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &d->mem_clock_khz, NULL},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &d->bus_width_bits, NULL},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, NULL, &d->smem_per_block_optin},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, NULL, &d->smem_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &d->max_threads_per_sm, NULL},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &d->regs_per_sm, NULL},
    };
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
        int v = 0;
        rc = driver.api.device_get_attribute(&v, attributes[i].attribute, cu_dev);
        if (rc != CUDA_SUCCESS)
            return cu_fail(err, rc, "could not read attribute %d of CUDA device %d", (int)attributes[i].attribute,
                           ordinal);
        if (attributes[i].i) *attributes[i].i = v;
        if (attributes[i].ll) *attributes[i].ll = v;
    }
    size_t total = 0;
    rc = driver.api.device_total_mem(&total, cu_dev);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the memory size of CUDA device %d", ordinal);
    d->global_mem_bytes = (long long)total;
    rc = driver.api.driver_get_version(&d->driver_version);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the CUDA driver's version");
    return true;
}

/* The first successful open, under open_lock. */
static bool open_device(char *err) {
    CUresult rc = driver.api.init(0);
    if (rc == CUDA_ERROR_NO_DEVICE) return rt_fail(err, "no CUDA device found");
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "the CUDA driver could not start");
    int count = 0;
    rc = driver.api.device_get_count(&count);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not count the CUDA devices");
    if (count <= 0) return rt_fail(err, "no CUDA device found");
    int ordinal;
    if (!choose_ordinal(count, &ordinal, err)) return false;
    CUdevice cu_dev;
    rc = driver.api.device_get(&cu_dev, ordinal);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not open CUDA device %d", ordinal);
    RtDevice d;
    if (!read_device(cu_dev, ordinal, &d, err)) return false;

    /* The primary context is the one per device that the CUDA runtime and
     * the libraries built on it (cuBLAS, PyTorch) also use, so memory and
     * modules are shared with them in the same process and no second
     * context (hundreds of MiB of device memory) is created; it is retained
     * once and never released, living until the process exits. */
    CUcontext ctx;
    rc = driver.api.primary_ctx_retain(&ctx, cu_dev);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not create a context on %s", d.name);
    rc = driver.api.ctx_set_current(ctx);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not make the context of %s current", d.name);
    context_current_here = true;

    driver.device = d;
    driver.cu_device = cu_dev;
    driver.context = ctx;
    atomic_store_explicit(&driver.opened, true, memory_order_release);
    return true;
}

bool rt_device_open(RtDevice *dev, char err[256]) {
    if (!dev) return rt_fail(err, "rt_device_open needs a device to fill in");
    if (!driver_loaded(err)) return false;
    pthread_mutex_lock(&driver.open_lock);
    bool ok = atomic_load_explicit(&driver.opened, memory_order_acquire) || open_device(err);
    pthread_mutex_unlock(&driver.open_lock);
    if (!ok || !ensure_context(err)) return false;
    *dev = driver.device;
    return true;
}

/* ---- modules and kernels ---- */

struct RtModule {
    CUmodule handle;
};

static bool starts_with(const void *data, size_t size, const void *magic, size_t n) {
    return size >= n && memcmp(data, magic, n) == 0;
}

/* Cubins are ELF files and fatbins start with 0xBA55ED50 (little-endian);
 * anything else is taken for PTX, which the driver reads up to a NUL. */
static bool is_binary_image(const void *image, size_t size) {
    static const unsigned char elf_magic[] = {0x7f, 'E', 'L', 'F'};
    static const unsigned char fatbin_magic[] = {0x50, 0xed, 0x55, 0xba};
    return starts_with(image, size, elf_magic, sizeof elf_magic) ||
           starts_with(image, size, fatbin_magic, sizeof fatbin_magic);
}

/* Codes that mean the image was built for another GPU or a newer toolkit. */
static bool is_image_mismatch(CUresult rc) {
    return rc == CUDA_ERROR_NO_BINARY_FOR_GPU || rc == CUDA_ERROR_INVALID_IMAGE ||
           rc == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || rc == CUDA_ERROR_INVALID_PTX;
}

bool rt_module_load(const void *cubin, size_t size, RtModule **out, char err[256]) {
    if (out) *out = NULL;
    if (!out) return rt_fail(err, "rt_module_load needs somewhere to put the module");
    if (!cubin || size == 0) return rt_fail(err, "the module image to load is empty");
    if (!ensure_context(err)) return false;

    /* PTX text need not end in a NUL in the caller's buffer, so it gets a
     * terminated copy; binary images carry their own sizes. */
    char *ptx_copy = NULL;
    const void *image = cubin;
    if (!is_binary_image(cubin, size) && memchr(cubin, 0, size) == NULL) {
        ptx_copy = malloc(size + 1);
        if (!ptx_copy) return rt_fail(err, "out of memory copying a %zu-byte PTX module", size);
        memcpy(ptx_copy, cubin, size);
        ptx_copy[size] = 0;
        image = ptx_copy;
    }

    /* The JIT error log says which line of PTX the driver rejected. */
    char jit_log[1024] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
    CUmodule handle;
    CUresult rc = driver.api.module_load_data_ex(&handle, image, 2, options, values);
    free(ptx_copy);
    if (rc != CUDA_SUCCESS) {
        char tail[200] = "";
        jit_log[sizeof jit_log - 1] = 0;
        char *newline = strchr(jit_log, '\n');
        if (newline) *newline = 0;
        if (jit_log[0]) {
            snprintf(tail, sizeof tail, "; the JIT said: %.150s", jit_log);
        } else if (is_image_mismatch(rc)) {
            const RtDevice *d = &driver.device;
            snprintf(tail, sizeof tail, "; the device is sm_%d%d and the driver supports CUDA %d.%d", d->cc_major,
                     d->cc_minor, d->driver_version / 1000, d->driver_version % 1000 / 10);
        }
        return cu_fail_with_tail(err, rc, tail, "could not load the module");
    }
    RtModule *m = malloc(sizeof *m);
    if (!m) {
        driver.api.module_unload(handle);
        return rt_fail(err, "out of memory loading a module");
    }
    m->handle = handle;
    *out = m;
    return true;
}

void rt_module_unload(RtModule *m) {
    if (!m) return;
    if (ensure_context(NULL)) driver.api.module_unload(m->handle);
    free(m);
}

bool rt_kernel_get(RtModule *m, const char *name, RtKernel *k, char err[256]) {
    if (k) k->fn = NULL;
    if (!m || !name || !k) return rt_fail(err, "rt_kernel_get needs a module, a kernel name and a kernel to fill in");
    if (!ensure_context(err)) return false;
    CUfunction fn;
    CUresult rc = driver.api.module_get_function(&fn, m->handle, name);
    if (rc == CUDA_ERROR_NOT_FOUND) return rt_fail(err, "the module has no kernel named '%.100s'", name);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not find kernel '%.100s' in the module", name);
    k->fn = fn;
    return true;
}

/* ---- launching ---- */

static bool check_kernel(const RtKernel *k, const char *who, char *err) {
    if (!k || !k->fn) return rt_fail(err, "%s needs a kernel from rt_kernel_get", who);
    return ensure_context(err);
}

static bool check_block(long long block, long long smem, char *err) {
    if (block < 1 || block > 1024)
        return rt_fail(err, "a block of %lld threads is impossible: blocks hold 1 to 1024 threads", block);
    if (smem < 0 || smem > INT_MAX) return rt_fail(err, "%lld bytes of dynamic shared memory is impossible", smem);
    return true;
}

/* Raises the function's dynamic shared memory limit where static plus
 * dynamic shared memory exceed what a block gets without opting in. The
 * static size is read only for launches that use dynamic shared memory. */
static bool opt_in_shared_memory(CUfunction fn, long long smem, char *err) {
    if (smem == 0) return true;
    int static_smem = 0;
    if (smem <= SMEM_WITHOUT_OPT_IN) {
        CUresult rc = driver.api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
        if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the kernel's static shared memory");
        if (smem + static_smem <= SMEM_WITHOUT_OPT_IN) return true;
    }
    CUresult rc = driver.api.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
    if (rc == CUDA_SUCCESS) return true;
    if (rc == CUDA_ERROR_INVALID_VALUE) {
        driver.api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
        return rt_fail(err,
                    "the kernel needs %lld bytes of dynamic and %d bytes of static shared memory, more than the "
                    "%lld bytes a block may have on %s",
                    smem, static_smem, driver.device.smem_per_block_optin, driver.device.name);
    }
    return cu_fail(err, rc, "could not allow the kernel %lld bytes of dynamic shared memory", smem);
}

/* After a launch was refused for its resources, says which one. */
static bool explain_refused_launch(CUfunction fn, CUresult rc, long long block, char *err) {
    int max_threads = 0, regs = 0;
    if (rc == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES &&
        driver.api.func_get_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) == CUDA_SUCCESS &&
        driver.api.func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) == CUDA_SUCCESS && block > max_threads)
        return rt_fail(err,
                    "could not launch the kernel: it uses %d registers per thread, so a block may have at most %d "
                    "threads, not %lld",
                    regs, max_threads, block);
    return cu_fail(err, rc, "could not launch the kernel");
}

bool rt_launch(const RtKernel *k, const long long grid[3], long long block, long long smem, void **params,
               void *stream, char err[256]) {
    if (!check_kernel(k, "rt_launch", err) || !check_block(block, smem, err)) return false;
    if (!grid) return rt_fail(err, "rt_launch needs a grid");
    if (!rt_grid_in_limits(grid))
        return rt_fail(err,
                        "a grid of %lld x %lld x %lld blocks is impossible: x may be 1 to 2147483647, y and z "
                        "1 to 65535",
                        grid[0], grid[1], grid[2]);
    CUfunction fn = k->fn;
    if (!opt_in_shared_memory(fn, smem, err)) return false;
    /* A NULL stream is the legacy default stream, which the plain (not
     * _ptsz) cuLaunchKernel symbol uses; it serialises with other streams. */
    CUresult rc = driver.api.launch_kernel(fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                           (unsigned)block, 1, 1, (unsigned)smem, (CUstream)stream, params, NULL);
    if (rc != CUDA_SUCCESS) return explain_refused_launch(fn, rc, block, err);
    return true;
}

bool rt_occupancy(const RtKernel *k, long long block, long long smem, int *blocks_per_sm, char err[256]) {
    if (blocks_per_sm) *blocks_per_sm = 0;
    if (!blocks_per_sm) return rt_fail(err, "rt_occupancy needs somewhere to put the result");
    if (!check_kernel(k, "rt_occupancy", err) || !check_block(block, smem, err)) return false;
    /* The calculator honours the function's dynamic shared memory limit, so
     * it needs the same opt-in as a launch to count blocks above 48 KiB. */
    if (!opt_in_shared_memory(k->fn, smem, err)) return false;
    CUresult rc = driver.api.occupancy_max_active_blocks(blocks_per_sm, k->fn, (int)block, (size_t)smem);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not compute the kernel's occupancy");
    return true;
}

/* cuOccupancyMaxActiveClusters came with CUDA 11.8: looked up on its own,
 * so an older driver still runs everything without clusters. */
static struct {
    pthread_once_t load_once;
    __typeof__(&cuOccupancyMaxActiveClusters) max_active_clusters;
} cluster_occupancy = {.load_once = PTHREAD_ONCE_INIT};

static void load_cluster_occupancy(void) {
    void *fn = dlsym(driver.library, "cuOccupancyMaxActiveClusters");
    memcpy(&cluster_occupancy.max_active_clusters, &fn, sizeof fn);
}

bool rt_max_active_clusters(const RtKernel *k, long long block, long long smem, int cluster, int *clusters,
                            char err[256]) {
    if (clusters) *clusters = 0;
    if (!clusters) return rt_fail(err, "rt_max_active_clusters needs somewhere to put the result");
    if (!check_kernel(k, "rt_max_active_clusters", err) || !check_block(block, smem, err)) return false;
    if (cluster < 1) return rt_fail(err, "a cluster has at least one block");
    if (!opt_in_shared_memory(k->fn, smem, err)) return false;
    pthread_once(&cluster_occupancy.load_once, load_cluster_occupancy);
    if (!cluster_occupancy.max_active_clusters)
        return rt_fail(err, "the CUDA driver (" DRIVER_LIBRARY ") is too old for clusters: it has no cuOccupancyMaxActiveClusters");
    /* The cluster shape is the kernel's own (__cluster_dims__); the grid
     * only has to be a whole number of clusters. */
    CUlaunchConfig config = {.gridDimX = (unsigned)cluster, .gridDimY = 1, .gridDimZ = 1, .blockDimX = (unsigned)block,
                             .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = (unsigned)smem};
    CUresult rc = cluster_occupancy.max_active_clusters(clusters, k->fn, &config);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not compute how many of the kernel's clusters fit at once");
    return true;
}

bool rt_kernel_attrs(const RtKernel *k, int *regs, int *local_bytes, int *static_smem, char err[256]) {
    if (!check_kernel(k, "rt_kernel_attrs", err)) return false;
    const struct {
        CUfunction_attribute attribute;
        int *out;
        const char *what;
    } wanted[] = {
        {CU_FUNC_ATTRIBUTE_NUM_REGS, regs, "registers"},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, local_bytes, "local memory"},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, static_smem, "static shared memory"},
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        if (!wanted[i].out) continue;
        CUresult rc = driver.api.func_get_attribute(wanted[i].out, wanted[i].attribute, k->fn);
        if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the kernel's %s", wanted[i].what);
    }
    return true;
}

/* ---- memory ---- */

bool rt_malloc(uint64_t *ptr, size_t bytes, char err[256]) {
    if (ptr) *ptr = 0;
    if (!ptr) return rt_fail(err, "rt_malloc needs somewhere to put the pointer");
    if (bytes == 0) return true;  /* cuMemAlloc refuses 0 bytes */
    if (!ensure_context(err)) return false;
    CUdeviceptr p;
    CUresult rc = driver.api.mem_alloc(&p, bytes);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t free_bytes = 0, total_bytes = 0;
        char tail[96] = "";
        if (driver.api.mem_get_info(&free_bytes, &total_bytes) == CUDA_SUCCESS)
            snprintf(tail, sizeof tail, "; %zu MiB of %zu MiB are free", free_bytes >> 20, total_bytes >> 20);
        return cu_fail_with_tail(err, rc, tail, "could not allocate %zu bytes of device memory", bytes);
    }
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not allocate %zu bytes of device memory", bytes);
    *ptr = (uint64_t)p;
    return true;
}

void rt_free(uint64_t ptr) {
    if (ptr && ensure_context(NULL)) driver.api.mem_free((CUdeviceptr)ptr);
}

bool rt_memcpy_htod(uint64_t dst, const void *src, size_t n, char err[256]) {
    if (n == 0) return true;
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.memcpy_htod((CUdeviceptr)dst, src, n);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not copy %zu bytes from the host to the GPU", n);
    return true;
}

bool rt_memcpy_dtoh(void *dst, uint64_t src, size_t n, char err[256]) {
    if (n == 0) return true;
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.memcpy_dtoh(dst, (CUdeviceptr)src, n);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not copy %zu bytes from the GPU to the host", n);
    return true;
}

bool rt_memcpy_dtod(uint64_t dst, uint64_t src, size_t n, char err[256]) {
    if (n == 0) return true;
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.memcpy_dtod((CUdeviceptr)dst, (CUdeviceptr)src, n);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not copy %zu bytes within the GPU", n);
    return true;
}

bool rt_memset8(uint64_t dst, unsigned char value, size_t n, char err[256]) {
    if (n == 0) return true;
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.memset_d8((CUdeviceptr)dst, value, n);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not set %zu bytes of device memory", n);
    return true;
}

bool rt_synchronize(char err[256]) {
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.ctx_synchronize();
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not wait for the GPU");
    return true;
}

/* ---- events ---- */

bool rt_event_create(RtEvent *e, char err[256]) {
    if (e) e->ev = NULL;
    if (!e) return rt_fail(err, "rt_event_create needs an event to fill in");
    if (!ensure_context(err)) return false;
    CUevent ev;
    /* CU_EVENT_DEFAULT keeps timing on, which CU_EVENT_DISABLE_TIMING would turn off. */
    CUresult rc = driver.api.event_create(&ev, CU_EVENT_DEFAULT);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not create a CUDA event");
    e->ev = ev;
    return true;
}

bool rt_event_record(RtEvent *e, void *stream, char err[256]) {
    if (!e || !e->ev) return rt_fail(err, "rt_event_record needs an event from rt_event_create");
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.event_record((CUevent)e->ev, (CUstream)stream);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not record a CUDA event");
    return true;
}

bool rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms, char err[256]) {
    if (ms) *ms = 0;
    if (!start || !start->ev || !end || !end->ev || !ms)
        return rt_fail(err, "rt_event_elapsed_ms needs two events from rt_event_create and somewhere to put the time");
    if (!ensure_context(err)) return false;
    CUresult rc = driver.api.event_synchronize((CUevent)end->ev);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not wait for a CUDA event");
    rc = driver.api.event_elapsed_time(ms, (CUevent)start->ev, (CUevent)end->ev);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not read the time between two CUDA events");
    return true;
}

void rt_event_destroy(RtEvent *e) {
    if (!e || !e->ev) return;
    if (ensure_context(NULL)) driver.api.event_destroy((CUevent)e->ev);
    e->ev = NULL;
}

/* ---- streams, asynchronous memset and CUDA graphs (the profiler's timing) ----
 * These functions sit in a second table, resolved on first use after the
 * device is open, so a driver that lacks one of them fails only the calls
 * below and never rt_device_open. Entries follow DRIVER_FUNCTIONS: the type
 * comes from cuda.h's prototype, versioned symbols where cuda.h maps the name
 * (cuStreamDestroy to _v2, cuStreamBeginCapture to _v2 with a capture mode,
 * cuGraphInstantiate to cuGraphInstantiateWithFlags). */
#define TIMING_DRIVER_FUNCTIONS(X)                                            \
    X(stream_create, cuStreamCreate)                                          \
    X(stream_destroy, cuStreamDestroy_v2)                                     \
    X(stream_synchronize, cuStreamSynchronize)                                \
    X(stream_begin_capture, cuStreamBeginCapture_v2)                          \
    X(stream_end_capture, cuStreamEndCapture)                                 \
    X(graph_instantiate, cuGraphInstantiateWithFlags)                         \
    X(graph_launch, cuGraphLaunch)                                            \
    X(graph_exec_destroy, cuGraphExecDestroy)                                 \
    X(graph_destroy, cuGraphDestroy)                                          \
    X(memset_d8_async, cuMemsetD8Async)                                       \
    X(mem_alloc_async, cuMemAllocAsync)                                       \
    X(mem_free_async, cuMemFreeAsync)

#define TIMING_DECLARE_FIELD(field, symbol) __typeof__(&symbol) field;
typedef struct TimingDriverApi {
    TIMING_DRIVER_FUNCTIONS(TIMING_DECLARE_FIELD)
} TimingDriverApi;

#define TIMING_SYMBOL_ENTRY(field, symbol) {#symbol, NULL, offsetof(TimingDriverApi, field)},
static const DriverSymbol timing_symbols[] = {TIMING_DRIVER_FUNCTIONS(TIMING_SYMBOL_ENTRY)};

static struct {
    pthread_once_t load_once;
    TimingDriverApi api;
    char load_error[256];  /* "" once every function is resolved */
} timing = {.load_once = PTHREAD_ONCE_INIT};

static void load_timing_functions(void) {
    for (size_t i = 0; i < sizeof timing_symbols / sizeof timing_symbols[0]; i++) {
        void *fn = dlsym(driver.library, timing_symbols[i].name);
        if (!fn) {
            snprintf(timing.load_error, sizeof timing.load_error,
                     "the CUDA driver (" DRIVER_LIBRARY ") is too old for streams, graphs and stream-ordered "
                     "memory: it has no %s",
                     timing_symbols[i].name);
            memset(&timing.api, 0, sizeof timing.api);
            return;
        }
        memcpy((char *)&timing.api + timing_symbols[i].offset, &fn, sizeof fn);
    }
}

/* ensure_context succeeds only once the library is loaded and the device open. */
static bool timing_ready(char *err) {
    if (!ensure_context(err)) return false;
    pthread_once(&timing.load_once, load_timing_functions);
    if (timing.load_error[0]) return rt_fail(err, "%s", timing.load_error);
    return true;
}

bool rt_stream_create(void **stream, char err[256]) {
    if (stream) *stream = NULL;
    if (!stream) return rt_fail(err, "rt_stream_create needs somewhere to put the stream");
    if (!timing_ready(err)) return false;
    /* Non-blocking: the legacy default stream (rt_memcpy_*, rt_memset8, other
     * libraries) neither waits for this stream nor is waited for, so work
     * there cannot slip into a timed interval or invalidate a capture here. */
    CUstream s;
    CUresult rc = timing.api.stream_create(&s, CU_STREAM_NON_BLOCKING);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not create a CUDA stream");
    *stream = s;
    return true;
}

bool rt_stream_synchronize(void *stream, char err[256]) {
    if (!timing_ready(err)) return false;
    CUresult rc = timing.api.stream_synchronize((CUstream)stream);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not wait for a CUDA stream");
    return true;
}

void rt_stream_destroy(void *stream) {
    /* The driver releases the stream once its pending work is done. */
    if (stream && timing_ready(NULL)) timing.api.stream_destroy((CUstream)stream);
}

bool rt_memset8_async(uint64_t dst, unsigned char value, size_t n, void *stream, char err[256]) {
    if (n == 0) return true;
    if (!timing_ready(err)) return false;
    CUresult rc = timing.api.memset_d8_async((CUdeviceptr)dst, value, n, (CUstream)stream);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not set %zu bytes of device memory", n);
    return true;
}

bool rt_malloc_async(uint64_t *ptr, size_t bytes, void *stream, char err[256]) {
    *ptr = 0;
    if (bytes == 0) return true;
    if (!timing_ready(err)) return false;
    CUdeviceptr p;
    CUresult rc = timing.api.mem_alloc_async(&p, bytes, (CUstream)stream);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not allocate %zu bytes of device memory on the stream", bytes);
    *ptr = (uint64_t)p;
    return true;
}

void rt_free_async(uint64_t ptr, void *stream) {
    char err[256];
    if (ptr && timing_ready(err)) timing.api.mem_free_async((CUdeviceptr)ptr, (CUstream)stream);
}

bool rt_capture_begin(void *stream, char err[256]) {
    if (!stream) return rt_fail(err, "a CUDA graph cannot be captured on the default stream");
    if (!timing_ready(err)) return false;
    /* Relaxed: the capture puts no restriction on other calls of this or any
     * other thread (rt_launch may set a function attribute while capturing). */
    CUresult rc = timing.api.stream_begin_capture((CUstream)stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not start capturing a CUDA graph");
    return true;
}

bool rt_capture_end(void *stream, RtGraph *g, char err[256]) {
    if (g) g->exec = NULL;
    if (!stream) return rt_fail(err, "a CUDA graph cannot be captured on the default stream");
    if (!timing_ready(err)) return false;
    CUgraph graph = NULL;
    CUresult rc = timing.api.stream_end_capture((CUstream)stream, &graph);
    if (rc != CUDA_SUCCESS) {
        if (graph) timing.api.graph_destroy(graph);
        return cu_fail(err, rc, "could not finish capturing a CUDA graph");
    }
    if (!g) {
        if (graph) timing.api.graph_destroy(graph);
        return true;
    }
    if (!graph) return rt_fail(err, "capturing a CUDA graph gave no graph");
    /* The executable graph is a snapshot, independent of the captured one. */
    CUgraphExec exec;
    rc = timing.api.graph_instantiate(&exec, graph, 0);
    timing.api.graph_destroy(graph);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not instantiate a CUDA graph");
    g->exec = exec;
    return true;
}

bool rt_graph_launch(const RtGraph *g, void *stream, char err[256]) {
    if (!g || !g->exec) return rt_fail(err, "rt_graph_launch needs a graph from rt_capture_end");
    if (!timing_ready(err)) return false;
    CUresult rc = timing.api.graph_launch((CUgraphExec)g->exec, (CUstream)stream);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not launch a CUDA graph");
    return true;
}

void rt_graph_destroy(RtGraph *g) {
    if (!g || !g->exec) return;
    if (timing_ready(NULL)) timing.api.graph_exec_destroy((CUgraphExec)g->exec);
    g->exec = NULL;
}

/* ---- TMA tensor maps (CUDA 12.0 and later drivers) ---- */

static struct {
    pthread_once_t load_once;
    __typeof__(&cuTensorMapEncodeTiled) encode_tiled;
} tensor_maps = {.load_once = PTHREAD_ONCE_INIT};

static void load_tensor_map_functions(void) {
    void *fn = dlsym(driver.library, "cuTensorMapEncodeTiled");
    memcpy(&tensor_maps.encode_tiled, &fn, sizeof fn);
}

bool rt_tensor_map_encode(const RtTensorMapSpec *s, uint64_t base, void *out, char err[256]) {
    if (!ensure_context(err)) return false;
    pthread_once(&tensor_maps.load_once, load_tensor_map_functions);
    if (!tensor_maps.encode_tiled)
        return rt_fail(err, "the CUDA driver (" DRIVER_LIBRARY ") is too old for TMA: it has no cuTensorMapEncodeTiled");
    if (s->rank < 1 || s->rank > 5 || ((uintptr_t)out & 63))
        return rt_fail(err, "a TMA tensor map needs rank 1 to 5 and a 64-byte aligned home");
    CUtensorMapDataType type = s->elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                               : s->bf16          ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                               : s->elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                    : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    CUtensorMapSwizzle swizzle = s->swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : s->swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : s->swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elem_strides[5];
    for (int d = 0; d < s->rank; d++) {
        dims[d] = s->dims[d];
        box[d] = s->box[d];
        elem_strides[d] = 1;
        if (d + 1 < s->rank) strides[d] = s->strides[d];
    }
    /* Out-of-bounds elements of a box read as zeros (FLOAT_OOB_FILL_NONE),
     * which is what a ragged tile edge of a GEMM needs; 256-byte L2
     * promotion fetches whole sectors pairs for the 128-byte rows. */
    CUresult rc = tensor_maps.encode_tiled((CUtensorMap *)out, type, (cuuint32_t)s->rank, (void *)(uintptr_t)base, dims,
                                           strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS) return cu_fail(err, rc, "could not build a TMA tensor map");
    return true;
}

long long rt_persistent_blocks(const RtKernel *k, long long block, long long smem, int cluster, long long tiles) {
    char err[256];
    int per_sm = 0, clusters = 0;
    RtDevice dev;
    if (cluster > 1) {
        if (rt_max_active_clusters(k, block, smem, cluster, &clusters, err) && clusters > 0 &&
            tiles > (long long)clusters * cluster)
            return (long long)clusters * cluster;
    } else if (rt_device_open(&dev, err) && rt_occupancy(k, block, smem, &per_sm, err) && per_sm > 0 &&
               tiles > (long long)per_sm * dev.sms) {
        return (long long)per_sm * dev.sms;
    }
    return tiles;
}
