// Command-line options shared by every subcommand that needs a topology:
//   --network FILE.yml | --topology SPEC|FILE.txt, with --bandwidth and --latency (one value, or a
//   comma-separated list with one value per dimension) | --machine NAME [--nodes N] (a machine preset, its links
//   from the machine model; --latency intra[,inter] may override the default latencies).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "chorus/core/limits.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus::cli {

struct TopologyOptions {
  std::string network;
  std::string topology;
  std::string machine;  // a machine preset (chorus machines), with `nodes` of them
  uint32_t nodes = 1;
  std::string bandwidth;
  std::string latency;
};

void add_topology_options(CLI::App& command, TopologyOptions& options);
// Parses the unit strings and loads the topology; throws chorus::Error naming the flag or file. A command whose
// computation cannot handle the general NPU limit passes its own (and the name of its constant).
Topology make_topology(const TopologyOptions& options, uint64_t max_npus = limits::kMaxNpus,
                       const std::string& max_npus_name = "kMaxNpus");

}  // namespace chorus::cli
