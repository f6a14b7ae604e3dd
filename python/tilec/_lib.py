"""The C library (libtilec.so) through ctypes: where it is and its calls'
signatures. Looked for, in order: $TILEC_LIBRARY; beside this package
(where ./build.sh puts it and pip copies it); the build/ folder of the
repository this package sits in. The launch fast path (_fastcall.abi3.so,
a CPython extension) is looked for beside the library found."""
import ctypes
import importlib.machinery
import importlib.util
import os
import threading

_handle = None
_path = None
_fastcall = False  # not looked for yet
_lock = threading.Lock()


class Options(ctypes.Structure):
    _fields_ = [("arch", ctypes.c_char_p), ("set", ctypes.c_char_p), ("backend", ctypes.c_char_p),
                ("cache_dir", ctypes.c_char_p)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("ndim", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_int64))]


def _candidates():
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libtilec.so")
    yield os.path.join(here, "..", "..", "build", "libtilec.so")


def fastcall():
    """The launch fast path's module (tilec/_fastcall.c), or None where it
    is not built or does not load in this Python (it needs 3.10 or later)."""
    global _fastcall
    with _lock:
        if _fastcall is False:
            _fastcall = None
            where = os.path.join(os.path.dirname(_path or ""), "_fastcall.abi3.so")
            if _path and os.path.exists(where):
                try:
                    spec = importlib.util.spec_from_file_location(
                        "tilec._fastcall", where, loader=importlib.machinery.ExtensionFileLoader("tilec._fastcall", where))
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    _fastcall = module
                except ImportError:
                    pass
        return _fastcall


def library():
    """The loaded library (loaded once); OSError naming where it looked."""
    global _handle, _path
    with _lock:
        if _handle is not None:
            return _handle
        tried = []
        for path in _candidates():
            if os.path.exists(path):
                lib = ctypes.CDLL(os.path.abspath(path))
                _path = os.path.abspath(path)
                break
            tried.append(path)
        else:
            raise OSError("tilec: libtilec.so not found (run ./build.sh, or set TILEC_LIBRARY); looked at "
                          + ", ".join(tried))
        lib.tilec_version.restype = ctypes.c_char_p
        lib.tilec_version.argtypes = []
        lib.tilec_compile.restype = ctypes.c_int
        lib.tilec_compile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Options),
                                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_char_p)]
        lib.tilec_get.restype = ctypes.c_int
        lib.tilec_get.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_size_t)]
        lib.tilec_launch.restype = ctypes.c_int
        lib.tilec_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int,
                                     ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_void_p,
                                     ctypes.POINTER(ctypes.c_char_p)]
        # the launch as Kernel.__call__ makes it: the tensors (an array of
        # tilec_tensor) and the scalars (doubles) packed into bytes by
        # struct, cheaper a call than ctypes arrays of structures (a second
        # function object, so that tilec_launch keeps its typed signature)
        lib.launch_packed = lib["tilec_launch"]
        lib.launch_packed.restype = ctypes.c_int
        lib.launch_packed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]
        lib.tilec_kernel_free.restype = None
        lib.tilec_kernel_free.argtypes = [ctypes.c_void_p]
        lib.tilec_free_string.restype = None
        lib.tilec_free_string.argtypes = [ctypes.c_char_p]
        _handle = lib
        return lib
