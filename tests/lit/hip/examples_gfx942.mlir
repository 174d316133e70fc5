// Every kernel under examples/ (the examples and the zoo) compiles for gfx942
// (CDNA3, wave64) to an hsaco whose notes carry the kernel metadata, and every
// tile.func with a tile.gemm reaches the matrix cores: its own part of the
// disassembly holds the v_mfma_* instruction of each of its operand types
// (Inputs/check_examples.py, INSN), the fp8 gemms included (their OCP bytes
// rewritten to FNUZ in registers). No exceptions: every operand type has an
// atom on this chip. attn_fwd_d256_q128_f16 needs 128 KiB of shared tiles; its
// Q tile goes to registers (tessera-place-operands) and it compiles.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_examples.py %tessera %examples %t gfx942 | FileCheck %s
// CHECK-NOT: vector FMA
// CHECK-NOT: FAIL
// CHECK: hip examples: 39 compiled, 0 expected budget errors, 31 gemm kernels on matrix cores, 0 on vector FMA, 0 failures
