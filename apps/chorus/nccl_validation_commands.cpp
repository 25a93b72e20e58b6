// `chorus validate nccl` and `chorus calibrate nccl`: chorus's NCCL model held against measured nccl-tests runs.
//
//   chorus validate nccl [--dir validation/nccl] [--json]
//       every setup's error per size band, uncalibrated (the presets as documented) and leave-one-setup-out (the
//       model's scales fitted on the other setups), then the means and the worst setup
//   chorus calibrate nccl --log all_reduce_perf.log [--log all_gather:ag.log ...] --machine dgx-h100 --nodes 2
//       --out my-cluster.json
//       the machine's scales fitted to the logs, the fit's error and its leave-one-size-band-out error; the file is
//       a machine for `chorus collective --machine my-cluster.json --algorithm nccl`
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/nccl/calibrated_machine.hpp"
#include "chorus/nccl/fit.hpp"
#include "chorus/nccl/measurements.hpp"
#include "commands.hpp"

namespace chorus::cli {
namespace {

using nccl::MeasuredRun;
using nccl::Scales;

struct SetupReport {
  const MeasuredRun* run = nullptr;
  nccl::BandErrors uncalibrated;
  nccl::BandErrors held_out;  // scales fitted on the other setups
  Scales held_out_scales;
  std::string chosen;                         // the algorithms chorus picked, e.g. "Ring/LL, NVLS/Simple"
  std::vector<nccl::RowError> rows;           // uncalibrated, one per compared size
  std::vector<nccl::RowError> held_out_rows;  // with the held-out scales
};

std::string percent(double v, int rows) {
  return rows > 0 ? fmt::format("{:.1f}%", 100 * v) : "-";
}

std::string chosen_algorithms(const std::vector<nccl::RowError>& rows) {
  std::vector<std::string> names;
  for (const nccl::RowError& r : rows) {
    std::string name = fmt::format("{}/{}", r.algorithm, r.protocol);
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<SetupReport> evaluate(const std::vector<MeasuredRun>& runs) {
  std::vector<SetupReport> reports;
  for (size_t i = 0; i < runs.size(); ++i) {
    SetupReport r;
    r.run = &runs[i];
    const auto rows = nccl::compare(runs[i], {});
    r.uncalibrated = nccl::band_errors(rows);
    r.chosen = chosen_algorithms(rows);
    r.rows = rows;
    std::vector<MeasuredRun> others;
    for (size_t j = 0; j < runs.size(); ++j) {
      if (j != i)
        others.push_back(runs[j]);
    }
    r.held_out_scales = others.empty() ? Scales{} : nccl::fit_scales(others);
    r.held_out_rows = nccl::compare(runs[i], r.held_out_scales);
    r.held_out = nccl::band_errors(r.held_out_rows);
    reports.push_back(std::move(r));
  }
  return reports;
}

struct Means {
  double band[2] = {0, 0};
  int rows[2] = {0, 0};
  double worst = 0;  // the largest mean |error| of one setup, all its rows
  std::string worst_setup;
  double median = 0;  // the median setup's mean |error|, all its rows
  int within_25 = 0;  // setups whose mean |error| is at most 25 %
};

Means means(const std::vector<SetupReport>& reports, bool held_out) {
  Means m;
  std::vector<double> per_setup;
  for (const SetupReport& r : reports) {
    const nccl::BandErrors& e = held_out ? r.held_out : r.uncalibrated;
    double all = 0;
    int n = 0;
    for (int b = 0; b < 2; ++b) {
      m.band[b] += e.mean_abs[b] * e.rows[b];
      m.rows[b] += e.rows[b];
      all += e.mean_abs[b] * e.rows[b];
      n += e.rows[b];
    }
    if (n > 0 && all / n > m.worst) {
      m.worst = all / n;
      m.worst_setup = r.run->name;
    }
    if (n > 0)
      per_setup.push_back(all / n);
  }
  std::sort(per_setup.begin(), per_setup.end());
  if (!per_setup.empty()) {
    const size_t mid = per_setup.size() / 2;
    m.median = per_setup.size() % 2 == 1 ? per_setup[mid] : (per_setup[mid - 1] + per_setup[mid]) / 2;
  }
  m.within_25 = static_cast<int>(std::count_if(per_setup.begin(), per_setup.end(), [](double e) { return e <= 0.25; }));
  for (int b = 0; b < 2; ++b) {
    if (m.rows[b] > 0)
      m.band[b] /= m.rows[b];
  }
  return m;
}

nlohmann::ordered_json band_json(const nccl::BandErrors& e) {
  return {{"below_1MiB", e.rows[0] > 0 ? nlohmann::ordered_json(e.mean_abs[0]) : nlohmann::ordered_json(nullptr)},
          {"from_1MiB", e.rows[1] > 0 ? nlohmann::ordered_json(e.mean_abs[1]) : nlohmann::ordered_json(nullptr)},
          {"rows_below_1MiB", e.rows[0]},
          {"rows_from_1MiB", e.rows[1]}};
}

// Each compared size: measured and predicted bus bandwidth and time, uncalibrated and held out.
nlohmann::ordered_json rows_json(const SetupReport& r) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const nccl::RowError& u = r.rows[i];
    const nccl::RowError& h = r.held_out_rows[i];
    rows.push_back({{"bytes", u.size.count()},
                    {"measured_busbw_GBps", u.measured_busbw},
                    {"measured_time_us", u.measured_time_us},
                    {"busbw_GBps", u.predicted_busbw},
                    {"time_us", u.predicted_time_us},
                    {"algorithm", u.algorithm},
                    {"protocol", u.protocol},
                    {"held_out_busbw_GBps", h.predicted_busbw}});
  }
  return rows;
}

nlohmann::ordered_json means_json(const Means& m) {
  return {{"below_1MiB", m.band[0]},      {"from_1MiB", m.band[1]},
          {"median_setup", m.median},     {"setups_within_25_percent", m.within_25},
          {"worst_setup", m.worst_setup}, {"worst", m.worst}};
}

void print_validation(const std::string& dir, const std::vector<SetupReport>& reports) {
  fmt::print("chorus's NCCL model against measured nccl-tests runs ({}: {} setups)\n", dir, reports.size());
  fmt::print(
      "mean |busbw error| per setup; uncalibrated: presets as documented; held out: scales fitted on the "
      "other setups\n\n");
  fmt::print("{:<44} {:<12} {:>5} {:<15} {:>9} {:>9} {:>9} {:>9}  {}\n", "setup", "machine", "nodes", "collective",
             "<1MiB", ">=1MiB", "held<1M", "held>=1M", "chosen");
  for (const SetupReport& r : reports) {
    const MeasuredRun& run = *r.run;
    fmt::print("{:<44} {:<12} {:>5} {:<15} {:>9} {:>9} {:>9} {:>9}  {}{}\n", run.name, run.machine->name, run.nodes,
               to_string(run.kind), percent(r.uncalibrated.mean_abs[0], r.uncalibrated.rows[0]),
               percent(r.uncalibrated.mean_abs[1], r.uncalibrated.rows[1]),
               percent(r.held_out.mean_abs[0], r.held_out.rows[0]), percent(r.held_out.mean_abs[1], r.held_out.rows[1]),
               r.chosen, run.forced_algorithm.empty() ? "" : " (NCCL_ALGO=" + run.forced_algorithm + ")");
  }
  const Means u = means(reports, false);
  const Means h = means(reports, true);
  for (const auto& [name, m] : {std::pair{"uncalibrated", u}, std::pair{"held out", h}}) {
    fmt::print(
        "\n{:<13} mean over rows {:.1f}% below 1 MiB, {:.1f}% from 1 MiB; median setup {:.1f}%; {} of {} setups "
        "within 25%; worst setup {:.1f}% ({})",
        name, 100 * m.band[0], 100 * m.band[1], 100 * m.median, m.within_25, reports.size(), 100 * m.worst,
        m.worst_setup);
  }
  fmt::print("\n");
}

struct ValidateOptions {
  std::string dir = "validation/nccl";
  bool json = false;
};

void run_validate(const ValidateOptions& o) {
  const std::vector<MeasuredRun> runs = nccl::read_validation_set(o.dir);
  const std::vector<SetupReport> reports = evaluate(runs);
  if (!o.json) {
    print_validation(o.dir, reports);
    return;
  }
  nlohmann::ordered_json doc;
  doc["dir"] = o.dir;
  nlohmann::ordered_json setups = nlohmann::ordered_json::array();
  for (const SetupReport& r : reports) {
    setups.push_back({{"setup", r.run->name},
                      {"machine", r.run->machine->name},
                      {"nodes", r.run->nodes},
                      {"collective", to_string(r.run->kind)},
                      {"source", r.run->source},
                      {"uncalibrated", band_json(r.uncalibrated)},
                      {"held_out", band_json(r.held_out)},
                      {"chosen", r.chosen},
                      {"rows", rows_json(r)}});
  }
  doc["setups"] = std::move(setups);
  doc["uncalibrated"] = means_json(means(reports, false));
  doc["held_out"] = means_json(means(reports, true));
  fmt::print("{}\n", doc.dump());
}

struct CalibrateOptions {
  std::vector<std::string> logs;
  std::string machine;
  uint32_t nodes = 1;
  std::string out;
};

// The size bands a calibration leaves out one at a time.
int fit_band(Bytes size) {
  const int64_t b = size.count();
  return b < (int64_t{64} << 10) ? 0 : b < (int64_t{1} << 20) ? 1 : b < (int64_t{64} << 20) ? 2 : 3;
}
constexpr const char* kFitBands[] = {"< 64 KiB", "64 KiB - 1 MiB", "1 MiB - 64 MiB", ">= 64 MiB"};

MeasuredRun read_log_argument(const std::string& arg, const machine::Machine& m, uint32_t nodes) {
  const auto colon = arg.find(':');
  if (colon != std::string::npos && colon > 0) {
    if (const auto kind = parse_collective_kind(arg.substr(0, colon)))
      return nccl::read_measured_log(arg.substr(colon + 1), m, nodes, kind);
  }
  return nccl::read_measured_log(arg, m, nodes, std::nullopt);
}

void run_calibrate(const CalibrateOptions& o) {
  const nccl::CalibratedMachine base = nccl::resolve_machine(o.machine, "machine");
  (void)nccl::comm_system(*base.machine, o.nodes);  // checks the machine and --nodes before reading logs
  std::vector<MeasuredRun> runs;
  for (const std::string& arg : o.logs)
    runs.push_back(read_log_argument(arg, *base.machine, o.nodes));
  const Scales fitted = nccl::fit_scales(runs);
  const double before = nccl::mean_abs_error(runs, {});
  const double after = nccl::mean_abs_error(runs, fitted);
  fmt::print("calibrating {} x {} node{} on {} log{} ({} cost model)\n", base.machine->name, o.nodes,
             o.nodes == 1 ? "" : "s", runs.size(), runs.size() == 1 ? "" : "s",
             nccl::comm_system(*base.machine, o.nodes).constants->library);
  fmt::print(
      "scales        intra-node bandwidth x{:.3f}, inter-node bandwidth x{:.3f}, latency x{:.3f}, overhead "
      "{:.2f} us per call\n",
      fitted.intra_bandwidth, fitted.inter_bandwidth, fitted.latency, fitted.overhead_us);
  fmt::print("mean |busbw error| over every row: {:.1f}% uncalibrated, {:.1f}% fitted\n", 100 * before, 100 * after);
  nlohmann::ordered_json held = nlohmann::ordered_json::object();
  fmt::print("leave one size band out (fit on the other bands, error on the band left out):\n");
  for (int band = 0; band < 4; ++band) {
    const auto train =
        nccl::filter_rows(runs, [&](const MeasuredRun&, const NcclTestsRow& r) { return fit_band(r.size) != band; });
    const auto test =
        nccl::filter_rows(runs, [&](const MeasuredRun&, const NcclTestsRow& r) { return fit_band(r.size) == band; });
    if (train.empty() || test.empty() || nccl::compare(test.front(), {}).empty())
      continue;
    const double e = nccl::mean_abs_error(test, nccl::fit_scales(train));
    fmt::print("  {:<16} {:.1f}%\n", kFitBands[band], 100 * e);
    held[kFitBands[band]] = e;
  }
  nlohmann::ordered_json logs = nlohmann::ordered_json::array();
  for (const MeasuredRun& r : runs)
    logs.push_back({{"log", r.name}, {"collective", to_string(r.kind)}, {"rows", r.log.rows.size()}});
  nlohmann::ordered_json fit{{"nodes", o.nodes},
                             {"logs", std::move(logs)},
                             {"mean_abs_busbw_error_uncalibrated", before},
                             {"mean_abs_busbw_error_fitted", after},
                             {"leave_one_size_band_out", std::move(held)}};
  write_output_file(o.out, Argument{"out"},
                    calibrated_machine_json(*base.machine, fitted, std::move(fit)).dump(2) + "\n");
  fmt::print("wrote {} (use it as --machine {} --algorithm nccl)\n", o.out, o.out);
}

}  // namespace

void register_validate_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("validate", "hold chorus's models against measured data (nccl)");
  cmd->require_subcommand(1);
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* nccl_cmd =
      cmd->add_subcommand("nccl", "NCCL/RCCL model against the measured nccl-tests runs of a validation set");
  nccl_cmd->add_option("--dir", options->dir, "the validation set: one directory per setup (default validation/nccl)");
  nccl_cmd->add_flag("--json", options->json, "print one JSON object");
  nccl_cmd->callback([options] { run_validate(*options); });
}

void register_calibrate_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("calibrate", "fit a machine's model to measured runs (nccl)");
  cmd->require_subcommand(1);
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* nccl_cmd = cmd->add_subcommand("nccl", "fit a machine's NCCL scales to nccl-tests logs; write a machine");
  nccl_cmd->add_option("--log", options->logs, "an nccl-tests log (KIND:FILE when it does not name its program)")
      ->required();
  nccl_cmd->add_option("--machine", options->machine, "the machine preset the logs were measured on")->required();
  nccl_cmd->add_option("--nodes", options->nodes, "nodes of the runs (default 1)");
  nccl_cmd->add_option("--out", options->out, "the calibrated machine JSON to write")->required();
  nccl_cmd->callback([options] { run_calibrate(*options); });
}

}  // namespace chorus::cli
