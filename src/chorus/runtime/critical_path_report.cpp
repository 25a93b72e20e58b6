// Critical path, blame and what-if in summary.json and on the terminal (see critical_path_report.hpp).
#include "chorus/runtime/critical_path_report.hpp"

#include <algorithm>
#include <ostream>
#include <vector>

#include <fmt/format.h>

namespace chorus {

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

double percent(Time part, Time whole) {
  return whole > Time::zero() ? 100.0 * part.seconds() / whole.seconds() : 0.0;
}

nlohmann::json segment_json(const ReportContext& context, const PathSegment& s) {
  const WorkloadNode& n = context.workload.npus[s.npu].nodes[s.node];
  nlohmann::json j = {
      {"kind", to_string(s.kind)}, {"name", n.name}, {"npu", s.npu}, {"start_ns", ns(s.start)}, {"end_ns", ns(s.end)}};
  if (s.collective >= 0) {
    const CollectiveReport& c = context.report.collectives[static_cast<size_t>(s.collective)];
    j["group"] = context.workload.groups[c.group].name;
    j["group_npus"] = c.npus;
    const int64_t dim = segment_dimension(context, s);
    j["dimension"] = dim >= 0 ? nlohmann::json(dim) : nlohmann::json(nullptr);
  }
  return j;
}

// The per-NPU mean of a row's exposed time.
Time mean_exposed(const ReportContext& context, const BlameRow& row) {
  const auto npus = static_cast<int64_t>(std::max<size_t>(context.report.npus.size(), 1));
  return Time::ps(row.exposed_npu_time.picoseconds() / npus);
}

}  // namespace

double speedup(Time baseline, Time changed) {
  return changed > Time::zero() ? baseline.seconds() / changed.seconds() : 0.0;
}

int64_t segment_dimension(const ReportContext& context, const PathSegment& s) {
  if (s.collective < 0 || context.network == nullptr)
    return -1;
  const CollectiveReport& c = context.report.collectives[static_cast<size_t>(s.collective)];
  const std::optional<size_t> d = bounding_dimension(*context.network, context.workload.groups[c.group].npus);
  return d ? static_cast<int64_t>(*d) : -1;
}

void add_critical_path_json(nlohmann::json& j, const ReportContext& context) {
  if (const std::optional<CriticalPath>& path = context.report.critical_path) {
    j["critical_path_totals"] = {{"compute_ns", ns(path->totals.compute)},
                                 {"collective_ns", ns(path->totals.collective)},
                                 {"p2p_ns", ns(path->totals.p2p)},
                                 {"other_ns", ns(path->totals.other)}};
    nlohmann::json segments = nlohmann::json::array();
    for (const PathSegment& s : path->segments)
      segments.push_back(segment_json(context, s));
    j["critical_path"] = std::move(segments);
    nlohmann::json blame = nlohmann::json::array();
    for (const BlameRow& b : path->blame) {
      blame.push_back({{"name", b.name},
                       {"kind", to_string(b.kind)},
                       {"instances", b.instances},
                       {"on_critical_path", b.on_path},
                       {"critical_ns", ns(b.critical)},
                       {"exposed_ns", ns(mean_exposed(context, b))}});
    }
    j["blame"] = std::move(blame);
  }
  if (context.what_if != nullptr) {
    nlohmann::json what_if = nlohmann::json::array();
    for (const WhatIfResult& w : *context.what_if) {
      // A change that leaves no time at all (communication free on a communication-only run): speedup null.
      const double x = speedup(context.report.finish, w.finish);
      what_if.push_back({{"change", w.change},
                         {"finish_ns", ns(w.finish)},
                         {"speedup", x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr)}});
    }
    j["what_if"] = std::move(what_if);
  }
}

namespace {

// The collectives and messages with the most exposed communication, as a share of the NPUs' exposed_comm: the
// question the blame rows sorted by critical time leave open when compute dominates the path.
void print_most_exposed(std::ostream& out, const ReportContext& context, size_t rows) {
  std::vector<const BlameRow*> exposed;
  Time total = Time::zero();
  for (const BlameRow& b : context.report.critical_path->blame) {
    if (b.exposed_npu_time > Time::zero())
      exposed.push_back(&b);
    total += b.exposed_npu_time;
  }
  if (exposed.empty())
    return;
  std::sort(exposed.begin(), exposed.end(), [](const BlameRow* a, const BlameRow* b) {
    return a->exposed_npu_time != b->exposed_npu_time ? a->exposed_npu_time > b->exposed_npu_time : a->name < b->name;
  });
  out << "most exposed communication (share of all exposed):";
  for (size_t i = 0; i < std::min(rows, exposed.size()); ++i) {
    out << fmt::format("{} {} {:.1f}%", i == 0 ? "" : ",", exposed[i]->name,
                       percent(exposed[i]->exposed_npu_time, total));
  }
  out << "\n";
}

}  // namespace

void print_critical_path(std::ostream& out, const ReportContext& context, size_t rows) {
  const RunReport& r = context.report;
  if (r.critical_path) {
    const PathTotals& t = r.critical_path->totals;
    out << fmt::format(
        "\ncritical path  compute {:.1f}%, collectives {:.1f}%, p2p {:.1f}%, other {:.1f}% of {} ({} segments)\n",
        percent(t.compute, r.finish), percent(t.collective, r.finish), percent(t.p2p, r.finish),
        percent(t.other, r.finish), to_string(r.finish), r.critical_path->segments.size());
    out << fmt::format("{:<40} {:<10} {:>10} {:>9} {:>16} {:>16}\n", "blame (digits as #)", "kind", "instances",
                       "on_path", "critical_ns", "exposed_ns/npu");
    const std::vector<BlameRow>& blame = r.critical_path->blame;
    for (size_t i = 0; i < std::min(rows, blame.size()); ++i) {
      const BlameRow& b = blame[i];
      out << fmt::format("{:<40} {:<10} {:>10} {:>9} {:>16.3f} {:>16.3f}\n", b.name, to_string(b.kind), b.instances,
                         b.on_path, ns(b.critical), ns(mean_exposed(context, b)));
    }
    if (blame.size() > rows)
      out << fmt::format("({} more rows in summary.json: blame)\n", blame.size() - rows);
    print_most_exposed(out, context, rows);
  }
  if (context.what_if == nullptr)
    return;
  out << fmt::format("\n{:<36} {:>20} {:>8}\n", "what if", "finish_ns", "speedup");
  for (const WhatIfResult& w : *context.what_if) {
    const double x = speedup(r.finish, w.finish);
    out << fmt::format("{:<36} {:>20.3f} {:>8}\n", w.change, ns(w.finish), x > 0 ? fmt::format("{:.3f}x", x) : "inf");
  }
}

}  // namespace chorus
