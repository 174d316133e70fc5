// Every kernel under examples/ with a tile.gemm (the examples and the zoo)
// reaches the tensor cores on sm_80 and sm_90a: mma.sync / wgmma in its PTX.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_tensor_cores.py %tessera %examples %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: tensor cores: {{[0-9]+}} compiles checked, 0 without tensor-core instructions
