// HTML reports of size sweeps (see sweep_report.hpp).
#include "chorus/report/sweep_report.hpp"

#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"

namespace chorus {

namespace {

constexpr const char* kSimulatedColor = "#1f77b4";
constexpr const char* kBoundColor = "#d62728";
constexpr const char* kMeasuredColor = "#2ca02c";
constexpr const char* kInPlaceColor = "#98df8a";

// busbw that a time of `t` gives for the collective `c`.
double busbw_at(const Collective& c, Time t) {
  if (t <= Time::zero())
    return 0;
  return static_cast<double>(c.size.count()) / t.seconds() / 1e9 * bus_factor(c.kind, c.npus);
}

void add_measured(LineChart& busbw, LineChart& time, const SizeSweep& sweep, const NcclTestsLog& log) {
  Series bw{"measured (out-of-place)", kMeasuredColor, {}};
  Series bw_in{"measured (in-place)", kInPlaceColor, {}, true};
  Series t{"measured (out-of-place)", kMeasuredColor, {}};
  Series t_in{"measured (in-place)", kInPlaceColor, {}, true};
  for (const SweepPoint& p : sweep.points) {
    const NcclTestsRow* row = log.find(p.collective.size);
    if (row == nullptr)
      continue;
    const auto x = static_cast<double>(p.collective.size.count());
    bw.points.emplace_back(x, row->out_of_place.busbw_GBps);
    t.points.emplace_back(x, row->out_of_place.time_us);
    if (row->in_place) {
      bw_in.points.emplace_back(x, row->in_place->busbw_GBps);
      t_in.points.emplace_back(x, row->in_place->time_us);
    }
  }
  busbw.series.push_back(std::move(bw));
  time.series.push_back(std::move(t));
  if (!bw_in.points.empty()) {
    busbw.series.push_back(std::move(bw_in));
    time.series.push_back(std::move(t_in));
  }
}

// A chart against size on log axes.
LineChart size_chart(std::string title, std::string y_label) {
  LineChart chart;
  chart.title = std::move(title);
  chart.x_label = "size";
  chart.y_label = std::move(y_label);
  chart.x_unit = AxisUnit::Bytes;
  return chart;
}

std::string us(double v) {
  return fmt::format("{:.3f}", v);
}

}  // namespace

std::string sweep_report_html(const SizeSweep& sweep, const std::string& title, const NcclTestsLog* measured) {
  LineChart busbw = size_chart("bus bandwidth against size", "busbw (GB/s)");
  LineChart time = size_chart("time against size", "time (us)");
  Series sim_bw{"simulated", kSimulatedColor, {}};
  Series sim_t{"simulated", kSimulatedColor, {}};
  Series bound_bw{"lower bound", kBoundColor, {}, true};
  Series bound_t{"lower bound", kBoundColor, {}, true};
  std::vector<std::vector<std::string>> rows = {
      {"size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "bound (us)", "time/bound"}};
  for (const SweepPoint& p : sweep.points) {
    const auto x = static_cast<double>(p.collective.size.count());
    sim_bw.points.emplace_back(x, p.busbw_GBps());
    sim_t.points.emplace_back(x, p.time_us());
    if (p.bound) {
      bound_bw.points.emplace_back(x, busbw_at(p.collective, p.bound->bound));
      bound_t.points.emplace_back(x, p.bound->bound.microseconds());
    }
    rows.push_back({std::to_string(p.collective.size.count()), us(p.time_us()), fmt::format("{:.3f}", p.algbw_GBps()),
                    fmt::format("{:.3f}", p.busbw_GBps()), p.bound ? us(p.bound->bound.microseconds()) : "-",
                    p.ratio() ? fmt::format("{:.3f}", *p.ratio()) : "-"});
  }
  busbw.series = {std::move(sim_bw), std::move(bound_bw)};
  time.series = {std::move(sim_t), std::move(bound_t)};
  if (measured != nullptr)
    add_measured(busbw, time, sweep, *measured);
  HtmlPage page(title);
  page.paragraph(
      "The lower bound's busbw is the most any algorithm can reach on this topology (cut bound plus the latency "
      "diameter, docs/cli.md); a simulated curve above it would be physically impossible.");
  page.raw(render_line_chart(busbw));
  page.raw(render_line_chart(time));
  page.heading("Sizes");
  page.table(rows);
  return page.str();
}

std::string sweep_comparison_report_html(const std::vector<LabelledSweep>& sweeps, const std::string& title,
                                         const NcclTestsLog* measured) {
  // Colours that stay apart from the bound's red and the measured greens.
  static constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  LineChart busbw = size_chart("bus bandwidth against size", "busbw (GB/s)");
  LineChart time = size_chart("time against size", "time (us)");
  std::vector<std::string> header = {"size (B)"};
  for (const LabelledSweep& s : sweeps) {
    header.push_back(s.label + " time (us)");
    header.push_back(s.label + " busbw (GB/s)");
  }
  header.emplace_back("bound (us)");
  std::vector<std::vector<std::string>> rows = {header};
  const SizeSweep& first = *sweeps.front().sweep;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    const char* color = kPalette[i % std::size(kPalette)];
    Series bw{sweeps[i].label, color, {}};
    Series t{sweeps[i].label, color, {}};
    for (const SweepPoint& p : sweeps[i].sweep->points) {
      bw.points.emplace_back(static_cast<double>(p.collective.size.count()), p.busbw_GBps());
      t.points.emplace_back(static_cast<double>(p.collective.size.count()), p.time_us());
    }
    busbw.series.push_back(std::move(bw));
    time.series.push_back(std::move(t));
  }
  Series bound_bw{"lower bound", kBoundColor, {}, true};
  Series bound_t{"lower bound", kBoundColor, {}, true};
  for (size_t k = 0; k < first.points.size(); ++k) {
    const SweepPoint& p = first.points[k];
    std::vector<std::string> row = {std::to_string(p.collective.size.count())};
    std::optional<Time> bound;
    for (const LabelledSweep& s : sweeps) {
      const SweepPoint& q = s.sweep->points[k];
      row.push_back(us(q.time_us()));
      row.push_back(fmt::format("{:.3f}", q.busbw_GBps()));
      if (!bound && q.bound)
        bound = q.bound->bound;
    }
    if (bound) {
      const auto x = static_cast<double>(p.collective.size.count());
      bound_bw.points.emplace_back(x, busbw_at(p.collective, *bound));
      bound_t.points.emplace_back(x, bound->microseconds());
    }
    row.push_back(bound ? us(bound->microseconds()) : "-");
    rows.push_back(std::move(row));
  }
  busbw.series.push_back(std::move(bound_bw));
  time.series.push_back(std::move(bound_t));
  if (measured != nullptr)
    add_measured(busbw, time, first, *measured);
  HtmlPage page(title);
  page.paragraph(
      "Each algorithm at the same sizes on the same machine or topology. The lower bound's busbw is the most any "
      "algorithm can reach on these links without in-network reduction (cut bound plus the latency diameter, "
      "docs/cli.md).");
  page.raw(render_line_chart(busbw));
  page.raw(render_line_chart(time));
  page.heading("Sizes");
  page.table(rows);
  return page.str();
}

std::string bound_sweep_report_html(const std::vector<LowerBound>& bounds, const std::string& title) {
  LineChart busbw = size_chart("bus bandwidth of the lower bound against size", "busbw (GB/s)");
  LineChart time = size_chart("lower bound against size", "time (us)");
  Series bw{"lower bound", kBoundColor, {}};
  Series t{"lower bound", kBoundColor, {}};
  Series bandwidth{"bandwidth term", kSimulatedColor, {}, true};
  Series latency{"latency term", kMeasuredColor, {}, true};
  for (const LowerBound& b : bounds) {
    const auto x = static_cast<double>(b.size.count());
    bw.points.emplace_back(x, busbw_at(Collective{b.collective, b.size, b.npus}, b.bound));
    t.points.emplace_back(x, b.bound.microseconds());
    bandwidth.points.emplace_back(x, b.bandwidth_bound.microseconds());
    latency.points.emplace_back(x, b.latency_bound.microseconds());
  }
  busbw.series = {std::move(bw)};
  time.series = {std::move(t), std::move(bandwidth), std::move(latency)};
  HtmlPage page(title);
  page.raw(render_line_chart(busbw));
  page.raw(render_line_chart(time));
  return page.str();
}

}  // namespace chorus
