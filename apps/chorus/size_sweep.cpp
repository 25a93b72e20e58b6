// Size sweeps on the command line (see size_sweep.hpp).
#include "size_sweep.hpp"

#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/bound_request.hpp"
#include "chorus/collective/hierarchical.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/report/sweep_report.hpp"
#include "chorus/sim/collective_summary.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"
#include "chorus/sweep/size_range.hpp"

namespace chorus::cli {

namespace {

// A value in a column of `width` characters as nccl-tests prints it: two decimals while they fit, then fewer,
// then an exponent.
std::string column(double value, int width) {
  for (int decimals = 2; decimals >= 0; --decimals) {
    std::string text = fmt::format("{:>{}.{}f}", value, width, decimals);
    if (text.size() <= static_cast<size_t>(width))
      return text;
  }
  return fmt::format("{:>{}.1e}", value, width);
}

std::string optional_column(const std::optional<double>& value, int width) {
  return value ? column(*value, width) : fmt::format("{:>{}}", "-", width);
}

// nccl-tests' first five columns: size, count, type, redop, root.
std::string row_prefix(const Collective& c) {
  return fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", c.size.count(), nccl_count(c.kind, c.size, c.npus), "float",
                     nccl_redop(c.kind), nccl_root(c.kind));
}

std::vector<std::string> csv_prefix(const Collective& c) {
  return {std::to_string(c.size.count()), std::to_string(nccl_count(c.kind, c.size, c.npus)), "float",
          nccl_redop(c.kind), std::to_string(nccl_root(c.kind))};
}

std::string number(double value) {
  return fmt::format("{:.6g}", value);
}

std::string optional_number(const std::optional<double>& value) {
  return value ? number(*value) : "";
}

const char* const kHeadPrefix = kNcclTestsHeadPrefix;
const char* const kUnitPrefix = kNcclTestsUnitPrefix;

// ---- chorus collective --------------------------------------------------------------------------------------

// The measured times of one size, when --compare found it in the log.
struct Measured {
  double time_us = 0;
  std::optional<double> inplace_time_us;
  double busbw_GBps = 0;
  std::optional<double> inplace_busbw_GBps;
};

// Bytes per element of an nccl-tests type name; 0 for a name not known here (its count is then not checked).
int64_t element_bytes(std::string_view type) {
  if (type == "int8" || type == "uint8" || type == "char" || type == "f8e4m3" || type == "f8e5m2")
    return 1;
  if (type == "half" || type == "bfloat16" || type == "float16" || type == "bf16")
    return 2;
  if (type == "float" || type == "int32" || type == "uint32" || type == "int" || type == "float32")
    return 4;
  if (type == "double" || type == "int64" || type == "uint64" || type == "float64")
    return 8;
  return 0;
}

// The log's row of this collective's size, refused when its count or reduction operator shows another collective
// (an all_reduce log compared with an all_gather run would match by size only and report meaningless errors).
std::optional<Measured> measured_at(const NcclTestsLog* log, const Collective& c) {
  const NcclTestsRow* row = log ? log->find(c.size) : nullptr;
  if (row == nullptr)
    return std::nullopt;
  const int64_t element = element_bytes(row->type);
  const int64_t expected = element == 0 ? 0 : nccl_count(c.kind, c.size, c.npus) * 4 / element;
  const std::string redop = nccl_redop(c.kind);
  const bool redop_differs = !row->redop.empty() && (row->redop == "none") != (redop == "none");
  if ((element != 0 && row->count != expected) || redop_differs)
    throw Error(log->source, fmt::format("line {}", row->line),
                fmt::format("count {} ({}, redop {}) at {} B is not this collective's; --collective is {} on {} NPUs "
                            "(count {}, redop {})",
                            row->count, row->type, row->redop, c.size.count(), to_string(c.kind), c.npus,
                            element == 0 ? nccl_count(c.kind, c.size, c.npus) : expected, redop));
  Measured m{row->out_of_place.time_us, std::nullopt, row->out_of_place.busbw_GBps, std::nullopt};
  if (row->in_place) {
    m.inplace_time_us = row->in_place->time_us;
    m.inplace_busbw_GBps = row->in_place->busbw_GBps;
  }
  return m;
}

std::optional<Measured> measured_at(const std::optional<NcclTestsLog>& log, const Collective& c) {
  return measured_at(log ? &*log : nullptr, c);
}

// (simulated - measured) / measured, in percent.
std::optional<double> error_pct(const SweepPoint& p, const std::optional<Measured>& m) {
  if (!m || m->time_us <= 0)
    return std::nullopt;
  return (p.time_us() - m->time_us) / m->time_us * 100;
}

std::optional<double> bound_us(const SweepPoint& p) {
  return p.bound ? std::optional<double>(p.bound->bound.microseconds()) : std::nullopt;
}

// The algorithm a sweep ran: a synthesized sweep names itself, a built-in one through its plan.
std::string sweep_algorithm(const SizeSweep& sweep) {
  return sweep.algorithm.empty() ? algorithm_label(sweep.points.front().result.plan) : sweep.algorithm;
}

// The keys of `chorus collective --json`, for one size: the one collective summary (sim/collective_summary.hpp).
nlohmann::json point_json(const SweepPoint& p, const std::string& algorithm, const Topology& topology,
                          const SweepRequest& request) {
  CollectiveSummary s;
  s.kind = p.collective.kind;
  s.npus = topology.npu_count();
  s.topology = topology.name();
  s.algorithm = algorithm;
  s.model = request.options.model;
  s.size = p.collective.size;
  s.chunks = p.result.plan.chunks;
  s.transfers = p.result.transfers;
  s.evaluation = p.result.evaluation;
  s.time = p.result.time;
  s.wall_s = p.wall_s;
  if (p.bound)
    s.bound = p.bound->bound;
  else
    s.bound_note = "no bound for this topology";
  const CollectiveBandwidth bandwidth =
      collective_bandwidth(p.collective.kind, p.collective.size, topology.npu_count(), p.result.time);
  if (algorithm == "synth") {  // one synthesis per size: its schedule's time, the synthesis' own bound
    s.synthesized = CollectiveSummary::Synthesized{0, Time::zero(), bandwidth};
    nlohmann::json j = to_json(s);
    j.erase("chunks_per_npu");
    j.erase("synth_estimate_ns");
    return j;
  }
  s.native = CollectiveSummary::Native{request.options.plan.overheads.astra.enabled(), bandwidth,
                                       p.bound ? p.bound->bandwidth_bound : Time::zero(),
                                       p.bound ? p.bound->latency_bound : Time::zero(), p.result.events};
  return to_json(s);
}

void add_measured_json(nlohmann::json& j, const SweepPoint& p, const std::optional<Measured>& m) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j["measured_time_us"] = m ? nlohmann::json(m->time_us) : nlohmann::json(nullptr);
  j["measured_inplace_time_us"] = m ? optional(m->inplace_time_us) : nullptr;
  j["measured_busbw_GBps"] = m ? nlohmann::json(m->busbw_GBps) : nlohmann::json(nullptr);
  j["error_pct"] = optional(error_pct(p, m));
}

