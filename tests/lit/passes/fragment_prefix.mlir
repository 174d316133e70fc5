// A fragment longer than the tile.parallel dim that indexes it (the region
// reads its first elements) takes the region's layout for those elements and
// holds the rest in further registers of the same threads: a 128-row scale
// vector read by a 64-row region keeps the region's warp split of rows
// (warp = [[1], [2]]) and gains register bits up to row 64; the [128, 1]
// form likewise. A fragment whose layout comes from elsewhere (a reduction's
// slice layout) is converted. Before, distribution stopped with "internal:
// fragment layout does not match the region's layout". Every target
// compiles it (budgets permitting); it runs correctly on lavapipe and the
// host (spirv/fragment_prefix_run.mlir).
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %S/Inputs/fragment_prefix.mlir | FileCheck %s --check-prefix=SM90
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %S/Inputs/fragment_prefix.mlir | FileCheck %s --check-prefix=GFX942

// SM90: tile.alloc : <64x128xf32, fragment, #tile.layout<reg = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0], [16, 0], [32, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[\[}}1, 0], [2, 0]], block = []>>
// SM90: tile.alloc : <128xf32, fragment, #tile.layout<reg = {{\[\[}}4], [8], [16], [32], [64]], lane = {{\[\[}}0], [0], [0], [0], [0]], warp = {{\[\[}}1], [2]], block = []>>
// SM90: tile.alloc : <128x1xf32, fragment, #tile.layout<reg = {{\[\[}}4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], lane = {{\[\[}}0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = {{\[\[}}1, 0], [2, 0]], block = []>>
// SM90: tile.alloc : <128xf32, fragment, #tile.layout<reg = {{\[\[}}4], [8], [16], [32], [64]], lane = {{\[\[}}0], [0], [0], [0], [0]], warp = {{\[\[}}1], [2]], block = []>>
// SM90: tile.reduce sum
// SM90-NEXT: tile.convert_layout
// SM90: tile.parallel

// GFX942: tile.alloc : <128xf32, fragment, #tile.layout<reg = [{{.*}}[64]], {{.*}}>>
// GFX942: tile.convert_layout
