// The one summary of a simulated collective: time, lower bound, nccl-tests bandwidths, physical feasibility. It is
// the object `chorus collective --json` prints, the text `chorus collective` prints and the record
// chorus.collective() returns in Python; run_collective_request (collective_request.hpp) fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/collective/collective.hpp"
#include "chorus/core/units.hpp"
#include "chorus/network/network_model.hpp"

namespace chorus {

struct CollectiveSummary {
  CollectiveKind kind = CollectiveKind::AllReduce;
  uint64_t npus = 0;
  std::string topology;
  std::string algorithm;  // the plan's label, e.g. "ring" or "ring,direct"; "synth" for a synthesized schedule
  NetworkModelKind model = NetworkModelKind::Unaware;
  Bytes size;  // NCCL's convention (All-Gather: the gathered output)
  uint64_t chunks = 0;
  uint64_t transfers = 0;
  std::string evaluation;  // symmetric | schedule
  Time time;               // simulated
  Time bound;              // the physical lower bound the time is compared with (zero when bound_note is set)
  std::optional<std::string> bound_note;  // why no bound was computed (too large a topology for it)
  double wall_s = 0;                      // simulation (built-in algorithms) or synthesis (synth) wall time

  // Built-in algorithms only (absent for synth).
  struct Native {
    bool astra_compatible = false;
    CollectiveBandwidth bandwidth;
    Time bandwidth_bound;
    Time latency_bound;
    uint64_t events = 0;  // 0 when the evaluation counts none
  };
  // The synthesizer only (absent for built-in algorithms).
  struct Synthesized {
    uint64_t chunks_per_npu = 0;
    Time estimate;                  // the synthesizer's own time for its schedule
    CollectiveBandwidth bandwidth;  // nccl-tests' algbw and busbw of the simulated time
  };
  // An MSCCL XML algorithm (algorithm "msccl:FILE") only.
  struct Msccl {
    std::string name;  // the XML's algo name
    uint64_t steps = 0;
    Bytes chunk_bytes;
    bool semantics_checked = false;  // false for coll="custom"
    CollectiveBandwidth bandwidth;
    Time bandwidth_bound;
    Time latency_bound;
    std::optional<Time> synth_time;      // with compare_synth: chorus's own algorithm under the same model
    std::optional<Time> synth_estimate;  // and the synthesizer's estimate of it
  };
  std::optional<Native> native;
  std::optional<Synthesized> synthesized;
  std::optional<Msccl> msccl;

  // time / bound; 0 without a bound.
  double ratio() const;
  // time >= bound, exactly (lower_bound.hpp's physically_feasible); true when no bound was computed.
  bool physically_feasible() const;
};

// The keys of `chorus collective --json`: collective, npus, topology, algorithm, model, size_bytes, chunks,
// transfers, evaluation, time_ns, bound_ns, ratio, physically_feasible; built-in algorithms add astra_compatible,
// algbw_GBps, busbw_GBps, bandwidth_bound_ns, latency_bound_ns, wall_s, events, events_per_s; synth adds
// chunks_per_npu, synth_estimate_ns, synthesis_s; msccl adds msccl_name, chunk_bytes, steps, semantics_checked,
// algbw_GBps, busbw_GBps, bandwidth_bound_ns, latency_bound_ns, wall_s (and synth_time_ns, synth_estimate_ns,
// msccl_over_synth with compare_synth). Without a bound: bound_ns and ratio are null, bound_note says why.
nlohmann::json to_json(const CollectiveSummary& summary);

}  // namespace chorus
