"""The independent oracle of gen_tile_programs.py: a random program's
outputs computed with numpy from the program's description (the plain dict
of tests/fuzz/families/*, never its tile IR), in float64 with the roundings
the description implies (inputs and outputs stored as f16 / bf16 / f32,
attention's P and the MLP's H cast to the inputs' dtype), and compared with
what the compiled kernel wrote.

It imports nothing of tessera: `check` takes a `launch` callable that runs
the kernel on a list of (dtype, float64 array) arguments and returns the
arrays after the run (gen_tile_programs.py launches the CPU image through
the Python runtime). Inputs are small multiples of a power of two, exact in
every dtype, so most products and sums are exact in f32 too; what is left
(f32 rounding of long sums, exp, the output rounding, a rounding of a cast
intermediate that lands on the other side of a tie) is what the tolerances
allow, scaled by the sum lengths and the dtypes' unit roundoffs.

Argument order per family (the order of the tile.func's arguments):
  gemm:  A, B, [rb], [cb], C, [R]
  attn:  Q, K, V, [O], [LSE]
  b2b:   X, W1, [W2], [b1], [rb], [cb], Y
  multi: A, B, [B2], [rb], [cb], [C], R0, R1, ...
"""
import math

import numpy as np

U32 = 2.0 ** -24
# Unit roundoff of each stored dtype (half an ulp, relative).
UNIT = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}


def round_to(x, dtype):
    """x (float64) rounded to `dtype`, as float64 (round to nearest even,
    through f32 as the kernels do)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "f16":
        return x.astype(np.float32).astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        u = np.ascontiguousarray(x.astype(np.float32)).view(np.uint32).astype(np.uint64)
        u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
        return u.view(np.float32).astype(np.float64)
    raise ValueError(dtype)


def f32(x):
    return float(np.float32(x))


def _grid(rng, shape, step):
    """Multiples of `step` in [-1, 1]."""
    n = int(round(1 / step))
    return rng.integers(-n, n + 1, size=shape).astype(np.float64) * step


def _rel(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return math.inf
    if not np.all(np.isfinite(got)):
        return math.inf
    den = float(np.sqrt(np.sum(want * want)))
    num = float(np.sqrt(np.sum((got - want) ** 2)))
    return num / den if den > 0 else num


def _elementwise(got, want, bound):
    """Worst |got - want| / bound; inf where got is not finite."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape or not np.all(np.isfinite(got)):
        return math.inf
    if got.size == 0:
        return 0.0
    return float(np.max(np.abs(got - want) / bound))


