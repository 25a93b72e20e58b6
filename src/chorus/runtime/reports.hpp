// Reports of a workload run, for people and for scripts:
// - summary.json: finish_ns, npus, per_npu [{npu, finish_ns, compute_ns, exposed_comm_ns, peer_wait_ns, cpu_ns,
//   idle_ns, nodes}], compute_sources {replayed, roofline, cpu_ops}, collectives [{type, group, npus, comm_size, ...,
//   feasible}] aggregated by kind/size/group shape, below_bound_count, and run metadata; with a critical path
//   (critical_path.hpp) critical_path_totals {compute_ns, collective_ns, p2p_ns, other_ns}, critical_path
//   [{kind, name, npu, start_ns, end_ns, (collectives) group, group_npus, dimension}] and blame [{name, kind,
//   instances, on_critical_path, critical_ns, exposed_ns}]; with what-if runs what_if [{change, finish_ns, speedup}];
//   with a measured run (`chorus sim --measured`) measured (measured_compare.hpp);
// - npus.csv: summary.json's per_npu rows as CSV (one per NPU; cpu_ns last);
// - collectives.csv: one row per collective instance (type, group, size, algorithm, start/end, algbw, busbw,
//   physical lower bound, feasible);
// - timeline.json: Chrome/Perfetto trace format, one process per NPU with a compute, a communication and a
//   memory track; "X" events in microseconds, flow arrows from sends to receives, bounded in size
//   (timeline_writer.hpp);
// - links.csv: per physical link, bytes, busy time, utilization over the run and peak flows (aware and flow);
// - print_report(): the table printed on the terminal.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "chorus/runtime/measured_compare.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/runtime/timeline_writer.hpp"
#include "chorus/runtime/what_if.hpp"

namespace chorus {

struct ReportContext {
  const Workload& workload;
  const RunReport& report;
  std::string model;
  std::string topology;
  double wall_s = 0;
  const Topology* network = nullptr;                   // for links.csv (not owned)
  const std::vector<WhatIfResult>* what_if = nullptr;  // `chorus sim --what-if` (not owned)
  const MeasuredComparison* measured = nullptr;        // `chorus sim --measured` (not owned)
};

// True when the collective's lower bound was computed and its simulated time is below it: a time no schedule can
// reach on the links the group uses (a model that ignores contention can report one).
bool below_bound(const CollectiveReport& c);
size_t count_below_bound(const RunReport& report);

// Collectives that share kind, size, group size and algorithm, summed up (the report's per-class rows).
struct CollectiveClass {
  uint64_t count = 0;
  Time total;
  Time longest;
  uint64_t below_bound = 0;
  const CollectiveReport* example = nullptr;
};
using ClassKey = std::tuple<chakra::CommType, Bytes, uint32_t, std::string>;
std::map<ClassKey, CollectiveClass> classify(const RunReport& report);

nlohmann::json summary_json(const ReportContext& context);
// One line saying where the compute times came from (trace durations, roofline, CPU operators).
std::string compute_sources_text(const ComputeSources& c);
void write_collectives_csv(const std::string& path, const ReportContext& context);
// npus.csv: one row per NPU with summary.json's per_npu keys (npu, finish_ns, compute_ns, exposed_comm_ns,
// peer_wait_ns, idle_ns, nodes).
void write_npus_csv(const std::string& path, const ReportContext& context);
// timeline_writer.cpp: bounded by `limits` (timeline_writer.hpp), with send-to-receive flow arrows.
void write_timeline_json(const std::string& path, const ReportContext& context, const TimelineLimits& limits = {});
void print_report(std::ostream& out, const ReportContext& context);

// Writes summary.json, npus.csv, collectives.csv, (when recorded) timeline.json and (when collected, with `network`
// set) links.csv into `directory`, creating it.
void write_reports(const std::string& directory, const ReportContext& context, const TimelineLimits& timeline = {});

}  // namespace chorus
