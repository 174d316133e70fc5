// Where moving a gemm's A operand into registers cannot make a kernel's
// shared tiles fit, tessera-place-operands moves nothing and
// tessera-plan-shared reports the budget as before, with a note saying why
// each candidate stayed in shared memory.
// RUN: %tessera-opt %s --verify-diagnostics --tessera-pipeline=gfx1201

// A (256 KiB, copied once, read only as A) would take 256 registers per
// thread beside the 64 of the accumulator: more than gfx1201's 256.
tile.func @wide_a(%A: !tile.tensor<[M, 512], f16>, %B: !tile.tensor<[N, 512], f16>,
                  %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{kernel 'wide_a' needs 327680 bytes of shared memory, more than the 65536 bytes per block of target 'gfx1201'}}
  tile.kernel blocks(%bx) in (%c1) threads = 256 {
    // expected-note @below {{shared tile '!tile.tile<256x512xf16, shared>': 262144 bytes at offset 0}}
    // expected-note @below {{not placed in registers: the kernel's shared tiles need 327680 bytes, more than the 65536 per block of target 'gfx1201'; in registers the kernel's fragments would need 320 registers per thread where the most are live, more than the 256 of the target}}
    %As = tile.alloc : !tile.tile<256x512xf16, shared>
    // expected-note @below {{shared tile '!tile.tile<64x512xf16, shared>': 65536 bytes at offset 262144}}
    %Bs = tile.alloc : !tile.tile<64x512xf16, shared>
    %S = tile.alloc : !tile.tile<256x64xf32, fragment>
    tile.copy %A[%c0, %c0], %As : !tile.tensor<[M, 512], f16>, !tile.tile<256x512xf16, shared>
    tile.clear %S : !tile.tile<256x64xf32, fragment>
    scf.for %j = %c0 to %c4 step %c1 {
      %n0 = arith.muli %j, %c64 : index
      tile.copy %B[%n0, %c0], %Bs : !tile.tensor<[N, 512], f16>, !tile.tile<64x512xf16, shared>
      tile.gemm %As, %Bs, %S transpose_b : !tile.tile<256x512xf16, shared>, !tile.tile<64x512xf16, shared>, !tile.tile<256x64xf32, fragment>
    }
    tile.copy %S, %C[%c0, %c0] : !tile.tile<256x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
