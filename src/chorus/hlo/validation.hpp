// Checks the cost model against XLA's TPU op profiles (the profiler's CSV export: per HLO op, measured self time,
// GFLOP/s and memory bandwidth). Each non-fusion op line is rebuilt on its own (parse_instruction_line) and its
// FLOPs and predicted time compared with the measurement; fusions are counted but not rebuilt (their fused
// computations are not in the profile).
//
//   auto ops = hlo::read_op_profile("bert_tpuv3_op_profile.csv");
//   hlo::ProfileValidation v = hlo::validate_profile(ops, hlo::system_by_name("tpuv3"), "bert");
#pragma once

#include <string>
#include <vector>

#include "chorus/hlo/system.hpp"

namespace chorus::hlo {

struct ProfileOp {
  int row = 0;  // line in the CSV file
  std::string category;
  std::string hlo;          // the instruction as printed
  double self_time_us = 0;  // average per occurrence
  double gflops_per_s = 0;
  double gib_per_s = 0;
  std::string bound_by;
};

std::vector<ProfileOp> read_op_profile(const std::string& path);

struct ValidationRow {
  int row = 0;
  std::string name;
  std::string opcode;
  std::string category;
  double measured_flops = 0;  // GFLOP/s x self time
  double predicted_flops = 0;
  double measured_time_s = 0;
  double predicted_time_s = 0;
  std::string measured_bound;
  std::string predicted_bound;
  // The roofline's two terms at 100% of peak, so a fit can re-time the op under other efficiencies without
  // rebuilding it: time = max(compute_peak_s / eff[op_class], memory_peak_s / eff.memory) + op_overhead.
  bool collective = false;
  std::string op_class;  // "matrix" (dot, convolution) or "vector"
  double compute_peak_s = 0;
  double memory_peak_s = 0;
};

struct ProfileValidation {
  std::string name;
  int ops = 0;
  int fusions = 0;   // not rebuilt
  int unparsed = 0;  // lines that do not hold a whole instruction
  // Rebuilt ops that call computations the profile does not hold (a reduce's to_apply): each is taken as a scalar
  // add, one FLOP per application (parse_instruction_line), so their predicted FLOPs rest on that assumption.
  int assumed_reducers = 0;
  int collectives = 0;              // rebuilt, but outside the FLOP check
  std::vector<ValidationRow> rows;  // every rebuilt op (collectives included)
  int flop_checked = 0;             // rebuilt non-collective ops
  int flop_within_2pct = 0;         // of those, FLOPs within 2% of the measurement (both zero counts as a match)
  int flop_nonzero = 0;             // rebuilt non-collective ops with FLOPs measured or predicted
  int flop_nonzero_within_2pct = 0;
};

ProfileValidation validate_profile(const std::vector<ProfileOp>& ops, const System& system, const std::string& name);

}  // namespace chorus::hlo
