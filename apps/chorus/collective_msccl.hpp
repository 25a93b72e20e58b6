// `chorus collective --algorithm msccl:FILE.xml`: an MSCCL XML algorithm (msccl-tools' output, or chorus synth's)
// read, checked, simulated under the chosen network model and compared with the lower bound and, with
// --compare-synth, with chorus's own synthesized algorithm on the same topology (sim/msccl_request.hpp).
#pragma once

#include "chorus/sim/msccl_request.hpp"
#include "synth_options.hpp"

namespace chorus::cli {

using chorus::kMscclPrefix;

struct MscclCollectiveRequest {
  std::string algorithm;  // "msccl:FILE"
  CollectiveKind kind = CollectiveKind::AllReduce;
  Bytes size;
  NetworkModelKind model = NetworkModelKind::Unaware;
  bool compare_synth = false;
  SynthFlags synth;
  bool json = false;
};

void run_msccl_collective(const Topology& topology, const MscclCollectiveRequest& request);

}  // namespace chorus::cli
