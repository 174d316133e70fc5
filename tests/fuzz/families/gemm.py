"""Family `gemm`: one GEMM C = epilogue(op(A) op(B)) with random tile sizes
the targets' atoms divide, thread counts, stages, dtypes, transposes, an
epilogue of random element-wise ops (scale, bias by row or column, ReLU,
max/min with constants, exp of a negative value), optionally followed by a
reduction (sum or max) of the epilogue's result along either dimension into
a second output (checked where one block covers the reduced dim), and masked
edges from tensor sizes that the tiles do not divide. The seeds give the
programs they gave before the other families existed."""
import random

from .common import halve_choices, shrink_shape_choices

OPS = ["scale", "relu", "rowbias", "colbias", "max", "min", "expneg"]


def generate(seed):
    r = random.Random(seed)
    d = {"family": "gemm", "seed": seed}
    d["dtype"] = r.choice(["f16", "bf16", "f32"])
    d["out"] = r.choice(["f32", d["dtype"]])
    d["bm"] = r.choice([16, 32, 64, 128])
    d["bn"] = r.choice([16, 32, 64, 128])
    d["bk"] = r.choice([16, 32, 64])
    d["threads"] = r.choice([32, 64, 128, 256])
    # Legal for every target: at most 64 accumulator elements a thread
    # (more is a register-budget error on GPUs, a correct one).
    while d["bm"] * d["bn"] // d["threads"] > 64:
        if d["threads"] < 256:
            d["threads"] *= 2
        else:
            d["bn"] //= 2
    d["stages"] = r.choice([1, 2, 3, 4])
    d["ta"] = r.random() < 0.3
    d["tb"] = r.random() < 0.3
    n_ops = r.randint(0, 4)
    d["ops"] = [r.choice(OPS) for _ in range(n_ops)]
    d["constants"] = [round(r.uniform(-2, 2), 3) for _ in range(8)]
    d["reduce"] = None if r.random() < 0.5 else [r.choice(["sum", "max"]), r.choice([0, 1])]
    shape_rng = random.Random(seed * 7919 + 1)
    d["shapes"] = []
    for _ in range(2):
        pick = lambda: shape_rng.choice([1, 2, 17, 31, 64, 97, 128, 131, 200, 257])
        d["shapes"].append({"M": pick(), "N": pick(), "K": pick()})
    return normalize(d)


def normalize(d):
    """Shapes clamped where the reduction is checked: one block covers the
    reduced dim."""
    if d["reduce"]:
        for sh in d["shapes"]:
            if d["reduce"][1] == 0:
                sh["M"] = min(sh["M"], d["bm"])
            else:
                sh["N"] = min(sh["N"], d["bn"])
    return d


def shape_args(d, sh):
    return dict(sh)


def describe(d):
    return (f"{d['dtype']}->{d['out']} tiles {d['bm']}x{d['bn']}x{d['bk']}, "
            f"{d['threads']} threads, {d['stages']} stages, "
            f"transpose_a={d['ta']} transpose_b={d['tb']}, epilogue {d['ops']}, "
            f"reduce {d['reduce']}")


