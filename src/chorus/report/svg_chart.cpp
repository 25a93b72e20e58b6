// Inline SVG charts (see svg_chart.hpp).
#include "chorus/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace chorus {

namespace {

constexpr double kWidth = 900;
constexpr double kHeight = 360;
constexpr double kLeft = 70;
constexpr double kRight = 230;  // room for the legend
constexpr double kTop = 30;
constexpr double kBottom = 50;

std::string svg_open(double width, double height, std::string_view title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"{2}\"><title>{2}</title>"
      "<text x=\"{3}\" y=\"18\" class=\"chart-title\">{2}</text>",
      width, height, xml_escape(title), kLeft);
}

std::string bytes_label(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:g}{}", bytes, kUnits[unit]);
}

std::string tick_label(double value, AxisUnit unit) {
  if (unit == AxisUnit::Bytes)
    return bytes_label(value);
  return fmt::format("{:g}", value);
}

// One axis: data range to pixels, on a log or linear scale.
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double pixel_lo = 0;
  double pixel_hi = 1;

  double transform(double v) const { return log ? std::log10(v) : v; }
  double pixel(double v) const {
    const double a = transform(lo);
    const double b = transform(hi);
    const double t = b > a ? (transform(v) - a) / (b - a) : 0.5;
    return pixel_lo + t * (pixel_hi - pixel_lo);
  }
  // Tick values: powers (of 2 for bytes, 10 otherwise) on a log axis, about 6 round steps on a linear one.
  std::vector<double> ticks(AxisUnit unit) const {
    std::vector<double> out;
    if (log) {
      const double base = unit == AxisUnit::Bytes ? 2 : 10;
      const double first = std::floor(std::log(lo) / std::log(base));
      const double last = std::ceil(std::log(hi) / std::log(base));
      const double stride = std::max(1.0, std::ceil((last - first) / 8));
      for (double e = first; e <= last; e += stride) {
        const double v = std::pow(base, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
          out.push_back(v);
      }
      return out;
    }
    const double raw = (hi - lo) / 6;
    const double magnitude = std::pow(10, std::floor(std::log10(raw > 0 ? raw : 1)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      step = m * magnitude;
      if (step >= raw)
        break;
    }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
      out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);  // no "-0" from rounding
    return out;
  }
};

bool usable(double v, bool log) {
  return std::isfinite(v) && (!log || v > 0);
}

// The data range of one coordinate over every series, widened when empty or flat.
std::pair<double, double> range(const LineChart& chart, bool x) {
  const bool log = x ? chart.log_x : chart.log_y;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Series& s : chart.series) {
    for (const auto& [px, py] : s.points) {
      if (!usable(px, chart.log_x) || !usable(py, chart.log_y))
        continue;
      const double v = x ? px : py;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi))
    return {1, 10};
  if (lo == hi)
    return log ? std::pair{lo / 2, hi * 2} : std::pair{lo - 1, hi + 1};
  if (!log) {
    // A margin of 5 % instead of a zero baseline: a scatter of close values (a Pareto front) stays readable.
    const double margin = (hi - lo) * 0.05;
    return {lo - margin, hi + margin};
  }
  return {lo, hi};
}

std::string axes(const Axis& x, const Axis& y, const LineChart& chart) {
  std::string out = fmt::format(
      "<g class=\"axes\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>"
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{3}\" stroke=\"#333\"/>",
      kLeft, kHeight - kBottom, kWidth - kRight, kTop);
  for (const double v : x.ticks(chart.x_unit)) {
    const double px = x.pixel(v);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" class=\"tick\">{4}</text>",
        px, kHeight - kBottom, kTop, kHeight - kBottom + 14, xml_escape(tick_label(v, chart.x_unit)));
  }
  for (const double v : y.ticks(AxisUnit::Plain)) {
    const double py = y.pixel(v);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" class=\"tick\">{5}</text>",
        kLeft, py, kWidth - kRight, kLeft - 4, py + 4, xml_escape(tick_label(v, AxisUnit::Plain)));
  }
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" class=\"label\">{2}</text>"
      "<text x=\"14\" y=\"{3}\" text-anchor=\"middle\" class=\"label\" transform=\"rotate(-90 14 {3})\">{4}</text></g>",
      (kLeft + kWidth - kRight) / 2, kHeight - 12, xml_escape(chart.x_label), (kTop + kHeight - kBottom) / 2,
      xml_escape(chart.y_label));
  return out;
}