void print_collective_text(const SizeSweep& sweep, const Topology& topology, const SweepRequest& request,
                           const std::optional<NcclTestsLog>& log) {
  fmt::print("# chorus collective: {} on {} ({} NPUs), algorithm {}, {} model{}\n", to_string(request.kind),
             topology.name(), topology.npu_count(), sweep_algorithm(sweep), to_string(request.options.model),
             log ? fmt::format(", measured: {}", log->source) : "");
  fmt::print("#\n");
  if (log) {
    fmt::print("{}  measured  in-place   busbw  simulated   busbw    bound   error\n", kHeadPrefix);
    fmt::print("{}         (us)     (us)  (GB/s)       (us)  (GB/s)     (us)     (%)\n", kUnitPrefix);
  } else {
    fmt::print("{}     time   algbw   busbw    bound  time/bound\n", kHeadPrefix);
    fmt::print("{}       (us)  (GB/s)  (GB/s)     (us)\n", kUnitPrefix);
  }
  double busbw_sum = 0;
  for (const SweepPoint& p : sweep.points) {
    busbw_sum += p.busbw_GBps();
    if (log) {
      const std::optional<Measured> m = measured_at(log, p.collective);
      fmt::print("{}  {}  {}  {}  {}  {}  {}  {}\n", row_prefix(p.collective),
                 optional_column(m ? std::optional(m->time_us) : std::nullopt, 8),
                 optional_column(m ? m->inplace_time_us : std::nullopt, 7),
                 optional_column(m ? std::optional(m->busbw_GBps) : std::nullopt, 6), column(p.time_us(), 9),
                 column(p.busbw_GBps(), 6), optional_column(bound_us(p), 7), optional_column(error_pct(p, m), 6));
    } else {
      fmt::print("{}  {}  {}  {}  {}  {}\n", row_prefix(p.collective), column(p.time_us(), 7),
                 column(p.algbw_GBps(), 6), column(p.busbw_GBps(), 6), optional_column(bound_us(p), 7),
                 optional_column(p.ratio(), 10));
    }
  }
  fmt::print("# Avg bus bandwidth    : {:.3f} GB/s (simulated)\n",
             busbw_sum / static_cast<double>(sweep.points.size()));
}

