extern "C" __global__ void __launch_bounds__(512, 1) tilec_attn_8823f569(const __half *__restrict__ Q, const __half *__restrict__ K, const __half *__restrict__ V, __half *__restrict__ O, const __grid_constant__ tl_tensor_map tl_tmap0, const __grid_constant__ tl_tensor_map tl_tmap1, const __grid_constant__ tl_tensor_map tl_tmap2, const __grid_constant__ tl_tensor_map tl_tmap3) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __trap();  // built for sm_90a only
#else
    extern __shared__ __align__(1024) unsigned char tl_smem_raw[];
    unsigned char *const tl_smem = tl_smem_raw + ((1024u - (tl_smem_addr(tl_smem_raw) & 1023u)) & 1023u);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    (void)lane; (void)warp;
    __builtin_assume(tid >= 0 && tid < 512);
    __half *const Q_s = (__half *)(tl_smem + 0);  // 1 stage, swizzle 8
    __half *const K_s = (__half *)(tl_smem + 49152);  // 2 stages, swizzle 8
    __half *const V_s = (__half *)(tl_smem + 98304);  // 2 stages, swizzle 8
    float s[48];  // the mma accumulator layout with 12x1 warps of 16x96
    __half p[48];  // the mma accumulator layout with 12x1 warps of 16x96
    float o[64];  // the mma accumulator layout with 12x1 warps of 16x128
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 147456), *const tl_empty = tl_full + 2;
    unsigned long long *const tl_preload = tl_full + 4, *const tl_preload_free = tl_full + 5;
    __shared__ int tl_next_tile_slot;
    int *const tl_next_tile = &tl_next_tile_slot;  // the next tile (the longest-first order)
    if (tid == 0) {
        #pragma unroll
        for (int s = 0; s < 2; ++s) {
            tl_mbar_init(&tl_full[s], 1);  // the producer's arrive + the TMA bytes
            tl_mbar_init(&tl_empty[s], 12);  // one arrive per consumer warp
        }
        tl_mbar_init(tl_preload, 1);
        tl_mbar_init(tl_preload_free, 12);  // a persistent block's consumer warps, done with a tile's preloads
        tl_mbar_fence_init();
    }
    __syncthreads();
    if (tid >= 384) {  // the producer warpgroup: its first thread issues every TMA copy
        asm volatile("setmaxnreg.dec.sync.aligned.u32 56;\n" ::: "memory");  // to the consumers
        if (tid == 384) {
            int tl_it = 0;
            int tl_n = 0;  // after the loop, the tiles this block ran
            for (int tl_tile = blockIdx.x; tl_tile < 2816; ++tl_n, tl_tile = tl_tiles_draw(tl_tile_count)) {
                const int tl_s = tl_tile - 176;  // past the first section (8 units) where >= 0
                const int tl_w = tl_s < 0 ? 8 : 15, tl_r = tl_s < 0 ? tl_tile : tl_s % 330;  // longest first
                const int tl_x = 21 - (tl_r / tl_w), tl_u = (tl_s < 0 ? 0 : 8 + tl_s / 330 * 15) + tl_r % tl_w;
                const int tl_lin = (tl_x + 22 * tl_u);
                tl_tiles_publish(tl_next_tile, tl_n, tl_lin, 5, 6, 416);  // to the consumers
                const int bx = (int)(tl_lin % 22);
                const int by = (int)(tl_lin / 22 % 16);
                const int bz = (int)(tl_lin / 352);
                __builtin_assume(bx >= 0 && bx < 22);
                __builtin_assume(by >= 0 && by < 16);
                __builtin_assume(bz >= 0 && bz < 8);
                const int n_blocks = min((long long)(tl_ceildiv(((bx + 1) * 192), 96)), (long long)(43));
                if (tl_n > 0) tl_mbar_wait(tl_preload_free, (tl_n - 1) & 1);
                tl_mbar_arrive_expect_tx(tl_preload, 49152);
                tl_tma_load<4>((unsigned char *)Q_s + 0, &tl_tmap0, tl_preload, 0, (int)(0) + 0, (int)((bx * 192)), (int)(by), (int)(bz));
                tl_tma_load<4>((unsigned char *)Q_s + 24576, &tl_tmap0, tl_preload, 0, (int)(0) + 64, (int)((bx * 192)), (int)(by), (int)(bz));
                const int n0_ = n_blocks;
                for (int kb = 0; kb < n0_; ++kb, ++tl_it) {
                    const int s1_ = tl_it % 2;
                    if (tl_it >= 2) tl_mbar_wait(&tl_empty[s1_], (tl_it / 2 - 1) & 1);  // the consumers freed the slot
                    tl_mbar_arrive_expect_tx(&tl_full[s1_], 49152);
                    tl_tma_load<4>((unsigned char *)K_s + s1_ * 24576 + 0, &tl_tmap1, &tl_full[s1_], 0, (int)(0) + 0, (int)((kb * 96)), (int)(by), (int)(bz));
                    tl_tma_load<4>((unsigned char *)K_s + s1_ * 24576 + 12288, &tl_tmap1, &tl_full[s1_], 0, (int)(0) + 64, (int)((kb * 96)), (int)(by), (int)(bz));
                    tl_tma_load<4>((unsigned char *)V_s + s1_ * 24576 + 0, &tl_tmap2, &tl_full[s1_], 0, (int)(0) + 0, (int)((kb * 96)), (int)(by), (int)(bz));
                    tl_tma_load<4>((unsigned char *)V_s + s1_ * 24576 + 12288, &tl_tmap2, &tl_full[s1_], 0, (int)(0) + 64, (int)((kb * 96)), (int)(by), (int)(bz));
                }
            }
            tl_tiles_publish(tl_next_tile, tl_n, 2816, 5, 6, 416);  // no more tiles
            tl_tiles_done(tl_tile_count);  // the counter reads 0 again for the next launch
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 152;\n" ::: "memory");  // what the producer freed
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_Q_s = tl_wgmma_desc((const unsigned char *)Q_s + tl_wg * 8192, 16, 1024, 1);
    const unsigned long long tl_kdesc_K_s = tl_wgmma_desc((const unsigned char *)K_s, 16, 1024, 1);
    const unsigned long long tl_ndesc_V_s = tl_wgmma_desc(V_s, 12288, 1024, 1);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    for (int tl_n = 0, tl_tile = tl_tiles_take(tl_next_tile, 2816, 5, 6, 416); tl_tile < 2816; ++tl_n, tl_tile = tl_tiles_take(tl_next_tile, 2816, 5, 6, 416)) {
        const int bx = (int)(tl_tile % 22);
        const int by = (int)(tl_tile / 22 % 16);
        const int bz = (int)(tl_tile / 352);
        __builtin_assume(bx >= 0 && bx < 22);
        __builtin_assume(by >= 0 && by < 16);
        __builtin_assume(bz >= 0 && bz < 8);
        tl_mbar_wait(tl_preload, tl_n & 1);  // the TMA preloads have landed
        #pragma unroll
        for (int r2_ = 0; r2_ < 64; ++r2_) o[r2_] = (float)(0);
        const int n_blocks = min((long long)(tl_ceildiv(((bx + 1) * 192), 96)), (long long)(43));
        {
            const int n3_ = n_blocks;
            for (int kb = 0; kb < n3_; ++kb, ++tl_it) {
                const int s4_ = tl_it % 2;
                tl_mbar_wait(&tl_full[s4_], (tl_it / 2) & 1);  // the tiles have landed
                {
                    tl_wgmma_fence();
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 0), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 0), 0);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 32), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 32), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 64), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 64), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 96), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 96), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24576), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 12288), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24608), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 12320), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24640), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 12352), 1);
                    tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24672), tl_wgmma_desc_at(tl_kdesc_K_s, s4_ * 24576 + 12384), 1);
                    tl_wgmma_commit();
                    tl_wgmma_wait<0>();
                    #pragma unroll
                    for (int r5_ = 0; r5_ < 48; ++r5_) tl_pin(s[r5_]);
                }
                #pragma unroll
                for (int r6_ = 0; r6_ < 48; ++r6_) p[r6_] = tl_from_float<__half>((float)((s[r6_])));
                {
                    unsigned tl_a_regs[6][4];
                    tl_a_regs[0][0] = tl_pack_half2(p[0], p[1]);
                    tl_a_regs[0][1] = tl_pack_half2(p[2], p[3]);
                    tl_a_regs[0][2] = tl_pack_half2(p[4], p[5]);
                    tl_a_regs[0][3] = tl_pack_half2(p[6], p[7]);
                    tl_a_regs[1][0] = tl_pack_half2(p[8], p[9]);
                    tl_a_regs[1][1] = tl_pack_half2(p[10], p[11]);
                    tl_a_regs[1][2] = tl_pack_half2(p[12], p[13]);
                    tl_a_regs[1][3] = tl_pack_half2(p[14], p[15]);
                    tl_a_regs[2][0] = tl_pack_half2(p[16], p[17]);
                    tl_a_regs[2][1] = tl_pack_half2(p[18], p[19]);
                    tl_a_regs[2][2] = tl_pack_half2(p[20], p[21]);
                    tl_a_regs[2][3] = tl_pack_half2(p[22], p[23]);
                    tl_a_regs[3][0] = tl_pack_half2(p[24], p[25]);
                    tl_a_regs[3][1] = tl_pack_half2(p[26], p[27]);
                    tl_a_regs[3][2] = tl_pack_half2(p[28], p[29]);
                    tl_a_regs[3][3] = tl_pack_half2(p[30], p[31]);
                    tl_a_regs[4][0] = tl_pack_half2(p[32], p[33]);
                    tl_a_regs[4][1] = tl_pack_half2(p[34], p[35]);
                    tl_a_regs[4][2] = tl_pack_half2(p[36], p[37]);
                    tl_a_regs[4][3] = tl_pack_half2(p[38], p[39]);
                    tl_a_regs[5][0] = tl_pack_half2(p[40], p[41]);
                    tl_a_regs[5][1] = tl_pack_half2(p[42], p[43]);
                    tl_a_regs[5][2] = tl_pack_half2(p[44], p[45]);
                    tl_a_regs[5][3] = tl_pack_half2(p[46], p[47]);
                    tl_wgmma_fence();
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[0][0], tl_a_regs[0][1], tl_a_regs[0][2], tl_a_regs[0][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 0), 1);
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[1][0], tl_a_regs[1][1], tl_a_regs[1][2], tl_a_regs[1][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 2048), 1);
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[2][0], tl_a_regs[2][1], tl_a_regs[2][2], tl_a_regs[2][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 4096), 1);
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[3][0], tl_a_regs[3][1], tl_a_regs[3][2], tl_a_regs[3][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 6144), 1);
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[4][0], tl_a_regs[4][1], tl_a_regs[4][2], tl_a_regs[4][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 8192), 1);
                    tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[5][0], tl_a_regs[5][1], tl_a_regs[5][2], tl_a_regs[5][3], tl_wgmma_desc_at(tl_ndesc_V_s, s4_ * 24576 + 10240), 1);
                    tl_wgmma_commit();
                    tl_wgmma_wait<0>();
                    #pragma unroll
                    for (int r7_ = 0; r7_ < 64; ++r7_) tl_pin(o[r7_]);
                }
                if (lane == 0) tl_mbar_arrive(&tl_empty[s4_]);  // this warp is done with the slot
            }
            if (lane == 0) tl_mbar_arrive(tl_preload_free);  // the next tile's preloads may come
        }
        {
            unsigned char *const st8_ = tl_smem + 148480 + tl_wg * 16384;  // this warpgroup's rows of the staging tile
            if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
            asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
            #pragma unroll
            for (int q9_ = 0; q9_ < 64; q9_ += 2) {
                const int r11_ = (warp / 1 * 16 + (q9_) / 64 * 16 + ((q9_) / 2 % 2) * 8 + lane / 4) % 64, c12_ = (warp % 1 * 128 + (q9_) / 4 % 16 * 8 + (lane % 4) * 2 + (q9_) % 2);
                union { unsigned v; __half e[2]; } v10_;
                v10_.e[0] = tl_from_float<__half>((float)((o[q9_ + 0])));
                v10_.e[1] = tl_from_float<__half>((float)((o[q9_ + 1])));
                *(unsigned *)(st8_ + c12_ / 64 * 8192 + tl_tma_swizzle(r11_, c12_ % 64 * 2, 128)) = v10_.v;
            }
            tl_fence_proxy_async();  // the writes, visible to the TMA unit
            asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
            if (tid % 128 == 0) {
                tl_tma_store<4>(&tl_tmap3, st8_ + 0, (int)(0) + 0, (int)((bx * 192)) + tl_wg * 64, (int)(by), (int)(bz));
                tl_tma_store<4>(&tl_tmap3, st8_ + 8192, (int)(0) + 64, (int)((bx * 192)) + tl_wg * 64, (int)(by), (int)(bz));
                tl_tma_store_commit();
            }
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
