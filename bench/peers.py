#!/usr/bin/env python3
"""peers.py - the peers tilec is measured against, timed in the same run on
the same GPU: cuBLAS (torch.matmul; torch._scaled_mm for fp8, torch._int_mm for int8), torch SDPA, copy bandwidth, torch.softmax,
F.rms_norm, F.layer_norm. Prints one JSON object per workload on stdout.

Method as tilec's profiler: warm-up, L2 flushed (a buffer the size of L2
rewritten) before every sample, CUDA events per sample, median of samples
until the relative spread is small or 2 s have passed; the SM clock read
before every tenth sample (through NVML, where torch can reach it: tilec
uses a clock kernel) and the median of the samples at full clock, as
tilec's report gives them (clockstats.py)."""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clockstats  # noqa: E402

dev = torch.device("cuda")
props = torch.cuda.get_device_properties(dev)
l2 = getattr(props, "L2_cache_size", 60 << 20) or (60 << 20)
flush_buf = torch.empty(l2, dtype=torch.uint8, device=dev)


def sm_clock_mhz():
    """The SM clock now (MHz) as NVML reports it, or None where torch cannot
    read it (torch.cuda.clock_rate needs pynvml)."""
    try:
        return float(torch.cuda.clock_rate(dev)) or None
    except Exception:  # no pynvml, an older torch, no NVML: not measured
        return None


def bench(fn, max_time=2.0, max_noise=0.005):
    """clockstats.summarise of the samples of fn."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times, clocks, clock = [], [], None
    t0 = time.time()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    while True:
        if len(times) % 10 == 0:
            clock = sm_clock_mhz() or clock  # a failed reading keeps the last good one
        flush_buf.fill_(len(times) & 0xFF)
        # the GPU waits ~100 us here while Python enqueues start, fn and end:
        # without it a peer whose dispatch takes longer than the flush (fp8's
        # torch._scaled_mm) was timed with the GPU idle between start and
        # its kernel (4096 x 4096 x 1008 fp8 medians of 0.09-0.14 ms run
        # to run)
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(200_000)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
        clocks.append(clock)
        if len(times) >= 10:
            mean = statistics.fmean(times)
            if statistics.pstdev(times) / mean <= max_noise or time.time() - t0 > max_time:
                break
    return clockstats.summarise(times, clocks)


def emit(name, stats, flops=None, nbytes=None, **extra):
    ms = stats["median_ms"]
    rec = {"workload": name, "median_ms": ms, "device": props.name, "samples": stats["samples"],
           "sm_clock_mhz": stats["sm_clock_mhz"], "full_clock_samples": stats["full_clock_samples"],
           "full_clock_median_ms": stats["full_clock_median_ms"]}
    if flops:
        rec["tflops"] = flops / ms / 1e9
    if nbytes:
        rec["gbps"] = nbytes / ms / 1e6
    rec.update(extra)
    print(json.dumps(rec), flush=True)


def gemm(n, dtype, name):
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    emit(name, bench(lambda: torch.matmul(a, b)), flops=2 * n ** 3, peer="cublas")


def fp8_gemm(n, name):
    """torch._scaled_mm: cuBLASLt's fp8 (e4m3) GEMM with A row-major M x K
    and B given as N x K (its transpose column-major), bf16 out, the layout
    and the scalar scale of examples/gemm_fp8.tile."""
    a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
    one = torch.tensor(1.0, device=dev)
    half = torch.tensor(0.5, device=dev)
    run = lambda: torch._scaled_mm(a, b.t(), scale_a=half, scale_b=one, out_dtype=torch.bfloat16)
    emit(name, bench(run), flops=2 * n ** 3, peer="cublas fp8")


def int8_gemm(n, name):
    """torch._int_mm: cuBLASLt's int8 GEMM into int32, A row-major M x K and
    B given as N x K (its transpose column-major), the layout of
    tests/frontend/valid/v_int8_gemm.tile's gemm_s8."""
    a = torch.randint(-4, 5, (n, n), device=dev, dtype=torch.int8)
    b = torch.randint(-4, 5, (n, n), device=dev, dtype=torch.int8)
    emit(name, bench(lambda: torch._int_mm(a, b.t())), flops=2 * n ** 3, peer="cublas int8")


