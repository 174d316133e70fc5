#!/usr/bin/env python3
"""What bounds the block-scaled fp8 GEMM (examples/zoo/gemm_fp8_blockscale.mlir,
0.83x torch._scaled_mm at 8192 on the H100): the zoo program and four
programs or builds around it, each timed against it.

    bench/gpu/fp8_blockscale_variants.py gen <out dir> [tessera binary] [target ...]
        (here, with the compiler) writes and compiles the variants to
        <out>/<name>.tsb for the targets (default nvptx64-nvidia-cuda:sm_90a
        plus the host, whose image is each bundle's reference).
    bench/gpu/fp8_blockscale_variants.py run <out dir> <tessera binary> [size]
        (there, on the GPU) checks every bundle against its host image on two
        odd shapes, times it at size^3 (default 8192; KB = NB = size / 128)
        and prints one JSON object per bundle (bench/gpu/gemm_variants.py's
        format: vs_base = base ms / ms).

Variants:
  base      the zoo program as written;
  prefetch  the same program compiled with TESSERA_PREFETCH_FRAGMENTS=1
            (the scales load one iteration ahead, the loop unrolled twice
            so that each load lands in the register the next iteration
            reads; docs/passes.md);
  prefetch1 the same with TESSERA_PREFETCH_UNROLL=1 (one body: the loaded
            value is moved into the loop-carried register);
  turns     the same program compiled with TESSERA_PINGPONG=1 (the two
            consumer warpgroups take turns issuing their wgmma);
  two_temps the same sums in the same order with two K steps an iteration
            and two temporaries: the scale FMAs of one temporary follow the
            wgmma of the other (gemms marked tile.mma_async), so a
            warpgroup's own wgmma runs beside its FMAs (ptxas: spills);
  no_scales the temporary added to the accumulator unscaled (another
            result: the cost of the scales' loads and multiplies);
  plain     no temporary: the wgmma accumulates (the plain fp8 GEMM with the
            block's tiles: what the tensor cores give without the scales);
  m_major   a_scale stored [KB, M] (a K step's 128 row scales contiguous,
            the layout DeepGEMM-style kernels ask for) instead of [M, KB]
            (one 4-byte value per row and 32-byte sector): another input
            layout, so it tells what coalesced scale loads would give.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_variants  # noqa: E402

ROOT = gemm_variants.ROOT
SCALED = """      tile.parallel (%i, %j) in [128, 128] {
        %p = tile.load %Pf[%i, %j] : !tile.tile<128x128xf32, fragment>
        %acc = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %sa[%i, %c0] : !tile.tile<128x1xf32, fragment>
        %b = tile.load %sb[%c0] : !tile.tile<1xf32, fragment>
        %s = arith.mulf %a, %b : f32
        %ps = arith.mulf %p, %s : f32
        %r = arith.addf %acc, %ps : f32
        tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      }
