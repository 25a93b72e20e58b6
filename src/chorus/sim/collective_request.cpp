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

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

std::string flag(const CollectiveRequest& q, const char* name) {
  return q.flag_prefix + name;
}

CollectivePlanConfig native_plan(const CollectiveRequest& q) {
  CollectivePlanConfig config;
  config.algorithms.clear();
  std::stringstream list(q.algorithm.empty() ? std::string("ring") : q.algorithm);
  for (std::string name; std::getline(list, name, ',');) {
    const ParsedAlgorithm parsed = parse_algorithm_name(name, "", flag(q, "algorithm"));
    config.algorithms.push_back(parsed.choice);
    config.flatten = config.flatten || parsed.flatten;
  }
  if (config.algorithms.empty())
    throw Error("", flag(q, "algorithm"), "empty algorithm list");
  if (config.flatten)
    config.algorithms.resize(1);
  if (q.composition.empty() || q.composition == "localBWAware") {
    config.composition = Composition::LocalBandwidthAware;
  } else if (q.composition == "baseline") {
    config.composition = Composition::Baseline;
  } else {
    throw Error("", flag(q, "composition"),
                fmt::format("unknown composition '{}'; expected baseline or localBWAware", q.composition));
  }
  const uint32_t splits = q.splits.value_or(1);
  if (splits == 0 || splits > 1'000'000)
    throw Error("", flag(q, "splits"), fmt::format("is {}; must be 1 to 1000000", splits));
  if (q.active_chunks == 0 || q.active_chunks > 1'000'000)
    throw Error("", flag(q, "active-chunks"), fmt::format("is {}; must be 1 to 1000000", q.active_chunks));
  config.splits = splits;
  config.active_chunks = q.active_chunks;
  if (!q.endpoint_delay.empty())
    config.overheads.endpoint_delay = parse_time(q.endpoint_delay, flag(q, "endpoint-delay"));
  if (!q.reduction_bandwidth.empty()) {
    config.overheads.reduction_bytes_per_s =
        parse_bandwidth(q.reduction_bandwidth, flag(q, "reduction-bandwidth")).bytes_per_second();
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
  throw Error("", flag(q, "evaluation"),
              fmt::format("unknown evaluation '{}'; expected auto, symmetric or schedule", q.evaluation));
}

// `--algorithm synth`: synthesize for this topology, then simulate the schedule under the model.
std::pair<nlohmann::json, Time> synth_record(const Topology& topology, const CollectiveRequest& q,
                                             NetworkModelKind model) {
  SynthOptions options = q.synth;
  options.kind = q.kind;
  options.size = q.size;
  const SynthResult r = synthesize(topology, options);
  const Time simulated = simulate_synthesized(topology, r, model);
  const SynthBound bound = synth_lower_bound(topology, options);
  nlohmann::json j;
  j["collective"] = to_string(q.kind);
  j["npus"] = r.members.size();
  j["topology"] = topology.name();
  j["algorithm"] = "synth";
  j["model"] = to_string(model);
  j["size_bytes"] = q.size.count();
  j["chunks"] = r.chunk_count;
  j["chunks_per_npu"] = r.chunks_per_npu;
  j["transfers"] = r.schedule.transfer_count();
  j["evaluation"] = "schedule";
  j["time_ns"] = ns(simulated);
  j["synth_estimate_ns"] = ns(r.time);
  j["bound_ns"] = ns(bound.bound);
  j["ratio"] =
      bound.bound > Time::zero() ? static_cast<double>(simulated.picoseconds()) / bound.bound.picoseconds() : 0.0;
  j["physically_feasible"] = physically_feasible(simulated, bound.bound);
  j["synthesis_s"] = r.synthesis_s;
  return {j, simulated};
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

CollectiveOutcome run_collective_request(const Topology& topology, const CollectiveRequest& q) {
  const auto model = parse_network_model(q.model);
  if (!model) {
    throw Error("", flag(q, "model"),
                fmt::format("unknown network model '{}'; expected unaware, aware or flow", q.model));
  }
  if (q.algorithm == "synth") {
    if (!q.system.empty() || q.collect_link_stats)
      throw Error("", flag(q, "algorithm"), "synth takes no system file or link statistics");
    auto [record, time] = synth_record(topology, q, *model);
    return {std::move(record), time, std::nullopt};
  }
  if (q.algorithm.starts_with(kMscclPrefix)) {
    if (!q.system.empty() || q.collect_link_stats)
      throw Error("", flag(q, "algorithm"), "msccl: takes no system file or link statistics");
    auto [record, time] = msccl_record(topology, q, *model);
    return {std::move(record), time, std::nullopt};
  }
  CollectiveRunOptions options;
  options.evaluation = parse_evaluation(q);
  options.model = *model;
  options.collect_link_stats = q.collect_link_stats;
  Collective collective{q.kind, q.size, topology.npu_count()};
  if (!q.system.empty()) {
    if (!q.algorithm.empty() || !q.composition.empty() || q.splits || q.active_chunks != 1 ||
        !q.endpoint_delay.empty() || !q.reduction_bandwidth.empty()) {
      throw Error("", flag(q, "system"), "the system file sets the algorithm, chunking and overheads; drop the others");
    }
    const AstraSystemConfig system = load_astra_system(q.system);
    options.plan = system.plan_config(q.kind);
    options.astra_compatible = true;
    // ASTRA-sim's All-Gather size is each NPU's contribution; chorus reports the gathered (NCCL) size.
    if (q.kind == CollectiveKind::AllGather)
      collective.size = q.size * topology.npu_count();
  } else {
    options.plan = native_plan(q);
    if (!q.splits)
      options.plan.splits = default_splits(topology, collective, options.plan);
  }
  const auto started = std::chrono::steady_clock::now();
  CollectiveRunResult result = run_collective(topology, collective, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  BoundOptions bound_options;
  bound_options.information_bound = false;  // 2(N-1) more max-flows, and never the binding bound here
  const std::optional<std::string> no_bound = bound_not_computable(topology, collective, bound_options);
  const LowerBound bound = no_bound ? LowerBound{} : lower_bound(topology, collective, bound_options);
  const double time_ns = ns(result.time);
  const double algbw =
      result.time > Time::zero() ? static_cast<double>(collective.size.count()) / result.time.seconds() / 1e9 : 0;
  nlohmann::json j;
  j["collective"] = to_string(q.kind);
  j["npus"] = topology.npu_count();
  j["topology"] = topology.name();
  j["algorithm"] = algorithm_label(result.plan);
  j["model"] = to_string(options.model);
  j["astra_compatible"] = options.astra_compatible;
  j["size_bytes"] = collective.size.count();
  j["chunks"] = result.plan.chunks;
  j["transfers"] = result.transfers;
  j["evaluation"] = result.evaluation;
  j["time_ns"] = time_ns;
  j["algbw_GBps"] = algbw;
  j["busbw_GBps"] = algbw * bus_factor(q.kind, topology.npu_count());
  if (no_bound) {
    j["bound_ns"] = nullptr;
    j["bound_note"] = "not computed (" + *no_bound + ")";
    j["ratio"] = nullptr;
    j["physically_feasible"] = true;  // no bound to fall below
  } else {
    j["bound_ns"] = ns(bound.bound);
    j["bandwidth_bound_ns"] = ns(bound.bandwidth_bound);
    j["latency_bound_ns"] = ns(bound.latency_bound);
    j["ratio"] = bound.bound > Time::zero() ? time_ns * 1e3 / static_cast<double>(bound.bound.picoseconds()) : 0.0;
    j["physically_feasible"] = physically_feasible(result.time, bound.bound);
  }
  j["wall_s"] = wall_s;
  if (result.events > 0) {
    j["events"] = result.events;
    j["events_per_s"] = wall_s > 0 ? static_cast<double>(result.events) / wall_s : 0.0;
  }
  return {j, result.time, std::move(result.links)};
}

}  // namespace chorus
