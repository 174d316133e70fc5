// A column vector [64, 1] indexed [i, 0] beside a [64, 64] tile.parallel
// region (passes/column_vector.mlir: its layout is the region's projected
// onto the rows): distributed on lavapipe, each thread reads the scale of
// its accumulator rows from its own registers; the result matches the
// host image. A constant index into a dimension wider than 1 is refused.
// REQUIRES: tessera, plugin-spirv, plugin-cpu, vulkan-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/../passes/column_vector.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/c.tsb
// RUN: %tessera run %t/c.tsb --device spirv --shape M=70,N=33,K=20,KB=3 --scalar kb=2 --iters 1 | FileCheck %s
// RUN: not %tessera compile %S/Inputs/column_vector_wide.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/w.tsb 2>&1 | FileCheck %s --check-prefix=WIDE

// CHECK: check: passed
// WIDE: error: 'tile.load' op indexes a fragment by something other than the region's induction variables
