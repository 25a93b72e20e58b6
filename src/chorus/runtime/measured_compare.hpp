// A measured run (measured_run.hpp) beside the simulated one: per rank the measured span against the simulated
// finish, per operation (trace nodes grouped by name pattern, as the blame rows) the measured and the simulated
// time summed with their instance counts, and both critical paths' splits. summary.json's `measured` object and a
// few lines of the terminal report.
//
//   const MeasuredComparison c = compare_measured(workload, report, read_measured_run("ddp.measured.json"));
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/runtime/measured_run.hpp"
#include "chorus/runtime/runtime.hpp"

namespace chorus {

struct OpComparison {
  std::string name;  // the operation's name pattern (digit runs as '#', workload/name_patterns.hpp)
  std::string kind;  // "compute" or "communication"
  uint64_t instances = 0;
  Time measured;
  Time simulated;
};

struct RankComparison {
  Time measured;   // the measured span
  Time simulated;  // the simulated finish
};

struct MeasuredComparison {
  MeasuredRun run;
  std::vector<RankComparison> ranks;
  std::vector<OpComparison> ops;  // largest |simulated - measured| first
  Time measured_iteration;        // the longest measured span
  Time simulated_iteration;       // the run's finish
};

// Throws chorus::Error(run.path, field, ...) when the measured run holds another number of ranks than the workload
// has NPUs, or names a node that the rank's trace does not hold (a measured file of another import), and for a
// symmetric workload (its replicas are not simulated). `chorus sim` calls it before the run.
void check_measured(const Workload& workload, const MeasuredRun& run);

// Needs the run's timeline (RuntimeOptions::record_timeline); checks `run` as check_measured() does.
MeasuredComparison compare_measured(const Workload& workload, const RunReport& report, MeasuredRun run);

// (simulated - measured) / measured in percent; nullopt when nothing was measured.
std::optional<double> error_percent(Time measured, Time simulated);

// summary.json's `measured`: file, iteration {measured_ns, simulated_ns, error_percent}, per_rank [{rank, kineto,
// measured_ns, simulated_ns, error_percent, critical_path_totals {compute_ns, communication_ns, launch_ns, idle_ns},
// critical_path_ops [{name, kind, segments, ns}]}], ops [{name, kind, instances, measured_ns, simulated_ns,
// error_ns}] (error: simulated - measured).
nlohmann::json measured_json(const MeasuredComparison& c);

// The iteration measured and simulated, the error, rank 0's measured path (its split, its 3 longest operations),
// and the `rows` operations furthest off.
void print_measured(std::ostream& out, const MeasuredComparison& c, size_t rows = 5);

}  // namespace chorus
