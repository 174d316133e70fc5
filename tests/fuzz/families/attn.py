"""Family `attn`: attention forward with the online softmax, the form of
examples/flash_attention_fwd.mlir with everything random.

  S  = Q K^T * scale          gemm transpose_b into a fragment (or K stored
                              [D, Lk] and read as is), masked to -inf at
                              keys past Lk and, causal, keys after the query
  m' = max(m, rowmax(S))      tile.reduce max dim 1 accumulate
  P  = exp(S - m')            (or exp2 of S pre-scaled by log2 e)
  l' = alpha l + rowsum(P)    alpha = exp(m - m'); tile.reduce sum dim 1
  O' = alpha O + P V          P cast to the inputs' dtype in a fragment (or
                              staged through a shared tile), a second gemm
                              whose A operand is that tile
  O  = O / l                  and optionally LSE = m + log(l)

over a pipelined loop on KV blocks whose trip count is symbolic
(ceil(Lk / bn), or where the causal diagonal ends). Random: head dim
(16..256), block rows/cols, threads (64/128/256), stages, causal or not,
exp or exp2 (with or without fastmath<afn>), the scale, a heads dimension
(rank-3 tensors, a second grid dimension), an LSE output, query and KV
lengths from 1, primes and non-multiples of the blocks."""
import random

from .common import (LOG2E, NEG_INF, SIZES, Lines, elt_bytes, f32,
                     f32_bits, halve_choices, shrink_shape_choices, tensor_t,
                     tile_t)

# What a program may hold: fragment words a thread (the GPUs' register
# budget less addresses and loop state) and shared bytes (sm_80's opt-in).
MAX_WORDS = 128
MAX_SHARED = 160 * 1024