def gemm_mnk(m, n, k, name, peer="cublas"):
    a = torch.randn(m, k, device=dev, dtype=torch.float16)
    b = torch.randn(k, n, device=dev, dtype=torch.float16)
    emit(name, bench(lambda: torch.matmul(a, b)), flops=2 * m * n * k, peer=peer)


def fp8_gemm_mnk(m, n, k, name):
    """fp8_gemm at M x N x K; cuBLASLt's fp8 GEMM needs K a multiple of 16,
    so a K that is not (1000, 3000) is timed at the next one up (1008,
    3008: the peer does up to 0.8 % more work); flops count the K asked."""
    kp = (k + 15) // 16 * 16
    a = torch.randn(m, kp, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, kp, device=dev).to(torch.float8_e4m3fn)
    one = torch.tensor(1.0, device=dev)
    run = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    emit(name, bench(run), flops=2 * m * n * k, peer="cublas fp8", k_timed=kp)


def v2_peers():
    """The peers of the version-2 examples (issues 35 and 36)."""
    x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    y = torch.empty_like(x)

    def copy_same(wl, moved):
        xs, ys = x[: moved // 2], y[: moved // 2]
        emit(wl, bench(lambda: ys.copy_(xs)), nbytes=moved, peer="copy, same bytes")

    # flash_decoding.tile's defaults: one query token, B 64, H 32, G 8 KV heads, S 8192, D 128
    b, h, g, s, d = 64, 32, 8, 8192, 128
    q = torch.randn(b, h, 1, d, device=dev, dtype=torch.float16)
    k = torch.randn(b, g, s, d, device=dev, dtype=torch.float16)
    v = torch.randn_like(k)
    moved = 2 * k.numel() * 2 + 2 * q.numel() * 2
    emit("decode_gqa", bench(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)), nbytes=moved,
         peer="SDPA enable_gqa")
    copy_same("decode_gqa", moved)
    gqa_peers()
    attn_bwd_peers()
    # layernorm backward 8192 x 4096 f16: X, DY read, DX written (DW, DB: N floats)
    m, n = 8192, 4096
    xx = torch.randn(m, n, device=dev, dtype=torch.float16, requires_grad=True)
    w = torch.randn(n, device=dev, dtype=torch.float16, requires_grad=True)
    bb = torch.randn(n, device=dev, dtype=torch.float16, requires_grad=True)
    dy = torch.randn(m, n, device=dev, dtype=torch.float16)
    out = F.layer_norm(xx, (n,), w, bb, 1e-5)
    moved = 3 * m * n * 2
    emit("layernorm_bwd_8192x4096", bench(lambda: torch.autograd.grad(out, (xx, w, bb), dy, retain_graph=True)),
         nbytes=moved, peer="F.layer_norm backward")
    copy_same("layernorm_bwd_8192x4096", moved)
    # dropout 8192 x 4096 f16
    xd = torch.randn(m, n, device=dev, dtype=torch.float16)
    emit("dropout_8192x4096", bench(lambda: F.dropout(xd, 0.1, training=True)), nbytes=2 * m * n * 2, peer="F.dropout")
    copy_same("dropout_8192x4096", 2 * m * n * 2)
    # cumsum 8192 x 4096: f16 in, f32 out
    emit("cumsum_8192x4096", bench(lambda: torch.cumsum(xd, dim=-1, dtype=torch.float32)), nbytes=6 * m * n,
         peer="torch.cumsum")
    copy_same("cumsum_8192x4096", 6 * m * n)
    # the MoE expert GEMM: 8 experts of 4096 rows each, K 4096, N 14336, as
    # cuBLAS on rows already grouped (the gather not counted for the peer)
    e, rows, kk, nn = 8, 4096, 4096, 14336
    xs = torch.randn(e, rows, kk, device=dev, dtype=torch.float16)
    ws = torch.randn(e, kk, nn, device=dev, dtype=torch.float16)
    emit("moe_gemm", bench(lambda: torch.bmm(xs, ws)), flops=2 * e * rows * kk * nn, peer="cublas bmm (grouped rows)")
    del xs, ws
    # small and ragged GEMMs, fp8 at K 1000 and 3000
    for mm, nn, kk in ((1000, 1500, 700), (3000, 2000, 1000), (2048, 2048, 2048)):
        gemm_mnk(mm, nn, kk, f"gemm_f16_{mm}x{nn}x{kk}")
    for kk in (1000, 3000):
        fp8_gemm_mnk(4096, 4096, kk, f"gemm_fp8_4096x4096x{kk}")
    w4a16_peers()


