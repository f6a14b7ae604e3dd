extern "C" __global__ void __launch_bounds__(256) tilec_shadowed_let_658d7ec7(const float *__restrict__ X, float *__restrict__ Y) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 256);
    const int bx = blockIdx.x;
    __builtin_assume(bx >= 0 && bx < 16);
    const float a = ((((unsigned long long)(long long)((bx * 256)) < 4096ULL) ? (X[(long long)((bx * 256))]) : (float)0) * 2.0f);
    const int tl_u_warp = (bx * 8);
    const int u_warp = (tl_u_warp + 1);
    {
        #pragma unroll
        for (int q0_ = 0; q0_ < 1; ++q0_) {
            const long long e1_ = (tid + (long long)q0_ * 256) * 4;  // 4 iterations a thread, one vector an access
            if (e1_ >= 256) break;
            const int i = (int)(e1_ / 1);
            union { uint4 v; float e[4]; } v3_;
            v3_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)(((bx * 256) + i)) < 4096ULL) v3_.v = *(const uint4 *)&X[(long long)(((bx * 256) + i))];
            union { uint4 v; float e[4]; } w4_;
            #pragma unroll
            for (int l2_ = 0; l2_ < 4; ++l2_) {
                const float tl_s1_a = (a + (v3_.e[l2_]));
                const int tl_s1_u_warp = (u_warp + (i + l2_));
                w4_.e[l2_] = (float)((tl_s1_a + ((float)(tl_s1_u_warp))));
            }
            if ((unsigned long long)(long long)(((bx * 256) + i)) < 4096ULL) *(uint4 *)&Y[(long long)(((bx * 256) + i))] = w4_.v;
        }
    }
}