def shrink(d):
    """Smaller variants of d, simplest first."""
    if d["reduce"]:
        yield dict(d, reduce=None)
    for i in range(len(d["ops"])):
        yield dict(d, ops=d["ops"][:i] + d["ops"][i + 1:])
    if d["stages"] > 1:
        yield dict(d, stages=1)
    for k in ("ta", "tb"):
        if d[k]:
            yield dict(d, **{k: False})
    if d["out"] != "f32":
        yield dict(d, out="f32")
    if d["dtype"] != "f32":
        yield dict(d, dtype="f32", out="f32")
    for c in halve_choices(d, ["bm", "bn", "bk"], 16):
        yield normalize(c)
    if d["threads"] > 32 and d["bm"] * d["bn"] // (d["threads"] // 2) <= 64:
        yield dict(d, threads=d["threads"] // 2)
    yield from (normalize(c) for c in shrink_shape_choices(d, ["M", "N", "K"]))


def text(d):
    e, o = d["dtype"], d["out"]
    bm, bn, bk = d["bm"], d["bn"], d["bk"]
    ta, tb, ops = d["ta"], d["tb"], d["ops"]
    a_t = f"!tile.tensor<[K, M], {e}>" if ta else f"!tile.tensor<[M, K], {e}>"
    b_t = f"!tile.tensor<[N, K], {e}>" if tb else f"!tile.tensor<[K, N], {e}>"
    as_t = f"!tile.tile<{bk}x{bm}x{e}, shared>" if ta else f"!tile.tile<{bm}x{bk}x{e}, shared>"
    bs_t = f"!tile.tile<{bn}x{bk}x{e}, shared>" if tb else f"!tile.tile<{bk}x{bn}x{e}, shared>"
    cf_t = f"!tile.tile<{bm}x{bn}xf32, fragment>"
    args = [f"%A: {a_t}", f"%B: {b_t}"]
    if "rowbias" in ops:
        args.append("%rb: !tile.tensor<[M], f32>")
    if "colbias" in ops:
        args.append("%cb: !tile.tensor<[N], f32>")
    args.append(f"%C: !tile.tensor<[M, N], {o}>")
    if d["reduce"]:
        args.append("%%R: !tile.tensor<[%s], f32>" % ("N" if d["reduce"][1] == 0 else "M"))
    L = []
    L.append(f"// seed {d['seed']}: {describe(d)}")
    L.append("tile.func @rand(" + ", ".join(args) + ") {")
    L.append("  %c0 = arith.constant 0 : index")
    L.append("  %c1 = arith.constant 1 : index")
    for v in sorted({bm, bn, bk}):
        L.append(f"  %c{v} = arith.constant {v} : index")
    L.append(f"  %m = tile.dim %C, 0 : !tile.tensor<[M, N], {o}>")
    L.append(f"  %n = tile.dim %C, 1 : !tile.tensor<[M, N], {o}>")
    L.append(f"  %k = tile.dim %A, {0 if ta else 1} : {a_t}")
    L.append(f"  %gx = arith.ceildivui %n, %c{bn} : index")
    L.append(f"  %gy = arith.ceildivui %m, %c{bm} : index")
    L.append(f"  %nk = arith.ceildivui %k, %c{bk} : index")
    L.append(f"  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = {d['threads']} {{")
    L.append(f"    %As = tile.alloc : {as_t}")
    L.append(f"    %Bs = tile.alloc : {bs_t}")
    L.append(f"    %Cf = tile.alloc : {cf_t}")
    L.append(f"    tile.clear %Cf : {cf_t}")
    L.append(f"    %row = arith.muli %by, %c{bm} : index")
    L.append(f"    %col = arith.muli %bx, %c{bn} : index")
    L.append(f"    tile.pipelined %kt = %c0 to %nk step %c1 stages = {d['stages']} {{")
    L.append(f"      %k0 = arith.muli %kt, %c{bk} : index")
    aoff = "%k0, %row" if ta else "%row, %k0"
    boff = "%col, %k0" if tb else "%k0, %col"
    L.append(f"      tile.copy %A[{aoff}], %As : {a_t}, {as_t}")
    L.append(f"      tile.copy %B[{boff}], %Bs : {b_t}, {bs_t}")
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    L.append(f"      tile.gemm %As, %Bs, %Cf{flags} : {as_t}, {bs_t}, {cf_t}")
    L.append("    }")
    if "rowbias" in ops:
        L.append(f"    %rbf = tile.alloc : !tile.tile<{bm}xf32, fragment>")
        L.append(f"    tile.copy %rb[%row], %rbf : !tile.tensor<[M], f32>, !tile.tile<{bm}xf32, fragment>")
    if "colbias" in ops:
        L.append(f"    %cbf = tile.alloc : !tile.tile<{bn}xf32, fragment>")
        L.append(f"    tile.copy %cb[%col], %cbf : !tile.tensor<[N], f32>, !tile.tile<{bn}xf32, fragment>")
    if ops:
        L.append(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
        L.append(f"      %v0 = tile.load %Cf[%i, %j] : {cf_t}")
        cur = "%v0"
        for idx, op in enumerate(ops):
            c = d["constants"][idx]
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
    if d["reduce"]:
        kind, dim = d["reduce"]
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
