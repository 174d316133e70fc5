"""tessera.runtime: run compiled bundles from Python, without MLIR.

A thin layer over the runtime C API (``tessera._runtime``, a nanobind module
that links libtessera_runtime only). Tensors go in through DLPack without a
copy: numpy arrays on the CPU, torch tensors on the CPU or a GPU.

    import tessera.runtime as rt
    b = rt.load_bundle("k.tsb")              # the image for the CPU here
    b.kernel("gemm_relu")(a, b_, c)          # numpy arrays, in place
"""

import os
import struct
import sys

from . import _runtime
from .errors import LaunchError
from .language import dtypes as D

_runtime.set_error_type(LaunchError)

__all__ = ["Device", "devices", "device", "device_for", "load_bundle",
           "Bundle", "Kernel", "plugins", "wrap_stream"]

TENSOR = -1


class Device:
    """A device of a ready plugin (``plugin`` is "cpu", "cuda", ...)."""

    def __init__(self, info, ordinal):
        self.index = info["index"]
        self.name = info["name"]
        self.triple = info["triple"]
        self.chip = info["chip"]
        self.plugin = info["plugin"]
        self.warp_size = info["warp_size"]
        self.info = info
        self.ordinal = ordinal  # among the devices of its plugin

    @property
    def is_cpu(self):
        return self.plugin == "cpu"

    @property
    def is_software(self):
        """A device that emulates a GPU on the host's cores (Mesa's lavapipe),
        slower than the host's own code: never the default."""
        return self.chip == "lavapipe"

    @property
    def target(self):
        """The compile target: the host triple for the CPU (any CPU image of
        the triple loads), "triple:chip" for accelerators."""
        if self.is_cpu:
            return self.triple
        return "%s:%s" % (self.triple, self.chip)

    def __repr__(self):
        return "<tessera.Device %s:%d %s (%s)>" % (self.plugin, self.ordinal,
                                                   self.name, self.target)


_devices = None


def devices():
    """Every device of every ready plugin (cached)."""
    global _devices
    if _devices is None:
        out, seen = [], {}
        for info in _runtime.devices():
            n = seen.get(info["plugin"], 0)
            seen[info["plugin"]] = n + 1
            out.append(Device(info, n))
        _devices = out
    return _devices


def plugins():
    return _runtime.plugins()


_WRAPPED_STREAMS = {}


def wrap_stream(device, native):
    """A tessera stream handle (int) over a native stream of `device`'s API:
    a CUstream address (``torch.cuda.Stream.cuda_stream``) for CUDA. The
    caller keeps the native stream alive; wrappers are cached per stream.
    Native stream 0 (CUDA's legacy default stream: torch's default stream)
    is tessera's default stream 0 of the device, which launches on the
    primary context's legacy default stream as torch does."""
    if int(native) == 0:
        return 0
    key = (device.index, int(native))
    h = _WRAPPED_STREAMS.get(key)
    if h is None:
        h = _runtime.wrap_stream(device.index, int(native))
        _WRAPPED_STREAMS[key] = h
    return h


def device(kind="cpu", ordinal=0):
    """The `ordinal`-th device of plugin `kind` ("cpu", "cuda", "hip")."""
    for d in devices():
        if d.plugin == kind and d.ordinal == ordinal:
            return d
    avail = ", ".join("%s:%d" % (d.plugin, d.ordinal) for d in devices())
    raise LaunchError("no tessera device %s:%d (devices: %s; plugins: %s)" % (
        kind, ordinal, avail or "none",
        ", ".join("%s %s%s" % (p["name"], p["state"],
                               " (%s)" % p["message"] if p["message"] else "")
                  for p in plugins())))


_TORCH_DEVICE_PLUGIN = {"cpu": "cpu", "cuda": "cuda"}


def device_for(obj):
    """The tessera device holding a tensor (numpy array: the CPU)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        dev = obj.device
        kind = dev.type
        if kind == "cuda" and getattr(torch.version, "hip", None):
            kind = "hip"
        plugin = _TORCH_DEVICE_PLUGIN.get(kind, kind)
        return device(plugin, dev.index or 0)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.ndarray):
        return device("cpu")
    if hasattr(obj, "__dlpack_device__"):
        kind, ordinal = obj.__dlpack_device__()
        plugin = {1: "cpu", 2: "cuda", 10: "hip"}.get(int(kind))
        if plugin is None:
            raise LaunchError("no tessera device for DLPack device type %d"
                              % kind)
        return device(plugin, ordinal)
    raise TypeError("expected a numpy array or a torch tensor, got %s"
                    % type(obj).__name__)


def to_capsule(obj):
    """A DLPack capsule viewing obj (no copy)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return _torch_to_dlpack(torch)(obj)
    return obj.__dlpack__()


