// Orchestration of a single collective run (see collective_run.hpp).
#include "chorus/sim/collective_run.hpp"

#include <memory>

#include "chorus/core/error.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/network/symmetric.hpp"
#include "chorus/network/unaware.hpp"

namespace chorus {

namespace {

std::unique_ptr<MessageCost> schedule_cost(const Topology& topology, bool astra_compatible) {
  if (astra_compatible) {
    if (!topology.is_dimensional()) {
      throw Error("", "--system", "ASTRA-sim compatibility needs a dimensional network (--network FILE.yml)");
    }
    return std::make_unique<DimensionalCost>(topology, true);
  }
  return std::make_unique<RoutedCost>(topology);
}

}  // namespace

CollectiveRunResult run_collective(const Topology& topology, const Collective& collective,
                                   const CollectiveRunOptions& options) {
  CollectiveRunResult result;
  result.plan = plan_collective(topology, collective, options.plan);
  result.transfers = count_transfers(result.plan);
  const bool symmetric_ok = can_evaluate_symmetrically(result.plan, topology);
  if (options.evaluation == Evaluation::Symmetric && !symmetric_ok) {
    throw Error("", "--evaluation", "symmetric evaluation needs ring/direct/halvingDoubling on Ring, FullyConnected or Switch dimensions");
  }
  if (symmetric_ok && options.evaluation != Evaluation::Schedule) {
    const DimensionalCost cost(topology, options.astra_compatible);
    result.time = symmetric_collective_time(result.plan, cost);
    result.evaluation = "symmetric";
    return result;
  }
  const Schedule schedule = build_schedule(result.plan);
  const std::unique_ptr<MessageCost> cost = schedule_cost(topology, options.astra_compatible);
  result.time = run_unaware(schedule, *cost).makespan;
  result.evaluation = "schedule";
  result.schedule_bytes = schedule.memory_bytes();
  return result;
}

}  // namespace chorus
