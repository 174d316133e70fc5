// Mask versioning of tile.parallel (core/passes/lib/UniformConditions.h):
// a select's or scf.if's condition built from compares of expressions
// affine in the region's indices is decided once per block, and the body
// runs with it folded where it holds at every index (the masked body
// otherwise). A product of indices, or a condition on a loaded value, is
// not decidable and keeps the masked body alone. TESSERA_MASK_VERSION=0
// turns it off; =2 adds the version where the condition fails everywhere.
// The kernels run on lavapipe against the host image in
// tests/lit/spirv/mask_versioning.mlir.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/on
// RUN: %tessera compile %S/Inputs/mask_versions.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/on.tsb --dump-dir %t/on --print-ir-after-all 2> %t/on.txt
// RUN: FileCheck %s --input-file %t/on.txt
// RUN: FileCheck %s --check-prefix=PTX --input-file %t/on/kernel.sm_90a.ptx
// RUN: env TESSERA_MASK_VERSION=0 %tessera compile %S/Inputs/mask_versions.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --print-ir-after-all 2> %t/off.txt
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/off.txt
// RUN: env TESSERA_MASK_VERSION=2 %tessera compile %S/Inputs/mask_versions.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/two.tsb --print-ir-after-all 2> %t/two.txt
// RUN: FileCheck %s --check-prefix=TWO --input-file %t/two.txt

// Distribution leaves valid IR (else the dump would be in generic form).
// CHECK-LABEL: IR Dump After TesseraDistribute (tessera_kernel_tri)
// CHECK-NEXT: gpu.func @tessera_kernel_tri(
// CHECK: } {tile.mask_version = "holds"}
// CHECK-LABEL: IR Dump After TesseraDistribute (tessera_kernel_band)
// CHECK-NEXT: gpu.func @tessera_kernel_band(
// CHECK: } {tile.mask_version = "holds"}

// CHECK-LABEL: IR Dump After Canonicalizer (canonicalize) ('gpu.module'
// CHECK-LABEL: gpu.func @tessera_kernel_product(
// CHECK-NOT: tile.mask_version
// CHECK-LABEL: gpu.func @tessera_kernel_relu(
// CHECK-NOT: tile.mask_version

// tri: keep = (c0 + j <= r0 + i + shift) && (c0 + j < N). The test per
// block: each side's part outside the region small (no side wraps), then
// the corners: c0 + 63 <= r0 + shift and c0 + 63 < N.
// CHECK-LABEL: gpu.func @tessera_kernel_tri(
// CHECK: arith.cmpi ult, %[[C0:.*]], %c536870912 : index
// CHECK-NEXT: arith.cmpi ult, %[[LIM:.*]], %c536870912 : index
// CHECK-NEXT: arith.andi
// CHECK-NEXT: %[[LAST:.*]] = arith.addi %[[C0]], %c63 : index
// CHECK-NEXT: arith.cmpi sle, %[[LAST]], %[[LIM]] : index
// CHECK: %[[LAST2:.*]] = arith.addi %[[C0]], %c63 : index
// CHECK-NEXT: arith.cmpi slt, %[[LAST2]], %[[N:.*]] : index
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK: } else {
// CHECK: arith.cmpi ule
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: } {tile.mask_version = "holds"}

// band: !(col - row > w || row - col > w) && j < N on i64, guarding an
// scf.if. Inside the band everywhere: w - 63 >= c0 - r0 and
// w - 63 >= r0 - c0; the folded body squares, the masked one branches.
// CHECK-LABEL: gpu.func @tessera_kernel_band(
// CHECK: %[[W:.*]] = arith.addi %{{.*}}, %c-63_i64 : i64
// CHECK-NEXT: arith.cmpi sge, %[[W]], %{{.*}} : i64
// CHECK: %[[W2:.*]] = arith.addi %{{.*}}, %c-63_i64 : i64
// CHECK-NEXT: arith.cmpi sge, %[[W2]], %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}}, %c63 : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.mulf
// CHECK-NOT: arith.negf
// CHECK-NOT: arith.cmpi
// CHECK: } else {
// CHECK: scf.if
// CHECK: arith.mulf
// CHECK: arith.negf
// CHECK: } {tile.mask_version = "holds"}

// The fragments stay in registers in every version.
// PTX-NOT: .local

// OFF-NOT: tile.mask_version
// OFF: IR Dump After TesseraDistribute (tessera_kernel_band)
// OFF-NOT: tile.mask_version

// TWO-LABEL: IR Dump After Canonicalizer (canonicalize) ('gpu.module'
// TWO-LABEL: gpu.func @tessera_kernel_tri(
// TWO: } {tile.mask_version = "fails"}
// TWO-NEXT: } {tile.mask_version = "holds"}
// TWO-LABEL: gpu.func @tessera_kernel_band(
// TWO: } {tile.mask_version = "fails"}
// TWO-NEXT: } {tile.mask_version = "holds"}
