// `chorus llm`: the LLM training planner.
//
//   chorus llm run      --model M.json --system S.json --exec E.json [--json]
//                       [--engine sim [--network NET.yml] [--network-model flow] [--traces DIR]
//                        [--collectives nccl --machine M | --collectives synth]]
//   chorus llm search   --model M.json --system S.json --gpus 1024 --max-batch 1536 [--top 20] [--threads N]
//                       [--context-par] [--fsdp] [--fused-attention]
//                       [--csv all.csv] [--datatype float16] [--json]
//   chorus llm validate [--json]
//   chorus llm systems  [--show NAME]
//   chorus llm infer    --model M.json --system S --gpus 8 --prompt 2048 --output 256 --batch 64 [--tp --pp --ep]
// --system takes a preset name (a100-40gb, a100-80gb, h100-80gb, h200, b200, mi300x, and a100-80gb-datasheet,
// h100-80gb-datasheet: the two calibrated presets before calibration) or a system JSON file.
// Inputs are Calculon's JSON files; see src/chorus/llm/*.hpp for the model and docs/llm.md for its use.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/calibration.hpp"
#include "chorus/llm/distributed.hpp"
#include "chorus/llm/inference.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/report.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm/tp_gemm_report.hpp"
#include "chorus/llm/tp_overlap_bound.hpp"
#include "chorus/llm/validation.hpp"
#include "chorus/llm_engine/engine_validation.hpp"
#include "commands.hpp"
#include "llm_sim_engine.hpp"

