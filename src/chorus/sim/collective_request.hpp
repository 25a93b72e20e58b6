// One collective as a user asks for it (the options of `chorus collective`, as text) and its summary: what
// `chorus collective` prints. One function runs it, for the CLI and the Python module alike.
//
//   CollectiveRequest q{CollectiveKind::AllGather, Bytes::gib(1)};
//   q.algorithm = "ring";
//   nlohmann::json record = to_json(run_collective_request(topology, q).summary);   // ["time_ns"], ["bound_ns"]
#pragma once

#include <optional>
#include <string>

#include "chorus/network/link_stats.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/sim/collective_summary.hpp"
#include "chorus/synth/synthesize.hpp"

namespace chorus {

struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::AllReduce;
  Bytes size;                      // NCCL size; with `system`, ASTRA-sim's comm_size (All-Gather: per NPU)
  std::string model = "unaware";   // unaware | aware | flow | packet
  std::string queue;               // packet model: output-port buffer, e.g. "1MiB"; empty: the default
  bool ecn = false;                // packet model: RED/ECN queues and DCQCN-style senders
  std::string system;              // ASTRA-sim system JSON: compatibility mode (sets algorithm and chunking)
  std::string algorithm;           // "ring", a comma list per dimension, "synth", or "msccl:FILE.xml"; empty: ring
  std::string composition;         // localBWAware (default) | baseline
  std::optional<uint32_t> splits;  // none: one chunk, except Broadcast/Reduce, pipelined (default_chunks.hpp)
  uint32_t active_chunks = 1;
  std::string endpoint_delay;       // e.g. "10ns"; empty: none
  std::string reduction_bandwidth;  // e.g. "1600GB/s"; empty: free
  std::string evaluation = "auto";  // auto | symmetric | schedule
  bool collect_link_stats = false;
  SynthOptions synth;          // algorithm "synth", or msccl with compare_synth (kind and size from above)
  bool compare_synth = false;  // msccl: also synthesize and simulate chorus's own algorithm
};

struct CollectiveOutcome {
  CollectiveSummary summary;
  std::optional<LinkStats> links;  // when collected (aware and flow)
};

// Runs a synthesized Schedule under a network model on the synthesizer's own links (synth_routes.hpp); under the
// unaware model each transfer pays its own link (synth_unaware.hpp).
Time simulate_synthesized(const Topology& topology, const SynthResult& r, NetworkModelKind model);

// The run options of a request for a built-in algorithm: the plan (the system file's under ASTRA-sim
// compatibility), the model, the evaluation. plan.splits is the request's, or 1: run_collective_request (and a size
// sweep) choose default_splits per size when the request names none and has no system file.
CollectiveRunOptions collective_run_options(const CollectiveRequest& request, NetworkModelKind model);

// Throws chorus::Error naming the request's field (an Argument: "active_chunks") on a malformed value, and on
// collect_link_stats under a model that keeps none.
CollectiveOutcome run_collective_request(const Topology& topology, const CollectiveRequest& request);

}  // namespace chorus
