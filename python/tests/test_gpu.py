"""The Python module on a GPU with torch: examples against torch on torch
tensors, scalars at run time (two eps values, one compile), dynamic sizes
(three sizes per example, one compile), torch's current stream and an
explicit one, and the sdpa_model example.
Run: python3 -m unittest discover -s python/tests -p 'test_gpu.py'.
Exits 77 (skipped) without torch or a GPU."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))

try:
    import torch
    import torch.nn.functional as F
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

import tilec  # noqa: E402


def example(name):
    return os.path.join(ROOT, "examples", name + ".tile")


class Examples(unittest.TestCase):
    def test_gemm(self):
        for m, n, k in ((256, 256, 256), (1000, 1016, 1000)):
            kern = tilec.compile(example("gemm"), set={"M": m, "N": n, "K": k})
            a = torch.randn(m, k, device="cuda", dtype=torch.float16)
            b = torch.randn(k, n, device="cuda", dtype=torch.float16)
            c = torch.empty(m, n, device="cuda", dtype=torch.float16)
            kern(a, b, c)
            torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=1e-2, atol=1e-1)

    def test_layernorm_backward_pipeline(self):
        kern = tilec.compile(example("layernorm_bwd"), set={"M": 1000, "N": 1024})
        x = torch.randn(1000, 1024, device="cuda", dtype=torch.float16)
        w = torch.randn(1024, device="cuda", dtype=torch.float16)
        dy = torch.randn(1000, 1024, device="cuda", dtype=torch.float16)
        dx = torch.empty_like(x)
        dw = torch.empty(1024, device="cuda", dtype=torch.float32)
        db = torch.empty(1024, device="cuda", dtype=torch.float32)
        kern(x, w, dy, dx, dw, db, eps=1e-5)
        xf = x.float().requires_grad_()
        wf = w.float().requires_grad_()
        bf = torch.zeros(1024, device="cuda", requires_grad=True)
        F.layer_norm(xf, (1024,), wf, bf, 1e-5).backward(dy.float())
        torch.testing.assert_close(dx.float(), xf.grad, rtol=2e-2, atol=5e-2)
        torch.testing.assert_close(dw, wf.grad, rtol=1e-2, atol=1e-1)
        torch.testing.assert_close(db, bf.grad, rtol=1e-3, atol=1e-2)

    def test_layernorm_eps_at_run_time(self):
        kern = tilec.compile(example("layernorm"), set={"M": 512, "N": 1024})
        before = tilec.compile_count()
        x = torch.randn(512, 1024, device="cuda", dtype=torch.float16)
        w = torch.randn(1024, device="cuda", dtype=torch.float16)
        b = torch.randn(1024, device="cuda", dtype=torch.float16)
        for eps in (1e-5, 0.5):
            y = torch.empty_like(x)
            kern(x, w, b, y, eps=eps)
            want = F.layer_norm(x.float(), (1024,), w.float(), b.float(), eps)
            torch.testing.assert_close(y.float(), want, rtol=1e-2, atol=2e-2)
        self.assertEqual(tilec.compile_count(), before)

    def test_softmax_on_a_stream(self):
        kern = tilec.compile(example("softmax"), set={"M": 1024, "N": 4096})
        x = torch.randn(1024, 4096, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            kern(x, y)  # torch's current stream: s
        s.synchronize()
        torch.testing.assert_close(y.float(), torch.softmax(x.float(), dim=1), rtol=1e-2, atol=1e-3)
        y2 = torch.empty_like(x)
        kern(x, y2, stream=s)
        s.synchronize()
        self.assertTrue(torch.equal(y, y2))

    def test_wrong_device(self):
        kern = tilec.compile(example("softmax"), set={"M": 8, "N": 4096})
        with self.assertRaises(tilec.LaunchError) as e:
            kern(torch.zeros(8, 4096, dtype=torch.float16), torch.zeros(8, 4096, dtype=torch.float16))
        self.assertIn("tensor 'X' is on cpu", str(e.exception))

    def test_sdpa_model(self):
        run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "sdpa_model.py")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


class DynamicSizes(unittest.TestCase):
    """One compiled kernel per example serves every size of its dynamic
    clause: three sizes each against torch, and no compile between them."""

    def test_gemm_three_sizes(self):
        kern = tilec.compile(example("gemm"))
        before = tilec.compile_count()
        for m, n, k in ((256, 512, 128), (1000, 1016, 704), (3000, 2000, 1000)):
            a = torch.randn(m, k, device="cuda", dtype=torch.float16)
            b = torch.randn(k, n, device="cuda", dtype=torch.float16)
            c = torch.empty(m, n, device="cuda", dtype=torch.float16)
            kern(a, b, c)
            torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-1)
        self.assertEqual(tilec.compile_count(), before)

    def test_gemm_broken_promise(self):
        kern = tilec.compile(example("gemm"))
        a = torch.randn(64, 60, device="cuda", dtype=torch.float16)
        b = torch.randn(60, 64, device="cuda", dtype=torch.float16)
        c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
        with self.assertRaises(tilec.LaunchError) as e:
            kern(a, b, c)
        self.assertIn("(K) is 60, which is not a multiple of 8", str(e.exception))

    def test_attention_three_sizes(self):
        kern = tilec.compile(example("flash_attn"), set={"H": 4, "D": 128})
        before = tilec.compile_count()
        for b, s in ((1, 128), (2, 1000), (3, 4096)):
            q, k, v = (torch.randn(b, 4, s, 128, device="cuda", dtype=torch.float16) for _ in range(3))
            o = torch.empty_like(q)
            kern(q, k, v, o)
            want = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
            torch.testing.assert_close(o.float(), want, rtol=1e-2, atol=2e-2)
        self.assertEqual(tilec.compile_count(), before)

    def test_norms_three_row_counts(self):
        ln = tilec.compile(example("layernorm"), set={"N": 1024})
        sm = tilec.compile(example("softmax"), set={"N": 4096})
        before = tilec.compile_count()
        for rows in (1, 333, 8192):
            x = torch.randn(rows, 1024, device="cuda", dtype=torch.float16)
            w = torch.randn(1024, device="cuda", dtype=torch.float16)
            bias = torch.randn(1024, device="cuda", dtype=torch.float16)
            y = torch.empty_like(x)
            ln(x, w, bias, y, eps=1e-5)
            want = F.layer_norm(x.float(), (1024,), w.float(), bias.float(), 1e-5)
            torch.testing.assert_close(y.float(), want, rtol=1e-2, atol=2e-2)
            xs = torch.randn(rows, 4096, device="cuda", dtype=torch.float16)
            ys = torch.empty_like(xs)
            sm(xs, ys)
            torch.testing.assert_close(ys.float(), torch.softmax(xs.float(), dim=1), rtol=1e-2, atol=1e-3)
        self.assertEqual(tilec.compile_count(), before)


if __name__ == "__main__":
    if not HAVE_GPU:
        print("no torch or no GPU")
        sys.exit(77)
    unittest.main()
