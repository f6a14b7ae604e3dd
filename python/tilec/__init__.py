"""tilec for Python: compile a .tile kernel and call it on GPU tensors.

    import tilec
    k = tilec.compile("examples/gemm.tile", set={"BM": 128})
    k(A, B, C)                  # torch tensors, on torch's current stream
    k(X, W, b, Y, eps=1e-5)     # scalars by position or by name
    k.cuda, k.ptx, k.cubin, k.ir

A thin layer over the C library (libtilec.so, through ctypes): the same
compile path, disk cache and argument checks as the `tilec` command. Every
argument is checked before anything is launched; a mismatch raises
LaunchError naming the parameter, a source error CompileError with tilec's
located diagnostics.
"""
import ctypes
import struct
import hashlib
import json
import threading

from . import _lib

__all__ = ["compile", "Kernel", "CompileError", "LaunchError", "version", "compile_count"]


class TilecError(Exception):
    """An error of tilec: .code is the exit code tilec would give (1 source
    errors, 2 bad arguments, 4 CUDA/NVRTC), .diagnostics its text."""

    def __init__(self, message, code=None, diagnostics=None):
        super().__init__(message)
        self.code = code
        self.diagnostics = diagnostics


class CompileError(TilecError):
    """The source or the options were refused, or NVRTC failed."""


class LaunchError(TilecError):
    """An argument did not fit the kernel, or the launch failed."""


# the dtypes of the language, as torch and __cuda_array_interface__ name them
_TORCH_DTYPES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "uint8": "u8", "int16": "i16", "int32": "i32", "int64": "i64",
    "bool": "bool", "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
    "uint16": "u16", "uint32": "u32", "uint64": "u64",
}
_TORCH_NAMES = {v: k for k, v in _TORCH_DTYPES.items()}  # the language's dtype -> torch's attribute
_TYPESTRS = {
    "f2": "f16", "f4": "f32", "f8": "f64", "i1": "i8", "u1": "u8", "i2": "i16", "u2": "u16",
    "i4": "i32", "u4": "u32", "i8": "i64", "u8": "u64", "b1": "bool",
}

_torch_dtype_names = {}  # torch dtype object -> the language's name, filled as met
_compiled = {}
_compiled_lock = threading.Lock()
_compiles = 0


def version():
    """The library's version string."""
    return _lib.library().tilec_version().decode()


def compile_count():
    """How many times this process compiled a kernel (a hit of the in-memory
    cache does not count): tests assert that calls do not recompile."""
    return _compiles


def compile(path=None, name=None, arch=None, set=None, backend=None, cache_dir=None, source=None):
    """Compiles kernel NAME (None: the only one) of the .tile file at PATH, or
    of SOURCE text. SET: {"BM": 128, ...} as --set. Cached in memory by
    (the file's contents, name, set, arch, backend) and on disk by the
    library."""
    global _compiles
    if source is None:
        if path is None:
            raise TypeError("tilec.compile needs a path or source=")
        with open(path, "rb") as f:
            source = f.read().decode("utf-8", errors="replace")
        filename = str(path)
    else:
        filename = str(path) if path is not None else "<source>"
    set_text = _set_text(set)
    key = (hashlib.sha256(source.encode()).hexdigest(), name, set_text, arch, backend, cache_dir)
    with _compiled_lock:
        k = _compiled.get(key)
        if k is not None:
            return k
        lib = _lib.library()
        opt = _lib.Options(_enc(arch), _enc(set_text), _enc(backend), _enc(cache_dir))
        handle = ctypes.c_void_p()
        diag = ctypes.c_char_p()
        rc = lib.tilec_compile(source.encode(), filename.encode(), _enc(name), ctypes.byref(opt),
                               ctypes.byref(handle), ctypes.byref(diag))
        text = _take_string(lib, diag)
        if rc != 0:
            raise CompileError(_first_line(text) or "tilec could not compile %s (exit %d)" % (filename, rc),
                               code=rc, diagnostics=text)
        _compiles += 1
        k = Kernel(handle, filename)
        _compiled[key] = k
        return k


