// passes/Inputs/fragment_prefix.mlir (fragments longer than the tile.parallel
// dims that index them) compiles for sm_90a and sm_80: before layout
// inference gave such fragments the region's layout, distribution stopped
// with "internal: fragment layout does not match the region's layout".
// The regions' reads of them are register moves (no shared-memory loads
// but the conversion's).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/90 %t/80
// RUN: %tessera compile %tessera_src/tests/lit/passes/Inputs/fragment_prefix.mlir --no-cache --target nvptx64-nvidia-cuda:sm_90a --dump-dir %t/90 -o %t/90/f.tsb
// RUN: %tessera compile %tessera_src/tests/lit/passes/Inputs/fragment_prefix.mlir --no-cache --target nvptx64-nvidia-cuda:sm_80 --dump-dir %t/80 -o %t/80/f.tsb
// RUN: FileCheck %s --input-file %t/90/kernel.sm_90a.ptx
// RUN: FileCheck %s --input-file %t/80/kernel.sm_80.ptx
// CHECK: .entry tessera_kernel_fragment_prefix
// The block-scaled GEMM with a 512-row scale fragment read for 128 rows
// (passes/Inputs/blockscale_tall_scale.mlir) compiles too; its A, B and
// column-scale copies go by TMA (three maps), the tall row scales by the
// consumers' loads.
// RUN: %tessera compile %tessera_src/tests/lit/passes/Inputs/blockscale_tall_scale.mlir --no-cache --target nvptx64-nvidia-cuda:sm_90a --dump-dir %t/bs -o %t/bs.tsb
// RUN: FileCheck %s --check-prefix=TALL --input-file %t/bs/kernel.sm_90a.ptx
// TALL: .entry tessera_kernel_gemm_fp8_blockscale
// TALL: cp.async.bulk.tensor.2d
