// All-to-All demand matrices (mixture-of-experts traffic is not uniform): how many bytes each NPU sends to each
// other NPU, read from a CSV file of N rows of N numbers (N = the topology's NPUs, global ids; row = source,
// column = destination; sizes as `chorus` reads them everywhere: bytes, or with a unit such as 1MiB). Blank lines
// and lines starting with '#' are skipped; the diagonal is ignored (a copy in place).
//
// Errors (chorus::Error, exit status 2 in the CLI) name the file, the row and the column: a wrong number of rows or
// columns, a negative or non-numeric entry; check_demand_group() adds traffic from or to an NPU outside the group
// (failed, or not in --npus).
//
//   DemandMatrix m = read_demand_csv("moe.csv", topology.npu_count());
//   int64_t b = m.at(3, 5);  // bytes NPU 3 sends to NPU 5
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct DemandMatrix {
  std::string source;          // the file, for messages
  uint32_t npus = 0;           // rows = columns
  std::vector<int64_t> bytes;  // row-major, global NPU ids
  int64_t at(uint32_t from, uint32_t to) const { return bytes[size_t{from} * npus + to]; }
};

DemandMatrix parse_demand_csv(std::string_view text, const std::string& source, uint32_t npus);
DemandMatrix read_demand_csv(const std::string& path, uint32_t npus);

// The demand between the graph's members by local rank (member_count^2, diagonal 0). Throws when an NPU outside
// the group (failed, or not a member) sends or receives anything.
std::vector<int64_t> member_demand(const DemandMatrix& m, const SynthGraph& graph);

}  // namespace chorus
