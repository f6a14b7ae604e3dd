extern "C" __global__ void __launch_bounds__(512) __cluster_dims__(2, 1, 1) tilec_gemm_a5e1f008(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 512);
    __half *const A_s = (__half *)(tl_smem + 0);  // 4 stages, swizzle 8
    __half *const B_s = (__half *)(tl_smem + 98304);  // 4 stages, swizzle 8
    float acc[64];  // the mma accumulator layout with 12x1 warps of 16x128
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 163840), *const tl_empty = tl_full + 4;
    unsigned long long *const tl_preload = tl_full + 8, *const tl_preload_free = tl_full + 9;
    if (tid == 0) {
        #pragma unroll
        for (int s = 0; s < 4; ++s) {
            tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes
            tl_mbar_init(&tl_empty[s], 24);  // one arrive per consumer warp of both blocks: both fill it
        }
        tl_mbar_init(tl_preload, 1);
        tl_mbar_init(tl_preload_free, 12);  // a persistent block's consumer warps, done with a tile's preloads
        tl_mbar_fence_init();
    }
    tl_cluster_sync();  // the peer's mbarriers are ready before anything is multicast into them
    if (tid >= 384) {  // the producer warpgroup: its first thread issues every TMA copy
        if (tid == 384) {
            int tl_it = 0;
            for (int tl_n = 0, tl_tile = (blockIdx.x >> 1); tl_tile < 128;
                 ++tl_n, tl_tile = tl_n * (gridDim.x >> 1) + (tl_n & 1 ? (gridDim.x >> 1) - 1 - (blockIdx.x >> 1) : (blockIdx.x >> 1))) {
                const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
                int tl_bx, tl_by;
                {
                    const long long lin = tl_tile % 128LL;
                    const long long per_panel = 8LL * 16;
                    const long long first = lin / per_panel * 8, rem = lin % per_panel;
                    const long long width = min(8LL, 8LL - first);
                    tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
                }
                const int bx = 2 * tl_bx + tl_cta_rank, by = tl_by;
                __builtin_assume(bx >= 0 && bx < 16);
                __builtin_assume(by >= 0 && by < 16);
                const int n0_ = 16;
                for (int k = 0; k < n0_; ++k, ++tl_it) {
                    const int s1_ = tl_it % 4;
                    if (tl_it >= 4) tl_mbar_wait(&tl_empty[s1_], (tl_it / 4 - 1) & 1);  // the consumers freed the slot
                    tl_mbar_arrive_expect_tx(&tl_full[s1_], 40960);
                    tl_tma_load<2>((unsigned char *)A_s + s1_ * 24576 + 0 + tl_cta_rank * 12288, &tl_tmap0, &tl_full[s1_], 0x3, (int)((k * 64)) + 0, (int)((by * 192)) + tl_cta_rank * 96);
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 16384 + 0, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 128)) + 0, (int)((k * 64)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 16384 + 8192, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 128)) + 64, (int)((k * 64)));
                }
            }
        }
        return;
    }
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_A_s = tl_wgmma_desc((const unsigned char *)A_s + tl_wg * 8192, 16, 1024, 1);
    const unsigned long long tl_ndesc_B_s = tl_wgmma_desc(B_s, 8192, 1024, 1);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    for (int tl_n = 0, tl_tile = (blockIdx.x >> 1); tl_tile < 128;
         ++tl_n, tl_tile = tl_n * (gridDim.x >> 1) + (tl_n & 1 ? (gridDim.x >> 1) - 1 - (blockIdx.x >> 1) : (blockIdx.x >> 1))) {
        const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
        int tl_bx, tl_by;
        {
            const long long lin = tl_tile % 128LL;
            const long long per_panel = 8LL * 16;
            const long long first = lin / per_panel * 8, rem = lin % per_panel;
            const long long width = min(8LL, 8LL - first);
            tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
        }
        const int bx = 2 * tl_bx + tl_cta_rank, by = tl_by;
        __builtin_assume(bx >= 0 && bx < 16);
        __builtin_assume(by >= 0 && by < 16);
        if (((by * 192)) + tl_wg * 64 >= 3000) {  // this warpgroup's rows are all past the stores' edge: it only keeps the pipeline going
            const int n2_ = 16;
            for (int kb4_ = 0; kb4_ < n2_; ++kb4_, ++tl_it) {
                const int s3_ = tl_it % 4;
                tl_mbar_wait(&tl_full[s3_], (tl_it / 4) & 1);  // the tiles have landed
                if (lane < 2) tl_mbar_arrive_cluster(&tl_empty[s3_], lane);  // in block `lane` of the cluster
            }
        } else {
            #pragma unroll
            for (int r5_ = 0; r5_ < 64; ++r5_) acc[r5_] = (float)(0);
            {
                const int n6_ = 16;
                for (int k = 0; k < n6_; ++k, ++tl_it) {
                    const int s7_ = tl_it % 4;
                    tl_mbar_wait(&tl_full[s7_], (tl_it / 4) & 1);  // the tiles have landed
                    {
                        tl_wgmma_fence();
                        tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 24576 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 16384 + 0), 1);
                        tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 24576 + 32), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 16384 + 2048), 1);
                        tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 24576 + 64), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 16384 + 4096), 1);
                        tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 24576 + 96), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 16384 + 6144), 1);
                        tl_wgmma_commit();
                        tl_wgmma_wait<0>();
                        #pragma unroll
                        for (int r8_ = 0; r8_ < 64; ++r8_) tl_pin(acc[r8_]);
                    }
                    if (lane < 2) tl_mbar_arrive_cluster(&tl_empty[s7_], lane);  // in block `lane` of the cluster
                }
            }
            {
                unsigned char *const st9_ = tl_smem + 164864 + tl_wg * 16384;  // this warpgroup's rows of the staging tile
                if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                #pragma unroll
                for (int q10_ = 0; q10_ < 64; q10_ += 2) {
                    const int r12_ = (warp / 1 * 16 + (q10_) / 64 * 16 + ((q10_) / 2 % 2) * 8 + lane / 4) % 64, c13_ = (warp % 1 * 128 + (q10_) / 4 % 16 * 8 + (lane % 4) * 2 + (q10_) % 2);
                    union { unsigned v; __half e[2]; } v11_;
                    v11_.e[0] = tl_from_float<__half>((float)((acc[q10_ + 0])));
                    v11_.e[1] = tl_from_float<__half>((float)((acc[q10_ + 1])));
                    *(unsigned *)(st9_ + c13_ / 64 * 8192 + tl_tma_swizzle(r12_, c13_ % 64 * 2, 128)) = v11_.v;
                }
                tl_fence_proxy_async();  // the writes, visible to the TMA unit
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                if (tid % 128 == 0) {
                    tl_tma_store<2>(&tl_tmap2, st9_ + 0, (int)((bx * 128)) + 0, (int)((by * 192)) + tl_wg * 64);
                    tl_tma_store<2>(&tl_tmap2, st9_ + 8192, (int)((bx * 128)) + 64, (int)((by * 192)) + tl_wg * 64);
                    tl_tma_store_commit();
                }
            }
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
    tl_cluster_sync();  // the peer's releases into this block have landed
#endif
}
