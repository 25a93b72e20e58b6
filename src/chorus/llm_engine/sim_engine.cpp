// The planner's job generated and simulated (see sim_engine.hpp).
#include "chorus/llm_engine/sim_engine.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <random>
#include <string_view>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/generate/llm_symmetric.hpp"
#include "chorus/runtime/critical_path.hpp"
#include "chorus/runtime/reports.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/workload/symmetric_workload.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

namespace {

namespace fs = std::filesystem;

// Where the traces go: the directory asked for (kept), or a fresh temporary one removed afterwards.
class TraceDirectory {
 public:
  explicit TraceDirectory(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      path_ = keep;
      return;
    }
    std::random_device seed;
    path_ = (fs::temp_directory_path() / fmt::format("chorus-llm-sim-{:08x}{:08x}", seed(), seed())).string();
  }
  TraceDirectory(const TraceDirectory&) = delete;
  TraceDirectory& operator=(const TraceDirectory&) = delete;
  ~TraceDirectory() {
    std::error_code ignored;  // a temporary directory that cannot be removed is left behind, not an error
    if (!keep_)
      fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  bool keep_;
  std::string path_;
};

// One trace per rank class (llm_symmetric.hpp: a pipeline stage and CP index); one per rank when the layout's
// group copies are not evenly spaced (EP groups under TP, for one).
Workload generate(const LlmTrainingSpec& spec, const std::string& dir, bool& symmetric) {
  symmetric = true;
  try {
    return load_symmetric_workload(write_llm_training_symmetric(dir, spec, false));
  } catch (const Error& e) {
    if (std::string_view(e.what()).find("symmetric") == std::string_view::npos)
      throw;
    symmetric = false;  // refused before anything was written (llm_symmetric.cpp checks the groups first)
  }
  const std::string prefix = write_llm_training(dir, spec, false);
  return load_workload(prefix, (fs::path(dir) / "comm_groups.json").string());
}

enum Row : uint8_t { kCompute, kTp, kPp, kDp, kFsdp, kEp, kCp, kRest, kTotal, kRows };
constexpr std::array<const char*, kRows> kRowNames = {
    "compute (fw + bw + recompute + head + optimizer)",
    "TP communication exposed",
    "PP communication exposed",
    "DP communication exposed",
    "ZeRO-3 parameter gathers exposed",
    "EP All-to-All exposed",
    "CP ring attention exposed",
    "pipeline bubble and waiting",
    "iteration",
};

// The row a generated operation's exposed time belongs to, from its name pattern (llm_training.cpp's names).
std::optional<Row> row_of(std::string_view name) {
  const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("zero3_all_gather"))
    return kFsdp;
  if (has(".tp_"))
    return kTp;
  if (has("_activation") || has("_gradient.") || name.ends_with("_gradient") || has("pp_all_gather"))
    return kPp;
  if (has("dp_") || has("zero_reduce_scatter"))
    return kDp;
  if (has("ep_dispatch") || has("ep_combine"))
    return kEp;
  if (has("_kv"))
    return kCp;
  return std::nullopt;
}

std::array<double, kRows> planner_rows(const llm::Stats& st) {
  std::array<double, kRows> r{};
  r[kCompute] = st.fw_time + st.bw_time + st.recompute_time + st.head_time + st.optim_step_time +
                st.fw_offload_exposed_time + st.bw_offload_exposed_time;
  r[kTp] = st.tp_comm_exposed_time + st.recomm_exposed_time;
  r[kPp] = st.pp_comm_exposed_time;
  r[kDp] = st.dp_comm_exposed_time;
  r[kFsdp] = st.fsdp_gather_exposed_time;
  r[kEp] = st.ep_comm_exposed_time;
  r[kCp] = st.cp_comm_exposed_time;
  r[kTotal] = st.total_time;
  double named = 0;
  for (size_t i = kCompute; i < kRest; ++i)
    named += r[i];
  r[kRest] = st.total_time - named;
  return r;
}

std::array<double, kRows> sim_rows(const RunReport& report, uint32_t npus) {
  std::array<double, kRows> r{};
  for (const NpuReport& n : report.npus)
    r[kCompute] = std::max(r[kCompute], n.compute.seconds());
  if (report.critical_path) {
    for (const BlameRow& b : report.critical_path->blame) {
      if (const std::optional<Row> row = row_of(b.name))
        r[*row] += b.exposed_npu_time.seconds() / npus;
    }
  }
  r[kTotal] = report.finish.seconds();
  double named = 0;
  for (size_t i = kCompute; i < kRest; ++i)
    named += r[i];
  r[kRest] = r[kTotal] - named;
  return r;
}

}  // namespace

