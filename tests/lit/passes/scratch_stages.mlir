// tessera-pipeline-loops counts the shared scratch distribution stages
// reductions and layout conversions through (stagingScratchBytes) when it
// chooses a loop's stages. flash_attention_fwd_q128 on gfx950 (160 KiB of
// LDS): Q 32 KiB + two stages of K and V (64 KiB each) take exactly 160 KiB,
// and the S -> P conversion needs 32 KiB more, so the loop gets one stage;
// tessera-plan-shared then puts the conversion into K's buffer, dead there,
// and the kernel plans 96 KiB. On a made-up copy of gfx950 with 192 KiB the
// two stages and the scratch after them fit, and the loop keeps two; one
// byte less and it gets one.
// RUN: %tessera-opt --tessera-pipeline=gfx950 %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=GFX950
// RUN: %tessera compile %examples/flash_attention_fwd_q128.mlir --target amdgcn-amd-amdhsa:gfx950 --no-cache -o %t.tsb
// RUN: sed 's/^per_block_optin = .*/per_block_optin = 196608/' %tessera_src/backends/hip/targets/gfx950.toml > %t.192k.toml
// RUN: %tessera-opt --tessera-pipeline=%t.192k.toml %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=FITS
// RUN: sed 's/^per_block_optin = .*/per_block_optin = 196607/' %tessera_src/backends/hip/targets/gfx950.toml > %t.less.toml
// RUN: %tessera-opt --tessera-pipeline=%t.less.toml %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=GFX950
//
// tessera-place-operands counts the scratch too: Inputs/chained_gemms.mlir
// (A and B tiles, 32 KiB each, both live at a 32 KiB conversion) on a
// made-up gfx950 with 80 KiB: the tiles fit, the scratch beside them does
// not, so A (read only as a gemm A operand) moves into registers and the
// scratch follows B's 32 KiB.
// RUN: sed -e 's/^per_block_optin = .*/per_block_optin = 81920/' -e 's/^per_block = .*/per_block = 81920/' %tessera_src/backends/hip/targets/gfx950.toml > %t.80k.toml
// RUN: %tessera-opt --tessera-pipeline=%t.80k.toml %S/Inputs/chained_gemms.mlir | FileCheck %s --check-prefix=PLACED

// GFX950: tile.shared_bytes = 98304
// GFX950: %[[Q:.*]] = tile.alloc {offset = {{[0-9]+}} : i64{{.*}} : <128x128xf16, shared
// GFX950: %[[K:.*]] = tile.alloc {offset = [[KOFF:[0-9]+]] : i64{{.*}} : <128x128xf16, shared
// GFX950: scf.for
// GFX950: tile.gemm %[[Q]], %[[K]]
// GFX950: tile.copy {{.*}}tile.scratch_offset = [[KOFF]] : i64} : !tile.tile<128x128xf32, fragment{{.*}}!tile.tile<128x128xf16, fragment
// GFX950: tile.num_stages = 1 : i64, tile.requested_stages = 2 : i64

// FITS: tile.shared_bytes = 163840
// FITS-NOT: tile.scratch_offset
// FITS: tile.num_stages = 2 : i64

// PLACED: tile.shared_bytes = 32768
// PLACED: tile.alloc {tile.placed = "registers", tile.placed_reason = "the kernel's shared tiles and the scratch its layout conversions and reductions stage through need 98304 bytes, more than the 81920 per block of target 'gfx950'; copied once from global memory and read only as the A operand of gemms, it is kept in registers: 32 per thread, the kernel's fragments need 128 of the 512 where the most are live; shared tiles take 32768 bytes, 65536 with the scratch after them"} : <128x128xf16, fragment
// PLACED: tile.alloc {offset = 0 : i64{{.*}}: <128x128xf16, shared
// PLACED-NOT: tile.scratch_offset
