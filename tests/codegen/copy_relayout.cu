extern "C" __global__ void __launch_bounds__(128) tilec_k_7d4d4289(const __half *__restrict__ A, const __half *__restrict__ B, const float *__restrict__ X, float *__restrict__ C, float *__restrict__ MX) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 128);
    const int bx = blockIdx.x;
    __builtin_assume(bx >= 0 && bx < 1);
    __half *const a = (__half *)(tl_smem + 0);  // 1 stage, swizzle 4
    __half *const b = (__half *)(tl_smem + 4096);  // 1 stage, swizzle 8
    float s[32];  // the mma accumulator layout with 2x2 warps of 32x32
    float r[32];  // the mma accumulator layout with 4x1 warps of 16x64
    float x[32];  // a blocked layout (8 elements per chunk)
    float m[4];  // one value per row of a 2x2-warp mma accumulator
    float mx[64];  // a replicated layout (every thread holds every element)
    double *const tl_scratch = (double *)(tl_smem + 8192);
    const int tr2_ = tid * 8 / 32, tc3_ = tid * 8 % 32;
    #pragma unroll
    for (int q0_ = 0; q0_ < 2; ++q0_) {
        const long long l1_ = (tid + (long long)q0_ * 128) * 8;
        uint4 v4_ = make_uint4(0u, 0u, 0u, 0u);
        if ((unsigned long long)(long long)((0 + tr2_ + q0_ * 32)) < 64ULL && (unsigned long long)(long long)((0 + tc3_)) < 32ULL) v4_ = *(const uint4 *)&A[((long long)((0 + tr2_ + q0_ * 32))) * 32LL + ((0 + tc3_))];
        if (true) *(uint4 *)&a[((0 + tr2_ + q0_ * 32)) * 32 + (((((0 + tc3_)) / 8) ^ (((tr2_) / 2) % 4)) * 8 + ((0 + tc3_)) % 8)] = v4_;
    }
    __syncthreads();
    const int tr7_ = tid * 8 / 64, tc8_ = tid * 8 % 64;
    #pragma unroll
    for (int q5_ = 0; q5_ < 2; ++q5_) {
        const long long l6_ = (tid + (long long)q5_ * 128) * 8;
        uint4 v9_ = make_uint4(0u, 0u, 0u, 0u);
        if ((unsigned long long)(long long)((0 + tr7_ + q5_ * 16)) < 32ULL && (unsigned long long)(long long)((0 + tc8_)) < 64ULL) v9_ = *(const uint4 *)&B[((long long)((0 + tr7_ + q5_ * 16))) * 64LL + ((0 + tc8_))];
        if (true) *(uint4 *)&b[((0 + tr7_ + q5_ * 16)) * 64 + (((((0 + tc8_)) / 8) ^ (((tr7_) / 1) % 8)) * 8 + ((0 + tc8_)) % 8)] = v9_;
    }
    __syncthreads();
    #pragma unroll
    for (int r10_ = 0; r10_ < 32; ++r10_) s[r10_] = 0;
    {
        const int wm12_ = warp / 2 * 32, wn13_ = warp % 2 * 32;
        #pragma unroll 1
        for (int kk11_ = 0; kk11_ < 2; ++kk11_) {
            unsigned a14_[2][4];
            tl_ldmatrix_x4(a14_[0], tl_smem_addr(&a[(0) * 2048 + ((0) + (wm12_ + lane % 16)) * 32 + ((0) + (kk11_ * 2) / 4 * 4 + ((((kk11_ * 2) % 4) + (lane / 16)) ^ (((wm12_ + lane % 16) / 2) % 4))) * 8]));
            tl_ldmatrix_x4(a14_[1], tl_smem_addr(&a[(0) * 2048 + ((16) + (wm12_ + lane % 16)) * 32 + ((0) + (kk11_ * 2) / 4 * 4 + ((((kk11_ * 2) % 4) + (lane / 16)) ^ (((wm12_ + lane % 16) / 2) % 4))) * 8]));
            {
                unsigned t15_[4];
                tl_ldmatrix_x4_trans(t15_, tl_smem_addr(&b[(kk11_ * 16 + lane / 8 % 2 * 8 + lane % 8) * 64 + ((((wn13_ + 0 + lane / 16 * 8) / 8) ^ (((kk11_ * 16 + lane / 8 % 2 * 8 + lane % 8) / 1) % 8)) * 8 + (wn13_ + 0 + lane / 16 * 8) % 8)]));
                const unsigned b16_[2][2] = {{t15_[0], t15_[1]}, {t15_[2], t15_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&s[0], a14_[0], b16_[0]);
                tl_mma_f16_16816(*(float (*)[4])&s[16], a14_[1], b16_[0]);
                tl_mma_f16_16816(*(float (*)[4])&s[4], a14_[0], b16_[1]);
                tl_mma_f16_16816(*(float (*)[4])&s[20], a14_[1], b16_[1]);
            }
            {
                unsigned t17_[4];
                tl_ldmatrix_x4_trans(t17_, tl_smem_addr(&b[(kk11_ * 16 + lane / 8 % 2 * 8 + lane % 8) * 64 + ((((wn13_ + 16 + lane / 16 * 8) / 8) ^ (((kk11_ * 16 + lane / 8 % 2 * 8 + lane % 8) / 1) % 8)) * 8 + (wn13_ + 16 + lane / 16 * 8) % 8)]));
                const unsigned b18_[2][2] = {{t17_[0], t17_[1]}, {t17_[2], t17_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&s[8], a14_[0], b18_[0]);
                tl_mma_f16_16816(*(float (*)[4])&s[24], a14_[1], b18_[0]);
                tl_mma_f16_16816(*(float (*)[4])&s[12], a14_[0], b18_[1]);
                tl_mma_f16_16816(*(float (*)[4])&s[28], a14_[1], b18_[1]);
            }
        }
    }
    #pragma unroll
    for (int r19_ = 0; r19_ < 32; ++r19_)
        ((float *)tl_scratch)[((warp / 2 * 32 + (r19_) / 16 * 16 + ((r19_) / 2 % 2) * 8 + lane / 4)) * 64 + (warp % 2 * 32 + (r19_) / 4 % 4 * 8 + (lane % 4) * 2 + (r19_) % 2)] = s[r19_];
    __syncthreads();
    #pragma unroll
    for (int r20_ = 0; r20_ < 32; ++r20_)
        r[r20_] = ((float *)tl_scratch)[((warp / 1 * 16 + (r20_) / 32 * 16 + ((r20_) / 2 % 2) * 8 + lane / 4)) * 64 + (warp % 1 * 64 + (r20_) / 4 % 8 * 8 + (lane % 4) * 2 + (r20_) % 2)];
    __syncthreads();
    {
        const int wm22_ = warp / 1 * 16, wn23_ = warp % 1 * 64;
        #pragma unroll 1
        for (int kk21_ = 0; kk21_ < 2; ++kk21_) {
            unsigned a24_[1][4];
            tl_ldmatrix_x4(a24_[0], tl_smem_addr(&a[(0) * 2048 + ((0) + (wm22_ + lane % 16)) * 32 + ((0) + (kk21_ * 2) / 4 * 4 + ((((kk21_ * 2) % 4) + (lane / 16)) ^ (((wm22_ + lane % 16) / 2) % 4))) * 8]));
            {
                unsigned t25_[4];
                tl_ldmatrix_x4_trans(t25_, tl_smem_addr(&b[(0) * 2048 + ((kk21_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 64 + ((wn23_ / 8) + (0) / 8 * 8 + ((((0) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                const unsigned b26_[2][2] = {{t25_[0], t25_[1]}, {t25_[2], t25_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&r[0], a24_[0], b26_[0]);
                tl_mma_f16_16816(*(float (*)[4])&r[4], a24_[0], b26_[1]);
            }
            {
                unsigned t27_[4];
                tl_ldmatrix_x4_trans(t27_, tl_smem_addr(&b[(0) * 2048 + ((kk21_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 64 + ((wn23_ / 8) + (2) / 8 * 8 + ((((2) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                const unsigned b28_[2][2] = {{t27_[0], t27_[1]}, {t27_[2], t27_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&r[8], a24_[0], b28_[0]);
                tl_mma_f16_16816(*(float (*)[4])&r[12], a24_[0], b28_[1]);
            }
            {
                unsigned t29_[4];
                tl_ldmatrix_x4_trans(t29_, tl_smem_addr(&b[(0) * 2048 + ((kk21_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 64 + ((wn23_ / 8) + (4) / 8 * 8 + ((((4) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                const unsigned b30_[2][2] = {{t29_[0], t29_[1]}, {t29_[2], t29_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&r[16], a24_[0], b30_[0]);
                tl_mma_f16_16816(*(float (*)[4])&r[20], a24_[0], b30_[1]);
            }
            {
                unsigned t31_[4];
                tl_ldmatrix_x4_trans(t31_, tl_smem_addr(&b[(0) * 2048 + ((kk21_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 64 + ((wn23_ / 8) + (6) / 8 * 8 + ((((6) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                const unsigned b32_[2][2] = {{t31_[0], t31_[1]}, {t31_[2], t31_[3]}};
                tl_mma_f16_16816(*(float (*)[4])&r[24], a24_[0], b32_[0]);
                tl_mma_f16_16816(*(float (*)[4])&r[28], a24_[0], b32_[1]);
            }
        }
    }
    #pragma unroll
    for (int q33_ = 0; q33_ < 16; ++q33_) {
        {
            union { uint2 v; float e[2]; } v34_;
            v34_.e[0] = r[(q33_ * 2 + 0) + 0];
            v34_.e[1] = r[(q33_ * 2 + 0) + 1];
            if ((unsigned long long)(long long)((0 + (warp / 1 * 16 + ((q33_ * 2 + 0)) / 32 * 16 + (((q33_ * 2 + 0)) / 2 % 2) * 8 + lane / 4))) < 64ULL && (unsigned long long)(long long)((0 + (warp % 1 * 64 + ((q33_ * 2 + 0)) / 4 % 8 * 8 + (lane % 4) * 2 + ((q33_ * 2 + 0)) % 2))) < 64ULL) *(uint2 *)&C[((long long)((0 + (warp / 1 * 16 + ((q33_ * 2 + 0)) / 32 * 16 + (((q33_ * 2 + 0)) / 2 % 2) * 8 + lane / 4)))) * 64LL + ((0 + (warp % 1 * 64 + ((q33_ * 2 + 0)) / 4 % 8 * 8 + (lane % 4) * 2 + ((q33_ * 2 + 0)) % 2)))] = v34_.v;
        }
    }
    {
        float p35_[4];
        p35_[0] = -__int_as_float(0x7f800000);
        p35_[0] = fmaxf(p35_[0], (float)(s[0]));
        p35_[0] = fmaxf(p35_[0], (float)(s[1]));
        p35_[0] = fmaxf(p35_[0], (float)(s[4]));
        p35_[0] = fmaxf(p35_[0], (float)(s[5]));
        p35_[0] = fmaxf(p35_[0], (float)(s[8]));
        p35_[0] = fmaxf(p35_[0], (float)(s[9]));
        p35_[0] = fmaxf(p35_[0], (float)(s[12]));
        p35_[0] = fmaxf(p35_[0], (float)(s[13]));
        p35_[0] = fmaxf(p35_[0], __shfl_xor_sync(0xffffffffu, p35_[0], 1));
        p35_[0] = fmaxf(p35_[0], __shfl_xor_sync(0xffffffffu, p35_[0], 2));
        p35_[1] = -__int_as_float(0x7f800000);
        p35_[1] = fmaxf(p35_[1], (float)(s[2]));
        p35_[1] = fmaxf(p35_[1], (float)(s[3]));
        p35_[1] = fmaxf(p35_[1], (float)(s[6]));
        p35_[1] = fmaxf(p35_[1], (float)(s[7]));
        p35_[1] = fmaxf(p35_[1], (float)(s[10]));
        p35_[1] = fmaxf(p35_[1], (float)(s[11]));
        p35_[1] = fmaxf(p35_[1], (float)(s[14]));
        p35_[1] = fmaxf(p35_[1], (float)(s[15]));
        p35_[1] = fmaxf(p35_[1], __shfl_xor_sync(0xffffffffu, p35_[1], 1));
        p35_[1] = fmaxf(p35_[1], __shfl_xor_sync(0xffffffffu, p35_[1], 2));
        p35_[2] = -__int_as_float(0x7f800000);
        p35_[2] = fmaxf(p35_[2], (float)(s[16]));
        p35_[2] = fmaxf(p35_[2], (float)(s[17]));
        p35_[2] = fmaxf(p35_[2], (float)(s[20]));
        p35_[2] = fmaxf(p35_[2], (float)(s[21]));
        p35_[2] = fmaxf(p35_[2], (float)(s[24]));
        p35_[2] = fmaxf(p35_[2], (float)(s[25]));
        p35_[2] = fmaxf(p35_[2], (float)(s[28]));
        p35_[2] = fmaxf(p35_[2], (float)(s[29]));
        p35_[2] = fmaxf(p35_[2], __shfl_xor_sync(0xffffffffu, p35_[2], 1));
        p35_[2] = fmaxf(p35_[2], __shfl_xor_sync(0xffffffffu, p35_[2], 2));
        p35_[3] = -__int_as_float(0x7f800000);
        p35_[3] = fmaxf(p35_[3], (float)(s[18]));
        p35_[3] = fmaxf(p35_[3], (float)(s[19]));
        p35_[3] = fmaxf(p35_[3], (float)(s[22]));
        p35_[3] = fmaxf(p35_[3], (float)(s[23]));
        p35_[3] = fmaxf(p35_[3], (float)(s[26]));
        p35_[3] = fmaxf(p35_[3], (float)(s[27]));
        p35_[3] = fmaxf(p35_[3], (float)(s[30]));
        p35_[3] = fmaxf(p35_[3], (float)(s[31]));
        p35_[3] = fmaxf(p35_[3], __shfl_xor_sync(0xffffffffu, p35_[3], 1));
        p35_[3] = fmaxf(p35_[3], __shfl_xor_sync(0xffffffffu, p35_[3], 2));
        if (lane % 4 == 0) {
            ((float *)tl_scratch)[warp % 2 * 64 + warp / 2 * 32 + 0 + lane / 4] = p35_[0];
            ((float *)tl_scratch)[warp % 2 * 64 + warp / 2 * 32 + 8 + lane / 4] = p35_[1];
            ((float *)tl_scratch)[warp % 2 * 64 + warp / 2 * 32 + 16 + lane / 4] = p35_[2];
            ((float *)tl_scratch)[warp % 2 * 64 + warp / 2 * 32 + 24 + lane / 4] = p35_[3];
        }
        __syncthreads();
        p35_[0] = -__int_as_float(0x7f800000);
        p35_[0] = fmaxf(p35_[0], (float)((float *)tl_scratch)[0 + warp / 2 * 32 + 0 + lane / 4]);
        p35_[0] = fmaxf(p35_[0], (float)((float *)tl_scratch)[64 + warp / 2 * 32 + 0 + lane / 4]);
        p35_[1] = -__int_as_float(0x7f800000);
        p35_[1] = fmaxf(p35_[1], (float)((float *)tl_scratch)[0 + warp / 2 * 32 + 8 + lane / 4]);
        p35_[1] = fmaxf(p35_[1], (float)((float *)tl_scratch)[64 + warp / 2 * 32 + 8 + lane / 4]);
        p35_[2] = -__int_as_float(0x7f800000);
        p35_[2] = fmaxf(p35_[2], (float)((float *)tl_scratch)[0 + warp / 2 * 32 + 16 + lane / 4]);
        p35_[2] = fmaxf(p35_[2], (float)((float *)tl_scratch)[64 + warp / 2 * 32 + 16 + lane / 4]);
        p35_[3] = -__int_as_float(0x7f800000);
        p35_[3] = fmaxf(p35_[3], (float)((float *)tl_scratch)[0 + warp / 2 * 32 + 24 + lane / 4]);
        p35_[3] = fmaxf(p35_[3], (float)((float *)tl_scratch)[64 + warp / 2 * 32 + 24 + lane / 4]);
        __syncthreads();
        m[0] = (float)(p35_[0]);
        m[1] = (float)(p35_[1]);
        m[2] = (float)(p35_[2]);
        m[3] = (float)(p35_[3]);
    }
    #pragma unroll
    for (int q36_ = 0; q36_ < 4; ++q36_) {
        {
            union { uint4 v; float e[4]; } v37_;
            v37_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)((0 + (((tid + ((q36_ * 8 + 0)) / 8 * 128) * 8 + ((q36_ * 8 + 0)) % 8) / 64))) < 64ULL && (unsigned long long)(long long)((0 + (((tid + ((q36_ * 8 + 0)) / 8 * 128) * 8 + ((q36_ * 8 + 0)) % 8) / 1 % 64))) < 64ULL) v37_.v = *(const uint4 *)&X[((long long)((0 + (((tid + ((q36_ * 8 + 0)) / 8 * 128) * 8 + ((q36_ * 8 + 0)) % 8) / 64)))) * 64LL + ((0 + (((tid + ((q36_ * 8 + 0)) / 8 * 128) * 8 + ((q36_ * 8 + 0)) % 8) / 1 % 64)))];
            x[(q36_ * 8 + 0) + 0] = v37_.e[0];
            x[(q36_ * 8 + 0) + 1] = v37_.e[1];
            x[(q36_ * 8 + 0) + 2] = v37_.e[2];
            x[(q36_ * 8 + 0) + 3] = v37_.e[3];
        }
        {
            union { uint4 v; float e[4]; } v38_;
            v38_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)((0 + (((tid + ((q36_ * 8 + 4)) / 8 * 128) * 8 + ((q36_ * 8 + 4)) % 8) / 64))) < 64ULL && (unsigned long long)(long long)((0 + (((tid + ((q36_ * 8 + 4)) / 8 * 128) * 8 + ((q36_ * 8 + 4)) % 8) / 1 % 64))) < 64ULL) v38_.v = *(const uint4 *)&X[((long long)((0 + (((tid + ((q36_ * 8 + 4)) / 8 * 128) * 8 + ((q36_ * 8 + 4)) % 8) / 64)))) * 64LL + ((0 + (((tid + ((q36_ * 8 + 4)) / 8 * 128) * 8 + ((q36_ * 8 + 4)) % 8) / 1 % 64)))];
            x[(q36_ * 8 + 4) + 0] = v38_.e[0];
            x[(q36_ * 8 + 4) + 1] = v38_.e[1];
            x[(q36_ * 8 + 4) + 2] = v38_.e[2];
            x[(q36_ * 8 + 4) + 3] = v38_.e[3];
        }
    }
    {
        #pragma unroll
        for (int r39_ = 0; r39_ < 32; ++r39_)
            ((float *)tl_scratch)[((((tid + (r39_) / 8 * 128) * 8 + (r39_) % 8) / 64)) * 64 + (((tid + (r39_) / 8 * 128) * 8 + (r39_) % 8) / 1 % 64)] = (float)(x[r39_]);
        __syncthreads();
        for (int o40_ = tid / 2; o40_ < 64; o40_ += 64) {
            float v42_ = -__int_as_float(0x7f800000);
            if (o40_ < 64) {
                #pragma unroll 4
                for (int k41_ = tid % 2; k41_ < 64; k41_ += 2) v42_ = fmaxf(v42_, (float)((float *)tl_scratch)[k41_ * 64 + o40_]);
            }
            v42_ = fmaxf(v42_, __shfl_xor_sync(0xffffffffu, v42_, 1));
            if (tid % 2 == 0 && o40_ < 64) ((float *)tl_scratch)[4096 + o40_] = v42_;
        }
        __syncthreads();
        #pragma unroll
        for (int r43_ = 0; r43_ < 64; ++r43_) {
            mx[r43_] = (float)((float)((float *)tl_scratch)[4096 + ((r43_) / 1 % 64)]);
        }
        __syncthreads();
    }
    #pragma unroll
    for (int r44_ = 0; r44_ < 4; ++r44_)
        if (lane % 4 == 0 && warp % 2 == 0) ((float *)tl_scratch)[(warp / 2 * 32 + (r44_) / 2 * 16 + (r44_) % 2 * 8 + lane / 4)] = m[r44_];
    __syncthreads();
    #pragma unroll
    for (int r45_ = 0; r45_ < 64; ++r45_)
        mx[r45_] = ((float *)tl_scratch)[((r45_) / 1 % 64)];
    __syncthreads();
    #pragma unroll
    for (int q46_ = 0; q46_ < 64; ++q46_) {
        if ((((q46_ * 1 + 0)) % 128 == tid) && (unsigned long long)(long long)((0 + (((q46_ * 1 + 0)) / 1 % 64))) < 64ULL) MX[(long long)((0 + (((q46_ * 1 + 0)) / 1 % 64)))] = mx[(q46_ * 1 + 0)];
    }
}
