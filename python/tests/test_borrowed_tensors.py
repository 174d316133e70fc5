"""The launch path that takes torch tensors as they are (no DLPack capsule:
data_ptr/shape/stride/dtype/get_device read by the runtime module), checked
here without torch through a stand-in module that offers exactly that
interface over numpy arrays. The real torch runs it on the GPU machine
(test_torch.py)."""
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
