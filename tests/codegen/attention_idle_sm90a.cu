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
    float m[2];  // one value per row of a 12x1-warp mma accumulator
    unsigned long long *const tl_full = (unsigned long long *)(tl_smem + 147456), *const tl_empty = tl_full + 2;
    unsigned long long *const tl_preload = tl_full + 4, *const tl_preload_free = tl_full + 5;
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
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");  // to the consumers
        if (tid == 384) {
            int tl_it = 0;
            for (int tl_n = 0, tl_tile = blockIdx.x; tl_tile < 2816;
                 ++tl_n, tl_tile = tl_n * gridDim.x + (tl_n & 1 ? gridDim.x - 1 - blockIdx.x : blockIdx.x)) {
                const int tl_lin = tl_tile < 2688  // the tiles with idle warpgroups last
                    ? (tl_tile % 21 + 22 * (tl_tile / 21))
                    : (21 + 22 * (tl_tile - 2688));
                const int bx = (int)(tl_lin % 22);
                const int by = (int)(tl_lin / 22 % 16);
                const int bz = (int)(tl_lin / 352);
                __builtin_assume(bx >= 0 && bx < 22);
                __builtin_assume(by >= 0 && by < 16);
                __builtin_assume(bz >= 0 && bz < 8);
                if (tl_n > 0) tl_mbar_wait(tl_preload_free, (tl_n - 1) & 1);
                tl_mbar_arrive_expect_tx(tl_preload, 49152);
                tl_tma_load<4>((unsigned char *)Q_s + 0, &tl_tmap0, tl_preload, 0, (int)(0) + 0, (int)((bx * 192)), (int)(by), (int)(bz));
                tl_tma_load<4>((unsigned char *)Q_s + 24576, &tl_tmap0, tl_preload, 0, (int)(0) + 64, (int)((bx * 192)), (int)(by), (int)(bz));
                const int n0_ = 43;
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
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 152;\n" ::: "memory");  // what the producer freed
    const int tl_wg = __shfl_sync(0xffffffffu, tid / 128, 0);  // this consumer warpgroup
    const unsigned long long tl_adesc_Q_s = tl_wgmma_desc((const unsigned char *)Q_s + tl_wg * 8192, 16, 1024, 1);
    const unsigned long long tl_kdesc_K_s = tl_wgmma_desc((const unsigned char *)K_s, 16, 1024, 1);
    const unsigned long long tl_ndesc_V_s = tl_wgmma_desc(V_s, 12288, 1024, 1);
    int tl_it = 0;  // pipeline iterations so far: the stage and phase to wait for
    for (int tl_n = 0, tl_tile = blockIdx.x; tl_tile < 2816;
         ++tl_n, tl_tile = tl_n * gridDim.x + (tl_n & 1 ? gridDim.x - 1 - blockIdx.x : blockIdx.x)) {
        const int tl_lin = tl_tile < 2688  // the tiles with idle warpgroups last
            ? (tl_tile % 21 + 22 * (tl_tile / 21))
            : (21 + 22 * (tl_tile - 2688));
        const int bx = (int)(tl_lin % 22);
        const int by = (int)(tl_lin / 22 % 16);
        const int bz = (int)(tl_lin / 352);
        __builtin_assume(bx >= 0 && bx < 22);
        __builtin_assume(by >= 0 && by < 16);
        __builtin_assume(bz >= 0 && bz < 8);
        if (((bx * 192)) + tl_wg * 64 >= 4096) {  // this warpgroup's rows are all past the stores' edge: it only keeps the pipeline going
            tl_mbar_wait(tl_preload, tl_n & 1);  // this tile's preloads (then the next may come)
            const int n2_ = 43;
            for (int kb4_ = 0; kb4_ < n2_; ++kb4_, ++tl_it) {
                const int s3_ = tl_it % 2;
                tl_mbar_wait(&tl_full[s3_], (tl_it / 2) & 1);  // the tiles have landed
                if (lane == 0) tl_mbar_arrive(&tl_empty[s3_]);  // this warp is done with the slot
            }
            if (lane == 0) tl_mbar_arrive(tl_preload_free);
        } else {
            tl_mbar_wait(tl_preload, tl_n & 1);  // the TMA preloads have landed
            #pragma unroll
            for (int r5_ = 0; r5_ < 64; ++r5_) o[r5_] = (float)(0);
            #pragma unroll
            for (int r6_ = 0; r6_ < 2; ++r6_) m[r6_] = (float)(-__int_as_float(0x7f800000));
            {
                const int n7_ = 43;
                for (int kb = 0; kb < n7_; ++kb, ++tl_it) {
                    const int s8_ = tl_it % 2;
                    tl_mbar_wait(&tl_full[s8_], (tl_it / 2) & 1);  // the tiles have landed
                    {
                        tl_wgmma_fence();
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 0), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 0), 0);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 32), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 32), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 64), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 64), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 96), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 96), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24576), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 12288), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24608), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 12320), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24640), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 12352), 1);
                        tl_wgmma_m64n96k16_f16_ss_kb(s, tl_wgmma_desc_at(tl_adesc_Q_s, 24672), tl_wgmma_desc_at(tl_kdesc_K_s, s8_ * 24576 + 12384), 1);
                        tl_wgmma_commit();
                        tl_wgmma_wait<0>();
                        #pragma unroll
                        for (int r9_ = 0; r9_ < 48; ++r9_) tl_pin(s[r9_]);
                    }
                    {
                        float p10_[2];
                        p10_[0] = -__int_as_float(0x7f800000);
                        p10_[0] = fmaxf(p10_[0], (float)(s[0]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[1]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[4]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[5]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[8]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[9]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[12]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[13]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[16]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[17]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[20]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[21]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[24]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[25]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[28]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[29]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[32]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[33]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[36]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[37]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[40]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[41]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[44]));
                        p10_[0] = fmaxf(p10_[0], (float)(s[45]));
                        p10_[0] = fmaxf(p10_[0], __shfl_xor_sync(0xffffffffu, p10_[0], 1));
                        p10_[0] = fmaxf(p10_[0], __shfl_xor_sync(0xffffffffu, p10_[0], 2));
                        p10_[1] = -__int_as_float(0x7f800000);
                        p10_[1] = fmaxf(p10_[1], (float)(s[2]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[3]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[6]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[7]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[10]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[11]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[14]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[15]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[18]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[19]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[22]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[23]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[26]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[27]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[30]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[31]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[34]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[35]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[38]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[39]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[42]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[43]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[46]));
                        p10_[1] = fmaxf(p10_[1], (float)(s[47]));
                        p10_[1] = fmaxf(p10_[1], __shfl_xor_sync(0xffffffffu, p10_[1], 1));
                        p10_[1] = fmaxf(p10_[1], __shfl_xor_sync(0xffffffffu, p10_[1], 2));
                        m[0] = (float)(fmaxf((float)(m[0]), p10_[0]));
                        m[1] = (float)(fmaxf((float)(m[1]), p10_[1]));
                    }
                    {
                        #pragma unroll
                        for (int r11_ = 0; r11_ < 48; ++r11_) {
                            const int i = (warp / 1 * 16 + (r11_) / 48 * 16 + ((r11_) / 2 % 2) * 8 + lane / 4);
                            const int j = (warp % 1 * 96 + (r11_) / 4 % 12 * 8 + (lane % 4) * 2 + (r11_) % 2);
                            s[r11_] = (float)(tl_exp2((float)(((s[r11_]) - (m[((r11_) / 48 * 2 + ((r11_) / 2) % 2)])))));
                        }
                    }
                    #pragma unroll
                    for (int r12_ = 0; r12_ < 48; ++r12_) p[r12_] = tl_from_float<__half>((float)((s[r12_])));
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
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[0][0], tl_a_regs[0][1], tl_a_regs[0][2], tl_a_regs[0][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 0), 1);
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[1][0], tl_a_regs[1][1], tl_a_regs[1][2], tl_a_regs[1][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 2048), 1);
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[2][0], tl_a_regs[2][1], tl_a_regs[2][2], tl_a_regs[2][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 4096), 1);
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[3][0], tl_a_regs[3][1], tl_a_regs[3][2], tl_a_regs[3][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 6144), 1);
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[4][0], tl_a_regs[4][1], tl_a_regs[4][2], tl_a_regs[4][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 8192), 1);
                        tl_wgmma_m64n128k16_f16_rs_nb(o, tl_a_regs[5][0], tl_a_regs[5][1], tl_a_regs[5][2], tl_a_regs[5][3], tl_wgmma_desc_at(tl_ndesc_V_s, s8_ * 24576 + 10240), 1);
                        tl_wgmma_commit();
                        tl_wgmma_wait<0>();
                        #pragma unroll
                        for (int r13_ = 0; r13_ < 64; ++r13_) tl_pin(o[r13_]);
                    }
                    if (lane == 0) tl_mbar_arrive(&tl_empty[s8_]);  // this warp is done with the slot
                }
                if (lane == 0) tl_mbar_arrive(tl_preload_free);  // the next tile's preloads may come
            }
            {
                unsigned char *const st14_ = tl_smem + 148480 + tl_wg * 16384;  // this warpgroup's rows of the staging tile
                if (tid % 128 == 0) tl_tma_store_wait_read();  // the previous stores have read it
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                #pragma unroll
                for (int q15_ = 0; q15_ < 64; q15_ += 2) {
                    const int r17_ = (warp / 1 * 16 + (q15_) / 64 * 16 + ((q15_) / 2 % 2) * 8 + lane / 4) % 64, c18_ = (warp % 1 * 128 + (q15_) / 4 % 16 * 8 + (lane % 4) * 2 + (q15_) % 2);
                    union { unsigned v; __half e[2]; } v16_;
                    v16_.e[0] = tl_from_float<__half>((float)((o[q15_ + 0])));
                    v16_.e[1] = tl_from_float<__half>((float)((o[q15_ + 1])));
                    *(unsigned *)(st14_ + c18_ / 64 * 8192 + tl_tma_swizzle(r17_, c18_ % 64 * 2, 128)) = v16_.v;
                }
                tl_fence_proxy_async();  // the writes, visible to the TMA unit
                asm volatile("bar.sync %0, 128;\n" ::"r"(2 + tl_wg) : "memory");  // this warpgroup
                if (tid % 128 == 0) {
                    tl_tma_store<4>(&tl_tmap3, st14_ + 0, (int)(0) + 0, (int)((bx * 192)) + tl_wg * 64, (int)(by), (int)(bz));
                    tl_tma_store<4>(&tl_tmap3, st14_ + 8192, (int)(0) + 64, (int)((bx * 192)) + tl_wg * 64, (int)(by), (int)(bz));
                    tl_tma_store_commit();
                }
            }
        }
    }
    if (tid % 128 == 0) tl_tma_store_wait_all();  // the last TMA stores
#endif
}
