// passes/Inputs/fragment_prefix.mlir (fragments longer than the tile.parallel
// dims that index them, one through a layout conversion) runs correctly on
// lavapipe and on the host CPU, against the host image and the tile
// interpreter, on shapes with partial blocks, a tensor longer than the
// fragments and a single element; the CUDA and HIP targets compile it.
// REQUIRES: tessera, plugin-spirv, plugin-cpu, vulkan-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %tessera_src/tests/lit/passes/Inputs/fragment_prefix.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/f.tsb
// RUN: %tessera run %t/f.tsb --device spirv --shape M=100,N=300,R=128 --iters 1 | FileCheck %s
// RUN: %tessera run %t/f.tsb --device spirv --shape M=64,N=128,R=200 --iters 1 | FileCheck %s
// RUN: %tessera run %t/f.tsb --device spirv --shape M=1,N=1,R=128 --iters 1 | FileCheck %s
// RUN: %tessera run %t/f.tsb --device cpu --shape M=100,N=300,R=128 --iters 1 | FileCheck %s
// CHECK: check: passed
