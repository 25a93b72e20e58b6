// A collective simulated at many sizes, as nccl-tests measures it (`chorus collective --size 8B:32GiB:x2`), with
// the lower bound at every size. The bound's max-flows run once per topology: its worst cuts do not depend on the
// size, so the other sizes rescale it exactly (lower_bound_at_size).
//
//   SizeSweep sweep = run_size_sweep(topology, request);  // one SweepPoint per size, in request order
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/sim/collective_run.hpp"

namespace chorus {

struct SweepRequest {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::vector<Bytes> sizes;         // as given: the NCCL size, or with per_npu_all_gather each NPU's share
  CollectiveRunOptions options;     // the same plan at every size
  bool choose_splits = false;       // pick plan.splits per size (default_splits), as one run does without --splits
  bool per_npu_all_gather = false;  // ASTRA-sim's All-Gather size is each NPU's contribution
  bool bounds = true;               // compute the lower bound (BoundOptions defaults, no information bound)
};

struct SweepPoint {
  Collective collective;  // the NCCL-convention size actually simulated
  CollectiveRunResult result;
  std::optional<LowerBound> bound;
  double wall_s = 0;  // simulation time of this size

  double time_us() const { return result.time.microseconds(); }
  double algbw_GBps() const;            // size / time, 1e9 B/s
  double busbw_GBps() const;            // algbw * bus_factor
  std::optional<double> ratio() const;  // time / bound; nullopt without a (non-zero) bound
};

struct SizeSweep {
  std::vector<SweepPoint> points;
  std::string algorithm;    // the label reports print; empty: the points' plan (algorithm_label)
  double bound_wall_s = 0;  // time spent in the one lower_bound() call
};

SizeSweep run_size_sweep(const Topology& topology, const SweepRequest& request);

// nccl-tests' row prefix for a size: the element count of the NCCL call (float elements; All-Gather, Reduce-Scatter
// and All-to-All count one rank's share), the reduction ("sum", or "none") and the root (-1 when unrooted).
int64_t nccl_count(CollectiveKind kind, Bytes size, uint32_t npus);
std::string nccl_redop(CollectiveKind kind);
int nccl_root(CollectiveKind kind);

}  // namespace chorus