std::string legend_entry(size_t index, const std::string& name, const std::string& color, bool dashed) {
  const double y = kTop + 10 + static_cast<double>(index) * 18;
  return fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
      "<text x=\"{5}\" y=\"{6}\" class=\"tick\">{7}</text>",
      kWidth - kRight + 10, y, kWidth - kRight + 30, color, dashed ? " stroke-dasharray=\"5 3\"" : "",
      kWidth - kRight + 34, y + 4, xml_escape(name));
}

}  // namespace

std::string render_line_chart(const LineChart& chart) {
  const auto [x_lo, x_hi] = range(chart, true);
  const auto [y_lo, y_hi] = range(chart, false);
  const Axis x{x_lo, x_hi, chart.log_x, kLeft, kWidth - kRight};
  const Axis y{y_lo, y_hi, chart.log_y, kHeight - kBottom, kTop};
  std::string out = svg_open(kWidth, kHeight, chart.title) + axes(x, y, chart);
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    std::string path;
    std::string dots;
    for (const auto& [px, py] : s.points) {
      if (!usable(px, chart.log_x) || !usable(py, chart.log_y))
        continue;
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x.pixel(px), y.pixel(py));
      if (chart.markers)
        dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"/>", x.pixel(px), y.pixel(py),
                            s.color);
    }
    if (!s.line)
      path.clear();
    out += fmt::format("<g class=\"series\"><path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>{}</g>",
                       path, s.color, s.dashed ? " stroke-dasharray=\"5 3\"" : "", dots);
    out += legend_entry(i, s.name, s.color, s.dashed);
  }
  return out + "</svg>";
}

std::string render_stacked_bars(const StackedBars& chart) {
  double top = 0;
  for (const std::vector<double>& bar : chart.bars) {
    double sum = 0;
    for (const double v : bar)
      sum += v;
    top = std::max(top, sum);
  }
  if (top <= 0)
    top = 1;
  const Axis y{0, top, false, kHeight - kBottom, kTop};
  const double plot = kWidth - kRight - kLeft;
  const double width = chart.bars.empty() ? 0 : plot / static_cast<double>(chart.bars.size());
  std::string out = svg_open(kWidth, kHeight, chart.title);
  LineChart frame;
  frame.x_label = chart.item_label;
  frame.y_label = chart.y_label;
  frame.log_x = false;
  frame.log_y = false;
  const Axis x{0, static_cast<double>(chart.bars.size()), false, kLeft, kWidth - kRight};
  out += axes(x, y, frame);
  out += "<g class=\"bars\">";
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    double base = 0;
    for (size_t s = 0; s < chart.bars[i].size(); ++s) {
      const double v = chart.bars[i][s];
      if (v <= 0)
        continue;
      out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"/>",
                         kLeft + width * static_cast<double>(i), y.pixel(base + v), std::max(width * 0.9, 0.5),
                         y.pixel(base) - y.pixel(base + v), chart.segment_colors[s]);
      base += v;
    }
  }
  out += "</g>";
  for (size_t s = 0; s < chart.segment_names.size(); ++s) {
    const double ly = kTop + 10 + static_cast<double>(s) * 18;
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
        "class=\"tick\">{}</text>",
        kWidth - kRight + 10, ly - 6, chart.segment_colors[s], kWidth - kRight + 30, ly + 4,
        xml_escape(chart.segment_names[s]));
  }
  return out + "</svg>";
}

namespace {

// White (0) to dark red (1).
std::string heat_color(double value) {
  const double t = std::clamp(value, 0.0, 1.0);
  const int r = static_cast<int>(255 - 75 * t);
  const int g = static_cast<int>(255 - 230 * t);
  const int b = static_cast<int>(255 - 225 * t);
  return fmt::format("rgb({},{},{})", r, g, b);
}

}  // namespace

std::string render_heat_map(const HeatMap& chart) {
  constexpr double kRowHeight = 22;
  constexpr double kNameWidth = 260;
  const double height = kTop + kRowHeight * static_cast<double>(chart.rows.size()) + 50;
  std::string out = svg_open(kWidth, height, chart.title);
  const double plot = kWidth - kNameWidth - 80;
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const double y = kTop + kRowHeight * static_cast<double>(r);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"tick\">{}</text>", kNameWidth - 6, y + 15,
                       xml_escape(chart.row_names[r]));
    const std::vector<double>& row = chart.rows[r];
    const double cell = row.empty() ? 0 : plot / static_cast<double>(row.size());
    for (size_t c = 0; c < row.size(); ++c) {
      out += fmt::format("<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>",
                         kNameWidth + cell * static_cast<double>(c), y + 2, std::max(cell, 0.5), kRowHeight - 4,
                         heat_color(row[c]));
    }
  }
  const double scale_y = kTop + kRowHeight * static_cast<double>(chart.rows.size()) + 12;
  for (int i = 0; i <= 10; ++i) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"10\" fill=\"{}\"/>", kNameWidth + 20.0 * i,
                       scale_y, heat_color(i / 10.0));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">0</text><text x=\"{}\" y=\"{}\" class=\"tick\">{}</text>",
                     kNameWidth - 10, scale_y + 9, kNameWidth + 226, scale_y + 9, xml_escape(chart.value_label));
  return out + "</svg>";
}

