extern "C" __global__ void __launch_bounds__(256) tilec_shifted_12c560a9(const __nv_bfloat16 *__restrict__ X, __nv_bfloat16 *__restrict__ Y, __nv_bfloat16 *__restrict__ R) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 256);
    const int bx = blockIdx.x;
    __builtin_assume(bx >= 0 && bx < 32);
    // shifted.tile:12  for (i) in parallel(BLOCK) {
    {
        #pragma unroll
        for (int q0_ = 0; q0_ < 1; ++q0_) {
            const int e1_ = (tid + q0_ * 256) * 8;  // 8 iterations a thread, one vector an access
            const int i = (int)(e1_);
            union { uint4 v; __nv_bfloat16 e[8]; } w3_;
            union { uint4 v; __nv_bfloat16 e[8]; } v4_;
            v4_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)((bx * 2048 + i) + 8) < 65536ULL) v4_.v = *(const uint4 *)&X[(long long)((bx * 2048 + i) + 8)];
            union { uint4 v; __nv_bfloat16 e[8]; } v5_;
            v5_.v = make_uint4(0u, 0u, 0u, 0u);
            if ((unsigned long long)(long long)(bx * 2048 + i) < 65536ULL) v5_.v = *(const uint4 *)&X[(long long)(bx * 2048 + i)];
            #pragma unroll
            for (int l2_ = 0; l2_ < 8; ++l2_) {
                // shifted.tile:13  Y[bx * BLOCK + i] = X[bx * BLOCK + i + 8] - X[bx * BLOCK + i];
                w3_.e[l2_] = tl_from_float<__nv_bfloat16>((float)(tl_to_float(v4_.e[l2_]) - tl_to_float(v5_.e[l2_])));
            }
            if ((unsigned long long)(long long)(bx * 2048 + i) < 65536ULL) *(uint4 *)&Y[(long long)(bx * 2048 + i)] = w3_.v;
        }
    }
    // shifted.tile:15  for (i) in parallel(BLOCK) {
    {
        #pragma unroll
        for (int q6_ = 0; q6_ < 8; ++q6_) {
            const int e7_ = tid + q6_ * 256;
            const int i = (int)(e7_);
            // shifted.tile:16  R[bx * BLOCK + i] = X[N - 1 - (bx * BLOCK + i)];
            if ((unsigned long long)(long long)(bx * 2048 + i) < 65536ULL) R[(long long)(bx * 2048 + i)] = tl_from_float<__nv_bfloat16>((float)(((unsigned long long)(long long)(65535 - (bx * 2048 + i)) < 65536ULL) ? tl_to_float(X[(long long)(65535 - (bx * 2048 + i))]) : (float)0));
        }
    }
}
