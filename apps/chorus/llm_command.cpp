// `chorus llm`: the LLM training planner.
//
//   chorus llm run      --model M.json --system S.json --exec E.json [--json]
//   chorus llm search   --model M.json --system S.json --gpus 1024 --max-batch 1536 [--top 20] [--threads N]
//                       [--csv all.csv] [--datatype float16] [--json]
//   chorus llm validate [--json]
// Inputs are Calculon's JSON files; see src/chorus/llm/*.hpp for the model and docs/llm.md for its use.
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/distributed.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/report.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/validation.hpp"
#include "commands.hpp"

namespace chorus::cli {
namespace {

struct RunOptions {
  std::string model;
  std::string system;
  std::string exec;
  bool json = false;
  bool calculon_bug = false;
};

struct SearchOptions {
  std::string model;
  std::string system;
  int64_t gpus = 0;
  int64_t max_batch = 0;
  int top = 10;
  int threads = 0;
  std::string csv;
  std::string datatype = "float16";
  bool json = false;
  bool no_prune = false;
};

struct ValidateOptions {
  std::string system;
  bool json = false;
};

void run_run(const RunOptions& o) {
  const auto app = llm::read_application(o.model);
  const auto sys = llm::read_system(o.system);
  const auto exe = llm::read_execution(o.exec, app, sys);
  llm::Options options;
  options.calculon_recompute_bug = o.calculon_bug;
  const llm::IterationModel model(app, sys, options);
  const llm::Stats st = model.evaluate(exe);
  if (o.json) {
    nlohmann::json j = llm::stats_to_json(st, sys);
    j["execution"] = llm::execution_to_json(exe, sys);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", llm::stats_table(st, sys));
  }
}

void print_progress(double fraction) {
  constexpr int kWidth = 40;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %5.1f %%", bar.c_str(), 100.0 * fraction);
  if (fraction >= 1.0)
    std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

std::string top_line(size_t i, const llm::Candidate& c) {
  const auto& e = c.execution;
  return fmt::format(
      "{:>3} {:>9.3f} {:>9.3f} tp{:<3} pp{:<3} dp{:<5} v{:<3} mbs{:<4} {:<9} {:<9} shard={:d} ovl={}/{:d} "
      "redo={:d} off={:d}{:d}{:d} nets={}{}{} mem={:.1f}GiB",
      i + 1, c.sample_rate, c.stats.total_time, e.tensor_par, e.pipeline_par, e.data_par, e.pipeline_interleaving,
      e.microbatch_size, llm::to_string(e.recompute), llm::to_string(e.tp_comm), e.optimizer_sharding,
      llm::to_string(e.tp_overlap), e.data_par_overlap, e.seq_par_ag_redo, e.weight_offload, e.activations_offload,
      e.optimizer_offload, e.tensor_par_net, e.pipeline_par_net, e.data_par_net, c.stats.memory.tier1 / 1073741824.0);
}

void run_search(const SearchOptions& o) {
  llm::ProcessGroup group;
  const auto app = llm::read_application(o.model);
  const auto sys = llm::read_system(o.system);
  if (o.gpus <= 0)
    throw Error("--gpus", "", "must be > 0");
  if (o.max_batch <= 0)
    throw Error("--max-batch", "", "must be > 0");
  if (o.top <= 0)
    throw Error("--top", "", "must be > 0");
  const int datatype = sys.datatype_index(o.datatype);
  if (datatype < 0)
    throw Error(o.system, "matrix", fmt::format("has no datatype '{}'", o.datatype));
  const llm::IterationModel model(app, sys);

  llm::SearchSpec spec;
  spec.num_procs = o.gpus;
  spec.max_batch = o.max_batch;
  spec.datatype = datatype;
  spec.top_n = o.top;
  spec.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  spec.prune = !o.no_prune;
  spec.rank = group.rank();
  spec.ranks = group.size();
  std::unique_ptr<std::ofstream> csv;
  std::string csv_part;
  if (!o.csv.empty()) {
    // Ranks other than 0 write a part file that rank 0 appends once everyone is done.
    csv_part = group.rank() == 0 ? o.csv : fmt::format("{}.rank{}", o.csv, group.rank());
    csv = std::make_unique<std::ofstream>(csv_part);
    if (!*csv)
      throw Error(o.csv, "", "cannot open for writing");
    if (group.rank() == 0)
      *csv << llm::csv_header();
    spec.csv_sink = [&csv](const std::string& chunk) { *csv << chunk; };
  }
  if (group.rank() == 0 && isatty(STDERR_FILENO) != 0)
    spec.progress = print_progress;

  const llm::SearchResult local = llm::run_search(model, spec);
  if (csv)
    csv->close();
  const llm::SearchResult r = group.merge(local, model, o.top);
  group.barrier();
  if (group.rank() != 0)
    return;
  if (csv && group.size() > 1) {
    std::ofstream out(o.csv, std::ios::app);
    for (int k = 1; k < group.size(); ++k) {
      const std::string part = fmt::format("{}.rank{}", o.csv, k);
      std::ifstream in(part);
      out << in.rdbuf();
      std::remove(part.c_str());
    }
  }
  if (o.json) {
    nlohmann::json j;
    j["evaluated"] = r.enumerated;
    j["fully_timed"] = r.evaluated;
    j["valid"] = r.valid;
    j["pruned"] = r.pruned;
    j["seconds"] = r.seconds;
    j["ranks"] = group.size();
    j["threads"] = spec.threads;
    j["top"] = nlohmann::json::array();
    for (const auto& c : r.top) {
      nlohmann::json entry;
      entry["execution"] = llm::execution_to_json(c.execution, sys);
      entry["stats"] = llm::stats_to_json(c.stats, sys);
      j["top"].push_back(entry);
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print(
      "{} configurations evaluated in {:.2f} s on {} thread(s) x {} rank(s): {} fully timed, {} valid, {} "
      "pruned (cannot enter the top {})\n",
      r.enumerated, r.seconds, spec.threads, group.size(), r.evaluated, r.valid, r.pruned, o.top);
  if (r.top.empty()) {
    fmt::print("no configuration fits\n");
    return;
  }
  fmt::print("{:>3} {:>9} {:>9}\n", "#", "samples/s", "time s");
  for (size_t i = 0; i < r.top.size(); ++i)
    fmt::print("{}\n", top_line(i, r.top[i]));
}

void run_validate(const ValidateOptions& o) {
  const llm::System sys = o.system.empty() ? llm::a100_80gb_system() : llm::read_system(o.system);
  const llm::ValidationReport r = llm::run_validation(sys);
  if (o.json) {
    fmt::print("{}\n", llm::validation_to_json(r).dump(2));
  } else {
    fmt::print("{}", llm::validation_table(r));
  }
}

}  // namespace

void register_llm_command(CLI::App& app) {
  auto* llm = app.add_subcommand("llm", "LLM training planner: analytical model, strategy search, validation");
  llm->require_subcommand(1);

  auto run_opts = std::make_shared<RunOptions>();
  auto* run = llm->add_subcommand("run", "time and memory of one execution (Calculon's model/system/exec JSON)");
  run->add_option("--model", run_opts->model, "application JSON (Calculon format)")->required();
  run->add_option("--system", run_opts->system, "system JSON (Calculon format)")->required();
  run->add_option("--exec", run_opts->exec, "execution JSON (Calculon format)")->required();
  run->add_flag("--json", run_opts->json, "print the statistics as JSON (Calculon's key names)");
  run->add_flag("--calculon-recompute-bug", run_opts->calculon_bug,
                "reproduce Calculon's recompute-accumulation bug in the DP-overlap window (for comparison)");
  run->callback([run_opts] { run_run(*run_opts); });

  auto search_opts = std::make_shared<SearchOptions>();
  auto* search = llm->add_subcommand("search", "search execution strategies (Calculon's llm-optimal-execution space)");
  search->add_option("--model", search_opts->model, "application JSON")->required();
  search->add_option("--system", search_opts->system, "system JSON")->required();
  search->add_option("--gpus", search_opts->gpus, "number of processors")->required();
  search->add_option("--max-batch", search_opts->max_batch, "maximum global batch (the largest multiple of DP is used)")
      ->required();
  search->add_option("--top", search_opts->top, "how many of the best to print")->capture_default_str();
  search->add_option("--threads", search_opts->threads, "worker threads (default: all cores)");
  search->add_option("--csv", search_opts->csv, "write every valid configuration to this CSV file");
  search->add_option("--datatype", search_opts->datatype, "datatype of the system to train in")->capture_default_str();
  search->add_flag("--json", search_opts->json, "print the top list and counts as JSON");
  search->add_flag("--no-prune", search_opts->no_prune, "time every configuration that fits (exhaustive check)");
  search->callback([search_opts] { run_search(*search_opts); });

  auto validate_opts = std::make_shared<ValidateOptions>();
  auto* validate = llm->add_subcommand("validate", "compare with Korthikanti et al. 2022 (Table 5, Fig. 1, Fig. 7)");
  validate->add_option("--system", validate_opts->system, "system JSON (default: the built-in A100-80GB preset)");
  validate->add_flag("--json", validate_opts->json, "print the comparison as JSON");
  validate->callback([validate_opts] { run_validate(*validate_opts); });
}

}  // namespace chorus::cli
