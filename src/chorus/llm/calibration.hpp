// Fitting a system's efficiency parameters to measured training runs (`chorus llm calibrate`).
//
// A run is a model JSON, an execution JSON and one measurement: the step time (`step_s`), tokens per second per
// GPU (`tokens_per_s_per_gpu`), model TFLOP/s per GPU (`tflops_per_gpu`) or model FLOPs utilisation in percent
// (`mfu_pct`, against the datatype's matrix peak), all turned into a measured step time.
//
// The parameters are one multiplier per op class: the matrix unit's efficiency curve (GEMMs), the vector unit's
// (memory-light kernels: layer norm, softmax, activations), HBM's (memory-bound work) and each network tier's
// efficiency; a multiplied efficiency is capped at 1. The fit minimises the mean squared log error of the step time
// plus a small pull of every log-multiplier towards 0 (a parameter the runs say nothing about stays at the
// datasheet system), by cyclic golden-section search. Leave-one-out refits without each run in turn and predicts it.
//
//   auto runs = read_measured_runs("validation/llm/megatron_readme_runs.csv", sys);
//   CalibrationResult r = calibrate(sys, runs);   // r.calibrated is the system to write
#pragma once

#include <string>
#include <vector>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

struct MeasuredRun {
  std::string source;  // the publication the number comes from
  std::string name;
  Application app;
  Execution exe;
  double measured_s = 0;  // step time
};

// CSV: `#` comment lines, then the header `source,name,model,exec,metric,value`; model and exec paths are relative
// to the CSV file. Any malformed line is an Error naming the file, the line and the column.
std::vector<MeasuredRun> read_measured_runs(const std::string& csv_path, const System& sys);

struct CalibrationParams {
  double matrix = 1;
  double vector = 1;
  double memory = 1;
  std::vector<double> network;  // one per network tier
};

System apply_calibration(const System& base, const CalibrationParams& p);

struct RunFit {
  std::string source;
  std::string name;
  double measured_s = 0;
  double before_s = 0;    // the given system
  double after_s = 0;     // fitted on all runs
  double left_out_s = 0;  // fitted on the other runs
};

struct CalibrationResult {
  CalibrationParams params;
  System calibrated;
  std::vector<RunFit> runs;
  double mean_abs_before = 0;  // of 1 - predicted / measured
  double mean_abs_after = 0;
  double mean_abs_left_out = 0;
};

// `leave_one_out`: refit once per run without it (left_out_s); the refits cost runs x one fit, so a campaign of
// hundreds of runs may skip them (left_out_s and mean_abs_left_out are then NaN).
CalibrationResult calibrate(const System& base, const std::vector<MeasuredRun>& runs, bool leave_one_out = true);

}  // namespace chorus::llm
