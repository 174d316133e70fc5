"""Family `b2b`: back-to-back GEMMs, an MLP block (examples/zoo/mlp_b2b_bf16
with everything random):

  H_c = act(X W1[:, c] + b1[c])   first gemm into an f32 fragment, per chunk
                                  c of the hidden dim F (a pipelined loop with
                                  a symbolic trip count ceil(F / bf))
  Y  += H_c W2[c, :]              H_c cast to the inputs' dtype in a fragment
                                  (or staged through a shared tile), the A
                                  operand of the second gemm
  Y   = epilogue(Y)

Random: dtypes, the tiles (block rows, hidden chunk, output columns, the
model dim K as a static tensor dim or a symbolic one up to the tile),
threads, stages, the activation (none, ReLU, SiLU, tanh-GELU, a scaled
square, exp of a negative value), a bias on H, stored-transposed W1 / W2,
0-2 epilogue ops on Y. Without its second gemm (the shrinker's
simplification) the kernel writes H itself to an [M, F] output."""
import random

from .common import (SIZES, Lines, elt_bytes, f32_bits, halve_choices,
                     shrink_shape_choices, tensor_t, tile_t)

MAX_WORDS = 128
MAX_SHARED = 160 * 1024
ACTS = ["none", "relu", "silu", "gelu", "sq", "expneg"]
EPI = ["scale", "relu", "rowbias", "colbias", "min", "max"]


def words(d):
    p = 1 if d["dtype"] == "f32" else 0.5
    return (d["bm"] * d["bf"] * (1 + p) + d["bm"] * d["bn"]) / d["threads"] + 8


def shared(d):
    e = elt_bytes(d["dtype"])
    s = e * (d["bm"] * d["K1"] + d["stages"] * (d["K1"] * d["bf"] + d["bf"] * d["bn"]))
    if d["h_shared"]:
        s += e * d["bm"] * d["bf"]
    # Scratch of a layout conversion of H (its cast).
    return s + 4 * d["bm"] * d["bf"]


def fits(d):
    return words(d) <= MAX_WORDS and shared(d) <= MAX_SHARED


def generate(seed):
    r = random.Random(seed)
    d = {"family": "b2b", "seed": seed}
    d["dtype"] = r.choice(["f16", "bf16", "f16", "bf16", "f32"])
    d["out"] = r.choice(["f32", d["dtype"]])
    d["bm"] = r.choice([16, 32, 64, 128])
    d["bf"] = r.choice([16, 32, 64, 128])
    d["bn"] = r.choice([16, 32, 64, 128])
    d["K1"] = r.choice([16, 32, 64, 128])
    d["k_static"] = r.random() < 0.4
    d["threads"] = r.choice([64, 128, 256])
    d["stages"] = r.choice([1, 2, 3, 4])
    d["act"] = r.choice(ACTS)
    d["bias1"] = r.random() < 0.4
    d["h_shared"] = r.random() < 0.25
    d["t1"] = r.random() < 0.3
    d["t2"] = r.random() < 0.3
    d["ops"] = [r.choice(EPI) for _ in range(r.randint(0, 2))]
    d["constants"] = [round(r.uniform(-2, 2) * 64) / 64 for _ in range(4)]
    d["gemm2"] = True
    while not fits(d):
        if d["stages"] > 2:
            d["stages"] -= 1
        elif d["threads"] < 256:
            d["threads"] *= 2
        elif d["bf"] > 16:
            d["bf"] //= 2
        elif d["bn"] > 16:
            d["bn"] //= 2
        else:
            d["bm"] //= 2
    shape_rng = random.Random(seed * 7919 + 3)
    d["shapes"] = []
    for _ in range(2):
        sh = {"M": shape_rng.choice(SIZES), "N": shape_rng.choice(SIZES),
              "F": shape_rng.choice(SIZES)}
        ks = [s for s in SIZES if s <= d["K1"]] + [d["K1"]]
        sh["K"] = shape_rng.choice(ks)
        d["shapes"].append(sh)
    return normalize(d)


