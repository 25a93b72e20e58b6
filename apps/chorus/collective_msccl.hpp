// `chorus collective --algorithm msccl:FILE.xml`: an MSCCL XML algorithm (msccl-tools' output, or chorus synth's)
// read, checked, simulated under the chosen network model and compared with the lower bound and, with
// --compare-synth, with chorus's own synthesized algorithm on the same topology.
#pragma once

#include <string>

#include "chorus/collective/collective.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/topology/topology.hpp"
#include "synth_options.hpp"

namespace chorus::cli {

inline constexpr std::string_view kMscclPrefix = "msccl:";

struct MscclCollectiveRequest {
  std::string file;
  CollectiveKind kind = CollectiveKind::AllReduce;
  Bytes size;
  NetworkModelKind model = NetworkModelKind::Unaware;
  bool compare_synth = false;
  SynthFlags synth;
  bool json = false;
};

void run_msccl_collective(const Topology& topology, const MscclCollectiveRequest& request);

}  // namespace chorus::cli
