"""The Python module without a GPU: it imports, compiles, shows the
generated code, caches compiles in memory, and refuses every argument that
does not fit with LaunchError naming the parameter, before anything could
be launched. Run: python3 -m unittest discover -s python/tests -p 'test_cpu.py'
(TILEC_LIBRARY=build/libtilec.so when not installed)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import tilec  # noqa: E402

GEMM = os.path.join(ROOT, "examples", "gemm.tile")
LAYERNORM = os.path.join(ROOT, "examples", "layernorm.tile")
LAYERNORM_BWD = os.path.join(ROOT, "examples", "layernorm_bwd.tile")


class FakeCuda:
    """A device array as __cuda_array_interface__ describes one (never dereferenced)."""

    def __init__(self, shape, typestr="<f2", strides=None, ptr=0x10000):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (ptr, False), "version": 3}


class CompileTests(unittest.TestCase):
    def test_version(self):
        self.assertTrue(tilec.version())

    def test_compile_and_inspect(self):
        k = tilec.compile(GEMM, set={"M": 256, "N": 256, "K": 256})
        self.assertEqual(k.name, "gemm")
        self.assertIn("extern \"C\" __global__", k.cuda)
        self.assertIn(".entry", k.ptx)
        self.assertGreater(len(k.cubin), 1000)
        self.assertIn("gemm", repr(k))

    def test_memory_cache(self):
        before = tilec.compile_count()
        a = tilec.compile(GEMM, set={"M": 512, "N": 256, "K": 256})
        b = tilec.compile(GEMM, set={"M": 512, "N": 256, "K": 256})
        self.assertIs(a, b)
        self.assertEqual(tilec.compile_count(), before + 1)

    def test_source_error(self):
        with self.assertRaises(tilec.CompileError) as e:
            tilec.compile(source="kernel k(X: f32[N]) where N = 4 grid(1) as (bx) threads 32 { nope(); }",
                          path="bad.tile")
        self.assertEqual(e.exception.code, 1)
        self.assertIn("bad.tile:1:", e.exception.diagnostics)

    def test_pipeline(self):
        k = tilec.compile(LAYERNORM_BWD, set={"M": 64, "N": 1024})
        self.assertEqual(k.name, "layernorm_bwd")
        self.assertIn("---- stage 1 of pipeline 'layernorm_bwd': ln_bwd_rows", k.cuda)
        self.assertIn("---- stage 2 of pipeline 'layernorm_bwd': ln_bwd_cols", k.cuda)
        with self.assertRaises(tilec.CompileError):
            k.cubin  # each stage has its own
        with self.assertRaises(tilec.LaunchError) as e:
            k(FakeCuda((64, 1024)), FakeCuda((1024,)), FakeCuda((64, 1024)), FakeCuda((64, 1024)), FakeCuda((1024,),
              "<f4"), FakeCuda((1024,), "<f4"))
        self.assertIn("eps", str(e.exception))

    def test_bad_set(self):
        with self.assertRaises(tilec.CompileError) as e:
            tilec.compile(GEMM, set={"NOPE": 1})
        self.assertEqual(e.exception.code, 2)


class LaunchCheckTests(unittest.TestCase):
    def setUp(self):
        self.k = tilec.compile(GEMM, set={"M": 256, "N": 256, "K": 256})

    def launch_error(self, *args, **kw):
        with self.assertRaises(tilec.LaunchError) as e:
            self.k(*args, **kw)
        return str(e.exception)

    def test_count(self):
        self.assertIn("takes 3 arguments", self.launch_error(1, 2, 3, 4))
        self.assertIn("'C'", self.launch_error(FakeCuda((256, 256)), FakeCuda((256, 256))))

    def test_not_a_tensor(self):
        self.assertIn("tensor 'A' is a list", self.launch_error([1.0], FakeCuda((256, 256)), FakeCuda((256, 256))))

    def test_dtype(self):
        msg = self.launch_error(FakeCuda((256, 256), "<f4"), FakeCuda((256, 256)), FakeCuda((256, 256)))
        self.assertIn("tensor 'A' is f32, the kernel takes f16", msg)

    def test_not_contiguous(self):
        msg = self.launch_error(FakeCuda((256, 256)), FakeCuda((256, 256), strides=(2, 512)), FakeCuda((256, 256)))
        self.assertIn("tensor 'B' is not contiguous", msg)

    def test_shape(self):
        with self.assertRaises(tilec.LaunchError) as e:
            self.k(FakeCuda((256, 255)), FakeCuda((256, 256)), FakeCuda((256, 256)))
        self.assertEqual(e.exception.code, 2)
        self.assertIn("'A'", str(e.exception))

    def test_dynamic_sizes(self):
        # M, N % 8 and K % 8 are dynamic: a broken promise or sizes that
        # disagree are refused before anything reaches the GPU
        self.assertEqual(self.k.dynamic, {"M": 1, "N": 8, "K": 8})
        self.assertIn("gemm(A: f16[M, K], B: f16[K, N], C: f16[M, N])", repr(self.k))
        msg = self.launch_error(FakeCuda((100, 60)), FakeCuda((60, 128)), FakeCuda((100, 128)))
        self.assertIn("dimension 1 (K) is 60, which is not a multiple of 8", msg)
        msg = self.launch_error(FakeCuda((100, 64)), FakeCuda((64, 128)), FakeCuda((99, 128)))
        self.assertIn("dimension 0 (M) is 99, but an earlier tensor gave M = 100", msg)

    def test_unknown_name(self):
        self.assertIn("no parameter 'eps'", self.launch_error(FakeCuda((256, 256)), FakeCuda((256, 256)),
                                                               FakeCuda((256, 256)), eps=1.0))

    def test_scalar_by_name(self):
        ln = tilec.compile(LAYERNORM, set={"M": 64, "N": 1024})
        x, w = FakeCuda((64, 1024)), FakeCuda((1024,))
        with self.assertRaises(tilec.LaunchError) as e:
            ln(x, w, w, x, eps="tiny")
        self.assertIn("scalar 'eps'", str(e.exception))
        with self.assertRaises(tilec.LaunchError) as e:
            ln(x, w, w, x)
        self.assertIn("parameter 'eps' (f32) is missing", str(e.exception))


if __name__ == "__main__":
    unittest.main()
