// tile.cluster = 2 on a target without thread-block clusters (gfx942) is
// ignored: the program stays portable, its blocks unpaired there.
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=UNTOUCHED
// RUN: sed -e 's/threads = 128 {/threads = 128 attributes {tile.cluster = 2} {/' %examples/gemm.mlir > %t.mlir
// RUN: %tessera-opt --tessera-pipeline=gfx942 %t.mlir | FileCheck %s
// RUN: %tessera-opt --tessera-pipeline=sm_90a %t.mlir | FileCheck %s --check-prefix=PAIRED
// UNTOUCHED-NOT: tile.cluster
// CHECK: tile.kernel blocks(%{{.*}}) in (%{{[0-9]+}}, %{{[0-9]+}}) threads = 128 attributes {tile.cluster = 2 : i64,
// CHECK-NOT: tile.cluster_rounded
// CHECK: tile.num_stages = 2
// PAIRED: tile.cluster = 2 : i64, tile.cluster_rounded
