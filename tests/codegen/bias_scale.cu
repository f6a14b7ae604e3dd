extern "C" __global__ void __launch_bounds__(256) tilec_bias_scale_09ffd9f0(const __half *__restrict__ X, const __half *__restrict__ B, float *__restrict__ Y, float tl_arg_s) {
    extern __shared__ __align__(128) unsigned char tl_smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 256);
    const int bx = blockIdx.x;
    const int by = blockIdx.y;
    __builtin_assume(bx >= 0 && bx < 4);
    __builtin_assume(by >= 0 && by < 512);
    const float s = (tl_arg_s);  // a run-time argument
    // bias_scale.tile:13  for (i, j) in parallel(BM, BN) {
    {
        #pragma unroll
        for (int q0_ = 0; q0_ < 4; ++q0_) {
            const int e1_ = (tid + q0_ * 256) * 4;  // 4 iterations a thread, one vector an access
            const int j = (int)(e1_ % 512);
            const int i = (int)(e1_ / 512);
            const int r = (by * 8 + i);
            union { uint4 v; float e[4]; } w3_;
            union { uint2 v; __half e[4]; } v4_;
            v4_.v = make_uint2(0u, 0u);
            if ((unsigned long long)(long long)(r) < 4096ULL && (unsigned long long)(long long)(bx * 512 + j) < 2048ULL) v4_.v = *(const uint2 *)&X[((long long)(r)) * 2048LL + (bx * 512 + j)];
            union { uint2 v; __half e[4]; } v5_;
            v5_.v = make_uint2(0u, 0u);
            if ((unsigned long long)(long long)(bx * 512 + j) < 2048ULL) v5_.v = *(const uint2 *)&B[(long long)(bx * 512 + j)];
            #pragma unroll
            for (int l2_ = 0; l2_ < 4; ++l2_) {
                // bias_scale.tile:15  Y[r, bx * BN + j] = f32(X[r, bx * BN + j]) * s + f32(B[bx * BN + j]);
                w3_.e[l2_] = (float)((((float)(tl_to_float(v4_.e[l2_]))) * s) + ((float)(tl_to_float(v5_.e[l2_]))));
            }
            if ((unsigned long long)(long long)(r) < 4096ULL && (unsigned long long)(long long)(bx * 512 + j) < 2048ULL) *(uint4 *)&Y[((long long)(r)) * 2048LL + (bx * 512 + j)] = w3_.v;
        }
    }
}
