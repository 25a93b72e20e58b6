// `chorus hlo`: XLA HLO modules, costed per instruction on a system.
//
//   chorus hlo analyze MODULE.hlo.txt --system tpuv3 [--npus 64] [--iterations N] [--json | --csv ops.csv]
//                      [--network net.yml | --topology SPEC --bandwidth B --latency L]
//                      [--collective-system astra_system.json] [--model unaware|aware|flow]
//   chorus hlo convert MODULE.hlo.txt --system tpuv3 --npus 64 --out traces/dlrm [--iterations N] [network options]
//   chorus hlo validate PROFILE.csv [--system tpuv3] [--json]   (XLA TPU op profile: FLOPs and times vs measured)
//   chorus hlo calibrate PROFILE.csv [PROFILE.csv ...] [--system tpuv3] [--out fitted.json] [--json]
//                        (efficiencies and per-op overhead fitted to the profiles; leave-one-profile-out)
// --system takes a preset name (tpuv3, tpuv4, a100, h100) or a JSON system file; see docs/hlo.md.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/astra/system_config.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/calibration.hpp"
#include "chorus/hlo/chakra_export.hpp"
#include "chorus/hlo/parser.hpp"
#include "chorus/hlo/report.hpp"
#include "chorus/hlo/validation.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/sim/collective_run.hpp"
#include "collectives_option.hpp"
#include "commands.hpp"
#include "topology_options.hpp"

