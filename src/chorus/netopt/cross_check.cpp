// Model vs simulation (see cross_check.hpp).
#include "chorus/netopt/cross_check.hpp"

#include <cmath>

#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus::netopt {

namespace {

Bandwidth link_bandwidth(BlockKind block, uint32_t dimension_size, double per_npu_gbps) {
  switch (block) {
    case BlockKind::Ring:
      return Bandwidth::gb_per_s(per_npu_gbps / 2);
    case BlockKind::FullyConnected:
      return Bandwidth::gb_per_s(per_npu_gbps / (dimension_size - 1));
    default:
      return Bandwidth::gb_per_s(per_npu_gbps);
  }
}

double simulate(const NetworkShape& network, const CollectiveTerms& c, const std::vector<double>& bandwidth_gbps,
                const ModelOptions& options, uint32_t splits) {
  std::vector<Dimension> dims;
  CollectiveRunOptions run;
  run.plan.algorithms.clear();
  run.plan.repeat_single_algorithm = false;
  run.plan.splits = splits;
  uint32_t npus = 1;
  for (size_t d = 0; d < c.groups.size(); ++d) {
    if (c.groups[d] <= 1)
      continue;
    const double latency_ns = options.latency_ns.empty() ? 0.0 : options.latency_ns[d];
    dims.push_back({network.blocks[d], c.groups[d],
                    link_bandwidth(network.blocks[d], network.sizes[d], bandwidth_gbps[d]),
                    Time::from_seconds(latency_ns * 1e-9)});
    AlgorithmChoice algorithm;
    algorithm.kind = network.blocks[d] == BlockKind::FullyConnected ? AlgorithmKind::Direct : AlgorithmKind::Ring;
    run.plan.algorithms.push_back(algorithm);
    npus *= c.groups[d];
  }
  const Topology topology = compose(dims);
  // LIBRA's All-Gather size is each NPU's contribution; chorus's is the gathered buffer.
  const double size = c.kind == CollectiveKind::AllGather ? c.bytes * npus : c.bytes;
  const Collective collective{c.kind, Bytes(static_cast<int64_t>(std::llround(size))), npus};
  return static_cast<double>(run_collective(topology, collective, run).time.picoseconds()) / 1e9;
}

}  // namespace

CrossCheck cross_check(const NetworkShape& network, const TrainingStep& step, const std::vector<double>& bandwidth_gbps,
                       const ModelOptions& options, uint32_t splits) {
  CrossCheck out;
  for (const CollectiveTerms& c : step.collectives) {
    out.model_collective_ms.push_back(c.time_ms(bandwidth_gbps));
    out.simulated_collective_ms.push_back(simulate(network, c, bandwidth_gbps, options, splits));
  }
  out.model_ms = step.time_with(out.model_collective_ms);
  out.simulated_ms = step.time_with(out.simulated_collective_ms);
  return out;
}

}  // namespace chorus::netopt
