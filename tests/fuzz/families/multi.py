"""Family `multi`: one or two GEMMs over the same A (C = A B, C2 = A B2 in
one pipelined loop, combined as C * C2, C + C2 or silu(C) * C2), an
epilogue, and several reductions of the same accumulator, each writing its
own output:

  R_r = reduce_r(expr_r(C), dim_r)   sum / max / min along dim 0 or dim 1

where expr_r reads C before the epilogue ("raw") or after it ("epi"), as is
or squared, absolute or exp(-|x|/8); elements past the tensor are replaced
by the reduction's identity first (so any tensor size is reduced exactly),
and each block's partial result leaves the kernel one of three ways:
"partial" (row g of a [G, len] output, G the blocks along the reduced dim),
"atomic" (tile.atomic add / max into a [len] output, every block), or
"single" (copied only when one block covers the reduced dim). `accumulate`
reduces into a tile filled with the identity first. The accumulator itself
is optionally written too."""
import random

from .common import (NEG_INF, POS_INF, SIZES, Lines, ceildiv, elt_bytes,
                     f32_bits, halve_choices, shrink_shape_choices, tensor_t,
                     tile_t)

MAX_WORDS = 128
MAX_SHARED = 160 * 1024
EPI = ["scale", "relu", "rowbias", "colbias", "max", "min", "expneg"]
EXPRS = ["id", "sq", "abs", "expneg"]
IDENT = {"sum": f32_bits(0.0), "max": NEG_INF, "min": POS_INF}


def words(d):
    n = 2 + (1 if d["gemm2"] else 0)  # C, the reduced expression, C2
    return d["bm"] * d["bn"] * n / d["threads"] + 4 * len(d["reduces"]) + 4


def shared(d):
    e = elt_bytes(d["dtype"])
    return e * d["stages"] * d["bk"] * (d["bm"] + d["bn"] * (2 if d["gemm2"] else 1))


def fits(d):
    return words(d) <= MAX_WORDS and shared(d) <= MAX_SHARED


def generate(seed):
    r = random.Random(seed)
    d = {"family": "multi", "seed": seed}
    d["dtype"] = r.choice(["f16", "bf16", "f32"])
    d["out"] = r.choice(["f32", d["dtype"]])
    d["bm"] = r.choice([16, 32, 64, 128])
    d["bn"] = r.choice([16, 32, 64, 128])
    d["bk"] = r.choice([16, 32, 64])
    d["threads"] = r.choice([32, 64, 128, 256])
    d["stages"] = r.choice([1, 2, 3, 4])
    d["ta"] = r.random() < 0.3
    d["tb"] = r.random() < 0.3
    d["gemm2"] = r.choice([None, None, "mul", "add", "silu_gate"])
    d["ops"] = [r.choice(EPI) for _ in range(r.randint(0, 3))]
    d["constants"] = [round(r.uniform(-2, 2) * 64) / 64 for _ in range(4)]
    d["write_c"] = r.random() < 0.6
    d["reduces"] = []
    for _ in range(r.randint(1, 4)):
        kind = r.choice(["sum", "max", "min"])
        modes = ["partial", "single"] + (["atomic"] if kind != "min" else [])
        x = {"kind": kind, "dim": r.choice([0, 1]),
             "stage": r.choice(["raw", "epi"]), "expr": r.choice(EXPRS),
             "mode": r.choice(modes), "accumulate": r.random() < 0.3}
        # The min of x^2 or |x| is the value nearest 0, whose f32 rounding
        # of a long sum is a large part of it: ill-conditioned, checked
        # against other accumulation orders with no meaningful tolerance.
        if kind == "min" and x["expr"] in ("sq", "abs"):
            x["expr"] = "id"
        d["reduces"].append(x)
    while not fits(d):
        if d["threads"] < 256:
            d["threads"] *= 2
        elif d["stages"] > 2:
            d["stages"] -= 1
        elif d["bn"] > 16:
            d["bn"] //= 2
        else:
            d["bm"] //= 2
    shape_rng = random.Random(seed * 7919 + 4)
    d["shapes"] = [{"M": shape_rng.choice(SIZES), "N": shape_rng.choice(SIZES),
                    "K": shape_rng.choice(SIZES)} for _ in range(2)]
    return d


def restrict(d, targets):
    """What the targets cannot compile, replaced (nothing now: the spirv
    backend's f32 atomic max, once missing, is
    tests/lit/spirv/atomic_max_f32.mlir)."""
    return d


