// Timing HLO collectives per replica group on a physical network (collective_network.hpp).
#include "chorus/hlo/collective_network.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/collective/lower_bound.hpp"

namespace chorus::hlo {

std::optional<chakra::CommType> hlo_comm_type(const std::string& opcode) {
  const std::string op = opcode.ends_with("-start") ? opcode.substr(0, opcode.size() - 6) : opcode;
  if (op == "all-reduce")
    return chakra::CommType::AllReduce;
  if (op == "all-gather")
    return chakra::CommType::AllGather;
  if (op == "reduce-scatter")
    return chakra::CommType::ReduceScatter;
  if (op == "all-to-all")
    return chakra::CommType::AllToAll;
  return std::nullopt;
}

CollectiveNetwork::CollectiveNetwork(Topology topology, std::string name, NetworkModelKind model,
                                     std::optional<AstraSystemConfig> system, std::optional<nccl::NcclContext> nccl,
                                     bool synthesize)
    : topology_(std::move(topology)),
      name_(std::move(name)),
      model_(model),
      system_(std::move(system)),
      nccl_(nccl.has_value()),
      synthesize_(synthesize),
      timer_(topology_, {.model = model_,
                         .system = system_ ? &*system_ : nullptr,
                         .link_stats = false,
                         .packet = {},
                         .nccl = nccl,
                         .whole_all_to_all_direct = false,
                         .synthesize = synthesize}),
      bounds_(topology_) {}

std::string CollectiveNetwork::describe() const {
  return fmt::format("{} ({} NPUs, {} model, {})", name_, topology_.npu_count(), to_string(model_),
                     nccl_         ? "NCCL's algorithms by its cost model"
                     : synthesize_ ? "schedules synthesized per replica group"
                     : system_     ? "algorithms of the collective system JSON"
                                   : "native algorithms");
}

std::optional<CollectiveTiming> CollectiveNetwork::time(const std::string& opcode, Bytes bytes,
                                                        const std::vector<std::vector<uint32_t>>& groups) {
  const auto type = hlo_comm_type(opcode);
  if (!type)
    return std::nullopt;
  CollectiveTiming out;
  for (const std::vector<uint32_t>& members : groups) {
    if (members.size() < 2 || bytes.count() <= 0)
      continue;  // a group of one device, or nothing to move, costs nothing
    const TimedCollective& t = timer_.time(*type, bytes, members);
    const Time bound = bounds_.bound(*type, bytes, members);
    out.below_bound |= !physically_feasible(t.duration, bound);
    if (t.duration.seconds() >= out.time_s) {
      out.time_s = t.duration.seconds();
      out.algorithm = t.algorithm;
    }
    out.bound_s = std::max(out.bound_s, bound.seconds());
  }
  return out;
}

}  // namespace chorus::hlo