std::string render_bars_with_marks(const BarsWithMarks& chart) {
  constexpr double kRowHeight = 20;
  constexpr double kNameWidth = 260;
  const double height = kTop + kRowHeight * static_cast<double>(chart.names.size()) + 60;
  double top = 0;
  for (size_t i = 0; i < chart.values.size(); ++i)
    top = std::max({top, chart.values[i], chart.marks[i]});
  if (top <= 0)
    top = 1;
  const double plot = kWidth - kNameWidth - 40;
  std::string out = svg_open(kWidth + 60, height, chart.title);
  for (size_t i = 0; i < chart.names.size(); ++i) {
    const double y = kTop + kRowHeight * static_cast<double>(i);
    const double w = chart.values[i] / top * plot;
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"tick\">{}</text>"
        "<rect class=\"value\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#4e79a7\"/>",
        kNameWidth - 6, y + 14, xml_escape(chart.names[i]), kNameWidth, y + 3, std::max(w, 0.5), kRowHeight - 6);
    if (chart.marks[i] > 0) {
      const double mx = kNameWidth + chart.marks[i] / top * plot;
      out += fmt::format(
          "<line class=\"mark\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e15759\" "
          "stroke-width=\"3\"/>",
          mx, y + 1, y + kRowHeight - 1);
    }
  }
  const double ly = kTop + kRowHeight * static_cast<double>(chart.names.size()) + 16;
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" class=\"label\">{2} (0 to {3:.4g})</text>"
      "<rect x=\"{0}\" y=\"{4}\" width=\"14\" height=\"10\" fill=\"#4e79a7\"/><text x=\"{5}\" y=\"{6}\" "
      "class=\"tick\">{7}</text><line x1=\"{8}\" y1=\"{4}\" x2=\"{8}\" y2=\"{9}\" stroke=\"#e15759\" "
      "stroke-width=\"3\"/><text x=\"{10}\" y=\"{6}\" class=\"tick\">{11}</text>",
      kNameWidth, ly, xml_escape(chart.x_label), top, ly + 8, kNameWidth + 18, ly + 17, xml_escape(chart.value_name),
      kNameWidth + 120, ly + 18, kNameWidth + 126, xml_escape(chart.mark_name));
  return out + "</svg>";
}

std::string render_gantt(const Gantt& chart) {
  constexpr double kRowHeight = 14;
  constexpr double kNameWidth = 110;
  const double top = kTop + 16;  // room for the marker's name under the title
  const double bottom = top + kRowHeight * static_cast<double>(chart.rows.size());
  const double height = bottom + 60;
  double end = chart.marker;
  for (const auto& row : chart.rows) {
    for (const auto& [from, to] : row)
      end = std::max(end, to);
  }
  if (end <= 0)
    end = 1;
  const Axis x{0, end, false, kNameWidth, kWidth - 40};
  std::string out = svg_open(kWidth, height, chart.title);
  for (const double v : x.ticks(AxisUnit::Plain)) {
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" class=\"tick\">{4}</text>",
        x.pixel(v), top, bottom, bottom + 14, xml_escape(tick_label(v, AxisUnit::Plain)));
  }
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const double y = top + kRowHeight * static_cast<double>(r);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"tick\">{}</text>", kNameWidth - 6, y + 11,
                       xml_escape(chart.row_names[r]));
    for (const auto& [from, to] : chart.rows[r]) {
      out += fmt::format("<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"#4e79a7\"/>", x.pixel(from),
                         y + 2, std::max(x.pixel(to) - x.pixel(from), 0.5), kRowHeight - 4);
    }
  }
  if (chart.marker > 0) {
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#d62728\" stroke-width=\"2\" "
        "stroke-dasharray=\"5 3\"/><text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" class=\"tick\">{4}</text>",
        x.pixel(chart.marker), top - 4, bottom, top - 8, xml_escape(chart.marker_name));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"label\">{}</text>",
                     (kNameWidth + kWidth - 40) / 2, bottom + 34, xml_escape(chart.x_label));
  return out + "</svg>";
}

}  // namespace chorus
