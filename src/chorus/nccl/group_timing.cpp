// Timing a workload's collective group by NCCL's model (group_timing.hpp).
#include "chorus/nccl/group_timing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "chorus/nccl/cost_model.hpp"

namespace chorus::nccl {

GroupTiming time_group(const NcclContext& context, CollectiveKind kind, Bytes nccl_size,
                       const std::vector<uint32_t>& members) {
  if (members.size() <= 1)
    return {Time::zero(), "nccl:none"};
  const uint32_t gpus = context.machine->gpus_per_node;
  std::map<uint32_t, uint32_t> per_node;
  for (const uint32_t npu : members)
    ++per_node[npu / gpus];
  uint32_t ppn = 0;
  for (const auto& [node, count] : per_node)
    ppn = std::max(ppn, count);
  const CommSystem s = comm_system(*context.machine, static_cast<uint32_t>(per_node.size()), context.scales, ppn);
  const Choice c = choose(s, kind, nccl_size.count());
  const auto ps = static_cast<int64_t>(std::llround(c.time_us * 1e6));
  return {Time::ps(ps), "nccl:" + std::string(c.best().algorithm) + "/" + std::string(c.best().protocol)};
}

}  // namespace chorus::nccl
