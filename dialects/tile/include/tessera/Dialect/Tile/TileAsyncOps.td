//===- TileAsyncOps.td - ops produced by the core passes ---*- tablegen -*-===//
//
// Ops that kernel authors do not write: the core passes (layout inference,
// software pipelining) produce them, and backends map them to the target's
// mechanism (cp.async, TMA + mbarrier, LDS DMA, plain loads). Included from
// TileOps.td so they are part of the same dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_TILEASYNCOPS_TD
#define TESSERA_DIALECT_TILE_TILEASYNCOPS_TD

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout"> {
  let summary = "Copies a fragment into a fragment of another layout";
  let description = [{
    Inserted by layout inference where two uses demand different layouts of
    one fragment: `dst` (same shape and element type, another `#tile.layout`)
    receives the values of `src`. The backend implements it with register
    moves, warp shuffles or a round trip through shared memory, whichever
    the two layouts need (`kind` records the class the pass estimated).

    ```mlir
    tile.convert_layout %Sf, %Sf_a {kind = "warp-shuffle"} : !tile.tile<64x64xf32, fragment, #tile.layout<...>>, !tile.tile<64x64xf32, fragment, #tile.layout<...>>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, Tile_AnyTile:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_StageViewOp : Tile_Op<"stage_view", [Pure]> {
  let summary = "One stage of a multi-buffered shared tile";
  let description = [{
    `buffer` is a shared tile with a leading stage dimension (S x shape);
    the result is a view (no copy: tiles have reference semantics) of stage
    `stage`, with `shape`. Produced by `tessera-pipeline`.

    ```mlir
    %As_i = tile.stage_view %As[%slot] : !tile.tile<3x128x32xf16, shared> -> !tile.tile<128x32xf16, shared>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$buffer, Index:$stage);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy"> {
  let summary = "Starts a global-to-shared copy that completes later";
  let description = [{
    Same operands and semantics as a global-to-shared `tile.copy` (offsets,
    masking, rank-reducing), but the copy only *starts*: its data may be read
    after a `tile.wait_group` that covers the group it was committed in.
    Backends map it according to the target's `async_copy`: `cp.async`
    (16-byte cp.async per thread), `tma` (one cp.async.bulk.tensor arriving
    on the stage's mbarrier), `lds_dma` (buffer loads into LDS) or `none`
    (an ordinary copy; groups and waits become barriers).

    ```mlir
    tile.async_copy %A[%row, %k0], %As_s : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Variadic<Index>:$src_offsets,
                       Tile_AnyTile:$dst);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` `,` $dst attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_CommitGroupOp : Tile_Op<"commit_group"> {
  let summary = "Closes the group of async copies issued since the last commit";
  let description = [{
    Every thread commits the same sequence of groups (possibly empty ones),
    so groups are numbered identically block-wide.

    ```mlir
    tile.commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WaitGroupOp : Tile_Op<"wait_group"> {
  let summary = "Waits until at most `pending` committed groups are in flight";
  let description = [{
    Blocks until all but the newest `pending` committed groups have landed,
    then synchronizes the block (a barrier), so every thread sees the data of
    the completed groups and every thread has finished reading the buffers
    that later copies will overwrite.

    The optional `stage(%slot, %phase)` names what the wait is for in terms
    a backend with per-stage transaction barriers (TMA and mbarriers) uses
    instead of group counts: the data of stage buffer `slot`, whose
    barrier completes its phase `phase` (0 or 1, the parity of how often the
    slot was filled before) when it lands. `tessera-pipeline` adds it, and
    tags the async copies, commits and waits of each pipelined loop with the
    loop's number (`tile.pipeline`), so a backend may move a whole loop to
    such barriers.

    ```mlir
    tile.wait_group pending = 1
    tile.wait_group pending = 2 stage(%slot, %phase)
    ```
  }];
  let arguments = (ins I64Attr:$pending, Variadic<Index>:$stage);
  let assemblyFormat = [{
    `pending` `=` $pending (`stage` `(` $stage^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TESSERA_DIALECT_TILE_TILEASYNCOPS_TD
