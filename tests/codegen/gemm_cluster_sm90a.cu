extern "C" __global__ void __launch_bounds__(384, 1) __cluster_dims__(2, 1, 1) tilec_gemm_01dc6fb4(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 384);
    const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
    int tl_bx, tl_by;
    {
        const long long lin = (blockIdx.x >> 1) % 16LL;
        const long long per_panel = 8LL * 4;
        const long long first = lin / per_panel * 8, rem = lin % per_panel;
        const long long width = min(8LL, 4LL - first);
        tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
    }
    const int bx = tl_bx, by = 2 * tl_by + tl_cta_rank;
    __builtin_assume(bx >= 0 && bx < 4);
    __builtin_assume(by >= 0 && by < 8);
    __half *const A_s = (__half *)(tl_smem + 0);  // 3 stages, swizzle 8
    __half *const B_s = (__half *)(tl_smem + 49152);  // 3 stages, swizzle 8
    float acc[128];  // the mma accumulator layout with 8x1 warps of 16x256
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 147456), *const tl_empty = tl_full + 3;
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
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");  // to the consumers
        if (tid == 256) {
            int tl_it = 0;
            const int n0_ = 16;
            for (int k = 0; k < n0_; ++k, ++tl_it) {
                const int s1_ = tl_it % 3;
                if (tl_it >= 3) tl_mbar_wait(&tl_empty[s1_], (tl_it / 3 - 1) & 1);  // the consumers freed the slot
                tl_mbar_arrive_expect_tx(&tl_full[s1_], 49152);
                tl_tma_load<2>((unsigned char *)A_s + s1_ * 16384 + 0, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 64)) + 0, (int)((by * 128)));
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 0 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 0, (int)((k * 64)) + tl_cta_rank * 32);
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 8192 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 64, (int)((k * 64)) + tl_cta_rank * 32);
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 16384 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 128, (int)((k * 64)) + tl_cta_rank * 32);
                tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 24576 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 192, (int)((k * 64)) + tl_cta_rank * 32);
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");  // what the producer freed
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_A_s = tl_wgmma_desc((const unsigned char *)A_s + tl_wg * 8192, 16, 1024, 1);
    const unsigned long long tl_ndesc_B_s = tl_wgmma_desc(B_s, 8192, 1024, 1);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    #pragma unroll
    for (int r2_ = 0; r2_ < 128; ++r2_) acc[r2_] = (float)(0);
    {
        const int n3_ = 16;
        for (int k = 0; k < n3_; ++k, ++tl_it) {
            const int s4_ = tl_it % 3;
            tl_mbar_wait(&tl_full[s4_], (tl_it / 3) & 1);  // the tiles have landed
            {
                tl_wgmma_fence();
                tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 16384 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 32768 + 0), 1);
                tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 16384 + 32), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 32768 + 2048), 1);
                tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 16384 + 64), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 32768 + 4096), 1);
                tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s4_ * 16384 + 96), tl_wgmma_desc_at(tl_ndesc_B_s, s4_ * 32768 + 6144), 1);
                tl_wgmma_commit();
                tl_wgmma_wait<0>();
                #pragma unroll
                for (int r5_ = 0; r5_ < 128; ++r5_) tl_pin(acc[r5_]);
            }
            if (k < n3_ - 3 && lane < 2) tl_mbar_arrive_cluster(&tl_empty[s4_], lane);  // in block `lane` of the cluster
        }
    }
    {
        unsigned char *const st6_ = tl_smem + 148480 + tl_wg * 32768;  // this warpgroup's rows of the staging tile
        if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        #pragma unroll
        for (int q7_ = 0; q7_ < 128; q7_ += 2) {
            const int r9_ = (warp / 1 * 16 + (q7_) / 128 * 16 + ((q7_) / 2 % 2) * 8 + lane / 4) % 64, c10_ = (warp % 1 * 256 + (q7_) / 4 % 32 * 8 + (lane % 4) * 2 + (q7_) % 2);
            union { unsigned v; __half e[2]; } v8_;
            v8_.e[0] = tl_from_float<__half>((float)((acc[q7_ + 0])));
            v8_.e[1] = tl_from_float<__half>((float)((acc[q7_ + 1])));
            *(unsigned *)(st6_ + c10_ / 64 * 8192 + tl_tma_swizzle(r9_, c10_ % 64 * 2, 128)) = v8_.v;
        }
        tl_fence_proxy_async();  // the writes, visible to the TMA unit
        asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
        if (tid % 128 == 0) {
            tl_tma_store<2>(&tl_tmap2, st6_ + 0, (int)((bx * 256)) + 0, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st6_ + 8192, (int)((bx * 256)) + 64, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st6_ + 16384, (int)((bx * 256)) + 128, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store<2>(&tl_tmap2, st6_ + 24576, (int)((bx * 256)) + 192, (int)((by * 128)) + tl_wg * 64);
            tl_tma_store_commit();
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