def words(d):
    bm, bn, D, t = d["bm"], d["bn"], d["D"], d["threads"]
    p = 1 if d["dtype"] == "f32" else 0.5
    return (bm * bn * (1 + p) + bm * D) / t + 6 * max(1, bm // 16)


def shared(d):
    e = elt_bytes(d["dtype"])
    s = e * d["D"] * (d["bm"] + 2 * d["bn"] * d["stages"])
    if d["p_shared"]:
        s += e * d["bm"] * d["bn"]
    # Scratch of a layout conversion of S (P's cast).
    return s + 4 * d["bm"] * d["bn"]


def fits(d):
    return words(d) <= MAX_WORDS and shared(d) <= MAX_SHARED


def generate(seed):
    r = random.Random(seed)
    d = {"family": "attn", "seed": seed}
    d["dtype"] = r.choice(["f16", "bf16", "f16", "bf16", "f32"])
    d["out"] = r.choice(["f32", d["dtype"]])
    d["D"] = r.choice([16, 32, 64, 128, 256])
    d["bm"] = r.choice([16, 32, 64, 128])
    d["bn"] = r.choice([16, 32, 64, 128])
    d["threads"] = r.choice([64, 128, 256])
    d["stages"] = r.choice([1, 2, 3, 4])
    d["causal"] = r.random() < 0.5
    d["exp2"] = r.random() < 0.4
    d["afn"] = r.random() < 0.5
    d["safe"] = r.random() < 0.5
    d["k_t"] = r.random() < 0.2
    d["p_shared"] = r.random() < 0.25
    d["heads"] = r.random() < 0.3
    d["lse"] = r.random() < 0.4
    d["pv"] = True
    d["scale"] = (round(d["D"] ** -0.5 * 1024) / 1024 if r.random() < 0.6
                  else round(r.uniform(0.05, 0.5) * 1024) / 1024)
    while not fits(d):
        if d["stages"] > 2:
            d["stages"] -= 1
        elif d["threads"] < 256:
            d["threads"] *= 2
        elif d["bn"] > 16:
            d["bn"] //= 2
        elif d["bm"] > 16:
            d["bm"] //= 2
        else:
            d["stages"] = 1
            break
    shape_rng = random.Random(seed * 7919 + 2)
    d["shapes"] = []
    for _ in range(2):
        sh = {"Lq": shape_rng.choice(SIZES), "Lk": shape_rng.choice(SIZES)}
        if d["heads"]:
            sh["H"] = shape_rng.choice([1, 2, 3])
        d["shapes"].append(sh)
    return d


def narrowed(d):
    """The dtype P is cast to before the second gemm, or None."""
    return d["dtype"] if d["pv"] and d["dtype"] != "f32" else None


def shape_args(d, sh):
    return dict(sh)


def describe(d):
    return (f"attention {d['dtype']}->{d['out']} D={d['D']} blocks {d['bm']}x{d['bn']}, "
            f"{d['threads']} threads, {d['stages']} stages, causal={d['causal']} "
            f"exp2={d['exp2']} afn={d['afn']} safe={d['safe']} k_t={d['k_t']} "
            f"p_shared={d['p_shared']} heads={d['heads']} lse={d['lse']} pv={d['pv']} "
            f"scale={d['scale']}")


def shrink(d):
    if d["pv"]:
        yield dict(d, pv=False, lse=True)  # drop the second gemm
    if d["lse"] and d["pv"]:
        yield dict(d, lse=False)
    for k in ("causal", "exp2", "afn", "safe", "k_t", "p_shared"):
        if d[k]:
            yield dict(d, **{k: False})
    if d["heads"]:
        yield dict(d, heads=False, shapes=[{k: v for k, v in d["shapes"][0].items() if k != "H"}])
    if d["stages"] > 1:
        yield dict(d, stages=1)
    if d["out"] != "f32":
        yield dict(d, out="f32")
    if d["dtype"] != "f32":
        c = dict(d, dtype="f32", out="f32")
        if fits(c):
            yield c
    for c in halve_choices(d, ["D", "bm", "bn"], 16):
        yield c
    if d["threads"] > 64 and fits(dict(d, threads=d["threads"] // 2)):
        yield dict(d, threads=d["threads"] // 2)
    yield from shrink_shape_choices(d, ["Lq", "Lk"] + (["H"] if d["heads"] else []))


def text(d):
    e, o, D = d["dtype"], d["out"], d["D"]
    bm, bn, T = d["bm"], d["bn"], d["threads"]
    hd = ["H"] if d["heads"] else []
    q_t = tensor_t(hd + ["Lq", D], e)
    k_t = tensor_t(hd + ([D, "Lk"] if d["k_t"] else ["Lk", D]), e)
    v_t = tensor_t(hd + ["Lk", D], e)
    o_t = tensor_t(hd + ["Lq", D], o)
    lse_t = tensor_t(hd + ["Lq"], "f32")
    qs_t = tile_t([bm, D], e, "shared")
    ks_t = tile_t([D, bn] if d["k_t"] else [bn, D], e, "shared")
    vs_t = tile_t([bn, D], e, "shared")
    sf_t = tile_t([bm, bn], "f32", "fragment")
    pf_t = tile_t([bm, bn], e, "shared" if d["p_shared"] else "fragment")
    acc_t = tile_t([bm, D], "f32", "fragment")
    row_t = tile_t([bm], "f32", "fragment")
    args = [f"%Q: {q_t}", f"%K: {k_t}", f"%V: {v_t}"]
    if d["pv"]:
        args.append(f"%O: {o_t}")
    if d["lse"]:
        args.append(f"%LSE: {lse_t}")
    h = "%bh, " if d["heads"] else ""
    exp = "math.exp2" if d["exp2"] else "math.exp"
    fm = " fastmath<afn>" if d["afn"] else ""
    # The scale as the kernel multiplies by it (pre-multiplied by log2 e
    # for exp2), exactly representable in f32.
    sc = f32(d["scale"] * LOG2E) if d["exp2"] else f32(d["scale"])
    L = Lines()
    L("  %neg_inf = arith.constant " + NEG_INF + " : f32")
    L("  %zero = arith.constant 0.0 : f32")
    L("  %scale = arith.constant " + f32_bits(sc) + " : f32")
    L(f"  %lq = tile.dim %Q, {len(hd)} : {q_t}")
    L(f"  %lk = tile.dim %V, {len(hd)} : {v_t}")
    L(f"  %q_blocks = arith.ceildivui %lq, {L.c(bm)} : index")
    L(f"  %kv_blocks = arith.ceildivui %lk, {L.c(bn)} : index")
    if d["heads"]:
        L(f"  %heads = tile.dim %Q, 0 : {q_t}")
        L(f"  tile.kernel blocks(%bq, %bh) in (%q_blocks, %heads) threads = {T} {{")
    else:
        L(f"  tile.kernel blocks(%bq) in (%q_blocks) threads = {T} {{")
    L(f"    %q0 = arith.muli %bq, {L.c(bm)} : index")
    if d["causal"]:
        # Keys <= query: the block's last row sees keys up to q0 + bm - 1.
        L(f"    %q_end = arith.addi %q0, {L.c(bm)} : index")
        L(f"    %diag = arith.ceildivui %q_end, {L.c(bn)} : index")
        L("    %kv_end = arith.minui %diag, %kv_blocks : index")
        kv_end = "%kv_end"
    else:
        kv_end = "%kv_blocks"
    L(f"    %Qs = tile.alloc : {qs_t}")
    L(f"    %Ks = tile.alloc : {ks_t}")
    if d["pv"]:
        L(f"    %Vs = tile.alloc : {vs_t}")
    L(f"    %Sf = tile.alloc : {sf_t}")
    if d["pv"]:
        L(f"    %Pf = tile.alloc : {pf_t}")
        L(f"    %acc = tile.alloc : {acc_t}")
    for t in ["m", "m_prev", "l", "alpha"] + (["m_safe"] if d["safe"] else []):
        L(f"    %{t} = tile.alloc : {row_t}")
    L(f"    tile.fill %m, %neg_inf : {row_t}, f32")
    L(f"    tile.clear %l : {row_t}")
    if d["pv"]:
        L(f"    tile.clear %acc : {acc_t}")
    L(f"    tile.copy %Q[{h}%q0, {L.c(0)}], %Qs : {q_t}, {qs_t}")
    L(f"    tile.pipelined %j = {L.c(0)} to {kv_end} step {L.c(1)} stages = {d['stages']} {{")
    L(f"      %k0 = arith.muli %j, {L.c(bn)} : index")
    if d["k_t"]:
        L(f"      tile.copy %K[{h}{L.c(0)}, %k0], %Ks : {k_t}, {ks_t}")
    else:
        L(f"      tile.copy %K[{h}%k0, {L.c(0)}], %Ks : {k_t}, {ks_t}")
    if d["pv"]:
        L(f"      tile.copy %V[{h}%k0, {L.c(0)}], %Vs : {v_t}, {vs_t}")
    tb = "" if d["k_t"] else " transpose_b"
    L(f"      tile.gemm %Qs, %Ks, %Sf{tb} clear : {qs_t}, {ks_t}, {sf_t}")
    L(f"      tile.parallel (%i, %jj) in [{bm}, {bn}] {{")
    L(f"        %s = tile.load %Sf[%i, %jj] : {sf_t}")
    L("        %scaled = arith.mulf %s, %scale : f32")
    L("        %kpos = arith.addi %k0, %jj : index")
    L("        %keep0 = arith.cmpi ult, %kpos, %lk : index")
    if d["causal"]:
        L("        %qpos = arith.addi %q0, %i : index")
        L("        %past = arith.cmpi ule, %kpos, %qpos : index")
        L("        %keep = arith.andi %keep0, %past : i1")
        keep = "%keep"
    else:
        keep = "%keep0"
    L(f"        %v = arith.select {keep}, %scaled, %neg_inf : f32")
    L(f"        tile.store %v, %Sf[%i, %jj] : {sf_t}")
    L("      }")
    L(f"      tile.copy %m, %m_prev : {row_t}, {row_t}")
    L(f"      tile.reduce max %Sf, %m dim = 1 accumulate : {sf_t}, {row_t}")
    ms = "%m_safe" if d["safe"] else "%m"
    L(f"      tile.parallel (%i) in [{bm}] {{")
    L(f"        %old = tile.load %m_prev[%i] : {row_t}")
    L(f"        %new = tile.load %m[%i] : {row_t}")
    if d["safe"]:
        # A row that has seen no key yet keeps m = -inf: 0 in its place
        # avoids exp(-inf - -inf).
        L("        %none = arith.cmpf oeq, %new, %neg_inf : f32")
        L("        %ms = arith.select %none, %zero, %new : f32")
        L(f"        tile.store %ms, %m_safe[%i] : {row_t}")
        L("        %dm = arith.subf %old, %ms : f32")
    else:
        L("        %dm = arith.subf %old, %new : f32")
    L(f"        %a = {exp} %dm{fm} : f32")
    L(f"        tile.store %a, %alpha[%i] : {row_t}")
    L(f"        %li = tile.load %l[%i] : {row_t}")
    L("        %ls = arith.mulf %li, %a : f32")
    L(f"        tile.store %ls, %l[%i] : {row_t}")
    L("      }")
    L(f"      tile.parallel (%i, %jj) in [{bm}, {bn}] {{")
    L(f"        %s = tile.load %Sf[%i, %jj] : {sf_t}")
    L(f"        %mi = tile.load {ms}[%i] : {row_t}")
    L("        %ds = arith.subf %s, %mi : f32")
    L(f"        %p = {exp} %ds{fm} : f32")
    L(f"        tile.store %p, %Sf[%i, %jj] : {sf_t}")
    L("      }")
    L(f"      tile.reduce sum %Sf, %l dim = 1 accumulate : {sf_t}, {row_t}")
    if d["pv"]:
        L(f"      tile.parallel (%i, %dd) in [{bm}, {D}] {{")
        L(f"        %x = tile.load %acc[%i, %dd] : {acc_t}")
        L(f"        %a = tile.load %alpha[%i] : {row_t}")
        L("        %xs = arith.mulf %x, %a : f32")
        L(f"        tile.store %xs, %acc[%i, %dd] : {acc_t}")
        L("      }")
        if e == "f32" and not d["p_shared"]:
            L(f"      tile.gemm %Sf, %Vs, %acc : {sf_t}, {vs_t}, {acc_t}")
        else:
            L(f"      tile.copy %Sf, %Pf : {sf_t}, {pf_t}")
            L(f"      tile.gemm %Pf, %Vs, %acc : {pf_t}, {vs_t}, {acc_t}")
    L("    }")
    if d["pv"]:
        L(f"    tile.parallel (%i, %dd) in [{bm}, {D}] {{")
        L(f"      %x = tile.load %acc[%i, %dd] : {acc_t}")
        L(f"      %li = tile.load %l[%i] : {row_t}")
        L("      %xn = arith.divf %x, %li : f32")
        L(f"      tile.store %xn, %acc[%i, %dd] : {acc_t}")
        L("    }")
        L(f"    tile.copy %acc, %O[{h}%q0, {L.c(0)}] : {acc_t}, {o_t}")
    if d["lse"]:
        # LSE = m + log(l) (log2 units with exp2), in m's tile.
        log = "math.log2" if d["exp2"] else "math.log"
        L(f"    tile.parallel (%i) in [{bm}] {{")
        L(f"      %mi = tile.load %m[%i] : {row_t}")
        L(f"      %li = tile.load %l[%i] : {row_t}")
        L(f"      %lg = {log} %li : f32")
        L("      %y = arith.addf %mi, %lg : f32")
        L(f"      tile.store %y, %m[%i] : {row_t}")
        L("    }")
        L(f"    tile.copy %m, %LSE[{h}%q0] : {row_t}, {lse_t}")
    L("  }")
    L("  tile.return")
    L("}")
    return L.text([f"// seed {d['seed']}: {describe(d)}"],
                  "tile.func @rand(" + ", ".join(args) + ") {")
