// A workload's collective timed as NCCL runs it: the group's members placed on the machine's nodes (NPU i on node
// i / GPUs per node), a communicator of the nodes the group spans with its most crowded node's GPU count, and the
// library's choice for that communicator (cost_model.hpp). `chorus sim --machine M --collectives nccl` uses it.
//
//   const GroupShape g = group_shape(machine, {0, 1, 2, 3});        // 1 node, 4 GPUs on it
//   const GroupTiming t = time_group(context, CollectiveKind::AllReduce, Bytes::mib(64), g);
//   t.duration, t.label == "nccl:NVLS/Simple"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/core/units.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/nccl/comm_system.hpp"

namespace chorus::nccl {

struct NcclContext {
  const machine::Machine* machine = nullptr;
  Scales scales;
};

struct GroupTiming {
  Time duration;
  std::string label;  // "nccl:ALGORITHM/PROTOCOL"
};

// What the time depends on: the nodes a group spans and the GPUs of its most crowded node.
struct GroupShape {
  uint32_t nodes = 1;
  uint32_t gpus_per_node = 1;
  auto operator<=>(const GroupShape&) const = default;
};
GroupShape group_shape(const machine::Machine& machine, const std::vector<uint32_t>& members);

// `nccl_size` in NCCL's convention (All-Gather: the gathered output). A group of one rank takes no time.
GroupTiming time_group(const NcclContext& context, CollectiveKind kind, Bytes nccl_size, GroupShape shape);

}  // namespace chorus::nccl
