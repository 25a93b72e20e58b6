// Runs a CollectiveRequest and builds its record (see collective_request.hpp).
#include "chorus/sim/collective_request.hpp"

#include <chrono>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/collective/algorithm_names.hpp"
#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/sim/default_chunks.hpp"
#include "chorus/sim/msccl_request.hpp"
#include "chorus/synth/synth_routes.hpp"
#include "chorus/synth/synth_unaware.hpp"
#include "chorus/synth/verify.hpp"

namespace chorus {

namespace {

CollectivePlanConfig native_plan(const CollectiveRequest& q) {
  CollectivePlanConfig config;
  config.algorithms.clear();
  std::stringstream list(q.algorithm.empty() ? std::string("ring") : q.algorithm);
  for (std::string name; std::getline(list, name, ',');) {
    const ParsedAlgorithm parsed = parse_algorithm_name(name, "", Argument{"algorithm"});
    config.algorithms.push_back(parsed.choice);
    config.flatten = config.flatten || parsed.flatten;
  }
  if (config.algorithms.empty())
    throw Error("", Argument{"algorithm"}, "empty algorithm list");
  if (config.flatten)
    config.algorithms.resize(1);
  if (q.composition.empty() || q.composition == "localBWAware") {
    config.composition = Composition::LocalBandwidthAware;
  } else if (q.composition == "baseline") {
    config.composition = Composition::Baseline;
  } else {
    throw Error("", Argument{"composition"},
                fmt::format("unknown composition '{}'; expected baseline or localBWAware", q.composition));
  }
  const uint32_t splits = q.splits.value_or(1);
  if (splits == 0 || splits > 1'000'000)
    throw Error("", Argument{"splits"}, fmt::format("is {}; must be 1 to 1000000", splits));
  if (q.active_chunks == 0 || q.active_chunks > 1'000'000)
    throw Error("", Argument{"active_chunks"}, fmt::format("is {}; must be 1 to 1000000", q.active_chunks));
  config.splits = splits;
  config.active_chunks = q.active_chunks;
  if (!q.endpoint_delay.empty())
    config.overheads.endpoint_delay = parse_time(q.endpoint_delay, Argument{"endpoint_delay"});
  if (!q.reduction_bandwidth.empty()) {
    config.overheads.reduction_bytes_per_s =
        parse_bandwidth(q.reduction_bandwidth, Argument{"reduction_bandwidth"}).bytes_per_second();
  }
  return config;
}

Evaluation parse_evaluation(const CollectiveRequest& q) {
  if (q.evaluation == "auto")
    return Evaluation::Auto;
  if (q.evaluation == "symmetric")
    return Evaluation::Symmetric;
  if (q.evaluation == "schedule")
    return Evaluation::Schedule;
  throw Error("", Argument{"evaluation"},
              fmt::format("unknown evaluation '{}'; expected auto, symmetric or schedule", q.evaluation));
}

// Algorithm "synth": synthesize for this topology, then simulate the schedule under the model.
CollectiveSummary synth_summary(const Topology& topology, const CollectiveRequest& q, NetworkModelKind model) {
  SynthOptions options = q.synth;
  options.kind = q.kind;
  options.size = q.size;
  const SynthResult r = synthesize(topology, options);
  CollectiveSummary s;
  s.kind = q.kind;
  s.npus = r.members.size();
  s.topology = topology.name();
  s.algorithm = "synth";
  s.model = model;
  s.size = q.size;
  s.chunks = r.chunk_count;
  s.transfers = r.schedule.transfer_count();
  s.evaluation = "schedule";
  s.time = simulate_synthesized(topology, r, model);
  s.bound = synth_lower_bound(topology, options).bound;
  s.wall_s = r.synthesis_s;
  s.synthesized =
      CollectiveSummary::Synthesized{r.chunks_per_npu, r.time, collective_bandwidth(q.kind, q.size, s.npus, s.time)};
  return s;
}

}  // namespace

// Synthesized transfers are single hops that may start or end at a switch: under the unaware model each pays its
// own link; aware and flow follow the synthesizer's link assignment.
Time simulate_synthesized(const Topology& topology, const SynthResult& r, NetworkModelKind model) {
  if (model == NetworkModelKind::Unaware)
    return synth_unaware_time(topology, r);
  const SynthRoutes routes(topology, r);
  NetworkRunOptions options;
  options.routes = &routes;
  return network_models().get(model).run(r.schedule, topology, options).makespan;
}

CollectiveRunOptions collective_run_options(const CollectiveRequest& q, NetworkModelKind model) {
  CollectiveRunOptions options;
  options.evaluation = parse_evaluation(q);
  options.model = model;
  options.collect_link_stats = q.collect_link_stats;
  options.packet = packet_options_argument(q.queue, q.ecn, model == NetworkModelKind::Packet);
  if (q.system.empty()) {
    options.plan = native_plan(q);
    return options;
  }
  if (!q.algorithm.empty() || !q.composition.empty() || q.splits || q.active_chunks != 1 || !q.endpoint_delay.empty() ||
      !q.reduction_bandwidth.empty()) {
    throw Error("", Argument{"system"},
                "the system file sets the algorithm, chunking and overheads; drop the other options");
  }
  options.plan = load_astra_system(q.system).plan_config(q.kind);  // ASTRA-sim compatible (plan.overheads.astra)
  return options;
}

CollectiveOutcome run_collective_request(const Topology& topology, const CollectiveRequest& q) {
  const NetworkModelKind model = network_model_argument(q.model);
  if ((q.algorithm == "synth" || q.algorithm.starts_with(kMscclPrefix)) && (!q.queue.empty() || q.ecn)) {
    throw Error("", Argument{q.queue.empty() ? "ecn" : "queue"},
                "applies to the built-in algorithms; synth and msccl: run on the packet model's default queues");
  }
  if (q.algorithm == "synth") {
    if (!q.system.empty() || q.collect_link_stats)
      throw Error("", Argument{"algorithm"}, "synth takes no system file or link statistics");
    return {synth_summary(topology, q, model), std::nullopt};
  }
  if (q.algorithm.starts_with(kMscclPrefix)) {
    if (!q.system.empty() || q.collect_link_stats)
      throw Error("", Argument{"algorithm"}, "msccl: takes no system file or link statistics");
    return {msccl_summary(topology, q, model), std::nullopt};
  }
  CollectiveRunOptions options = collective_run_options(q, model);
  Collective collective{q.kind, q.size, topology.npu_count()};
  // ASTRA-sim's All-Gather size is each NPU's contribution; chorus reports the gathered (NCCL) size.
  if (!q.system.empty() && q.kind == CollectiveKind::AllGather)
    collective.size = q.size * topology.npu_count();
  if (q.system.empty() && !q.splits)
    options.plan.splits = default_splits(topology, collective, options.plan);
  const auto started = std::chrono::steady_clock::now();
  CollectiveRunResult result = run_collective(topology, collective, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (q.collect_link_stats && !result.links)
    throw Error("", Argument{"link_stats"}, "per-link statistics need the aware or flow network model");

  BoundOptions bound_options;
  bound_options.information_bound = false;  // 2(N-1) more max-flows, and never the binding bound here
  const std::optional<std::string> no_bound = bound_not_computable(topology, collective, bound_options);
  const LowerBound bound = no_bound ? LowerBound{} : lower_bound(topology, collective, bound_options);
  CollectiveSummary s;
  s.kind = q.kind;
  s.npus = topology.npu_count();
  s.topology = topology.name();
  s.algorithm = algorithm_label(result.plan);
  s.model = options.model;
  s.size = collective.size;
  s.chunks = result.plan.chunks;
  s.transfers = result.transfers;
  s.evaluation = result.evaluation;
  s.time = result.time;
  s.bound = bound.bound;
  s.bound_note = no_bound;
  s.wall_s = wall_s;
  s.native = CollectiveSummary::Native{options.plan.overheads.astra.enabled(),
                                       collective_bandwidth(q.kind, collective.size, topology.npu_count(), result.time),
                                       bound.bandwidth_bound, bound.latency_bound, result.events};
  return {std::move(s), std::move(result.links)};
}

}  // namespace chorus
