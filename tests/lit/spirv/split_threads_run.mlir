// The 256-thread gemm of tessera-split-threads runs correctly: lavapipe
// (vector FMA, subgroups of 8) with the rule switched on through a copy of
// the plugin folder whose lavapipe.toml sets max_fragment_words_per_thread
// = 64 (the shipped one does not), against the host image on odd shapes:
// partial tiles at every edge, K not a multiple of the tile, one element.
// REQUIRES: tessera, plugin-spirv, plugin-cpu, vulkan-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/split_threads_plugins.py %t/plugins
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/g.tsb
// RUN: %tessera info %t/g.tsb | FileCheck %s --check-prefix=INFO
// RUN: %tessera run %t/g.tsb --device spirv --shape M=257,N=129,K=4097 --iters 1 | FileCheck %s
// RUN: %tessera run %t/g.tsb --device spirv --shape M=130,N=250,K=17 --iters 1 | FileCheck %s
// RUN: %tessera run %t/g.tsb --device spirv --shape M=1,N=1,K=1 --iters 1 | FileCheck %s
// The same for gemm_bias_relu (an epilogue over the split accumulator).
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera compile %examples/gemm_bias_relu.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/b.tsb
// RUN: %tessera info %t/b.tsb | FileCheck %s --check-prefix=INFO
// RUN: %tessera run %t/b.tsb --device spirv --shape M=131,N=257,K=95 --iters 1 | FileCheck %s

// INFO: image 0: spirv64-unknown-vulkan1.3:lavapipe
// INFO-NEXT: sha256
// INFO: ): 256 threads
// CHECK: check: passed
