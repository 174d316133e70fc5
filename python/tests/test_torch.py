"""torch interop through DLPack: CPU tensors here, CUDA tensors on a GPU
machine (checked against torch). Skipped when torch is not installed."""
import pytest

from conftest import requires_cuda
import torch_kernels

torch = pytest.importorskip("torch", reason="skipped: torch is not installed")


def test_cpu_torch_tensors_in_place_and_outputs():
    k = torch_kernels.add_small()
    a, b = torch.randn(64, 96), torch.randn(64, 96)
    c = k(a, b)
    assert isinstance(c, torch.Tensor) and c.device.type == "cpu"
    torch.testing.assert_close(c, a + b)


def test_cpu_bfloat16_output_through_torch():
    k = torch_kernels.cast_to_bf16()
    a = torch.randn(256)
    torch.testing.assert_close(k(a), a.bfloat16())


@requires_cuda
@pytest.mark.parametrize("example", torch_kernels.EXAMPLES)
def test_cuda_examples_against_torch(example):
    mod = __import__(example)
    mod.main()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_fp8_tensors_in_and_out(device):
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("skipped: no CUDA device")
    k = torch_kernels.cast_to_fp8()
    a = torch.randn(1024, device=device) * 8
    b, c = k(a)
    assert b.dtype == torch.float8_e4m3fn and b.device.type == device
    want = a.to(torch.float8_e4m3fn)
    assert torch.equal(b.view(torch.uint8), want.view(torch.uint8))
    torch.testing.assert_close(c, want.float())


@requires_cuda
def test_cuda_gemm_symbolic_m():
    k = torch_kernels.gemm_symbolic_m()
    for m in (1, 129, 1000):
        a = torch.randn(m, 256, device="cuda", dtype=torch.float16)
        b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(k(a, b), torch.relu(a @ b), rtol=1e-2, atol=1e-2)


@requires_cuda
def test_cuda_runs_on_torchs_current_stream():
    # Launched on torch's current stream (a side stream here), so torch ops
    # enqueued after the call on that stream see the result without a sync,
    # and an explicit stream= takes a torch stream too.
    k = torch_kernels.add_1024()
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = k(a, b)
        d = c * 2  # same stream: ordered after the kernel
    side.synchronize()
    torch.testing.assert_close(d, (a + b) * 2)
    c2 = torch.empty_like(a)
    k(a, b, c2, stream=side)
    side.synchronize()
    torch.testing.assert_close(c2, a + b)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_repeated_calls_on_the_fast_path(device):
    """After the first call on a device, calls run in C++ (FastCall): views
    through torch's DLPack exchange API where torch has one, outputs by
    torch.empty_like / Tensor.new_empty, torch's current stream. Results,
    fresh outputs, tensors that require grad, side streams and the
    runtime's refusals (with the caller's line) hold there too."""
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("skipped: no CUDA device")
    import tessera
    import tessera.runtime as rt
    from tessera._jit import _SLOW
    k = torch_kernels.add_small()
    a = torch.randn(64, 96, device=device)
    b = torch.randn(64, 96, device=device, requires_grad=True)
    outs = [k(a, b) for _ in range(3)]
    assert k._fast_run((a, b)) is not _SLOW
    for c in outs:
        torch.testing.assert_close(c, a + b.detach())
    assert len({c.data_ptr() for c in outs}) == 3
    print("exchange api:", rt._TORCH_EXCHANGE)
    if device == "cuda":
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                d = k(a, b) * 2
        side.synchronize()
        torch.testing.assert_close(d, (a + b.detach()) * 2)
    with pytest.raises(tessera.LaunchError, match="compact row-major") as e:
        k(a, torch.randn(96, 64, device=device).t())  # FAST-LAYOUT
    assert e.value.filename == __file__
    with pytest.raises(tessera.LaunchError, match="f16|dtype"):
        k(a, b.detach().half())
    with pytest.raises(tessera.LaunchError, match="must have dimension"):
        k(a, torch.randn(64, 95, device=device))
    # Another dtype for the output than the input's: Tensor.new_empty.
    kbf = torch_kernels.cast_to_bf16()
    x = torch.randn(256, device=device)
    for _ in range(3):
        y = kbf(x)
        assert y.dtype == torch.bfloat16 and y.device == x.device
        torch.testing.assert_close(y, x.bfloat16())
