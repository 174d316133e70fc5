"""@tessera.jit and tessera.compile: TileLang's JIT on tessera.

    @tessera.jit(out_idx=[-1])
    def matmul(M, N, K, ...):
        @T.prim_func
        def main(...): ...
        return main

    kernel = matmul(1024, 1024, 1024)   # parsed and compiled
    c = kernel(a, b)                    # outputs allocated, run, returned

Compiles go through the compile cache: the cache is asked first through the
runtime module (no MLIR), and the compiler library is loaded only on a miss,
so a second process running the same kernels compiles nothing. The target
follows the tensors: numpy arrays and CPU torch tensors run the CPU image,
CUDA tensors the image for their GPU's chip, each compiled on first use.
"""

import functools
import os
import sys

from . import runtime as rt
from . import _caller_error as tessera_caller_error
from .errors import CompileError, LaunchError
from .language import PrimFunc
from .language import dtypes as D

__all__ = ["jit", "compile_func", "JITKernel", "compile_tile_ir"]

OPT_LEVEL = 3
# (cache state) per compile, newest last: "hit" (answered by the cache
# without the compiler library), "miss", "corrupt" or "off".
compile_log = []


def _compiler():
    from . import _compiler as c
    c.set_error_type(CompileError)
    return c


def _plugin_dir():
    return os.path.join(rt._runtime.library_dir(), "tessera", "plugins")


def compile_tile_ir(text, targets=None):
    """Tile-dialect text -> bundle bytes for `targets` ("triple[:chip]";
    None: the host CPU), through the compile cache."""
    targets = list(targets or [])
    if not os.environ.get("TESSERA_NO_CACHE"):
        hit = rt._runtime.cache_lookup(text, targets, OPT_LEVEL,
                                       _plugin_dir())
        if hit is not None:
            compile_log.append("hit")
            return hit
    data, state, _ = _compiler().compile(text, targets, OPT_LEVEL,
                                         not os.environ.get(
                                             "TESSERA_NO_CACHE"))
    compile_log.append(state)
    return data


def _also_compile_for():
    spec = os.environ.get("TESSERA_JIT_ALSO_COMPILE_FOR", "")
    return [t.strip() for t in spec.split(",") if t.strip()]


def _default_device(target):
    if target in (None, "auto"):
        # An accelerator when there is one, else the host (software
        # renderers such as lavapipe only when asked for).
        for d in rt.devices():
            if not d.is_cpu and not d.is_software:
                return d
        return rt.device("cpu")
    if isinstance(target, rt.Device):
        return target
    if target in ("cpu", "llvm", "c"):
        return rt.device("cpu")
    if target in ("cuda", "hip", "spirv"):
        return rt.device(target)
    for d in rt.devices():
        if target in (d.target, d.triple):
            return d
    raise LaunchError("no device here for target %r" % (target,))


class _OutputPlan:
    """How to allocate one output: its shape from static dims and from the
    symbolic dims of the inputs."""

    def __init__(self, param):
        self.param = param