namespace chorus::cli {
namespace {

struct RunOptions {
  std::string model;
  std::string system;
  std::string exec;
  bool json = false;
  bool calculon_bug = false;
  std::string engine = "planner";
  LlmSimEngineOptions sim;
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
  std::string tp_overlap_model = "calculon";
  bool context_par = false;
  bool fsdp = false;
  bool fused_attention = false;
};

struct InferOptions {
  std::string model;
  std::string system;
  llm::ServingConfig config;
  int64_t tp = 0;  // 0 (not given): the GPUs of one scale-up domain
  bool tp_given = false;
  std::string datatype;
  double max_tpot_ms = 0;  // given: search the serving configurations for this latency target
  bool max_tpot_given = false;
  double max_ttft_ms = 0;  // given: the same search for a time-to-first-token target (both: both met)
  bool max_ttft_given = false;
  bool json = false;
};

struct CalibrateOptions {
  std::string measured;
  std::string system;
  std::string out;
  bool json = false;
  bool no_leave_one_out = false;
};

struct ValidateOptions {
  std::string system;
  bool json = false;
  std::string engine = "planner";
  std::vector<std::string> measured;
};

void run_run(const RunOptions& o) {
  const auto app = llm::read_application(o.model);
  const auto sys = llm::resolve_system(o.system);
  const auto exe = llm::read_execution(o.exec, app, sys);
  llm::Options options;
  options.calculon_recompute_bug = o.calculon_bug;
  const llm::IterationModel model(app, sys, options);
  const llm::Stats st = model.evaluate(exe);
  if (o.engine != "planner" && o.engine != "sim")
    throw Error("", "--engine", fmt::format("is '{}'; expected planner or sim", o.engine));
  if (o.engine == "planner") {
    for (const auto& [flag, given] :
         {std::pair{"--network", !o.sim.network.empty()}, std::pair{"--network-model", o.sim.network_model != "flow"},
          std::pair{"--traces", !o.sim.traces.empty()}, std::pair{"--collectives", !o.sim.collectives.empty()},
          std::pair{"--machine", !o.sim.machine.empty()}}) {
      if (given)
        throw Error("", flag, "applies only with --engine sim");
    }
  }
  if (o.engine == "sim") {
    LlmSimEngineOptions sim = o.sim;
    sim.model_file = o.model;
    sim.system_name = o.system;
    sim.exec_file = o.exec;
    sim.json = o.json;
    run_llm_sim_engine(sim, app, sys, exe, st);
    return;
  }
  const bool gemm_overlap = exe.tp_gemm_overlap != llm::TpGemmOverlap::kNone;
  const llm::Stats without = gemm_overlap ? model.evaluate(llm::without_tp_gemm_overlap(exe)) : st;
  // A number below a physical bound gets a warning (docs/llm.md, "Calculon's ring below the collective's time").
  const auto below = llm::tp_overlap_below_bound(st);
  if (below)
    fmt::print(stderr, "{}\n", llm::tp_overlap_bound_warning(*below, exe));
  if (o.json) {
    nlohmann::json j = llm::stats_to_json(st, sys);
    j["execution"] = llm::execution_to_json(exe, sys);
    if (gemm_overlap)
      j["tp_gemm_overlap"] = llm::tp_gemm_json(st, without, exe);
    j["tp_overlap_below_collective_bound"] = below.has_value();
    if (below)
      j["tp_overlap_bound"] = llm::tp_overlap_bound_json(*below);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", llm::stats_table(st, sys));
    if (gemm_overlap)
      fmt::print("{}", llm::tp_gemm_table(st, without, exe));
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
             i + 1, c.sample_rate, c.stats.total_time, e.tensor_par, e.pipeline_par, e.data_par,
             e.pipeline_interleaving, e.microbatch_size, llm::to_string(e.recompute), llm::to_string(e.tp_comm),
             e.optimizer_sharding, llm::to_string(e.tp_overlap), e.data_par_overlap, e.seq_par_ag_redo,
             e.weight_offload, e.activations_offload, e.optimizer_offload, e.tensor_par_net, e.pipeline_par_net,
             e.data_par_net, c.stats.memory.tier1 / 1073741824.0) +
         (e.expert_par > 1 ? fmt::format(" ep{}", e.expert_par) : std::string()) +
         (e.tp_gemm_overlap != llm::TpGemmOverlap::kNone ? fmt::format(" gemm={}", llm::to_string(e.tp_gemm_overlap))
                                                         : std::string()) +
         (e.context_par > 1 ? fmt::format(" cp{}", e.context_par) : std::string()) +
         (e.fsdp == llm::Fsdp::kZero2 || e.fsdp == llm::Fsdp::kZero3 ? fmt::format(" {}", llm::to_string(e.fsdp))
                                                                     : std::string()) +
         (e.fused_attention ? " fa" : "");
}

// Top configurations whose Calculon TP overlap beats the collective's own time (tp_overlap_bound.hpp).
int64_t below_bound_count(const std::vector<llm::Candidate>& top) {
  return std::count_if(top.begin(), top.end(),
                       [](const llm::Candidate& c) { return llm::tp_overlap_below_bound(c.stats).has_value(); });
}

void run_search(const SearchOptions& o) {
  llm::ProcessGroup group;
  const auto app = llm::read_application(o.model);
  const auto sys = llm::resolve_system(o.system);
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
  // Which TP overlap models the search tries (docs/llm.md, "Communication-hiding GEMMs").
  spec.dims.tp_gemm_overlap = o.tp_overlap_model != "calculon";
  spec.dims.calculon_tp_overlap = o.tp_overlap_model != "decomposed";
  spec.dims.context_par = o.context_par;
  spec.dims.fsdp = o.fsdp;
  spec.dims.fused_attention = o.fused_attention;
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
      *csv << llm::csv_header(spec.dims.tp_gemm_overlap);
    spec.csv_sink = [&csv](const std::string& chunk) { *csv << chunk; };
  }
  if (group.rank() == 0 && isatty(STDERR_FILENO) != 0)
    spec.progress = print_progress;

  llm::SearchResult local = llm::run_search(model, spec);
  // ZeRO-2/3 join the default space when nothing fits without them (a model whose weights and gradients exceed
  // every split of the GPUs). One process decides alone; ranks would need to agree, so mpirun runs say so instead.
  bool widened = false;
  if (!o.fsdp && local.valid == 0 && group.size() == 1) {
    spec.dims.fsdp = true;
    local = llm::run_search(model, spec);
    widened = local.valid > 0;
  }
  if (csv) {
    csv->close();
    if (!*csv)
      throw Error(csv_part, "--csv", "cannot write the file (disk full or not writable?)");
  }
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
    out.close();
    if (!out)
      throw Error(o.csv, "--csv", "cannot write the file (disk full or not writable?)");
  }
  if (o.json) {
    nlohmann::json j;
    j["zero23_added"] = widened;
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
      entry["tp_overlap_below_collective_bound"] = llm::tp_overlap_below_bound(c.stats).has_value();
      j["top"].push_back(entry);
    }
    j["top_below_collective_bound"] = below_bound_count(r.top);
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print(
      "{} configurations evaluated in {:.2f} s on {} thread(s) x {} rank(s): {} fully timed, {} valid, {} "
      "pruned (cannot enter the top {})\n",
      r.enumerated, r.seconds, spec.threads, group.size(), r.evaluated, r.valid, r.pruned, o.top);
  if (widened)
    fmt::print("no configuration fits without ZeRO-2/3, so the space includes them (as --fsdp does)\n");
  if (r.top.empty()) {
    fmt::print("no configuration fits{}\n",
               !o.fsdp && group.size() > 1 ? " (under mpirun ZeRO-2/3 are searched only with --fsdp)" : "");
    return;
  }
  fmt::print("{:>3} {:>9} {:>9}\n", "#", "samples/s", "time s");
  for (size_t i = 0; i < r.top.size(); ++i)
    fmt::print("{}\n", top_line(i, r.top[i]));
  if (const int64_t below = below_bound_count(r.top); below > 0)
    fmt::print(
        "notice: {} of the top {} configurations use Calculon's tensor_par_overlap ring/pipe with a GEMM plus its TP "
        "collective faster than the collective alone (llm run warns; docs/llm.md); --tp-overlap-model decomposed "
        "searches the bounded tp_gemm_overlap instead\n",
        below, r.top.size());
}

