// tessera-deepen-keys (DeepenKeys.cpp): an online-softmax loop whose key
// blocks are shallower than the target's softmax_key_block (sm_90a: 128)
// runs over blocks F times as deep: its key tiles and tile.parallel key
// dimensions grow by F, k0 = iv * F KB, the loop runs over [lb / F,
// ceildiv(ub, F)), and the keys outside [lb KB, ub KB) are masked to -inf
// where the program writes S before its max (and P to 0 where the
// exponent's scale is a scalar of unknown sign). The depth the program
// wrote is kept in tile.keys_from.
// GQA (causal, 64-key blocks, lb = 0): 64 -> 128, the upper mask only.
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=GQA
// A loop over key blocks [first, last) with no mask of its own but the
// sequence's end, the scale folded into exp2: both bounds masked, P too.
// (Forced: its head dimension 64 would otherwise keep its blocks.)
// RUN: env TESSERA_DEEPEN_KEYS=128 %tessera-opt --tessera-deepen-keys=target=sm_90a %S/Inputs/attn_key_range.mlir | FileCheck %s --check-prefix=RANGE
// Attention loops with why or why not: no deeper than S's rows or the
// head dimension (64-row blocks, d64 keep 64 keys), nor than fits (d256
// with 128 query rows keeps 64); GQA written with 32-key blocks goes to
// 128 as the 64-key one does:
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/flash_attention_fwd.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FA64
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/flash_attention_fwd_q128.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FA128
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/zoo/attn_fwd_d256_cross_f16.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=CROSS
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/zoo/attn_fwd_d256_q128_f16.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=D256
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/zoo/attn_fwd_d64_causal_bf16.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=D64
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %S/Inputs/attn_gqa_k32.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=K32
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-deepen-keys=target=sm_90a %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEMM
// Targets without the key (sm_80, the host) keep the blocks; =N deepens
// on any target (the CPU and Vulkan tests), =0 turns the pass off; a loop
// with tile.keys_from is left alone.
// RUN: %tessera-opt --tessera-deepen-keys=target=sm_80 %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=KEPT
// RUN: %tessera-opt --tessera-deepen-keys=target=host %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=KEPT
// RUN: env TESSERA_DEEPEN_KEYS=0 %tessera-opt --tessera-deepen-keys=target=sm_90a %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=KEPT
// RUN: env TESSERA_DEEPEN_KEYS=128 %tessera-opt --tessera-deepen-keys=target=host %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=GQA
// RUN: sed -e 's/stages = 2 {/stages = 2 attributes {tile.keys_from = 64} {/' %examples/zoo/attn_gqa_d128_causal.mlir > %t.kept.mlir
// RUN: %tessera-opt --tessera-deepen-keys=target=sm_90a %t.kept.mlir | FileCheck %s --check-prefix=KEPT
// Loops whose iterations do not compose are kept, with the reason:
// the accumulator not rescaled,
// RUN: sed -e 's/%%os = arith.mulf %%o, %%a : f32/%%os = arith.addf %%o, %%a : f32/' %examples/zoo/attn_gqa_d128_causal.mlir > %t.norescale.mlir
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-deepen-keys=target=sm_90a %t.norescale.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NORESCALE
// P taken against the old max,
// RUN: sed -e 's/%%mi = tile.load %%m_safe\[%%i\]/%%mi = tile.load %%m_prev[%%i]/' %examples/zoo/attn_gqa_d128_causal.mlir > %t.oldmax.mlir
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-deepen-keys=target=sm_90a %t.oldmax.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLDMAX
// a key index used alone (a mask by position inside the block),
// RUN: sed -e 's/%%in_seq = arith.cmpi ult, %%kpos, %%skv : index/%%in_seq = arith.cmpi ult, %%jj, %%skv : index/' %examples/zoo/attn_gqa_d128_causal.mlir > %t.jj.mlir
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-deepen-keys=target=sm_90a %t.jj.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEYIDX
// a max that is not carried (reset each iteration).
// RUN: sed -e 's/tile.copy %%m, %%m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>/tile.copy %%m, %%m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>\n      tile.fill %%m, %%neg_inf : !tile.tile<128xf32, fragment>, f32/' %examples/zoo/attn_gqa_d128_causal.mlir > %t.reset.mlir
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --tessera-deepen-keys=target=sm_90a %t.reset.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESET

