// Measured training runs through both engines (`chorus llm validate --engine sim`): the planner and the simulator
// engine (sim_engine.hpp) on the same system, each with its error against the measurement; nothing is fitted per run.
//
//   std::vector<EngineValidationRun> runs = table5_runs(sys);          // Korthikanti et al. 2022, Table 5
//   EngineValidationReport r = validate_engines(runs, sys, "a100-80gb");
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/llm/calibration.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus {

// A measured run: the same record `llm calibrate` reads (llm/calibration.hpp).
using EngineValidationRun = llm::MeasuredRun;

struct EngineValidationRow {
  std::string source;
  std::string name;
  double measured_s = 0;
  double planner_s = 0;
  double sim_s = 0;
  std::string skipped;  // why the simulator engine could not run it ("" when it ran)
};

// The errors of one source's runs (the rows the simulator ran): each source is its own hardware and software.
struct SourceErrors {
  std::string source;
  size_t runs = 0;
  double planner_mean_abs_error = 0;
  double sim_mean_abs_error = 0;
  double sim_max_abs_error = 0;
  double sim_vs_planner_max = 0;
};

struct EngineValidationReport {
  std::vector<EngineValidationRow> rows;
  double planner_mean_abs_error = 0;  // of 1 - predicted / measured, over the rows the simulator ran
  double sim_mean_abs_error = 0;
  double sim_max_abs_error = 0;
  double sim_vs_planner_max = 0;      // the largest |sim / planner - 1|
  std::vector<SourceErrors> sources;  // the same per source, in the order they first appear
};

// Table 5 of Korthikanti et al. 2022 (full recompute, and sequence parallelism + selective recompute), as
// `llm validate` builds its runs.
std::vector<EngineValidationRun> table5_runs(const llm::System& sys);

EngineValidationReport validate_engines(const std::vector<EngineValidationRun>& runs, const llm::System& sys,
                                        const std::string& system_name);

std::string engine_validation_table(const EngineValidationReport& r);
nlohmann::json engine_validation_json(const EngineValidationReport& r);

}  // namespace chorus