def _enc(s):
    return None if s is None else str(s).encode()


def _set_text(values):
    if values is None:
        return None
    if isinstance(values, str):
        return values
    parts = []
    for n, v in values.items():
        parts.append("%s=%s" % (n, ("true" if v else "false") if isinstance(v, bool) else repr(v)))
    return ",".join(parts) or None


def _take_string(lib, p):
    if not p.value:
        return ""
    text = p.value.decode("utf-8", errors="replace")
    lib.tilec_free_string(p)
    return text


def _first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


class Kernel:
    """A compiled kernel: call it with its parameters in order (tensors and
    scalars as declared; scalars also by name), and stream= a CUDA stream
    (an int handle, a torch stream, or None: torch's current stream)."""

    def __init__(self, handle, filename):
        self._handle = handle
        self._lib = _lib.library()
        self.filename = filename
        self.params = json.loads(self._get("params").decode())
        self.name = self.params["name"]
        self._params = self.params["params"]
        # the dynamic sizes, {name: divisor}: the library reads them from the shapes
        self.dynamic = {d["name"]: d["divisor"] for d in self.params.get("dynamic", [])}
        # per parameter: the compiled shape as a ctypes array (None: a scalar);
        # a shape with dynamic dimensions (null) never equals one passed, so
        # each call makes its own array
        self._shape_arrays = []
        for p in self._params:
            if p["kind"] == "tensor":
                p["shape_tuple"] = tuple(p["shape"])
                self._shape_arrays.append((ctypes.c_int64 * max(1, len(p["shape"])))(*(d or 0 for d in p["shape"])))
            else:
                self._shape_arrays.append(None)
        # what a call checks per parameter, in one tuple: (name, dtype, the
        # compiled shape, its array's address (None: a scalar))
        self._plan = tuple((p["name"], p["dtype"], p.get("shape_tuple"), ctypes.addressof(a) if a is not None else None)
                           for p, a in zip(self._params, self._shape_arrays))
        ntensors = sum(a is not None for a in self._shape_arrays)
        # tilec_tensor {void *data; int ndim; int64_t *shape} in the native
        # layout (struct's "@" pads as the C compiler does), ntensors of them
        self._tensors_struct = struct.Struct("@" + "PiP" * ntensors)
        self._scalars_struct = struct.Struct("@%dd" % (len(self._params) - ntensors))
        self._handle_arg = ctypes.c_void_p(handle.value)
        self._fast = None  # the C fast path's launch, made when a torch tensor is first passed
        assert struct.calcsize("@PiP") == ctypes.sizeof(_lib.Tensor)

    def __del__(self):
        h, self._handle = getattr(self, "_handle", None), None
        if h and _lib is not None:
            try:
                _lib.library().tilec_kernel_free(h)
            except Exception:
                pass

    def _get(self, what):
        data = ctypes.c_void_p()
        size = ctypes.c_size_t()
        rc = self._lib.tilec_get(self._handle, what.encode(), ctypes.byref(data), ctypes.byref(size))
        if rc != 0:
            raise CompileError("tilec_get(%r) failed with exit %d" % (what, rc), code=rc)
        return ctypes.string_at(data, size.value)

    @property
    def cuda(self):
        return self._get("cuda").decode()

    @property
    def ptx(self):
        return self._get("ptx").decode()

    @property
    def ir(self):
        return self._get("ir").decode()

    @property
    def cubin(self):
        return self._get("cubin")

    def __repr__(self):
        def dims(p):
            return ", ".join(str(e) if e is not None else n for e, n in zip(p["shape"], p["dims"]))
        sig = ", ".join("%s: %s%s" % (p["name"], p["dtype"], "[%s]" % dims(p) if p["kind"] == "tensor" else "")
                        for p in self._params)
        return "<tilec.Kernel %s(%s)>" % (self.name, sig)

    def __call__(self, *args, stream=None, **named):
        # the fast path of a launch: positional arguments, checked against
        # what was compiled, packed into bytes made per call (so that
        # threads may share a kernel); a torch tensor's checks inline (a
        # function call a tensor costs as much as its checks)
        if self._fast and not named:
            done = self._fast(args, stream)
            if done is None:
                return
            if done is not NotImplemented:
                text = done[1].decode("utf-8", errors="replace")
                raise LaunchError(_first_line(text) or "the launch of %s failed (exit %d)" % (self.name, done[0]),
                                  code=done[0], diagnostics=text)
        elif self._fast is None and _torch_tensor is not None:
            self._fast = self._make_fast() or False
        values = args if not named and len(args) == len(self._plan) else self._ordered(args, named)
        tensors, scalars, device, own_shapes = [], [], -1, None
        for (name, dtype, compiled, shape_address), v in zip(self._plan, values):
            if shape_address is None:
                if type(v) is not float and type(v) is not int:
                    v = self._scalar(name, dtype, v)
                scalars.append(v)
                continue
            if type(v) is _torch_tensor:
                if not v.is_cuda:
                    raise LaunchError("tensor '%s' is on %s, not on a CUDA device" % (name, v.device), code=2)
                if (_torch_dtype_names.get(v.dtype) or _torch_dtype_name(v.dtype)) != dtype:
                    raise LaunchError("tensor '%s' is %s, the kernel takes %s" % (
                        name, _torch_dtype_name(v.dtype), dtype), code=2)
                if not v.is_contiguous():
                    raise LaunchError("tensor '%s' is not contiguous (row-major); pass .contiguous()" % name, code=2)
                ptr, shape = v.data_ptr(), v.shape  # a torch.Size: a tuple of ints
                if device < 0:
                    device = v.get_device()
            else:
                ptr, shape, dev = _tensor_view(v, name, dtype)
                if device < 0:
                    device = dev
            # a shape the kernel was not compiled for (or with dynamic
            # sizes): an array of its own, alive until the launch returns;
            # the library checks it, naming the dimension, and launches
            # nothing on a mismatch
            if shape != compiled:
                own = (ctypes.c_int64 * max(1, len(shape)))(*shape)
                own_shapes = (own_shapes or []) + [own]
                shape_address = ctypes.addressof(own)
            tensors += (ptr, len(shape), shape_address)
        if stream is None:
            handle = _raw_stream(device) if device >= 0 else None
        else:
            handle = _stream_handle(stream)
        diag = ctypes.c_char_p()
        rc = self._lib.launch_packed(self._handle_arg, self._tensors_struct.pack(*tensors), len(tensors) // 3,
                                     self._scalars_struct.pack(*scalars) if scalars else None, len(scalars),
                                     handle, ctypes.byref(diag))
        if rc != 0:
            text = _take_string(self._lib, diag)
            raise LaunchError(_first_line(text) or "the launch of %s failed (exit %d)" % (self.name, rc),
                              code=rc, diagnostics=text)

    def _make_fast(self):
        """The C fast path's bound launch for this kernel (tilec/_fastcall.c),
        or None where the extension is missing."""
        fc = _lib.fastcall()
        if fc is None:
            return None
        import torch
        never = object()  # a dtype torch lacks: its calls take the Python path
        dtypes = tuple(None if a is None else getattr(torch, _TORCH_NAMES.get(p["dtype"], ""), never)
                       for p, a in zip(self._params, self._shape_arrays))
        addr = ctypes.cast(self._lib.tilec_launch, ctypes.c_void_p).value
        free = ctypes.cast(self._lib.tilec_free_string, ctypes.c_void_p).value
        return fc.Launcher(addr, free, self._handle.value, dtypes, _torch_tensor, _raw_stream).launch

    def _scalar(self, name, dtype, v):
        """v as a scalar argument (a float), or LaunchError."""
        try:
            if isinstance(v, (str, bytes)):
                raise TypeError
            return float(v)
        except (TypeError, ValueError):
            raise LaunchError("scalar '%s' (%s) of %s is %r, not a number" % (name, dtype, self.name, v),
                              code=2) from None

    def _ordered(self, args, named):
        """The arguments in parameter order, from positions and names."""
        if len(args) > len(self._params):
            raise LaunchError("%s takes %d arguments (%s), not %d" % (
                self.name, len(self._params), ", ".join(p["name"] for p in self._params), len(args)), code=2)
        values = {}
        for p, v in zip(self._params, args):
            values[p["name"]] = v
        for n, v in named.items():
            if not any(p["name"] == n for p in self._params):
                raise LaunchError("%s has no parameter '%s'" % (self.name, n), code=2)
            if n in values:
                raise LaunchError("%s: '%s' is given twice" % (self.name, n), code=2)
            values[n] = v
        for p in self._params:
            if p["name"] not in values:
                raise LaunchError("%s: parameter '%s' (%s) is missing" % (self.name, p["name"], p["dtype"]), code=2)
        return [values[p["name"]] for p in self._params]


