// attn_fwd_d256_q128_f16 on the chips with 64 KiB of LDS: its Q tile (64 KiB,
// copied once, read only as the A operand of Q K^T) beside K and V (32 KiB
// each) does not fit, so tessera-place-operands keeps Q in registers, where
// MFMA and WMMA read their A operand anyway. The kernel then plans 64 KiB of
// LDS and its gemms run on the matrix cores. On gfx1100, whose WMMA reads A
// with lanes l and l + 16 holding the same row, Q is held compactly (64
// registers per thread instead of 128) and each k-step of Q K^T gathers its
// operand with lane shuffles (ds_bpermute) and selects.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t/cdna %t/rdna3 %t/rdna4
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/cdna.tsb --dump-dir %t/cdna
// RUN: %tessera info %t/cdna.tsb | FileCheck %s --check-prefix=INFO
// RUN: llvm-objdump -d --mcpu=gfx942 %t/cdna/kernel.gfx942.hsaco | FileCheck %s --check-prefix=CDNA
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/rdna4.tsb --dump-dir %t/rdna4
// RUN: %tessera info %t/rdna4.tsb | FileCheck %s --check-prefix=INFO
// RUN: llvm-objdump -d --mcpu=gfx1201 %t/rdna4/kernel.gfx1201.hsaco | FileCheck %s --check-prefix=RDNA4
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/rdna3.tsb --dump-dir %t/rdna3
// RUN: %tessera info %t/rdna3.tsb | FileCheck %s --check-prefix=INFO
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/rdna3/kernel.gfx1100.hsaco | FileCheck %s --check-prefix=RDNA3
// The decision shows in the IR after the pass.
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/ir.tsb --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/ir3.tsb --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR3

// INFO: kernel attn_fwd_d256_q128_f16 (symbol tessera_kernel_attn_fwd_d256_q128_f16): 256 threads, 65536 shared bytes

// CDNA: <tessera_kernel_attn_fwd_d256_q128_f16>:
// CDNA-DAG: buffer_load_dwordx4
// CDNA-DAG: v_mfma_f32_32x32x8_f16

// RDNA4: <tessera_kernel_attn_fwd_d256_q128_f16>:
// RDNA4-DAG: buffer_load_b128
// RDNA4-DAG: v_wmma_f32_16x16x16_f16

// RDNA3: <tessera_kernel_attn_fwd_d256_q128_f16>:
// RDNA3-DAG: ds_bpermute_b32
// RDNA3-DAG: v_wmma_f32_16x16x16_f16

// IR: IR Dump After TesseraPlaceOperands
// IR: tile.alloc {tile.placed = "registers", tile.placed_reason = "the kernel's shared tiles need 131072 bytes, more than the 65536 per block of target 'gfx1201'; {{.*}}"} : <128x256xf16, fragment>
// IR: IR Dump After TesseraPlanShared
// IR: tile.shared_bytes = 65536

// IR3: IR Dump After TesseraPlaceOperands
// IR3: tile.alloc {tile.placed = "registers", tile.placed_reason = "{{.*}}, compactly (the matrix instruction's A layout repeats it across lanes; each k-step gathers its operand by lane shuffles): 64 per thread, {{.*}}"} : <128x256xf16, fragment, #tile.layout<
// IR3: IR Dump After TesseraInferLayouts
// IR3: tile.gemm {{.*}} transpose_b clear {a_layout = #tile.layout<
