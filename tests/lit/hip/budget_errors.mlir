// A kernel that cannot launch on the chip is a compile error. Distribution
// counts each fragment's registers and the planned LDS against the target
// description (naming the tiles); after LLVM's codegen the plugin reads
// every kernel's resources from the code object's metadata and fails when
// the VGPRs/AGPRs per thread, registers per block or LDS the backend really
// used exceed the chip's (naming the kernel). The last two runs use a copy
// of a shipped description with a lowered limit (Inputs/tight_target.py),
// between what distribution counts and what the backend allocates.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessera compile %S/Inputs/too_many_registers.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/r.tsb 2>&1 | FileCheck %s --check-prefix=FRAG
// RUN: not %tessera compile %S/Inputs/too_much_lds.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/l.tsb 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not %python %S/Inputs/tight_target.py %tessera %t/vgpr gfx942 %examples/gemm.mlir registers.per_thread=192 2>&1 | FileCheck %s --check-prefix=VGPR
// RUN: not %python %S/Inputs/tight_target.py %tessera %t/block gfx1100 %examples/softmax.mlir registers.per_block=4096 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not %python %S/Inputs/tight_target.py %tessera %t/scratch gfx950 %S/Inputs/scratch_does_not_fit.mlir shared_memory.per_block=81920 shared_memory.per_block_optin=81920 2>&1 | FileCheck %s --check-prefix=SCRATCH

// FRAG: too_many_registers.mlir:14:3: error: the kernel's fragments need 512 registers per thread, more than the 256 of target 'gfx1100'
// FRAG-NEXT: too_many_registers.mlir:17:11: note: 256x256xf32 fragment: 512 registers

// LDS: too_much_lds.mlir:15:3: error: kernel 'wide_k' needs 131072 bytes of shared memory, more than the 65536 bytes per block of target 'gfx942'
// LDS-NEXT: too_much_lds.mlir:16:11: note: shared tile '!tile.tile<128x256xf16, shared>': 65536 bytes at offset 0
// LDS-NEXT: too_much_lds.mlir:17:11: note: shared tile '!tile.tile<256x128xf16, shared>': 65536 bytes at offset 65536
// LDS-NOT: see current operation

// VGPR: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kernel 'tessera_kernel_gemm' needs {{[0-9]+}} VGPRs ({{[0-9]+}} of them AGPRs) per thread, more than the 192 of target 'gfx942'

// BLOCK: softmax.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kernel 'tessera_kernel_softmax' needs {{[0-9]+}} registers per thread x 128 threads, more than the 4096 a block may have on target 'gfx1100'

// The tiles fit (64 KiB of 80), the conversion's scratch beside them does
// not, no tile is dead where it runs and none can move into registers: the
// sizes and the op that needs the scratch.
// SCRATCH: scratch_does_not_fit.mlir:10:3: error: the kernel needs 98304 bytes of shared memory (tiles and 32768 bytes of reduction/conversion scratch), more than the 81920 of target 'gfx950'
// SCRATCH-NEXT: scratch_does_not_fit.mlir:19:5: note: a layout conversion stages 32768 bytes through shared memory here, after the tiles: no tile dead at this op holds them
