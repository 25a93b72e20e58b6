// The schema's names of node and collective types (see trace.hpp); in the library, not in the Chakra plugin, since
// reports and generators name types without reading a trace.
#include <array>

#include <fmt/format.h>

#include "chorus/chakra/trace.hpp"

namespace chorus::chakra {

std::string to_string(NodeType type) {
  static constexpr std::array<const char*, 8> names{"INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE",
                                                    "MEM_STORE_NODE", "COMP_NODE",     "COMM_SEND_NODE",
                                                    "COMM_RECV_NODE", "COMM_COLL_NODE"};
  const auto i = static_cast<size_t>(type);
  return i < names.size() ? names[i] : fmt::format("NODE_TYPE_{}", i);
}

std::string to_string(CommType type) {
  static constexpr std::array<const char*, 10> names{
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  const auto i = static_cast<size_t>(type);
  return i < names.size() ? names[i] : fmt::format("COMM_TYPE_{}", i);
}

}  // namespace chorus::chakra
