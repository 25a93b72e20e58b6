// Several algorithms over the same sizes (algorithm_comparison.hpp).
#include "algorithm_comparison.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/report/sweep_report.hpp"
#include "chorus/sim/msccl_request.hpp"

namespace chorus::cli {
namespace {

std::optional<double> bound_us_at(const std::vector<ComparedSweep>& sweeps, size_t k) {
  for (const ComparedSweep& s : sweeps) {
    if (s.sweep.points[k].bound)
      return s.sweep.points[k].bound->bound.microseconds();
  }
  return std::nullopt;
}

// The algorithm with the shortest time at size k (the first listed on a tie).
const std::string& fastest_at(const std::vector<ComparedSweep>& sweeps, size_t k) {
  size_t best = 0;
  for (size_t i = 1; i < sweeps.size(); ++i) {
    if (sweeps[i].sweep.points[k].result.time < sweeps[best].sweep.points[k].result.time)
      best = i;
  }
  return sweeps[best].label;
}

bool has_details(const ComparedSweep& s) {
  return std::any_of(s.details.begin(), s.details.end(), [](const std::string& d) { return !d.empty(); });
}

std::string detail_at(const ComparedSweep& s, size_t k) {
  return k < s.details.size() ? s.details[k] : std::string();
}

constexpr int kDetailWidth = 20;

std::string trimmed(std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

void print_text(const std::vector<ComparedSweep>& sweeps, const ComparisonHeading& h, const NcclTestsLog* log) {
  std::string labels;
  for (const ComparedSweep& s : sweeps) {
    if (!labels.empty())
      labels += ", ";
    labels += s.label;
  }
  fmt::print("# chorus collective: {} on {}; algorithms {}; simulated under the {} model{}\n", to_string(h.kind),
             h.where, labels, h.model, log ? fmt::format("; measured: {}", log->source) : "");
  std::string names = fmt::format("{:<{}}", "#", std::string(kNcclTestsHeadPrefix).size());
  std::string head = kNcclTestsHeadPrefix;
  std::string unit = kNcclTestsUnitPrefix;
  for (const ComparedSweep& s : sweeps) {
    const int width = 19 + (has_details(s) ? kDetailWidth + 2 : 0);
    names += fmt::format("  {:<{}}", s.label, width - 2);
    head += fmt::format("  {:>10} {:>8}", "time", "busbw");
    unit += fmt::format("  {:>10} {:>8}", "(us)", "(GB/s)");
    if (has_details(s)) {
      head += fmt::format("  {:<{}}", "algo/proto/ch", kDetailWidth);
      unit += fmt::format("  {:<{}}", "", kDetailWidth);
    }
  }
  head += fmt::format("  {:>10}  {:<10}", "bound", "fastest");
  unit += fmt::format("  {:>10}  {:<10}", "(us)", "");
  if (log) {
    head += "  measured";
    unit += "    (GB/s)";
  }
  for (std::string* line : {&names, &head, &unit})
    fmt::print("{}\n", trimmed(*line));
  for (size_t k = 0; k < sweeps.front().sweep.points.size(); ++k) {
    const Collective& c = sweeps.front().sweep.points[k].collective;
    std::string row = nccl_tests_row_prefix(c);
    for (const ComparedSweep& s : sweeps) {
      const SweepPoint& p = s.sweep.points[k];
      row += fmt::format("  {} {}", nccl_tests_column(p.time_us(), 10), nccl_tests_column(p.busbw_GBps(), 8));
      if (has_details(s))
        row += fmt::format("  {:<{}}", detail_at(s, k), kDetailWidth);
    }
    const std::optional<double> bound = bound_us_at(sweeps, k);
    row += fmt::format("  {}  {:<10}", bound ? nccl_tests_column(*bound, 10) : fmt::format("{:>10}", "-"),
                       fastest_at(sweeps, k));
    if (log) {
      const std::optional<double> m = measured_busbw_at(log, c);
      row += m ? fmt::format("  {}", nccl_tests_column(*m, 8)) : fmt::format("  {:>8}", "-");
    }
    fmt::print("{}\n", trimmed(row));
  }
}

std::string number(double value) {
  return fmt::format("{:.6g}", value);
}

void print_csv(const std::vector<ComparedSweep>& sweeps, const NcclTestsLog* log) {
  std::vector<std::string> header = {"algorithm", "size_bytes", "count",      "type",     "redop", "root",
                                     "time_us",   "algbw_GBps", "busbw_GBps", "bound_us", "detail"};
  if (log)
    header.emplace_back("measured_busbw_GBps");
  std::cout << csv_row(header);
  for (const ComparedSweep& s : sweeps) {
    for (size_t k = 0; k < s.sweep.points.size(); ++k) {
      const SweepPoint& p = s.sweep.points[k];
      std::vector<std::string> row = {s.label};
      for (std::string& cell : nccl_tests_csv_prefix(p.collective))
        row.push_back(std::move(cell));
      const std::optional<double> bound = bound_us_at(sweeps, k);
      for (const std::string& value : {number(p.time_us()), number(p.algbw_GBps()), number(p.busbw_GBps()),
                                       bound ? number(*bound) : std::string(), detail_at(s, k)})
        row.push_back(value);
      if (log) {
        const std::optional<double> m = measured_busbw_at(log, p.collective);
        row.push_back(m ? number(*m) : std::string());
      }
      std::cout << csv_row(row);
    }
  }
}

void print_jsonl(const std::vector<ComparedSweep>& sweeps, const NcclTestsLog* log) {
  for (const ComparedSweep& s : sweeps) {
    for (size_t k = 0; k < s.sweep.points.size(); ++k) {
      const SweepPoint& p = s.sweep.points[k];
      nlohmann::json j;
      j["collective"] = to_string(p.collective.kind);
      j["size_bytes"] = p.collective.size.count();
      j["npus"] = p.collective.npus;
      j["algorithm"] = s.label;
      j["time_ns"] = p.result.time.picoseconds() / 1e3;
      j["algbw_GBps"] = p.algbw_GBps();
      j["busbw_GBps"] = p.busbw_GBps();
      const std::optional<double> bound = bound_us_at(sweeps, k);
      j["bound_ns"] = bound ? nlohmann::json(*bound * 1e3) : nlohmann::json(nullptr);
      if (!detail_at(s, k).empty())
        j["detail"] = detail_at(s, k);
      j["fastest"] = fastest_at(sweeps, k) == s.label;
      if (log) {
        const std::optional<double> m = measured_busbw_at(log, p.collective);
        j["measured_busbw_GBps"] = m ? nlohmann::json(*m) : nlohmann::json(nullptr);
      }
      std::cout << j.dump() << "\n";
    }
  }
}

}  // namespace

bool is_algorithm_comparison(const std::string& algorithm) {
  if (algorithm.find(',') == std::string::npos)
    return false;
  for (const std::string& part : split_commas(algorithm)) {
    if (part == "nccl" || part == "synth")
      return true;
  }
  return false;
}

std::vector<std::string> compared_algorithms(const std::string& algorithm) {
  std::vector<std::string> parts = split_commas(algorithm);
  std::set<std::string> seen;
  for (const std::string& part : parts) {
    if (part.empty())
      throw Error("", "--algorithm", fmt::format("'{}' has an empty entry; list the algorithms to compare", algorithm));
    if (part.starts_with(kMscclPrefix))
      throw Error("", "--algorithm",
                  fmt::format("'{}': an MSCCL XML algorithm fixes its own chunk size and is not swept; compare it "
                              "with --algorithm msccl:FILE --compare-synth at one size",
                              part));
    if (!seen.insert(part).second)
      throw Error("", "--algorithm", fmt::format("'{}' is listed twice", part));
  }
  return parts;
}

void print_algorithm_comparison(const std::vector<ComparedSweep>& sweeps, const ComparisonHeading& heading,
                                const SweepFlags& flags) {
  if (flags.csv && flags.jsonl)
    throw Error("", "--csv", "pick one of --csv and --jsonl");
  std::optional<NcclTestsLog> log;
  if (!flags.compare.empty())
    log = read_nccl_tests_log(flags.compare);
  const NcclTestsLog* measured = log ? &*log : nullptr;
  for (const SweepPoint& p : sweeps.front().sweep.points)
    measured_busbw_at(measured, p.collective);  // a row of another collective is refused before anything prints
  if (!flags.report.empty()) {
    std::vector<LabelledSweep> labelled;
    for (const ComparedSweep& s : sweeps)
      labelled.push_back({s.label, &s.sweep});
    const std::string title =
        fmt::format("chorus collective: {} on {}, algorithms compared", to_string(heading.kind), heading.where);
    write_output_file(flags.report, "--report", sweep_comparison_report_html(labelled, title, measured));
  }
  if (flags.jsonl)
    print_jsonl(sweeps, measured);
  else if (flags.csv)
    print_csv(sweeps, measured);
  else
    print_text(sweeps, heading, measured);
}

}  // namespace chorus::cli
