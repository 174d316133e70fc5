//===- TileTypes.cpp - tile dialect types ---------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Tile/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessera/Dialect/Tile/TileTypes.cpp.inc"
      >();
}

/// Element types a tensor or tile may hold.
static bool isValidElementType(Type t) {
  return isa<IntegerType, FloatType, IndexType>(t);
}

//===----------------------------------------------------------------------===//
// GlobalTensorType: !tile.tensor<[M, 128, ?], f16>
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  SmallVector<StringAttr> symbols;
  Type elementType;
  if (parser.parseLess() || parser.parseLSquare())
    return {};
  auto parseDim = [&]() -> ParseResult {
    int64_t size;
    OptionalParseResult num = parser.parseOptionalInteger(size);
    if (num.has_value()) {
      if (failed(*num))
        return failure();
      shape.push_back(size);
      symbols.push_back(StringAttr());
      return success();
    }
    if (succeeded(parser.parseOptionalQuestion())) {
      shape.push_back(ShapedType::kDynamic);
      symbols.push_back(StringAttr());
      return success();
    }
    std::string name;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseOptionalKeywordOrString(&name))
      return parser.emitError(loc, "expected a dimension: an integer, '?' or a "
                                   "symbol name");
    shape.push_back(ShapedType::kDynamic);
    symbols.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  if (parser.parseCommaSeparatedList(parseDim) || parser.parseRSquare() ||
      parser.parseComma())
    return {};
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseType(elementType) || parser.parseGreater())
    return {};
  return parser.getChecked<GlobalTensorType>(typeLoc, parser.getContext(),
                                             shape, symbols, elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printer << "<[";
  for (unsigned i = 0, e = getShape().size(); i < e; ++i) {
    if (i)
      printer << ", ";
    if (!getSymbol(i).empty())
      printer.printKeywordOrString(getSymbol(i));
    else if (isDynamicDim(i))
      printer << "?";
    else
      printer << getShape()[i];
  }
  printer << "], " << getElementType() << ">";
}

LogicalResult
GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, ArrayRef<StringAttr> symbols,
                         Type elementType) {
  if (shape.empty() || shape.size() > 4)
    return emitError() << "global tensor rank must be 1 to 4, got "
                       << shape.size();
  if (symbols.size() != shape.size())
    return emitError() << "global tensor has " << shape.size()
                       << " dimensions but " << symbols.size() << " symbols";
  for (auto [size, sym] : llvm::zip(shape, symbols)) {
    if (size != ShapedType::kDynamic && size <= 0)
      return emitError() << "global tensor dimension must be positive, got "
                         << size;
    if (sym && sym.getValue().empty())
      return emitError() << "a symbolic dimension needs a non-empty name";
    if (sym && size != ShapedType::kDynamic)
      return emitError() << "symbolic dimension '" << sym.getValue()
                         << "' must be dynamic";
  }
  if (!isValidElementType(elementType))
    return emitError() << "unsupported global tensor element type "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// TileType: !tile.tile<128x32xf16, shared[, #tile.layout<...>]>
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess())
    return {};
  SMLoc shapeLoc = parser.getCurrentLocation();
  if (parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elementType))
    return {};
  if (llvm::is_contained(shape, ShapedType::kDynamic))
    return parser.emitError(shapeLoc, "tile dimensions must be static"), Type();
  if (parser.parseComma())
    return {};
  SMLoc spaceLoc = parser.getCurrentLocation();
  StringRef spaceName;
  if (parser.parseKeyword(&spaceName))
    return {};
  std::optional<MemorySpace> space = symbolizeMemorySpace(spaceName);
  if (!space)
    return parser.emitError(spaceLoc, "unknown memory space '")
               << spaceName << "', expected 'shared', 'fragment' or 'local'",
           Type();
  LayoutAttr layout;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc layoutLoc = parser.getCurrentLocation();
    Attribute attr;
    if (parser.parseAttribute(attr))
      return {};
    layout = dyn_cast<LayoutAttr>(attr);
    if (!layout)
      return parser.emitError(layoutLoc, "expected a #tile.layout attribute"),
             Type();
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(shapeLoc, parser.getContext(), shape,
                                     elementType, *space, layout);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << stringifyMemorySpace(getMemorySpace());
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               MemorySpace space, LayoutAttr layout) {
  if (shape.empty() || shape.size() > 3)
    return emitError() << "tile rank must be 1 to 3, got " << shape.size();
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "tile dimensions must be positive, got " << d;
  if (!isValidElementType(elementType))
    return emitError() << "unsupported tile element type " << elementType;
  if (layout) {
    if (space == MemorySpace::Local)
      return emitError() << "a local tile takes no layout";
    if (layout.getRank() != 0 && layout.getRank() != (int64_t)shape.size())
      return emitError() << "layout bases have " << layout.getRank()
                         << " coordinates but the tile has rank "
                         << shape.size();
    for (ArrayAttr list : {layout.getReg(), layout.getLane(), layout.getWarp(),
                           layout.getBlock()})
      for (Attribute basis : list)
        for (auto [c, d] : llvm::zip(cast<ArrayAttr>(basis), shape))
          if (cast<IntegerAttr>(c).getValue().getZExtValue() >= (uint64_t)d)
            return emitError() << "layout basis " << basis
                               << " lies outside the tile shape";
  }
  return success();
}
