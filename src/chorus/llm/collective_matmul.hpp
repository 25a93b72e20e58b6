// Communication-hiding GEMMs for tensor-parallel layers (execution key `tp_gemm_overlap`): a GEMM and the
// All-Gather before it or the Reduce-Scatter after it, decomposed into steps that each compute one shard while
// the network moves the next (Wang et al., "Overlap Communication with Dependent Computation via Decomposition in
// Large Deep Learning Models", ASPLOS 2023: the looped collective matmul), or the 2-D SUMMA variant
// (van de Geijn & Watts 1997) in which both operands are panel-broadcast over a grid of the TP group.
//
// 1-D (`pipelined`, N = TP ranks, N steps): step i computes the GEMM on token shard i (1/N of the rows; every step
// re-reads this rank's whole weight shard) while one ring step moves the next shard (All-Gather + GEMM) or the
// running partial sum (GEMM + Reduce-Scatter). With c one step's GEMM and t one ring step (the tier's latency +
// 1/(N-1) of the collective's bandwidth time), both orders take
//     T = c + (N - 1) max(c, t)
// (the gather order is fused::tile_pipeline's GatherThenCompute with x = o = t; the scatter order is its mirror
// image in time). 2-D (`summa`, N = R x Q ranks, R the largest divisor <= sqrt N, S = lcm(R, Q) panels): step j
// broadcasts one panel of each operand along the grid's rows and columns while the previous panel's GEMM runs:
//     T = t + (S - 1) max(c, t) + c          (fused::tile_pipeline's ComputeThenSend, symmetric in c and t)
// c comes from the planner's compute model at the shard size (the efficiency curve's lower steps: small shards
// are slower per FLOP) with the flops slowed by 1/(1 - processor_usage), the share of the GPU the transfers take.
// Where the pipeline would be slower than the GEMM then the collective, the decomposition is not used for that
// GEMM (as a compiler would decide per GEMM), so max(C, A) <= time <= C + A always.
//
//   DecomposedGemm g = ring_decomposed(hw, gemm, ag_time, tier, 8);   // g.time, g.exposed(), g.decomposed()
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/llm/hardware.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// One pass (forward, activation or weight gradient) of a tensor-parallel linear on this rank.
struct TpGemm {
  Unit unit = Unit::kMatrix;
  double flops = 0;    // this rank's FLOPs (one instance)
  double in = 0;       // elements read besides the weights, whole (gathered) rows
  double out = 0;      // elements written
  double weights = 0;  // this rank's weight shard, re-read by every step
  double count = 1;    // identical instances (grouped expert GEMMs)
  double time = 0;     // the undivided pass as the block accounting prices it (C; FP8 casts included)
};

// How one GEMM and its collective run, and the numbers that explain it.
struct DecomposedGemm {
  int64_t steps = 0;
  double compute = 0;       // C: the GEMM alone, undivided
  double collective = 0;    // A: the collective alone (as the planner times it, or the S broadcasts for SUMMA)
  double step_compute = 0;  // c
  double step_comm = 0;     // t
  double pipelined = 0;     // the step pipeline
  double time = 0;          // min(pipelined, C + A)
  double link = 0;          // network time of the chosen schedule
  bool decomposed() const { return pipelined < compute + collective; }
  double exposed() const { return time - compute; }  // on the critical path beyond the GEMM
};

// 1-D: All-Gather + GEMM or GEMM + Reduce-Scatter over n ranks; `collective` is the planner's time of the whole
// collective on `net` (one latency); the decomposition pays the latency on each of its n - 1 steps.
DecomposedGemm ring_decomposed(const Hardware& hw, const TpGemm& gemm, double collective, const NetworkTier& net,
                               int64_t n);

// The SUMMA grid of n ranks: rows = the largest divisor of n <= sqrt(n), cols = n / rows; rows < 2 means no 2-D grid.
struct SummaGrid {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t steps() const;  // lcm(rows, cols) panels
};
SummaGrid summa_grid(int64_t n);

// 2-D SUMMA of one pass whose left operand, right operand and output have `left`, `right` and `out` elements
// (whole, unsplit); each of the S steps receives left / (rows S) + right / (cols S) elements and reads and writes
// this rank's output block (out / (rows cols)).
DecomposedGemm summa_decomposed(const Hardware& hw, const TpGemm& gemm, double left, double right, double out,
                                const NetworkTier& net, const SummaGrid& grid);

// The three passes of one tensor-parallel linear and its whole GEMM dimensions: m tokens, k inputs, n outputs.
struct TpLinear {
  TpGemm fw;
  TpGemm agrad;
  TpGemm wgrad;
  double m = 0;
  double k = 0;
  double n = 0;
};

// The decomposed GEMMs of one block, kept for `chorus llm run` to say where the option wins and why.
struct TpGemmDetail {
  static constexpr size_t kMax = 12;  // 4 linears x (forward, activation gradient, weight gradient)
  std::array<DecomposedGemm, kMax> gemms{};
  std::array<uint8_t, kMax> label{};  // index into tp_gemm_label()
  size_t n = 0;
  double extra_link = 0;  // SUMMA: the K/V gathers of attention over the grid's rows (exposed)
  double fw_link = 0;     // sums over the block, as TpComm takes them
  double fw_exposed = 0;
  double bw_link = 0;
  double bw_exposed = 0;
  void add(uint8_t what, const DecomposedGemm& g) {
    if (n < kMax) {
      label[n] = what;
      gemms[n++] = g;
    }
  }
};
// The TP communication of a block's four linears (QKV, attention output, MLP up, MLP down) under `exe`'s
// tp_gemm_overlap: 1-D, each forward and activation-gradient GEMM with its All-Gather (act_bytes, the whole
// activation) or Reduce-Scatter; SUMMA, every pass of every linear, plus attention's K/V (kv_bytes as the 1-D
// layout holds them) gathered over the grid's rows forward and reduce-scattered backward, exposed.
TpGemmDetail decompose_tp_gemms(const Execution& exe, const Hardware& hw, const std::array<TpLinear, 4>& linears,
                                double act_bytes, double kv_bytes, const NetworkTier& net);

// "QKV forward (All-Gather + GEMM)" and the like, for label index i: linear i / 3, pass i % 3.
std::string tp_gemm_label(uint8_t i, TpGemmOverlap mode);

}  // namespace chorus::llm
