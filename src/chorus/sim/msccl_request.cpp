// The msccl: path of a CollectiveRequest (see msccl_request.hpp).
#include "chorus/sim/msccl_request.hpp"

#include <chrono>

#include <fmt/format.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/msccl/schedule.hpp"

namespace chorus {

namespace {

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

CollectiveSummary msccl_summary(const Topology& topology, const CollectiveRequest& q, NetworkModelKind model) {
  const std::string file = q.algorithm.substr(kMscclPrefix.size());
  if (file.empty())
    throw Error("", Argument{"algorithm"}, "msccl: needs a file name, e.g. msccl:allreduce.xml");
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
  CollectiveSummary s;
  s.kind = q.kind;
  s.npus = topology.npu_count();
  s.topology = topology.name();
  s.algorithm = q.algorithm;
  s.model = model;
  s.size = q.size;
  s.chunks = p.nchunksperloop;
  s.transfers = schedule.transfer_count();
  s.evaluation = "schedule";
  s.time = time;
  s.bound = bound.bound;
  s.wall_s = wall_s;
  CollectiveSummary::Msccl m;
  m.name = p.name;
  m.steps = p.steps.size();
  m.chunk_bytes = msccl_chunk_bytes(p, q.size);
  m.semantics_checked = a.checked;
  m.bandwidth = collective_bandwidth(q.kind, q.size, topology.npu_count(), time);
  m.bandwidth_bound = bound.bandwidth_bound;
  m.latency_bound = bound.latency_bound;
  if (q.compare_synth) {
    SynthOptions options = q.synth;
    options.kind = q.kind;
    options.size = q.size;
    const SynthResult r = synthesize(topology, options);
    m.synth_time = simulate_synthesized(topology, r, model);
    m.synth_estimate = r.time;
  }
  s.msccl = std::move(m);
  return s;
}

}  // namespace chorus
