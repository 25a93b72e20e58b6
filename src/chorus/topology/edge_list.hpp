// Reader of the edge-list topology format (the TACOS inputs' format, extended with switches).
//
//   # comment lines start with '#'
//   16                       <- first line: NPU count
//   0 1 100 0.25             <- one directed link per line: src dst bandwidth_GiBps latency_us
//
// Bandwidth is in GiB/s (2^30 B/s) and latency in microseconds, as in the TACOS inputs.
#pragma once

#include <string>

#include "chorus/topology/topology.hpp"

namespace chorus {

// Throws chorus::Error with the file name and line number on any malformed line.
Topology load_edge_list(const std::string& path);

}  // namespace chorus
