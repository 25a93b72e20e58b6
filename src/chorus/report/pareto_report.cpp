// The time-cost Pareto front of a network-shape sweep (see pareto_report.hpp).
#include "chorus/report/pareto_report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"

namespace chorus {

std::vector<size_t> pareto_front(const netopt::SweepResult& result) {
  std::vector<size_t> order(result.rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto& rows = result.rows;
  // Cheapest first, the faster of equal costs first; a row joins the front when it is faster than every cheaper one.
  std::sort(order.begin(), order.end(), [&rows](size_t a, size_t b) {
    const auto& da = rows[a].design;
    const auto& db = rows[b].design;
    return da.cost != db.cost ? da.cost < db.cost : da.time_ms < db.time_ms;
  });
  std::vector<size_t> front;
  for (const size_t i : order) {
    if (front.empty() || rows[i].design.time_ms < rows[front.back()].design.time_ms)
      front.push_back(i);
  }
  return front;
}

std::string pareto_report_html(const netopt::SweepResult& result, const std::string& title) {
  LineChart chart;
  chart.title = "time against cost of each shape's optimised design";
  chart.x_label = "cost ($)";
  chart.y_label = "training-step time (ms)";
  chart.log_x = false;
  chart.log_y = false;
  Series all{"every ranked shape", "#9aa9c0", {}, false, false};
  for (const netopt::SweepRow& row : result.rows)
    all.points.emplace_back(row.design.cost, row.design.time_ms);
  Series front{"Pareto front", "#d62728", {}};
  std::vector<std::vector<std::string>> table = {{"shape", "bandwidth (GB/s)", "time (ms)", "cost ($)"}};
  for (const size_t i : pareto_front(result)) {
    const netopt::SweepRow& row = result.rows[i];
    front.points.emplace_back(row.design.cost, row.design.time_ms);
    std::string bandwidth;
    for (const double b : row.design.bandwidth_gbps)
      bandwidth += fmt::format("{}{:.2f}", bandwidth.empty() ? "" : ", ", b);
    table.push_back({netopt::shape_name(row.network), bandwidth, fmt::format("{:.4f}", row.design.time_ms),
                     fmt::format("{:.0f}", row.design.cost)});
  }
  chart.series = {std::move(all), std::move(front)};
  HtmlPage page(title);
  page.paragraph(
      fmt::format("{} shapes enumerated, {} ranked, {} skipped. The front holds the shapes that no other "
                  "shape beats on both time and cost.",
                  result.shapes, result.rows.size(), result.skipped));
  page.raw(render_line_chart(chart));
  page.heading("Pareto front");
  page.table(table);
  return page.str();
}

}  // namespace chorus
