// Orchestration of a single collective run (see collective_run.hpp).
#include "chorus/sim/collective_run.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

bool use_symmetric(const CollectiveRunOptions& options, bool possible) {
  if (options.evaluation == Evaluation::Symmetric && !possible) {
    throw Error("", Argument{"evaluation"},
                "symmetric evaluation needs ring/direct/halvingDoubling on Ring, UniRing, FullyConnected or Switch "
                "dimensions");
  }
  return possible && options.evaluation != Evaluation::Schedule;
}

NetworkRunOptions network_options(const CollectiveRunOptions& options) {
  NetworkRunOptions n;
  n.astra = options.plan.overheads.astra;
  n.collect_link_stats = options.collect_link_stats;
  n.packet = options.packet;
  return n;
}

// About 40 bytes per transfer: 2^26 transfers is a 2.5 GiB schedule, the most chorus builds.
constexpr uint64_t kMaxScheduleTransfers = uint64_t{1} << 26;

void run_schedule(const Topology& topology, const CollectiveRunOptions& options, CollectiveRunResult& result) {
  if (result.transfers > kMaxScheduleTransfers) {
    throw Error("", Argument{"evaluation"},
                fmt::format("the full schedule would hold {} transfers (at most {}); use fewer chunks, or drop "
                            "--evaluation schedule / --link-stats so that the symmetric evaluation applies",
                            result.transfers, kMaxScheduleTransfers));
  }
  const Schedule schedule = build_schedule(result.plan);
  result.evaluation = "schedule";
  result.schedule_bytes = schedule.memory_bytes();
  NetworkRunResult r = network_models().get(options.model).run(schedule, topology, network_options(options));
  result.time = r.makespan;
  result.events = r.events;
  result.links = std::move(r.links);
}

}  // namespace

CollectiveRunResult run_collective(const Topology& topology, const Collective& collective,
                                   const CollectiveRunOptions& options) {
  CollectiveRunResult result;
  result.plan = plan_collective(topology, collective, options.plan);
  result.transfers = count_transfers(result.plan);
  const NetworkModel& model = network_models().get(options.model);
  if (use_symmetric(options, model.can_run_symmetric(result.plan, topology))) {
    NetworkRunResult r = model.run_symmetric(result.plan, topology, network_options(options));
    result.time = r.makespan;
    result.events = r.events;
    result.evaluation = "symmetric";
    result.links = std::move(r.links);
    return result;
  }
  run_schedule(topology, options, result);
  return result;
}

}  // namespace chorus
