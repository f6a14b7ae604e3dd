extern "C" __global__ void __launch_bounds__(256) tilec_softmax_2a25fec4(const __half *__restrict__ X, __half *__restrict__ Y) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 256);
    const int bx = blockIdx.x;
    __builtin_assume(bx >= 0 && bx < 32768);
    float x[16];  // a blocked layout (8 elements per chunk)
    float mx[1];  // a replicated layout (every thread holds every element)
    float sm[1];  // a replicated layout (every thread holds every element)
    double *const tl_scratch = (double *)(tl_smem + 0);
    #pragma unroll
    for (int q0_ = 0; q0_ < 2; ++q0_) {
        {
            union { uint4 v; __half e[8]; } v1_;
            v1_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)(((bx * 1) + (((tid + ((q0_ * 8 + 0)) / 8 * 256) * 8 + ((q0_ * 8 + 0)) % 8) / 4096))) < 32768ULL && (unsigned long long)(long long)((0 + (((tid + ((q0_ * 8 + 0)) / 8 * 256) * 8 + ((q0_ * 8 + 0)) % 8) / 1 % 4096))) < 4096ULL) v1_.v = *(const uint4 *)&X[((long long)(((bx * 1) + (((tid + ((q0_ * 8 + 0)) / 8 * 256) * 8 + ((q0_ * 8 + 0)) % 8) / 4096)))) * 4096LL + ((0 + (((tid + ((q0_ * 8 + 0)) / 8 * 256) * 8 + ((q0_ * 8 + 0)) % 8) / 1 % 4096)))];
            x[(q0_ * 8 + 0) + 0] = (float)(tl_to_float(v1_.e[0]));
            x[(q0_ * 8 + 0) + 1] = (float)(tl_to_float(v1_.e[1]));
            x[(q0_ * 8 + 0) + 2] = (float)(tl_to_float(v1_.e[2]));
            x[(q0_ * 8 + 0) + 3] = (float)(tl_to_float(v1_.e[3]));
            x[(q0_ * 8 + 0) + 4] = (float)(tl_to_float(v1_.e[4]));
            x[(q0_ * 8 + 0) + 5] = (float)(tl_to_float(v1_.e[5]));
            x[(q0_ * 8 + 0) + 6] = (float)(tl_to_float(v1_.e[6]));
            x[(q0_ * 8 + 0) + 7] = (float)(tl_to_float(v1_.e[7]));
        }
    }
    {
        float p2_[1];
        p2_[0] = -__int_as_float(0x7f800000);
        p2_[0] = fmaxf(p2_[0], (float)(x[0]));
        p2_[0] = fmaxf(p2_[0], (float)(x[1]));
        p2_[0] = fmaxf(p2_[0], (float)(x[2]));
        p2_[0] = fmaxf(p2_[0], (float)(x[3]));
        p2_[0] = fmaxf(p2_[0], (float)(x[4]));
        p2_[0] = fmaxf(p2_[0], (float)(x[5]));
        p2_[0] = fmaxf(p2_[0], (float)(x[6]));
        p2_[0] = fmaxf(p2_[0], (float)(x[7]));
        p2_[0] = fmaxf(p2_[0], (float)(x[8]));
        p2_[0] = fmaxf(p2_[0], (float)(x[9]));
        p2_[0] = fmaxf(p2_[0], (float)(x[10]));
        p2_[0] = fmaxf(p2_[0], (float)(x[11]));
        p2_[0] = fmaxf(p2_[0], (float)(x[12]));
        p2_[0] = fmaxf(p2_[0], (float)(x[13]));
        p2_[0] = fmaxf(p2_[0], (float)(x[14]));
        p2_[0] = fmaxf(p2_[0], (float)(x[15]));
        #pragma unroll
        for (int row3_ = 0; row3_ < 1; ++row3_) {
            p2_[row3_] = fmaxf(p2_[row3_], __shfl_xor_sync(0xffffffffu, p2_[row3_], 16));
            p2_[row3_] = fmaxf(p2_[row3_], __shfl_xor_sync(0xffffffffu, p2_[row3_], 8));
            p2_[row3_] = fmaxf(p2_[row3_], __shfl_xor_sync(0xffffffffu, p2_[row3_], 4));
            p2_[row3_] = fmaxf(p2_[row3_], __shfl_xor_sync(0xffffffffu, p2_[row3_], 2));
            p2_[row3_] = fmaxf(p2_[row3_], __shfl_xor_sync(0xffffffffu, p2_[row3_], 1));
            if (lane == 0) ((float *)tl_scratch)[warp * 1 + row3_] = p2_[row3_];
        }
        __syncthreads();
        #pragma unroll
        for (int row3_ = 0; row3_ < 1; ++row3_) {
            p2_[row3_] = -__int_as_float(0x7f800000);
            for (int w4_ = 0; w4_ < 8; ++w4_) p2_[row3_] = fmaxf(p2_[row3_], (float)((float *)tl_scratch)[w4_ * 1 + row3_]);
        }
        __syncthreads();
        mx[0] = (float)(p2_[0]);
    }
    {
        #pragma unroll
        for (int r5_ = 0; r5_ < 16; ++r5_) {
            const int i = (((tid + (r5_) / 8 * 256) * 8 + (r5_) % 8) / 4096);
            const int j = (((tid + (r5_) / 8 * 256) * 8 + (r5_) % 8) / 1 % 4096);
            x[r5_] = (float)(expf((float)(((x[r5_]) - (mx[i])))));
        }
    }
    {
        float p6_[1];
        p6_[0] = 0;
        p6_[0] = p6_[0] + (float)(x[0]);
        p6_[0] = p6_[0] + (float)(x[1]);
        p6_[0] = p6_[0] + (float)(x[2]);
        p6_[0] = p6_[0] + (float)(x[3]);
        p6_[0] = p6_[0] + (float)(x[4]);
        p6_[0] = p6_[0] + (float)(x[5]);
        p6_[0] = p6_[0] + (float)(x[6]);
        p6_[0] = p6_[0] + (float)(x[7]);
        p6_[0] = p6_[0] + (float)(x[8]);
        p6_[0] = p6_[0] + (float)(x[9]);
        p6_[0] = p6_[0] + (float)(x[10]);
        p6_[0] = p6_[0] + (float)(x[11]);
        p6_[0] = p6_[0] + (float)(x[12]);
        p6_[0] = p6_[0] + (float)(x[13]);
        p6_[0] = p6_[0] + (float)(x[14]);
        p6_[0] = p6_[0] + (float)(x[15]);
        #pragma unroll
        for (int row7_ = 0; row7_ < 1; ++row7_) {
            p6_[row7_] = p6_[row7_] + __shfl_xor_sync(0xffffffffu, p6_[row7_], 16);
            p6_[row7_] = p6_[row7_] + __shfl_xor_sync(0xffffffffu, p6_[row7_], 8);
            p6_[row7_] = p6_[row7_] + __shfl_xor_sync(0xffffffffu, p6_[row7_], 4);
            p6_[row7_] = p6_[row7_] + __shfl_xor_sync(0xffffffffu, p6_[row7_], 2);
            p6_[row7_] = p6_[row7_] + __shfl_xor_sync(0xffffffffu, p6_[row7_], 1);
            if (lane == 0) ((float *)tl_scratch)[warp * 1 + row7_] = p6_[row7_];
        }
        __syncthreads();
        #pragma unroll
        for (int row7_ = 0; row7_ < 1; ++row7_) {
            p6_[row7_] = 0;
            for (int w8_ = 0; w8_ < 8; ++w8_) p6_[row7_] = p6_[row7_] + (float)((float *)tl_scratch)[w8_ * 1 + row7_];
        }
        __syncthreads();
        sm[0] = (float)(p6_[0]);
    }
    {
        #pragma unroll
        for (int r9_ = 0; r9_ < 16; ++r9_) {
            const int i = (((tid + (r9_) / 8 * 256) * 8 + (r9_) % 8) / 4096);
            const int j = (((tid + (r9_) / 8 * 256) * 8 + (r9_) % 8) / 1 % 4096);
            x[r9_] = (float)(((x[r9_]) / (sm[i])));
        }
    }
    #pragma unroll
    for (int q10_ = 0; q10_ < 2; ++q10_) {
        {
            union { uint4 v; __half e[8]; } v11_;
            v11_.e[0] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 0])));
            v11_.e[1] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 1])));
            v11_.e[2] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 2])));
            v11_.e[3] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 3])));
            v11_.e[4] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 4])));
            v11_.e[5] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 5])));
            v11_.e[6] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 6])));
            v11_.e[7] = tl_from_float<__half>((float)((x[(q10_ * 8 + 0) + 7])));
            if ((unsigned long long)(long long)(((bx * 1) + (((tid + ((q10_ * 8 + 0)) / 8 * 256) * 8 + ((q10_ * 8 + 0)) % 8) / 4096))) < 32768ULL && (unsigned long long)(long long)((0 + (((tid + ((q10_ * 8 + 0)) / 8 * 256) * 8 + ((q10_ * 8 + 0)) % 8) / 1 % 4096))) < 4096ULL) *(uint4 *)&Y[((long long)(((bx * 1) + (((tid + ((q10_ * 8 + 0)) / 8 * 256) * 8 + ((q10_ * 8 + 0)) % 8) / 4096)))) * 4096LL + ((0 + (((tid + ((q10_ * 8 + 0)) / 8 * 256) * 8 + ((q10_ * 8 + 0)) % 8) / 1 % 4096)))] = v11_.v;
        }
    }
}
