// Report writers of a workload run (see reports.hpp).
#include "chorus/runtime/reports.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/runtime/critical_path_report.hpp"

namespace chorus {

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

// nccl-tests' bandwidths of one collective instance; busbw is 0 for a type chorus does not simulate as a collective.
CollectiveBandwidth bandwidth(const CollectiveReport& c) {
  const auto kind = simulated_kind(c.type);
  const CollectiveBandwidth bw =
      collective_bandwidth(kind.value_or(CollectiveKind::AllReduce), c.nccl_size, c.npus, c.end - c.start);
  return kind ? bw : CollectiveBandwidth{bw.algbw_GBps, 0.0};
}

// What the reports say about one collective instance, in their units: summary.json's class rows (for the class's
// first instance), collectives.csv's rows (which Python's run.collectives reads) and the printed table are all
// built from it, so they cannot disagree.
struct CollectiveRecord {
  std::string type;
  int64_t comm_size = 0;
  uint32_t group_npus = 0;
  double duration_ns = 0;
  CollectiveBandwidth bandwidth;
  double lower_bound_ns = 0;
  const char* feasible = "";  // "1": at least its physical lower bound, "0": below it, "": no bound computed
};

CollectiveRecord record_of(const CollectiveReport& c) {
  const char* feasible = c.lower_bound == Time::zero() ? "" : (below_bound(c) ? "0" : "1");
  return CollectiveRecord{chakra::to_string(c.type),
                          c.comm_size.count(),
                          c.npus,
                          ns(c.end - c.start),
                          bandwidth(c),
                          ns(c.lower_bound),
                          feasible};
}

}  // namespace

std::map<ClassKey, CollectiveClass> classify(const RunReport& report) {
  std::map<ClassKey, CollectiveClass> classes;
  for (const CollectiveReport& c : report.collectives) {
    CollectiveClass& k = classes[ClassKey{c.type, c.comm_size, c.npus, c.algorithm}];
    ++k.count;
    k.total += c.end - c.start;
    k.longest = std::max(k.longest, c.end - c.start);
    k.below_bound += below_bound(c);
    if (k.example == nullptr)
      k.example = &c;
  }
  return classes;
}

