// Cross-compiling needs no device: one bundle holds images for sm_90a,
// gfx942, gfx1100, Vulkan and the host, and standard tools list them
// (the bundle is an LLVM OffloadBinary). sm_90a has two: the cubin, then
// the PTX of its TMA kernel's twin (on demand).
// REQUIRES: tessera, plugin-hip, plugin-cuda, plugin-spirv, plugin-cpu
// RUN: %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --target amdgcn-amd-amdhsa:gfx942 --target amdgcn-amd-amdhsa:gfx1100 --target spirv64-unknown-vulkan1.3 --target x86_64-unknown-linux-gnu --no-cache -o %t.tsb
// RUN: %tessera info %t.tsb | FileCheck %s --check-prefix=INFO
// RUN: llvm-objdump --offloading %t.tsb | FileCheck %s --check-prefix=OFF

// INFO: 6 images
// INFO: image 0: nvptx64-nvidia-cuda:sm_90a, cubin image
// INFO: image 1: nvptx64-nvidia-cuda:sm_90a, ptx image
// INFO: tessera.on_demand = fallback kernels
// INFO: image 2: amdgcn-amd-amdhsa:gfx942, {{.*}} (hip)
// INFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads
// INFO: image 3: amdgcn-amd-amdhsa:gfx1100, {{.*}} (hip)
// INFO: image 4: spirv64-unknown-vulkan1.3
// INFO: image 5: x86_64-unknown-linux-gnu:host

// OFF: arch sm_90a
// OFF: kind ptx
// OFF-NEXT: arch sm_90a
// OFF: arch gfx942
// OFF-NEXT: triple amdgcn-amd-amdhsa
// OFF-NEXT: producer hip
// OFF: arch gfx1100
// OFF-NEXT: triple amdgcn-amd-amdhsa
// OFF-NEXT: producer hip
// OFF: triple spirv64-unknown-vulkan1.3
// OFF: arch host
