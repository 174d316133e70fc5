#!/usr/bin/env python3
"""Random valid tile programs for differential testing (issue: random tile
programs). Each seed gives one kernel, reproducibly:

  gen_tile_programs.py gen SEED            print the program (tile IR text)
  gen_tile_programs.py run SEED [SEED2]    compile for the host (and, with
      --targets, for GPU chips too), run `tessera run` on random tensor shapes
      (1, primes, non-multiples of the tiles), which checks the CPU image
      against the tile interpreter (with --devices, e.g. spirv, those
      devices' results against the CPU image; with --oracle also against
      scalar_oracle.py's numpy evaluation); prints one line per seed,
      exits 1 on a mismatch or a compiler error
  gen_tile_programs.py shrink SEED         the smallest variant of a failing
      seed's program (fewer epilogue ops, no reduction, one stage) that
      still fails

The family: a GEMM C = epilogue(op(A) op(B)) with random tile sizes the
targets' atoms divide, thread counts, stages, dtypes, transposes, an
epilogue of random element-wise ops (scale, bias by row or column, ReLU,
max/min with constants, exp of a negative value), optionally followed by a
reduction (sum or max) of the epilogue's result along either dimension into
a second output, and masked edges from tensor sizes that the tiles do not
divide.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Program:
    def __init__(self, seed, drop_epilogue=0, no_reduce=False, one_stage=False):
        r = random.Random(seed)
        self.seed = seed
        self.dtype = r.choice(["f16", "bf16", "f32"])
        self.out = r.choice(["f32", self.dtype])
        self.bm = r.choice([16, 32, 64, 128])
        self.bn = r.choice([16, 32, 64, 128])
        self.bk = r.choice([16, 32, 64])
        self.threads = r.choice([32, 64, 128, 256])
        # Legal for every target: at most 64 accumulator elements a thread
        # (more is a register-budget error on GPUs, a correct one).
        while self.bm * self.bn // self.threads > 64:
            if self.threads < 256:
                self.threads *= 2
            else:
                self.bn //= 2
        self.stages = 1 if one_stage else r.choice([1, 2, 3, 4])
        self.ta = r.random() < 0.3
        self.tb = r.random() < 0.3
        n_ops = r.randint(0, 4)
        ops = [r.choice(["scale", "relu", "rowbias", "colbias", "max", "min",
                         "expneg"]) for _ in range(n_ops)]
        self.ops = ops[:max(0, len(ops) - drop_epilogue)]
        self.constants = [round(r.uniform(-2, 2), 3) for _ in range(8)]
        self.reduce = None if no_reduce or r.random() < 0.5 else (
            r.choice(["sum", "max"]), r.choice([0, 1]))
        self.shape_rng = random.Random(seed * 7919 + 1)

    def shapes(self):
        pick = lambda: self.shape_rng.choice(
            [1, 2, 17, 31, 64, 97, 128, 131, 200, 257])
        sh = {"M": pick(), "N": pick(), "K": pick()}
        # The reduction is checked where one block covers the reduced dim.
        if self.reduce:
            if self.reduce[1] == 0:
                sh["M"] = min(sh["M"], self.bm)
            else:
                sh["N"] = min(sh["N"], self.bn)
        return sh

    def text(self):
        e, o = self.dtype, self.out
        bm, bn, bk = self.bm, self.bn, self.bk
        a_t = f"!tile.tensor<[K, M], {e}>" if self.ta else f"!tile.tensor<[M, K], {e}>"
        b_t = f"!tile.tensor<[N, K], {e}>" if self.tb else f"!tile.tensor<[K, N], {e}>"
        as_t = f"!tile.tile<{bk}x{bm}x{e}, shared>" if self.ta else f"!tile.tile<{bm}x{bk}x{e}, shared>"
        bs_t = f"!tile.tile<{bn}x{bk}x{e}, shared>" if self.tb else f"!tile.tile<{bk}x{bn}x{e}, shared>"
        cf_t = f"!tile.tile<{bm}x{bn}xf32, fragment>"
        args = [f"%A: {a_t}", f"%B: {b_t}"]
        if "rowbias" in self.ops:
            args.append("%rb: !tile.tensor<[M], f32>")
        if "colbias" in self.ops:
            args.append("%cb: !tile.tensor<[N], f32>")
        args.append(f"%C: !tile.tensor<[M, N], {o}>")
        if self.reduce:
            args.append("%%R: !tile.tensor<[%s], f32>" % ("N" if self.reduce[1] == 0 else "M"))
        L = []
        L.append(f"// seed {self.seed}: {self.dtype}->{self.out} tiles {bm}x{bn}x{bk}, "
                 f"{self.threads} threads, {self.stages} stages, "
                 f"transpose_a={self.ta} transpose_b={self.tb}, epilogue {self.ops}, "
                 f"reduce {self.reduce}")
        L.append(f"tile.func @rand(" + ", ".join(args) + ") {")
        L.append("  %c0 = arith.constant 0 : index")
        L.append("  %c1 = arith.constant 1 : index")
        for v in sorted({bm, bn, bk}):
            L.append(f"  %c{v} = arith.constant {v} : index")
        L.append(f"  %m = tile.dim %C, 0 : !tile.tensor<[M, N], {o}>")
        L.append(f"  %n = tile.dim %C, 1 : !tile.tensor<[M, N], {o}>")
        L.append(f"  %k = tile.dim %A, {0 if self.ta else 1} : {a_t}")
        L.append(f"  %gx = arith.ceildivui %n, %c{bn} : index")
        L.append(f"  %gy = arith.ceildivui %m, %c{bm} : index")
        L.append(f"  %nk = arith.ceildivui %k, %c{bk} : index")
        L.append(f"  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = {self.threads} {{")
        L.append(f"    %As = tile.alloc : {as_t}")
        L.append(f"    %Bs = tile.alloc : {bs_t}")
        L.append(f"    %Cf = tile.alloc : {cf_t}")
        L.append(f"    tile.clear %Cf : {cf_t}")
        L.append(f"    %row = arith.muli %by, %c{bm} : index")
        L.append(f"    %col = arith.muli %bx, %c{bn} : index")
        L.append(f"    tile.pipelined %kt = %c0 to %nk step %c1 stages = {self.stages} {{")
        L.append(f"      %k0 = arith.muli %kt, %c{bk} : index")
        aoff = "%k0, %row" if self.ta else "%row, %k0"
        boff = "%col, %k0" if self.tb else "%k0, %col"
        L.append(f"      tile.copy %A[{aoff}], %As : {a_t}, {as_t}")
        L.append(f"      tile.copy %B[{boff}], %Bs : {b_t}, {bs_t}")
        flags = (" transpose_a" if self.ta else "") + (" transpose_b" if self.tb else "")
        L.append(f"      tile.gemm %As, %Bs, %Cf{flags} : {as_t}, {bs_t}, {cf_t}")
        L.append("    }")
        if "rowbias" in self.ops:
            L.append(f"    %rbf = tile.alloc : !tile.tile<{bm}xf32, fragment>")
            L.append(f"    tile.copy %rb[%row], %rbf : !tile.tensor<[M], f32>, !tile.tile<{bm}xf32, fragment>")
        if "colbias" in self.ops:
            L.append(f"    %cbf = tile.alloc : !tile.tile<{bn}xf32, fragment>")
            L.append(f"    tile.copy %cb[%col], %cbf : !tile.tensor<[N], f32>, !tile.tile<{bn}xf32, fragment>")
        if self.ops:
            L.append(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
            L.append(f"      %v0 = tile.load %Cf[%i, %j] : {cf_t}")
            cur = "%v0"
            for idx, op in enumerate(self.ops):
                c = self.constants[idx]
                nv = f"%v{idx + 1}"
                # A binary op of the value and an operand: (operand, arith op).
                binary = {
                    "scale": (f"arith.constant {c:.3f} : f32", "mulf"),
                    "relu": ("arith.constant 0.0 : f32", "maximumf"),
                    "max": (f"arith.constant {c:.3f} : f32", "maximumf"),
                    "min": (f"arith.constant {c:.3f} : f32", "minimumf"),
                    "rowbias": (f"tile.load %rbf[%i] : !tile.tile<{bm}xf32, fragment>", "addf"),
                    "colbias": (f"tile.load %cbf[%j] : !tile.tile<{bn}xf32, fragment>", "addf"),
                }
                if op in binary:
                    operand, fn = binary[op]
                    L.append(f"      %k{idx} = {operand}")
                    L.append(f"      {nv} = arith.{fn} {cur}, %k{idx} : f32")
                elif op == "expneg":
                    # exp(-|x| / 8): bounded, no overflow.
                    L.append(f"      %a{idx} = math.absf {cur} : f32")
                    L.append(f"      %s{idx} = arith.constant -0.125 : f32")
                    L.append(f"      %t{idx} = arith.mulf %a{idx}, %s{idx} : f32")
                    L.append(f"      {nv} = math.exp %t{idx} : f32")
                cur = nv
            L.append(f"      tile.store {cur}, %Cf[%i, %j] : {cf_t}")
            L.append("    }")
        L.append(f"    tile.copy %Cf, %C[%row, %col] : {cf_t}, !tile.tensor<[M, N], {o}>")
        if self.reduce:
            kind, dim = self.reduce
            ext = bn if dim == 0 else bm
            off = "%col" if dim == 0 else "%row"
            rt = f"!tile.tile<{ext}xf32, fragment>"
            L.append(f"    %Rf = tile.alloc : {rt}")
            # Rows / columns past the tensor hold the epilogue of zeros:
            # only the partial result of this block is written, and only
            # when the grid has one block along the reduced dim.
            L.append(f"    tile.reduce {kind} %Cf, %Rf dim = {dim} : {cf_t}, {rt}")
            L.append(f"    %one = arith.cmpi eq, %{'gy' if dim == 0 else 'gx'}, %c1 : index")
            L.append("    scf.if %one {")
            L.append(f"      tile.copy %Rf, %R[{off}] : {rt}, !tile.tensor<[{'N' if dim == 0 else 'M'}], f32>")
            L.append("    }")
        L.append("  }")
        L.append("  tile.return")
        L.append("}")
        return "\n".join(L) + "\n"


def tessera_bin():
    return os.environ.get("TESSERA", os.path.join(ROOT, "build/default/bin/tessera"))


def run_one(prog, targets, tmp, quiet=False, devices=("",), oracle=False):
    """Returns None when the seed passes, else a one-line reason. Each of
    `devices` ("" is the default device, the host when the bundle has its
    image) runs the program; a non-host device is checked against the CPU
    image, the host against the tile interpreter. With `oracle` the CPU
    image is also checked against scalar_oracle.py's numpy evaluation of
    the program's description."""
    src = os.path.join(tmp, f"p{prog.seed}.mlir")
    with open(src, "w") as f:
        f.write(prog.text())
    bundle = os.path.join(tmp, f"p{prog.seed}.tsb")
    host = subprocess.run([sys.executable, "-c", "import platform;print(platform.machine())"],
                          capture_output=True, text=True).stdout.strip() + "-unknown-linux-gnu"
    cmd = [tessera_bin(), "compile", src, "--target", host, "--no-cache", "-o", bundle]
    for t in targets:
        cmd += ["--target", t]
    c = subprocess.run(cmd, capture_output=True, text=True)
    if c.returncode != 0:
        return "compile failed: " + (c.stderr.strip().splitlines() or ["?"])[-1][:300]
    for _ in range(2):
        sh = prog.shapes()
        shape = ",".join(f"{k}={v}" for k, v in sh.items())
        for d in devices:
            dev = ["--device", d] if d else []
            r = subprocess.run([tessera_bin(), "run", bundle, "--shape", shape, "--iters", "1"] + dev,
                               capture_output=True, text=True)
            out = r.stdout + r.stderr
            if r.returncode != 0 or "check: passed" not in out:
                return (f"run --shape {shape}{' --device ' + d if d else ''}: " +
                        " | ".join(out.strip().splitlines()[-2:])[:300])
        if oracle:
            import scalar_oracle
            why = scalar_oracle.check(prog, bundle, sh, prog.seed)
            if why and not why.startswith("skip"):
                return f"--shape {shape}: {why}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["gen", "run", "shrink", "emit"])
    ap.add_argument("seed", type=int)
    ap.add_argument("last", type=int, nargs="?")
    ap.add_argument("--targets", default="", help="comma-separated extra targets")
    ap.add_argument("--out", default="", help="emit: folder for bundles and list.txt")
    ap.add_argument("--oracle", action="store_true",
                    help="run: also check the CPU image against a numpy evaluation "
                         "(scalar_oracle.py; needs the tessera Python package)")
    ap.add_argument("--devices", default="",
                    help="run: comma-separated devices (`tessera run --device`), e.g. "
                         "spirv for lavapipe against the CPU image; default: the host")
    a = ap.parse_args()
    targets = [t for t in a.targets.split(",") if t]
    devices = tuple(d for d in a.devices.split(",") if d) or ("",)
    if a.oracle:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if a.mode == "gen":
        sys.stdout.write(Program(a.seed).text())
        return 0
    if a.mode == "emit":
        # Bundles (host + targets) and list.txt lines "bundle --shape ..."
        # for a run on another machine (scripts/gpu/random-programs.sh).
        os.makedirs(a.out, exist_ok=True)
        host = os.uname().machine + "-unknown-linux-gnu"
        last = a.last if a.last is not None else a.seed
        with open(os.path.join(a.out, "list.txt"), "w") as lst:
            for s in range(a.seed, last + 1):
                prog = Program(s)
                src = os.path.join(a.out, f"p{s}.mlir")
                with open(src, "w") as f:
                    f.write(prog.text())
                bundle = os.path.join(a.out, f"p{s}.tsb")
                cmd = [tessera_bin(), "compile", src, "--target", host,
                       "--no-cache", "-o", bundle]
                for t in targets:
                    cmd += ["--target", t]
                c = subprocess.run(cmd, capture_output=True, text=True)
                os.remove(src)
                if c.returncode != 0:
                    print(f"seed {s}: FAIL compile", flush=True)
                    continue
                sh = prog.shapes()
                lst.write(f"p{s}.tsb --shape " +
                          ",".join(f"{k}={v}" for k, v in sh.items()) + "\n")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        if a.mode == "shrink":
            best = Program(a.seed)
            if run_one(best, targets, tmp, devices=devices, oracle=a.oracle) is None:
                print(f"seed {a.seed} passes; nothing to shrink")
                return 0
            for kw in ({"no_reduce": True}, {"one_stage": True}) + tuple(
                    {"drop_epilogue": d} for d in range(1, 5)):
                cand = Program(a.seed, **kw)
                if run_one(cand, targets, tmp, devices=devices, oracle=a.oracle) is not None:
                    best = cand
            sys.stdout.write(best.text())
            return 1
        last = a.last if a.last is not None else a.seed
        failed = 0
        for s in range(a.seed, last + 1):
            why = run_one(Program(s), targets, tmp, devices=devices, oracle=a.oracle)
            print(f"seed {s}: {'ok' if why is None else 'FAIL ' + why}", flush=True)
            failed += why is not None
        print(f"{last - a.seed + 1 - failed} of {last - a.seed + 1} seeds passed")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