def _ceildiv(a, b):
    return -(-a // b)


# ---------------------------------------------------------------------------
# Element-wise ops named in the descriptions.

def _epi(ops, consts, x, rb, cb, const_f32=False):
    for idx, op in enumerate(ops):
        c = consts[idx % len(consts)]
        if const_f32:
            c = f32(c)
        if op == "scale":
            x = x * c
        elif op == "relu":
            x = np.maximum(x, 0.0)
        elif op == "max":
            x = np.maximum(x, c)
        elif op == "min":
            x = np.minimum(x, c)
        elif op == "rowbias":
            x = x + rb[:, None]
        elif op == "colbias":
            x = x + cb[None, :]
        elif op == "expneg":
            x = np.exp(-np.abs(x) / 8.0)
        else:
            raise ValueError(op)
    return x


def _act(act, x):
    if act == "none":
        return x
    if act == "relu":
        return np.maximum(x, 0.0)
    if act == "silu":
        return x / (1.0 + np.exp(-x))
    if act == "gelu":
        k, c = f32(0.7978845608), f32(0.044715)
        return 0.5 * x * (1.0 + np.tanh(k * (x + c * x ** 3)))
    if act == "sq":
        return x * x * 0.125
    if act == "expneg":
        return np.exp(-np.abs(x) / 8.0)
    raise ValueError(act)


# ---------------------------------------------------------------------------
# gemm

def _gemm_args(d, sh, rng):
    M, N, K = sh["M"], sh["N"], sh["K"]
    A = _grid(rng, (K, M) if d["ta"] else (M, K), 0.25)
    B = _grid(rng, (N, K) if d["tb"] else (K, N), 0.25)
    args = [("A", d["dtype"], A), ("B", d["dtype"], B)]
    if "rowbias" in d["ops"]:
        args.append(("rb", "f32", _grid(rng, (M,), 0.25)))
    if "colbias" in d["ops"]:
        args.append(("cb", "f32", _grid(rng, (N,), 0.25)))
    args.append(("C", d["out"], np.full((M, N), np.nan)))
    if d["reduce"]:
        args.append(("R", "f32", np.full((N if d["reduce"][1] == 0 else M,), np.nan)))
    return args


def _gemm_eval(d, sh, a):
    M, N = sh["M"], sh["N"]
    am = a["A"].T if d["ta"] else a["A"]
    bm_ = a["B"].T if d["tb"] else a["B"]
    rb = a.get("rb", np.zeros(M))
    cb = a.get("cb", np.zeros(N))
    acc = am @ bm_
    want = {"C": round_to(_epi(d["ops"], d["constants"], acc, rb, cb), d["out"])}
    tol = {"C": ("rel", UNIT[d["out"]] * 2 + 2e-5)}
    if d["reduce"]:
        kind, dim = d["reduce"]
        # The block's tile: M <= bm rows (dim 0) or N <= bn columns (dim 1)
        # exist; the rest of the tile holds the epilogue of zeros.
        if dim == 0:
            ext = np.zeros((d["bm"], N))
            ext[:M] = acc
            rbe = np.zeros(d["bm"])
            rbe[:M] = rb
            tile = _epi(d["ops"], d["constants"], ext, rbe, cb)
            red = tile.sum(axis=0) if kind == "sum" else tile.max(axis=0)
            n = d["bm"]
        else:
            ext = np.zeros((M, d["bn"]))
            ext[:, :N] = acc
            cbe = np.zeros(d["bn"])
            cbe[:N] = cb
            tile = _epi(d["ops"], d["constants"], ext, rb, cbe)
            red = tile.sum(axis=1) if kind == "sum" else tile.max(axis=1)
            n = d["bn"]
        want["R"] = red
        scale = np.abs(tile).sum(axis=dim)
        tol["R"] = ("abs", 4 * (n + 16) * U32 * scale + 1e-6 * np.abs(red) + 1e-30)
    return want, tol


# ---------------------------------------------------------------------------
# attn

def _attn_args(d, sh, rng):
    H = sh.get("H", 1) if d["heads"] else 1
    Lq, Lk, D = sh["Lq"], sh["Lk"], d["D"]
    pre = (H,) if d["heads"] else ()
    args = [("Q", d["dtype"], _grid(rng, pre + (Lq, D), 1 / 16)),
            ("K", d["dtype"], _grid(rng, pre + ((D, Lk) if d["k_t"] else (Lk, D)), 1 / 16)),
            ("V", d["dtype"], _grid(rng, pre + (Lk, D), 1 / 16))]
    if d["pv"]:
        args.append(("O", d["out"], np.full(pre + (Lq, D), np.nan)))
    if d["lse"]:
        args.append(("LSE", "f32", np.full(pre + (Lq,), np.nan)))
    return args


def _attn_head(d, q, k, v):
    """One head: O (unrounded) and LSE, block by block as the description
    says: P rounded to the inputs' dtype relative to the running max."""
    Lq, Lk = q.shape[0], k.shape[0]
    bm, bn = d["bm"], d["bn"]
    exp = np.exp2 if d["exp2"] else np.exp
    scale = f32(d["scale"] * 1.4426950408889634) if d["exp2"] else f32(d["scale"])
    O = np.zeros((Lq, d["D"]))
    LSE = np.zeros(Lq)
    kv_blocks = _ceildiv(Lk, bn)
    for q0 in range(0, Lq, bm):
        rows = np.arange(q0, min(q0 + bm, Lq))
        kv_end = min(_ceildiv(q0 + bm, bn), kv_blocks) if d["causal"] else kv_blocks
        m = np.full(len(rows), -np.inf)
        l = np.zeros(len(rows))
        acc = np.zeros((len(rows), d["D"]))
        for j in range(kv_end):
            keys = np.arange(j * bn, min(j * bn + bn, Lk))
            # Q K^T is exact in f32 (sixteenths, D <= 256); one rounding
            # for the scale.
            s = round_to((q[rows] @ k[keys].T) * scale, "f32")
            if d["causal"]:
                s = np.where(keys[None, :] <= rows[:, None], s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1) if len(keys) else m)
            ms = np.where(m_new == -np.inf, 0.0, m_new)
            with np.errstate(invalid="ignore"):
                alpha = exp(m - ms)
            p = exp(s - ms[:, None])
            l = l * alpha + p.sum(axis=1)
            pr = p if d["dtype"] == "f32" else round_to(p, d["dtype"])
            acc = acc * alpha[:, None] + pr @ v[keys]
            m = m_new
        O[rows] = acc / l[:, None]
        LSE[rows] = m + (np.log2(l) if d["exp2"] else np.log(l))
    return O, LSE


