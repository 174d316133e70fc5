// Mask versioning (tests/lit/cuda/mask_versioning.mlir) on Vulkan: the
// kernels of ../cuda/Inputs/mask_versions.mlir compile to valid SPIR-V and,
// on lavapipe, match the host image (whose loops are not versioned) at
// shapes with interior, diagonal, edge and entirely masked blocks, with
// shifts that leave the per-block test undecided (negative limits that an
// unsigned compare sees as huge, values past its range), and with the
// all-fail version too (TESSERA_MASK_VERSION=2).
// REQUIRES: tessera, plugin-spirv, plugin-cpu, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/../cuda/Inputs/mask_versions.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-val --target-env vulkan1.3 %t/l/kernels.lavapipe.spv
// RUN: env TESSERA_MASK_VERSION=2 %tessera compile %S/../cuda/Inputs/mask_versions.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/f.tsb
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel tri --scalar shift=0 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel tri --scalar shift=70 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel tri --scalar shift=-100 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel tri --scalar shift=1073741824 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel band --scalar w32=40 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel band --scalar w32=-5 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel product --scalar t=100 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --kernel relu --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/f.tsb --kernel tri --scalar shift=0 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// RUN: %if vulkan-device %{ %tessera run %t/f.tsb --kernel band --scalar w32=40 --device spirv --shape M=200,N=190 --iters 1 --warmup 0 | FileCheck %s %}
// CHECK: check: passed
