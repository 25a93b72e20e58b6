// The HTML report of a synthesized collective (see synth_report.hpp).
#include "chorus/report/synth_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"

namespace chorus {

namespace {

// Links charted, busiest first: a row each stays readable, and the page stays small for a million transfers.
constexpr size_t kMaxLinks = 64;

struct LinkBusy {
  std::vector<std::pair<double, double>> intervals;  // us
  double busy = 0;
};

// Touching or overlapping intervals of one link as one bar.
std::vector<std::pair<double, double>> merged(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& interval : intervals) {
    if (!out.empty() && interval.first <= out.back().second + 1e-9) {
      out.back().second = std::max(out.back().second, interval.second);
    } else {
      out.push_back(interval);
    }
  }
  return out;
}

}  // namespace

std::string synth_report_html(const SynthResult& r, const Topology& topology, Time bound) {
  std::map<std::pair<uint32_t, uint32_t>, LinkBusy> links;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const OpId op{i};
    if (!r.schedule.is_transfer(op))
      continue;
    LinkBusy& link = links[{r.schedule.src(op).value, r.schedule.dst(op).value}];
    const double start = r.ops[i].start.microseconds();
    const double finish = r.ops[i].finish.microseconds();
    link.intervals.emplace_back(start, finish);
    link.busy += finish - start;
  }
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, LinkBusy*>> order;
  for (auto& [key, busy] : links)
    order.emplace_back(key, &busy);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->busy > b.second->busy; });
  Gantt gantt{fmt::format("busiest {} of {} links: when each carries a transfer", std::min(order.size(), kMaxLinks),
                          order.size()),
              "time (us)",
              {},
              {},
              bound.microseconds(),
              "lower bound"};
  for (size_t i = 0; i < order.size() && i < kMaxLinks; ++i) {
    gantt.row_names.push_back(fmt::format("{} -> {}", order[i].first.first, order[i].first.second));
    gantt.rows.push_back(merged(std::move(order[i].second->intervals)));
  }
  const double ratio =
      bound > Time::zero() ? static_cast<double>(r.time.picoseconds()) / static_cast<double>(bound.picoseconds()) : 0;
  HtmlPage page(fmt::format("chorus synth: {} of {} on {}", to_string(r.kind), to_string(r.size), topology.name()));
  page.paragraph(
      fmt::format("{} NPUs, {} chunks per NPU of {}, {} transfers. Time {}, lower bound {}, time/bound "
                  "{:.4f}{}.",
                  r.members.size(), r.chunks_per_npu, to_string(r.chunk_bytes), r.schedule.transfer_count(),
                  to_string(r.time), to_string(bound), ratio,
                  physically_feasible(r.time, bound) ? "" : " (below the bound: not physically feasible)"));
  BarsWithMarks against{"schedule time against the lower bound",
                        "time (us)",
                        {"synthesized schedule"},
                        {r.time.microseconds()},
                        {bound.microseconds()},
                        "synthesized",
                        "lower bound"};
  page.raw(render_bars_with_marks(against));
  page.heading("Link time chart");
  page.raw(render_gantt(gantt));
  return page.str();
}

}  // namespace chorus
