// Target names resolve through TESSERA_TARGET_PATH before the built-in
// places; unknown names list where they were looked for.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %tessera_src/tests/unit/target/made_up.toml %t.dir/fictional.toml
// RUN: env TESSERA_TARGET_PATH=%t.dir %tessera-opt --tessera-pipeline=fictional %examples/gemm.mlir | FileCheck %s
// RUN: %tessera-opt --tessera-pipeline=target=sm_80 %examples/gemm.mlir | FileCheck %s --check-prefix=SM80
// RUN: not %tessera-opt --tessera-pipeline=no_such_chip %examples/gemm.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: atom = "madeup_8x8x4_f16_f32"
// SM80: atom = "mma_m16n8k16_f16_f32", warps = array<i64: 4, 1>
// SM80: tile.num_stages = 3
// ERR: unknown target 'no_such_chip': no no_such_chip.toml in TESSERA_TARGET_PATH
