#!/usr/bin/env python3
"""Generality check: examples/gemm.mlir rewritten with other block tiles, K
steps and element types, each timed against gemm.mlir as written.

A kernel that differs from an example by a tile size must get the same
instructions and nearly the same speed; this measures it. Two modes:

    bench/gpu/gemm_variants.py gen <out dir> [tessera binary] [target ...]
        (here, with the compiler) writes <out>/<name>.mlir for every variant
        and compiles it, with gemm.mlir as `base`, to <out>/<name>.tsb for
        the targets (default nvptx64-nvidia-cuda:sm_90a plus the host, whose
        image is the reference); a variant that does not compile is listed
        in <out>/failed.txt with its first error line.
    bench/gpu/gemm_variants.py run <out dir> <tessera binary> [size]
        (there, on the GPU) checks every bundle against its host image at
        1000^3 and 257x129x4097, times it at size^3 (default 4096; two
        rounds, `--fill normal`), and prints one JSON object per bundle:
        {"variant", "ms", "vs_base", "checks"} (vs_base = base ms / ms).
        VARIANTS_DEVICE=spirv (say) runs them on another device (bundles
        generated for its target).

Variants: tiles M x N in {64, 128, 256}^2 (all but 256x256, whose f32
accumulator cannot fit 256 threads' registers), K steps 16 to 128, f16 and
bf16; the threads are the program's 128 throughout (the compiler chooses
more where it needs them).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VARIANTS = [
    (64, 64, 32, "f16"), (64, 64, 64, "f16"), (64, 64, 128, "f16"),
    (64, 128, 32, "f16"), (128, 64, 32, "f16"), (128, 128, 16, "f16"),
    (128, 128, 64, "f16"), (128, 128, 128, "f16"), (128, 256, 32, "f16"),
    (128, 256, 64, "f16"), (256, 128, 32, "f16"), (256, 128, 64, "f16"),
    (64, 256, 64, "f16"), (256, 64, 32, "f16"), (128, 128, 32, "bf16"),
    (64, 64, 128, "bf16"),
]


def variant(src, tm, tn, bk, dt):
    """gemm.mlir with a tm x tn block tile, K steps of bk, dt inputs."""
    subs = [
        ("%c32 = arith.constant 32 : index", "%%cbk = arith.constant %d : index" % bk),
        ("%c128 = arith.constant 128 : index",
         "%%ctm = arith.constant %d : index\n  %%ctn = arith.constant %d : index" % (tm, tn)),
        ("%gx = arith.ceildivui %n, %c128", "%gx = arith.ceildivui %n, %ctn"),
        ("%gy = arith.ceildivui %m, %c128", "%gy = arith.ceildivui %m, %ctm"),
        ("%nk = arith.ceildivui %k, %c32", "%nk = arith.ceildivui %k, %cbk"),
        ("%row = arith.muli %by, %c128", "%row = arith.muli %by, %ctm"),
        ("%col = arith.muli %bx, %c128", "%col = arith.muli %bx, %ctn"),
        ("%k0 = arith.muli %kt, %c32", "%k0 = arith.muli %kt, %cbk"),
        ("128x32xf16", "%dx%dxf16" % (tm, bk)),
        ("32x128xf16", "%dx%dxf16" % (bk, tn)),
        ("128x128xf32", "%dx%dxf32" % (tm, tn)),
    ]
    for a, b in subs:
        if a not in src:
            raise SystemExit("examples/gemm.mlir changed: %r not found" % a)
        src = src.replace(a, b)
    if dt == "bf16":
        src = src.replace("f16>", "bf16>").replace("xf16,", "xbf16,")
    if re.search(r"%c(32|128)\b", src):
        raise SystemExit("examples/gemm.mlir changed: a constant is left")
    return src


def compile_all(out, files, binary, targets, env=None):
    """Writes <out>/<name>.mlir for each (name, text) of `files` and compiles
    it for `targets` to <out>/<name>.tsb (`env`: {name: extra environment}
    for bundles compiled with a compiler switch); lists the failures in
    <out>/failed.txt and on stdout."""
    os.makedirs(out, exist_ok=True)
    failed = []
    for name, text in files:
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        cmd = [binary, "compile", path, "--no-cache", "-o",
               os.path.join(out, name + ".tsb")]
        for t in targets:
            cmd += ["--target", t]
        r = subprocess.run(cmd, capture_output=True, text=True,
                           env=dict(os.environ, **((env or {}).get(name, {}))))
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["?"])[0]
            failed.append("%s: %s" % (name, first))
    with open(os.path.join(out, "failed.txt"), "w") as f:
        f.write("".join(l + "\n" for l in failed))
    print("%d variants, %d failed to compile" % (len(files) - 1, len(failed)))
    for l in failed:
        print("  " + l)


def gen(out, binary, targets):
    src = open(os.path.join(ROOT, "examples", "gemm.mlir")).read()
    files = [("base", src)]
    files += [("g_%dx%dx%d_%s" % v, variant(src, *v)) for v in VARIANTS]
    compile_all(out, files, binary, targets)


def run_one(binary, bundle, shape, *extra):
    device = os.environ.get("VARIANTS_DEVICE", "cuda")
    cmd = [binary, "run", bundle, "--device", device, "--shape", shape] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True)


def check_and_time(out, binary, check_shapes, shape, rounds=2):
    """Checks every bundle of <out> against its host image at
    `check_shapes`, times it at `shape` (`rounds` rounds, the better kept)
    and prints one JSON object per bundle (vs_base = base ms / ms)."""
    bundles = sorted(f[:-4] for f in os.listdir(out) if f.endswith(".tsb"))
    checks, times = {}, {b: [] for b in bundles}
    for b in bundles:
        ok = 0
        for s in check_shapes:
            r = run_one(binary, os.path.join(out, b + ".tsb"), s, "--iters", "1", "--warmup", "0")
            ok += "check: passed" in r.stdout
        checks[b] = ok
    print(json.dumps({"checks": {b: "%d/%d" % (n, len(check_shapes))
                                 for b, n in checks.items()}}), flush=True)
    for rnd in range(rounds):
        for b in bundles:
            r = run_one(binary, os.path.join(out, b + ".tsb"), shape, "--iters", "20",
                        "--warmup", "5", "--no-check", "--json", "--fill", "normal")
            for line in reversed(r.stdout.splitlines()):
                if line.startswith("{"):
                    times[b].append(json.loads(line)["median_ms"])
                    # Each time as it comes (a run cut short keeps them).
                    print(json.dumps({"round": rnd + 1, "variant": b,
                                      "ms": times[b][-1]}), flush=True)
                    break
    base = min(times.get("base") or [float("nan")])
    for b in bundles:
        ms = min(times[b]) if times[b] else None
        print(json.dumps({"variant": b, "shape": shape, "ms": ms,
                          "vs_base": round(base / ms, 3) if ms else None,
                          "checks": "%d/%d" % (checks[b], len(check_shapes))}))


def run(out, binary, size):
    check_and_time(out, binary, ("M=1000,N=1000,K=1000", "M=257,N=129,K=4097"),
                   "M=%d,N=%d,K=%d" % (size, size, size))


def cli(doc, gen_fn, run_fn, default_size):
    """`gen <out> [binary] [target ...]` / `run <out> <binary> [size]`."""
    if len(sys.argv) < 3 or sys.argv[1] not in ("gen", "run"):
        raise SystemExit(doc)
    out = sys.argv[2]
    if sys.argv[1] == "gen":
        binary = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "build/default/bin/tessera")
        targets = sys.argv[4:] or ["nvptx64-nvidia-cuda:sm_90a", "x86_64-unknown-linux-gnu"]
        gen_fn(out, binary, targets)
    else:
        if len(sys.argv) < 4:
            raise SystemExit(doc)
        run_fn(out, sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else default_size)


def main():
    cli(__doc__, gen, run, 4096)


if __name__ == "__main__":
    main()
