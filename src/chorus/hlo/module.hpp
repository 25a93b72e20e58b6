// The in-memory form of an XLA HLO module as the text printer writes it: computations of instructions with shapes,
// operands resolved to indices and attributes kept as text (the cost model reads the few it needs).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace chorus::hlo {

// An array shape (element type and dimensions) or a tuple of shapes. Of the layout, only what padding to whole tiles
// adds is kept: bytes() are logical, as XLA's ShapeUtil::ByteSizeOf counts them, memory_bytes() those of the array
// as stored, padded to whole tiles, as ShapeUtil::ArraySize counts them (docs/hlo.md, "Tiled layouts").
struct Shape {
  std::string element_type;  // "f32", "bf16", "pred", "token"...; empty for a tuple
  std::vector<int64_t> dims;
  std::vector<Shape> tuple;
  bool is_tuple = false;
  int64_t padded_elements = -1;  // elements padded to whole tiles of the layout's first tile; -1 when untiled

  int64_t elements() const;      // product of dims (1 for a scalar); 0 for a tuple
  int64_t bytes() const;         // array: elements x element size; tuple: the sum of its leaves
  int64_t memory_bytes() const;  // array: padded (else logical) elements x element size; tuple: the sum of its leaves
  std::string to_string() const;
};

// The elements of an array of dimensions `dims` laid out in `minor_to_major` order (empty: the last dimension most
// minor) padded to whole tiles of `tile` (sizes from major to minor, -1 for '*'); nullopt when the count passes
// 2^62 or the tile is malformed (a size below 1 or a last '*').
std::optional<int64_t> tiled_elements(std::span<const int64_t> dims, std::span<const int64_t> minor_to_major,
                                      std::span<const int64_t> tile);

// Bytes per element of an HLO primitive type; -1 when the name is not one.
int element_size(std::string_view type);

struct Instruction {
  std::string name;  // without the leading %
  std::string opcode;
  Shape shape;
  std::vector<std::string> operand_names;
  std::vector<int> operands;                                    // indices into the computation's instructions
  std::vector<std::pair<std::string, std::string>> attributes;  // key -> value text, in the printed order
  std::vector<int> called;  // computations named by calls=, to_apply=, condition=, body=, branch_computations=...
  int64_t parameter_number = -1;
  int line = 0;
  int column = 0;
  bool is_root = false;

  // The value of attribute `key`, or an empty view when absent.
  std::string_view attribute(std::string_view key) const;
};

struct Computation {
  std::string name;
  std::vector<Instruction> instructions;
  std::unordered_map<std::string, int> index;  // instruction name -> position
  int root = -1;
  int line = 0;
  bool is_entry = false;
  bool is_fused = false;  // called by a fusion (its cost belongs to the fusion)
};

struct Module {
  std::string name;
  std::string source;  // display name of the file it came from
  std::vector<Computation> computations;
  std::unordered_map<std::string, int> index;  // computation name -> position
  int entry = -1;
  std::vector<std::string> warnings;  // e.g. unknown opcodes, kept at zero cost
};

}  // namespace chorus::hlo