class JITKernel:
    """A compiled prim_func; call it with the inputs (out_idx outputs are
    allocated and returned) or with every argument."""

    def __init__(self, func, out_idx=None, target="auto", pass_configs=None):
        if not isinstance(func, PrimFunc):
            raise TypeError("tessera.compile takes a T.prim_func, got %s"
                            % type(func).__name__)
        self.func = func
        self.params = func.params
        n = len(self.params)
        if out_idx is None:
            out_idx = []
        elif isinstance(out_idx, int):
            out_idx = [out_idx]
        idx = []
        for i in out_idx:
            j = i + n if i < 0 else i
            if not 0 <= j < n or self.params[j].kind != "tensor":
                raise ValueError("out_idx %d is not a tensor parameter of "
                                 "%s" % (i, func.name))
            idx.append(j)
        self.out_idx = idx
        self.in_idx = [i for i in range(n) if i not in idx]
        self.source = (func.fast_math_script() if _fast_math(pass_configs)
                       else func.script)
        self._bundles = {}  # target -> bytes
        self._kernels = {}  # device index -> runtime kernel
        self._signature = [rt.TENSOR if p.kind == "tensor" else
                           D.RUNTIME_CODE[p.ir_dtype] for p in self.params]
        self._scalar_ir = [None if p.kind == "tensor" else p.ir_dtype
                           for p in self.params]
        self._n = n
        self._n_in = len(self.in_idx)
        self._tensor_pos = [i for i in range(n)
                            if self.params[i].kind == "tensor"]
        self._scalar_pos = [(i, p.ir_dtype) for i, p in
                            enumerate(self.params) if p.kind == "scalar"]
        self._like_pos = next((pos for pos, i in enumerate(self.in_idx)
                               if self.params[i].kind == "tensor"), None)
        # Symbolic dims of the outputs: (symbol name) -> (input position,
        # dim) to read it from.
        self._sym_from = {}
        for pos, i in enumerate(self.in_idx):
            p = self.params[i]
            if p.kind == "tensor":
                for d, dim in enumerate(p.shape):
                    if not isinstance(dim, int):
                        self._sym_from.setdefault(dim.name, (pos, d))
        for i in self.out_idx:
            for dim in self.params[i].shape:
                if not isinstance(dim, int) and dim.name not in self._sym_from:
                    raise ValueError(
                        "output %s has the symbolic dim %s, which no input "
                        "has: pass the output yourself (no out_idx)"
                        % (self.params[i].name, dim.name))
        # torch's hot path: the inputs' tensor positions, and the outputs as
        # (static shape, torch dtype name) when every output is a trailing
        # parameter with static dims (else None: _with_outputs decides).
        self._in_tensor_pos = [pos for pos, i in enumerate(self.in_idx)
                               if self.params[i].kind == "tensor"]
        self._torch_targets = {}
        self._out_torch = None
        trailing = self.out_idx == list(range(n - len(self.out_idx), n))
        static = all(isinstance(d, int) for i in self.out_idx
                     for d in self.params[i].shape)
        known = all(self.params[i].ir_dtype in _TORCH for i in self.out_idx)
        self._out_trailing = [
            (tuple(self.params[i].shape), _TORCH[self.params[i].ir_dtype])
            for i in self.out_idx] if trailing and static and known and \
            self._like_pos is not None else None
        self._out_plan = [
            (i, [(None, dim) if isinstance(dim, int) else
                 self._sym_from.get(dim.name, (None, -1))
                 for dim in self.params[i].shape])
            for i in self.out_idx]
        # The whole call in C++ (tessera._runtime.FastCall): torch tensors
        # and numpy arrays, outputs allocated there; what it leaves to
        # Python (SLOW: the first call on a device, other argument types,
        # scalars that need Python's conversion) takes _call_torch / _call.
        fast_outputs = [
            (i, [(-1, d) if pos is None else (pos, d) for pos, d in dims],
             _DLPACK.get(self.params[i].ir_dtype, (0, 0)),
             _TORCH.get(self.params[i].ir_dtype),
             _NP.get(self.params[i].ir_dtype))
            for i, dims in self._out_plan]
        enabled = all(ir in _FAST_SCALARS for _, ir in self._scalar_pos) and \
            all(self.params[i].ir_dtype in _DLPACK for i in self.out_idx)
        like_arg = -1 if self._like_pos is None else \
            self.in_idx[self._like_pos]
        self._fast = rt._runtime.FastCall(func.name, self._signature,
                                          self.in_idx, fast_outputs, like_arg,
                                          enabled)
        self._fast_run = self._fast.runner()
        # Compile now for the default device: the C++ verifier's errors
        # surface where the kernel is built, not at its first call.
        self._default = _default_device(target)
        self._bundle_for(self._default.target)
        # TESSERA_JIT_ALSO_COMPILE_FOR="triple[:chip],...": also compile
        # for these targets now, through the cache (a machine without the
        # GPU, or without the compiler library, fills a cache directory
        # that another machine's processes then answer from).
        for t in _also_compile_for():
            self._bundle_for(t)

    # -------------------------------------------------------------- IR
    def get_tile_ir(self):
        """The tile-dialect module this kernel compiles (Python positions
        as locations)."""
        return self.source

    get_kernel_source = get_tile_ir

    def _bundle_for(self, target):
        b = self._bundles.get(target)
        if b is None:
            b = compile_tile_ir(self.source, [target])
            self._bundles[target] = b
        return b

    def export(self, path, targets=None):
        """Writes an ahead-of-time bundle holding one image per target
        (default: this kernel's default device) that the C++ runtime loads
        (`tessera run`, tessera_module_load_bundle_file)."""
        targets = list(targets or [self._default.target])
        data = compile_tile_ir(self.source, targets)
        tmp = "%s.tmp.%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path

    # ------------------------------------------------------------- call
    def _kernel_for(self, device):
        k = self._kernels.get(device.index)
        if k is None:
            bundle = self._bundle_for(device.target)
            module = rt._runtime.Module(device.index, bundle,
                                        "%s.tsb" % self.func.name)
            k = rt._runtime.Kernel(module, self.func.name, self._signature)
            self._kernels[device.index] = k
        return k

    def _where(self):
        return "kernel '%s' (%s:%d)" % (self.func.name, self.func.filename,
                                        self.func.lineno)

    def __call__(self, *args, stream=None):
        # The hot path (bench/python/launch_overhead.py) runs in C++; what
        # it leaves (SLOW) takes the Python paths below, which raise their
        # own errors.
        if stream is None:
            try:
                out = self._fast_run(args)
            except _LAUNCH_ERRORS as e:
                raise _call_error("%s: %s" % (self._where(), e)) from None
            if out is not _SLOW:
                return out
            # torch tensors on torch's current stream go to the C launch
            # as they are.
            torch = sys.modules.get("torch")
            if torch is not None:
                tt = torch.Tensor
                n = len(args)
                pos = self._tensor_pos if n == self._n else \
                    self._in_tensor_pos
                if pos and (n == self._n or n == self._n_in):
                    for i in pos:
                        if type(args[i]) is not tt:
                            break
                    else:
                        return self._call_torch(torch, args[pos[0]], args)
        return self._call(args, stream)

    def _call_torch(self, torch, like, args):
        n = len(args)
        returns = bool(self.out_idx)
        if n == self._n_in and self.out_idx:
            if self._out_trailing is not None:
                plan = self._out_torch
                if plan is None or plan[0] is not torch:
                    # torch's dtype objects, looked up once; an output of
                    # the first input's static shape and dtype is
                    # empty_like of it (the cheapest allocation torch has).
                    lp = self.params[self.in_idx[self._like_pos]]
                    plan = self._out_torch = (torch, [
                        (shape, getattr(torch, dt),
                         tuple(lp.shape) == shape and
                         all(isinstance(d, int) for d in lp.shape) and
                         _TORCH.get(lp.ir_dtype) == dt)
                        for shape, dt in self._out_trailing])
                full = list(args)
                for shape, dt, same in plan[1]:
                    full.append(torch.empty_like(like) if same else
                                like.new_empty(shape, dtype=dt))
            else:
                full = self._with_outputs(args)
        else:
            full = list(args)
        idx = like.get_device()
        if not rt._TORCH_REGISTERED:
            rt._register_torch(torch)
        ent = self._torch_targets.get(idx)
        if ent is None:
            device = _torch_device(like.device)
            ent = (self._kernel_for(device), device,
                   getattr(torch._C, "_cuda_getCurrentRawStream", None))
            self._torch_targets[idx] = ent
            # Later calls on this device take the C++ path.
            if idx < 0:
                self._fast.add_target(_DL_CPU, 0, ent[0])
            else:
                self._fast.add_target(
                    _DL_ROCM if getattr(torch.version, "hip", None)
                    else _DL_CUDA, idx, ent[0])
        k, device, raw_stream = ent
        for i, ir in self._scalar_pos:
            full[i] = rt.scalar_slot(full[i], ir)
        h = 0
        if idx >= 0:
            native = raw_stream(idx) if raw_stream is not None else \
                torch.cuda.current_stream(like.device).cuda_stream
            if native:
                h = rt.wrap_stream(device, native)
        try:
            k.launch(full, h)
        except (LaunchError, BufferError, TypeError, ValueError) as e:
            raise _call_error("%s: %s" % (self._where(), e)) from None
        if not returns:
            return None
        if len(self.out_idx) == 1:
            return full[self.out_idx[0]]
        return [full[i] for i in self.out_idx]

    def _call(self, args, stream):
        n = len(args)
        if n == self._n_in and self.out_idx:
            full = self._with_outputs(args)
            returns = True
        elif n == self._n:
            full = args
            returns = bool(self.out_idx)
        else:
            raise TypeError("%s takes %d inputs%s, got %d arguments" % (
                self._where(), len(self.in_idx),
                " (or all %d arguments)" % self._n if self.out_idx
                else "", n))
        packed = list(full)
        device = None
        torch_device = None
        torch = sys.modules.get("torch")
        tensor_type = torch.Tensor if torch is not None else None
        for i in self._tensor_pos:
            a = full[i]
            if type(a) is _ndarray():
                d = _cpu_device()
                cap = a.__dlpack__()
            elif tensor_type is not None and isinstance(a, tensor_type):
                d = _torch_device(a.device)
                cap = rt._torch_to_dlpack(torch)(a)
                torch_device = a.device
            else:
                try:
                    d = rt.device_for(a)
                    cap = rt.to_capsule(a)
                except TypeError:
                    raise _call_error(
                        "%s: argument '%s' must be a tensor (numpy array or "
                        "torch tensor), got %s" % (
                            self._where(), self.params[i].name,
                            type(a).__name__)) from None
            if device is None:
                device = d
            elif d is not device:
                raise _call_error(
                    "%s: argument '%s' is on %s but earlier tensors are "
                    "on %s" % (self._where(), self.params[i].name,
                               d.plugin, device.plugin))
            packed[i] = cap
        for i, ir in self._scalar_pos:
            packed[i] = rt.scalar_slot(full[i], ir)
        k = self._kernels.get(device.index if device is not None
                              else self._default.index)
        if k is None:
            k = self._kernel_for(device or self._default)
        # torch's current stream of the tensors' GPU, as torch ops use.
        if stream is None and torch_device is not None and \
                torch_device.type != "cpu":
            stream = torch.cuda.current_stream(torch_device)
        try:
            k.launch(packed, 0 if stream is None else
                     _stream_handle(stream, device))
        except LaunchError as e:
            raise _call_error("%s: %s" % (self._where(), e)) from None
        except BufferError as e:
            raise _call_error("%s: %s" % (self._where(), e)) from None
        if device is not None and device.is_cpu:
            # Later calls with numpy arrays / CPU torch tensors take the C++
            # path.
            self._fast.add_target(_DL_CPU, 0, k)
        if not returns:
            return None
        if len(self.out_idx) == 1:
            return full[self.out_idx[0]]
        return [full[i] for i in self.out_idx]

    def _with_outputs(self, args):
        full = [None] * self._n
        for pos, i in enumerate(self.in_idx):
            full[i] = args[pos]
        if self._like_pos is None:
            raise _call_error("%s: no input tensor to place the outputs "
                              "beside" % self._where())
        like = args[self._like_pos]
        for i, dims in self._out_plan:
            try:
                shape = tuple(d if pos is None else int(args[pos].shape[d])
                              for pos, d in dims)
            except (AttributeError, IndexError, TypeError):
                raise _call_error(
                    "%s: the shape of output '%s' comes from the inputs' "
                    "dims %s, which these inputs do not have" % (
                        self._where(), self.params[i].name,
                        ", ".join("%s[%d]" % (
                            self.params[self.in_idx[pos]].name, d)
                            for pos, d in dims if pos is not None))) from None
            p = self.params[i]
            full[i] = _empty_like(like, shape, p.ir_dtype, self, p)
        return full


