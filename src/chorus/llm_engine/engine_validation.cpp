// Measured training runs through both engines (see engine_validation.hpp).
#include "chorus/llm_engine/engine_validation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/validation.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "chorus/llm_engine/sim_engine.hpp"

namespace chorus {

std::vector<EngineValidationRun> table5_runs(const llm::System& sys) {
  const int fp16 = sys.datatype_index("float16");
  if (fp16 < 0)
    throw Error("system", "matrix.float16", "validation needs a float16 matrix unit");
  std::vector<EngineValidationRun> runs;
  for (const llm::PaperModel& m : llm::korthikanti2022_runs()) {
    const llm::Application app = llm::paper_application(m);
    runs.push_back({"korthikanti2022-t5", m.name + " full", app, llm::paper_execution(m, llm::Technique::kFull, fp16),
                    m.t_full_s});
    runs.push_back({"korthikanti2022-t5", m.name + " seq+sel", app,
                    llm::paper_execution(m, llm::Technique::kSeqSel, fp16), m.t_seq_sel_s});
  }
  return runs;
}

namespace {

EngineValidationRow validate_run(const EngineValidationRun& run, const llm::System& sys,
                                 const std::string& system_name) {
  EngineValidationRow row{run.source, run.name, run.measured_s, 0, 0, ""};
  const llm::IterationModel model(run.app, sys);
  const llm::Stats stats = model.evaluate(run.exe);
  row.planner_s = stats.total_time;
  try {
    const LlmTrainingSpec spec = planned_training_spec(run.app, sys, run.exe, stats, run.name, run.name);
    const SimEngineResult sim =
        run_sim_engine(stats, spec, planner_topology(sys, run.exe.num_procs, system_name), SimEngineOptions{});
    row.sim_s = sim.finish_s;
  } catch (const Error& e) {
    row.skipped = e.what();  // an execution the generator cannot express: reported, not fatal
  }
  return row;
}

// Adds a run the simulator ran to a source's (or all runs') errors; finish_errors turns the sums into means.
void add_errors(SourceErrors& e, const EngineValidationRow& row) {
  const double sim_error = std::fabs(1 - row.sim_s / row.measured_s);
  ++e.runs;
  e.planner_mean_abs_error += std::fabs(1 - row.planner_s / row.measured_s);
  e.sim_mean_abs_error += sim_error;
  e.sim_max_abs_error = std::max(e.sim_max_abs_error, sim_error);
  e.sim_vs_planner_max = std::max(e.sim_vs_planner_max, std::fabs(row.sim_s / row.planner_s - 1));
}

void finish_errors(SourceErrors& e) {
  if (e.runs > 0) {
    e.planner_mean_abs_error /= static_cast<double>(e.runs);
    e.sim_mean_abs_error /= static_cast<double>(e.runs);
  }
}

}  // namespace

EngineValidationReport validate_engines(const std::vector<EngineValidationRun>& runs, const llm::System& sys,
                                        const std::string& system_name) {
  EngineValidationReport r;
  SourceErrors all;
  for (const EngineValidationRun& run : runs) {
    EngineValidationRow row = validate_run(run, sys, system_name);
    auto it =
        std::find_if(r.sources.begin(), r.sources.end(), [&](const SourceErrors& e) { return e.source == row.source; });
    if (it == r.sources.end())
      it = r.sources.insert(r.sources.end(), SourceErrors{row.source});
    if (row.skipped.empty()) {
      add_errors(all, row);
      add_errors(*it, row);
    }
    r.rows.push_back(std::move(row));
  }
  finish_errors(all);
  for (SourceErrors& e : r.sources)
    finish_errors(e);
  r.planner_mean_abs_error = all.planner_mean_abs_error;
  r.sim_mean_abs_error = all.sim_mean_abs_error;
  r.sim_max_abs_error = all.sim_max_abs_error;
  r.sim_vs_planner_max = all.sim_vs_planner_max;
  return r;
}

std::string engine_validation_table(const EngineValidationReport& r) {
  std::string out = fmt::format("{:<20} {:<24} {:>10} {:>10} {:>8} {:>10} {:>8} {:>9}\n", "source", "run", "measured s",
                                "planner s", "error", "sim s", "error", "sim/plan");
  for (const EngineValidationRow& row : r.rows) {
    const std::string planner =
        fmt::format("{:>10.3f} {:>7.1f}%", row.planner_s, 100 * (1 - row.planner_s / row.measured_s));
    if (!row.skipped.empty()) {
      out += fmt::format("{:<20} {:<24} {:>10.3f} {} (simulator: {})\n", row.source, row.name, row.measured_s, planner,
                         row.skipped);
      continue;
    }
    out +=
        fmt::format("{:<20} {:<24} {:>10.3f} {} {:>10.3f} {:>7.1f}% {:>9.3f}\n", row.source, row.name, row.measured_s,
                    planner, row.sim_s, 100 * (1 - row.sim_s / row.measured_s), row.sim_s / row.planner_s);
  }
  for (const SourceErrors& e : r.sources) {
    if (e.runs == 0) {
      out += fmt::format("{:<20} no run the simulator could run\n", e.source);
      continue;
    }
    out += fmt::format(
        "{:<20} {} run{}: mean |error| planner {:.2f}%, simulator {:.2f}% (worst {:.1f}%); apart at most "
        "{:.1f}%\n",
        e.source, e.runs, e.runs == 1 ? "" : "s", 100 * e.planner_mean_abs_error, 100 * e.sim_mean_abs_error,
        100 * e.sim_max_abs_error, 100 * e.sim_vs_planner_max);
  }
  out += fmt::format(
      "mean |error|: planner {:.1f}%, simulator {:.1f}% (worst {:.1f}%); simulator vs planner at most {:.1f}% apart\n",
      100 * r.planner_mean_abs_error, 100 * r.sim_mean_abs_error, 100 * r.sim_max_abs_error,
      100 * r.sim_vs_planner_max);
  return out;
}

nlohmann::json engine_validation_json(const EngineValidationReport& r) {
  nlohmann::json j;
  j["runs"] = nlohmann::json::array();
  for (const EngineValidationRow& row : r.rows) {
    nlohmann::json e{{"source", row.source},       {"name", row.name}, {"measured_s", row.measured_s},
                     {"planner_s", row.planner_s}, {"sim_s", nullptr}, {"skipped", nullptr}};
    if (row.skipped.empty()) {
      e["sim_s"] = row.sim_s;
    } else {
      e["skipped"] = row.skipped;
    }
    j["runs"].push_back(std::move(e));
  }
  j["planner_mean_abs_error"] = r.planner_mean_abs_error;
  j["sim_mean_abs_error"] = r.sim_mean_abs_error;
  j["sim_max_abs_error"] = r.sim_max_abs_error;
  j["sim_vs_planner_max"] = r.sim_vs_planner_max;
  j["sources"] = nlohmann::json::array();
  for (const SourceErrors& e : r.sources) {
    j["sources"].push_back({{"source", e.source},
                            {"runs", e.runs},
                            {"planner_mean_abs_error", e.planner_mean_abs_error},
                            {"sim_mean_abs_error", e.sim_mean_abs_error},
                            {"sim_max_abs_error", e.sim_max_abs_error},
                            {"sim_vs_planner_max", e.sim_vs_planner_max}});
  }
  return j;
}

}  // namespace chorus
