// Datatype sizes and the flattened per-datatype processor (see hardware.hpp).
#include "chorus/llm/hardware.hpp"

#include "chorus/core/assert.hpp"

namespace chorus::llm {

double datatype_bytes(const std::string& name) {
  if (name == "float8")
    return 1;
  if (name == "float16" || name == "bfloat16")
    return 2;
  if (name == "float32")
    return 4;
  return 0;
}

Hardware::Hardware(const System& sys, int datatype) {
  CHORUS_ASSERT(datatype >= 0 && static_cast<size_t>(datatype) < sys.datatypes.size(), "datatype index {}", datatype);
  auto i = static_cast<size_t>(datatype);
  matrix_ = sys.matrix[i];
  vector_ = sys.vector[i];
  mem1_ = sys.mem1;
  mem2_ = sys.mem2;
  roofline_ = sys.mode == ProcessingMode::kRoofline;
  // An unknown datatype name gets size 0; parse_execution() refuses to run with it.
  bytes_ = datatype_bytes(sys.datatypes[i]);
}

}  // namespace chorus::llm
