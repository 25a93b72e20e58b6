// Communication-hiding GEMMs (see collective_matmul.hpp for the model and its sources).
#include "chorus/llm/collective_matmul.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "chorus/fused/pipeline.hpp"

namespace chorus::llm {
namespace {

// One step's GEMM: `count` instances of flops / parts, reading `bytes`, its FLOPs slowed by the processor share u
// that the concurrent transfer takes; plus 1/parts of whatever the whole pass costs beyond its GEMM (FP8 casts).
double step_compute(const Hardware& hw, const TpGemm& g, double parts, double bytes, double u) {
  const OpCost step = hw.process(g.flops / parts, g.unit, bytes);
  const double flop = step.flop_time / (1 - u);
  const double one = hw.roofline() ? std::max(flop, step.mem_time) : flop + step.mem_time;
  const double b = hw.bytes_per_element();
  const double whole = hw.process(g.flops, g.unit, (g.in + g.out + g.weights) * b).time * g.count;
  const double extra = std::max(0.0, g.time - whole) / parts;
  return g.count * one + extra;
}

// The tile pipeline in chorus::Time (integer picoseconds), as the fused-operator model evaluates it. The closed
// forms are homogeneous in (c, t), so a pipeline longer than kExactSeconds (a system file with an absurdly slow
// network) is evaluated in a coarser unit instead of overflowing 2^63 picoseconds.
double pipeline_seconds(double c, double t, int64_t steps, fused::PipelineOrder order) {
  constexpr double kExactSeconds = 1e6;  // 1e18 ps, well inside int64_t
  const double scale = std::max(1.0, (c + t) * static_cast<double>(steps) / kExactSeconds);
  const Time tc = Time::from_seconds(c / scale);
  const Time tt = Time::from_seconds(t / scale);
  return fused::tile_pipeline({tc, tt, tt}, static_cast<uint32_t>(steps), order).seconds() * scale;
}

DecomposedGemm choose(DecomposedGemm g) {
  const double plain = g.compute + g.collective;
  g.pipelined = std::max(g.pipelined, g.compute);  // an efficiency curve that favours small GEMMs gains nothing
  g.time = std::min(g.pipelined, plain);
  g.link = g.decomposed() ? static_cast<double>(g.steps - (g.steps > 1 ? 1 : 0)) * g.step_comm : g.collective;
  return g;
}

}  // namespace

DecomposedGemm ring_decomposed(const Hardware& hw, const TpGemm& gemm, double collective, const NetworkTier& net,
                               int64_t n) {
  DecomposedGemm g;
  g.steps = n;
  g.compute = gemm.time;
  g.collective = collective;
  const double parts = static_cast<double>(n);
  const double b = hw.bytes_per_element();
  g.step_compute =
      step_compute(hw, gemm, parts, (gemm.in / parts + gemm.out / parts + gemm.weights) * b, net.processor_usage);
  // The ring collective's bandwidth time spread over its n - 1 steps, each paying the tier's latency.
  g.step_comm = net.latency_s + (collective - net.latency_s) / (parts - 1);
  g.pipelined = pipeline_seconds(g.step_compute, g.step_comm, n, fused::PipelineOrder::GatherThenCompute);
  return choose(g);
}

int64_t SummaGrid::steps() const {
  return std::lcm(rows, cols);
}

SummaGrid summa_grid(int64_t n) {
  SummaGrid grid;
  for (int64_t r = 1; r * r <= n; ++r) {
    if (n % r == 0)
      grid.rows = r;
  }
  grid.cols = n / grid.rows;
  return grid;
}

DecomposedGemm summa_decomposed(const Hardware& hw, const TpGemm& gemm, double left, double right, double out,
                                const NetworkTier& net, const SummaGrid& grid) {
  DecomposedGemm g;
  g.steps = grid.steps();
  g.compute = gemm.time;
  const double s = static_cast<double>(g.steps);
  const double panels = left / (static_cast<double>(grid.rows) * s) + right / (static_cast<double>(grid.cols) * s);
  const double b = hw.bytes_per_element();
  // Each step reads its two panels and reads and writes the output block it accumulates into.
  const double block = out / static_cast<double>(grid.rows * grid.cols);
  g.step_compute = step_compute(hw, gemm, s, (panels + 2 * block) * b, net.processor_usage);
  // Both broadcasts of a step run at once, sharing this rank's link: one latency, the two panels' bytes.
  g.step_comm = net.latency_s + panels * b / (net.bytes_per_second * net.efficiency);
  g.collective = s * g.step_comm;
  g.pipelined = pipeline_seconds(g.step_compute, g.step_comm, g.steps, fused::PipelineOrder::ComputeThenSend);
  g = choose(g);
  g.link = g.collective;  // every panel moves whether or not the steps overlap
  return g;
}

namespace {

TpGemmDetail ring_block(const Execution& exe, const Hardware& hw, const std::array<TpLinear, 4>& linears,
                        double act_bytes, const NetworkTier& net) {
  TpGemmDetail d;
  const int64_t p = exe.tensor_par;
  const double ag = net.op_time(Collective::kAllGather, act_bytes, p);
  const double rs = net.op_time(Collective::kReduceScatter, act_bytes, p);
  for (size_t i = 0; i < 4; ++i) {
    const bool column = i % 2 == 0;  // QKV and MLP up gather forward and scatter backward; the others the reverse
    const DecomposedGemm fw = ring_decomposed(hw, linears[i].fw, column ? ag : rs, net, p);
    const DecomposedGemm bw = ring_decomposed(hw, linears[i].agrad, column ? rs : ag, net, p);
    d.add(static_cast<uint8_t>(3 * i), fw);
    d.add(static_cast<uint8_t>(3 * i + 1), bw);
    d.fw_link += fw.link;
    d.fw_exposed += fw.exposed();
    d.bw_link += bw.link;
    d.bw_exposed += bw.exposed();
  }
  return d;
}

TpGemmDetail summa_block(const Execution& exe, const Hardware& hw, const std::array<TpLinear, 4>& linears,
                         double kv_bytes, const NetworkTier& net) {
  TpGemmDetail d;
  const SummaGrid grid = summa_grid(exe.tensor_par);
  for (size_t i = 0; i < 4; ++i) {
    const TpLinear& l = linears[i];
    // Operands: forward X (m x k) by W (k x n); activation gradient dY (m x n) by W^T; weight gradient X^T by dY.
    const DecomposedGemm fw = summa_decomposed(hw, l.fw, l.m * l.k, l.k * l.n, l.m * l.n, net, grid);
    const DecomposedGemm ag = summa_decomposed(hw, l.agrad, l.m * l.n, l.k * l.n, l.m * l.k, net, grid);
    const DecomposedGemm wg = summa_decomposed(hw, l.wgrad, l.k * l.m, l.m * l.n, l.k * l.n, net, grid);
    d.add(static_cast<uint8_t>(3 * i), fw);
    d.add(static_cast<uint8_t>(3 * i + 1), ag);
    d.add(static_cast<uint8_t>(3 * i + 2), wg);
    d.fw_link += fw.link;
    d.fw_exposed += fw.exposed();
    d.bw_link += ag.link + wg.link;
    d.bw_exposed += ag.exposed() + wg.exposed();
  }
  // A rank holds 1/rows of the tokens and 1/cols of the heads; attention needs every token's K and V of its heads.
  const double gathered = 2 * kv_bytes * static_cast<double>(grid.rows);
  const double kv_fw = net.op_time(Collective::kAllGather, gathered, grid.rows);
  const double kv_bw = net.op_time(Collective::kReduceScatter, gathered, grid.rows);
  d.extra_link = kv_fw + kv_bw;
  d.fw_link += kv_fw;
  d.fw_exposed += kv_fw;
  d.bw_link += kv_bw;
  d.bw_exposed += kv_bw;
  return d;
}

}  // namespace

TpGemmDetail decompose_tp_gemms(const Execution& exe, const Hardware& hw, const std::array<TpLinear, 4>& linears,
                                double act_bytes, double kv_bytes, const NetworkTier& net) {
  if (exe.tp_gemm_overlap == TpGemmOverlap::kSumma)
    return summa_block(exe, hw, linears, kv_bytes, net);
  return ring_block(exe, hw, linears, act_bytes, net);
}

std::string tp_gemm_label(uint8_t i, TpGemmOverlap mode) {
  static const char* const kLinears[] = {"QKV", "attention output", "MLP up", "MLP down"};
  static const char* const kPasses[] = {"forward", "activation grad", "weight grad"};
  const size_t linear = i / 3;
  const size_t pass = i % 3;
  std::string how = "SUMMA";
  if (mode == TpGemmOverlap::kPipelined) {
    // Column-parallel linears (QKV, MLP up) gather before the forward GEMM and scatter after its gradient.
    const bool gather = (linear % 2 == 0) == (pass == 0);
    how = gather ? "All-Gather + GEMM" : "GEMM + Reduce-Scatter";
  }
  return fmt::format("{} {} ({})", kLinears[linear % 4], kPasses[pass], how);
}

const char* to_string(TpGemmOverlap o) {
  switch (o) {
    case TpGemmOverlap::kNone:
      return "none";
    case TpGemmOverlap::kPipelined:
      return "pipelined";
    case TpGemmOverlap::kSumma:
      return "summa";
  }
  return "?";
}

}  // namespace chorus::llm