def shape_args(d, sh):
    """The free symbols plus G0 / G1, the blocks along dim 0 / 1 (the
    first dims of the partial outputs)."""
    out = dict(sh)
    if any(r["mode"] == "partial" and r["dim"] == 0 for r in d["reduces"]):
        out["G0"] = ceildiv(sh["M"], d["bm"])
    if any(r["mode"] == "partial" and r["dim"] == 1 for r in d["reduces"]):
        out["G1"] = ceildiv(sh["N"], d["bn"])
    return out


def describe(d):
    red = ", ".join(f"{x['kind']}{'+acc' if x['accumulate'] else ''} dim {x['dim']} of "
                    f"{x['expr']}({x['stage']}) {x['mode']}" for x in d["reduces"])
    return (f"multi {d['dtype']}->{d['out']} tiles {d['bm']}x{d['bn']}x{d['bk']}, "
            f"{d['threads']} threads, {d['stages']} stages, transpose_a={d['ta']} "
            f"transpose_b={d['tb']}, gemm2 {d['gemm2']}, epilogue {d['ops']}, "
            f"write_c={d['write_c']}, reduces [{red}]")


def shrink(d):
    if d["gemm2"]:
        yield dict(d, gemm2=None)
    if len(d["reduces"]) > 1:
        for i in range(len(d["reduces"])):
            yield dict(d, reduces=d["reduces"][:i] + d["reduces"][i + 1:])
    elif d["write_c"]:
        yield dict(d, write_c=False)
    for i in range(len(d["ops"])):
        yield dict(d, ops=d["ops"][:i] + d["ops"][i + 1:])
    for i, x in enumerate(d["reduces"]):
        for k, v in (("expr", "id"), ("stage", "raw"), ("accumulate", False), ("mode", "partial")):
            if x[k] != v:
                rs = list(d["reduces"])
                rs[i] = dict(x, **{k: v})
                yield dict(d, reduces=rs)
    if d["stages"] > 1:
        yield dict(d, stages=1)
    for k in ("ta", "tb"):
        if d[k]:
            yield dict(d, **{k: False})
    if d["out"] != "f32":
        yield dict(d, out="f32")
    if d["dtype"] != "f32":
        c = dict(d, dtype="f32", out="f32")
        if fits(c):
            yield c
    for c in halve_choices(d, ["bm", "bn", "bk"], 16):
        yield c
    if d["threads"] > 32 and fits(dict(d, threads=d["threads"] // 2)):
        yield dict(d, threads=d["threads"] // 2)
    yield from shrink_shape_choices(d, ["M", "N", "K"])


def _epilogue(L, d, cf_t):
    bm, bn = d["bm"], d["bn"]
    L(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
    L(f"      %v0 = tile.load %Cf[%i, %j] : {cf_t}")
    cur = "%v0"
    for idx, op in enumerate(d["ops"]):
        nv = f"%v{idx + 1}"
        c = f32_bits(d["constants"][idx % len(d["constants"])])
        binary = {
            "scale": (f"arith.constant {c} : f32", "mulf"),
            "relu": ("arith.constant 0.0 : f32", "maximumf"),
            "max": (f"arith.constant {c} : f32", "maximumf"),
            "min": (f"arith.constant {c} : f32", "minimumf"),
            "rowbias": (f"tile.load %rbf[%i] : !tile.tile<{bm}xf32, fragment>", "addf"),
            "colbias": (f"tile.load %cbf[%j] : !tile.tile<{bn}xf32, fragment>", "addf"),
        }
        if op in binary:
            operand, fn = binary[op]
            L(f"      %k{idx} = {operand}")
            L(f"      {nv} = arith.{fn} {cur}, %k{idx} : f32")
        else:  # expneg
            L(f"      %a{idx} = math.absf {cur} : f32")
            L(f"      %t{idx} = arith.mulf %a{idx}, %neg_eighth : f32")
            L(f"      {nv} = math.exp %t{idx} : f32")
        cur = nv
    L(f"      tile.store {cur}, %Cf[%i, %j] : {cf_t}")
    L("    }")


def _reduce(L, d, idx, x, cf_t):
    bm, bn = d["bm"], d["bn"]
    et = tile_t([bm, bn], "f32", "fragment")
    ln = bn if x["dim"] == 0 else bm
    rt = tile_t([ln], "f32", "fragment")
    ident = IDENT[x["kind"]]
    L(f"    // reduce {idx}: {x['kind']} along dim {x['dim']} of {x['expr']}({x['stage']}), {x['mode']}")
    L(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
    L(f"      %x = tile.load %Cf[%i, %j] : {cf_t}")
    v = "%x"
    if x["expr"] == "sq":
        L("      %xe = arith.mulf %x, %x : f32")
        v = "%xe"
    elif x["expr"] == "abs":
        L("      %xe = math.absf %x : f32")
        v = "%xe"
    elif x["expr"] == "expneg":
        L("      %xa = math.absf %x : f32")
        L("      %xm = arith.mulf %xa, %neg_eighth : f32")
        L("      %xe = math.exp %xm : f32")
        v = "%xe"
    L("      %r = arith.addi %row, %i : index")
    L("      %c = arith.addi %col, %j : index")
    L("      %rin = arith.cmpi ult, %r, %m : index")
    L("      %cin = arith.cmpi ult, %c, %n : index")
    L("      %in = arith.andi %rin, %cin : i1")
    L(f"      %id = arith.constant {ident} : f32")
    L(f"      %y = arith.select %in, {v}, %id : f32")
    L(f"      tile.store %y, %Ef[%i, %j] : {et}")
    L("    }")
    L(f"    %R{idx}f = tile.alloc : {rt}")
    acc = ""
    if x["accumulate"]:
        L(f"    %id{idx} = arith.constant {ident} : f32")
        L(f"    tile.fill %R{idx}f, %id{idx} : {rt}, f32")
        acc = " accumulate"
    L(f"    tile.reduce {x['kind']} %Ef, %R{idx}f dim = {x['dim']}{acc} : {et}, {rt}")
    off = "%col" if x["dim"] == 0 else "%row"
    lsym = "N" if x["dim"] == 0 else "M"
    if x["mode"] == "partial":
        g = "%by" if x["dim"] == 0 else "%bx"
        t = tensor_t([f"G{x['dim']}", lsym], "f32")
        L(f"    tile.copy %R{idx}f, %R{idx}[{g}, {off}] : {rt}, {t}")
    elif x["mode"] == "atomic":
        t = tensor_t([lsym], "f32")
        kind = "add" if x["kind"] == "sum" else "max"
        L(f"    tile.atomic {kind} %R{idx}f, %R{idx}[{off}] : {rt}, {t}")
    else:
        t = tensor_t([lsym], "f32")
        L(f"    %one{idx} = arith.cmpi eq, {'%gy' if x['dim'] == 0 else '%gx'}, {L.c(1)} : index")
        L(f"    scf.if %one{idx} {{")
        L(f"      tile.copy %R{idx}f, %R{idx}[{off}] : {rt}, {t}")
        L("    }")


def out_tensor(x):
    lsym = "N" if x["dim"] == 0 else "M"
    if x["mode"] == "partial":
        return tensor_t([f"G{x['dim']}", lsym], "f32")
    return tensor_t([lsym], "f32")


def text(d):
    e, o = d["dtype"], d["out"]
    bm, bn, bk, ta, tb = d["bm"], d["bn"], d["bk"], d["ta"], d["tb"]
    a_t = tensor_t(["K", "M"] if ta else ["M", "K"], e)
    b_t = tensor_t(["N", "K"] if tb else ["K", "N"], e)
    as_t = tile_t([bk, bm] if ta else [bm, bk], e, "shared")
    bs_t = tile_t([bn, bk] if tb else [bk, bn], e, "shared")
    cf_t = tile_t([bm, bn], "f32", "fragment")
    c_t = tensor_t(["M", "N"], o)
    ops = d["ops"]
    args = [f"%A: {a_t}", f"%B: {b_t}"]
    if d["gemm2"]:
        args.append(f"%B2: {b_t}")
    if "rowbias" in ops:
        args.append("%rb: !tile.tensor<[M], f32>")
    if "colbias" in ops:
        args.append("%cb: !tile.tensor<[N], f32>")
    if d["write_c"]:
        args.append(f"%C: {c_t}")
    for i, x in enumerate(d["reduces"]):
        args.append(f"%R{i}: {out_tensor(x)}")
    L = Lines()
    L(f"  %neg_eighth = arith.constant {f32_bits(-0.125)} : f32")
    L(f"  %one_f = arith.constant {f32_bits(1.0)} : f32")
    L(f"  %m = tile.dim %A, {1 if ta else 0} : {a_t}")
    L(f"  %k = tile.dim %A, {0 if ta else 1} : {a_t}")
    L(f"  %n = tile.dim %B, {0 if tb else 1} : {b_t}")
    L(f"  %gx = arith.ceildivui %n, {L.c(bn)} : index")
    L(f"  %gy = arith.ceildivui %m, {L.c(bm)} : index")
    L(f"  %nk = arith.ceildivui %k, {L.c(bk)} : index")
    L(f"  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = {d['threads']} {{")
    L(f"    %As = tile.alloc : {as_t}")
    L(f"    %Bs = tile.alloc : {bs_t}")
    L(f"    %Cf = tile.alloc : {cf_t}")
    L(f"    tile.clear %Cf : {cf_t}")
    if d["gemm2"]:
        L(f"    %B2s = tile.alloc : {bs_t}")
        L(f"    %C2f = tile.alloc : {cf_t}")
        L(f"    tile.clear %C2f : {cf_t}")
    L(f"    %Ef = tile.alloc : {cf_t}")
    L(f"    %row = arith.muli %by, {L.c(bm)} : index")
    L(f"    %col = arith.muli %bx, {L.c(bn)} : index")
    L(f"    tile.pipelined %kt = {L.c(0)} to %nk step {L.c(1)} stages = {d['stages']} {{")
    L(f"      %k0 = arith.muli %kt, {L.c(bk)} : index")
    aoff = "%k0, %row" if ta else "%row, %k0"
    boff = "%col, %k0" if tb else "%k0, %col"
    L(f"      tile.copy %A[{aoff}], %As : {a_t}, {as_t}")
    L(f"      tile.copy %B[{boff}], %Bs : {b_t}, {bs_t}")
    if d["gemm2"]:
        L(f"      tile.copy %B2[{boff}], %B2s : {b_t}, {bs_t}")
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    L(f"      tile.gemm %As, %Bs, %Cf{flags} : {as_t}, {bs_t}, {cf_t}")
    if d["gemm2"]:
        L(f"      tile.gemm %As, %B2s, %C2f{flags} : {as_t}, {bs_t}, {cf_t}")
    L("    }")
    if d["gemm2"]:
        L(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
        L(f"      %g1 = tile.load %Cf[%i, %j] : {cf_t}")
        L(f"      %g2 = tile.load %C2f[%i, %j] : {cf_t}")
        if d["gemm2"] == "mul":
            L("      %gc = arith.mulf %g1, %g2 : f32")
        elif d["gemm2"] == "add":
            L("      %gc = arith.addf %g1, %g2 : f32")
        else:  # silu(g1) * g2
            L("      %gn = arith.negf %g1 : f32")
            L("      %ge = math.exp %gn : f32")
            L("      %gd = arith.addf %ge, %one_f : f32")
            L("      %gs = arith.divf %g1, %gd : f32")
            L("      %gc = arith.mulf %gs, %g2 : f32")
        L(f"      tile.store %gc, %Cf[%i, %j] : {cf_t}")
        L("    }")
    for i, x in enumerate(d["reduces"]):
        if x["stage"] == "raw":
            _reduce(L, d, i, x, cf_t)
    if "rowbias" in ops:
        L(f"    %rbf = tile.alloc : !tile.tile<{bm}xf32, fragment>")
        L(f"    tile.copy %rb[%row], %rbf : !tile.tensor<[M], f32>, !tile.tile<{bm}xf32, fragment>")
    if "colbias" in ops:
        L(f"    %cbf = tile.alloc : !tile.tile<{bn}xf32, fragment>")
        L(f"    tile.copy %cb[%col], %cbf : !tile.tensor<[N], f32>, !tile.tile<{bn}xf32, fragment>")
    if ops:
        _epilogue(L, d, cf_t)
    for i, x in enumerate(d["reduces"]):
        if x["stage"] == "epi":
            _reduce(L, d, i, x, cf_t)
    if d["write_c"]:
        L(f"    tile.copy %Cf, %C[%row, %col] : {cf_t}, {c_t}")
    L("  }")
    L("  tile.return")
    L("}")
    return L.text([f"// seed {d['seed']}: {describe(d)}"],
                  "tile.func @rand(" + ", ".join(args) + ") {")