// The measured runs given, or Korthikanti et al.'s Table 5 (A100) when none are, through the planner and the
// simulator engine. Table 5 is not added to other runs: on another GPU's system its A100 rows would only blur the
// overall mean (validation/llm/korthikanti2022_table5_runs.csv brings it in when wanted).
void run_validate_engines(const ValidateOptions& o, const llm::System& sys) {
  std::vector<EngineValidationRun> runs;
  if (o.measured.empty())
    runs = table5_runs(sys);
  for (const std::string& csv : o.measured) {
    for (llm::MeasuredRun& m : llm::read_measured_runs(csv, sys))
      runs.push_back(std::move(m));
  }
  const std::string system = o.system.empty() ? "a100-80gb" : o.system;
  const EngineValidationReport r = validate_engines(runs, sys, system);
  if (o.json) {
    fmt::print("{}\n", engine_validation_json(r).dump(2));
  } else {
    fmt::print("system {}; simulator on its network tiers (flow model); nothing fitted per run\n", system);
    fmt::print("{}", engine_validation_table(r));
  }
}

void run_validate(const ValidateOptions& o) {
  const llm::System sys = o.system.empty() ? llm::a100_80gb_system() : llm::resolve_system(o.system);
  if (o.engine != "planner" && o.engine != "sim")
    throw Error("", "--engine", fmt::format("is '{}'; expected planner or sim", o.engine));
  if (o.engine == "planner" && !o.measured.empty())
    throw Error("", "--measured", "applies only with --engine sim (llm calibrate reads measured runs for the planner)");
  if (o.engine == "sim") {
    // Calculon's own a100_80g file charges Reduce-Scatter and All-Gather 1.5x a ring's bytes on NVLink, which no
    // simulated algorithm does; both engines run on the machine preset unless a system is given.
    run_validate_engines(o, o.system.empty() ? llm::resolve_system("a100-80gb") : sys);
    return;
  }
  const llm::ValidationReport r = llm::run_validation(sys);
  if (o.json) {
    fmt::print("{}\n", llm::validation_to_json(r).dump(2));
  } else {
    fmt::print("{}", llm::validation_table(r));
  }
}

// The datatype to serve in: the one asked for, else bfloat16 or float16 when the system has it, else its first.
int serving_datatype(const llm::System& sys, const std::string& asked, const std::string& system) {
  if (!asked.empty()) {
    const int i = sys.datatype_index(asked);
    if (i < 0)
      throw Error(system, "matrix", fmt::format("has no datatype '{}'", asked));
    return i;
  }
  for (const char* name : {"bfloat16", "float16"}) {
    if (sys.datatype_index(name) >= 0)
      return sys.datatype_index(name);
  }
  return 0;
}

