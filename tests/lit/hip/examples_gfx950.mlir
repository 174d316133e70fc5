// Every kernel under examples/ (the examples and the zoo) compiles for gfx950
// (CDNA4, wave64, 160 KiB of LDS) to an hsaco whose notes carry the kernel
// metadata, and every tile.func with a tile.gemm reaches the matrix cores: its
// own part of the disassembly holds the v_mfma_* instruction of each of its
// operand types (Inputs/check_examples.py, INSN), the fp8 gemms read as OCP
// directly. No exceptions: every operand type has an atom on this chip.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_examples.py %tessera %examples %t gfx950 | FileCheck %s
// CHECK-NOT: vector FMA
// CHECK-NOT: FAIL
// CHECK: hip examples: 39 compiled, 0 expected budget errors, 31 gemm kernels on matrix cores, 0 on vector FMA, 0 failures
