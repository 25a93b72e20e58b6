// The in-memory form of an XLA HLO module as the text printer writes it: computations of instructions with shapes,
// operands resolved to indices and attributes kept as text (the cost model reads the few it needs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace chorus::hlo {

// An array shape (element type and dimensions) or a tuple of shapes. Layouts are parsed and dropped: sizes are
// logical, as XLA's ShapeUtil::ByteSizeOf counts them.
struct Shape {
  std::string element_type;  // "f32", "bf16", "pred", "token"...; empty for a tuple
  std::vector<int64_t> dims;
  std::vector<Shape> tuple;
  bool is_tuple = false;

  int64_t elements() const;  // product of dims (1 for a scalar); 0 for a tuple
  int64_t bytes() const;     // array: elements x element size; tuple: the sum of its leaves
  std::string to_string() const;
};

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