void run_infer(const InferOptions& o) {
  const auto app = llm::read_application(o.model);
  const auto sys = llm::resolve_system(o.system);
  llm::ServingConfig c = o.config;
  c.datatype = serving_datatype(sys, o.datatype, o.system);
  if (o.tp_given && o.tp < 1)
    throw Error("--tp", "", fmt::format("is {}; must be >= 1", o.tp));
  if (o.max_tpot_given && !(o.max_tpot_ms > 0))
    throw Error("--max-tpot-ms", fmt::format("{}", o.max_tpot_ms), "must be > 0");
  if (o.max_ttft_given && !(o.max_ttft_ms > 0))
    throw Error("--max-ttft-ms", fmt::format("{}", o.max_ttft_ms), "must be > 0");
  c.tp = o.tp_given ? o.tp : std::min(c.gpus, sys.networks[0].size);
  c.pp_net = static_cast<int8_t>(sys.networks.size() > 1 ? 1 : 0);
  c.ep_net = static_cast<int8_t>(c.gpus <= sys.networks[0].size ? 0 : c.pp_net);
  int64_t tried = 0;
  int64_t feasible = 0;
  const std::string targets_text =
      o.max_tpot_given && o.max_ttft_given
          ? fmt::format("{} ms per output token and {} ms to the first token", o.max_tpot_ms, o.max_ttft_ms)
      : o.max_tpot_given ? fmt::format("{} ms per output token", o.max_tpot_ms)
                         : fmt::format("{} ms to the first token", o.max_ttft_ms);
  if (o.max_tpot_given || o.max_ttft_given) {
    const llm::LatencyTargets targets{o.max_tpot_given ? o.max_tpot_ms * 1e-3 : 0,
                                      o.max_ttft_given ? o.max_ttft_ms * 1e-3 : 0};
    const llm::ServingChoice choice = llm::search_serving(app, sys, c, targets);
    tried = choice.evaluated;
    feasible = choice.feasible;
    if (!choice.found) {
      const bool both = o.max_tpot_given && o.max_ttft_given;
      throw Error(both               ? "--max-tpot-ms/--max-ttft-ms"
                  : o.max_tpot_given ? "--max-tpot-ms"
                                     : "--max-ttft-ms",
                  both               ? fmt::format("{}/{}", o.max_tpot_ms, o.max_ttft_ms)
                  : o.max_tpot_given ? fmt::format("{}", o.max_tpot_ms)
                                     : fmt::format("{}", o.max_ttft_ms),
                  fmt::format("no configuration of {} GPUs meets it ({} tried)", c.gpus, choice.evaluated));
    }
    c = choice.config;
  }
  const llm::InferenceResult r = llm::evaluate_inference(app, sys, c);
  constexpr double kGiB = 1073741824.0;
  if (o.json) {
    nlohmann::json j;
    j["ttft_ms"] = r.ttft_s * 1e3;
    j["tpot_ms"] = r.tpot_s * 1e3;
    j["e2e_ms"] = r.e2e_s * 1e3;
    j["tokens_per_s"] = r.tokens_per_s;
    j["tokens_per_s_per_gpu"] = r.tokens_per_s / static_cast<double>(c.gpus);
    j["decode_bound"] = r.decode_memory_bound ? "memory" : "compute";
    j["weights_gib"] = r.weight_bytes / kGiB;
    j["kv_cache_gib"] = r.kv_cache_bytes / kGiB;
    j["memory_gib"] = r.memory_bytes / kGiB;
    j["capacity_gib"] = r.capacity_bytes / kGiB;
    j["config"] = {{"gpus", c.gpus},
                   {"tp", c.tp},
                   {"pp", c.pp},
                   {"ep", c.ep},
                   {"dp", c.gpus / (c.tp * c.pp)},
                   {"prompt", c.prompt},
                   {"output", c.output},
                   {"batch", c.batch},
                   {"datatype", sys.datatypes.at(static_cast<size_t>(c.datatype))}};
    if (tried > 0) {
      j["search"] = {{"max_tpot_ms", o.max_tpot_given ? nlohmann::json(o.max_tpot_ms) : nlohmann::json(nullptr)},
                     {"max_ttft_ms", o.max_ttft_given ? nlohmann::json(o.max_ttft_ms) : nlohmann::json(nullptr)},
                     {"tried", tried},
                     {"feasible", feasible}};
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  if (tried > 0) {
    fmt::print("{} configurations tried, {} fit and meet {}; the best:\n", tried, feasible, targets_text);
  }
  fmt::print("serving: {} GPUs as tp{} pp{} dp{} ep{}, batch {}, prompt {}, output {}, {}\n", c.gpus, c.tp, c.pp,
             c.gpus / (c.tp * c.pp), c.ep, c.batch, c.prompt, c.output,
             sys.datatypes.at(static_cast<size_t>(c.datatype)));
  fmt::print("time to first token:   {:10.2f} ms\n", r.ttft_s * 1e3);
  fmt::print("time per output token: {:10.2f} ms ({}-bound decode)\n", r.tpot_s * 1e3,
             r.decode_memory_bound ? "memory" : "compute");
  fmt::print("end to end:            {:10.2f} ms\n", r.e2e_s * 1e3);
  fmt::print("throughput:            {:10.1f} output tokens/s ({:.1f} per GPU)\n", r.tokens_per_s,
             r.tokens_per_s / static_cast<double>(c.gpus));
  fmt::print("memory per GPU:        {:10.2f} GiB of {:.2f} (weights {:.2f}, KV cache {:.2f})\n", r.memory_bytes / kGiB,
             r.capacity_bytes / kGiB, r.weight_bytes / kGiB, r.kv_cache_bytes / kGiB);
}

void run_calibrate(const CalibrateOptions& o) {
  const auto sys = llm::resolve_system(o.system);
  const auto runs = llm::read_measured_runs(o.measured, sys);
  // Leave-one-out refits once per run: runs x one fit (200 runs take about 35 s), said on a terminal beforehand.
  if (!o.no_leave_one_out && runs.size() > 20 && isatty(STDERR_FILENO) != 0)
    fmt::print(stderr,
               "calibrate: {} runs; the leave-one-out error refits once per run (--no-leave-one-out skips it)\n",
               runs.size());
  const llm::CalibrationResult r = llm::calibrate(sys, runs, !o.no_leave_one_out);
  const bool loo = !o.no_leave_one_out;
  if (!o.out.empty()) {
    std::ofstream out(o.out);
    if (!out)
      throw Error(o.out, "", "cannot open for writing");
    out << llm::system_to_json(r.calibrated).dump(2) << "\n";
    out.close();
    if (!out)
      throw Error(o.out, "--out", "cannot write the file (disk full or not writable?)");
  }
  const auto& p = r.params;
  if (o.json) {
    nlohmann::json j;
    j["multipliers"] = {{"matrix", p.matrix}, {"vector", p.vector}, {"memory", p.memory}, {"network", p.network}};
    j["mean_abs_error_before"] = r.mean_abs_before;
    j["mean_abs_error_after"] = r.mean_abs_after;
    j["mean_abs_error_leave_one_out"] = loo ? nlohmann::json(r.mean_abs_left_out) : nlohmann::json(nullptr);
    j["runs"] = nlohmann::json::array();
    for (const auto& f : r.runs) {
      j["runs"].push_back({{"source", f.source},
                           {"name", f.name},
                           {"measured_s", f.measured_s},
                           {"before_s", f.before_s},
                           {"after_s", f.after_s},
                           {"leave_one_out_s", loo ? nlohmann::json(f.left_out_s) : nlohmann::json(nullptr)}});
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  std::string nets;
  for (double n : p.network)
    nets += fmt::format(" {:.3f}", n);
  fmt::print("efficiency multipliers: matrix {:.3f}, vector {:.3f}, memory {:.3f}, network{}\n", p.matrix, p.vector,
             p.memory, nets);
  fmt::print("{:<20} {:<14} {:>10} {:>10} {:>8} {:>10} {:>8} {:>10} {:>8}\n", "source", "run", "measured s", "before s",
             "error", "fitted s", "error", "left-out s", "error");
  auto err = [](double predicted, double measured) { return 100.0 * (1 - predicted / measured); };
  for (const auto& f : r.runs) {
    fmt::print("{:<20} {:<14} {:>10.3f} {:>10.3f} {:>7.2f}% {:>10.3f} {:>7.2f}% {}\n", f.source, f.name, f.measured_s,
               f.before_s, err(f.before_s, f.measured_s), f.after_s, err(f.after_s, f.measured_s),
               loo ? fmt::format("{:>10.3f} {:>7.2f}%", f.left_out_s, err(f.left_out_s, f.measured_s))
                   : fmt::format("{:>10} {:>8}", "-", "-"));
  }
  fmt::print("mean |error|: before {:.2f} %, fitted {:.2f} %, leave-one-out {}\n", 100 * r.mean_abs_before,
             100 * r.mean_abs_after, loo ? fmt::format("{:.2f} %", 100 * r.mean_abs_left_out) : "skipped");
  if (!o.out.empty())
    fmt::print("wrote {}\n", o.out);
}

// `chorus llm systems`: the preset names, or one preset as a Calculon system file.
void run_systems(const std::string& show) {
  if (show.empty()) {
    for (const auto& name : llm::system_preset_names())
      fmt::print("{}\n", name);
    return;
  }
  const auto j = llm::system_preset_json(show);
  if (!j)
    throw Error("--show", show, "is not a system preset (chorus llm systems lists them)");
  fmt::print("{}\n", j->dump(2));
}

}  // namespace

void register_llm_command(CLI::App& app) {
  auto* llm = app.add_subcommand("llm", "LLM training planner: analytical model, strategy search, validation");
  llm->require_subcommand(1);

  auto run_opts = std::make_shared<RunOptions>();
  auto* run = llm->add_subcommand("run", "time and memory of one execution (Calculon's model/system/exec JSON)");
  run->add_option("--model", run_opts->model, "application JSON (Calculon format)")->required();
  run->add_option("--system", run_opts->system, "system preset (chorus llm systems) or system JSON (Calculon format)")
      ->required();
  run->add_option("--exec", run_opts->exec, "execution JSON (Calculon format)")->required();
  run->add_flag("--json", run_opts->json, "print the statistics as JSON (Calculon's key names)");
  run->add_option("--engine", run_opts->engine,
                  "planner (the analytical model) or sim (the job generated as traces and simulated, beside the "
                  "planner; docs/llm.md)")
      ->capture_default_str();
  run_opts->sim.network_model = "flow";
  run->add_option("--network", run_opts->sim.network,
                  "with --engine sim: an ASTRA-sim network YAML (default: the system's network tiers)");
  run->add_option("--network-model", run_opts->sim.network_model, "with --engine sim: flow, aware or unaware")
      ->capture_default_str();
  run->add_option("--traces", run_opts->sim.traces, "with --engine sim: keep the generated traces in this directory");
  run->add_option("--collectives", run_opts->sim.collectives,
                  "with --engine sim: simulated (default); nccl: every collective as NCCL (RCCL) runs it on "
                  "--machine, by the library's cost model (docs/nccl.md); synth: every collective by a schedule "
                  "synthesized for its group on the job's network (chorus synth)");
  run->add_option("--machine", run_opts->sim.machine,
                  "with --engine sim --collectives nccl: the machine preset (chorus machines) or a calibrated machine "
                  "JSON; its nodes are the job's GPUs / its GPUs per node");
  run->add_flag("--calculon-recompute-bug", run_opts->calculon_bug,
                "reproduce Calculon's recompute-accumulation bug in the DP-overlap window (for comparison)");
  run->callback([run_opts] { run_run(*run_opts); });

  auto search_opts = std::make_shared<SearchOptions>();
  auto* search = llm->add_subcommand("search", "search execution strategies (Calculon's llm-optimal-execution space)");
  search->add_option("--model", search_opts->model, "application JSON")->required();
  search->add_option("--system", search_opts->system, "system preset or system JSON")->required();
  search->add_option("--gpus", search_opts->gpus, "number of processors")->required();
  search->add_option("--max-batch", search_opts->max_batch, "maximum global batch (the largest multiple of DP is used)")
      ->required();
  search->add_option("--top", search_opts->top, "how many of the best to print")->capture_default_str();
  search->add_option("--threads", search_opts->threads, "worker threads (default: all cores)");
  search->add_option("--csv", search_opts->csv, "write every valid configuration to this CSV file");
  search->add_option("--datatype", search_opts->datatype, "datatype of the system to train in")->capture_default_str();
  search->add_flag("--json", search_opts->json, "print the top list and counts as JSON");
  search->add_flag("--no-prune", search_opts->no_prune, "time every configuration that fits (exhaustive check)");
  search
      ->add_option("--tp-overlap-model", search_opts->tp_overlap_model,
                   "TP overlaps to try: calculon (tensor_par_overlap ring/pipe), decomposed (tp_gemm_overlap "
                   "pipelined/summa) or both")
      ->check(CLI::IsMember({"calculon", "decomposed", "both"}))
      ->capture_default_str();
  search->add_flag("--context-par", search_opts->context_par,
                   "also search context parallelism (every divisor of GPUs / (TP x PP) that divides seq_size)");
  search->add_flag("--fsdp", search_opts->fsdp, "also search ZeRO-2 and ZeRO-3 (FSDP) beside none and ZeRO-1");
  search->add_flag("--fused-attention", search_opts->fused_attention,
                   "every configuration runs fused (Flash) attention: no score matrix in HBM or memory");
  search->callback([search_opts] { run_search(*search_opts); });

  auto validate_opts = std::make_shared<ValidateOptions>();
  auto* validate = llm->add_subcommand("validate", "compare with Korthikanti et al. 2022 (Table 5, Fig. 1, Fig. 7)");
  validate->add_option("--system", validate_opts->system, "system JSON (default: the built-in A100-80GB preset)");
  validate->add_flag("--json", validate_opts->json, "print the comparison as JSON");
  validate
      ->add_option("--engine", validate_opts->engine,
                   "planner, or sim: the --measured runs (else Table 5) through the planner and the simulator engine")
      ->capture_default_str();
  validate->add_option("--measured", validate_opts->measured,
                       "with --engine sim: measured runs CSV (validation/llm/*_runs.csv), repeatable; Table 5 is "
                       "validation/llm/korthikanti2022_table5_runs.csv");
  validate->callback([validate_opts] { run_validate(*validate_opts); });

  auto infer_opts = std::make_shared<InferOptions>();
  auto* infer = llm->add_subcommand("infer", "serving: prefill and decode time, KV cache, throughput");
  infer->add_option("--model", infer_opts->model, "model JSON")->required();
  infer->add_option("--system", infer_opts->system, "system preset or system JSON")->required();
  infer->add_option("--gpus", infer_opts->config.gpus, "GPUs serving the batch")->required();
  infer->add_option("--prompt", infer_opts->config.prompt, "prompt tokens per sequence")->required();
  infer->add_option("--output", infer_opts->config.output, "output tokens per sequence")->required();
  infer->add_option("--batch", infer_opts->config.batch, "sequences served together (all replicas)")->required();
  infer->add_option_function<int64_t>(
      "--tp",
      [infer_opts](const int64_t& tp) {
        infer_opts->tp = tp;
        infer_opts->tp_given = true;
      },
      "tensor parallelism (default: the GPUs of one NVLink domain)");
  infer->add_option("--pp", infer_opts->config.pp, "pipeline parallelism")->capture_default_str();
  infer->add_option("--ep", infer_opts->config.ep, "expert parallelism over the data-parallel replicas")
      ->capture_default_str();
  infer->add_option("--datatype", infer_opts->datatype, "datatype (default bfloat16, else float16)");
  infer->add_option_function<double>(
      "--max-tpot-ms",
      [infer_opts](const double& ms) {
        infer_opts->max_tpot_ms = ms;
        infer_opts->max_tpot_given = true;
      },
      "search TP, PP, EP and batch sizes up to --batch for the best throughput at this time per token");
  infer->add_option_function<double>(
      "--max-ttft-ms",
      [infer_opts](const double& ms) {
        infer_opts->max_ttft_ms = ms;
        infer_opts->max_ttft_given = true;
      },
      "the same search for a time-to-first-token target (the batch's prefill); with --max-tpot-ms, both are met");
  infer->add_flag("--json", infer_opts->json, "print ttft_ms, tpot_ms, tokens_per_s and the memory as JSON");
  infer->callback([infer_opts] { run_infer(*infer_opts); });

  auto calibrate_opts = std::make_shared<CalibrateOptions>();
  auto* calibrate =
      llm->add_subcommand("calibrate", "fit a system's efficiencies to measured runs (CSV), with leave-one-out error");
  calibrate->add_option("--measured", calibrate_opts->measured, "CSV: source,name,model,exec,metric,value")->required();
  calibrate->add_option("--system", calibrate_opts->system, "system preset or JSON to start from")->required();
  calibrate->add_option("--out", calibrate_opts->out, "write the calibrated system JSON here");
  calibrate->add_flag("--json", calibrate_opts->json, "print the fit as JSON");
  calibrate->add_flag("--no-leave-one-out", calibrate_opts->no_leave_one_out,
                      "skip the leave-one-out refits (one per run: minutes for hundreds of runs)");
  calibrate->callback([calibrate_opts] { run_calibrate(*calibrate_opts); });

  auto systems_show = std::make_shared<std::string>();
  auto* systems = llm->add_subcommand("systems", "list the GPU system presets (--system NAME), or print one as JSON");
  systems->add_option("--show", *systems_show, "print this preset as a Calculon system JSON file");
  systems->callback([systems_show] { run_systems(*systems_show); });
}

}  // namespace chorus::cli
