// The summary of one simulated collective and its JSON record (see collective_summary.hpp).
#include "chorus/sim/collective_summary.hpp"

#include "chorus/collective/lower_bound.hpp"
#include "chorus/network/model_registry.hpp"

namespace chorus {

double CollectiveSummary::ratio() const {
  if (bound <= Time::zero())
    return 0.0;
  return time.nanoseconds() * 1e3 / static_cast<double>(bound.picoseconds());
}

bool CollectiveSummary::physically_feasible() const {
  return bound_note || chorus::physically_feasible(time, bound);
}

nlohmann::json to_json(const CollectiveSummary& s) {
  nlohmann::json j;
  j["collective"] = to_string(s.kind);
  j["npus"] = s.npus;
  j["topology"] = s.topology;
  j["algorithm"] = s.algorithm;
  j["model"] = to_string(s.model);
  j["size_bytes"] = s.size.count();
  j["chunks"] = s.chunks;
  j["transfers"] = s.transfers;
  j["evaluation"] = s.evaluation;
  j["time_ns"] = s.time.nanoseconds();
  if (s.bound_note) {
    j["bound_ns"] = nullptr;
    j["bound_note"] = "not computed (" + *s.bound_note + ")";
    j["ratio"] = nullptr;
  } else {
    j["bound_ns"] = s.bound.nanoseconds();
    j["ratio"] = s.ratio();
  }
  j["physically_feasible"] = s.physically_feasible();
  if (s.native) {
    j["astra_compatible"] = s.native->astra_compatible;
    j["algbw_GBps"] = s.native->bandwidth.algbw_GBps;
    j["busbw_GBps"] = s.native->bandwidth.busbw_GBps;
    if (!s.bound_note) {
      j["bandwidth_bound_ns"] = s.native->bandwidth_bound.nanoseconds();
      j["latency_bound_ns"] = s.native->latency_bound.nanoseconds();
    }
    j["wall_s"] = s.wall_s;
    if (s.native->events > 0) {
      j["events"] = s.native->events;
      j["events_per_s"] = s.wall_s > 0 ? static_cast<double>(s.native->events) / s.wall_s : 0.0;
    }
  }
  if (s.msccl) {
    j["msccl_name"] = s.msccl->name;
    j["chunk_bytes"] = s.msccl->chunk_bytes.count();
    j["steps"] = s.msccl->steps;
    j["semantics_checked"] = s.msccl->semantics_checked;
    j["algbw_GBps"] = s.msccl->bandwidth.algbw_GBps;
    j["busbw_GBps"] = s.msccl->bandwidth.busbw_GBps;
    j["bandwidth_bound_ns"] = s.msccl->bandwidth_bound.nanoseconds();
    j["latency_bound_ns"] = s.msccl->latency_bound.nanoseconds();
    if (s.msccl->synth_time) {
      j["synth_time_ns"] = s.msccl->synth_time->nanoseconds();
      j["synth_estimate_ns"] = s.msccl->synth_estimate->nanoseconds();
      j["msccl_over_synth"] = s.msccl->synth_time > Time::zero()
                                  ? static_cast<double>(s.time.picoseconds()) / s.msccl->synth_time->picoseconds()
                                  : 0.0;
    }
    j["wall_s"] = s.wall_s;
  }
  if (s.synthesized) {
    j["chunks_per_npu"] = s.synthesized->chunks_per_npu;
    j["algbw_GBps"] = s.synthesized->bandwidth.algbw_GBps;
    j["busbw_GBps"] = s.synthesized->bandwidth.busbw_GBps;
    j["synth_estimate_ns"] = s.synthesized->estimate.nanoseconds();
    j["synthesis_s"] = s.wall_s;
  }
  return j;
}

}  // namespace chorus
