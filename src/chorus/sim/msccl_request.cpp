// The msccl: path of a CollectiveRequest (see msccl_request.hpp).
#include "chorus/sim/msccl_request.hpp"

#include <chrono>

#include <fmt/format.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/msccl/schedule.hpp"

namespace chorus {

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

double ratio(Time a, Time b) {
  return b > Time::zero() ? static_cast<double>(a.picoseconds()) / static_cast<double>(b.picoseconds()) : 0.0;
}

// The XML's collective, GPU count and the request must agree.
void check_request(const MscclProgram& p, const Topology& topology, const CollectiveRequest& q) {
  if (p.kind && *p.kind != q.kind) {
    throw Error(
        p.file, "algo: coll",
        fmt::format("is {} ({}), but the collective asked for is {}", p.coll, to_string(*p.kind), to_string(q.kind)));
  }
  if (p.ngpus != topology.npu_count()) {
    throw Error(p.file, "algo: ngpus",
                fmt::format("is {}, but the topology {} has {} NPUs; MSCCL runs an algorithm on exactly ngpus ranks",
                            p.ngpus, topology.name(), topology.npu_count()));
  }
}

}  // namespace

std::pair<nlohmann::json, Time> msccl_record(const Topology& topology, const CollectiveRequest& q,
                                             NetworkModelKind model) {
  const std::string file = q.algorithm.substr(kMscclPrefix.size());
  if (file.empty())
    throw Error("", q.flag_prefix + "algorithm", "msccl: needs a file name, e.g. msccl:allreduce.xml");
  const auto started = std::chrono::steady_clock::now();
  const MscclAlgorithm a = load_msccl_algorithm(file);
  const MscclProgram& p = a.program;
  check_request(p, topology, q);
  const Schedule schedule = msccl_schedule(a, q.size);
  const Time time = network_models().get(model).run(schedule, topology, {}).makespan;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  BoundOptions bound_options;
  bound_options.information_bound = false;  // as for the built-in algorithms
  bound_options.root = NodeId{p.root};
  const LowerBound bound = lower_bound(topology, Collective{q.kind, q.size, topology.npu_count()}, bound_options);
  const double algbw = time > Time::zero() ? static_cast<double>(q.size.count()) / time.seconds() / 1e9 : 0;
  nlohmann::json j;
  j["collective"] = to_string(q.kind);
  j["npus"] = topology.npu_count();
  j["topology"] = topology.name();
  j["algorithm"] = q.algorithm;
  j["msccl_name"] = p.name;
  j["model"] = to_string(model);
  j["size_bytes"] = q.size.count();
  j["chunks"] = p.nchunksperloop;
  j["chunk_bytes"] = msccl_chunk_bytes(p, q.size).count();
  j["steps"] = p.steps.size();
  j["transfers"] = schedule.transfer_count();
  j["semantics_checked"] = a.checked;
  j["evaluation"] = "schedule";
  j["time_ns"] = ns(time);
  j["algbw_GBps"] = algbw;
  j["busbw_GBps"] = algbw * bus_factor(q.kind, topology.npu_count());
  j["bound_ns"] = ns(bound.bound);
  j["bandwidth_bound_ns"] = ns(bound.bandwidth_bound);
  j["latency_bound_ns"] = ns(bound.latency_bound);
  j["ratio"] = ratio(time, bound.bound);
  j["physically_feasible"] = physically_feasible(time, bound.bound);
  if (q.compare_synth) {
    SynthOptions options = q.synth;
    options.kind = q.kind;
    options.size = q.size;
    const SynthResult r = synthesize(topology, options);
    const Time synth = simulate_synthesized(topology, r, model);
    j["synth_time_ns"] = ns(synth);
    j["synth_estimate_ns"] = ns(r.time);
    j["msccl_over_synth"] = ratio(time, synth);
  }
  j["wall_s"] = wall_s;
  return {j, time};
}

}  // namespace chorus
