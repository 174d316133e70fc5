// RUN: %tessera-opt %s -split-input-file -verify-diagnostics

// Invalid types and attributes: each case expects exactly one diagnostic.

// expected-error @+1 {{unknown memory space 'global', expected 'shared', 'fragment' or 'local'}}
tile.func private @unknown_space(%a: !tile.tile<64xf32, global>)

// -----

// expected-error @+1 {{global tensor dimension must be positive, got 0}}
tile.func private @zero_dim(%a: !tile.tensor<[0, K], f16>)

// -----

// expected-error @+1 {{tile dimensions must be static}}
tile.func private @dynamic_tile(%a: !tile.tile<?x32xf16, shared>)

// -----

// expected-error @+1 {{layout basis [0, 64] lies outside the tile shape}}
tile.func private @basis_outside(%a: !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 64]], warp = [], block = []>>)

// -----

// expected-error @+1 {{layout 'lane' basis [1] has 1 coordinates, expected 2}}
tile.func private @basis_rank_mismatch(%a: !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[1]], warp = [], block = []>>)

// -----

// expected-error @+1 {{layout bases have 3 coordinates but the tile has rank 2}}
tile.func private @layout_rank_vs_tile(%a: !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 0, 1]], lane = [], warp = [], block = []>>)

// -----

// expected-error @+1 {{unsupported global tensor element type 'vector<4xf32>'}}
tile.func private @vector_elements(%a: !tile.tensor<[N], vector<4xf32>>)

// -----

// expected-error @+1 {{global tensor rank must be 1 to 4, got 5}}
tile.func private @rank5(%a: !tile.tensor<[A, B, C, D, E], f32>)

// -----

// expected-error @+1 {{tile rank must be 1 to 3, got 4}}
tile.func private @tile_rank4(%a: !tile.tile<2x2x2x2xf32, shared>)

// -----

// expected-error @+1 {{a local tile takes no layout}}
tile.func private @local_layout(%a: !tile.tile<2xf32, local, #tile.layout<reg = [[1]], lane = [], warp = [], block = []>>)
