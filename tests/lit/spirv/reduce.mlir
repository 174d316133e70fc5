// tile.reduce on Vulkan: in registers, then across the subgroup's lanes with
// OpGroupNonUniformShuffleXor (lavapipe: subgroups of 8, so three steps per
// reduction), then across subgroups through workgroup memory between
// workgroup barriers. The generic description assumes no subgroup size: its
// reductions never shuffle.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/softmax.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-val --target-env vulkan1.3 %t/l/kernels.lavapipe.spv
// RUN: spirv-dis %t/l/kernels.lavapipe.spv | FileCheck %s --check-prefix=LVP
// RUN: %tessera compile %examples/softmax.mlir --no-cache --target spirv64-unknown-vulkan1.3:generic -o %t/g.tsb --dump-dir %t/g
// RUN: spirv-val --target-env vulkan1.3 %t/g/kernels.generic.spv
// RUN: spirv-dis %t/g/kernels.generic.spv | FileCheck %s --check-prefix=GEN

// LVP: OpCapability GroupNonUniformShuffle
// LVP: OpGroupNonUniformShuffleXor %float %uint_3 %{{.*}} %uint_1
// LVP: OpGroupNonUniformShuffleXor %float %uint_3 %{{.*}} %uint_2
// LVP: OpGroupNonUniformShuffleXor %float %uint_3 %{{.*}} %uint_4
// LVP: OpControlBarrier %uint_2 %uint_2
// LVP: OpExtInst %float %{{.*}} Exp

// GEN-NOT: OpGroupNonUniformShuffleXor
// GEN: OpControlBarrier %uint_2 %uint_2
// GEN-NOT: OpGroupNonUniformShuffleXor