// Lines that judge the numbers: simulated times below the bound, measured times below the bound, sizes of the
// log that the sweep did not simulate.
void print_judgements(const SizeSweep& sweep, const SweepRequest& request, const std::optional<NcclTestsLog>& log) {
  size_t below = 0;
  size_t measured_below = 0;
  size_t matched = 0;
  for (const SweepPoint& p : sweep.points) {
    if (p.bound && !physically_feasible(p.result.time, p.bound->bound))
      ++below;
    const std::optional<Measured> m = measured_at(log, p.collective);
    matched += m.has_value();
    if (m && p.bound && m->time_us * 1e6 < static_cast<double>(p.bound->bound.picoseconds()))
      ++measured_below;
  }
  if (below > 0) {
    fmt::print("# warning: {} of {} simulated times are below the lower bound{}\n", below, sweep.points.size(),
               request.options.model == NetworkModelKind::Unaware
                   ? " (the unaware model ignores contention; use --model flow for feasible times)"
                   : "");
  }
  if (measured_below > 0) {
    fmt::print(
        "# warning: {} measured times are below the lower bound of this topology: its links are slower than "
        "the measured system's (check --bandwidth / --latency)\n",
        measured_below);
  }
  if (log && matched == 0) {
    fmt::print("# warning: no size of the sweep is in {}; its sizes run from {} to {} bytes\n", log->source,
               log->rows.front().size.count(), log->rows.back().size.count());
  }
}

void print_collective_csv(const SizeSweep& sweep, const std::optional<NcclTestsLog>& log) {
  std::vector<std::string> header = {"size_bytes", "count",      "type",       "redop",    "root",
                                     "time_us",    "algbw_GBps", "busbw_GBps", "bound_us", "ratio"};
  if (log) {
    for (const char* name : {"measured_time_us", "measured_inplace_time_us", "measured_busbw_GBps",
                             "measured_inplace_busbw_GBps", "error_pct"})
      header.emplace_back(name);
  }
  std::cout << csv_row(header);
  for (const SweepPoint& p : sweep.points) {
    std::vector<std::string> row = csv_prefix(p.collective);
    for (const std::string& value : {number(p.time_us()), number(p.algbw_GBps()), number(p.busbw_GBps()),
                                     optional_number(bound_us(p)), optional_number(p.ratio())})
      row.push_back(value);
    if (log) {
      const std::optional<Measured> m = measured_at(log, p.collective);
      for (const std::string& value :
           {optional_number(m ? std::optional(m->time_us) : std::nullopt),
            optional_number(m ? m->inplace_time_us : std::nullopt),
            optional_number(m ? std::optional(m->busbw_GBps) : std::nullopt),
            optional_number(m ? m->inplace_busbw_GBps : std::nullopt), optional_number(error_pct(p, m))})
        row.push_back(value);
    }
    std::cout << csv_row(row);
  }
}

// ---- chorus bound -------------------------------------------------------------------------------------------

double bound_algbw(const LowerBound& b) {
  return b.bound > Time::zero() ? static_cast<double>(b.size.count()) / b.bound.seconds() / 1e9 : 0;
}

void print_bound_text(const std::vector<LowerBound>& bounds, const Topology& topology) {
  fmt::print("# chorus bound: {} on {} ({} NPUs), method {}\n#\n", to_string(bounds.front().collective),
             topology.name(), topology.npu_count(), to_string(bounds.front().method));
  fmt::print("{}    bound   algbw   busbw  bandwidth  latency\n", kHeadPrefix);
  fmt::print("{}       (us)  (GB/s)  (GB/s)       (us)     (us)\n", kUnitPrefix);
  for (const LowerBound& b : bounds) {
    const Collective c{b.collective, b.size, b.npus};
    const double algbw = bound_algbw(b);
    fmt::print("{}  {}  {}  {}  {}  {}\n", row_prefix(c), column(b.bound.microseconds(), 7), column(algbw, 6),
               column(algbw * bus_factor(b.collective, b.npus), 6), column(b.bandwidth_bound.microseconds(), 9),
               column(b.latency_bound.microseconds(), 7));
  }
}

void print_bound_csv(const std::vector<LowerBound>& bounds) {
  std::cout << csv_row({"size_bytes", "count", "type", "redop", "root", "bound_us", "algbw_GBps", "busbw_GBps",
                        "bandwidth_bound_us", "latency_bound_us"});
  for (const LowerBound& b : bounds) {
    std::vector<std::string> row = csv_prefix(Collective{b.collective, b.size, b.npus});
    const double algbw = bound_algbw(b);
    for (const std::string& value :
         {number(b.bound.microseconds()), number(algbw), number(algbw * bus_factor(b.collective, b.npus)),
          number(b.bandwidth_bound.microseconds()), number(b.latency_bound.microseconds())})
      row.push_back(value);
    std::cout << csv_row(row);
  }
}