SimEngineResult run_sim_engine(const llm::Stats& stats, const LlmTrainingSpec& spec, const Topology& topology,
                               const SimEngineOptions& options) {
  const TraceDirectory dir(options.traces);
  SimEngineResult result;
  const Workload workload = generate(spec, dir.path(), result.symmetric);
  RuntimeOptions run;
  run.model = options.model;
  run.record_timeline = false;
  run.lower_bounds = true;   // each collective against its physical bound: below it is a model defect, said
  run.critical_path = true;  // the blame charges exposed communication to its collective or message
  // Each rank's trace is one in-order compute stream; what leaves it (DP, ZeRO, pipeline sends) runs on its own
  // stream, as NCCL runs each communicator's kernels, so several collectives may be in flight at once, and they
  // share the links they have in common.
  run.resource_limits = false;
  // A synthesized schedule is timed alone on its links (as chorus collective --algorithm synth times it).
  run.contention = options.model == NetworkModelKind::Flow && !options.synthesize;
  run.nccl = options.nccl;
  run.synthesize_collectives = options.synthesize;
  // One EP group may be the whole job (Qwen3-30B-A3B's EP 16 on 16 GPUs): its All-to-All runs direct, the shares
  // for the members of a node over NVLink and the rest over the NICs at once, as a smaller group's does and as the
  // planner prices it, not as ASTRA-sim's per-dimension rings.
  run.whole_all_to_all_direct = true;
  const RunReport report = run_workload(workload, topology, run);
  result.finish_s = report.finish.seconds();
  result.collectives = report.collectives.size();
  result.below_bound = count_below_bound(report);
  result.network = topology.name();
  if (options.nccl)
    result.collective_timing = std::string("nccl:") + options.nccl->machine->name;
  else if (options.synthesize)
    result.collective_timing = "synth";
  result.simulated_npus = result.symmetric ? workload.symmetry->classes.size() : workload.npus.size();
  const auto planner = planner_rows(stats);
  const auto sim = sim_rows(report, topology.npu_count());
  for (size_t i = 0; i < kRows; ++i)
    result.components.push_back(EngineComponent{kRowNames[i], planner[i], sim[i]});
  return result;
}

nlohmann::json sim_engine_json(nlohmann::json planner, const llm::Stats& stats, const llm::Application& app,
                               const llm::Execution& exe, const SimEngineResult& result) {
  nlohmann::json& j = planner;
  j["engine"] = "sim";
  j["planner_total_time"] = stats.total_time;
  j["sim_finish_ns"] = result.finish_s * 1e9;
  j["total_time"] = result.finish_s;
  const double rate = result.finish_s > 0 ? static_cast<double>(exe.batch_size) / result.finish_s : 0.0;
  j["sample_rate"] = rate;
  j["tokens_per_s_per_gpu"] = rate * static_cast<double>(app.seq_size) / static_cast<double>(exe.num_procs);
  j["model_tflops_per_gpu"] = j["tokens_per_s_per_gpu"].get<double>() * llm::model_flops_per_token(app, true) / 1e12;
  j["network"] = result.network;
  j["simulated_traces"] = result.simulated_npus;
  j["collectives_below_bound"] = result.below_bound;
  j["collectives"] = result.collective_timing;
  j["components"] = nlohmann::json::array();
  for (const EngineComponent& c : result.components)
    j["components"].push_back({{"name", c.name}, {"planner_s", c.planner_s}, {"sim_s", c.sim_s}});
  return j;
}

std::string sim_engine_table(const SimEngineResult& result) {
  std::string out = fmt::format("{:<50} {:>11} {:>11} {:>9}\n", "component", "planner s", "simulator s", "sim/plan");
  for (const EngineComponent& c : result.components) {
    if (c.planner_s == 0 && c.sim_s == 0)
      continue;
    const std::string ratio = c.planner_s > 0 ? fmt::format("{:.3f}", c.sim_s / c.planner_s) : "-";
    out += fmt::format("{:<50} {:>11.4f} {:>11.4f} {:>9}\n", c.name, c.planner_s, c.sim_s, ratio);
  }
  const bool nccl = result.collective_timing.starts_with("nccl:");
  const bool synth = result.collective_timing == "synth";
  if (result.below_bound > 0) {
    out += fmt::format("warning: {} of {} collectives finish faster than their physical lower bound ({})\n",
                       result.below_bound, result.collectives,
                       nccl ? "NCCL's NVLS reduces inside the NVSwitch, which the bound does not allow; docs/nccl.md"
                            : "a subgroup runs on a logical ring or switch of its members, which does not see every "
                              "physical link; docs/workload.md");
  }
  out += fmt::format("simulated on {} ({} trace{}{}){}\n", result.network, result.simulated_npus,
                     result.simulated_npus == 1 ? "" : "s",
                     result.symmetric ? ", one per rank class: pipeline stage and CP index" : ", one per rank",
                     nccl ? fmt::format("; collectives by NCCL's cost model on {}", result.collective_timing.substr(5))
                     : synth ? std::string("; collectives by schedules synthesized per group")
                             : std::string());
  return out;
}

}  // namespace chorus
