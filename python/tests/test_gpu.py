"""The Python module on a GPU with torch: examples against torch on torch
tensors, scalars at run time (two eps values, one compile), torch's
current stream and an explicit one, and the sdpa_model example.
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


if __name__ == "__main__":
    if not HAVE_GPU:
        print("no torch or no GPU")
        sys.exit(77)
    unittest.main()
