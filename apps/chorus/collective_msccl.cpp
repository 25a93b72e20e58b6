// MSCCL path of `chorus collective` (see collective_msccl.hpp): the record of sim/msccl_request.hpp, as JSON or
// as the table of the other algorithms.
#include "collective_msccl.hpp"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feasibility.hpp"

namespace chorus::cli {

namespace {

Time from_ns(double ns) {
  return Time::ps(static_cast<int64_t>(ns * 1e3 + 0.5));
}

}  // namespace

void run_msccl_collective(const Topology& topology, const MscclCollectiveRequest& m) {
  CollectiveRequest q;
  q.kind = m.kind;
  q.size = m.size;
  q.algorithm = m.algorithm;
  q.compare_synth = m.compare_synth;
  if (m.compare_synth)
    q.synth = make_synth_options(m.synth, m.kind, m.size);
  const auto [j, time] = msccl_record(topology, q, m.model);
  if (m.json) {
    std::cout << j.dump() << "\n";
    return;
  }
  const Time bound = from_ns(j["bound_ns"].get<double>());
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(m.kind), to_string(m.size), topology.name(),
             topology.npu_count());
  fmt::print("algorithm    {} ('{}', {} steps, {} transfers, {} chunks of {}; {})\n", m.algorithm,
             j["msccl_name"].get<std::string>(), j["steps"].get<uint64_t>(), j["transfers"].get<uint64_t>(),
             j["chunks"].get<uint64_t>(), to_string(Bytes(j["chunk_bytes"].get<int64_t>())),
             j["semantics_checked"].get<bool>() ? "checked: computes " + to_string(m.kind) : "not checked (custom)");
  fmt::print("time         {} ({} ns, {} model)\n", to_string(time), j["time_ns"].get<double>(), to_string(m.model));
  fmt::print("algbw        {:.3f} GB/s\n", j["algbw_GBps"].get<double>());
  fmt::print("busbw        {:.3f} GB/s\n", j["busbw_GBps"].get<double>());
  fmt::print("lower bound  {} (bandwidth {}, latency {})\n", to_string(bound),
             to_string(from_ns(j["bandwidth_bound_ns"].get<double>())),
             to_string(from_ns(j["latency_bound_ns"].get<double>())));
  fmt::print("time/bound   {:.3f}\n", j["ratio"].get<double>());
  if (m.compare_synth) {
    fmt::print("synth        {} ({} model; synthesizer estimate {})   msccl/synth {:.3f}\n",
               to_string(from_ns(j["synth_time_ns"].get<double>())), to_string(m.model),
               to_string(from_ns(j["synth_estimate_ns"].get<double>())), j["msccl_over_synth"].get<double>());
  }
  print_infeasible_warning(time, bound, m.model);
}

}  // namespace chorus::cli
