// Vector FMA gemms read operands stored with K innermost (A [M, K], B
// stored [N, K]) a chunk of K at a time: the K loop steps by 2 or 4 and the
// reads of one row become one vector load from shared memory. Split-K's
// `tile.atomic add` of a wgmma accumulator adds register pairs with one
// red.global.add.v2.f32 on sm_90a for interior tiles (edge tiles and sm_80:
// element by element).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && %tessera compile %examples/zoo/linear_f32_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/l.tsb --dump-dir %t/l
// RUN: FileCheck %s --check-prefix=FMA < %t/l/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/l/ptxas.sm_90a.txt
// RUN: %tessera compile %examples/zoo/gemm_splitk_f32.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/s.tsb --dump-dir %t/s
// RUN: FileCheck %s --check-prefix=RED90 < %t/s/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/zoo/gemm_splitk_f32.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/s80.tsb --dump-dir %t/s80
// RUN: FileCheck %s --check-prefix=RED80 < %t/s80/kernel.sm_80.ptx
// FMA: .entry tessera_kernel_linear_f32_nt(
// FMA: ld.shared.v{{[24]}}.{{[bf]}}32
// FMA: fma.rn.f32
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores
// NOSPILL: Used {{[0-9]+}} registers
// RED90: .entry tessera_kernel_gemm_splitk_f32(
// RED90: red.global.add.v2.f32
// RED90: atom.global.add.f32
// RED80-NOT: red.global.add.v
// RED80: atom.global.add.f32
