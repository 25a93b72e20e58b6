// Validation of the LLM model against published measurements (chorus llm validate, and the test suite).
//
// Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023,
// arXiv:2205.05198, on A100-80GB (Selene), seq 2048, vocab 51200, data-parallel size 1:
// - Table 5: iteration time with full recompute and with sequence parallelism + selective recompute;
// - Figure 1: per-GPU parameter+optimizer memory and activation memory;
// - Figure 7: activation memory of each technique relative to the tensor-parallel baseline.
// The numbers below are the ones transcribed in tests/data/reference/llm/*.csv (the tests check that the
// two agree). The runs are rebuilt from the paper's parallel configuration (TP, PP, interleaving, batch,
// microbatch); the system is the A100-80GB preset. Error = 1 - chorus/paper, as Calculon reports it.
//
//   ValidationReport r = run_validation(system);
//   fmt::print("{:.2f}%\n", 100 * r.table5_mean_abs_error);
#pragma once

#include <string>
#include <vector>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

struct PaperModel {
  std::string name;  // "22B", "175B", "530B", "1T"
  int64_t heads = 0;
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t tp = 0;
  int64_t pp = 0;
  int64_t gpus = 0;
  int64_t global_batch = 0;
  int64_t micro_batch = 0;
  int64_t interleaving = 1;
  double t_full_s = 0;         // Table 5
  double t_seq_sel_s = 0;      // Table 5
  double params_opt_gib = 0;   // Figure 1
  double act_none_gib = 0;     // Figure 1
  double act_seq_sel_gib = 0;  // Figure 1
  double pct_seq = 0;          // Figure 7, % of the baseline
  double pct_sel = 0;
  double pct_seq_sel = 0;
  double pct_full = 0;
};

const std::vector<PaperModel>& korthikanti2022_runs();

// The training techniques of the paper, as Calculon execution settings.
enum class Technique : uint8_t { kNone, kSeq, kSel, kSeqSel, kFull };
Application paper_application(const PaperModel& m);
Execution paper_execution(const PaperModel& m, Technique t, int datatype);

struct TimeRow {
  std::string model;
  double paper_full = 0, chorus_full = 0, error_full = 0;
  double paper_seq_sel = 0, chorus_seq_sel = 0, error_seq_sel = 0;
  double mem_full_gib = 0, mem_seq_sel_gib = 0;  // tier-1 requirement
};

struct MemoryRow {
  std::string model;
  double paper_params_opt = 0, chorus_params_opt = 0, error_params_opt = 0;
  double paper_act_none = 0, chorus_act_none = 0, error_act_none = 0;
  double paper_act_seq_sel = 0, chorus_act_seq_sel = 0, error_act_seq_sel = 0;
};

struct ActivationRow {
  std::string model;
  std::string technique;
  double paper_pct = 0, chorus_pct = 0, error = 0;
};

struct ValidationReport {
  std::vector<TimeRow> table5;
  std::vector<MemoryRow> fig1;
  std::vector<ActivationRow> fig7;
  double table5_mean_abs_error = 0, table5_max_abs_error = 0;
  double fig1_params_mean_abs_error = 0, fig1_act_mean_abs_error = 0;
  double fig7_mean_abs_error = 0, fig7_max_abs_error = 0;
};

// `system` must offer float16 (the paper's runs); the A100-80GB preset is the intended one.
ValidationReport run_validation(const System& system);

}  // namespace chorus::llm
