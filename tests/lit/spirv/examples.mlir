// Every kernel under examples/ (the examples and the zoo) compiles for
// lavapipe (Mesa's software Vulkan device, subgroups of 8), for NVIDIA's and
// AMD's Vulkan drivers (cooperative matrices) and for the generic description (no
// subgroup size assumed), and its SPIR-V passes spirv-val under the Vulkan
// 1.3 rules. For the generic description a kernel may instead exceed the
// register budget (its one-thread "warps" replicate 1-D fragments).
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_spirv.py %tessera %examples %t lavapipe nvidia-vk amd-vk budget:generic | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: spirv: {{[0-9]+}} compiles checked, 0 failed