def _attn_eval(d, sh, a):
    Lk = sh["Lk"]
    q, k, v = a["Q"], a["K"], a["V"]
    if d["k_t"]:
        k = np.swapaxes(k, -1, -2)
    if not d["heads"]:
        q, k, v = q[None], k[None], v[None]
    Os, Ls = zip(*[_attn_head(d, q[h], k[h], v[h]) for h in range(q.shape[0])])
    O, LSE = np.stack(Os), np.stack(Ls)
    if not d["heads"]:
        O, LSE = O[0], LSE[0]
    want, tol = {}, {}
    u_p = 0.0 if d["dtype"] == "f32" else UNIT[d["dtype"]]
    fast = 2e-6 if d["afn"] else 0.0
    if d["pv"]:
        want["O"] = round_to(O, d["out"])
        # Output rounding; f32 sums over the keys and the rescales; about
        # one cast of P rounded the other way.
        tol["O"] = ("rel", UNIT[d["out"]] * 2 + 64 * U32 * math.sqrt(Lk + d["D"]) + fast * 8
                    + 4 * u_p / math.sqrt(max(1, O.size // d["D"])))
    if d["lse"]:
        want["LSE"] = LSE
        tol["LSE"] = ("abs", np.full(LSE.shape, (8 * Lk + 64) * U32 * 4 + fast * 8)
                      * (1 + np.abs(LSE)))
    return want, tol


# ---------------------------------------------------------------------------
# b2b

def _b2b_args(d, sh, rng):
    M, F = sh["M"], sh["F"]
    K = d["K1"] if d["k_static"] else sh["K"]
    N = sh["N"]
    ops = d["ops"] if d["gemm2"] else []
    args = [("X", d["dtype"], _grid(rng, (M, K), 0.25)),
            ("W1", d["dtype"], _grid(rng, (F, K) if d["t1"] else (K, F), 0.25))]
    if d["gemm2"]:
        args.append(("W2", d["dtype"], _grid(rng, (N, F) if d["t2"] else (F, N), 0.25)))
    if d["bias1"]:
        args.append(("b1", "f32", _grid(rng, (F,), 0.25)))
    if "rowbias" in ops:
        args.append(("rb", "f32", _grid(rng, (M,), 0.25)))
    if "colbias" in ops:
        args.append(("cb", "f32", _grid(rng, (N,), 0.25)))
    args.append(("Y", d["out"], np.full((M, N) if d["gemm2"] else (M, F), np.nan)))
    return args


def _b2b_eval(d, sh, a):
    M, F = sh["M"], sh["F"]
    w1 = a["W1"].T if d["t1"] else a["W1"]
    h = a["X"] @ w1  # exact in f32
    if d["bias1"]:
        h = h + a["b1"][None, :]
    h = _act(d["act"], h)
    if not d["gemm2"]:
        return ({"Y": round_to(h, d["out"])},
                {"Y": ("rel", UNIT[d["out"]] * 2 + 16 * U32)})
    hr = round_to(h, d["dtype"])
    w2 = a["W2"].T if d["t2"] else a["W2"]
    y = hr @ w2
    y = _epi(d["ops"], d["constants"], y, a.get("rb"), a.get("cb"))
    u_h = 0.0 if d["dtype"] == "f32" else UNIT[d["dtype"]]
    return ({"Y": round_to(y, d["out"])},
            {"Y": ("rel", UNIT[d["out"]] * 2 + 64 * U32 * math.sqrt(F + 16)
                   + 8 * u_h / math.sqrt(max(1, M * F)))})


# ---------------------------------------------------------------------------
# multi

def _multi_out_shape(d, sh, x):
    M, N = sh["M"], sh["N"]
    ln = N if x["dim"] == 0 else M
    if x["mode"] == "partial":
        g = _ceildiv(M, d["bm"]) if x["dim"] == 0 else _ceildiv(N, d["bn"])
        return (g, ln)
    return (ln,)


def _multi_args(d, sh, rng):
    M, N, K = sh["M"], sh["N"], sh["K"]
    args = [("A", d["dtype"], _grid(rng, (K, M) if d["ta"] else (M, K), 0.25)),
            ("B", d["dtype"], _grid(rng, (N, K) if d["tb"] else (K, N), 0.25))]
    if d["gemm2"]:
        args.append(("B2", d["dtype"], _grid(rng, (N, K) if d["tb"] else (K, N), 0.25)))
    if "rowbias" in d["ops"]:
        args.append(("rb", "f32", _grid(rng, (M,), 0.25)))
    if "colbias" in d["ops"]:
        args.append(("cb", "f32", _grid(rng, (N,), 0.25)))
    if d["write_c"]:
        args.append(("C", d["out"], np.full((M, N), np.nan)))
    for i, x in enumerate(d["reduces"]):
        shape = _multi_out_shape(d, sh, x)
        # Atomics combine with what is there; "single" leaves it when the
        # grid has several blocks along the dim.
        init = (_grid(rng, shape, 0.25) if x["mode"] in ("atomic", "single")
                else np.full(shape, np.nan))
        args.append((f"R{i}", "f32", init))
    return args


def _multi_eval(d, sh, a):
    am = a["A"].T if d["ta"] else a["A"]
    c = am @ (a["B"].T if d["tb"] else a["B"])  # exact in f32
    if d["gemm2"]:
        c2 = am @ (a["B2"].T if d["tb"] else a["B2"])
        if d["gemm2"] == "mul":
            c = c * c2
        elif d["gemm2"] == "add":
            c = c + c2
        else:
            c = c / (1.0 + np.exp(-c)) * c2
    raw = c
    epi = _epi(d["ops"], d["constants"], c, a.get("rb"), a.get("cb"))
    want, tol = {}, {}
    # Relative error of the values reduced: a few f32 roundings each.
    if d["write_c"]:
        want["C"] = round_to(epi, d["out"])
        tol["C"] = ("rel", UNIT[d["out"]] * 2 + 64 * U32)
    for i, x in enumerate(d["reduces"]):
        v = raw if x["stage"] == "raw" else epi
        v = {"id": lambda t: t, "sq": lambda t: t * t, "abs": np.abs,
             "expneg": lambda t: np.exp(-np.abs(t) / 8.0)}[x["expr"]](v)
        kind, dim = x["kind"], x["dim"]
        fn = {"sum": np.sum, "max": np.max, "min": np.min}[kind]
        init = a[f"R{i}"]
        blk = d["bm"] if dim == 0 else d["bn"]
        ext = v.shape[dim]
        # Blocks along the reduced dim: each block's partial result.
        parts = [fn(np.take(v, range(s, min(s + blk, ext)), axis=dim), axis=dim)
                 for s in range(0, ext, blk)]
        mags = [np.sum(np.abs(np.take(v, range(s, min(s + blk, ext)), axis=dim)), axis=dim)
                for s in range(0, ext, blk)]
        vals = 64 * U32 * (1 + np.abs(np.stack(parts)))  # the values' own error
        if x["mode"] == "partial":
            r = np.stack(parts)
            b = 4 * (blk + 16) * U32 * np.stack(mags) + vals
        elif x["mode"] == "atomic":
            if kind == "sum":
                r = init + np.sum(parts, axis=0)
                b = (4 * (ext + len(parts) + 16) * U32 * (np.abs(init) + np.sum(mags, axis=0))
                     + np.sum(vals, axis=0))
            else:
                r = np.maximum(init, np.max(parts, axis=0))
                b = 64 * U32 * (1 + np.abs(r))
        else:
            if len(parts) == 1:
                r = parts[0]
                b = 4 * (blk + 16) * U32 * mags[0] + vals[0]
            else:
                r = init
                b = np.zeros(init.shape)
        want[f"R{i}"] = r
        tol[f"R{i}"] = ("abs", b + 1e-30)
    return want, tol


FAMILY = {"gemm": (_gemm_args, _gemm_eval), "attn": (_attn_args, _attn_eval),
          "b2b": (_b2b_args, _b2b_eval), "multi": (_multi_args, _multi_eval)}


def arguments(desc, shape, seed):
    """[(name, dtype, float64 array)] in the kernel's argument order, the
    values exact in their dtype; outputs hold NaN or an initial value."""
    rng = np.random.default_rng(seed)
    args = FAMILY[desc["family"]][0](desc, shape, rng)
    return [(n, t, round_to(x, t)) for n, t, x in args]


def expected(desc, shape, args):
    """({output name: float64 array}, {output name: tolerance}) where a
    tolerance is ("rel", bound on the relative 2-norm error) or ("abs",
    per-element bound on |got - want|)."""
    return FAMILY[desc["family"]][1](desc, shape, {n: x for n, _, x in args})


def compare(got, want, tol):
    """(None, margin) when every output is within its tolerance, else
    (reason, margin); margin is the worst error as a fraction of its
    tolerance."""
    margin = 0.0
    for name in want:
        kind, bound = tol[name]
        if kind == "rel":
            err = _rel(got[name], want[name])
            worst = err / bound
            margin = max(margin, worst)
            if not worst <= 1.0:
                return (f"{name} differs: relative error {err:.3g} > {bound:.3g}", margin)
        else:
            w = want[name]
            g = np.asarray(got[name], dtype=np.float64)
            if g.shape != w.shape:
                return f"{name} has shape {g.shape}, expected {w.shape}", math.inf
            same = (g == w) | (np.isnan(g) & np.isnan(w))
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = np.where(same, 0.0, np.abs(g - w) / bound)
            ratio = np.where(np.isnan(ratio), np.inf, ratio)
            worst = float(np.max(ratio)) if ratio.size else 0.0
            margin = max(margin, worst)
            if not worst <= 1.0:
                i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
                return (f"{name} differs: at {tuple(int(t) for t in i)} got {g[i]!r}, "
                        f"expected {w[i]!r} (error {worst:.3g} x the bound)", margin)
    return None, margin


def check(desc, shape, seed, launch):
    """Runs the kernel through `launch` on the oracle's inputs and compares
    its outputs with the oracle's: (None or a reason, margin)."""
    args = arguments(desc, shape, seed)
    outs = launch([(t, x) for _, t, x in args])
    got = {n: o for (n, _, _), o in zip(args, outs)}
    want, tol = expected(desc, shape, args)
    return compare(got, want, tol)
