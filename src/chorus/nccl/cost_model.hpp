// NCCL's cost model and its choice: for one collective of `bytes` on a communicator (comm_system.hpp), every
// algorithm x protocol with its latency, bandwidth and time as the library's tuner computes them (ncclTopoTuneModel,
// ncclTopoGetAlgoTime in NCCL 2.30.7), the disabled ones with the reason, and the fastest, which is what the library
// runs and what chorus predicts. All-to-All is point-to-point (ncclSend/ncclRecv to every peer), priced by the
// busiest of the GPU's NVLink and NIC shares.
//
//   const Choice c = choose(comm_system(machine::machine("dgx-h100"), 1), CollectiveKind::AllReduce, 1 << 30);
//   c.best().algorithm == "NVLS"; c.time_us == ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/nccl/comm_system.hpp"

namespace chorus::nccl {

struct Candidate {
  std::string_view algorithm;  // "Ring", "Tree", "NVLS", ... or "SendRecv" (All-to-All)
  std::string_view protocol;   // "LL", "LL128", "Simple"
  uint32_t channels = 0;
  double latency_us = 0;      // the tuner's latency for this call (after the ring plateau factor)
  double bandwidth_GBps = 0;  // the tuner's algorithm bandwidth (after the tree correction); 0 when disabled
  double fill_us = 0;         // the Simple protocol's pipeline fill, which NCCL's own model leaves out
  double time_us = -1;        // latency + bytes / bandwidth + fill; -1 when disabled
  std::string disabled;       // why the library does not use it (empty when enabled)

  bool enabled() const { return disabled.empty(); }
};

struct Choice {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int64_t bytes = 0;
  std::vector<Candidate> candidates;  // NCCL's order: algorithms, then protocols
  size_t chosen = 0;                  // index of the fastest enabled candidate
  double time_us = 0;

  const Candidate& best() const { return candidates[chosen]; }
  double algbw_GBps() const;  // bytes / time, 1e9 B/s, as nccl-tests prints it
  double busbw_GBps(uint32_t ranks) const;
};

// `bytes`: NCCL's and nccl-tests' size (All-Gather: the gathered output; Reduce-Scatter: the input; All-to-All:
// one rank's send buffer). `only_algorithm` (as NCCL_ALGO names it, e.g. "Ring"), when not empty, disables the
// others, as a run with NCCL_ALGO set does.
Choice choose(const CommSystem& system, CollectiveKind kind, int64_t bytes, std::string_view only_algorithm = {});

}  // namespace chorus::nccl