namespace {

std::FILE* open_for_writing(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
    throw Error(path, "", "cannot create the report file");
  return f;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

bool below_bound(const CollectiveReport& c) {
  // A fused collective's span is only the pipeline's tail after its compute: its bound applies to the whole.
  return !c.fused && !physically_feasible(c.end - c.start, c.lower_bound);
}

size_t count_below_bound(const RunReport& report) {
  return static_cast<size_t>(std::count_if(report.collectives.begin(), report.collectives.end(),
                                           [](const CollectiveReport& c) { return below_bound(c); }));
}

namespace {

// One record per fused operator run (runtime/fused_ops.hpp): the pipeline against compute-then-collective.
nlohmann::json fused_ops_json(const RunReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const FusedOpReport& f : r.fused_ops) {
    out.push_back({{"node_id", f.node_id},
                   {"op", f.op},
                   {"tiles", f.tiles},
                   {"compute_ns", ns(f.compute)},
                   {"collective_ns", ns(f.collective)},
                   {"unfused_ns", ns(f.unfused())},
                   {"fused_ns", ns(f.fused)},
                   {"saved_ns", ns(f.unfused() - f.fused)}});
  }
  return out;
}

}  // namespace

std::string compute_sources_text(const ComputeSources& c) {
  std::vector<std::string> parts;
  if (c.replayed > 0)
    parts.push_back(fmt::format("{} GPU nodes replayed from their trace durations", c.replayed));
  if (c.roofline > 0)
    parts.push_back(fmt::format("{} GPU nodes timed by the system file's roofline", c.roofline));
  if (c.cpu_ops > 0)
    parts.push_back(fmt::format("{} CPU operators replayed (cpu_ns; on a CPU run they are the compute)", c.cpu_ops));
  return parts.empty() ? "no compute nodes" : fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json summary_json(const ReportContext& context) {
  const RunReport& r = context.report;
  nlohmann::json j;
  j["finish_ns"] = ns(r.finish);
  j["npus"] = r.npus.size();
  j["model"] = context.model;
  j["topology"] = context.topology;
  j["workload"] = context.workload.prefix;
  j["nodes"] = context.workload.node_count();
  if (context.workload.symmetry)  // a symmetric workload: nodes are the representatives' (docs/workload.md)
    j["rank_classes"] = context.workload.symmetry->classes.size();
  j["events"] = r.events;
  j["wall_s"] = context.wall_s;
  nlohmann::json per_npu = nlohmann::json::array();
  for (size_t i = 0; i < r.npus.size(); ++i) {
    const NpuReport& n = r.npus[i];
    per_npu.push_back({{"npu", i},
                       {"finish_ns", ns(n.finish)},
                       {"compute_ns", ns(n.compute)},
                       {"exposed_comm_ns", ns(n.exposed_comm)},
                       {"peer_wait_ns", ns(n.peer_wait)},
                       {"cpu_ns", ns(n.cpu)},
                       {"idle_ns", ns(n.idle)},
                       {"nodes", n.nodes}});
  }
  j["per_npu"] = std::move(per_npu);
  j["compute_sources"] = {{"replayed", r.compute_sources.replayed},
                          {"roofline", r.compute_sources.roofline},
                          {"cpu_ops", r.compute_sources.cpu_ops}};
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& [key, k] : classify(r)) {
    const CollectiveRecord c = record_of(*k.example);
    classes.push_back({{"type", c.type},
                       {"comm_size", c.comm_size},
                       {"group_npus", c.group_npus},
                       {"algorithm", k.example->algorithm},
                       {"count", k.count},
                       {"duration_ns", c.duration_ns},
                       {"total_ns", ns(k.total)},
                       {"algbw_GBps", c.bandwidth.algbw_GBps},
                       {"busbw_GBps", c.bandwidth.busbw_GBps},
                       {"lower_bound_ns", c.lower_bound_ns},
                       {"below_bound_count", k.below_bound},
                       {"feasible", k.below_bound == 0}});
  }
  j["collective_count"] = r.collectives.size();
  j["below_bound_count"] = count_below_bound(r);
  j["collectives"] = std::move(classes);
  if (!r.fused_ops.empty())
    j["fused_ops"] = fused_ops_json(r);
  add_critical_path_json(j, context);
  if (context.measured != nullptr)
    j["measured"] = measured_json(*context.measured);
  return j;
}

void write_collectives_csv(const std::string& path, const ReportContext& context) {
  const File f(open_for_writing(path));
  fmt::print(f.get(),
             "index,type,group,group_npus,comm_size_bytes,algorithm,first_issue_ns,start_ns,end_ns,duration_ns,"
             "algbw_GBps,busbw_GBps,lower_bound_ns,feasible,node_id\n");
  const auto& groups = context.workload.groups;
  for (size_t i = 0; i < context.report.collectives.size(); ++i) {
    const CollectiveReport& c = context.report.collectives[i];
    const CollectiveRecord rec = record_of(c);
    // RFC 4180: group names come from the user's comm_groups.json and may hold commas or quotes.
    fmt::print(f.get(), "{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{},{},{}\n", i, rec.type,
               csv_field(groups[c.group].name), rec.group_npus, rec.comm_size, csv_field(c.algorithm),
               ns(c.first_issue), ns(c.start), ns(c.end), rec.duration_ns, rec.bandwidth.algbw_GBps,
               rec.bandwidth.busbw_GBps, rec.lower_bound_ns, rec.feasible, c.node_id);
  }
}

void write_npus_csv(const std::string& path, const ReportContext& context) {
  std::string text = "npu,finish_ns,compute_ns,exposed_comm_ns,peer_wait_ns,idle_ns,nodes,cpu_ns\n";
  const std::vector<NpuReport>& npus = context.report.npus;
  for (size_t i = 0; i < npus.size(); ++i) {
    const NpuReport& n = npus[i];
    text += fmt::format("{},{},{},{},{},{},{},{}\n", i, ns(n.finish), ns(n.compute), ns(n.exposed_comm),
                        ns(n.peer_wait), ns(n.idle), n.nodes, ns(n.cpu));
  }
  write_output_file(path, Argument{"out"}, text);
}

void print_report(std::ostream& out, const ReportContext& context) {
  const RunReport& r = context.report;
  out << fmt::format("workload     {} ({} NPUs, {} nodes) on {}, {} model\n", context.workload.prefix, r.npus.size(),
                     context.workload.node_count(), context.topology, context.model);
  if (context.workload.symmetry) {
    out << fmt::format(
        "symmetric    {} rank classes, one representative each simulated; every rank reports its "
        "representative's times\n",
        context.workload.symmetry->classes.size());
  }
  out << fmt::format("finish       {} ({} ns)\n", to_string(r.finish), ns(r.finish));
  out << fmt::format("compute      {}\n\n", compute_sources_text(r.compute_sources));
  const bool cpu = r.compute_sources.cpu_ops > 0;
  out << fmt::format("{:>6} {:>16} {:>16} {:>16} {:>16} {:>16}{}\n", "npu", "finish_ns", "compute_ns",
                     "exposed_comm_ns", "peer_wait_ns", "idle_ns", cpu ? fmt::format(" {:>16}", "cpu_ns") : "");
  const size_t shown = r.npus.size() <= 16 ? r.npus.size() : 8;
  for (size_t i = 0; i < shown; ++i) {
    const NpuReport& n = r.npus[i];
    out << fmt::format("{:>6} {:>16.3f} {:>16.3f} {:>16.3f} {:>16.3f} {:>16.3f}{}\n", i, ns(n.finish), ns(n.compute),
                       ns(n.exposed_comm), ns(n.peer_wait), ns(n.idle),
                       cpu ? fmt::format(" {:>16.3f}", ns(n.cpu)) : "");
  }
  if (shown < r.npus.size())
    out << fmt::format("{:>6} ({} more NPUs in summary.json)\n", "...", r.npus.size() - shown);
  print_critical_path(out, context);
  if (context.measured != nullptr)
    print_measured(out, *context.measured);
  if (r.collectives.empty())
    return;
  out << fmt::format("\n{:<15} {:>14} {:>6} {:>7} {:<18} {:>14} {:>10} {:>10} {:>14}\n", "collective", "comm_size",
                     "npus", "count", "algorithm", "each_ns", "algbw_GBps", "busbw_GBps", "bound_ns");
  for (const auto& [key, k] : classify(r)) {
    const CollectiveRecord c = record_of(*k.example);
    out << fmt::format("{:<15} {:>14} {:>6} {:>7} {:<18} {:>14.3f} {:>10.3f} {:>10.3f} {:>14.3f}\n", c.type,
                       c.comm_size, c.group_npus, k.count, k.example->algorithm, c.duration_ns, c.bandwidth.algbw_GBps,
                       c.bandwidth.busbw_GBps, c.lower_bound_ns);
  }
  if (r.fused_ops.empty())
    return;
  Time fused = Time::zero();
  Time unfused = Time::zero();
  for (const FusedOpReport& f : r.fused_ops) {
    fused += f.fused;
    unfused += f.unfused();
  }
  out << fmt::format(
      "\nfused ops    {} operators: {} fused vs {} compute-then-collective in total (summary.json: "
      "fused_ops)\n",
      r.fused_ops.size(), to_string(fused), to_string(unfused));
}

void write_reports(const std::string& directory, const ReportContext& context, const TimelineLimits& timeline) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw Error(directory, Argument{"out"}, fmt::format("cannot create the directory: {}", ec.message()));
  const std::filesystem::path dir(directory);
  {
    std::ofstream summary(dir / "summary.json");
    if (!summary)
      throw Error((dir / "summary.json").string(), "", "cannot create the report file");
    summary << summary_json(context).dump(2) << "\n";
  }
  write_collectives_csv((dir / "collectives.csv").string(), context);
  write_npus_csv((dir / "npus.csv").string(), context);
  if (!context.report.timeline.empty())
    write_timeline_json((dir / "timeline.json").string(), context, timeline);
  if (context.report.links && context.network != nullptr)
    write_link_stats_csv((dir / "links.csv").string(), *context.network, *context.report.links, context.report.finish);
}

}  // namespace chorus
