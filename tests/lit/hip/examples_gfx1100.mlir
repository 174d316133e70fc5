// Every kernel under examples/ (the examples and the zoo) compiles for gfx1100
// (RDNA, wave32) to an hsaco whose notes carry the kernel metadata, and every
// kernel with a tile.gemm that has an atom on the chip reaches the matrix
// cores: v_wmma_* (WMMA) in its disassembly (Inputs/check_examples.py lists the
// gemms on vector FMA and the zoo kernels whose LDS does not fit).
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_examples.py %tessera %examples %t gfx1100 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: hip examples: {{[0-9]+}} compiled, {{[0-9]+}} expected budget errors, {{[1-9][0-9]*}} gemm kernels on matrix cores, {{[0-9]+}} on vector FMA, 0 failures
