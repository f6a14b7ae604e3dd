/* host_util.h - what the C programs run against --emit-lib launchers on
 * a GPU share: f16 bits from and to float on the host, uploads through the
 * driver API, and the EXPECT counter. Include after cuda.h (the
 * launchers' headers include it). */
#ifndef TILEC_TESTS_EMIT_LIB_HOST_UTIL_H
#define TILEC_TESTS_EMIT_LIB_HOST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned short f16_bits(float f) {
    unsigned x;
    memcpy(&x, &f, 4);
    unsigned sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    int exp = (int)e - 112;
    if (e == 0 || exp <= 0) return (unsigned short)sign; /* the inputs are normal and small: no subnormals */
    unsigned h = sign | ((unsigned)exp << 10) | (m >> 13), rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return (unsigned short)h;
}

static float f16_value(unsigned short h) {
    unsigned sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = ldexpf((float)m, -24);
        return sign ? -f : f;
    }
    x = sign | ((e + 112) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static CUdeviceptr upload(const void *h, size_t bytes) {
    CUdeviceptr d;
    if (cuMemAlloc(&d, bytes) != CUDA_SUCCESS || cuMemcpyHtoD(d, h, bytes) != CUDA_SUCCESS) exit(1);
    return d;
}

static int failures;
#define EXPECT(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAILED: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

#endif
