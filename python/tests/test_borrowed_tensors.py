"""The launch path that takes torch tensors as they are (no DLPack capsule:
data_ptr/shape/stride/dtype/get_device read by the runtime module), checked
here without torch through a stand-in module that offers exactly that
interface over numpy arrays. The real torch runs it on the GPU machine
(test_torch.py)."""
import ctypes
import sys
import types

import numpy as np
import pytest


class _Dtype:
    def __init__(self, name, np_dtype):
        self.name, self.np = name, np_dtype

    def __str__(self):
        return "fake_torch." + self.name


class _Device:
    type, index = "cpu", None


def _fake_torch():
    torch = types.ModuleType("torch")
    dtypes = {"float16": np.float16, "float32": np.float32,
              "float64": np.float64, "bfloat16": None, "bool": np.bool_,
              "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
              "int32": np.int32, "int64": np.int64, "complex64": np.complex64}
    for name, npd in dtypes.items():
        setattr(torch, name, _Dtype(name, npd))

    class Tensor:
        def __init__(self, array, dtype):
            self.array, self.dtype = array, dtype
            self.shape = array.shape
            self.device = _Device()

        def data_ptr(self):
            return self.array.ctypes.data

        def stride(self):
            return tuple(s // self.array.itemsize for s in self.array.strides)

        def get_device(self):
            return -1

        def new_empty(self, shape, dtype):
            return Tensor(np.empty(shape, dtype=dtype.np), dtype)

    def empty(shape, dtype, device):
        return Tensor(np.empty(shape, dtype=dtype.np), dtype)

    torch.Tensor, torch.empty = Tensor, empty
    torch.empty_like = lambda t: Tensor(np.empty_like(t.array), t.dtype)
    torch.version = types.SimpleNamespace(hip=None)
    torch._C = types.SimpleNamespace()
    torch.wrap = lambda a: Tensor(a, next(
        d for d in vars(torch).values()
        if isinstance(d, _Dtype) and d.np is not None and d.np == a.dtype))
    return torch


_FAKE = []


@pytest.fixture
def fake_torch(monkeypatch):
    # One stand-in per process, as there is one torch (its dtypes are
    # registered with the runtime module once).
    import tessera.runtime as rt
    if not _FAKE:
        _FAKE.append(_fake_torch())
        monkeypatch.setattr(rt, "_TORCH_REGISTERED", [])
    monkeypatch.setitem(sys.modules, "torch", _FAKE[0])
    yield _FAKE[0]


def test_borrowed_tensors_in_and_out(fake_torch):
    import elementwise_add
    k = elementwise_add.elementwise_add(64, 96, 32, 32, "float32", "float32",
                                        128)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal((64, 96)).astype(np.float32)
    c = k(fake_torch.wrap(a), fake_torch.wrap(b))
    assert isinstance(c, fake_torch.Tensor)
    np.testing.assert_array_equal(c.array, a + b)
    # Every argument passed: written in place (and returned, as TileLang).
    out = fake_torch.wrap(np.zeros((64, 96), np.float32))
    assert k(fake_torch.wrap(a), fake_torch.wrap(b), out) is out
    np.testing.assert_array_equal(out.array, a + b)


def test_borrowed_tensor_errors_name_the_caller(fake_torch):
    import elementwise_add
    from tessera.errors import LaunchError
    k = elementwise_add.elementwise_add(64, 96, 32, 32, "float32", "float32",
                                        128)
    a = np.ones((64, 96), np.float32)
    # Not row-major: a transposed view.
    with pytest.raises(LaunchError, match="not compact row-major") as e:
        k(fake_torch.wrap(np.ones((96, 64), np.float32).T), fake_torch.wrap(a))
    assert e.value.filename == __file__
    # A dtype tessera has no type for.
    with pytest.raises(LaunchError, match="complex64, which tessera has no"):
        k(fake_torch.Tensor(a, fake_torch.complex64), fake_torch.wrap(a))
    # The wrong dtype for the kernel.
    with pytest.raises(LaunchError, match="f16|float16|dtype"):
        k(fake_torch.wrap(a.astype(np.float16)), fake_torch.wrap(a))
    # The wrong shape.
    with pytest.raises(LaunchError):
        k(fake_torch.wrap(np.ones((63, 96), np.float32)), fake_torch.wrap(a))


def test_repeated_calls_take_the_fast_path(fake_torch):
    """The first call on a device goes through Python (it loads the kernel
    and registers it with FastCall); later ones run in C++. Both allocate
    fresh outputs and return what was passed in place."""
    import elementwise_add
    from tessera.errors import LaunchError
    k = elementwise_add.elementwise_add(32, 64, 32, 32, "float32", "float32",
                                        128)
    rng = np.random.default_rng(1)
    outs = []
    for _ in range(3):
        a = rng.standard_normal((32, 64)).astype(np.float32)
        b = rng.standard_normal((32, 64)).astype(np.float32)
        ta, tb = fake_torch.wrap(a), fake_torch.wrap(b)
        assert k._fast_run((ta, tb)) is not None  # registered after call 1
        c = k(ta, tb)
        np.testing.assert_array_equal(c.array, a + b)
        outs.append(c)
    assert len({id(c) for c in outs}) == 3
    out = fake_torch.wrap(np.zeros((32, 64), np.float32))
    assert k(ta, tb, out) is out
    np.testing.assert_array_equal(out.array, a + b)
    # The runtime's refusals raise from the fast path with the caller's line.
    with pytest.raises(LaunchError, match="must have dimension") as e:
        k(ta, fake_torch.wrap(np.ones((32, 63), np.float32)))  # FAST-SHAPE
    assert e.value.filename == __file__
    assert e.value.lineno == _line_of("FAST-SHAPE")
    # Output of another dtype than the first input: Tensor.new_empty.
    k16 = elementwise_add.elementwise_add(32, 64, 32, 32, "float32",
                                          "float16", 128)
    for _ in range(2):
        c = k16(ta, tb)
        assert c.array.dtype == np.float16
        np.testing.assert_allclose(c.array, (a + b).astype(np.float16),
                                   rtol=1e-3)


def _line_of(marker):
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if "# " + marker in line and "_line_of" not in line:
                return n
    raise AssertionError(marker)


# DLPack's C exchange API (DLPack 1.2; torch >= 2.10 puts it on
# torch.Tensor as __dlpack_c_exchange_api__), over the stand-in's arrays
# through ctypes callbacks.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                            ctypes.POINTER(_DLTensor))
_STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                           ctypes.POINTER(ctypes.c_void_p))


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev_api", ctypes.c_void_p), ("allocator", ctypes.c_void_p),
                ("managed_from_py", ctypes.c_void_p),
                ("managed_to_py", ctypes.c_void_p),
                ("dltensor_from_py", _FROM_PY), ("current_stream", _STREAM)]


