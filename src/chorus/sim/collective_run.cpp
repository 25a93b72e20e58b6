// Orchestration of a single collective run (see collective_run.hpp).
#include "chorus/sim/collective_run.hpp"

#include <memory>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/network/aware_model.hpp"
#include "chorus/network/flow_model.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/network/resource_routes.hpp"
#include "chorus/network/symmetric.hpp"
#include "chorus/network/symmetric_contention.hpp"
#include "chorus/network/unaware.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {

std::string to_string(NetworkModelKind kind) {
  switch (kind) {
    case NetworkModelKind::Unaware:
      return "unaware";
    case NetworkModelKind::Aware:
      return "aware";
    case NetworkModelKind::Flow:
      return "flow";
  }
  return "?";
}

std::optional<NetworkModelKind> parse_network_model(std::string_view text) {
  if (text == "unaware")
    return NetworkModelKind::Unaware;
  if (text == "aware")
    return NetworkModelKind::Aware;
  if (text == "flow")
    return NetworkModelKind::Flow;
  return std::nullopt;
}

namespace {

std::unique_ptr<MessageCost> unaware_cost(const Topology& topology, bool astra_compatible) {
  if (astra_compatible) {
    if (!topology.is_dimensional()) {
      throw Error("", "--system", "ASTRA-sim compatibility needs a dimensional network (--network FILE.yml)");
    }
  }
  return make_message_cost(topology, astra_compatible);
}

bool use_symmetric(const CollectiveRunOptions& options, bool possible) {
  if (options.evaluation == Evaluation::Symmetric && !possible) {
    throw Error("", "--evaluation",
                "symmetric evaluation needs ring/direct/halvingDoubling on Ring, UniRing, FullyConnected or Switch "
                "dimensions");
  }
  return possible && options.evaluation != Evaluation::Schedule;
}

// About 40 bytes per transfer: 2^26 transfers is a 2.5 GiB schedule, the most chorus builds.
constexpr uint64_t kMaxScheduleTransfers = uint64_t{1} << 26;

void run_schedule(const Topology& topology, const CollectiveRunOptions& options, CollectiveRunResult& result) {
  if (result.transfers > kMaxScheduleTransfers) {
    throw Error("", "--evaluation",
                fmt::format("the full schedule would hold {} transfers (at most {}); use fewer chunks, or drop "
                            "--evaluation schedule / --link-stats so that the symmetric evaluation applies",
                            result.transfers, kMaxScheduleTransfers));
  }
  const Schedule schedule = build_schedule(result.plan);
  result.evaluation = "schedule";
  result.schedule_bytes = schedule.memory_bytes();
  switch (options.model) {
    case NetworkModelKind::Unaware: {
      const std::unique_ptr<MessageCost> cost = unaware_cost(topology, options.astra_compatible);
      result.time = run_unaware(schedule, *cost).makespan;
      return;
    }
    case NetworkModelKind::Aware: {
      const RouteTable table(topology);
      AwareRunResult r = run_aware(schedule, PhysicalRoutes(schedule, table), options.astra_compatible);
      result.time = r.makespan;
      result.events = r.events;
      if (options.collect_link_stats)
        result.links = std::move(r.links);
      return;
    }
    case NetworkModelKind::Flow: {
      const RouteTable table(topology);
      FlowRunResult r = run_flow(schedule, PhysicalRoutes(schedule, table));
      result.time = r.makespan;
      result.events = r.events;
      if (options.collect_link_stats)
        result.links = std::move(r.links);
      return;
    }
  }
}

}  // namespace

CollectiveRunResult run_collective(const Topology& topology, const Collective& collective,
                                   const CollectiveRunOptions& options) {
  CollectiveRunResult result;
  result.plan = plan_collective(topology, collective, options.plan);
  result.transfers = count_transfers(result.plan);
  if (options.model == NetworkModelKind::Unaware &&
      use_symmetric(options, can_evaluate_symmetrically(result.plan, topology))) {
    const DimensionalCost cost(topology, options.astra_compatible);
    result.time = symmetric_collective_time(result.plan, cost);
    result.evaluation = "symmetric";
    return result;
  }
  if (options.model != NetworkModelKind::Unaware &&
      use_symmetric(options, can_simulate_contention_symmetrically(result.plan, topology))) {
    const SymmetricContentionResult r =
        simulate_symmetric_contention(result.plan, topology, options.model, options.astra_compatible);
    result.time = r.makespan;
    result.events = r.events;
    result.evaluation = "symmetric";
    if (options.collect_link_stats)
      result.links = r.links;
    return result;
  }
  run_schedule(topology, options, result);
  return result;
}

}  // namespace chorus
