#!/usr/bin/env python3
"""Random valid tile programs for differential testing. Each (family, seed)
gives one kernel and the tensor sizes it runs on, reproducibly:

  gen_tile_programs.py gen SEED [--family F]        print the program
  gen_tile_programs.py run FIRST [LAST] [--family F]
      compile each seed's program for the host (and, with --targets, for
      GPU chips too) and run `tessera run` on two random shapes (sizes 1,
      primes and non-multiples of the tiles), which checks the CPU image
      against the tile interpreter (with --devices, e.g. spirv, those
      devices' results against the CPU image; with --oracle also the CPU
      image against scalar_oracle.py's numpy evaluation of the program's
      description); one line per seed, a count per family, exit 1 on a
      mismatch or a compiler error
  gen_tile_programs.py shrink SEED [--family F]
      the smallest variant of a failing seed's program (the families'
      simplifications: drop a gemm, a reduction, an epilogue op, a flag;
      one stage; smaller tiles, threads and shapes) that still fails the
      same way; prints it and writes its description to --out (default
      ./shrunk-FAMILY-SEED.json), which `gen`/`run --desc FILE` replay
  gen_tile_programs.py emit FIRST LAST --out DIR [--family F]
      bundles (host + --targets) and DIR/list.txt lines "bundle --shape ..."
      for a run on another machine (scripts/gpu/random-programs.sh)

Families (tests/fuzz/families/): gemm (the default: one GEMM, random
tiles, threads, stages, dtypes, transposes, epilogue, one reduction), attn
(attention with the online softmax: two gemms, the second's A a fragment,
row max / row sum reductions, a pipelined loop over KV blocks with a
symbolic trip count, causal or not), b2b (back-to-back GEMMs of an MLP
block), multi (one or two gemms, several sum/max/min reductions along
either dim written several ways); `mix` takes family [gemm, attn, b2b,
multi][seed % 4] for seed s, so a mixed seed names one program.
"""
import argparse
import concurrent.futures
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import families  # noqa: E402


def tessera_bin():
    return os.environ.get("TESSERA", os.path.join(ROOT, "build/default/bin/tessera"))


def host_triple():
    return os.uname().machine + "-unknown-linux-gnu"


def shape_text(desc, sh):
    return ",".join(f"{k}={v}" for k, v in families.module(desc).shape_args(desc, sh).items())


def name_of(desc):
    return f"{desc['family']}{desc['seed']}"


