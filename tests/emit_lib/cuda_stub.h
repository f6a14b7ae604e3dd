/* cuda_stub.h - a stand-in for the CUDA driver functions a launcher of
 * `tilec --emit-lib` calls (tests/emit_lib/cuda_stub.c), so the launcher
 * runs on a machine without a GPU or libcuda: nothing is loaded or
 * launched; the stub answers for a device of compute capability stub_cc and
 * records what it was asked. */
#ifndef TILEC_CUDA_STUB_H
#define TILEC_CUDA_STUB_H

#include <stdint.h>
#include <cuda.h>

enum { STUB_MAX_MAPS = 8 };

/* A cuTensorMapEncodeTiled call; the map it fills holds its index + 1 in
 * opaque[0], so a launch's arguments say which call made each map. */
typedef struct StubMap {
    int rank;
    const void *address;
    unsigned long long dims[5], strides[4];
    unsigned box[5];
} StubMap;

extern int stub_cc;                /* the device: 80 (8.0) or 90 (9.0) */
extern uintptr_t stub_context;     /* cuCtxGetCurrent's answer; a new value is a context to load into */
extern int stub_calls;             /* driver calls so far */
extern int stub_launches;          /* cuLaunchKernel calls so far */
extern int stub_nmaps;             /* tensor maps built (a test sets it to 0 before a launch) */
extern StubMap stub_maps[STUB_MAX_MAPS];
/* the last launch: its kernel's name, grid and block (x), shared memory */
extern char stub_symbol[128];
extern unsigned stub_grid[3], stub_block, stub_smem;
/* Called at each launch with the kernel's arguments (they live only as
 * long as the call). */
extern void (*stub_on_launch)(void **args);

#endif
