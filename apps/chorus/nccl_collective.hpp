// `chorus collective --machine M [--nodes N] --algorithm nccl`: the collective as NCCL (or RCCL) runs it on the
// machine, by the library's own cost model: nccl-tests' columns, the algorithm, protocol and channels chosen, the
// lower bound on the machine's links, and with --explain every candidate.
#pragma once

#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/sweep/collective_sweep.hpp"
#include "size_sweep.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

struct NcclCollectiveArgs {
  TopologyOptions topology;  // --machine (a preset or a calibrated machine JSON) and --nodes
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string size;
  bool explain = false;
  bool json = false;
  SweepFlags sweep;
};

void run_nccl_collective(const NcclCollectiveArgs& args);

// The library's choice at each size as a size sweep (the bound on the machine's links at every point), and the
// choice per size as "Algorithm/Protocol/channels", for a chart or table beside other algorithms.
struct NcclSweep {
  SizeSweep sweep;
  std::vector<std::string> choices;
};
NcclSweep nccl_size_sweep(const TopologyOptions& options, CollectiveKind kind, const std::vector<Bytes>& sizes);

}  // namespace chorus::cli
