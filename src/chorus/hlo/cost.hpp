// FLOPs and bytes accessed of HLO instructions, following XLA's HloCostAnalysis conventions: a multiply-add is
// 2 FLOPs; elementwise ops 1 FLOP per output element (transcendentals such as exp and log count 0 FLOPs, as XLA
// counts them apart); a fusion's FLOPs are its fused computation's, its bytes only its operands and outputs.
//
//   hlo::CostModel costs(module);
//   hlo::OpCost c = costs.cost(module.computations[k], module.computations[k].instructions[i]);
#pragma once

#include <string>
#include <vector>

#include "chorus/hlo/module.hpp"

namespace chorus::hlo {

struct OpCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes = 0;  // operands read plus outputs written
};

class CostModel {
 public:
  explicit CostModel(const Module& module);
  OpCost cost(const Computation& c, const Instruction& in) const;
  // The FLOPs of one execution of computation k (the sum over its instructions), e.g. a fusion's body.
  double computation_flops(int k) const;
  double computation_transcendentals(int k) const;

 private:
  double dot_flops(const Computation& c, const Instruction& in) const;
  double convolution_flops(const Computation& c, const Instruction& in) const;
  double called_flops(const Instruction& in, size_t which) const;
  const Shape& operand_shape(const Computation& c, const Instruction& in, size_t i) const;

  const Module& module_;
  // Per computation, filled on first use (a cache: cost() is logically const).
  mutable std::vector<double> flops_;
  mutable std::vector<double> transcendentals_;
};

// True for ops that XLA counts as one FLOP per output element.
bool is_elementwise(const std::string& opcode);
bool is_transcendental(const std::string& opcode);
// True for ops whose bytes XLA does not count (views, tuples, control flow, parameters).
bool is_free(const std::string& opcode);
bool is_collective(const std::string& opcode);

}  // namespace chorus::hlo
