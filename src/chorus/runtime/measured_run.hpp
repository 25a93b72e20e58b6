// A measured run to put beside a simulated one (docs/workload.md, "Measured beside simulated"): what
// `chorus import pytorch --kineto` records of the profiled iteration in PREFIX.measured.json and `chorus sim
// --measured` reads. Per rank: the measured span, the critical path walked on the measured timeline (its split and
// its longest operations) and the measured duration of each trace node, keyed by the node's id in the rank's trace.
//
//   MeasuredRun m = read_measured_run("traces/ddp.measured.json");   // m.ranks[r].nodes: (node id, duration)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/core/units.hpp"

namespace chorus {

// Where the measured critical path's time went. compute and communication: kernels (or, in a CPU-only run, CPU
// operators); launch: host time the GPU waited for (CPU operators, launch calls, launch latency, the return from a
// synchronisation); idle: gaps with nothing running on the path.
struct MeasuredSplit {
  Time compute;
  Time communication;
  Time launch;
  Time idle;
  Time sum() const { return compute + communication + launch + idle; }
};

// An operation on the measured critical path: its time there, summed over its segments.
struct MeasuredPathOp {
  std::string name;
  std::string kind;  // "compute", "communication" or "launch"
  uint64_t segments = 0;
  Time time;
};

struct MeasuredRank {
  std::string source;                            // the measured trace (a Kineto file)
  Time span;                                     // its last event's end minus its first event's start
  MeasuredSplit path;                            // sums to span
  std::vector<MeasuredPathOp> path_ops;          // longest first, at most kMaxPathOps
  std::vector<std::pair<uint64_t, Time>> nodes;  // (trace node id, measured duration), nodes with a measured time
};

struct MeasuredRun {
  std::string path;  // where it was read from ("" when built in memory)
  std::vector<MeasuredRank> ranks;
};

inline constexpr size_t kMaxPathOps = 20;

nlohmann::json measured_run_json(const MeasuredRun& run);

// Throws chorus::Error(path, field, ...) when the file is missing, not JSON, not a measured run
// ("format": "chorus-measured") or a field is missing or of the wrong type or sign.
MeasuredRun read_measured_run(const std::string& path);

}  // namespace chorus