def _torch_dtype_name(dtype):
    """The language's name of a torch dtype (remembered)."""
    name = _torch_dtype_names.get(dtype)
    if name is None:
        name = _torch_dtype_names[dtype] = _TORCH_DTYPES.get(str(dtype).replace("torch.", ""), str(dtype))
    return name


# torch.Tensor and the current-stream call, once a torch tensor is met:
# until then no argument is exactly a torch.Tensor, and the first one goes
# through _tensor_view, which looks them up
_torch_tensor = None
_raw_stream = None


def _meet_torch():
    global _torch_tensor, _raw_stream
    import torch  # loaded already: one of its tensors was passed
    # torch._C._cuda_getCurrentRawStream: a plain int a call, no Stream
    # object made per call; where torch lacks it, the Stream's handle
    _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
        lambda d: int(torch.cuda.current_stream(d).cuda_stream))
    _torch_tensor = torch.Tensor


def _tensor_view(obj, name, dtype):
    """(device pointer, shape, device index or -1) of tensor parameter
    `name` for an argument that is not exactly a torch.Tensor (a subclass,
    the first torch tensor met, or anything with __cuda_array_interface__),
    after the checks a launch needs."""
    if obj is None:
        raise LaunchError("tensor '%s' is None" % name, code=2)
    if type(obj).__module__.startswith("torch"):
        if _torch_tensor is None:
            _meet_torch()
        if not obj.is_cuda:
            raise LaunchError("tensor '%s' is on %s, not on a CUDA device" % (name, obj.device), code=2)
        if _torch_dtype_name(obj.dtype) != dtype:
            raise LaunchError("tensor '%s' is %s, the kernel takes %s" % (name, _torch_dtype_name(obj.dtype), dtype),
                              code=2)
        if not obj.is_contiguous():
            raise LaunchError("tensor '%s' is not contiguous (row-major); pass .contiguous()" % name, code=2)
        return obj.data_ptr(), obj.shape, obj.get_device()
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None:
        raise LaunchError("tensor '%s' is a %s: pass a CUDA tensor (torch, or anything with "
                          "__cuda_array_interface__)" % (name, type(obj).__name__), code=2)
    shape = tuple(int(d) for d in cai["shape"])
    typestr = cai.get("typestr", "")
    dt = _TYPESTRS.get(typestr[1:], typestr)
    if dt != dtype and not (dtype == "bf16" and typestr[1:] == "V2"):
        raise LaunchError("tensor '%s' is %s, the kernel takes %s" % (name, dt, dtype), code=2)
    strides = cai.get("strides")
    if strides is not None:
        size = int(typestr[2:]) if typestr[2:].isdigit() else 1
        want, s = [], size
        for d in reversed(shape):
            want.append(s)
            s *= d
        if tuple(strides) != tuple(reversed(want)):
            raise LaunchError("tensor '%s' is not contiguous (row-major)" % name, code=2)
    ptr = cai["data"][0] if cai.get("data") else 0
    return int(ptr), shape, -1


def _stream_handle(stream):
    """The stream= argument as a CUstream handle: an int, or a torch
    stream's."""
    if isinstance(stream, int):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise LaunchError("stream= is a %s, not a CUDA stream handle or a torch stream" % type(stream).__name__,
                          code=2)
    return int(handle)