# ---------------------------------------------------------------------------
# The CPU image through the Python runtime, for the oracle.

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class _Bf16:
    """A bf16 CPU tensor (numpy has no bf16) for the runtime: the bits in a
    uint16 array, exported through a DLPack capsule made by hand (no
    deleter: this object keeps the memory alive)."""

    def __init__(self, bits):
        import numpy as np
        self.bits = np.ascontiguousarray(bits)
        self.shape = (ctypes.c_int64 * max(1, bits.ndim))(*bits.shape)
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = self.bits.ctypes.data
        t.device = _DLDevice(1, 0)
        t.ndim = bits.ndim
        t.dtype = _DLDataType(4, 16, 1)  # kDLBfloat
        t.shape = self.shape
        t.byte_offset = 0

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def cpu_launcher(bundle_path):
    """launch(args) for scalar_oracle.check: the bundle's CPU image run on
    [(dtype, float64 array)], the arrays after the run as float64."""
    import numpy as np
    import tessera.runtime as rt

    def launch(args):
        held, tensors = [], []
        for dtype, x in args:
            if dtype == "bf16":
                u = np.ascontiguousarray(x.astype(np.float32)).view(np.uint32)
                t = _Bf16((u >> 16).astype(np.uint16))
                held.append(t)
                tensors.append(t)
            else:
                a = np.ascontiguousarray(x.astype({"f16": np.float16, "f32": np.float32}[dtype]))
                held.append(a)
                tensors.append(a)
        b = rt.load_bundle(bundle_path, rt.device("cpu"))
        b.kernel("rand", ["tensor"] * len(tensors))(*tensors)
        outs = []
        for (dtype, _), h in zip(args, held):
            if dtype == "bf16":
                outs.append((h.bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
            else:
                outs.append(h.astype(np.float64))
        return outs
    return launch


_oracle_lock = threading.Lock()


# ---------------------------------------------------------------------------

def compile_program(desc, targets, folder):
    src = os.path.join(folder, name_of(desc) + ".mlir")
    with open(src, "w") as f:
        f.write(families.module(desc).text(desc))
    bundle = os.path.join(folder, name_of(desc) + ".tsb")
    cmd = [tessera_bin(), "compile", src, "--target", host_triple(), "--no-cache", "-o", bundle]
    for t in targets:
        cmd += ["--target", t]
    c = subprocess.run(cmd, capture_output=True, text=True)
    if c.returncode != 0:
        lines = [l for l in c.stderr.strip().splitlines() if "error" in l] or \
            c.stderr.strip().splitlines() or ["?"]
        return None, "compile failed: " + lines[0][:300]
    return bundle, None


# Unit roundoff of the dtypes an intermediate may be cast to.
UNIT = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}
# The runs that failed within a cast's rounding and passed on other inputs.
RETRIED = []


def run_shape(desc, bundle, shape, device):
    """`tessera run` of one shape on one device: None when its check
    passes, else a reason. A program that casts an intermediate to a narrow
    dtype (attention's P, the MLP's H) and fails by less than that dtype's
    unit roundoff x 4 runs on two more random inputs: a last-bit difference
    of an exp can round one element of the cast the other way (the check's
    tolerance is the output dtype's, 1e-4 for f32), an error in the program
    would not go away with other inputs."""
    dev = ["--device", device] if device else []
    errors = []
    for seed in (1, 2, 3):
        r = subprocess.run([tessera_bin(), "run", bundle, "--shape", shape, "--iters", "1",
                            "--warmup", "0", "--seed", str(seed)] + dev,
                           capture_output=True, text=True)
        out = r.stdout + r.stderr
        if r.returncode == 0 and "check: passed" in out:
            if errors:
                continue
            return None
        why = (f"run --shape {shape}{' --device ' + device if device else ''}"
               f"{' --seed ' + str(seed) if seed > 1 else ''}: " +
               " | ".join(out.strip().splitlines()[-2:])[:300])
        m = re.search(r"check: FAILED.*max relative error ([0-9.e+-]+)", out)
        cast = families.narrowed(desc)
        if not (m and cast and float(m.group(1)) < 4 * UNIT[cast]) or errors:
            return why
        errors.append(why)
    RETRIED.append(f"{name_of(desc)} {errors[0]}")
    return None


def run_one(desc, targets, tmp, devices=("",), oracle=False, margins=None):
    """None when the program passes, else a one-line reason. Each of
    `devices` ("" is the default device, the host when the bundle has its
    image) runs the program on each of its shapes; a non-host device is
    checked against the CPU image, the host against the tile interpreter.
    With `oracle` the CPU image is also checked against scalar_oracle.py
    (each shape's worst error / tolerance appended to `margins`)."""
    bundle, why = compile_program(desc, targets, tmp)
    try:
        if bundle is None:
            return why
        for sh in desc["shapes"]:
            shape = shape_text(desc, sh)
            for d in devices:
                why = run_shape(desc, bundle, shape, d)
                if why:
                    return why
            if oracle:
                import scalar_oracle
                with _oracle_lock:
                    why, margin = scalar_oracle.check(desc, sh, desc["seed"], cpu_launcher(bundle))
                if margins is not None:
                    margins.append(margin)
                if why:
                    return f"--shape {shape}: oracle: {why}"
        return None
    finally:
        if bundle and os.path.exists(bundle):
            os.remove(bundle)


def load_desc(path):
    with open(path) as f:
        return json.load(f)


def descs_of(a, targets):
    if a.desc:
        return [load_desc(a.desc)]
    last = a.last if a.last is not None else a.seed
    return [families.generate(a.family, s, targets) for s in range(a.seed, last + 1)]


def failure_kind(why):
    """What kind of failure a reason is, so that shrinking keeps it: a
    compile error (its message without the location), a check that failed
    (a device or the interpreter against the CPU image), the oracle's
    verdict on an output, or a run that broke."""
    if why.startswith("compile failed"):
        return ("compile", re.sub(r"^.*?error: ", "", why))
    m = re.search(r"oracle: (\S+) ", why)
    if m:
        return ("oracle", m.group(1))
    if "check: FAILED" in why:
        return ("check",)
    return ("run",)


def shrink(desc, fails):
    """Greedy: take the first simplification that still fails the same way
    (failure_kind), until none does. `fails(d)` gives the reason or None."""
    mod = families.module(desc)
    best, why = desc, fails(desc)
    kind = failure_kind(why)
    same = fails

    def fails(d):
        w = same(d)
        return w if w is not None and failure_kind(w) == kind else None

    tried = 1
    # The one shape it fails on first: the families shrink the first shape.
    if len(desc["shapes"]) > 1:
        for sh in desc["shapes"]:
            tried += 1
            w = fails(dict(desc, shapes=[sh]))
            if w is not None:
                best, why = dict(desc, shapes=[sh]), w
                break
    progress = True
    while progress:
        progress = False
        for cand in mod.shrink(best):
            tried += 1
            w = fails(cand)
            if w is not None:
                best, why, progress = cand, w, True
                print(f"  smaller, still failing: {mod.describe(best)} "
                      f"shapes {best['shapes']}: {w[:160]}", file=sys.stderr, flush=True)
                break
    return best, why, tried


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["gen", "run", "shrink", "emit"])
    ap.add_argument("seed", type=int, nargs="?", default=0)
    ap.add_argument("last", type=int, nargs="?")
    ap.add_argument("--family", default="gemm",
                    choices=sorted(families.FAMILIES) + ["mix"],
                    help="program family (default gemm; mix: family [gemm, attn, b2b, "
                         "multi][seed %% 4])")
    ap.add_argument("--desc", default="", help="a description (JSON, as shrink writes) "
                    "instead of a seed")
    ap.add_argument("--targets", default="", help="comma-separated extra targets")
    ap.add_argument("--out", default="", help="emit: folder for bundles and list.txt; "
                    "shrink: the description's file")
    ap.add_argument("--oracle", action="store_true",
                    help="run: also check the CPU image against a numpy evaluation "
                         "(scalar_oracle.py; needs the tessera Python package)")
    ap.add_argument("--devices", default="",
                    help="run: comma-separated devices (`tessera run --device`), e.g. "
                         "spirv for lavapipe against the CPU image; default: the host")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="run: print the oracle's margin (worst error / tolerance)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="run: programs at a time")
    a = ap.parse_args()
    targets = [t for t in a.targets.split(",") if t]
    devices = tuple(d for d in a.devices.split(",") if d) or ("",)

    if a.mode == "gen":
        for d in descs_of(a, targets):
            sys.stdout.write(families.module(d).text(d))
            for sh in d["shapes"]:
                sys.stdout.write(f"// --shape {shape_text(d, sh)}\n")
        return 0

    if a.mode == "emit":
        # Bundles (host + targets), list.txt lines "bundle --shape ..." (a
        # program on each of its shapes) and narrowed.txt lines "bundle
        # bound" (programs with a narrowing cast inside: a failure below
        # the bound is retried on other inputs, see run_shape) for a run on
        # another machine (scripts/gpu/random-programs.sh).
        os.makedirs(a.out, exist_ok=True)
        bad = 0
        with open(os.path.join(a.out, "list.txt"), "w") as lst, \
                open(os.path.join(a.out, "narrowed.txt"), "w") as nar:
            def one(d):
                bundle, why = compile_program(d, targets, a.out)
                os.remove(os.path.join(a.out, name_of(d) + ".mlir"))
                return d, why
            with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
                for d, why in ex.map(one, descs_of(a, targets)):
                    if why:
                        bad += 1
                        print(f"{d['family']} seed {d['seed']}: FAIL {why}", flush=True)
                        continue
                    for sh in d["shapes"]:
                        lst.write(f"{name_of(d)}.tsb --shape {shape_text(d, sh)}\n")
                    cast = families.narrowed(d)
                    if cast:
                        nar.write(f"{name_of(d)}.tsb {4 * UNIT[cast]:g}\n")
        return 1 if bad else 0

    with tempfile.TemporaryDirectory() as tmp:
        if a.mode == "shrink":
            desc = descs_of(a, targets)[0]
            n = [0]

            def fails(d):
                n[0] += 1
                sub = os.path.join(tmp, str(n[0]))
                os.mkdir(sub)
                return run_one(d, targets, sub, devices=devices, oracle=a.oracle)

            if fails(desc) is None:
                print(f"{desc['family']} seed {desc['seed']} passes; nothing to shrink")
                return 0
            best, why, tried = shrink(desc, fails)
            path = a.out or f"shrunk-{desc['family']}-{desc['seed']}.json"
            with open(path, "w") as f:
                json.dump(best, f, indent=1, sort_keys=True)
                f.write("\n")
            sys.stdout.write(families.module(best).text(best))
            for sh in best["shapes"]:
                sys.stdout.write(f"// --shape {shape_text(best, sh)}\n")
            print(f"// fails: {why}")
            print(f"// {tried} variants tried; description in {path}; replay: "
                  f"gen_tile_programs.py run --desc {path}"
                  + (f" --targets {a.targets}" if a.targets else "")
                  + (f" --devices {a.devices}" if a.devices else "")
                  + (" --oracle" if a.oracle else ""))
            return 1

        descs = descs_of(a, targets)
        counts = {}

        def one(d):
            sub = os.path.join(tmp, name_of(d))
            os.mkdir(sub)
            margins = []
            why = run_one(d, targets, sub, devices=devices, oracle=a.oracle, margins=margins)
            return d, why, margins

        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
            for d, why, margins in ex.map(one, descs):
                ran, failed = counts.get(d["family"], (0, 0))
                counts[d["family"]] = (ran + 1, failed + (why is not None))
                m = f" (oracle margin {max(margins):.2g})" if margins and a.verbose else ""
                print(f"{d['family']} seed {d['seed']}: {'ok' if why is None else 'FAIL ' + why}{m}",
                      flush=True)
        total = sum(r for r, _ in counts.values())
        failed = sum(f for _, f in counts.values())
        per = ", ".join(f"{fam} {r - f}/{r}" for fam, (r, f) in sorted(counts.items()))
        print(f"{total - failed} of {total} programs passed ({per})")
        if RETRIED:
            print(f"{len(RETRIED)} passed on other inputs after a difference within a cast's "
                  "rounding:\n  " + "\n  ".join(RETRIED))
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