// GQA: tile.clear
// GQA: %[[HI:.*]] = arith.muli %[[UB:.*]], %{{.*}} : index
// GQA: %[[LB:.*]] = arith.divui %{{.*}}, %[[C2:.*]] : index
// GQA: %[[NUB:.*]] = arith.ceildivui %[[UB]], %[[C2]] : index
// GQA: tile.pipelined %[[J:.*]] = %[[LB]] to %[[NUB]] step %{{.*}} stages = 2 attributes {tile.keys_from = 64 : i64}
// GQA: %[[K0:.*]] = arith.muli %[[J]], %{{.*}} : index
// GQA: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %[[K0]], %{{.*}}], %{{.*}} : {{.*}}, !tile.tile<128x128xf16, shared>
// GQA: tile.gemm {{.*}} : <128x128xf16, shared>, <128x128xf16, shared>, <128x128xf32, fragment>
// GQA: tile.parallel (%{{.*}}, %[[JJ:.*]]) in [128, 128]
// GQA: %[[POS:.*]] = arith.addi %[[K0]], %[[JJ]] : index
// GQA: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[HI]] : index
// GQA-NEXT: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// GQA-NEXT: %[[V:.*]] = arith.select %[[IN]], %{{.*}}, %[[NEG]] : f32
// GQA-NEXT: tile.store %[[V]]
// GQA: tile.reduce max {{.*}} : <128x128xf32, fragment>, <128xf32, fragment>
// GQA: tile.parallel (%{{.*}}, %{{.*}}) in [128, 128]
// GQA: tile.copy {{.*}} : !tile.tile<128x128xf32, fragment>, !tile.tile<128x128xf16, fragment>
// GQA: tile.gemm {{.*}} : <128x128xf16, fragment>, <128x128xf16, shared>, <128x128xf32, fragment>

// RANGE: tile.clear
// RANGE: %[[HI:.*]] = arith.muli %{{.*}}, %[[C64:.*]] : index
// RANGE: %[[LO:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// RANGE: tile.pipelined {{.*}} attributes {tile.keys_from = 64 : i64}
// RANGE: arith.cmpi ult, %{{.*}}, %[[HI]] : index
// RANGE-NEXT: arith.cmpi uge, %{{.*}}, %[[LO]] : index
// RANGE: arith.constant 0xFF800000 : f32
// RANGE: tile.reduce max
// RANGE: math.exp2
// RANGE: arith.cmpi ult, %{{.*}}, %[[HI]] : index
// RANGE-NEXT: arith.cmpi uge, %{{.*}}, %[[LO]] : index
// RANGE: arith.constant 0.000000e+00 : f32
// RANGE-NEXT: arith.select

// FA64: remark: key blocks of 64 kept: 64 keys already reach S's 64 rows
// D64: remark: key blocks of 64 kept: 64 keys already reach the head dimension 64
// K32: remark: key blocks 32 -> 128
// FA128: remark: key blocks of 128 kept: 128 keys already reach the target's 128
// CROSS: remark: key blocks 32 -> 64
// D256: remark: key blocks of 64 kept: 128 keys need {{[0-9]+}} KiB of shared memory with 2 stages, more than the 227 KiB of target 'sm_90a'
// GEMM: remark: key blocks kept: an accumulating gemm does not contract a key fragment's keys with a key block's

// KEPT: tile.pipelined
// KEPT: tile.gemm {{.*}} : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>

// NORESCALE: remark: key blocks kept: a carried tile is not X * exp(m - m') + (a sum over keys of exp(S - m'))
// OLDMAX: remark: key blocks kept: P is not exp(S - m) of the max's S and m
// KEYIDX: remark: key blocks kept: k0 or a key index is used other than as k0 + index
// RESET: remark: key blocks kept: no tile carries max(m, rowmax(S))
