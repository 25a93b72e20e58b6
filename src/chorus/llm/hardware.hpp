// The processor of one execution: the matrix and vector units and memory tiers of the chosen datatype,
// flattened so that the per-layer accounting can price an op with a few multiplications.
//
// A layer-stage of F FLOPs touching M bytes takes t_flop = F / (peak * eff(F / 1e9)) on its unit and
// t_mem = M / (bandwidth * eff(M / 1e6)) in HBM; processing mode no_overlap adds them, roofline takes
// the larger (Calculon's processor model, llm-model.md section 2.3).
//
//   Hardware hw(sys, exe.datatype);
//   double t = hw.process(2.0 * m * n * k, Unit::kMatrix, bytes).time;
#pragma once

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

enum class Unit : uint8_t { kMatrix, kVector };

struct OpCost {
  double flops = 0;
  double flop_time = 0;
  double mem_bytes = 0;
  double mem_time = 0;
  double time = 0;
  OpCost& operator+=(const OpCost& o) {
    flops += o.flops;
    flop_time += o.flop_time;
    mem_bytes += o.mem_bytes;
    mem_time += o.mem_time;
    time += o.time;
    return *this;
  }
};

// Bytes per element of a Calculon datatype name; 0 when the name is unknown.
double datatype_bytes(const std::string& name);

class Hardware {
 public:
  Hardware(const System& sys, int datatype);

  double flop_time(double flops, Unit unit) const {
    if (flops <= 0)
      return 0;
    const ComputeUnit& u = unit == Unit::kMatrix ? matrix_ : vector_;
    return flops / (u.flops_per_second * u.efficiency.at(flops * 1e-9));
  }
  double mem_time(double bytes) const {
    if (bytes <= 0)
      return 0;
    return bytes / (mem1_.bytes_per_second * mem1_.efficiency.at(bytes * 1e-6));
  }
  double mem2_time(double bytes) const {
    if (bytes <= 0 || mem2_.bytes_per_second <= 0)
      return 0;
    return bytes / (mem2_.bytes_per_second * mem2_.efficiency.at(bytes * 1e-6));
  }
  OpCost process(double flops, Unit unit, double bytes) const {
    OpCost c{flops, flop_time(flops, unit), bytes, mem_time(bytes), 0};
    c.time = roofline_ ? (c.flop_time > c.mem_time ? c.flop_time : c.mem_time) : c.flop_time + c.mem_time;
    return c;
  }
  double bytes_per_element() const { return bytes_; }
  bool fp8() const { return bytes_ == 1; }  // float8: GEMM inputs pay a scale-and-cast pass
  double matrix_peak() const { return matrix_.flops_per_second; }
  bool roofline() const { return roofline_; }
  const MemoryTier& mem1() const { return mem1_; }
  const MemoryTier& mem2() const { return mem2_; }

 private:
  ComputeUnit matrix_;
  ComputeUnit vector_;
  MemoryTier mem1_;
  MemoryTier mem2_;
  bool roofline_ = false;
  double bytes_ = 2;
};

}  // namespace chorus::llm