def gqa_peers():
    """Attention forward BSHD with grouped KV heads (flash_attn_bshd_gqa.tile):
    B 8, S 4096, H 32, HK 8, D 128; SDPA gets them as (B, heads, S, D),
    contiguous (its fastest form)."""
    b, s, h, hk, d = 8, 4096, 32, 8, 128
    q = torch.randn(b, h, s, d, device=dev, dtype=torch.float16)
    k = torch.randn(b, hk, s, d, device=dev, dtype=torch.float16)
    v = torch.randn_like(k)
    for causal in (False, True):
        f = 4 * b * h * s * s * d / (2 if causal else 1)
        emit(f"gqa_bshd_s4096_d128{'_causal' if causal else ''}",
             bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)), flops=f,
             peer="SDPA enable_gqa")
    del q, k, v


def w4a16_peers():
    """W4A16's peer: cuBLAS's f16 GEMM on the weights already dequantised
    (N x K), at M 16 (gemm_w4a16_decode.tile) and 4096 (gemm_w4a16.tile)."""
    for mm in (16, 4096):
        a = torch.randn(mm, 8192, device=dev, dtype=torch.float16)
        wt = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
        emit(f"gemm_w4a16_m{mm}", bench(lambda: torch.matmul(a, wt.t())), flops=2 * mm * 8192 * 8192,
             peer="cublas f16 (dequantised weights)")


def attn_bwd_peers():
    """Attention backward, B 8, H 16, S 4096, D 128 (flash_attn_bwd.tile at
    the same sizes): dQ, dK, dV from a saved forward; FLOPs as flash
    attention counts them, 2.5x the forward's (five S x S x D products)."""
    b, h, s, d = 8, 16, 4096, 128
    for causal in (False, True):
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=torch.float16, requires_grad=True) for _ in range(3))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        do = torch.randn_like(o)
        f = 2.5 * 4 * b * h * s * s * d / (2 if causal else 1)
        emit(f"attn_bwd_s4096_d128{'_causal' if causal else ''}",
             bench(lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True)), flops=f, peer="SDPA backward")
        del q, k, v, o, do


