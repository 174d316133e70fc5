//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TILE_TILEATTRS_TD
#define TESSERA_DIALECT_TILE_TILEATTRS_TD

include "tessera/Dialect/Tile/TileBase.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "A linear layout: hardware coordinate bits to tile coordinates";
  let description = [{
    A map, linear over GF(2), from the bits of a hardware coordinate
    (reg, lane, warp, block) to tile coordinates. Each of the four lists
    holds one basis vector per input bit: the tile coordinate that bit i of
    that hardware coordinate selects. The image of a hardware coordinate is
    the XOR of the bases of its set bits.

    ```mlir
    #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]],
                 warp = [], block = []>
    ```
  }];
  let parameters = (ins "::mlir::ArrayAttr":$reg,
                        "::mlir::ArrayAttr":$lane,
                        "::mlir::ArrayAttr":$warp,
                        "::mlir::ArrayAttr":$block);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of tile dimensions the bases have (0 when every list is empty).
    int64_t getRank() const;
  }];
}


def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "An XOR swizzle of a row-major shared tile";
  let description = [{
    Element (r, c) of a shared tile with C columns is stored at
    `r*C + ((c/vec) ^ ((r/per_phase) % max_phase))*vec + c%vec`.
    `<vec = 1, per_phase = 1, max_phase = 1>` is plain row-major. Chosen by
    `tessera-swizzle-shared` and recorded on `tile.alloc` as `swizzle`.

    With `block_cols = B` (B < C), the tile is stored as C/B column blocks,
    each a row-major R x B tile swizzled as above, one after the other:
    element (r, c) is at `(c/B)*R*B + r*B + ((c%B/vec) ^ ...)*vec + c%vec`.
    Matrix instructions that read shared operands by descriptor need rows of
    at most 128 bytes (their swizzle atoms); wider tiles get column blocks.

    ```mlir
    #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>
    #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>
    ```
  }];
  let parameters = (ins "int64_t":$vec, "int64_t":$per_phase,
                        "int64_t":$max_phase,
                        DefaultValuedParameter<"int64_t", "0">:$block_cols);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // TESSERA_DIALECT_TILE_TILEATTRS_TD
