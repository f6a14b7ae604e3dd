extern "C" __global__ void __launch_bounds__(384, 1) tilec_gemm_50a577ac(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2) {
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
            tl_mbar_init(&tl_empty[s], 8);  // one arrive per consumer warp
        }
        tl_mbar_init(tl_preload, 1);
        tl_mbar_init(tl_preload_free, 8);  // a persistent block's consumer warps, done with a tile's preloads
        tl_mbar_fence_init();
    }
    __syncthreads();
    if (tid >= 256) {  // the producer warpgroup: its first thread issues every TMA copy
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");  // to the consumers
        if (tid == 256) {
            int tl_it = 0;
            for (int tl_n = 0, tl_tile = blockIdx.x; tl_tile < 108;
                 ++tl_n, tl_tile = tl_n * gridDim.x + (tl_n & 1 ? gridDim.x - 1 - blockIdx.x : blockIdx.x)) {
                const int tl_at = tl_tile / 3, tl_piece = tl_tile % 3;  // split tiles: the tile, and which of its 3 pieces
                int tl_bx, tl_by;
                {
                    const long long lin = tl_at % 36LL;
                    const long long per_panel = 8LL * 9;
                    const long long first = lin / per_panel * 8, rem = lin % per_panel;
                    const long long width = min(8LL, 4LL - first);
                    tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
                }
                const int bx = tl_bx, by = tl_by;
                __builtin_assume(bx >= 0 && bx < 4);
                __builtin_assume(by >= 0 && by < 9);
                const int n0_ = 64;
                const int from2_ = tl_piece * n0_ / 3, to3_ = (tl_piece + 1) * n0_ / 3;  // this piece's iterations
                for (int k = from2_; k < to3_; ++k, ++tl_it) {
                    const int s1_ = tl_it % 3;
                    if (tl_it >= 3) tl_mbar_wait(&tl_empty[s1_], (tl_it / 3 - 1) & 1);  // the consumers freed the slot
                    tl_mbar_arrive_expect_tx(&tl_full[s1_], 49152);
                    tl_tma_load<2>((unsigned char *)A_s + s1_ * 16384 + 0, &tl_tmap0, &tl_full[s1_], 0, (int)((k * 64)) + 0, (int)((by * 128)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 0, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 256)) + 0, (int)((k * 64)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 8192, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 256)) + 64, (int)((k * 64)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 16384, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 256)) + 128, (int)((k * 64)));
                    tl_tma_load<2>((unsigned char *)B_s + s1_ * 32768 + 24576, &tl_tmap1, &tl_full[s1_], 0, (int)((bx * 256)) + 192, (int)((k * 64)));
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
    for (int tl_n = 0, tl_tile = blockIdx.x; tl_tile < 108;
         ++tl_n, tl_tile = tl_n * gridDim.x + (tl_n & 1 ? gridDim.x - 1 - blockIdx.x : blockIdx.x)) {
        const int tl_at = tl_tile / 3, tl_piece = tl_tile % 3;  // split tiles: the tile, and which of its 3 pieces
        int tl_bx, tl_by;
        {
            const long long lin = tl_at % 36LL;
            const long long per_panel = 8LL * 9;
            const long long first = lin / per_panel * 8, rem = lin % per_panel;
            const long long width = min(8LL, 4LL - first);
            tl_bx = (int)(first + rem % width); tl_by = (int)(rem / width);
        }
        const int bx = tl_bx, by = tl_by;
        __builtin_assume(bx >= 0 && bx < 4);
        __builtin_assume(by >= 0 && by < 9);
        if (((by * 128)) + tl_wg * 64 >= 1080) {  // this warpgroup's rows are all past the stores' edge: it only keeps the pipeline going
            const int n4_ = 64;
            const int from7_ = tl_piece * n4_ / 3, to8_ = (tl_piece + 1) * n4_ / 3;  // this piece's iterations
            for (int kb6_ = from7_; kb6_ < to8_; ++kb6_, ++tl_it) {
                const int s5_ = tl_it % 3;
                tl_mbar_wait(&tl_full[s5_], (tl_it / 3) & 1);  // the tiles have landed
                if (lane == 0) tl_mbar_arrive(&tl_empty[s5_]);  // this warp is done with the slot
            }
        } else {
            #pragma unroll
            for (int r9_ = 0; r9_ < 128; ++r9_) acc[r9_] = (float)(0);
            {
                const int n10_ = 64;
                const int from12_ = tl_piece * n10_ / 3, to13_ = (tl_piece + 1) * n10_ / 3;  // this piece's iterations
                for (int k = from12_; k < to13_; ++k, ++tl_it) {
                    const int s11_ = tl_it % 3;
                    tl_mbar_wait(&tl_full[s11_], (tl_it / 3) & 1);  // the tiles have landed
                    {
                        tl_wgmma_fence();
                        tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s11_ * 16384 + 0), tl_wgmma_desc_at(tl_ndesc_B_s, s11_ * 32768 + 0), 1);
                        tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s11_ * 16384 + 32), tl_wgmma_desc_at(tl_ndesc_B_s, s11_ * 32768 + 2048), 1);
                        tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s11_ * 16384 + 64), tl_wgmma_desc_at(tl_ndesc_B_s, s11_ * 32768 + 4096), 1);
                        tl_wgmma_m64n256k16_f16_ss_nb(acc, tl_wgmma_desc_at(tl_adesc_A_s, s11_ * 16384 + 96), tl_wgmma_desc_at(tl_ndesc_B_s, s11_ * 32768 + 6144), 1);
                        tl_wgmma_commit();
                        tl_wgmma_wait<0>();
                        #pragma unroll
                        for (int r14_ = 0; r14_ < 128; ++r14_) tl_pin(acc[r14_]);
                    }
                    if (lane == 0) tl_mbar_arrive(&tl_empty[s11_]);  // this warp is done with the slot
                }
                {  // the pieces' sums meet in global memory, two at a time
                    float4 *const sp15_ = tl_split_partials + ((long long)tl_at * 3 * 2 + tl_wg) * 4096 + tid % 128;
                    // level 0: 3 nodes of 1 piece
                    if (tl_piece != 2) {  // the last node has no partner here
                        #pragma unroll
                        for (int q16_ = 0; q16_ < 128; q16_ += 4) {
                            __stcg(sp15_ + (tl_piece) * 8192 + q16_ / 4 * 128, make_float4(acc[q16_], acc[q16_ + 1], acc[q16_ + 2], acc[q16_ + 3]));
                        }
                        if (!tl_split_last(&tl_split_count[((tl_at * 2 + 0) * 3 + tl_piece / 2) * 2 + tl_wg], 2, 2 + tl_wg)) continue;
                        #pragma unroll
                        for (int q18_ = 0; q18_ < 128; q18_ += 4) {
                            const float4 w19_ = __ldcg(sp15_ + (tl_piece ^ 1) * 8192 + q18_ / 4 * 128);
                            acc[q18_] += w19_.x; acc[q18_ + 1] += w19_.y; acc[q18_ + 2] += w19_.z; acc[q18_ + 3] += w19_.w;
                        }
                    }
                    // level 1: 2 nodes of 2 pieces
                    #pragma unroll
                    for (int q20_ = 0; q20_ < 128; q20_ += 4) {
                        __stcg(sp15_ + ((tl_piece >> 1) << 1) * 8192 + q20_ / 4 * 128, make_float4(acc[q20_], acc[q20_ + 1], acc[q20_ + 2], acc[q20_ + 3]));
                    }
                    if (!tl_split_last(&tl_split_count[((tl_at * 2 + 1) * 3 + (tl_piece >> 1) / 2) * 2 + tl_wg], 2, 2 + tl_wg)) continue;
                    #pragma unroll
                    for (int q22_ = 0; q22_ < 128; q22_ += 4) {
                        const float4 w23_ = __ldcg(sp15_ + (((tl_piece >> 1) ^ 1) << 1) * 8192 + q22_ / 4 * 128);
                        acc[q22_] += w23_.x; acc[q22_ + 1] += w23_.y; acc[q22_ + 2] += w23_.z; acc[q22_ + 3] += w23_.w;
                    }
                }
            }
            {
                unsigned char *const st24_ = tl_smem + 148480 + tl_wg * 32768;  // this warpgroup's rows of the staging tile
                if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                #pragma unroll
                for (int q25_ = 0; q25_ < 128; q25_ += 2) {
                    const int r27_ = (warp / 1 * 16 + (q25_) / 128 * 16 + ((q25_) / 2 % 2) * 8 + lane / 4) % 64, c28_ = (warp % 1 * 256 + (q25_) / 4 % 32 * 8 + (lane % 4) * 2 + (q25_) % 2);
                    union { unsigned v; __half e[2]; } v26_;
                    v26_.e[0] = tl_from_float<__half>((float)((acc[q25_ + 0])));
                    v26_.e[1] = tl_from_float<__half>((float)((acc[q25_ + 1])));
                    *(unsigned *)(st24_ + c28_ / 64 * 8192 + tl_tma_swizzle(r27_, c28_ % 64 * 2, 128)) = v26_.v;
                }
                tl_fence_proxy_async();  // the writes, visible to the TMA unit
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                if (tid % 128 == 0) {
                    tl_tma_store<2>(&tl_tmap2, st24_ + 0, (int)((bx * 256)) + 0, (int)((by * 128)) + tl_wg * 64);
                    tl_tma_store<2>(&tl_tmap2, st24_ + 8192, (int)((bx * 256)) + 64, (int)((by * 128)) + tl_wg * 64);
                    tl_tma_store<2>(&tl_tmap2, st24_ + 16384, (int)((bx * 256)) + 128, (int)((by * 128)) + tl_wg * 64);
                    tl_tma_store<2>(&tl_tmap2, st24_ + 24576, (int)((bx * 256)) + 192, (int)((by * 128)) + tl_wg * 64);
                    tl_tma_store_commit();
                }
            }
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
