extern "C" __global__ void __launch_bounds__(128) tilec_gemm_30f5bfd7(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 128);
    int tl_bx, tl_by;
    {
        const long long lin = (long long)blockIdx.y * gridDim.x + blockIdx.x;
        const long long per_panel = 8LL * 32;
        const long long first = lin / per_panel * 8, rem = lin % per_panel;
        const long long width = min(8LL, 32LL - first);
        tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
    }
    const int bx = tl_bx, by = tl_by;
    __builtin_assume(bx >= 0 && bx < 32);
    __builtin_assume(by >= 0 && by < 32);
    __half *const A_s = (__half *)(tl_smem + 0);  // 3 stages, swizzle 4
    __half *const B_s = (__half *)(tl_smem + 24576);  // 3 stages, swizzle 8
    float acc[128];  // the mma accumulator layout with 2x2 warps of 64x64
    #pragma unroll
    for (int r0_ = 0; r0_ < 128; ++r0_) acc[r0_] = (float)(0);
    {
        const int n1_ = 128;
        #pragma unroll
        for (int kp2_ = 0; kp2_ < 2; ++kp2_) {
            if (kp2_ < n1_) {
                const int tr6_ = tid * 8 / 32, tc7_ = tid * 8 % 32;
                #pragma unroll
                for (int q4_ = 0; q4_ < 4; ++q4_) {
                    const long long l5_ = (tid + (long long)q4_ * 128) * 8;
                    tl_cp_async16(tl_smem_addr(&A_s[(kp2_) * 4096 + ((0 + tr6_ + q4_ * 32)) * 32 + (((((0 + tc7_)) / 8) ^ (((tr6_) / 2) % 4)) * 8 + ((0 + tc7_)) % 8)]), ((unsigned long long)(long long)(((by * 128) + tr6_ + q4_ * 32)) < 4096ULL && (unsigned long long)(long long)(((kp2_ * 32) + tc7_)) < 4096ULL) ? (const void *)&A[((long long)(((by * 128) + tr6_ + q4_ * 32))) * 4096LL + (((kp2_ * 32) + tc7_))] : (const void *)A, (unsigned long long)(long long)(((by * 128) + tr6_ + q4_ * 32)) < 4096ULL && (unsigned long long)(long long)(((kp2_ * 32) + tc7_)) < 4096ULL);
                }
                const int tr10_ = tid * 8 / 128, tc11_ = tid * 8 % 128;
                #pragma unroll
                for (int q8_ = 0; q8_ < 4; ++q8_) {
                    const long long l9_ = (tid + (long long)q8_ * 128) * 8;
                    tl_cp_async16(tl_smem_addr(&B_s[(kp2_) * 4096 + ((0 + tr10_ + q8_ * 8)) * 128 + (((((0 + tc11_)) / 8) ^ (((tr10_) / 1) % 8)) * 8 + ((0 + tc11_)) % 8)]), ((unsigned long long)(long long)(((kp2_ * 32) + tr10_ + q8_ * 8)) < 4096ULL && (unsigned long long)(long long)(((bx * 128) + tc11_)) < 4096ULL) ? (const void *)&B[((long long)(((kp2_ * 32) + tr10_ + q8_ * 8))) * 4096LL + (((bx * 128) + tc11_))] : (const void *)B, (unsigned long long)(long long)(((kp2_ * 32) + tr10_ + q8_ * 8)) < 4096ULL && (unsigned long long)(long long)(((bx * 128) + tc11_)) < 4096ULL);
                }
            }
            tl_cp_async_commit();
        }
        for (int k = 0; k < n1_; ++k) {
            {
                const int kp2_ = k + 2;
                if (kp2_ < n1_) {
                    const int tr14_ = tid * 8 / 32, tc15_ = tid * 8 % 32;
                    #pragma unroll
                    for (int q12_ = 0; q12_ < 4; ++q12_) {
                        const long long l13_ = (tid + (long long)q12_ * 128) * 8;
                        tl_cp_async16(tl_smem_addr(&A_s[((kp2_ % 3)) * 4096 + ((0 + tr14_ + q12_ * 32)) * 32 + (((((0 + tc15_)) / 8) ^ (((tr14_) / 2) % 4)) * 8 + ((0 + tc15_)) % 8)]), ((unsigned long long)(long long)(((by * 128) + tr14_ + q12_ * 32)) < 4096ULL && (unsigned long long)(long long)(((kp2_ * 32) + tc15_)) < 4096ULL) ? (const void *)&A[((long long)(((by * 128) + tr14_ + q12_ * 32))) * 4096LL + (((kp2_ * 32) + tc15_))] : (const void *)A, (unsigned long long)(long long)(((by * 128) + tr14_ + q12_ * 32)) < 4096ULL && (unsigned long long)(long long)(((kp2_ * 32) + tc15_)) < 4096ULL);
                    }
                    const int tr18_ = tid * 8 / 128, tc19_ = tid * 8 % 128;
                    #pragma unroll
                    for (int q16_ = 0; q16_ < 4; ++q16_) {
                        const long long l17_ = (tid + (long long)q16_ * 128) * 8;
                        tl_cp_async16(tl_smem_addr(&B_s[((kp2_ % 3)) * 4096 + ((0 + tr18_ + q16_ * 8)) * 128 + (((((0 + tc19_)) / 8) ^ (((tr18_) / 1) % 8)) * 8 + ((0 + tc19_)) % 8)]), ((unsigned long long)(long long)(((kp2_ * 32) + tr18_ + q16_ * 8)) < 4096ULL && (unsigned long long)(long long)(((bx * 128) + tc19_)) < 4096ULL) ? (const void *)&B[((long long)(((kp2_ * 32) + tr18_ + q16_ * 8))) * 4096LL + (((bx * 128) + tc19_))] : (const void *)B, (unsigned long long)(long long)(((kp2_ * 32) + tr18_ + q16_ * 8)) < 4096ULL && (unsigned long long)(long long)(((bx * 128) + tc19_)) < 4096ULL);
                    }
                }
                tl_cp_async_commit();
            }
            tl_cp_async_wait<2>();
            __syncthreads();
            const int stage3_ = k % 3;
            {
                const int wm21_ = warp / 2 * 64, wn22_ = warp % 2 * 64;
                #pragma unroll 1
                for (int kk20_ = 0; kk20_ < 2; ++kk20_) {
                    unsigned a23_[4][4];
                    tl_ldmatrix_x4(a23_[0], tl_smem_addr(&A_s[(stage3_) * 4096 + ((0) + (wm21_ + lane % 16)) * 32 + ((0) + (kk20_ * 2) / 4 * 4 + ((((kk20_ * 2) % 4) + (lane / 16)) ^ (((wm21_ + lane % 16) / 2) % 4))) * 8]));
                    tl_ldmatrix_x4(a23_[1], tl_smem_addr(&A_s[(stage3_) * 4096 + ((16) + (wm21_ + lane % 16)) * 32 + ((0) + (kk20_ * 2) / 4 * 4 + ((((kk20_ * 2) % 4) + (lane / 16)) ^ (((wm21_ + lane % 16) / 2) % 4))) * 8]));
                    tl_ldmatrix_x4(a23_[2], tl_smem_addr(&A_s[(stage3_) * 4096 + ((32) + (wm21_ + lane % 16)) * 32 + ((0) + (kk20_ * 2) / 4 * 4 + ((((kk20_ * 2) % 4) + (lane / 16)) ^ (((wm21_ + lane % 16) / 2) % 4))) * 8]));
                    tl_ldmatrix_x4(a23_[3], tl_smem_addr(&A_s[(stage3_) * 4096 + ((48) + (wm21_ + lane % 16)) * 32 + ((0) + (kk20_ * 2) / 4 * 4 + ((((kk20_ * 2) % 4) + (lane / 16)) ^ (((wm21_ + lane % 16) / 2) % 4))) * 8]));
                    {
                        unsigned t24_[4];
                        tl_ldmatrix_x4_trans(t24_, tl_smem_addr(&B_s[(stage3_) * 4096 + ((kk20_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 128 + ((wn22_ / 8) + (0) / 8 * 8 + ((((0) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                        const unsigned b25_[2][2] = {{t24_[0], t24_[1]}, {t24_[2], t24_[3]}};
                        tl_mma_f16_16816(*(float (*)[4])&acc[0], a23_[0], b25_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[32], a23_[1], b25_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[64], a23_[2], b25_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[96], a23_[3], b25_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[4], a23_[0], b25_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[36], a23_[1], b25_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[68], a23_[2], b25_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[100], a23_[3], b25_[1]);
                    }
                    {
                        unsigned t26_[4];
                        tl_ldmatrix_x4_trans(t26_, tl_smem_addr(&B_s[(stage3_) * 4096 + ((kk20_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 128 + ((wn22_ / 8) + (2) / 8 * 8 + ((((2) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                        const unsigned b27_[2][2] = {{t26_[0], t26_[1]}, {t26_[2], t26_[3]}};
                        tl_mma_f16_16816(*(float (*)[4])&acc[8], a23_[0], b27_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[40], a23_[1], b27_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[72], a23_[2], b27_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[104], a23_[3], b27_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[12], a23_[0], b27_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[44], a23_[1], b27_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[76], a23_[2], b27_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[108], a23_[3], b27_[1]);
                    }
                    {
                        unsigned t28_[4];
                        tl_ldmatrix_x4_trans(t28_, tl_smem_addr(&B_s[(stage3_) * 4096 + ((kk20_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 128 + ((wn22_ / 8) + (4) / 8 * 8 + ((((4) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                        const unsigned b29_[2][2] = {{t28_[0], t28_[1]}, {t28_[2], t28_[3]}};
                        tl_mma_f16_16816(*(float (*)[4])&acc[16], a23_[0], b29_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[48], a23_[1], b29_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[80], a23_[2], b29_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[112], a23_[3], b29_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[20], a23_[0], b29_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[52], a23_[1], b29_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[84], a23_[2], b29_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[116], a23_[3], b29_[1]);
                    }
                    {
                        unsigned t30_[4];
                        tl_ldmatrix_x4_trans(t30_, tl_smem_addr(&B_s[(stage3_) * 4096 + ((kk20_ * 16) + (lane / 8 % 2 * 8 + lane % 8)) * 128 + ((wn22_ / 8) + (6) / 8 * 8 + ((((6) % 8) + (lane / 16)) ^ (((lane / 8 % 2 * 8 + lane % 8) / 1) % 8))) * 8]));
                        const unsigned b31_[2][2] = {{t30_[0], t30_[1]}, {t30_[2], t30_[3]}};
                        tl_mma_f16_16816(*(float (*)[4])&acc[24], a23_[0], b31_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[56], a23_[1], b31_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[88], a23_[2], b31_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[120], a23_[3], b31_[0]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[28], a23_[0], b31_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[60], a23_[1], b31_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[92], a23_[2], b31_[1]);
                        tl_mma_f16_16816(*(float (*)[4])&acc[124], a23_[3], b31_[1]);
                    }
                }
            }
            __syncthreads();
        }
    }
    #pragma unroll
    for (int q32_ = 0; q32_ < 64; ++q32_) {
        {
            union { unsigned v; __half e[2]; } v33_;
            v33_.e[0] = tl_from_float<__half>((float)((acc[(q32_ * 2 + 0) + 0])));
            v33_.e[1] = tl_from_float<__half>((float)((acc[(q32_ * 2 + 0) + 1])));
            if ((unsigned long long)(long long)(((by * 128) + (warp / 2 * 64 + ((q32_ * 2 + 0)) / 32 * 16 + (((q32_ * 2 + 0)) / 2 % 2) * 8 + lane / 4))) < 4096ULL && (unsigned long long)(long long)(((bx * 128) + (warp % 2 * 64 + ((q32_ * 2 + 0)) / 4 % 8 * 8 + (lane % 4) * 2 + ((q32_ * 2 + 0)) % 2))) < 4096ULL) *(unsigned *)&C[((long long)(((by * 128) + (warp / 2 * 64 + ((q32_ * 2 + 0)) / 32 * 16 + (((q32_ * 2 + 0)) / 2 % 2) * 8 + lane / 4)))) * 4096LL + (((bx * 128) + (warp % 2 * 64 + ((q32_ * 2 + 0)) / 4 % 8 * 8 + (lane % 4) * 2 + ((q32_ * 2 + 0)) % 2)))] = v33_.v;
        }
    }
}
