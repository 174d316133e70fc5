// The linear layer (gemm + bias[j] + ReLU, examples/gemm_bias_relu.mlir)
// reaches the tensor cores through distribution: the rank-1 bias fragment
// filled by a tile.copy at the block's column offset becomes per-thread
// masked loads of the bias for the columns its accumulator registers hold
// (f16 -> f32), added per register before the ReLU. sm_90a: wgmma on TMA
// stages plus the twin without TMA (its own PTX, the bundle's on-demand
// image); sm_80: mma.sync.
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && mkdir -p %t/h %t/a
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %examples/gemm_bias_relu.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/h.tsb --dump-dir %t/h
// RUN: FileCheck %s --check-prefix=SM90 --input-file %t/h/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/h/kernel.sm_90a.fallback.ptx
// RUN: %tessera compile %examples/gemm_bias_relu.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=SM80 --input-file %t/a/kernel.sm_80.ptx

// TWIN: .visible .entry tessera_kernel_gemm_bias_relu__fallback(
// TWIN: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

// SM90-NOT: __fallback
// SM90: .visible .entry tessera_kernel_gemm_bias_relu(
// SM90: .maxntid 128, 1, 1
// SM90-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// SM90-DAG: wgmma.wait_group.sync.aligned 0;
// SM90-DAG: ld.global.b16
// SM90-DAG: cvt.f32.f16
// SM90-DAG: st.global.b32

// SM80: .visible .entry tessera_kernel_gemm_bias_relu(
// SM80-DAG: cp.async.cg.shared.global
// SM80-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// SM80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-DAG: ld.global.b16
// SM80-DAG: cvt.f32.f16
// SM80-NOT: .entry
