// Every kernel under examples/ (the examples and the zoo) compiles for gfx1100
// (RDNA3, wave32) to an hsaco whose notes carry the kernel metadata, and every
// tile.func with a tile.gemm reaches the matrix cores: its own part of the
// disassembly holds the v_wmma_* instruction of each of its operand types
// (Inputs/check_examples.py, INSN), i8 by iu8 WMMA, fp8 by f16 WMMA on bytes
// widened in registers. Exceptions, listed with their reason in the helper's
// NO_ATOM: the three f32 x f32 gemm kernels, on vector FMA (this chip has no
// f32 WMMA). attn_fwd_d256_q128_f16 needs 128 KiB of shared tiles; its Q
// tile goes to registers, held compactly (tessera-place-operands), and it
// compiles.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_examples.py %tessera %examples %t gfx1100 | FileCheck %s
// CHECK: vector FMA (no atom): gemm_f32 (gfx1100): f32: RDNA3 has no f32 WMMA
// CHECK: vector FMA (no atom): gemm_f32_256x128_colscale (gfx1100): f32: RDNA3 has no f32 WMMA
// CHECK: vector FMA (no atom): linear_f32_nt (gfx1100): f32: RDNA3 has no f32 WMMA
// CHECK-NOT: FAIL
// CHECK: hip examples: 39 compiled, 0 expected budget errors, 28 gemm kernels on matrix cores, 3 on vector FMA, 0 failures
