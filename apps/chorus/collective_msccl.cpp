// MSCCL path of `chorus collective` (see collective_msccl.hpp).
#include "collective_msccl.hpp"

#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/msccl/schedule.hpp"
#include "chorus/sim/collective_request.hpp"
#include "feasibility.hpp"

namespace chorus::cli {

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

double ratio(Time a, Time b) {
  return b > Time::zero() ? static_cast<double>(a.picoseconds()) / static_cast<double>(b.picoseconds()) : 0.0;
}

// The XML's collective, GPU count and the command line must agree.
void check_request(const MscclProgram& p, const Topology& topology, const MscclCollectiveRequest& q) {
  if (p.kind && *p.kind != q.kind) {
    throw Error(q.file, "algo: coll",
                fmt::format("is {} ({}), but --collective is {}", p.coll, to_string(*p.kind), to_string(q.kind)));
  }
  if (p.ngpus != topology.npu_count()) {
    throw Error(q.file, "algo: ngpus",
                fmt::format("is {}, but the topology {} has {} NPUs; MSCCL runs an algorithm on exactly ngpus ranks",
                            p.ngpus, topology.name(), topology.npu_count()));
  }
}

}  // namespace

void run_msccl_collective(const Topology& topology, const MscclCollectiveRequest& q) {
  const auto started = std::chrono::steady_clock::now();
  const MscclAlgorithm a = load_msccl_algorithm(q.file);
  const MscclProgram& p = a.program;
  check_request(p, topology, q);
  const Schedule schedule = msccl_schedule(a, q.size);
  const Time time = network_models().get(q.model).run(schedule, topology, {}).makespan;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const Collective collective{q.kind, q.size, topology.npu_count()};
  BoundOptions bound_options;
  bound_options.information_bound = false;  // as for the built-in algorithms (collective_command.cpp)
  bound_options.root = NodeId{p.root};
  const LowerBound bound = lower_bound(topology, collective, bound_options);
  std::optional<std::pair<Time, Time>> synth;  // simulated time, synthesizer estimate
  if (q.compare_synth) {
    const SynthResult r = synthesize(topology, make_synth_options(q.synth, q.kind, q.size));
    synth.emplace(simulate_synthesized(topology, r, q.model), r.time);
  }
  const double algbw = time > Time::zero() ? static_cast<double>(q.size.count()) / time.seconds() / 1e9 : 0;
  const double busbw = algbw * bus_factor(q.kind, topology.npu_count());
  const Bytes chunk = msccl_chunk_bytes(p, q.size);
  if (q.json) {
    nlohmann::json j;
    j["collective"] = to_string(q.kind);
    j["npus"] = topology.npu_count();
    j["topology"] = topology.name();
    j["algorithm"] = std::string(kMscclPrefix) + q.file;
    j["msccl_name"] = p.name;
    j["model"] = to_string(q.model);
    j["size_bytes"] = q.size.count();
    j["chunks"] = p.nchunksperloop;
    j["chunk_bytes"] = chunk.count();
    j["steps"] = p.steps.size();
    j["transfers"] = schedule.transfer_count();
    j["semantics_checked"] = a.checked;
    j["evaluation"] = "schedule";
    j["time_ns"] = ns(time);
    j["algbw_GBps"] = algbw;
    j["busbw_GBps"] = busbw;
    j["bound_ns"] = ns(bound.bound);
    j["bandwidth_bound_ns"] = ns(bound.bandwidth_bound);
    j["latency_bound_ns"] = ns(bound.latency_bound);
    j["ratio"] = ratio(time, bound.bound);
    j["physically_feasible"] = physically_feasible(time, bound.bound);
    if (synth) {
      j["synth_time_ns"] = ns(synth->first);
      j["msccl_over_synth"] = ratio(time, synth->first);
    }
    j["wall_s"] = wall_s;
    std::cout << j.dump() << "\n";
    return;
  }
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(q.kind), to_string(q.size), topology.name(),
             topology.npu_count());
  fmt::print("algorithm    msccl:{} ('{}', {} steps, {} transfers, {} chunks of {}; {})\n", q.file, p.name,
             p.steps.size(), schedule.transfer_count(), p.nchunksperloop, to_string(chunk),
             a.checked ? fmt::format("checked: computes {}", p.coll) : fmt::format("coll '{}' not checked", p.coll));
  fmt::print("time         {} ({} ns, {} model)\n", to_string(time), ns(time), to_string(q.model));
  fmt::print("algbw        {:.3f} GB/s\n", algbw);
  fmt::print("busbw        {:.3f} GB/s\n", busbw);
  fmt::print("lower bound  {} (bandwidth {}, latency {})\n", to_string(bound.bound), to_string(bound.bandwidth_bound),
             to_string(bound.latency_bound));
  fmt::print("time/bound   {:.3f}\n", ratio(time, bound.bound));
  if (synth) {
    fmt::print("synth        {} ({} model; synthesizer estimate {})   msccl/synth {:.3f}\n", to_string(synth->first),
               to_string(q.model), to_string(synth->second), ratio(time, synth->first));
  }
  print_infeasible_warning(time, bound.bound, q.model);
}

}  // namespace chorus::cli
