// Reports of a workload run, for people and for scripts:
// - summary.json: finish_ns, npus, per_npu [{npu, finish_ns, compute_ns, exposed_comm_ns, peer_wait_ns, idle_ns,
//   nodes}], collectives [{type, group, npus, comm_size, ..., feasible}] aggregated by kind/size/group shape,
//   below_bound_count, and run metadata;
// - collectives.csv: one row per collective instance (type, group, size, algorithm, start/end, algbw, busbw,
//   physical lower bound, feasible);
// - timeline.json: Chrome/Perfetto trace format, one process per NPU with a compute, a communication and a
//   memory track; "X" events in microseconds;
// - links.csv: per physical link, bytes, busy time, utilization over the run and peak flows (aware and flow);
// - print_report(): the table printed on the terminal.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/runtime/runtime.hpp"

namespace chorus {

struct ReportContext {
  const Workload& workload;
  const RunReport& report;
  std::string model;
  std::string topology;
  double wall_s = 0;
  const Topology* network = nullptr;  // for links.csv (not owned)
};

// True when the collective's lower bound was computed and its simulated time is below it: a time no schedule can
// reach on the links the group uses (a model that ignores contention can report one).
bool below_bound(const CollectiveReport& c);
size_t count_below_bound(const RunReport& report);

nlohmann::json summary_json(const ReportContext& context);
void write_collectives_csv(const std::string& path, const ReportContext& context);
void write_timeline_json(const std::string& path, const ReportContext& context);
void print_report(std::ostream& out, const ReportContext& context);

// Writes summary.json, collectives.csv, (when recorded) timeline.json and (when collected, with `network` set)
// links.csv into `directory`, creating it.
void write_reports(const std::string& directory, const ReportContext& context);

}  // namespace chorus
