extern "C" __global__ void __launch_bounds__(256) tilec_add_ccfd90cc(const __half *__restrict__ X, const __half *__restrict__ Y, __half *__restrict__ Z) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    const int bx = blockIdx.x;
    {
        #pragma unroll
        for (int q0_ = 0; q0_ < 8; ++q0_) {
            const long long e1_ = tid + (long long)q0_ * 256;
            const int i = (int)(e1_ / 1);
            if ((unsigned long long)(long long)(((bx * 2048) + i)) < 67108864ULL) Z[(long long)(((bx * 2048) + i))] = tl_from_float<__half>((float)(((((unsigned long long)(long long)(((bx * 2048) + i)) < 67108864ULL) ? tl_to_float(X[(long long)(((bx * 2048) + i))]) : (float)0) + (((unsigned long long)(long long)(((bx * 2048) + i)) < 67108864ULL) ? tl_to_float(Y[(long long)(((bx * 2048) + i))]) : (float)0))));
        }
    }
}
