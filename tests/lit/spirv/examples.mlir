// Every kernel under examples/ (the examples and the zoo) compiles for
// lavapipe (Mesa's software Vulkan device, subgroups of 8) and its SPIR-V
// passes spirv-val under the Vulkan 1.3 rules.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_spirv.py %tessera %examples %t lavapipe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: spirv: {{[0-9]+}} compiles checked, 0 failed
