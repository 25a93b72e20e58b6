// Charts as inline SVG text, for the self-contained HTML reports (html_page.hpp): no script, no external file, so a
// report opens anywhere, offline, and prints as it looks.
//
//   LineChart c{"busbw against size", "size", "GB/s"};
//   c.series.push_back({"simulated", "#1f77b4", {{8, 0.01}, {16, 0.02}}});
//   std::string svg = render_line_chart(c);
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chorus/io/xml_text.hpp"  // xml_escape, for the pages built on these charts

namespace chorus {

struct Series {
  std::string name;
  std::string color;                              // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y); points outside a log axis (<= 0) are skipped
  bool dashed = false;
  bool line = true;  // false: points only (a scatter)
};

enum class AxisUnit { Plain, Bytes, Microseconds };

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = true;
  bool log_y = true;
  AxisUnit x_unit = AxisUnit::Plain;
  bool markers = true;  // a dot on each point (a Pareto front's points matter more than its lines)
  std::vector<Series> series;
};

std::string render_line_chart(const LineChart& chart);

// One bar per item, stacked segments (e.g. compute, exposed communication, bubble, idle per NPU).
struct StackedBars {
  std::string title;
  std::string y_label;
  std::vector<std::string> segment_names;
  std::vector<std::string> segment_colors;
  std::vector<std::vector<double>> bars;  // bars[i][segment]
  std::string item_label;                 // "NPU"
};

std::string render_stacked_bars(const StackedBars& chart);

// Rows of cells coloured by a value in [0, 1] (link utilisation per dimension).
struct HeatMap {
  std::string title;
  std::vector<std::string> row_names;
  std::vector<std::vector<double>> rows;  // each value in [0, 1]
  std::string value_label;                // what 1 stands for, printed at the top of the colour scale
};

std::string render_heat_map(const HeatMap& chart);

// Horizontal bars with a marker each: e.g. a collective's time against its bound.
struct BarsWithMarks {
  std::string title;
  std::string x_label;
  std::vector<std::string> names;
  std::vector<double> values;
  std::vector<double> marks;  // 0: none
  std::string value_name;     // "simulated"
  std::string mark_name;      // "lower bound"
};

std::string render_bars_with_marks(const BarsWithMarks& chart);

// One row per resource (a link), its busy intervals as bars over time, and a vertical line at `marker` (a bound).
struct Gantt {
  std::string title;
  std::string x_label;
  std::vector<std::string> row_names;
  std::vector<std::vector<std::pair<double, double>>> rows;  // [start, end) per bar
  double marker = 0;                                         // 0: none
  std::string marker_name;
};

std::string render_gantt(const Gantt& chart);

}  // namespace chorus
