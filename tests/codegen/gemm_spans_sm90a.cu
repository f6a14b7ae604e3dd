extern "C" __global__ void __launch_bounds__(384) __cluster_dims__(2, 1, 1) tilec_spans_nn_df4e78dd(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 384);
    const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
    const int bx = (int)((blockIdx.x >> 1) % 11);
    const int by = 2 * (int)((blockIdx.x >> 1) / 11 % 4) + tl_cta_rank;
    __builtin_assume(bx >= 0 && bx < 11);
    __builtin_assume(by >= 0 && by < 8);
    __half *const A_s = (__half *)(tl_smem + 0);  // 3 stages, swizzle 0
    __half *const B_s = (__half *)(tl_smem + 61440);  // 3 stages, swizzle 0
    float acc[48];  // the mma accumulator layout with 8x1 warps of 16x96
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 107520), *const tl_empty = tl_full + 3;
    unsigned long long *const tl_preload = tl_full + 6, *const tl_preload_free = tl_full + 7;
    if (tid == 0) {
        #pragma unroll
        for (int s = 0; s < 3; ++s) {
            tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes
            tl_mbar_init(&tl_empty[s], 16);  // one arrive per consumer warp of both blocks: both fill it
        }
        tl_mbar_init(tl_preload, 1);
        tl_mbar_init(tl_preload_free, 8);  // a persistent block's consumer warps, done with a tile's preloads
        tl_mbar_fence_init();
    }
    tl_cluster_sync();  // the peer's mbarriers are ready before anything is multicast into them
    if (tid >= 256) {  // the producer warpgroup: its first thread issues every TMA copy
        if (tid == 256) {
            int tl_it = 0;
            const int n0_ = 13;
            for (int k = 0; k < n0_; ++k, ++tl_it) {
                const int s1_ = tl_it % 3;
                if (tl_it >= 3) tl_mbar_wait(&tl_empty[s1_], (tl_it / 3 - 1) & 1);  // the consumers freed the slot
                tl_mbar_arrive_expect_tx(&tl_full[s1_], 35840);
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 20480 + 0, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 80)) + 0, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 20480 + 4096, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 80)) + 16, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 20480 + 8192, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 80)) + 32, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 20480 + 12288, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 80)) + 48, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 20480 + 16384, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 80)) + 64, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 15360 + 0 + tl_cta_rank * 2560, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 96)) + 0, (int)((k * 80)) + tl_cta_rank * 40);
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 15360 + 5120 + tl_cta_rank * 2560, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 96)) + 32, (int)((k * 80)) + tl_cta_rank * 40);
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 15360 + 10240 + tl_cta_rank * 2560, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 96)) + 64, (int)((k * 80)) + tl_cta_rank * 40);
            }
        }
        return;
    }
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_A_s = tl_wgmma_desc((const unsigned char *)A_s + tl_wg * 2048, 16, 256, 3);
    const unsigned long long tl_ndesc_B_s = tl_wgmma_desc(B_s, 5120, 512, 2);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    #pragma unroll
    for (int r2_ = 0; r2_ < 48; ++r2_) acc[r2_] = (float)(0);
    {
        const int n3_ = 13;
        for (int k = 0; k < n3_; ++k, ++tl_it) {
            const int s4_ = tl_it % 3;
            tl_mbar_wait(&tl_full[s4_], (tl_it / 3) & 1);  // the tiles have landed
            {
                tl_wgmma_fence();
                tl_wgmma_m64n96k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 20480 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 15360 + 0), 1);
                tl_wgmma_m64n96k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 20480 + 4096), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 15360 + 1024), 1);
                tl_wgmma_m64n96k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 20480 + 8192), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 15360 + 2048), 1);
                tl_wgmma_m64n96k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 20480 + 12288), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 15360 + 3072), 1);
                tl_wgmma_m64n96k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 20480 + 16384), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 15360 + 4096), 1);
                tl_wgmma_commit();
                tl_wgmma_wait<0>();
                #pragma unroll
                for (int r5_ = 0; r5_ < 48; ++r5_) tl_pin(acc[r5_]);
            }
            if (k < n3_ - 3 && lane < 2) tl_mbar_arrive_cluster(&tl_empty[s4_], lane);  // in block `lane` of the cluster
        }
    }
    {
        unsigned char *const st6_ = tl_smem + 108544 + tl_wg * 12288;  // this warpgroup's rows of the staging tile
        if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        #pragma unroll
        for (int q7_ = 0; q7_ < 48; q7_ += 2) {
            const int r9_ = (warp / 1 * 16 + (q7_) / 48 * 16 + ((q7_) / 2 % 2) * 8 + lane / 4) % 64, c10_ = (warp % 1 * 96 + (q7_) / 4 % 12 * 8 + (lane % 4) * 2 + (q7_) % 2);
            union { unsigned v; __half e[2]; } v8_;
            v8_.e[0] = tl_from_float<__half>((float)((acc[q7_ + 0])));
            v8_.e[1] = tl_from_float<__half>((float)((acc[q7_ + 1])));
            *(unsigned *)(st6_ + c10_ / 32 * 4096 + tl_tma_swizzle(r9_, c10_ % 32 * 2, 64)) = v8_.v;
        }
        tl_fence_proxy_async();  // the writes, visible to the TMA unit
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        if (tid % 128 == 0) {
            tl_tma_store<2>(&tl_tmap2, st6_ + 0, (int)((bx * 96)) + 0, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st6_ + 4096, (int)((bx * 96)) + 32, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st6_ + 8192, (int)((bx * 96)) + 64, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store_commit();
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
