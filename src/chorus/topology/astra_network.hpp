// Reader of ASTRA-sim network YAML files (the analytical backends' input):
//
//   topology: [ Ring, FullyConnected, Switch ]   # building block per dimension, dimension 0 first
//   npus_count: [ 8, 8, 8 ]                      # NPUs per dimension, each an integer >= 2
//   bandwidth: [ 200.0, 100.0, 50.0 ]            # "GB/s", which ASTRA-sim means as GiB/s (2^30 B/s)
//   latency: [ 100.0, 500.0, 1000.0 ]            # ns, >= 0, may be fractional (936.25)
//
// The four lists must have the same length; the result is compose() of those dimensions (generators.hpp),
// named after the file's stem.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "chorus/topology/topology.hpp"

namespace chorus {

// Throws chorus::Error(path, key, message) naming the offending key (e.g. "bandwidth[1]") on any problem:
// missing or unknown keys, wrong types, mismatched lengths, out-of-range values, YAML syntax errors.
Topology load_astra_network(const std::string& path);

// ASTRA-sim's building-block names: "Ring", "FullyConnected", "Switch"; nullopt for anything else.
std::optional<BlockKind> parse_astra_block(std::string_view name);

}  // namespace chorus
