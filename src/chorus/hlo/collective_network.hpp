// The physical network an HLO module's collectives run on: each replica group becomes a communication group and
// its collective is timed by the workload runtime's CollectiveTimer and bounded by its GroupBounds (physical links).
//
//   hlo::CollectiveNetwork net(load_topology(request), "tpuv3_4x4x4.yml", NetworkModelKind::Unaware, std::nullopt);
//   auto t = net.time("all-reduce", bytes, {{0, 1, 2, 3}, {4, 5, 6, 7}});  // t->time_s, t->bound_s
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/astra/system_config.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/runtime/group_bound.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus::hlo {

struct CollectiveTiming {
  double time_s = 0;         // the slowest group's collective
  double bound_s = 0;        // the largest group's physical lower bound
  bool below_bound = false;  // some group finishes faster than its own lower bound
  std::string algorithm;
};

class CollectiveNetwork {
 public:
  // `nccl`: every group's collective timed by NCCL's model of that machine (nccl/group_timing.hpp).
  CollectiveNetwork(Topology topology, std::string name, NetworkModelKind model,
                    std::optional<AstraSystemConfig> system, std::optional<nccl::NcclContext> nccl = std::nullopt,
                    bool synthesize = false);
  CollectiveNetwork(const CollectiveNetwork&) = delete;
  CollectiveNetwork& operator=(const CollectiveNetwork&) = delete;

  const Topology& topology() const { return topology_; }
  // e.g. "tpuv3_4x4x4.yml (64 NPUs, unaware model, native algorithms)"
  std::string describe() const;
  // `bytes` is one device's operand data (Chakra's comm_size). nullopt for opcodes the collective layer does not
  // time (collective-permute, send, recv, collective-broadcast). Groups run at once, each on its own members.
  std::optional<CollectiveTiming> time(const std::string& opcode, Bytes bytes,
                                       const std::vector<std::vector<uint32_t>>& groups);

 private:
  Topology topology_;
  std::string name_;
  NetworkModelKind model_;
  std::optional<AstraSystemConfig> system_;  // before timer_, which points at it
  bool nccl_ = false;
  bool synthesize_ = false;  // schedules synthesized per replica group (collective_timer.hpp)
  CollectiveTimer timer_;
  GroupBounds bounds_;
};

// The Chakra collective kind of an HLO collective opcode (async -start forms included), if it is one the
// collective layer times.
std::optional<chakra::CommType> hlo_comm_type(const std::string& opcode);

}  // namespace chorus::hlo
