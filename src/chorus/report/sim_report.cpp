// The HTML report of a workload run (see sim_report.hpp).
#include "chorus/report/sim_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"
#include "chorus/topology/link_groups.hpp"

namespace chorus {

namespace {

// More cells than this in one heat-map row are averaged in buckets (a 1,024-NPU network has thousands of links).
constexpr size_t kMaxHeatCells = 512;
// The collective classes charted, longest total time first.
constexpr size_t kMaxCollectiveRows = 40;

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
  BarsWithMarks chart{"collectives (one instance each) against their lower bounds",
                      "time (us)",
                      {},
                      {},
                      {},
                      "simulated",
                      "lower bound"};
  for (const auto& [key, k] : classes) {
    const CollectiveReport& c = *k.example;
    chart.names.push_back(
        fmt::format("{} {} B, {} NPUs x{}", chakra::to_string(c.type), c.comm_size.count(), c.npus, k.count));
    chart.values.push_back((c.end - c.start).microseconds());
    chart.marks.push_back(c.lower_bound.microseconds());
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
  double peak = 0;
  for (const auto& [name, values] : groups)
    peak = std::max(peak, *std::max_element(values.begin(), values.end()));
  // Colours span 0 to the busiest link, so that a lightly loaded network still shows where its load is.
  HeatMap map{"busy time / run time of each link, one row per dimension",
              {},
              {},
              fmt::format("{:.3f} (the busiest link)", peak)};
  std::vector<std::vector<std::string>> rows = {{"dimension", "links", "mean utilisation", "max utilisation"}};
  for (const auto& [name, values] : groups) {
    double sum = 0;
    for (const double v : values)
      sum += v;
    map.row_names.push_back(name);
    std::vector<double> cells = bucketed(values);
    for (double& cell : cells)
      cell = peak > 0 ? cell / peak : 0;
    map.rows.push_back(std::move(cells));
    rows.push_back({name, std::to_string(values.size()),
                    fmt::format("{:.3f}", sum / static_cast<double>(values.size())),
                    fmt::format("{:.3f}", *std::max_element(values.begin(), values.end()))});
  }
  page.raw(render_heat_map(map));
  page.table(rows);
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
  page.heading("Critical path");
  page.paragraph(
      "Not available: the runtime does not record which dependency made each node wait, so it cannot report a "
      "critical path. The per-NPU bars above show where the time goes.");
  return page.str();
}

}  // namespace chorus
