// Vector FMA gemms read operands stored with K innermost (A [M, K], B
// stored [N, K]) a chunk of K at a time: the K loop steps by 2 or 4 and the
// reads of one row become one vector load from shared memory. Split-K's
// `tile.atomic add` of a wgmma accumulator adds register pairs with one
// red.global.add.v2.f32 on sm_90a for interior tiles (edge tiles and sm_80:
// element by element).
// The accumulator of linear_f32_nt (both operands K-contiguous) is split 8 x
// 16 per thread with lanes on consecutive rows of X and W (FmaLayout.h): per
// K chunk of 4, 24 conflict-free 16-byte loads feed 512 FMAs (254 registers,
// no spills). TESSERA_FMA_LAYOUT=0: 32 x 4 per thread, 36 8-byte loads per
// 256 FMAs, W's rows read 4 apart (4-way bank conflicts).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && %tessera compile %examples/zoo/linear_f32_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/l.tsb --dump-dir %t/l
// RUN: FileCheck %s --check-prefix=FMA < %t/l/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/l/ptxas.sm_90a.txt
// RUN: env TESSERA_FMA_LAYOUT=0 %tessera compile %examples/zoo/linear_f32_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/l0.tsb --dump-dir %t/l0
// RUN: FileCheck %s --check-prefix=OFF < %t/l0/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/zoo/linear_f32_nt.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/l80.tsb --dump-dir %t/l80
// RUN: FileCheck %s --check-prefix=FMA < %t/l80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/l80/ptxas.sm_80.txt
// RUN: %tessera compile %examples/zoo/gemm_splitk_f32.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/s.tsb --dump-dir %t/s
// RUN: FileCheck %s --check-prefix=RED90 < %t/s/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/zoo/gemm_splitk_f32.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/s80.tsb --dump-dir %t/s80
// RUN: FileCheck %s --check-prefix=RED80 < %t/s80/kernel.sm_80.ptx
// FMA: .entry tessera_kernel_linear_f32_nt(
// FMA-COUNT-24: ld.shared.v4.b32
// FMA-NOT: ld.shared
// FMA: fma.rn.f32
// OFF: .entry tessera_kernel_linear_f32_nt(
// OFF-COUNT-36: ld.shared.v2.b32
// OFF-NOT: ld.shared
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores
// NOSPILL: Used {{[0-9]+}} registers
// RED90: .entry tessera_kernel_gemm_splitk_f32(
// RED90: red.global.add.v2.f32
// RED90: atom.global.add.f32
// RED80-NOT: red.global.add.v
// RED80: atom.global.add.f32
