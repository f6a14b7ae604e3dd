/* _fastcall.c - the Python module's launch fast path, in C: a Launcher
 * made once per kernel (tilec/__init__.py) takes a call's positional
 * arguments when every tensor is exactly a torch.Tensor on a CUDA device,
 * of the parameter's dtype and contiguous, and every scalar an int or a
 * float (the stream: None, an int handle or a torch stream); it reads
 * their pointers and shapes and calls tilec_launch
 * (through the address ctypes found, so this module links nothing). For
 * anything else it returns NotImplemented, and the Python path checks the
 * arguments again and raises the error that names the parameter: the
 * messages live in one place. The checks here are the ones a launch
 * needs, the same as the Python path's; tilec_launch checks shapes and
 * dynamic sizes itself.
 *
 * Why: the same checks as Python code cost ~11 us a call on the GPU
 * machines, more than the driver's launch (bench/RESULTS.md).
 *
 * Built against CPython's stable ABI (3.10 and later: METH_FASTCALL),
 * so one file loads in every later CPython; where it is missing or does
 * not load, the Python path does everything. */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

enum { MAX_PARAMS = 64, MAX_RANK = 8 };

/* tilec.h's types, as tilec_launch takes them (not included: this module
 * is built without the library's headers on its include path) */
typedef struct {
    void *data;
    int ndim;
    const int64_t *shape;
} Tensor;
typedef int (*LaunchFn)(void *k, const Tensor *t, int nt, const double *s, int ns, void *stream, char **diag);
typedef void (*FreeStringFn)(char *s);

typedef struct {
    PyObject_HEAD
    LaunchFn launch;
    FreeStringFn free_string;
    void *kernel;
    int nparams;
    PyObject *dtype[MAX_PARAMS]; /* the torch dtype a tensor parameter takes; NULL: a scalar */
    PyObject *tensor_type;        /* torch.Tensor */
    PyObject *raw_stream;         /* torch._C._cuda_getCurrentRawStream */
} Launcher;

static PyObject *s_is_cuda, *s_dtype, *s_shape, *s_is_contiguous, *s_data_ptr, *s_get_device, *s_cuda_stream;

static void launcher_dealloc(PyObject *self) {
    Launcher *l = (Launcher *)self;
    for (int i = 0; i < l->nparams; i++) Py_XDECREF(l->dtype[i]);
    Py_XDECREF(l->tensor_type);
    Py_XDECREF(l->raw_stream);
    PyTypeObject *type = Py_TYPE(self);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

/* Launcher(launch address, free_string address, kernel address, dtypes,
 * torch.Tensor, raw stream function): dtypes is a tuple with, per
 * parameter, its torch dtype or None for a scalar. */
static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    unsigned long long launch, free_string, kernel;
    PyObject *dtypes, *tensor_type, *raw_stream;
    if (kwargs && PyDict_Size(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "Launcher takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "KKKO!OO", &launch, &free_string, &kernel, &PyTuple_Type, &dtypes, &tensor_type,
                          &raw_stream))
        return NULL;
    Py_ssize_t n = PyTuple_Size(dtypes);
    if (n < 0 || n > MAX_PARAMS || !launch || !free_string || !kernel) {
        PyErr_SetString(PyExc_ValueError, "Launcher: bad kernel or too many parameters");
        return NULL;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    Launcher *l = (Launcher *)alloc(type, 0);
    if (!l) return NULL;
    l->launch = (LaunchFn)(uintptr_t)launch;
    l->free_string = (FreeStringFn)(uintptr_t)free_string;
    l->kernel = (void *)(uintptr_t)kernel;
    l->nparams = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GetItem(dtypes, i);
        l->dtype[i] = d == Py_None ? NULL : d;
        Py_XINCREF(l->dtype[i]);
    }
    Py_INCREF(tensor_type);
    Py_INCREF(raw_stream);
    l->tensor_type = tensor_type;
    l->raw_stream = raw_stream;
    return (PyObject *)l;
}

/* Attribute a of o is exactly True (a new reference is dropped). */
static int attr_true(PyObject *o, PyObject *a, int call) {
    PyObject *v = call ? PyObject_CallMethodObjArgs(o, a, NULL) : PyObject_GetAttr(o, a);
    if (!v) return -1;
    int ok = v == Py_True;
    Py_DECREF(v);
    return ok;
}

/* An int a method of o returns, or -1 with an error set; *out. */
static int call_int(PyObject *o, PyObject *method, long long *out) {
    PyObject *v = PyObject_CallMethodObjArgs(o, method, NULL);
    if (!v) return -1;
    *out = PyLong_AsLongLong(v);
    Py_DECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* One tensor argument: 1 taken (t, its shape into shape), 0 not for the
 * fast path, -1 an error raised. */
static int take_tensor(Launcher *l, PyObject *v, PyObject *dtype, Tensor *t, int64_t *shape, long long *device) {
    if ((PyObject *)Py_TYPE(v) != l->tensor_type) return 0;
    int ok = attr_true(v, s_is_cuda, 0);
    if (ok <= 0) return ok;
    PyObject *d = PyObject_GetAttr(v, s_dtype);
    if (!d) return -1;
    Py_DECREF(d); /* torch's dtypes are singletons: identity is the test */
    if (d != dtype) return 0;
    if ((ok = attr_true(v, s_is_contiguous, 1)) <= 0) return ok;
    long long ptr;
    if (call_int(v, s_data_ptr, &ptr)) return -1;
    PyObject *size = PyObject_GetAttr(v, s_shape); /* a torch.Size: a tuple */
    if (!size) return -1;
    Py_ssize_t rank = PyTuple_Check(size) ? PyTuple_Size(size) : -1;
    int taken = rank >= 0 && rank <= MAX_RANK;
    for (Py_ssize_t i = 0; taken && i < rank; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GetItem(size, i));
        if (shape[i] == -1 && PyErr_Occurred()) taken = -1;
    }
    Py_DECREF(size);
    if (taken <= 0) return taken;
    if (*device < 0 && call_int(v, s_get_device, device)) return -1;
    t->data = (void *)(uintptr_t)ptr;
    t->ndim = (int)rank;
    t->shape = shape;
    return 1;
}