def triton_gemm(n, name):
    """A plain Triton matmul (128 x 256 x 64 tiles, 3 stages, 8 warps: the
    configuration GPU.md lists), written here so the peer is known code."""
    import triton
    import triton.language as tl

    @triton.jit
    def matmul(a, b, c, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0) // tl.cdiv(n, BN), tl.program_id(0) % tl.cdiv(n, BN)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, n, BK):
            x = tl.load(a + rm[:, None] * n + (k0 + rk)[None, :])
            y = tl.load(b + (k0 + rk)[:, None] * n + rn[None, :])
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * n + rn[None, :], acc.to(tl.float16))

    a = torch.randn(n, n, device=dev, dtype=torch.float16)
    b = torch.randn(n, n, device=dev, dtype=torch.float16)
    c = torch.empty_like(a)
    grid = ((n // 128) * (n // 256),)
    run = lambda: matmul[grid](a, b, c, n, BM=128, BN=256, BK=64, num_stages=3, num_warps=8)
    run()
    torch.testing.assert_close(c[:64, :64].float(), (a[:64].float() @ b[:, :64].float()), rtol=2e-2, atol=1e-1)
    emit(name, bench(run), flops=2 * n ** 3, peer="triton")


def main(which):
    if "gemm" in which:
        gemm(4096, torch.float16, "gemm_f16_4096")
        gemm(8192, torch.float16, "gemm_f16_8192")
        gemm(4096, torch.bfloat16, "gemm_bf16_4096")
        gemm(8192, torch.bfloat16, "gemm_bf16_8192")
    if "fp8" in which:
        try:
            fp8_gemm(4096, "gemm_fp8_4096")
            fp8_gemm(8192, "gemm_fp8_8192")
        except (AttributeError, RuntimeError, TypeError) as e:  # a torch without fp8 matmuls
            print(f"fp8 peer not measured: {e}", file=sys.stderr)
    if "int8" in which:
        try:
            int8_gemm(4096, "gemm_s8_4096")
        except (AttributeError, RuntimeError, TypeError) as e:  # a torch without int8 matmuls
            print(f"int8 peer not measured: {e}", file=sys.stderr)
    if "triton" in which:
        triton_gemm(4096, "gemm_f16_4096")
        triton_gemm(8192, "gemm_f16_8192")
    if "copy" in which:
        x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
        y = torch.empty_like(x)
        emit("copy_1GiB", bench(lambda: y.copy_(x)), nbytes=2 * x.numel(), peer="copy")
        # the same bytes as each memory-bound workload moves (read + write):
        # small transfers do not reach the 1 GiB figure (launch and ramp)
        for wl, moved in (("softmax_f16_32768x4096", 2 * 2 * 32768 * 4096), ("rmsnorm_bf16_16384x8192", 2 * 2 * 16384 * 8192),
                          ("layernorm_f16_8192x4096", 2 * 2 * 8192 * 4096),
                          ("layernorm_f16_32768x4096", 2 * 2 * 32768 * 4096), ("add_f16_2e26", 3 * 2 * (1 << 26)),
                          ("swiglu_f16_8192x11008", 3 * 2 * 8192 * 11008)):
            xs, ys = x[: moved // 2], y[: moved // 2]
            emit(wl, bench(lambda: ys.copy_(xs)), nbytes=moved, peer="copy, same bytes")
    if "softmax" in which:
        x = torch.randn(32768, 4096, device=dev, dtype=torch.float16)
        emit("softmax_f16_32768x4096", bench(lambda: torch.softmax(x, dim=-1)), nbytes=2 * 2 * x.numel(), peer="torch.softmax")
    if "norm" in which:
        x = torch.randn(16384, 8192, device=dev, dtype=torch.bfloat16)
        w = torch.randn(8192, device=dev, dtype=torch.bfloat16)
        emit("rmsnorm_bf16_16384x8192", bench(lambda: F.rms_norm(x, (8192,), w, 1e-6)), nbytes=2 * 2 * x.numel(), peer="F.rms_norm")
        w = torch.randn(4096, device=dev, dtype=torch.float16)
        for rows in (8192, 32768):
            x = torch.randn(rows, 4096, device=dev, dtype=torch.float16)
            emit(f"layernorm_f16_{rows}x4096", bench(lambda: F.layer_norm(x, (4096,), w, w, 1e-5)), nbytes=2 * 2 * x.numel(),
                 peer="F.layer_norm")
    if "v2" in which:
        v2_peers()
    elif "attn_bwd" in which:
        attn_bwd_peers()
    elif "w4a16" in which:
        w4a16_peers()
    elif "gqa" in which:
        gqa_peers()
    if "attn" in which:
        # (batch, heads, sequence, head dim) as bench/run.sh gives them to examples/flash_attn.tile
        for b, h, s, d in ((8, 16, 4096, 128), (2, 16, 16384, 128), (8, 16, 4096, 64), (8, 16, 4096, 96)):
            for causal in (False, True):
                q = torch.randn(b, h, s, d, device=dev, dtype=torch.float16)
                k, v = torch.randn_like(q), torch.randn_like(q)
                f = 4 * b * h * s * s * d / (2 if causal else 1)
                name = f"attn_f16_s{s}_d{d}{'_causal' if causal else ''}"
                emit(name, bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)), flops=f,
                     peer="torch SDPA")
                # torch picks a backend by its own rules; the fastest one it
                # has is the stricter peer
                best = None
                for backend, stats in sdpa_backends(q, k, v, causal):
                    if best is None or stats["median_ms"] < best[1]["median_ms"]:
                        best = (backend, stats)
                if best:
                    emit(name, best[1], flops=f, peer="SDPA best backend", backend=best[0])


def sdpa_backends(q, k, v, causal):
    """(backend, bench's statistics) for every SDPA backend that runs these inputs."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return []
    out = []
    for name in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
        backend = getattr(SDPBackend, name, None)
        if backend is None:
            continue
        try:
            with sdpa_kernel([backend]):
                out.append((name.split("_")[0].lower(),
                            bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))))
        except RuntimeError:  # not available for these inputs or this build
            pass
    return out


if __name__ == "__main__":
    main(sys.argv[1:] or ["gemm", "fp8", "triton", "copy", "softmax", "norm", "attn"])
