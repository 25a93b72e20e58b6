// Runs one collective on a topology under a network model (model_registry.hpp) and reports its time.
//
// The recipe: plan the chunks and phases (plan_collective), then either evaluate the plan symmetrically
// (exact and fast on symmetric dimensions) or build the whole Schedule and run it through the network model.
// The model decides whether a symmetric evaluation applies (NetworkModel::can_run_symmetric).
// Evaluation::Auto picks the symmetric path when it applies.
//
//   CollectiveRunResult r = run_collective(topology, {CollectiveKind::AllReduce, Bytes::mib(64), n}, options);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "chorus/collective/hierarchical.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

enum class Evaluation : uint8_t { Auto, Symmetric, Schedule };

struct CollectiveRunOptions {
  CollectivePlanConfig plan;
  Evaluation evaluation = Evaluation::Auto;
  NetworkModelKind model = NetworkModelKind::Unaware;
  bool collect_link_stats = false;
  PacketOptions packet;  // the packet model's queues
};

struct CollectiveRunResult {
  Time time;
  CollectivePlan plan;
  uint64_t transfers = 0;
  std::string evaluation;          // "symmetric" or "schedule"
  size_t schedule_bytes = 0;       // memory of the materialised schedule (0 on the symmetric path)
  uint64_t events = 0;             // events processed by an event-driven model
  std::optional<LinkStats> links;  // per-link statistics (aware and flow models, when asked for)
};

CollectiveRunResult run_collective(const Topology& topology, const Collective& collective,
                                   const CollectiveRunOptions& options);

}  // namespace chorus
