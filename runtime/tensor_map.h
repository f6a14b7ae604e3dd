/* tensor_map.h - what a TMA tensor map describes, as plain data: the code
 * generator fills it in (codegen.h), the runtime encodes it for a device
 * pointer at launch (runtime.h). No other dependency, so both layers can
 * include it. */
#ifndef TILEC_TENSOR_MAP_H
#define TILEC_TENSOR_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* A TMA tensor map (CUtensorMap, 128 bytes) for one tensor parameter,
 * built on the host for each launch's device pointer and passed to the
 * kernel by value (a __grid_constant__ parameter). Dimensions are innermost
 * first; strides are in bytes for dimensions 1.. (multiples of 16). */
typedef struct RtTensorMapSpec {
    int param;                /* which kernel parameter (a tensor) it maps */
    int rank;                 /* 1 to 5 */
    int elem_bytes;           /* 1, 2 or 4 */
    bool bf16;                /* 2-byte elements: bf16 rather than f16 */
    uint64_t dims[5];
    uint64_t strides[4];
    uint32_t box[5];          /* elements of one copy, per dimension (at most 256) */
    int swizzle_bytes;        /* 0, 32, 64 or 128: the shared-memory swizzle span */
} RtTensorMapSpec;

/* m's dims and strides for a tensor of this shape (outermost first, m->rank
 * dims, row-major and packed): a kernel of dynamic sizes is compiled with
 * one shape and launched with others. */
static inline void rt_tensor_map_reshape(RtTensorMapSpec *m, const int64_t *shape) {
    uint64_t stride = (uint64_t)m->elem_bytes;
    for (int d = 0; d < m->rank; d++) {
        m->dims[d] = (uint64_t)shape[m->rank - 1 - d];
        if (d > 0) m->strides[d - 1] = stride;
        stride *= m->dims[d];
    }
}
#endif
