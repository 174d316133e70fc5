"""The compile cache answers a second process without the compiler, an
exported bundle runs through the runtime alone (no MLIR imported) and in the
C++ tool, and the runtime module lists devices."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera

from conftest import ROOT

SCRIPT = textwrap.dedent('''
    import sys
    sys.path.insert(0, %(examples)r)
    import numpy as np
    import elementwise_add
    import tessera._jit as J
    k = elementwise_add.elementwise_add(70, 90, 32, 32, "float32", "float32", 128)
    a = np.ones((70, 90), np.float32)
    assert (k(a, a) == 2).all()
    print("LOG", ",".join(J.compile_log))
    print("COMPILER", "tessera._compiler" in sys.modules)
''')


def run_python(code, env):
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_second_process_compiles_nothing(tmp_path):
    env = dict(os.environ, TESSERA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TESSERA_NO_CACHE", None)
    code = SCRIPT % {"examples": os.path.join(ROOT, "python", "examples")}
    first = run_python(code, env)
    assert "LOG miss" in first and "COMPILER True" in first
    second = run_python(code, env)
    assert "LOG hit" in second, second
    # Answered by the runtime module's cache lookup: libMLIR never loaded.
    assert "COMPILER False" in second, second


def test_exported_bundle_runs_without_the_compiler(tmp_path):
    import gemm
    kernel = gemm.matmul(128, 128, 64, 128, 128, 32)
    path = str(tmp_path / "gemm.tsb")
    kernel.export(path)
    code = textwrap.dedent('''
        import sys
        sys.modules["tessera._compiler"] = None   # any import of it fails
        import numpy as np
        import tessera.runtime as rt
        b = rt.load_bundle(%r)
        assert b.kernel_names == ["matmul_relu_kernel"], b.kernel_names
        rng = np.random.default_rng(0)
        a = rng.standard_normal((128, 64)).astype(np.float16)
        w = rng.standard_normal((64, 128)).astype(np.float16)
        c = np.empty((128, 128), np.float16)
        b.kernel("matmul_relu_kernel")(a, w, c)
        ref = np.maximum(a.astype(np.float32) @ w.astype(np.float32), 0)
        np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
        print("OK", "mlir" in " ".join(sys.modules))
    ''' % path)
    assert "OK False" in run_python(code, dict(os.environ))
    tool = os.path.join(os.path.dirname(os.path.dirname(
        os.path.dirname(tessera.__file__))), "bin", "tessera")
    if os.path.exists(tool):
        out = subprocess.run([tool, "run", path], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr


def test_devices_and_plugins():
    import tessera.runtime as rt
    cpu = rt.device("cpu")
    assert cpu.is_cpu and cpu.triple == rt._runtime.host_triple()
    assert any(p["name"] == "cpu" and p["state"] == "ready"
               for p in rt.plugins())
    with pytest.raises(tessera.LaunchError):
        rt.device("nosuch")


def test_runtime_runs_an_exported_kernel(tmp_path):
    import rmsnorm
    k = rmsnorm.rms_norm(4, 1024)
    path = str(tmp_path / "r.tsb")
    k.export(path)
    import tessera.runtime as rt
    b = rt.load_bundle(path)
    x = np.ones((4, 1024), np.float32)
    w = np.ones((1024,), np.float32)
    y = np.empty_like(x)
    b.kernel("main")(x, w, y)
    np.testing.assert_allclose(y, np.ones_like(y) / np.sqrt(1 + 1e-5),
                               rtol=1e-6)


def test_cpu_has_no_native_streams():
    import tessera.runtime as rt
    from tessera.errors import LaunchError
    with pytest.raises(LaunchError, match="cannot wrap native streams"):
        rt.wrap_stream(rt.device("cpu"), 0x1234)


def test_bad_stream_argument_is_an_error():
    import elementwise_add
    from tessera.errors import LaunchError
    k = elementwise_add.elementwise_add(64, 64, 32, 32, "float32", "float32",
                                        128)
    a = np.ones((64, 64), np.float32)
    with pytest.raises(LaunchError, match="stream= takes"):
        k(a, a, stream="default")
