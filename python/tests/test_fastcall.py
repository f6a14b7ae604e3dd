"""The launch fast path (tilec/_fastcall.c) without a GPU or torch: a stand-in
`torch` module whose tensors have torch's attributes. From the second call
with such tensors a kernel launches through the C path; whatever it does not
take (another dtype, a non-contiguous tensor, named or missing arguments)
goes to the Python path, which says what is wrong, and the library's own
refusals come back as LaunchError with its message. Skipped where the
extension was not built. Run: TILEC_LIBRARY=build/libtilec.so python3
python/tests/test_fastcall.py"""
import ctypes
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def fake_torch():
    """A module named torch with what tilec reads of a tensor."""
    torch = types.ModuleType("torch")

    class Size(tuple):
        pass

    class Dtype:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return "torch." + self.name

    class Tensor:
        def __init__(self, shape, dtype, ptr=0x10000, contiguous=True, cuda=True):
            self.shape, self.dtype, self.is_cuda, self.device = Size(shape), dtype, cuda, "cuda:0"
            self._ptr, self._contiguous = ptr, contiguous

        def is_contiguous(self):
            return self._contiguous

        def data_ptr(self):
            return self._ptr

        def get_device(self):
            return 0

    Tensor.__module__ = "torch"
    torch.Tensor, torch.Size = Tensor, Size
    torch.float16, torch.float32 = Dtype("float16"), Dtype("float32")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
    return torch


try:
    import torch  # noqa: F401  (a real torch: this test is for machines without one)
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False
    sys.modules["torch"] = fake_torch()
    import torch
sys.path.insert(0, os.path.join(HERE, ".."))
import tilec  # noqa: E402
from tilec import _lib  # noqa: E402


@unittest.skipIf(HAVE_TORCH, "a real torch is installed: python_gpu covers the fast path")
class FastPathTests(unittest.TestCase):
    def setUp(self):
        if _lib.library() is None or _lib.fastcall() is None:
            self.skipTest("the fast path (_fastcall.abi3.so) is not built beside the library")
        self.k = tilec.compile(os.path.join(ROOT, "examples", "add.tile"), set={"N": 4096, "BLOCK": 1024})
        self.x, self.y, self.z = (torch.Tensor((4096,), torch.float16, 0x10000 * (i + 1)) for i in range(3))

    def warm(self):
        """Two calls: the first meets torch, the second makes the fast path."""
        for _ in range(2):
            self.launch_error(self.x, self.y, self.z)
        self.assertTrue(self.k._fast)

    def launch_error(self, *args, **named):
        with self.assertRaises(tilec.LaunchError) as e:
            self.k(*args, **named)
        return e.exception

    def test_fast_path_takes_the_call(self):
        first = self.launch_error(self.x, self.y, self.z)  # the Python path, which meets torch
        self.launch_error(self.x, self.y, self.z)  # makes the fast path
        self.assertTrue(self.k._fast)
        fast = self.launch_error(self.x, self.y, self.z)
        # no GPU here: the library refuses with exit 4, the same words either way
        self.assertEqual((fast.code, str(fast)), (first.code, str(first)))
        self.assertEqual(fast.code, 4)

    def test_what_it_leaves_to_python(self):
        self.warm()
        e = self.launch_error(self.x, self.y, torch.Tensor((4096,), torch.float32))
        self.assertEqual(e.code, 2)
        self.assertIn("tensor 'Z' is f32", str(e))
        e = self.launch_error(self.x, self.y, torch.Tensor((4096,), torch.float16, contiguous=False))
        self.assertIn("not contiguous", str(e))
        e = self.launch_error(self.x, self.y, torch.Tensor((4096,), torch.float16, cuda=False))
        self.assertIn("not on a CUDA device", str(e))
        e = self.launch_error(self.x, self.y)
        self.assertIn("'Z' (f16) is missing", str(e))
        e = self.launch_error(self.x, self.y, Z=self.z, W=1)
        self.assertIn("no parameter 'W'", str(e))

    def test_library_checks_through_the_fast_path(self):
        self.warm()
        e = self.launch_error(self.x, self.y, torch.Tensor((4000,), torch.float16))
        self.assertEqual(e.code, 2)
        self.assertIn("dimension 0 (N) is 4000", str(e))

    def test_launcher_success_and_stream(self):
        # a launch function that returns 0 (sched_yield takes no arguments
        # and ignores the ones passed in registers) and free for the strings
        libc = ctypes.CDLL(None)
        ok = ctypes.cast(libc.sched_yield, ctypes.c_void_p).value
        free = ctypes.cast(libc.free, ctypes.c_void_p).value
        f16 = torch.float16
        launch = _lib.fastcall().Launcher(ok, free, 1, (f16, f16, None), torch.Tensor, lambda d: 0).launch
        x = torch.Tensor((8,), f16)
        self.assertIsNone(launch((x, x, 2.5), None))
        self.assertIsNone(launch((x, x, 3), 12345))
        self.assertIs(launch((x, x, "2.5"), None), NotImplemented)
        self.assertIs(launch((x, x), None), NotImplemented)
        self.assertIsNone(launch((x, x, 1.0), types.SimpleNamespace(cuda_stream=777)))  # a torch stream's handle
        self.assertIs(launch((x, x, 1.0), object()), NotImplemented)
        with self.assertRaises(TypeError):
            launch((x, x, 1.0))


if __name__ == "__main__":
    unittest.main()