void refuse_two_formats(const SweepFlags& flags) {
  if (flags.csv && flags.jsonl)
    throw Error("", "--csv", "pick one of --csv and --jsonl");
}

}  // namespace

std::string nccl_tests_column(double value, int width) {
  return column(value, width);
}

std::string nccl_tests_row_prefix(const Collective& c) {
  return row_prefix(c);
}

std::vector<std::string> nccl_tests_csv_prefix(const Collective& c) {
  return csv_prefix(c);
}

std::optional<double> measured_busbw_at(const NcclTestsLog* log, const Collective& c) {
  if (log == nullptr)
    return std::nullopt;
  const std::optional<Measured> m = measured_at(log, c);
  return m ? std::optional(m->busbw_GBps) : std::nullopt;
}

void add_sweep_flags(CLI::App& command, SweepFlags& flags, bool with_compare) {
  command.add_flag("--csv", flags.csv, "print the sweep as CSV (one row per size)");
  command.add_flag("--jsonl", flags.jsonl, "print one JSON object per size (the keys of --json)");
  if (with_compare) {
    command.add_option("--compare", flags.compare,
                       "an nccl-tests output log (all_reduce_perf ...): measured times beside the simulated ones");
  }
  command.add_option("--report", flags.report, "write an HTML chart of the sweep (busbw and time against size)");
}

bool sweep_requested(const std::string& size_text, const SweepFlags& flags) {
  return is_size_range(size_text) || flags.csv || flags.jsonl || !flags.compare.empty() || !flags.report.empty();
}

void refuse_single_run_flags(bool json, bool link_stats) {
  if (json)
    throw Error("", "--json", "prints one object; a size sweep prints one object per size with --jsonl");
  if (link_stats)
    throw Error("", "--link-stats", "writes one run's links; give a single --size");
}

void run_collective_sweep(const Topology& topology, const SweepRequest& request, const SweepFlags& flags) {
  refuse_two_formats(flags);
  print_collective_sweep(topology, request, run_size_sweep(topology, request), flags);
}

void print_collective_sweep(const Topology& topology, const SweepRequest& request, const SizeSweep& sweep,
                            const SweepFlags& flags) {
  refuse_two_formats(flags);
  std::optional<NcclTestsLog> log;
  if (!flags.compare.empty())
    log = read_nccl_tests_log(flags.compare);
  for (const SweepPoint& p : sweep.points)
    measured_at(log, p.collective);  // a row of another collective is refused before anything is printed
  if (!flags.report.empty()) {
    const std::string title =
        fmt::format("chorus collective: {} on {} ({} NPUs), algorithm {}, {} model", to_string(request.kind),
                    topology.name(), topology.npu_count(), sweep_algorithm(sweep), to_string(request.options.model));
    write_output_file(flags.report, "--report", sweep_report_html(sweep, title, log ? &*log : nullptr));
  }
  if (flags.jsonl) {
    for (const SweepPoint& p : sweep.points) {
      nlohmann::json j = point_json(p, sweep_algorithm(sweep), topology, request);
      if (log)
        add_measured_json(j, p, measured_at(log, p.collective));
      std::cout << j.dump() << "\n";
    }
  } else if (flags.csv) {
    print_collective_csv(sweep, log);
  } else {
    print_collective_text(sweep, topology, request, log);
    print_judgements(sweep, request, log);
  }
}

void run_bound_sweep(const Topology& topology, CollectiveKind kind, const std::vector<Bytes>& sizes,
                     const BoundOptions& options, const SweepFlags& flags) {
  refuse_two_formats(flags);
  std::vector<LowerBound> bounds;
  const LowerBound reference = lower_bound(topology, Collective{kind, sizes.front(), topology.npu_count()}, options);
  for (const Bytes size : sizes)
    bounds.push_back(bounds.empty() ? reference : lower_bound_at_size(reference, size));
  if (!flags.report.empty()) {
    const std::string title =
        fmt::format("chorus bound: {} on {} ({} NPUs)", to_string(kind), topology.name(), topology.npu_count());
    write_output_file(flags.report, "--report", bound_sweep_report_html(bounds, title));
  }
  if (flags.jsonl) {
    for (const LowerBound& b : bounds)
      std::cout << bound_record(b, topology.name()).dump() << "\n";
  } else if (flags.csv) {
    print_bound_csv(bounds);
  } else {
    print_bound_text(bounds, topology);
  }
}

}  // namespace chorus::cli