/* launch(args, stream): None after a launch, NotImplemented where the
 * Python path must take the call, or (exit code, diagnostics) where
 * tilec_launch refused or failed. A METH_FASTCALL method: the Kernel
 * keeps it bound, and CPython calls it without making an argument tuple. */
static PyObject *launcher_launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    Launcher *l = (Launcher *)self;
    if (argc != 2 || !PyTuple_Check(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "launch(args, stream)");
        return NULL;
    }
    PyObject *args = argv[0], *stream_arg = argv[1];
    if (PyTuple_Size(args) != l->nparams) Py_RETURN_NOTIMPLEMENTED;
    Tensor tensors[MAX_PARAMS];
    int64_t shapes[MAX_PARAMS][MAX_RANK];
    double scalars[MAX_PARAMS];
    int nt = 0, ns = 0;
    long long device = -1;
    for (int i = 0; i < l->nparams; i++) {
        PyObject *v = PyTuple_GetItem(args, i);
        if (!l->dtype[i]) {
            if (!PyFloat_CheckExact(v) && !PyLong_CheckExact(v)) Py_RETURN_NOTIMPLEMENTED;
            scalars[ns] = PyFloat_AsDouble(v); /* an int too (exact beyond 2^53 as the Python path: a double) */
            if (scalars[ns] == -1.0 && PyErr_Occurred()) return NULL;
            ns++;
            continue;
        }
        int taken = take_tensor(l, v, l->dtype[i], &tensors[nt], shapes[nt], &device);
        if (taken < 0) return NULL;
        if (!taken) Py_RETURN_NOTIMPLEMENTED;
        nt++;
    }
    void *stream = NULL;
    if (stream_arg == Py_None) {
        if (device >= 0) { /* torch's current stream on the first tensor's device */
            PyObject *dev = PyLong_FromLongLong(device);
            PyObject *h = dev ? PyObject_CallFunctionObjArgs(l->raw_stream, dev, NULL) : NULL;
            Py_XDECREF(dev);
            if (!h) return NULL;
            stream = PyLong_AsVoidPtr(h);
            Py_DECREF(h);
            if (!stream && PyErr_Occurred()) return NULL;
        }
    } else if (PyLong_CheckExact(stream_arg)) {
        stream = PyLong_AsVoidPtr(stream_arg);
        if (!stream && PyErr_Occurred()) return NULL;
    } else { /* a torch stream: its handle, an int */
        PyObject *h = PyObject_GetAttr(stream_arg, s_cuda_stream);
        if (!h || !PyLong_CheckExact(h)) {
            Py_XDECREF(h);
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED; /* the Python path says what is wrong with it */
        }
        stream = PyLong_AsVoidPtr(h);
        Py_DECREF(h);
        if (!stream && PyErr_Occurred()) return NULL;
    }
    char *diag = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = l->launch(l->kernel, tensors, nt, scalars, ns, stream, &diag);
    Py_END_ALLOW_THREADS
    if (rc == 0) {
        l->free_string(diag);
        Py_RETURN_NONE;
    }
    PyObject *r = Py_BuildValue("(iy)", rc, diag ? diag : "");
    l->free_string(diag);
    return r;
}

static PyMethodDef launcher_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launcher_launch, METH_FASTCALL,
     "launch(args, stream): None after a launch, NotImplemented for the Python path, or (code, diagnostics)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot launcher_slots[] = {
    {Py_tp_new, launcher_new},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_methods, launcher_methods},
    {Py_tp_doc, "The launch fast path of one kernel (tilec/__init__.py makes it)."},
    {0, NULL},
};

static PyType_Spec launcher_spec = {"tilec._fastcall.Launcher", sizeof(Launcher), 0, Py_TPFLAGS_DEFAULT, launcher_slots};

static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastcall", "tilec's launch fast path", -1, NULL, NULL, NULL, NULL,
                             NULL};

PyMODINIT_FUNC PyInit__fastcall(void) {
    static const char *const names[] = {"is_cuda", "dtype", "shape", "is_contiguous", "data_ptr", "get_device", "cuda_stream"};
    PyObject **slots[] = {&s_is_cuda, &s_dtype, &s_shape, &s_is_contiguous, &s_data_ptr, &s_get_device, &s_cuda_stream};
    for (int i = 0; i < 7; i++)
        if (!(*slots[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *type = PyType_FromSpec(&launcher_spec);
    if (!type || PyModule_AddObject(m, "Launcher", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
