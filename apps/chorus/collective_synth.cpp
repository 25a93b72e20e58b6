// Synthesize-and-simulate path of `chorus collective` (see collective_synth.hpp).
#include "collective_synth.hpp"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/sim/collective_request.hpp"
#include "chorus/synth/verify.hpp"
#include "feasibility.hpp"

namespace chorus::cli {

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

}  // namespace

void run_synth_collective(const Topology& topology, CollectiveKind kind, Bytes size, NetworkModelKind model,
                          const SynthFlags& flags, bool json) {
  const SynthOptions options = make_synth_options(flags, kind, size);
  const SynthResult r = synthesize(topology, options);
  const Time simulated = simulate_synthesized(topology, r, model);
  const SynthBound bound = synth_lower_bound(topology, options);
  const double ratio =
      bound.bound > Time::zero() ? static_cast<double>(simulated.picoseconds()) / bound.bound.picoseconds() : 0.0;
  if (json) {
    nlohmann::json j;
    j["collective"] = to_string(kind);
    j["npus"] = r.members.size();
    j["topology"] = topology.name();
    j["algorithm"] = "synth";
    j["model"] = to_string(model);
    j["size_bytes"] = size.count();
    j["chunks"] = r.chunk_count;
    j["chunks_per_npu"] = r.chunks_per_npu;
    j["transfers"] = r.schedule.transfer_count();
    j["evaluation"] = "schedule";
    j["time_ns"] = ns(simulated);
    j["synth_estimate_ns"] = ns(r.time);
    j["bound_ns"] = ns(bound.bound);
    j["ratio"] = ratio;
    j["physically_feasible"] = physically_feasible(simulated, bound.bound);
    j["synthesis_s"] = r.synthesis_s;
    std::cout << j.dump() << "\n";
    return;
  }
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(kind), to_string(size), topology.name(),
             r.members.size());
  fmt::print("algorithm    synth ({} chunks per NPU, {} transfers, synthesized in {:.3f} s)\n", r.chunks_per_npu,
             r.schedule.transfer_count(), r.synthesis_s);
  fmt::print("time         {} ({} model)   synthesizer estimate {}\n", to_string(simulated), to_string(model),
             to_string(r.time));
  fmt::print("lower bound  {}\n", to_string(bound.bound));
  fmt::print("time/bound   {:.4f}\n", ratio);
  print_infeasible_warning(simulated, bound.bound, model);
}

}  // namespace chorus::cli
