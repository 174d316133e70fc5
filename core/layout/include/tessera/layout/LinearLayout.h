//===- LinearLayout.h - layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// A linear layout maps named *input* dimensions (hardware coordinates such as
// `register`, `lane`, `warp`, `block`, or a shared-memory `offset`) to named
// *output* dimensions (tensor coordinates `dim0`, `dim1`, ...). Every
// dimension has a power-of-two size. The map is linear over GF(2): each input
// bit has a basis vector (one value per output dimension) and the image of an
// input coordinate is the XOR of the basis vectors of its set bits.
//
//   L(register=5, lane=0) = basis(register, bit0) XOR basis(register, bit2)
//
// Why GF(2): every layout a GPU uses (blocked, MMA fragments, swizzled shared
// memory, broadcasts) is of this form, and composition, inversion and products
// then reduce to bit-matrix algebra that is exact and cheap. A zero basis means
// the input bit is a broadcast (several hardware locations hold one element).
//
// Conventions:
//  - Input dims keep their insertion order; within a dim, bit 0 is the lowest.
//  - Output dims keep their order too. Where a flat index over output dims is
//    needed (reshape, printing), it is row-major: the LAST output dim varies
//    fastest, as in a C array indexed [dim0][dim1].
//  - Total bits of all output dims must be <= 62 (ample for tile layouts).
//
// Errors (bad construction, non-invertible inversion, mismatched dims) throw
// LayoutError: layouts are built from trusted specs in passes and from user
// strings in tools, and an exception carries the message to either place.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LAYOUT_LINEARLAYOUT_H
#define TESSERA_LAYOUT_LINEARLAYOUT_H

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera::layout {

class LayoutError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Returns log2(x) for a power of two x >= 1, throws LayoutError otherwise.
int log2Exact(int64_t x, const std::string &what);
inline bool isPowerOf2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// A (name, value) list; used for coordinates and for dim sizes.
using NamedInts = std::vector<std::pair<std::string, int32_t>>;

class LinearLayout {
public:
  /// One basis vector: a value per output dimension (in outDims order).
  using Basis = std::vector<int32_t>;
  /// For each input dim, its name and one basis per bit (low bit first).
  using Bases = std::vector<std::pair<std::string, std::vector<Basis>>>;

  /// The empty layout: no input or output dims; maps () -> ().
  LinearLayout() = default;

  /// Builds a layout from bases. `outDims` names the output dims and their
  /// sizes (powers of two); every basis must have one value per output dim,
  /// each < that dim's size. Input dim sizes are 2^(number of bases).
  LinearLayout(Bases bases, NamedInts outDims);

  /// Like above but output sizes are the smallest powers of two that hold
  /// every basis value.
  static LinearLayout fromBases(Bases bases,
                                const std::vector<std::string> &outDimNames);

  /// in[i] -> out[i], size elements.
  static LinearLayout identity1D(int32_t size, const std::string &inDim,
                                 const std::string &outDim);
  /// in (size elements) -> out = 0, all broadcast. outDim has size outSize.
  static LinearLayout zeros1D(int32_t size, const std::string &inDim,
                              const std::string &outDim, int32_t outSize = 1);
  /// in dim with `size` elements mapping to the given stride along outDim
  /// (stride a power of two): in = i -> out = i * stride.
  static LinearLayout strided1D(int32_t size, int32_t stride,
                                const std::string &inDim,
                                const std::string &outDim);

  // --- Shape queries -------------------------------------------------------
  const Bases &getBases() const { return bases; }
  const NamedInts &getOutDims() const { return outDims; }
  NamedInts getInDims() const;
  std::vector<std::string> getInDimNames() const;
  std::vector<std::string> getOutDimNames() const;
  bool hasInDim(const std::string &name) const;
  bool hasOutDim(const std::string &name) const;
  int32_t getInDimSize(const std::string &name) const;  ///< 1 if absent
  int32_t getOutDimSize(const std::string &name) const; ///< 1 if absent
  int getInDimSizeLog2(const std::string &name) const;
  int getOutDimSizeLog2(const std::string &name) const;
  int64_t getTotalInDimSize() const;
  int64_t getTotalOutDimSize() const;
  int getTotalInDimSizeLog2() const;
  int getTotalOutDimSizeLog2() const;
  const Basis &getBasis(const std::string &inDim, int bit) const;
  int32_t getBasis(const std::string &inDim, int bit,
                   const std::string &outDim) const;

  // --- Evaluation ----------------------------------------------------------
  /// Maps input coordinates (any subset of input dims, missing ones are 0) to
  /// all output coordinates (in outDims order).
  NamedInts apply(const NamedInts &ins) const;
  /// Same on plain vectors: one value per input dim / output dim, in order.
  std::vector<int32_t> applyFlat(const std::vector<int32_t> &ins) const;
  /// Input and output as single flat integers: input flattened with the first
  /// input dim lowest; output row-major (last out dim fastest).
  int64_t applyLinear(int64_t flatIn) const;

  // --- Algebra -------------------------------------------------------------
  /// Returns outer ∘ this: apply this, then outer. this's output dims must be
  /// outer's input dims (same names; outer's sizes may be larger).
  LinearLayout compose(const LinearLayout &outer) const;

  /// The inverse of a bijective layout (in and out have the same total size
  /// and the map is one-to-one). Input dims of the result are this's output
  /// dims and vice versa. Throws LayoutError if not invertible.
  LinearLayout invert() const;

  /// A right inverse of a surjective layout: L(P(y)) == y for every y. Where
  /// several inputs map to y, picks the one whose set bits are earliest in
  /// input-dim order (so registers before lanes before warps). Free input bits
  /// map to zero. Throws LayoutError if not surjective.
  LinearLayout pseudoinvert() const;

  /// C with outer(C(x)) == this(x), i.e. pseudoinverse(outer) ∘ this. Both
  /// layouts must have the same output dims. Used for layout conversions: it
  /// maps this's hardware coordinates to outer's. Throws LayoutError if
  /// this's image is not contained in outer's image.
  LinearLayout invertAndCompose(const LinearLayout &outer) const;

  /// The product a * b: input and output dims are the unions (a's first, then
  /// b's new ones). For a dim present in both, a's bits are the low bits and
  /// b's bits the high bits — b tiles a. E.g.
  ///   identity1D(4,"register","dim1") * identity1D(32,"lane","dim1")
  /// gives 4 consecutive elements per lane, lanes next to each other.
  friend LinearLayout operator*(const LinearLayout &a, const LinearLayout &b);
  LinearLayout &operator*=(const LinearLayout &b) { return *this = *this * b; }

  /// c such that divisor * c == *this, if any.
  std::optional<LinearLayout> divideLeft(const LinearLayout &divisor) const;
  /// b such that b * divisor == *this, if any.
  std::optional<LinearLayout> divideRight(const LinearLayout &divisor) const;

  /// Keeps only the given input and output dims (in the given order).
  LinearLayout sublayout(const std::vector<std::string> &inDimNames,
                         const std::vector<std::string> &outDimNames) const;
  /// True if every basis of the given input dims is zero on the given outputs.
  bool sublayoutIsZero(const std::vector<std::string> &inDimNames,
                       const std::vector<std::string> &outDimNames) const;
  /// True if this is `other` restricted to a prefix of its input bits: each
  /// input dim of this exists in other with at least as many bits, each output
  /// dim exists with at least the same size, and the bases agree.
  bool isSubLayoutOf(const LinearLayout &other) const;

  /// Reorders output dims (a transpose of the tensor index); same map.
  LinearLayout transposeOuts(const std::vector<std::string> &newOrder) const;
  /// Reorders input dims; same map.
  LinearLayout transposeIns(const std::vector<std::string> &newOrder) const;
  /// Flattens the output dims row-major (last fastest) and splits the flat
  /// index row-major into `newOutDims` (sizes must multiply to the same
  /// total). A tensor reshape.
  LinearLayout reshapeOuts(const NamedInts &newOutDims) const;
  /// Same for input dims (first input dim lowest).
  LinearLayout reshapeIns(const NamedInts &newInDims) const;
  /// Changes output dim sizes: basis values are reduced modulo the new size
  /// (bits that fall outside become broadcasts). Growing just relabels.
  LinearLayout resizeOuts(const NamedInts &newSizes) const;

  // --- Properties ----------------------------------------------------------
  int rank() const;          ///< rank of the bit matrix
  bool isSurjective() const; ///< every output reached
  bool isInjective() const;  ///< no two inputs share an output
  bool isInvertible() const; ///< both
  /// For each input dim a mask of the bits whose basis is all zero
  /// (broadcast: flipping the bit does not change the element).
  NamedInts getFreeVariableMasks() const;
  /// Mask of input bits of `inDim` that are linearly dependent on lower input
  /// bits (earlier dims, lower bits): zero bases and duplicates. These are the
  /// redundant copies; a pass may skip storing them.
  int32_t getRedundantMask(const std::string &inDim) const;

  /// Largest v (power of two) such that registers 0..v-1 hold v consecutive
  /// elements along `outDim` (register i at offset i, other dims unchanged).
  /// The vector width a thread can load/store along that dim.
  int32_t getContiguousRegisters(const std::string &outDim,
                                 const std::string &regDim = "register") const;

  bool operator==(const LinearLayout &o) const;
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }
  /// Equal as maps after aligning dims by name (order-insensitive; missing
  /// dims count as size 1).
  bool equalIgnoringDimOrder(const LinearLayout &o) const;

  /// One-line description of the bases, e.g.
  ///  "register=[(0,1),(8,0)] lane=[...] -> dim0:16,dim1:8".
  std::string toString() const;

  // Internal bit-matrix view (first out dim lowest bits). Public for helpers.
  /// One column per input bit (input dims in order, low bit first); each
  /// column is the flat output bits.
  std::vector<uint64_t> toColumns() const;
  uint64_t basisToFlatBits(const Basis &b) const;
  Basis flatBitsToBasis(uint64_t bits) const;

private:
  void validate() const;
  int outDimIndex(const std::string &name) const; ///< -1 if absent
  int inDimIndex(const std::string &name) const;  ///< -1 if absent

  Bases bases;
  NamedInts outDims;
};

std::ostream &operator<<(std::ostream &os, const LinearLayout &l);

} // namespace tessera::layout

#endif // TESSERA_LAYOUT_LINEARLAYOUT_H