_to_dlpack = None
_TORCH_REGISTERED = []


def _register_torch(torch):
    """Tells the runtime module about torch, once: its tensor type, its
    dtypes (as DLPack codes) and, where torch has them, the DLPack exchange
    API (tensor views and the current stream read in C, torch >= 2.10) and
    the raw current-stream getter. From then on launches take torch tensors
    as they are, borrowed for the call."""
    if _TORCH_REGISTERED:
        return
    pairs = [(torch.float16, (2, 16)), (torch.bfloat16, (4, 16)),
             (torch.float32, (2, 32)), (torch.float64, (2, 64)),
             (torch.bool, (6, 8)), (torch.int8, (0, 8)),
             (torch.uint8, (1, 8)), (torch.int16, (0, 16)),
             (torch.int32, (0, 32)), (torch.int64, (0, 64))]
    for name, code in (("float8_e4m3fn", 10), ("float8_e5m2", 12)):
        if hasattr(torch, name):
            pairs.append((getattr(torch, name), (code, 8)))
    exchange = None
    if not os.environ.get("TESSERA_NO_DLPACK_EXCHANGE"):
        exchange = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream",
                  None)
    hip = bool(getattr(getattr(torch, "version", None), "hip", None))
    _TORCH_EXCHANGE[:] = [_runtime.register_torch(
        torch, torch.Tensor, pairs, exchange, raw, torch.empty_like, hip)]
    _TORCH_REGISTERED.append(True)


# [True] when torch tensors are read through its DLPack exchange API.
_TORCH_EXCHANGE = []


def _torch_to_dlpack(torch):
    global _to_dlpack
    if _to_dlpack is None:
        _to_dlpack = getattr(torch._C, "_to_dlpack", None) or \
            torch.utils.dlpack.to_dlpack
    return _to_dlpack


def scalar_slot(value, ir):
    """A Python number as the C API passes a scalar of IR type `ir`."""
    if ir in ("f16", "bf16"):
        lit = D.float_literal(float(value), ir)
        return int(lit, 16)
    if ir in ("f32", "f64"):
        return float(value)
    if ir == "i1":
        return int(bool(value))
    return value


class Bundle:
    """A bundle's image for one device, loaded."""

    def __init__(self, data, device=None, name="<bundle>"):
        self.device = device or globals()["device"]("cpu")
        self.name = name
        self.module = _runtime.Module(self.device.index, data, name)

    @property
    def kernel_names(self):
        return self.module.kernel_names

    def kernel(self, name, signature=None):
        """Kernel `name`; `signature` lists per argument "tensor" or the
        scalar's dtype ("float32", "int32", ...); without it, Python ints
        pass as int32 and floats as float32."""
        return Kernel(self, name, signature)


def load_bundle(bundle, device=None):
    """Loads a .tsb (a path or its bytes) for `device` (default: the CPU)."""
    name = "<bundle>"
    if isinstance(bundle, (str, os.PathLike)):
        name = os.fspath(bundle)
        with open(bundle, "rb") as f:
            bundle = f.read()
    return Bundle(bytes(bundle), device, name)


class Kernel:
    """A launchable kernel: call it with the arguments in order."""

    def __init__(self, bundle, name, signature=None):
        self.bundle = bundle
        self.name = name
        self._ir = None
        self._k = None
        if signature is not None:
            self._ir = [None if s == "tensor" else D.to_ir(s)
                        for s in signature]
            self._bind(self._ir)

    def _bind(self, irs):
        sig = [TENSOR if t is None else D.RUNTIME_CODE[t] for t in irs]
        self._k = _runtime.Kernel(self.bundle.module, self.name, sig)

    def __call__(self, *args, stream=0):
        irs = self._ir
        if irs is None:
            irs = [("i32" if isinstance(a, int) else "f32")
                   if isinstance(a, (int, float)) else None for a in args]
            if self._k is None or list(self._k.signature) != [
                    TENSOR if t is None else D.RUNTIME_CODE[t] for t in irs]:
                self._bind(irs)
        packed = [to_capsule(a) if t is None else scalar_slot(a, t)
                  for a, t in zip(args, irs)]
        self._k.launch(packed, stream)
