// What-if runs on a thread pool (see what_if.hpp).
#include "chorus/runtime/what_if.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

std::string WhatIf::name() const {
  switch (kind) {
    case WhatIfKind::FreeCommunication:
      return "communication free";
    case WhatIfKind::CollectivesAtBound:
      return "collectives at their lower bound";
    case WhatIfKind::ComputeTwiceFaster:
      return "compute 2x faster";
    case WhatIfKind::DimensionBandwidth:
      return fmt::format("dimension {} bandwidth x2", dimension);
    case WhatIfKind::DimensionLatency:
      return fmt::format("dimension {} latency /2", dimension);
  }
  return "";
}

std::vector<WhatIf> standard_what_ifs(const Topology& topology) {
  std::vector<WhatIf> out = {
      {WhatIfKind::FreeCommunication}, {WhatIfKind::CollectivesAtBound}, {WhatIfKind::ComputeTwiceFaster}};
  for (size_t d = 0; d < topology.dimensions().size(); ++d) {
    out.push_back({WhatIfKind::DimensionBandwidth, d});
    out.push_back({WhatIfKind::DimensionLatency, d});
  }
  return out;
}

Topology with_dimension_changed(const Topology& topology, size_t dim, double bandwidth_factor,
                                int64_t latency_divisor) {
  std::vector<Dimension> dims = topology.dimensions();
  CHORUS_ASSERT(dim < dims.size(), "dimension {} of a {}-dimensional topology", dim, dims.size());
  CHORUS_ASSERT(latency_divisor > 0, "latency divisor {}", latency_divisor);
  Dimension& d = dims[dim];
  d.bandwidth = Bandwidth::bytes_per_s(d.bandwidth.bytes_per_second() * bandwidth_factor);
  d.latency =
      Time::ps(std::llround(static_cast<double>(d.latency.picoseconds()) / static_cast<double>(latency_divisor)));
  // Every dimensional topology is built by compose() (generators.hpp), so this is the network an edited file gives.
  return compose(std::move(dims), topology.name());
}

ChangedInput change_input(const WhatIf& change, const Topology& topology, const RuntimeOptions& base) {
  ChangedInput in{base, std::nullopt};
  RuntimeOptions& o = in.options;
  o.record_timeline = false;
  o.link_stats = false;
  o.link_load_bins = 0;
  o.lower_bounds = false;
  o.critical_path = false;
  o.progress = nullptr;
  switch (change.kind) {
    case WhatIfKind::FreeCommunication:
      o.free_communication = true;
      break;
    case WhatIfKind::CollectivesAtBound:
      o.collectives_at_bound = true;
      break;
    case WhatIfKind::ComputeTwiceFaster:
      o.compute_scale = base.compute_scale * 0.5;
      break;
    case WhatIfKind::DimensionBandwidth:
      in.network = with_dimension_changed(topology, change.dimension, 2.0, 1);
      if (o.nccl) {  // NCCL's model prices collectives from the machine: its tier of that dimension doubles too
        double& scale = change.dimension == 0 ? o.nccl->scales.intra_bandwidth : o.nccl->scales.inter_bandwidth;
        scale *= 2;
      }
      break;
    case WhatIfKind::DimensionLatency:
      in.network = with_dimension_changed(topology, change.dimension, 1.0, 2);
      break;
  }
  return in;
}

std::vector<WhatIfResult> run_what_ifs(const Workload& workload, const Topology& topology, const RuntimeOptions& base,
                                       const std::vector<WhatIf>& changes, unsigned threads) {
  std::vector<WhatIfResult> results(changes.size());
  std::vector<std::exception_ptr> errors(changes.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  // Each worker takes the next change, builds its input and runs it; runs share only the const workload.
  auto worker = [&] {
    for (size_t i = next++; i < changes.size() && !failed; i = next++) {
      try {
        const ChangedInput in = change_input(changes[i], topology, base);
        const RunReport r = run_workload(workload, in.network ? *in.network : topology, in.options);
        results[i] = WhatIfResult{changes[i].name(), r.finish};
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    const size_t n = std::min<size_t>(std::max(threads, 1U), changes.size());
    for (size_t t = 0; t < n; ++t)
      pool.emplace_back(worker);
  }  // jthreads join here
  for (const std::exception_ptr& e : errors) {
    if (e)
      std::rethrow_exception(e);
  }
  return results;
}

}  // namespace chorus
