// The HTML report of a workload run (see sim_report.hpp).
#include "chorus/report/sim_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"
#include "chorus/runtime/critical_path_report.hpp"
#include "chorus/topology/link_groups.hpp"

namespace chorus {

namespace {

// More cells than this in one heat-map row are averaged in buckets (a 1,024-NPU network has thousands of links).
constexpr size_t kMaxHeatCells = 512;
// The collective classes charted, longest total time first.
constexpr size_t kMaxCollectiveRows = 40;
// The blame rows tabulated, longest on the critical path first.
constexpr size_t kMaxBlameRows = 20;

std::string per_npu_chart(const RunReport& r) {
  StackedBars bars{"where each NPU's time goes",
                   "time (ms)",
                   {"compute", "exposed communication", "pipeline bubble / peer wait", "CPU operators", "idle"},
                   {"#4e79a7", "#f28e2b", "#b07aa1", "#59a14f", "#d9d9d9"},
                   {},
                   "NPU"};
  bars.bars.reserve(r.npus.size());
  for (const NpuReport& n : r.npus) {
    bars.bars.push_back({n.compute.seconds() * 1e3, n.exposed_comm.seconds() * 1e3, n.peer_wait.seconds() * 1e3,
                         n.cpu.seconds() * 1e3, n.idle.seconds() * 1e3});
  }
  return render_stacked_bars(bars);
}

std::string collectives_chart(const RunReport& r) {
  std::vector<std::pair<ClassKey, CollectiveClass>> classes;
  for (const auto& entry : classify(r))
    classes.push_back(entry);
  std::sort(classes.begin(), classes.end(),
            [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  if (classes.size() > kMaxCollectiveRows)
    classes.resize(kMaxCollectiveRows);
  // Every instance counts: a class's bar is its instances' total time, its mark their total lower bound, so that
  // 49,152 short All-Reduces weigh what they cost against a few long ones.
  BarsWithMarks chart{"collectives: total time of all instances against their lower bounds",
                      "total time (ms)",
                      {},
                      {},
                      {},
                      "simulated, all instances",
                      "lower bound, all instances"};
  for (const auto& [key, k] : classes) {
    const CollectiveReport& c = *k.example;
    chart.names.push_back(
        fmt::format("{} {} B, {} NPUs x{}", chakra::to_string(c.type), c.comm_size.count(), c.npus, k.count));
    chart.values.push_back(k.total.seconds() * 1e3);
    chart.marks.push_back((c.lower_bound * static_cast<int64_t>(k.count)).seconds() * 1e3);
  }
  return render_bars_with_marks(chart);
}

std::vector<double> bucketed(const std::vector<double>& values) {
  if (values.size() <= kMaxHeatCells)
    return values;
  std::vector<double> out(kMaxHeatCells, 0);
  std::vector<size_t> count(kMaxHeatCells, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t bucket = i * kMaxHeatCells / values.size();
    out[bucket] += values[i];
    ++count[bucket];
  }
  for (size_t i = 0; i < out.size(); ++i)
    out[i] /= static_cast<double>(std::max<size_t>(count[i], 1));
  return out;
}

void link_section(HtmlPage& page, const ReportContext& context) {
  page.heading("Link utilisation by dimension");
  const RunReport& r = context.report;
  if (!r.links || context.network == nullptr) {
    page.paragraph("No link statistics: the unaware model does not track links (run with --model aware or flow).");
    return;
  }
  const Topology& t = *context.network;
  std::map<std::string, std::vector<double>> groups;
  const double makespan = r.finish.seconds();
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    const double utilisation = makespan > 0 ? r.links->busy[l].seconds() / makespan : 0;
    groups[link_group_name(t, LinkId{l})].push_back(utilisation);
  }
  // Colours span an absolute 0-100%: an idle network looks idle (a scale relative to the busiest link would paint
  // 1.5% as dark as a saturated link); the table below gives the numbers.
  HeatMap map{"busy time / run time of each link, one row per dimension", {}, {}, "100% (busy the whole run)"};
  std::vector<std::vector<std::string>> rows = {{"dimension", "links", "mean utilisation", "max utilisation"}};
  for (const auto& [name, values] : groups) {
    double sum = 0;
    for (const double v : values)
      sum += v;
    map.row_names.push_back(name);
    map.rows.push_back(bucketed(values));
    rows.push_back({name, std::to_string(values.size()),
                    fmt::format("{:.3f}", sum / static_cast<double>(values.size())),
                    fmt::format("{:.3f}", *std::max_element(values.begin(), values.end()))});
  }
  page.raw(render_heat_map(map));
  page.table(rows);
}

double ms(Time t) {
  return t.seconds() * 1e3;
}

// The critical path over time, one row per kind of segment, and its split.
std::string critical_path_chart(const CriticalPath& path) {
  Gantt chart{"the critical path over time (each bar a segment, its row what it is)", "time (ms)", {}, {}, 0, ""};
  for (const PathKind kind : {PathKind::Compute, PathKind::Collective, PathKind::P2p, PathKind::Other}) {
    chart.row_names.emplace_back(to_string(kind));
    chart.rows.emplace_back();
  }
  for (const PathSegment& s : path.segments)
    chart.rows[static_cast<size_t>(s.kind)].emplace_back(ms(s.start), ms(s.end));
  return render_gantt(chart);
}

void blame_table(HtmlPage& page, const ReportContext& context, const CriticalPath& path) {
  const auto npus = static_cast<int64_t>(std::max<size_t>(context.report.npus.size(), 1));
  std::vector<std::vector<std::string>> rows = {{"operation (digits as #)", "kind", "instances", "on the critical path",
                                                 "critical time (ms)", "exposed time per NPU (ms)"}};
  for (size_t i = 0; i < std::min(kMaxBlameRows, path.blame.size()); ++i) {
    const BlameRow& b = path.blame[i];
    rows.push_back({b.name, std::string(to_string(b.kind)), std::to_string(b.instances), std::to_string(b.on_path),
                    fmt::format("{:.3f}", ms(b.critical)),
                    fmt::format("{:.3f}", ms(Time::ps(b.exposed_npu_time.picoseconds() / npus)))});
  }
  page.table(rows);
}

void critical_path_section(HtmlPage& page, const ReportContext& context) {
  page.heading("Critical path");
  const RunReport& r = context.report;
  if (!r.critical_path) {
    page.paragraph("Not recorded in this run.");
    return;
  }
  const CriticalPath& path = *r.critical_path;
  const auto share = [&](Time t) { return r.finish > Time::zero() ? 100.0 * t.seconds() / r.finish.seconds() : 0.0; };
  page.paragraph(fmt::format(
      "The chain of nodes that decided the finish time, walked back from the last node to finish through what "
      "released each one (its last dependency, its NPU's busy resource, a collective's last member, a message's "
      "send): compute {:.1f}%, collectives {:.1f}%, point-to-point {:.1f}%, other {:.1f}% ({} segments).",
      share(path.totals.compute), share(path.totals.collective), share(path.totals.p2p), share(path.totals.other),
      path.segments.size()));
  page.raw(critical_path_chart(path));
  page.heading("Blame");
  page.paragraph(fmt::format(
      "Operations by name, digits read as # so that microbatches and layers add up: time on the critical path, and "
      "exposed communication (moving data while no compute runs) charged to the collective or message that caused "
      "it, as a mean per NPU. The top {} rows; summary.json holds all.",
      kMaxBlameRows));
  blame_table(page, context, path);
}

void what_if_section(HtmlPage& page, const ReportContext& context) {
  if (context.what_if == nullptr)
    return;
  page.heading("What if");
  page.paragraph(
      "Each bar is a re-simulation of the whole run with one input changed; the mark is this run's finish time.");
  BarsWithMarks chart{"finish time with one change", "finish (ms)", {}, {}, {}, "changed run", "this run"};
  std::vector<std::vector<std::string>> rows = {{"change", "finish (ms)", "speedup"}};
  for (const WhatIfResult& w : *context.what_if) {
    chart.names.push_back(w.change);
    chart.values.push_back(ms(w.finish));
    chart.marks.push_back(ms(context.report.finish));
    const double x = speedup(context.report.finish, w.finish);
    rows.push_back({w.change, fmt::format("{:.3f}", ms(w.finish)), x > 0 ? fmt::format("{:.3f}x", x) : "inf"});
  }
  page.raw(render_bars_with_marks(chart));
  page.table(rows);
}

// `chorus sim --measured`: each rank measured and simulated with the measured critical path's split, then the
// operations furthest off.
void measured_section(HtmlPage& page, const ReportContext& context) {
  if (context.measured == nullptr)
    return;
  const MeasuredComparison& c = *context.measured;
  page.heading("Measured beside simulated");
  const std::optional<double> error = error_percent(c.measured_iteration, c.simulated_iteration);
  page.paragraph(fmt::format(
      "The profiled run ({}): iteration {} measured (longest rank), {} simulated{}. The measured critical path is "
      "walked back on the Kineto timeline from the last event to end (docs/workload.md).",
      c.run.path, to_string(c.measured_iteration), to_string(c.simulated_iteration),
      error ? fmt::format(", {:+.1f}%", *error) : ""));
  std::vector<std::vector<std::string>> ranks = {{"rank", "measured (ms)", "simulated (ms)", "path compute (ms)",
                                                  "path communication (ms)", "path launch (ms)", "path idle (ms)"}};
  for (size_t r = 0; r < c.ranks.size(); ++r) {
    const MeasuredSplit& p = c.run.ranks[r].path;
    ranks.push_back({std::to_string(r), fmt::format("{:.3f}", ms(c.ranks[r].measured)),
                     fmt::format("{:.3f}", ms(c.ranks[r].simulated)), fmt::format("{:.3f}", ms(p.compute)),
                     fmt::format("{:.3f}", ms(p.communication)), fmt::format("{:.3f}", ms(p.launch)),
                     fmt::format("{:.3f}", ms(p.idle))});
  }
  page.table(ranks);
  std::vector<std::vector<std::string>> ops = {
      {"operation (digits as #)", "kind", "instances", "measured (ms)", "simulated (ms)", "simulated - measured (ms)"}};
  for (size_t i = 0; i < std::min(kMaxBlameRows, c.ops.size()); ++i) {
    const OpComparison& o = c.ops[i];
    ops.push_back({o.name, o.kind, std::to_string(o.instances), fmt::format("{:.3f}", ms(o.measured)),
                   fmt::format("{:.3f}", ms(o.simulated)), fmt::format("{:.3f}", ms(o.simulated - o.measured))});
  }
  page.table(ops);
}

}  // namespace

std::string sim_report_html(const ReportContext& context) {
  const RunReport& r = context.report;
  HtmlPage page(fmt::format("chorus sim: {} on {}", context.workload.prefix, context.topology));
  page.paragraph(fmt::format("{} NPUs, {} model, finish {} ({} collectives, {} below their lower bound).",
                             r.npus.size(), context.model, to_string(r.finish), r.collectives.size(),
                             count_below_bound(r)));
  page.heading("Per NPU");
  page.paragraph(
      "Compute is GPU compute; exposed communication moves data while no compute runs; pipeline bubble / peer wait "
      "is communication waiting for a peer (e.g. the previous pipeline stage); CPU operators are host operators while "
      "none of those runs (a CPU run's compute); idle is the rest (docs/workload.md).");
  page.raw(per_npu_chart(r));
  page.heading("Collectives against their lower bounds");
  if (r.collectives.empty()) {
    page.paragraph("The workload has no collectives.");
  } else {
    page.raw(collectives_chart(r));
  }
  link_section(page, context);
  critical_path_section(page, context);
  what_if_section(page, context);
  measured_section(page, context);
  return page.str();
}

}  // namespace chorus
