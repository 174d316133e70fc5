"""tessera: tile kernels in TileLang's spelling, compiled by tessera.

    import tessera
    import tessera.language as T

    @tessera.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32):
        @T.prim_func
        def main(A: T.Tensor((M, K), "float16"), ...):
            ...
        return main

    kernel = matmul(1024, 1024, 1024)
    c = kernel(a, b)          # torch tensors (CPU/CUDA) or numpy arrays

Importing ``tessera`` loads neither MLIR nor the compiler: the compiler
library (``tessera._compiler``) is loaded on the first compile that the
compile cache cannot answer. ``tessera.runtime`` runs bundles alone.
"""

import importlib as _importlib
import inspect as _inspect
import os as _os

from .errors import CompileError, LaunchError, TesseraError

__version__ = "0.1.0"
__all__ = ["jit", "compile", "JITKernel", "TesseraError", "CompileError",
           "LaunchError", "language", "runtime"]


def _caller_error(message):
    """A TesseraError at the first stack frame outside the tessera package
    (for errors raised while an annotation such as T.Tensor is evaluated)."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    frame = _inspect.currentframe()
    try:
        while frame is not None:
            fname = _os.path.abspath(frame.f_code.co_filename)
            if not fname.startswith(here + _os.sep):
                return TesseraError(message, frame.f_code.co_filename,
                                    frame.f_lineno, 1)
            frame = frame.f_back
    finally:
        del frame
    return TesseraError(message)


def __getattr__(name):
    # Lazy: `import tessera` stays cheap and MLIR-free.
    if name in ("jit", "compile", "JITKernel"):
        _jit = _importlib.import_module(__name__ + "._jit")
        value = getattr(_jit, name if name != "compile" else "compile_func")
        globals()[name] = value
        return value
    if name in ("runtime", "language"):
        return _importlib.import_module(__name__ + "." + name)
    raise AttributeError("module 'tessera' has no attribute %r" % name)