namespace chorus::cli {
namespace {

// Where the collectives are timed: a physical network through the collective layer, or (none given) the
// system preset's ring formulas.
struct NetworkOptions {
  TopologyOptions topology;
  std::string collective_system;
  std::string model;
  std::string collectives;  // simulated | nccl | synth (collectives_option.hpp)
};

void add_network_options(CLI::App& command, NetworkOptions& o) {
  add_topology_options(command, o.topology);
  command.add_option("--collective-system", o.collective_system,
                     "ASTRA-sim system JSON: the collective algorithms, chunking and overheads (needs a network)");
  command.add_option("--model", o.model, "network model for collectives: unaware (default) | aware | flow | packet");
  add_collectives_option(command, o.collectives);
}

std::unique_ptr<hlo::CollectiveNetwork> make_network(const NetworkOptions& o) {
  if (o.topology.network.empty() && o.topology.topology.empty() && o.topology.machine.empty()) {
    for (const auto& [flag, value] :
         {std::pair{"--collective-system", &o.collective_system}, std::pair{"--model", &o.model},
          std::pair{"--collectives", &o.collectives}, std::pair{"--bandwidth", &o.topology.bandwidth},
          std::pair{"--latency", &o.topology.latency}})
      if (!value->empty())
        throw Error("", flag, "applies only with --network FILE.yml, --topology SPEC or --machine NAME");
    return nullptr;
  }
  const std::optional<NetworkModelKind> model = network_model_argument(o.model.empty() ? "unaware" : o.model);
  TopologyOptions topology_options = o.topology;
  const std::optional<nccl::NcclContext> nccl_context =
      resolve_collectives(o.collectives, topology_options, "--collective-system", !o.collective_system.empty());
  std::optional<AstraSystemConfig> system;
  if (!o.collective_system.empty())
    system = load_astra_system(o.collective_system);
  Topology topology = make_topology(topology_options);
  const std::string name = !o.topology.network.empty()    ? o.topology.network
                           : !o.topology.topology.empty() ? o.topology.topology
                                                          : topology.name();
  return std::make_unique<hlo::CollectiveNetwork>(std::move(topology), name, *model, std::move(system), nccl_context,
                                                  o.collectives == "synth");
}

void warn_below_bound(const hlo::Module& module, const hlo::Analysis& a) {
  for (const hlo::InstructionReport& r : a.instructions)
    if (r.below_bound)
      fmt::print(
          stderr, "warning: %{} takes {:.3f} us, below its physical lower bound {:.3f} us\n",
          module.computations[static_cast<size_t>(r.computation)].instructions[static_cast<size_t>(r.index)].name,
          r.time_s * 1e6, r.lower_bound_s * 1e6);
}

struct AnalyzeOptions {
  std::string module;
  std::string system = "tpuv3";
  int npus = 0;
  int iterations = 1;
  bool json = false;
  std::string csv;
  NetworkOptions network;
};

// What analyze and convert share: the system, the network, the module (its warnings printed) and its analysis
// (collectives below their physical lower bound warned about).
struct ModuleAnalysis {
  hlo::System system;
  hlo::Module module;
  hlo::Analysis analysis;
};

ModuleAnalysis analyze_module(const std::string& path, const std::string& system_name, const NetworkOptions& options,
                              int npus, int iterations) {
  hlo::System system = hlo::load_system(system_name);
  const std::unique_ptr<hlo::CollectiveNetwork> network = make_network(options);
  hlo::Module module = hlo::read_module(path);
  for (const std::string& w : module.warnings)
    fmt::print(stderr, "warning: {}\n", w);
  hlo::Analysis a = hlo::analyze(module, system, {.npus = npus, .iterations = iterations, .network = network.get()});
  warn_below_bound(module, a);
  return {std::move(system), std::move(module), std::move(a)};
}

void run_analyze(const AnalyzeOptions& o) {
  if (o.npus < 0)
    throw Error("--npus", "", fmt::format("is {}; must be >= 0", o.npus));
  if (o.iterations < 1)
    throw Error("--iterations", "", fmt::format("is {}; must be >= 1", o.iterations));
  const ModuleAnalysis m = analyze_module(o.module, o.system, o.network, o.npus, o.iterations);
  if (!o.csv.empty()) {
    write_output_file(o.csv, Argument{"csv"},
                      hlo::analysis_csv(m.module, m.analysis));  // gzip when the name ends in .gz
  }
  if (o.json)
    fmt::print("{}\n", hlo::analysis_to_json(m.module, m.system, m.analysis).dump(1));
  else if (o.csv.empty())
    fmt::print("{}", hlo::analysis_table(m.module, m.system, m.analysis));
}

struct ConvertOptions {
  std::string module;
  std::string system = "tpuv3";
  int npus = 0;
  int iterations = 1;
  std::string out;
  bool gzip = false;
  NetworkOptions network;
};

void run_convert(const ConvertOptions& o) {
  if (o.npus < 1)
    throw Error("--npus", "", fmt::format("is {}; must be >= 1", o.npus));
  if (static_cast<uint64_t>(o.npus) > limits::kMaxGeneratedNpus)  // one rank file each, checked before any is written
    throw Error("--npus", "",
                fmt::format("is {}; must be at most {} (kMaxGeneratedNpus)", o.npus, limits::kMaxGeneratedNpus));
  if (o.iterations < 0)
    throw Error("--iterations", "", fmt::format("is {}; must be >= 0", o.iterations));
  const ModuleAnalysis m = analyze_module(o.module, o.system, o.network, o.npus, std::max(1, o.iterations));
  const std::string prefix = hlo::write_chakra_traces(m.module, m.analysis, o.out,
                                                      {.npus = o.npus, .iterations = o.iterations, .gzip = o.gzip});
  fmt::print("wrote {}.<0..{}>.et and {}/comm_groups.json\n", prefix, o.npus - 1, o.out);
}

struct ValidateOptions {
  std::string profile;
  std::string system = "tpuv3";
  bool json = false;
};

void run_validate(const ValidateOptions& o) {
  const hlo::System system = hlo::load_system(o.system);
  const hlo::ProfileValidation v = hlo::validate_profile(hlo::read_op_profile(o.profile), system, o.profile);
  if (o.json) {
    nlohmann::json j = {{"profile", o.profile},
                        {"system", system.name},
                        {"ops", v.ops},
                        {"fusions_not_rebuilt", v.fusions},
                        {"unparsed", v.unparsed},
                        {"assumed_reducers", v.assumed_reducers},
                        {"collectives", v.collectives},
                        {"flop_checked", v.flop_checked},
                        {"flop_within_2pct", v.flop_within_2pct},
                        {"flop_nonzero", v.flop_nonzero},
                        {"flop_nonzero_within_2pct", v.flop_nonzero_within_2pct},
                        {"rows", nlohmann::json::array()}};
    for (const hlo::ValidationRow& r : v.rows)
      j["rows"].push_back({{"row", r.row},
                           {"name", r.name},
                           {"opcode", r.opcode},
                           {"category", r.category},
                           {"measured_flops", r.measured_flops},
                           {"predicted_flops", r.predicted_flops},
                           {"measured_time_ns", r.measured_time_s * 1e9},
                           {"predicted_time_ns", r.predicted_time_s * 1e9},
                           {"measured_bound", r.measured_bound},
                           {"predicted_bound", r.predicted_bound}});
    fmt::print("{}\n", j.dump(1));
    return;
  }
  fmt::print(
      "{}: {} ops; {} fusions not rebuilt (bodies absent), {} lines not whole instructions, {} reducers not in the "
      "profile (taken as scalar adds)\n",
      o.profile, v.ops, v.fusions, v.unparsed, v.assumed_reducers);
  fmt::print("{:<32} {:<22} {:>14} {:>14} {:>12} {:>12} {:<8} {:<8}\n", "op", "category", "FLOPs meas.", "FLOPs pred.",
             "time meas.us", "time pred.us", "bound m.", "bound p.");
  for (const hlo::ValidationRow& r : v.rows)
    fmt::print("{:<32} {:<22} {:>14.0f} {:>14.0f} {:>12.3f} {:>12.3f} {:<8} {:<8}\n", r.name, r.category,
               r.measured_flops, r.predicted_flops, r.measured_time_s * 1e6, r.predicted_time_s * 1e6, r.measured_bound,
               r.predicted_bound);
  fmt::print("FLOPs within 2%: {} of {} rebuilt non-collective ops ({} of {} with nonzero FLOPs); {} collectives\n",
             v.flop_within_2pct, v.flop_checked, v.flop_nonzero_within_2pct, v.flop_nonzero, v.collectives);
}

struct CalibrateOptions {
  std::vector<std::string> profiles;
  std::string system = "tpuv3";
  std::string out;
  bool json = false;
};

nlohmann::json fit_json(const hlo::OpTimeFit& f) {
  return {{"efficiency", {{"matrix", f.matrix}, {"memory", f.memory}, {"vector", f.vector}}},
          {"op_overhead_s", f.op_overhead},
          {"ops", f.ops},
          {"error", f.error}};
}

void run_calibrate(const CalibrateOptions& o) {
  const hlo::System system = hlo::load_system(o.system);
  std::vector<hlo::ProfileValidation> validations;
  for (const std::string& path : o.profiles) {
    validations.push_back(hlo::validate_profile(hlo::read_op_profile(path), system, path));
    if (std::none_of(validations.back().rows.begin(), validations.back().rows.end(), hlo::fits_row))
      throw Error(path, "HLO op", "no row rebuilds into a non-collective op with a measured time; nothing to fit");
  }
  std::vector<const hlo::ProfileValidation*> all;
  for (const auto& v : validations)
    all.push_back(&v);
  hlo::OpTimeFit before = hlo::fit_of(system);
  const hlo::OpTimeFit fitted = hlo::fit_op_times(all);
  before.ops = fitted.ops;
  before.error = hlo::op_time_error(all, before);
  // Leave one profile out: fitted on the others, scored on this one (empty for a single profile).
  const std::vector<hlo::LeftOutProfile> left_out = hlo::leave_one_profile_out(all);
  if (!o.out.empty())
    write_output_file(o.out, Argument{"out"}, hlo::system_json(hlo::with_fit(system, fitted)));
  if (o.json) {
    nlohmann::json j = {{"system", system.name}, {"before", fit_json(before)}, {"fitted", fit_json(fitted)}};
    j["profiles"] = nlohmann::json::array();
    for (size_t i = 0; i < validations.size(); ++i) {
      const hlo::ProfileValidation& v = validations[i];
      const auto n = std::count_if(v.rows.begin(), v.rows.end(), hlo::fits_row);
      nlohmann::json p = {{"profile", v.name},
                          {"ops_fitted", n},
                          {"aggregate_ratio_before", hlo::aggregate_ratio(v, before)},
                          {"aggregate_ratio_fitted", hlo::aggregate_ratio(v, fitted)},
                          {"aggregate_ratio_leave_one_out", nullptr},
                          {"leave_one_out_fit", nullptr}};
      if (i < left_out.size()) {
        p["aggregate_ratio_leave_one_out"] = left_out[i].ratio;
        p["leave_one_out_fit"] = fit_json(left_out[i].fit);
      }
      j["profiles"].push_back(std::move(p));
    }
    fmt::print("{}\n", j.dump(1));
    return;
  }
  fmt::print("fit over {} rebuilt non-collective ops (collectives left out: the profiles ran them inside one host)\n",
             fitted.ops);
  fmt::print("{:<10} {:>8} {:>8} {:>8} {:>14} {:>10}\n", "", "matrix", "memory", "vector", "op overhead us", "error");
  fmt::print("{:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>14.3f} {:>10.4f}\n", "before", before.matrix, before.memory,
             before.vector, before.op_overhead * 1e6, before.error);
  fmt::print("{:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>14.3f} {:>10.4f}\n", "fitted", fitted.matrix, fitted.memory,
             fitted.vector, fitted.op_overhead * 1e6, fitted.error);
  fmt::print("aggregate predicted / measured time over the rebuilt non-collective ops:\n");
  size_t width = 48;  // the profile column: wide enough for the longest path given
  for (const auto& v : validations)
    width = std::max(width, v.name.size());
  fmt::print("{:<{}} {:>5} {:>8} {:>8} {:>14}\n", "profile", width, "ops", "before", "fitted", "leave-one-out");
  for (size_t i = 0; i < validations.size(); ++i) {
    const hlo::ProfileValidation& v = validations[i];
    const auto n = std::count_if(v.rows.begin(), v.rows.end(), hlo::fits_row);
    fmt::print("{:<{}} {:>5} {:>8.3f} {:>8.3f} {:>14}\n", v.name, width, n, hlo::aggregate_ratio(v, before),
               hlo::aggregate_ratio(v, fitted),
               i < left_out.size() ? fmt::format("{:.3f}", left_out[i].ratio) : std::string("-"));
  }
  if (!o.out.empty())
    fmt::print("wrote {}\n", o.out);
}

}  // namespace

void register_hlo_command(CLI::App& app) {
  auto* hlo = app.add_subcommand("hlo", "XLA HLO modules: parse and cost compiled programs");
  hlo->require_subcommand(1);

  auto opts = std::make_shared<AnalyzeOptions>();
  auto* analyze = hlo->add_subcommand("analyze", "per-instruction FLOPs, bytes, bound and time; critical paths");
  analyze->add_option("module", opts->module, "HLO text file (as XLA prints it)")->required();
  analyze->add_option("--system", opts->system, "preset (tpuv3, tpuv4, a100, h100) or system JSON")
      ->capture_default_str();
  analyze->add_option("--npus", opts->npus, "replicas (replica_groups={} means all; ids are checked against it)");
  analyze->add_option("--iterations", opts->iterations, "trips of while loops whose count is not stated")
      ->capture_default_str();
  analyze->add_flag("--json", opts->json, "print one JSON object (instructions, computations, collectives)");
  analyze->add_option("--csv", opts->csv, "write the per-instruction rows to this CSV file");
  add_network_options(*analyze, opts->network);
  analyze->callback([opts] { run_analyze(*opts); });

  auto copts = std::make_shared<ConvertOptions>();
  auto* convert = hlo->add_subcommand("convert", "write Chakra traces, one per replica, for chorus sim");
  convert->add_option("module", copts->module, "HLO text file")->required();
  convert->add_option("--system", copts->system, "preset or system JSON")->capture_default_str();
  convert->add_option("--npus", copts->npus, "replicas (one trace each)")->required();
  convert->add_option("--out", copts->out, "output directory (hlo.<rank>.et, comm_groups.json)")->required();
  convert->add_option("--iterations", copts->iterations, "while-loop unrolling (0: one summary node per loop)")
      ->capture_default_str();
  convert->add_flag("--gzip", copts->gzip, "gzip the trace files");
  add_network_options(*convert, copts->network);
  convert->callback([copts] { run_convert(*copts); });

  auto vopts = std::make_shared<ValidateOptions>();
  auto* validate = hlo->add_subcommand("validate", "compare FLOPs and times with an XLA TPU op profile (CSV export)");
  validate->add_option("profile", vopts->profile, "op profile CSV (columns: HLO op, Avg. self time (us), ...)")
      ->required();
  validate->add_option("--system", vopts->system, "preset or system JSON")->capture_default_str();
  validate->add_flag("--json", vopts->json, "print the comparison as JSON");
  validate->callback([vopts] { run_validate(*vopts); });

  auto kopts = std::make_shared<CalibrateOptions>();
  auto* calibrate = hlo->add_subcommand(
      "calibrate", "fit the matrix, memory, vector efficiencies and per-op overhead to op profiles; leave-one-out");
  calibrate->add_option("profiles", kopts->profiles, "op profile CSVs (hlo validate's input)")->required();
  calibrate->add_option("--system", kopts->system, "preset or system JSON to start from")->capture_default_str();
  calibrate->add_option("--out", kopts->out, "write the fitted system JSON here");
  calibrate->add_flag("--json", kopts->json, "print the fit and the per-profile ratios as JSON");
  calibrate->callback([kopts] { run_calibrate(*kopts); });
}

}  // namespace chorus::cli
