// Command-line options shared by every subcommand that needs a topology:
//   --network FILE.yml | --topology SPEC|FILE.txt, with --bandwidth and --latency (one value, or a
//   comma-separated list with one value per dimension).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "chorus/topology/topology.hpp"

namespace chorus::cli {

struct TopologyOptions {
  std::string network;
  std::string topology;
  std::string bandwidth;
  std::string latency;
};

void add_topology_options(CLI::App& command, TopologyOptions& options);
// Parses the unit strings and loads the topology; throws chorus::Error naming the flag or file.
Topology make_topology(const TopologyOptions& options);

}  // namespace chorus::cli