"""
GEMM = ("tile.gemm %As, %Bs, %Pf transpose_b clear : !tile.tile<128x128xf8E4M3FN, shared>, "
        "!tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<128x128xf32, fragment>")
T8 = "!tile.tile<128x128xf8E4M3FN, shared>"


def need(src, text):
    if text not in src:
        raise SystemExit("examples/zoo/gemm_fp8_blockscale.mlir changed: %r not found" % text[:60])


def no_scales(src):
    need(src, SCALED)
    return src.replace(SCALED, SCALED.replace(
        "        %s = arith.mulf %a, %b : f32\n        %ps = arith.mulf %p, %s : f32\n"
        "        %r = arith.addf %acc, %ps : f32\n",
        "        %r = arith.addf %acc, %p : f32\n"))


def plain(src):
    need(src, SCALED)
    need(src, GEMM)
    return src.replace(SCALED, "").replace(GEMM, GEMM.replace("%Pf transpose_b clear", "%Cf transpose_b"))


def scaled(p, sa, sb, indent="      "):
    body = SCALED.replace("%Pf", p).replace("%sa", sa).replace("%sb", sb)
    return "".join(indent + l[6:] + "\n" for l in body.splitlines())


def two_temps(src):
    """Two K steps an iteration into P0 and P1; P1's FMAs (the previous
    iteration's second step) follow this iteration's first wgmma, P0's the
    second wgmma; P1's last FMAs after the loop. P1 and its scales start at
    zero, so the first iteration adds 0 * 0 (exact: the accumulator is 0)."""
    head = src[:src.index("  tile.kernel")]
    frag = "!tile.tile<128x128xf32, fragment>"
    copy = ("      tile.copy %A[%row, %k{i}], %As{i} : !tile.tensor<[M, K], f8E4M3FN>, {t}\n"
            "      tile.copy %B[%col, %k{i}], %Bs{i} : !tile.tensor<[N, K], f8E4M3FN>, {t}\n")
    scales = ("      tile.copy %a_scale[%row, %kt{i}], %sa{i} : !tile.tensor<[M, KB], f32>, "
              "!tile.tile<128x1xf32, fragment>\n"
              "      tile.copy %b_scale[%bx, %kt{i}], %sb{i} : !tile.tensor<[NB, KB], f32>, "
              "!tile.tile<1xf32, fragment>\n")
    gemm = ("      tile.gemm %As{i}, %Bs{i}, %P{i} transpose_b clear {{tile.mma_async}} : "
            "{t}, {t}, {f}\n")
    allocs = "".join("    %%%s%d = tile.alloc : %s\n" % (n, i, t)
                     for i in (0, 1) for n, t in (("As", T8), ("Bs", T8), ("P", frag),
                                                  ("sa", "!tile.tile<128x1xf32, fragment>"),
                                                  ("sb", "!tile.tile<1xf32, fragment>")))
    body = (
        "  %c2 = arith.constant 2 : index\n"
        "  %c256 = arith.constant 256 : index\n"
        "  %nk2 = arith.ceildivui %nk, %c2 : index\n"
        "  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {\n"
        + allocs +
        "    %Cf = tile.alloc : " + frag + "\n"
        "    tile.clear %Cf : " + frag + "\n"
        "    tile.clear %P1 : " + frag + "\n"
        "    tile.clear %sa1 : !tile.tile<128x1xf32, fragment>\n"
        "    tile.clear %sb1 : !tile.tile<1xf32, fragment>\n"
        "    %row = arith.muli %by, %c128 : index\n"
        "    %col = arith.muli %bx, %c128 : index\n"
        "    tile.pipelined %it = %c0 to %nk2 step %c1 stages = 2 {\n"
        "      %k0 = arith.muli %it, %c256 : index\n"
        "      %k1 = arith.addi %k0, %c128 : index\n"
        "      %kt0 = arith.muli %it, %c2 : index\n"
        "      %kt1 = arith.addi %kt0, %c1 : index\n"
        + copy.format(i=0, t=T8) + copy.format(i=1, t=T8)
        + gemm.format(i=0, t=T8, f=frag)
        + scaled("%P1", "%sa1", "%sb1")
        + scales.format(i=0)
        + gemm.format(i=1, t=T8, f=frag)
        + scaled("%P0", "%sa0", "%sb0")
        + scales.format(i=1) +
        "    }\n"
        + scaled("%P1", "%sa1", "%sb1", indent="    ") +
        "    tile.copy %Cf, %C[%row, %col] : " + frag + ", !tile.tensor<[M, N], bf16>\n"
        "  }\n"
        "  tile.return\n"
        "}\n")
    return head + body


def m_major(src):
    edits = [("%a_scale: !tile.tensor<[M, KB], f32>", "%a_scale: !tile.tensor<[KB, M], f32>"),
             ("%sa = tile.alloc : !tile.tile<128x1xf32, fragment>",
              "%sa = tile.alloc : !tile.tile<1x128xf32, fragment>"),
             ("tile.copy %a_scale[%row, %kt], %sa : !tile.tensor<[M, KB], f32>, !tile.tile<128x1xf32, fragment>",
              "tile.copy %a_scale[%kt, %row], %sa : !tile.tensor<[KB, M], f32>, !tile.tile<1x128xf32, fragment>"),
             ("%a = tile.load %sa[%i, %c0] : !tile.tile<128x1xf32, fragment>",
              "%a = tile.load %sa[%c0, %i] : !tile.tile<1x128xf32, fragment>")]
    for old, new in edits:
        need(src, old)
        src = src.replace(old, new)
    return src


def gen(out, binary, targets):
    src = open(os.path.join(ROOT, "examples", "zoo", "gemm_fp8_blockscale.mlir")).read()
    files = [("base", src), ("prefetch", src), ("prefetch1", src), ("turns", src),
             ("two_temps", two_temps(src)), ("no_scales", no_scales(src)),
             ("plain", plain(src)), ("m_major", m_major(src))]
    gemm_variants.compile_all(out, files, binary, targets,
                              env={"turns": {"TESSERA_PINGPONG": "1"},
                                   "prefetch": {"TESSERA_PREFETCH_FRAGMENTS": "1"},
                                   "prefetch1": {"TESSERA_PREFETCH_FRAGMENTS": "1",
                                                 "TESSERA_PREFETCH_UNROLL": "1"}})


def run(out, binary, size):
    kb = (size + 127) // 128
    gemm_variants.check_and_time(
        # (The first two shapes are described by tensor maps, so they run
        # the TMA kernel with partial tiles; K = 300 runs its twin.)
        out, binary, ("M=129,N=264,K=384,KB=3,NB=3", "M=300,N=264,K=1024,KB=8,NB=3",
                      "M=129,N=257,K=300,KB=3,NB=3"),
        "M=%d,N=%d,K=%d,KB=%d,NB=%d" % (size, size, size, kb, kb))


def main():
    gemm_variants.cli(__doc__, gen, run, 8192)


if __name__ == "__main__":
    main()
