extern "C" __global__ void __launch_bounds__(384, 1) __cluster_dims__(2, 1, 1) tilec_gemm_bc4637b0(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 384);
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
            for (int tl_n = 0, tl_tile = (blockIdx.x >> 1); tl_tile < 126;
                 ++tl_n, tl_tile = tl_n * (gridDim.x >> 1) + (tl_n & 1 ? (gridDim.x >> 1) - 1 - (blockIdx.x >> 1) : (blockIdx.x >> 1))) {
                const int tl_half = tl_tile >= 66;  // the last wave's tiles in halves of their columns
                const int tl_whole = tl_half ? 66 + (tl_tile - 66) / 2 : tl_tile, tl_hcol = tl_half ? (tl_tile - 66) % 2 * 128 : 0;
                const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
                int tl_bx, tl_by;
                {
                    const long long lin = tl_whole % 96LL;
                    const long long per_panel = 8LL * 12;
                    const long long first = lin / per_panel * 8, rem = lin % per_panel;
                    const long long width = min(8LL, 8LL - first);
                    tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
                }
                const int bx = tl_bx, by = 2 * tl_by + tl_cta_rank;
                __builtin_assume(bx >= 0 && bx < 8);
                __builtin_assume(by >= 0 && by < 24);
                const int n0_ = 16;
                for (int k = 0; k < n0_; ++k, ++tl_it) {
                    const int s1_ = tl_it % 3;
                    if (tl_it >= 3) tl_mbar_wait(&tl_empty[s1_], (tl_it / 3 - 1) & 1);  // the consumers freed the slot
                    tl_mbar_arrive_expect_tx(&tl_full[s1_], tl_half ? 32768 : 49152);
                    tl_tma_load<2>((unsigned char *)A_s + s1_ * 16384 + 0, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 64)) + 0, (int)((by * 128)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 0 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 0 + tl_hcol, (int)((k * 64)) + tl_cta_rank * 32);
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 8192 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 64 + tl_hcol, (int)((k * 64)) + tl_cta_rank * 32);
                    if (!tl_half) {
                        tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 16384 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 128 + tl_hcol, (int)((k * 64)) + tl_cta_rank * 32);
                        tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 24576 + tl_cta_rank * 4096, &tl_tmap1, &tl_full[s1_], 0x3, (int)((bx * 256)) + 192 + tl_hcol, (int)((k * 64)) + tl_cta_rank * 32);
                    }
                }
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");  // what the producer freed
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_A_s = tl_wgmma_desc((const unsigned char *)A_s + tl_wg * 8192, 16, 1024, 1);
    const unsigned long long tl_ndesc_B_s = tl_wgmma_desc(B_s, 8192, 1024, 1);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    for (int tl_n = 0, tl_tile = (blockIdx.x >> 1); tl_tile < 126;
         ++tl_n, tl_tile = tl_n * (gridDim.x >> 1) + (tl_n & 1 ? (gridDim.x >> 1) - 1 - (blockIdx.x >> 1) : (blockIdx.x >> 1))) {
        const int tl_half = tl_tile >= 66;  // the last wave's tiles in halves of their columns
        const int tl_whole = tl_half ? 66 + (tl_tile - 66) / 2 : tl_tile, tl_hcol = tl_half ? (tl_tile - 66) % 2 * 128 : 0;
        const int tl_cta_rank = tl_cluster_rank();  // blockIdx.x % 2
        int tl_bx, tl_by;
        {
            const long long lin = tl_whole % 96LL;
            const long long per_panel = 8LL * 12;
            const long long first = lin / per_panel * 8, rem = lin % per_panel;
            const long long width = min(8LL, 8LL - first);
            tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
        }
        const int bx = tl_bx, by = 2 * tl_by + tl_cta_rank;
        __builtin_assume(bx >= 0 && bx < 8);
        __builtin_assume(by >= 0 && by < 24);
        if (((by * 128)) + tl_wg * 64 >= 3000) {  // this warpgroup's rows are all past the stores' edge: it only keeps the pipeline going
            const int n2_ = 16;
            for (int kb4_ = 0; kb4_ < n2_; ++kb4_, ++tl_it) {
                const int s3_ = tl_it % 3;
                tl_mbar_wait(&tl_full[s3_], (tl_it / 3) & 1);  // the tiles have landed
                if (lane < 2) tl_mbar_arrive_cluster(&tl_empty[s3_], lane);  // in block `lane` of the cluster
            }
        } else {
            #pragma unroll
            for (int r5_ = 0; r5_ < 128; ++r5_) acc[r5_] = (float)(0);
            {
                const int n6_ = 16;
                if (tl_half) {  // half of the tile's columns
                    for (int k = 0; k < n6_; ++k, ++tl_it) {
                        const int s7_ = tl_it % 3;
                        tl_mbar_wait(&tl_full[s7_], (tl_it / 3) & 1);  // the tiles have landed
                        {
                            tl_wgmma_fence();
                            tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 0), 1);
                            tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 32), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 2048), 1);
                            tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 64), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 4096), 1);
                            tl_wgmma_m64n128k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 96), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 6144), 1);
                            tl_wgmma_commit();
                            tl_wgmma_wait<0>();
                            #pragma unroll
                            for (int r8_ = 0; r8_ < 128; ++r8_) tl_pin(acc[r8_]);
                        }
                        if (lane < 2) tl_mbar_arrive_cluster(&tl_empty[s7_], lane);  // in block `lane` of the cluster
                    }
                } else {
                    for (int k = 0; k < n6_; ++k, ++tl_it) {
                        const int s7_ = tl_it % 3;
                        tl_mbar_wait(&tl_full[s7_], (tl_it / 3) & 1);  // the tiles have landed
                        {
                            tl_wgmma_fence();
                            tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 0), 1);
                            tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 32), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 2048), 1);
                            tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 64), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 4096), 1);
                            tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s7_ * 16384 + 96), tl_wgmma_desc_at(tl_ndesc_B_s, s7_ * 32768 + 6144), 1);
                            tl_wgmma_commit();
                            tl_wgmma_wait<0>();
                            #pragma unroll
                            for (int r9_ = 0; r9_ < 128; ++r9_) tl_pin(acc[r9_]);
                        }
                        if (lane < 2) tl_mbar_arrive_cluster(&tl_empty[s7_], lane);  // in block `lane` of the cluster
                    }
                }
            }
            if (tl_half) {  // half of the tile's columns (plan_halves)
                {
                    unsigned char *const st10_ = tl_smem + 148480 + tl_wg * 32768;  // this warpgroup's rows of the staging tile
                    if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
                    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                    #pragma unroll
                    for (int q11_ = 0; q11_ < 64; q11_ += 2) {
                        const int r13_ = (warp / 1 * 16 + (q11_) / 128 * 16 + ((q11_) / 2 % 2) * 8 + lane / 4) % 64, c14_ = (warp % 1 * 256 + (q11_) / 4 % 32 * 8 + (lane % 4) * 2 + (q11_) % 2);
                        union { unsigned v; __half e[2]; } v12_;
                        v12_.e[0] = tl_from_float<__half>((float)((acc[q11_ + 0])));
                        v12_.e[1] = tl_from_float<__half>((float)((acc[q11_ + 1])));
                        *(unsigned *)(st10_ + c14_ / 64 * 8192 + tl_tma_swizzle(r13_, c14_ % 64 * 2, 128)) = v12_.v;
                    }
                    tl_fence_proxy_async();  // the writes, visible to the TMA unit
                    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                    if (tid % 128 == 0) {
                        tl_tma_store<2>(&tl_tmap2, st10_ + 0, (int)((bx * 256)) + 0 + tl_hcol, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store<2>(&tl_tmap2, st10_ + 8192, (int)((bx * 256)) + 64 + tl_hcol, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store_commit();
                    }
                }
            } else {
                {
                    unsigned char *const st15_ = tl_smem + 148480 + tl_wg * 32768;  // this warpgroup's rows of the staging tile
                    if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
                    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                    #pragma unroll
                    for (int q16_ = 0; q16_ < 128; q16_ += 2) {
                        const int r18_ = (warp / 1 * 16 + (q16_) / 128 * 16 + ((q16_) / 2 % 2) * 8 + lane / 4) % 64, c19_ = (warp % 1 * 256 + (q16_) / 4 % 32 * 8 + (lane % 4) * 2 + (q16_) % 2);
                        union { unsigned v; __half e[2]; } v17_;
                        v17_.e[0] = tl_from_float<__half>((float)((acc[q16_ + 0])));
                        v17_.e[1] = tl_from_float<__half>((float)((acc[q16_ + 1])));
                        *(unsigned *)(st15_ + c19_ / 64 * 8192 + tl_tma_swizzle(r18_, c19_ % 64 * 2, 128)) = v17_.v;
                    }
                    tl_fence_proxy_async();  // the writes, visible to the TMA unit
                    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                    if (tid % 128 == 0) {
                        tl_tma_store<2>(&tl_tmap2, st15_ + 0, (int)((bx * 256)) + 0, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store<2>(&tl_tmap2, st15_ + 8192, (int)((bx * 256)) + 64, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store<2>(&tl_tmap2, st15_ + 16384, (int)((bx * 256)) + 128, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store<2>(&tl_tmap2, st15_ + 24576, (int)((bx * 256)) + 192, (int)((by * 128)) + tl_wg * 64);
                        tl_tma_store_commit();
                    }
                }
            }
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
    tl_cluster_sync();  // the peer's releases into this block have landed
#endif
}
