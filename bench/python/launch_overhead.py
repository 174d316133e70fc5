#!/usr/bin/env python3
"""Host cost of launching a tiny kernel from Python with torch tensors:
tessera (@tessera.jit) against TileLang and Triton in the same run.

    PYTHONPATH=build/default/python python3 bench/python/launch_overhead.py \
        [--device cuda|cpu] [--n 1024] [--iters 20000] [--rounds 5]

The kernel is an element-wise add of two f32 vectors of N elements (one
block), written once per framework. Each framework's kernel is compiled and
warmed up first; then `iters` back-to-back calls are timed with the host's
clock (torch.cuda.synchronize() after the loop, not timed per call:
the cost measured is the host's, the GPU work is tiny), median (and min)
over `rounds`; the rounds of all frameworks are interleaved, so a host
whose speed drifts shifts them alike. Peers that are not importable (or
fail) are reported with the reason and skipped. Prints one JSON object
(also to --json PATH):

    {"device": ..., "torch": ..., "n": ..., "results": {
        "tessera": {"us_per_call": ..., "min_us": ..., "version": ...},
        "tilelang": {...} | {"skipped": "reason"},
        "triton": {...} | {"skipped": "reason"},
        "torch_add": {...}}}

Goal (issue 12): tessera under 10 us per call on an H100, with TileLang
0.1.15 and Triton 3.6 beside it.
"""

import argparse
import json
import platform
import statistics
import sys
import time


def time_calls(fns, iters, rounds, sync):
    """{name: callable} -> {name: (median, min)} host microseconds per
    call. Rounds are interleaved (each round times every callable once, in
    turn), so that a host whose speed drifts during the run (a shared
    machine) shifts all of them alike."""
    for fn in fns.values():
        fn()
    sync()
    per = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            t1 = time.perf_counter()
            sync()
            per[k].append((t1 - t0) / iters * 1e6)
    return {k: (statistics.median(v), min(v)) for k, v in per.items()}


def tessera_add(n, block):
    import tessera
    import tessera.language as T

    @tessera.jit(out_idx=[-1])
    def add(N, block):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
                 C: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
                a = T.alloc_fragment((block,), "float32")
                b = T.alloc_fragment((block,), "float32")
                T.copy(A[bx * block], a)
                T.copy(B[bx * block], b)
                for i in T.Parallel(block):
                    a[i] += b[i]
                T.copy(a, C[bx * block])
        return main

    return add(n, block), tessera.__version__


def tilelang_add(n, block):
    import tilelang
    import tilelang.language as T

    @tilelang.jit(out_idx=[-1])
    def add(N, block):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
                 C: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
                a = T.alloc_fragment((block,), "float32")
                b = T.alloc_fragment((block,), "float32")
                T.copy(A[bx * block], a)
                T.copy(B[bx * block], b)
                for i in T.Parallel(block):
                    a[i] += b[i]
                T.copy(a, C[bx * block])
        return main

    return add(n, block), getattr(tilelang, "__version__", "?")


def triton_add(n, block):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=mask) +
                 tl.load(b_ptr + offs, mask=mask), mask=mask)

    def run(a, b):
        c = torch.empty_like(a)
        add_kernel[(triton.cdiv(n, block),)](a, b, c, n, BLOCK=block)
        return c

    return run, triton.__version__


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default=None)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--block", type=int, default=1024)
    p.add_argument("--iters", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", default=None,
                   help="also write the JSON here (peers may print to "
                   "stdout)")
    p.add_argument("--breakdown", action="store_true",
                   help="also time the pieces of a tessera call")
    p.add_argument("--peers", default="tessera,tilelang,triton",
                   help="comma-separated: which of tessera, tilelang, "
                   "triton to time (torch.add always)")
    args = p.parse_args()

    import torch
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda":
        sync = torch.cuda.synchronize
        name = torch.cuda.get_device_name()
    else:
        sync = lambda: None  # noqa: E731
        name = platform.processor() or platform.machine()
    a = torch.randn(args.n, device=device)
    b = torch.randn(args.n, device=device)
    want = a + b

    results = {}
    wanted = set(args.peers.split(","))
    peers = [("tessera", tessera_add), ("tilelang", tilelang_add)]
    if device == "cuda":
        peers.append(("triton", triton_add))
    peers = [(label, make) for label, make in peers if label in wanted]
    calls = {}
    for label, make in peers:
        try:
            kernel, version = make(args.n, args.block)
            got = kernel(a, b)
            sync()
            if not torch.allclose(got, want):
                raise RuntimeError("wrong result")
            calls[label] = (lambda k: lambda: k(a, b))(kernel)
            results[label] = {"version": version}
        except Exception as e:  # a missing or broken peer is reported
            results[label] = {"skipped": "%s: %s" % (type(e).__name__, e)}
    calls["torch_add"] = lambda: torch.add(a, b)
    results["torch_add"] = {"version": torch.__version__}
    for label, (med, low) in time_calls(calls, args.iters, args.rounds,
                                        sync).items():
        results[label].update(us_per_call=round(med, 3), min_us=round(low, 3))
    if args.breakdown and "us_per_call" in results.get("tessera", {}):
        import tessera.runtime as rt
        kernel, _ = tessera_add(args.n, args.block)
        c_out = torch.empty_like(a)
        kernel(a, b, c_out)
        k_rt = next(iter(kernel._torch_targets.values()))[0]
        pieces = {
            "call": lambda: kernel(a, b),
            "call_all_args": lambda: kernel(a, b, c_out),
            "torch_empty_like": lambda: torch.empty_like(a),
            "new_empty": lambda: a.new_empty((args.n,), dtype=a.dtype),
            "runtime_launch": lambda: k_rt.launch([a, b, c_out], 0),
            "tensor_dtype": lambda: a.dtype,
            "tensor_shape": lambda: a.shape,
            "tensor_stride": lambda: a.stride(),
            "tensor_data_ptr": lambda: a.data_ptr(),
            "tensor_get_device": lambda: a.get_device(),
        }
        fast = getattr(kernel, "_fast_run", None)
        if fast is not None:
            # The C++ call (tessera._runtime.FastCall) without the Python
            # frame of JITKernel.__call__.
            pieces["fast_run"] = lambda: fast((a, b))
            pieces["fast_run_all_args"] = lambda: fast((a, b, c_out))
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None and device == "cuda":
            pieces["raw_stream"] = lambda: raw(0)
        results["tessera"]["dlpack_exchange_api"] = bool(
            getattr(rt, "_TORCH_EXCHANGE", [False])[0:1] == [True])
        results["tessera"]["breakdown_us"] = {
            k: round(med, 3) for k, (med, _) in time_calls(
                pieces, args.iters, args.rounds, sync).items()}
    text = json.dumps({"bench": "python_launch_overhead", "device": name,
                       "device_kind": device, "torch": torch.__version__,
                       "python": sys.version.split()[0], "n": args.n,
                       "iters": args.iters, "rounds": args.rounds,
                       "goal_us": 10.0, "results": results}, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
