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

#endif // TESSERA_DIALECT_TILE_TILEATTRS_TD