_DL_CODES = {np.dtype(np.float16): (2, 16), np.dtype(np.float32): (2, 32),
             np.dtype(np.float64): (2, 64), np.dtype(np.bool_): (6, 8),
             np.dtype(np.int8): (0, 8), np.dtype(np.uint8): (1, 8),
             np.dtype(np.int16): (0, 16), np.dtype(np.int32): (0, 32),
             np.dtype(np.int64): (0, 64), np.dtype(np.complex64): (5, 64)}
_EXCHANGE = []


def _exchange_torch():
    torch = _fake_torch()
    calls = {"views": 0, "streams": 0}

    def from_py(obj, out):
        t = ctypes.cast(obj, ctypes.py_object).value
        arr = t.array
        # Kept on the tensor: valid while it lives, as torch's are.
        t._dl_shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
        t._dl_strides = (ctypes.c_int64 * max(arr.ndim, 1))(
            *(s // arr.itemsize for s in arr.strides))
        d = out.contents
        d.data = arr.ctypes.data
        d.device.device_type, d.device.device_id = 1, 0
        d.ndim = arr.ndim
        d.dtype.code, d.dtype.bits = _DL_CODES[arr.dtype]
        d.dtype.lanes = 1
        d.shape = t._dl_shape
        d.strides = t._dl_strides
        d.byte_offset = 0
        calls["views"] += 1
        return 0

    def stream(device_type, device_id, out):
        calls["streams"] += 1
        out[0] = None
        return 0

    api = _ExchangeAPI(1, 2, None, None, None, None, _FROM_PY(from_py),
                       _STREAM(stream))
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name = b"dlpack_exchange_api"
    torch.Tensor.__dlpack_c_exchange_api__ = new(
        ctypes.addressof(api), name, None)
    torch.calls = calls
    _EXCHANGE.append((api, name))  # alive as long as the process
    return torch


_FAKE_EXCHANGE = []


@pytest.fixture
def exchange_torch(monkeypatch):
    import tessera.runtime as rt
    if not _FAKE_EXCHANGE:
        _FAKE_EXCHANGE.append(_exchange_torch())
    # Registered anew for this test (and the plain stand-in after it).
    monkeypatch.setattr(rt, "_TORCH_REGISTERED", [])
    monkeypatch.setitem(sys.modules, "torch", _FAKE_EXCHANGE[0])
    yield _FAKE_EXCHANGE[0]
    monkeypatch.undo()
    rt._TORCH_REGISTERED.clear()


def test_dlpack_exchange_api(exchange_torch):
    """torch >= 2.10: tensor views come from the exchange API's C function,
    not from Python attributes; its refusals still name the caller."""
    import elementwise_add
    import tessera.runtime as rt
    from tessera.errors import LaunchError
    torch = exchange_torch
    k = elementwise_add.elementwise_add(64, 96, 32, 32, "float32", "float32",
                                        128)
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal((64, 96)).astype(np.float32)
    for _ in range(3):
        c = k(torch.wrap(a), torch.wrap(b))
        np.testing.assert_array_equal(c.array, a + b)
    assert rt._TORCH_EXCHANGE == [True]
    before = torch.calls["views"]
    k(torch.wrap(a), torch.wrap(b))
    assert torch.calls["views"] == before + 3  # A, B and the new C
    assert torch.calls["streams"] == 0  # CPU tensors: no stream asked
    with pytest.raises(LaunchError, match="not compact row-major") as e:
        k(torch.wrap(np.ones((96, 64), np.float32).T), torch.wrap(a))
    assert e.value.filename == __file__
    with pytest.raises(LaunchError, match="complex64, which tessera has no"):
        k(torch.Tensor(a.astype(np.complex64), torch.complex64),
          torch.wrap(a))
    with pytest.raises(LaunchError, match="f16|float16|dtype"):
        k(torch.wrap(a.astype(np.float16)), torch.wrap(a))
    with pytest.raises(LaunchError, match="must have dimension"):
        k(torch.wrap(np.ones((63, 96), np.float32)), torch.wrap(a))
