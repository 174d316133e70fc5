// Loads kept in L2 for a later pass (Distribute's planKeptLoads,
// TargetHooks::loadGlobalKept): a copy from a global tensor in a top-level
// loop that a later top-level loop repeats (same tensor, tile type and
// offsets, the same bounds) loads with an evict_last L2 policy, so the later
// pass's reads of the rows hit the cache more often. The zoo's LayerNorm
// reads each row chunk in three loops: the first two loops' copies of X are
// kept (16 vector loads per copy and version: 64), the third loop's copies
// of X, gamma and beta, which no later loop repeats, are plain loads; the
// stores are plain. TESSERA_L2_KEEP=0 keeps nothing. gemm.mlir repeats no
// copy: nothing kept. H200 (docs/benchmarks.md): LayerNorm 2.7% faster.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/zoo/layernorm_f32_16k.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/k.tsb --dump-dir %t/k
// RUN: FileCheck %s --check-prefix=KEEP --input-file %t/k/kernel.sm_90a.ptx
// RUN: env TESSERA_L2_KEEP=0 %tessera compile %examples/zoo/layernorm_f32_16k.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/n.tsb --dump-dir %t/n
// RUN: FileCheck %s --check-prefix=NONE --input-file %t/n/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --check-prefix=NONE --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/k/ptxas.sm_90a.txt

// KEEP: createpolicy.fractional.L2::evict_last.b64 [[POL:%rd[0-9]+]], 1.0;
// KEEP: ld.global.L2::cache_hint.v4.b32 {{{.*}}}, [{{%rd[0-9]+}}], [[POL]];
// KEEP-COUNT-63: ld.global.L2::cache_hint.v4.b32
// KEEP-NOT: ld.global.L2::cache_hint
// KEEP: tessera_kernel_layernorm_f32_16k_param_10
// KEEP-NOT: cache_hint
// KEEP: st.global.v4.b32
// KEEP-NOT: cache_hint
// KEEP: ret;

// NONE-NOT: cache_hint
// NONE-NOT: createpolicy

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
