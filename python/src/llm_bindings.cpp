// chorus.llm: the LLM training planner (Calculon's JSON inputs): run one execution, search the strategy space,
// validate against Korthikanti et al. 2022. Records use the keys of `chorus llm ... --json`.
#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "bindings.hpp"
#include "chorus/core/error.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/report.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm/validation.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "chorus/llm_engine/sim_engine.hpp"

namespace chorus::python {

namespace {

// The planner, or with engine "sim" the same job generated and simulated on the system's tiers (the keys of
// `chorus llm run --engine sim --json`).
nlohmann::json run(const std::string& model_path, const std::string& system_path, const std::string& exec_path,
                   bool calculon_bug, const std::string& engine) {
  if (engine != "planner" && engine != "sim")
    throw Error("", Argument{"engine"}, fmt::format("is '{}'; expected planner or sim", engine));
  const auto app = llm::read_application(model_path);
  const auto sys = llm::resolve_system(system_path);
  const auto exe = llm::read_execution(exec_path, app, sys);
  llm::Options options;
  options.calculon_recompute_bug = calculon_bug;
  const llm::IterationModel model(app, sys, options);
  const llm::Stats stats = model.evaluate(exe);
  nlohmann::json j = llm::stats_to_json(stats, sys);
  j["execution"] = llm::execution_to_json(exe, sys);
  if (engine == "planner")
    return j;
  if (stats.outcome != llm::Outcome::kOk)
    throw Error(exec_path, "(execution)", llm::describe_outcome(stats, sys));
  const LlmTrainingSpec spec = planned_training_spec(app, sys, exe, stats, exec_path, "model");
  const SimEngineResult r =
      run_sim_engine(stats, spec, planner_topology(sys, exe.num_procs, system_path), SimEngineOptions{});
  return sim_engine_json(std::move(j), stats, app, exe, r);
}

nlohmann::json search(const std::string& model_path, const std::string& system_path, int64_t gpus, int64_t max_batch,
                      int top, int threads, const std::string& datatype_name, bool prune) {
  const auto app = llm::read_application(model_path);
  const auto sys = llm::read_system(system_path);
  if (gpus <= 0)
    throw Error("", Argument{"gpus"}, fmt::format("is {}; must be > 0", gpus));
  if (max_batch <= 0)
    throw Error("", Argument{"max_batch"}, fmt::format("is {}; must be > 0", max_batch));
  if (top <= 0)
    throw Error("", Argument{"top"}, fmt::format("is {}; must be > 0", top));
  const int datatype = sys.datatype_index(datatype_name);
  if (datatype < 0)
    throw Error(system_path, "matrix", fmt::format("has no datatype '{}'", datatype_name));
  const llm::IterationModel model(app, sys);
  llm::SearchSpec spec;
  spec.num_procs = gpus;
  spec.max_batch = max_batch;
  spec.datatype = datatype;
  spec.top_n = top;
  spec.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  spec.prune = prune;
  const llm::SearchResult r = llm::run_search(model, spec);
  nlohmann::json j;
  j["evaluated"] = r.enumerated;
  j["fully_timed"] = r.evaluated;
  j["valid"] = r.valid;
  j["pruned"] = r.pruned;
  j["seconds"] = r.seconds;
  j["threads"] = spec.threads;
  j["top"] = nlohmann::json::array();
  for (const auto& c : r.top) {
    j["top"].push_back(
        {{"execution", llm::execution_to_json(c.execution, sys)}, {"stats", llm::stats_to_json(c.stats, sys)}});
  }
  return j;
}

nlohmann::json validate(const std::string& system_path) {
  const llm::System sys = system_path.empty() ? llm::a100_80gb_system() : llm::read_system(system_path);
  return llm::validation_to_json(llm::run_validation(sys));
}

// Runs `work` without the GIL (the planner can take seconds) and converts its record with it.
template <typename Work>
py::object released(Work work) {
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    j = work();
  }
  return to_python(j);
}

}  // namespace

void register_llm(py::module_& m) {
  m.def(
      "_llm_run",
      [](const std::string& model, const std::string& system, const std::string& exec, bool bug,
         const std::string& engine) { return released([&] { return run(model, system, exec, bug, engine); }); },
      "Time one execution (use chorus.llm.run).");
  m.def(
      "_llm_search",
      [](const std::string& model, const std::string& system, int64_t gpus, int64_t max_batch, int top, int threads,
         const std::string& datatype, bool prune) {
        return released([&] { return search(model, system, gpus, max_batch, top, threads, datatype, prune); });
      },
      "Search strategies (use chorus.llm.search).");
  m.def(
      "_llm_validate", [](const std::string& system) { return released([&] { return validate(system); }); },
      "Validate the planner (use chorus.llm.validate).");
}

}  // namespace chorus::python
