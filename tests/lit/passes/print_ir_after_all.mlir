// --print-ir-after-all shows the IR after every pass of the pipeline.
// RUN: %tessera-opt --tessera-pipeline=sm_90a --mlir-print-ir-after-all %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s
// RUN: %tessera-opt --tessera-pipeline=sm_90a --print-ir-after-all %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK: IR Dump After TesseraWidenBlocks (tessera-widen-blocks)
// CHECK: threads = 256 attributes {tile.widened = array<i64: 2, 1>}
// CHECK: IR Dump After TesseraRasterOrder (tessera-raster-order)
// CHECK: IR Dump After TesseraInferLayouts (tessera-infer-layouts)
// CHECK: atom = "wgmma_m64n256k16_f16_f32"
// CHECK: IR Dump After TesseraSwizzleShared (tessera-swizzle-shared)
// CHECK: swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>
// CHECK: IR Dump After TesseraPipelineLoops (tessera-pipeline-loops)
// CHECK: tile.async_copy
// CHECK: IR Dump After TesseraPlanShared (tessera-plan-shared)
// CHECK: tile.shared_bytes = 98304
