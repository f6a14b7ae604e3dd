extern "C" __global__ void __launch_bounds__(256) tilec_fp8_promote_5ebcedd3(const __nv_fp8_e4m3 *__restrict__ A, const __nv_fp8_e4m3 *__restrict__ B, float *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 256);
    const int bx = blockIdx.x;
    const int by = blockIdx.y;
    __builtin_assume(bx >= 0 && bx < 4);
    __builtin_assume(by >= 0 && by < 4);
    __nv_fp8_e4m3 *const A_s = (__nv_fp8_e4m3 *)(tl_smem + 0);  // 2 stages, swizzle 0
    __nv_fp8_e4m3 *const B_s = (__nv_fp8_e4m3 *)(tl_smem + 20480);  // 2 stages, swizzle 0
    float acc[32];  // the mma accumulator layout with 4x1 warps of 16x64
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 40960), *const tl_empty = tl_full + 2;
    unsigned long long *const tl_preload = tl_full + 4, *const tl_preload_free = tl_full + 5;
    if (tid == 0) {
        #pragma unroll
        for (int s = 0; s < 2; ++s) {
            tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes
            tl_mbar_init(&tl_empty[s], 4);  // one arrive per consumer warp
        }
        tl_mbar_init(tl_preload, 1);
        tl_mbar_init(tl_preload_free, 4);  // a persistent block's consumer warps, done with a tile's preloads
        tl_mbar_fence_init();
    }
    __syncthreads();
    if (tid >= 128) {  // the producer warpgroup: its first thread issues every TMA copy
        if (tid == 128) {
            int tl_it = 0;
            const int n0_ = 10;
            for (int k = 0; k < n0_; ++k, ++tl_it) {
                const int s1_ = tl_it % 2;
                if (tl_it >= 2) tl_mbar_wait(&tl_empty[s1_], (tl_it / 2 - 1) & 1);  // the consumers freed the slot
                tl_mbar_arrive_expect_tx(&tl_full[s1_], 20480);
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 10240 + 0, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 160)) + 0, (int)((by * 64)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 10240 + 2048, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 160)) + 32, (int)((by * 64)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 10240 + 4096, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 160)) + 64, (int)((by * 64)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 10240 + 6144, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 160)) + 96, (int)((by * 64)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 10240 + 8192, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 160)) + 128, (int)((by * 64)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 10240 + 0, &tl_tmap1, &tl_full[s1_], 0, (int)((k * 160)) + 0, (int)((bx * 64)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 10240 + 2048, &tl_tmap1, &tl_full[s1_], 0, (int)((k * 160)) + 32, (int)((bx * 64)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 10240 + 4096, &tl_tmap1, &tl_full[s1_], 0, (int)((k * 160)) + 64, (int)((bx * 64)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 10240 + 6144, &tl_tmap1, &tl_full[s1_], 0, (int)((k * 160)) + 96, (int)((bx * 64)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 10240 + 8192, &tl_tmap1, &tl_full[s1_], 0, (int)((k * 160)) + 128, (int)((bx * 64)));
            }
        }
        return;
    }
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_A_s = tl_wgmma_desc((const unsigned char *)A_s + tl_wg * 2048, 16, 256, 3);
    const unsigned long long tl_kdesc_B_s = tl_wgmma_desc((const unsigned char *)B_s, 16, 256, 3);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    #pragma unroll
    for (int r2_ = 0; r2_ < 32; ++r2_) acc[r2_] = (float)(0);
    {
        const int n3_ = 10;
        for (int k = 0; k < n3_; ++k, ++tl_it) {
            const int s4_ = tl_it % 2;
            tl_mbar_wait(&tl_full[s4_], (tl_it / 2) & 1);  // the tiles have landed
            {
                float tl_part[32];  // the sums of 128 products (promotes)
                tl_wgmma_fence();
                tl_wgmma_m64n64k32_e4m3_ss_kb(tl_part, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 10240 + 0), tl_wgmma_desc_at(tl_kdesc_B_s, s4_ * 10240 + 0), 0);
                tl_wgmma_m64n64k32_e4m3_ss_kb(tl_part, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 10240 + 2048), tl_wgmma_desc_at(tl_kdesc_B_s, s4_ * 10240 + 2048), 1);
                tl_wgmma_m64n64k32_e4m3_ss_kb(tl_part, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 10240 + 4096), tl_wgmma_desc_at(tl_kdesc_B_s, s4_ * 10240 + 4096), 1);
                tl_wgmma_m64n64k32_e4m3_ss_kb(tl_part, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 10240 + 6144), tl_wgmma_desc_at(tl_kdesc_B_s, s4_ * 10240 + 6144), 1);
                tl_wgmma_commit();
                tl_wgmma_wait<0>();
                #pragma unroll
                for (int r5_ = 0; r5_ < 32; ++r5_) tl_pin(acc[r5_]);
                #pragma unroll
                for (int r6_ = 0; r6_ < 32; ++r6_) { tl_pin(tl_part[r6_]); acc[r6_] += tl_part[r6_]; }
                tl_wgmma_fence();
                tl_wgmma_m64n64k32_e4m3_ss_kb(tl_part, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 10240 + 8192), tl_wgmma_desc_at(tl_kdesc_B_s, s4_ * 10240 + 8192), 0);
                tl_wgmma_commit();
                tl_wgmma_wait<0>();
                #pragma unroll
                for (int r7_ = 0; r7_ < 32; ++r7_) tl_pin(acc[r7_]);
                #pragma unroll
                for (int r8_ = 0; r8_ < 32; ++r8_) { tl_pin(tl_part[r8_]); acc[r8_] += tl_part[r8_]; }
            }
            if (lane == 0) tl_mbar_arrive(&tl_empty[s4_]);  // this warp is done with the slot
        }
    }
    {
        unsigned char *const st9_ = tl_smem + 41984 + tl_wg * 16384;  // this warpgroup's rows of the staging tile
        if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        #pragma unroll
        for (int q10_ = 0; q10_ < 32; q10_ += 2) {
            const int r12_ = (warp / 1 * 16 + (q10_) / 32 * 16 + ((q10_) / 2 % 2) * 8 + lane / 4) % 64, c13_ = (warp % 1 * 64 + (q10_) / 4 % 8 * 8 + (lane % 4) * 2 + (q10_) % 2);
            union { uint2 v; float e[2]; } v11_;
            v11_.e[0] = (float)((acc[q10_ + 0]));
            v11_.e[1] = (float)((acc[q10_ + 1]));
            *(uint2 *)(st9_ + c13_ / 32 * 8192 + tl_tma_swizzle(r12_, c13_ % 32 * 4, 128)) = v11_.v;
        }
        tl_fence_proxy_async();  // the writes, visible to the TMA unit
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        if (tid % 128 == 0) {
            tl_tma_store<2>(&tl_tmap2, st9_ + 0, (int)((bx * 64)) + 0, (int)((by * 64)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st9_ + 8192, (int)((bx * 64)) + 32, (int)((by * 64)) + tl_wg * 64);
            tl_tma_store_commit();
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
