// Register staging on a target without asynchronous copies (async_copy =
// "registers"): the pipelined K loop keeps two stages, distribution loads
// the next A and B tiles into private arrays (4 x 8 f16 per thread each)
// right after the stage wait, stores them into the stage at the next wait,
// and the hsaco still uses the matrix cores.
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t.tsb --print-ir-after-all 2>&1 | FileCheck %s

// CHECK-LABEL: IR Dump After TesseraPipelineLoops
// CHECK: tile.num_stages = 2 : i64, tile.requested_stages = 3 : i64
// CHECK-LABEL: IR Dump After TesseraDistribute
// CHECK: memref.alloca() : memref<128xf32>
// CHECK-NEXT: %[[A:.*]] = memref.alloca() : memref<32xf16>
// CHECK-NEXT: %[[B:.*]] = memref.alloca() : memref<32xf16>
// The prologue fills the registers (16-byte buffer loads of 8 halves).
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK-NEXT: vector.bitcast {{.*}} to vector<8xf16>
// CHECK: memref.store {{.*}}, %[[A]][
// CHECK: scf.for
// The wait: the registers go into the stage, then the block waits.
// CHECK: memref.load %[[A]][
// CHECK: gpu.barrier
// The refill of the next iteration follows.
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK: memref.store {{.*}}, %[[A]][