def normalize(d):
    for sh in d["shapes"]:
        if d["k_static"]:
            sh.pop("K", None)
        else:
            sh["K"] = min(sh.get("K", d["K1"]), d["K1"])
    return d


def narrowed(d):
    """The dtype H is cast to before the second gemm, or None."""
    return d["dtype"] if d["gemm2"] and d["dtype"] != "f32" else None


def shape_args(d, sh):
    return dict(sh)


def describe(d):
    return (f"b2b {d['dtype']}->{d['out']} tiles bm={d['bm']} bf={d['bf']} bn={d['bn']} "
            f"K1={d['K1']}{' static' if d['k_static'] else ''}, {d['threads']} threads, "
            f"{d['stages']} stages, act {d['act']}, bias1={d['bias1']} h_shared={d['h_shared']} "
            f"t1={d['t1']} t2={d['t2']} epilogue {d['ops']} gemm2={d['gemm2']}")


def shrink(d):
    if d["gemm2"]:
        yield dict(d, gemm2=False, ops=[], t2=False, h_shared=False)
    for i in range(len(d["ops"])):
        yield dict(d, ops=d["ops"][:i] + d["ops"][i + 1:])
    if d["act"] != "none":
        yield dict(d, act="none")
    for k in ("bias1", "h_shared", "t1", "t2", "k_static"):
        if d[k]:
            yield normalize(dict(d, **{k: False}, shapes=[dict(d["shapes"][0])]))
    if d["stages"] > 1:
        yield dict(d, stages=1)
    if d["out"] != "f32":
        yield dict(d, out="f32")
    if d["dtype"] != "f32":
        c = dict(d, dtype="f32", out="f32")
        if fits(c):
            yield c
    for c in halve_choices(d, ["bm", "bf", "bn", "K1"], 16):
        yield normalize(dict(c, shapes=[dict(d["shapes"][0])]))
    if d["threads"] > 64 and fits(dict(d, threads=d["threads"] // 2)):
        yield dict(d, threads=d["threads"] // 2)
    yield from shrink_shape_choices(d, ["M", "N", "F"] + ([] if d["k_static"] else ["K"]))


def _act(L, act, x):
    """Lines computing act(x) (f32) in a tile.parallel; returns its name."""
    if act == "none":
        return x
    if act == "relu":
        L(f"        %ha = arith.maximumf {x}, %zero : f32")
    elif act == "silu":
        L(f"        %hn = arith.negf {x} : f32")
        L("        %he = math.exp %hn : f32")
        L("        %hd = arith.addf %he, %one : f32")
        L(f"        %ha = arith.divf {x}, %hd : f32")
    elif act == "gelu":
        # 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))
        L(f"        %h2 = arith.mulf {x}, {x} : f32")
        L(f"        %h3 = arith.mulf %h2, {x} : f32")
        L("        %hc = arith.mulf %h3, %gelu_c : f32")
        L(f"        %hs = arith.addf {x}, %hc : f32")
        L("        %hk = arith.mulf %hs, %gelu_k : f32")
        L("        %ht = math.tanh %hk : f32")
        L("        %h1 = arith.addf %ht, %one : f32")
        L(f"        %hh = arith.mulf {x}, %half : f32")
        L("        %ha = arith.mulf %hh, %h1 : f32")
    elif act == "sq":
        L(f"        %h2 = arith.mulf {x}, {x} : f32")
        L("        %ha = arith.mulf %h2, %eighth : f32")
    elif act == "expneg":
        L(f"        %hb = math.absf {x} : f32")
        L("        %hm = arith.mulf %hb, %neg_eighth : f32")
        L("        %ha = math.exp %hm : f32")
    return "%ha"


def text(d):
    e, o = d["dtype"], d["out"]
    bm, bf, bn, K1, T = d["bm"], d["bf"], d["bn"], d["K1"], d["threads"]
    kd = K1 if d["k_static"] else "K"
    x_t = tensor_t(["M", kd], e)
    w1_t = tensor_t(["F", kd] if d["t1"] else [kd, "F"], e)
    w2_t = tensor_t(["N", "F"] if d["t2"] else ["F", "N"], e)
    y_t = tensor_t(["M", "N"] if d["gemm2"] else ["M", "F"], o)
    xs_t = tile_t([bm, K1], e, "shared")
    w1s_t = tile_t([bf, K1] if d["t1"] else [K1, bf], e, "shared")
    w2s_t = tile_t([bn, bf] if d["t2"] else [bf, bn], e, "shared")
    hf_t = tile_t([bm, bf], "f32", "fragment")
    hb_t = tile_t([bm, bf], e, "shared" if d["h_shared"] else "fragment")
    yf_t = tile_t([bm, bn], "f32", "fragment")
    ops = d["ops"] if d["gemm2"] else []
    args = [f"%X: {x_t}", f"%W1: {w1_t}"]
    if d["gemm2"]:
        args.append(f"%W2: {w2_t}")
    if d["bias1"]:
        args.append("%b1: !tile.tensor<[F], f32>")
    if "rowbias" in ops:
        args.append("%rb: !tile.tensor<[M], f32>")
    if "colbias" in ops:
        args.append("%cb: !tile.tensor<[N], f32>")
    args.append(f"%Y: {y_t}")
    L = Lines()
    for name, v in [("zero", 0.0), ("one", 1.0), ("half", 0.5), ("eighth", 0.125),
                    ("neg_eighth", -0.125), ("gelu_k", 0.7978845608), ("gelu_c", 0.044715)]:
        L(f"  %{name} = arith.constant {f32_bits(v)} : f32")
    L(f"  %m = tile.dim %X, 0 : {x_t}")
    L(f"  %f = tile.dim %W1, {0 if d['t1'] else 1} : {w1_t}")
    L(f"  %gy = arith.ceildivui %m, {L.c(bm)} : index")
    L(f"  %nf = arith.ceildivui %f, {L.c(bf)} : index")
    if d["gemm2"]:
        L(f"  %n = tile.dim %Y, 1 : {y_t}")
        L(f"  %gx = arith.ceildivui %n, {L.c(bn)} : index")
        L(f"  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = {T} {{")
        L(f"    %col = arith.muli %bx, {L.c(bn)} : index")
    else:
        L(f"  tile.kernel blocks(%by) in (%gy) threads = {T} {{")
    L(f"    %row = arith.muli %by, {L.c(bm)} : index")
    L(f"    %Xs = tile.alloc : {xs_t}")
    L(f"    %W1s = tile.alloc : {w1s_t}")
    L(f"    %Hf = tile.alloc : {hf_t}")
    if d["gemm2"]:
        L(f"    %W2s = tile.alloc : {w2s_t}")
        if e != "f32" or d["h_shared"]:
            L(f"    %Hb = tile.alloc : {hb_t}")
        L(f"    %Yf = tile.alloc : {yf_t}")
        L(f"    tile.clear %Yf : {yf_t}")
    if d["bias1"]:
        L(f"    %b1f = tile.alloc : !tile.tile<{bf}xf32, fragment>")
    # X's row slab, loaded once (columns past K read zero).
    L(f"    tile.copy %X[%row, {L.c(0)}], %Xs : {x_t}, {xs_t}")
    L(f"    tile.pipelined %fc = {L.c(0)} to %nf step {L.c(1)} stages = {d['stages']} {{")
    L(f"      %f0 = arith.muli %fc, {L.c(bf)} : index")
    # Hidden units past F read zero weights; their H (act of the bias
    # padding, 0) meets zero rows of W2.
    w1off = f"%f0, {L.c(0)}" if d["t1"] else f"{L.c(0)}, %f0"
    L(f"      tile.copy %W1[{w1off}], %W1s : {w1_t}, {w1s_t}")
    if d["gemm2"]:
        w2off = "%col, %f0" if d["t2"] else "%f0, %col"
        L(f"      tile.copy %W2[{w2off}], %W2s : {w2_t}, {w2s_t}")
    if d["bias1"]:
        L(f"      tile.copy %b1[%f0], %b1f : !tile.tensor<[F], f32>, !tile.tile<{bf}xf32, fragment>")
    tb1 = " transpose_b" if d["t1"] else ""
    L(f"      tile.gemm %Xs, %W1s, %Hf{tb1} clear : {xs_t}, {w1s_t}, {hf_t}")
    if d["bias1"] or d["act"] != "none":
        L(f"      tile.parallel (%i, %j) in [{bm}, {bf}] {{")
        L(f"        %h0 = tile.load %Hf[%i, %j] : {hf_t}")
        x = "%h0"
        if d["bias1"]:
            L(f"        %bj = tile.load %b1f[%j] : !tile.tile<{bf}xf32, fragment>")
            L("        %hbias = arith.addf %h0, %bj : f32")
            x = "%hbias"
        x = _act(L, d["act"], x)
        L(f"        tile.store {x}, %Hf[%i, %j] : {hf_t}")
        L("      }")
    if d["gemm2"]:
        tb2 = " transpose_b" if d["t2"] else ""
        if e != "f32" or d["h_shared"]:
            L(f"      tile.copy %Hf, %Hb : {hf_t}, {hb_t}")
            L(f"      tile.gemm %Hb, %W2s, %Yf{tb2} : {hb_t}, {w2s_t}, {yf_t}")
        else:
            L(f"      tile.gemm %Hf, %W2s, %Yf{tb2} : {hf_t}, {w2s_t}, {yf_t}")
    else:
        L(f"      tile.copy %Hf, %Y[%row, %f0] : {hf_t}, {y_t}")
    L("    }")
    if "rowbias" in ops:
        L(f"    %rbf = tile.alloc : !tile.tile<{bm}xf32, fragment>")
        L(f"    tile.copy %rb[%row], %rbf : !tile.tensor<[M], f32>, !tile.tile<{bm}xf32, fragment>")
    if "colbias" in ops:
        L(f"    %cbf = tile.alloc : !tile.tile<{bn}xf32, fragment>")
        L(f"    tile.copy %cb[%col], %cbf : !tile.tensor<[N], f32>, !tile.tile<{bn}xf32, fragment>")
    if ops:
        L(f"    tile.parallel (%i, %j) in [{bm}, {bn}] {{")
        L(f"      %y0 = tile.load %Yf[%i, %j] : {yf_t}")
        cur = "%y0"
        for idx, op in enumerate(ops):
            c = f32_bits(d["constants"][idx])
            operand = {
                "scale": (f"arith.constant {c} : f32", "mulf"),
                "relu": (f"arith.constant {f32_bits(0.0)} : f32", "maximumf"),
                "max": (f"arith.constant {c} : f32", "maximumf"),
                "min": (f"arith.constant {c} : f32", "minimumf"),
                "rowbias": (f"tile.load %rbf[%i] : !tile.tile<{bm}xf32, fragment>", "addf"),
                "colbias": (f"tile.load %cbf[%j] : !tile.tile<{bn}xf32, fragment>", "addf"),
            }[op]
            L(f"      %e{idx} = {operand[0]}")
            L(f"      %y{idx + 1} = arith.{operand[1]} {cur}, %e{idx} : f32")
            cur = f"%y{idx + 1}"
        L(f"      tile.store {cur}, %Yf[%i, %j] : {yf_t}")
        L("    }")
    if d["gemm2"]:
        L(f"    tile.copy %Yf, %Y[%row, %col] : {yf_t}, {y_t}")
    L("  }")
    L("  tile.return")
    L("}")
    return L.text([f"// seed {d['seed']}: {describe(d)}"],
                  "tile.func @rand(" + ", ".join(args) + ") {")