_NDARRAY = []
_CPU = []
_TORCH_DEVICES = {}


def _ndarray():
    if not _NDARRAY:
        np = sys.modules.get("numpy")
        if np is None:
            return None
        rt._runtime.register_numpy(np)
        _NDARRAY.append(np.ndarray)
    return _NDARRAY[0]


def _cpu_device():
    if not _CPU:
        _CPU.append(rt.device("cpu"))
    return _CPU[0]


def _torch_device(dev):
    d = _TORCH_DEVICES.get(dev)
    if d is None:
        kind = dev.type
        torch = sys.modules["torch"]
        if kind == "cuda" and getattr(torch.version, "hip", None):
            kind = "hip"
        d = rt.device(kind, dev.index or 0)
        _TORCH_DEVICES[dev] = d
    return d


def _call_error(message):
    """A LaunchError that names the caller's file and line (the first frame
    outside the tessera package)."""
    err = tessera_caller_error(message)
    out = LaunchError(str(err))
    out.filename, out.lineno = err.filename, err.lineno
    return out


def _stream_handle(stream, device):
    """stream=: None (the device's default stream), a tessera stream handle
    (int) or a torch stream (wrapped; torch keeps owning it)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    native = getattr(stream, "cuda_stream", None)
    if native is None:
        raise LaunchError("stream= takes a tessera stream handle (int) or a "
                          "torch stream, got %s" % type(stream).__name__)
    if device is None or device.is_cpu:
        raise LaunchError("a torch stream needs tensors on its GPU")
    return rt.wrap_stream(device, native)


_SLOW = rt._runtime.SLOW
_LAUNCH_ERRORS = (LaunchError, BufferError, TypeError, ValueError)
# DLPack device types (FastCall's targets) and dtypes (code, bits).
_DL_CPU, _DL_CUDA, _DL_ROCM = 1, 2, 10
_DLPACK = {"f16": (2, 16), "bf16": (4, 16), "f32": (2, 32), "f64": (2, 64),
           "f8E4M3FN": (10, 8), "f8E5M2": (12, 8), "i1": (6, 8),
           "i8": (0, 8), "i16": (0, 16), "i32": (0, 32), "i64": (0, 64)}
# Scalars FastCall converts as the Python path does (others: f16, bf16 and
# fp8 go through scalar_slot's rounding in Python).
_FAST_SCALARS = ("f32", "f64", "i1", "i8", "i16", "i32", "i64", "index")
_NP = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
       "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool"}
_TORCH = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
          "f64": "float64", "f8E4M3FN": "float8_e4m3fn",
          "f8E5M2": "float8_e5m2", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "i1": "bool"}


def _empty_like(like, shape, ir, kernel, param):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(like, torch.Tensor):
        return torch.empty(shape, dtype=getattr(torch, _TORCH[ir]),
                           device=like.device)
    import numpy as np
    if ir not in _NP:
        raise _call_error("%s: output '%s' is %s, which numpy has no type "
                          "for: pass torch tensors" % (
                              kernel._where(), param.name, D.from_ir(ir)))
    return np.empty(shape, dtype=_NP[ir])


def _fast_math(pass_configs):
    """Whether TileLang's pass config "tl.enable_fast_math" is on (keys as
    strings or as TileLang's PassConfigKey members, whose value is the
    string)."""
    for key, value in (pass_configs or {}).items():
        name = getattr(key, "value", key)
        if name == "tl.enable_fast_math" and value:
            return True
    return False


def compile_func(func, out_idx=None, target="auto", pass_configs=None,
                 **ignored):
    """TileLang's ``tilelang.compile(func, out_idx=..., pass_configs=...)``
    (of the pass configs, "tl.enable_fast_math" is honoured)."""
    return JITKernel(func, out_idx=out_idx, target=target,
                     pass_configs=pass_configs)


def jit(func=None, *, out_idx=None, target="auto", pass_configs=None,
        **ignored):
    """TileLang's ``@tilelang.jit`` in lazy mode: the decorated function
    takes the kernel's parameters and returns a T.prim_func; calling it
    returns the compiled JITKernel (one per distinct argument tuple)."""

    def wrap(fn):
        kernels = {}

        @functools.wraps(fn)
        def build(*args, **kwargs):
            try:
                key = (args, tuple(sorted(kwargs.items())))
                hash(key)
            except TypeError:
                key = None
            if key is not None and key in kernels:
                return kernels[key]
            prim = fn(*args, **kwargs)
            if isinstance(prim, JITKernel):
                kernel = prim
            else:
                kernel = JITKernel(prim, out_idx=out_idx, target=target,
                                   pass_configs=pass_configs)
            if key is not None:
                kernels[key] = kernel
            return kernel

        build.kernels = kernels
        return build

    if func is not None:
        return wrap(func)
    return wrap
