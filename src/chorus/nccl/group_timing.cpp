// Timing a workload's collective group by NCCL's model (group_timing.hpp).
#include "chorus/nccl/group_timing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "chorus/nccl/cost_model.hpp"

namespace chorus::nccl {

GroupShape group_shape(const machine::Machine& machine, const std::vector<uint32_t>& members) {
  std::map<uint32_t, uint32_t> per_node;
  for (const uint32_t npu : members)
    ++per_node[npu / machine.gpus_per_node];
  GroupShape shape{static_cast<uint32_t>(std::max<size_t>(1, per_node.size())), 1};
  for (const auto& [node, count] : per_node)
    shape.gpus_per_node = std::max(shape.gpus_per_node, count);
  return shape;
}

GroupTiming time_group(const NcclContext& context, CollectiveKind kind, Bytes nccl_size, GroupShape shape) {
  if (shape.nodes * shape.gpus_per_node <= 1)
    return {Time::zero(), "nccl:none"};
  const CommSystem s = comm_system(*context.machine, shape.nodes, context.scales, shape.gpus_per_node);
  const Choice c = choose(s, kind, nccl_size.count());
  const auto ps = static_cast<int64_t>(std::llround(c.time_us * 1e6));
  return {Time::ps(ps), "nccl:" + std::string(c.best().algorithm) + "/" + std::string(c.best().protocol)};
}

}  // namespace chorus::nccl
