// Per-layer accounting of one transformer block (see block.hpp for the model and its sources).
#include "chorus/llm/block.hpp"

#include "chorus/llm/memory.hpp"

#include <algorithm>
#include <array>

namespace chorus::llm {
namespace {

// One layer of the block. Sizes are elements on this processor; stored_bytes is what the layer keeps
// for its backward pass when nothing is recomputed.
struct Layer {
  Unit unit = Unit::kVector;
  double fw_flops = 0;
  double agrad_flops = 0;
  double wgrad_flops = 0;
  double in = 0;
  double out = 0;
  double weights = 0;
  double stored_bytes = 0;
  bool attention_core = false;  // re-run by attention-only recompute (QK^T, softmax, dropout, AV)
};

// Linear(m, k -> n): 2mkn FLOPs for each of forward, activation gradient and weight gradient.
Layer linear(double m, double k, double n, double stored_bytes) {
  double f = 2 * m * k * n;
  return {Unit::kMatrix, f, f, f, m * k, m * n, k * n + n, stored_bytes, false};
}

// Batched matmul (b, m x k by k x n): both inputs need gradients, so the backward pass costs twice the forward.
Layer batch_matmul(double b, double m, double k, double n, double in, double out, double stored_bytes) {
  double f = 2 * b * m * k * n;
  return {Unit::kMatrix, f, 2 * f, 0, in, out, 0, stored_bytes, true};
}

Layer vector_op(double fw_per_element, double agrad_per_element, double elements, double stored_bytes) {
  return {
      Unit::kVector, fw_per_element * elements, agrad_per_element * elements, 0, elements, elements, 0, stored_bytes,
      false};
}

Layer layer_norm(double elements, double hidden, double bytes) {
  return {Unit::kVector, 9 * elements, 14 * elements,    7 * elements, elements,
          elements,      2 * hidden,   elements * bytes, false};
}

constexpr size_t kLayers = 15;
// Indices of the linears next to a TP communication point, whose compute a tiled collective can hide behind.
constexpr size_t kQkv = 1;
constexpr size_t kOutProj = 6;
constexpr size_t kMlpUp = 10;
constexpr size_t kMlpDown = 12;

std::array<Layer, kLayers> build_layers(const Application& app, const Execution& exe, double bytes) {
  const double p = static_cast<double>(exe.tensor_par);
  const double s = static_cast<double>(app.seq_size);
  const double mbs = static_cast<double>(exe.microbatch_size);
  const double m = mbs * s;
  const double h = static_cast<double>(app.hidden);
  const double d = static_cast<double>(app.attn_size);
  const bool seq_par = exe.tp_comm == TpCommType::kRsAg;
  const double full = m * h;
  const double outside_tp = seq_par ? full / p : full;  // LN, dropout, residual run on the shard with SP
  // The all-gathered input of QKV and MLP-up is kept whole unless SP re-gathers it in backward.
  const double gathered_kept = seq_par && exe.seq_par_ag_redo ? full / p : full;
  const double heads = static_cast<double>(app.attn_heads) / p;
  const double kv_total = exe.multiquery ? 1.0 : static_cast<double>(app.kv_heads);
  const double kv = std::max(kv_total / p, 1.0);  // fewer K/V heads than ranks: replicated
  const double scores = mbs * heads * s * s;
  const double q = m * heads * d;
  const double kv_elems = m * kv * d;
  const double ff = static_cast<double>(app.feedforward) / p;
  const double up_out = app.mlp == MlpKind::kSwiglu ? 2 * m * ff : m * ff;
  const double act = m * ff;

  std::array<Layer, kLayers> l;
  l[0] = layer_norm(outside_tp, h, bytes);
  l[kQkv] = linear(m, h, (heads + 2 * kv) * d, gathered_kept * bytes);
  l[2] = batch_matmul(mbs * heads, s, d, s, q + kv_elems, scores, (q + kv_elems) * bytes);
  l[3] = vector_op(5, 8, scores, scores * bytes);
  l[3].attention_core = true;
  l[4] = vector_op(1, 1, scores, scores * 1.0);  // dropout keeps a one-byte mask
  l[4].attention_core = true;
  l[5] = batch_matmul(mbs * heads, s, s, d, scores + kv_elems, q, (scores + kv_elems) * bytes);
  l[kOutProj] = linear(m, heads * d, h, q * bytes);
  l[7] = vector_op(1, 1, outside_tp, outside_tp * 1.0);
  l[8] = vector_op(1, 2, outside_tp, 0);  // residual add; its gradient also sums the fork
  l[9] = layer_norm(outside_tp, h, bytes);
  l[kMlpUp] = linear(m, h, up_out / m, gathered_kept * bytes);
  // GeLU: 8 FLOPs forward, 13 backward per element (Calculon); SwiGLU is priced the same on its gated output.
  l[11] = {Unit::kVector, 8 * act, 13 * act, 0, up_out, act, 0, up_out * bytes, false};
  // A fused activation recomputes its output inside the down-projection's backward instead of storing it.
  l[kMlpDown] = linear(m, ff, h, exe.fused_activation ? 0.0 : act * bytes);
  l[13] = vector_op(1, 1, outside_tp, outside_tp * 1.0);
  l[14] = vector_op(1, 2, outside_tp, 0);
  return l;
}

// Attention-only recompute keeps Q, K, V (inputs of the recomputed part) and drops the s^2 terms.
double stored_under_attention_recompute(const std::array<Layer, kLayers>& l, size_t i, double kv_bytes) {
  if (i == 3 || i == 4)
    return 0;
  if (i == 5)
    return kv_bytes;
  return l[i].stored_bytes;
}

struct Overlapped {
  double exposed = 0;  // network time left on the critical path plus compute slowed by the collective
};

// A collective of `link` seconds tiled into T pieces and hidden behind a linear of processing time c
// (flop time f). The collective steals a fraction u of the processor, slowing the flops to f/(1-u).
// Calculon's LinearOverlapped (llm-model.md section 2.3); `pipe` leaves one tile exposed.
double overlapped_exposed(double c, double f, double link, double tiles, double u, bool pipe) {
  const double slowed_flops = f / (1 - u);
  const double net_tile = link / tiles;
  const double flop_tile = slowed_flops / tiles;
  double extra_compute = 0;
  double exposed = 0;
  if (net_tile > flop_tile) {
    const double slowed_tile = (c - f + slowed_flops) / tiles;
    extra_compute = c / tiles + (tiles - 1) * slowed_tile - c;
    exposed = (tiles - 1) * (net_tile - flop_tile);
  } else {
    extra_compute = (tiles - 1) * net_tile * u;
  }
  if (pipe)
    exposed += net_tile;
  return std::max(0.0, extra_compute) + exposed;
}

struct LinearTimes {
  OpCost fw;
  OpCost agrad;
};

TpComm tp_comm_for(bool rs_ag, const Execution& exe, const std::array<LinearTimes, 4>& linears, double act_bytes,
                   const NetworkTier& net) {
  TpComm c;
  const auto p = exe.tensor_par;
  if (p <= 1)
    return c;
  if (!rs_ag) {
    // F is identity forward / all-reduce backward; G the reverse. All-reduces are not tiled.
    const double ar = net.op_time(Collective::kAllReduce, act_bytes, p);
    c.fw_link = c.fw_exposed = 2 * ar;
    c.bw_link = c.bw_exposed = 2 * ar;
  } else {
    const double ag = net.op_time(Collective::kAllGather, act_bytes, p);
    const double rs = net.op_time(Collective::kReduceScatter, act_bytes, p);
    const bool overlap = exe.tp_overlap != TpOverlap::kNone;
    const bool pipe = exe.tp_overlap == TpOverlap::kPipe;
    const double tiles = static_cast<double>(p);
    const double u = net.processor_usage;
    // Forward: AG before QKV and MLP-up, RS after the output projection and MLP-down. Backward: the reverse.
    const std::array<double, 4> fw_ops = {ag, rs, ag, rs};
    const std::array<double, 4> bw_ops = {rs, ag, rs, ag};
    for (size_t i = 0; i < 4; ++i) {
      c.fw_link += fw_ops[i];
      c.bw_link += bw_ops[i];
      if (overlap) {
        c.fw_exposed += overlapped_exposed(linears[i].fw.time, linears[i].fw.flop_time, fw_ops[i], tiles, u, pipe);
        c.bw_exposed +=
            overlapped_exposed(linears[i].agrad.time, linears[i].agrad.flop_time, bw_ops[i], tiles, u, pipe);
      } else {
        c.fw_exposed += fw_ops[i];
        c.bw_exposed += bw_ops[i];
      }
    }
    if (exe.seq_par_ag_redo) {
      // The sharded QKV / MLP-up inputs are gathered again for the weight gradients.
      c.bw_link += 2 * ag;
      c.bw_exposed += 2 * ag;
    }
  }
  if (exe.recompute == Recompute::kFull) {
    c.re_link = c.fw_link;
    c.re_exposed = c.fw_exposed;
  }
  return c;
}

// Reduction arithmetic of the all-reduces / reduce-scatters, on the vector unit: a(p-1)/p FLOPs each.
OpCost tp_reduction_cost(const Execution& exe, const Hardware& hw, double act_elements) {
  if (exe.tensor_par <= 1)
    return {};
  const double p = static_cast<double>(exe.tensor_par);
  const double flops = act_elements * (p - 1) / p;
  OpCost one = hw.process(flops, Unit::kVector, 2 * act_elements * hw.bytes_per_element());
  OpCost two = one;
  two += one;
  return two;  // two reducing collectives per pass
}

}  // namespace

OpCost head_cost(const Application& app, const Execution& exe, const Hardware& hw) {
  if (app.vocab == 0)
    return {};
  const double m = static_cast<double>(exe.microbatch_size * app.seq_size);
  const double h = static_cast<double>(app.hidden);
  const double v = static_cast<double>(app.vocab) / static_cast<double>(exe.tensor_par);
  const double b = hw.bytes_per_element();
  const double mem = (m * h + m * v + h * v) * b;
  const double f = 2 * m * h * v;
  OpCost c = hw.process(f, Unit::kMatrix, mem);               // logits
  c += hw.process(f, Unit::kMatrix, mem);                     // activation gradient
  c += hw.process(f, Unit::kMatrix, mem);                     // weight gradient
  c += hw.process(13 * m * v, Unit::kVector, 2 * m * v * b);  // softmax cross-entropy, forward and backward
  return c;
}

BlockCost block_cost(const Application& app, const Execution& exe, const Hardware& hw, const NetworkTier& tp_net) {
  const double b = hw.bytes_per_element();
  const auto layers = build_layers(app, exe, b);
  BlockCost out;
  out.activation_elements = static_cast<double>(exe.microbatch_size * app.seq_size * app.hidden);
  const double kv_bytes = layers[5].in > 0 ? (layers[5].in - layers[4].out) * b : 0;

  OpCost running_fw;
  std::array<LinearTimes, 4> linears{};
  double widest = 0;
  for (size_t i = 0; i < kLayers; ++i) {
    const Layer& l = layers[i];
    OpCost fw = hw.process(l.fw_flops, l.unit, (l.in + l.out + l.weights) * b);
    OpCost agrad = hw.process(l.agrad_flops, l.unit, (l.weights + l.in + l.out) * b);
    // Weight gradients accumulate into an fp32 buffer across microbatches (Megatron's fused gradient
    // accumulation into main_grad): each weight-gradient pass reads and writes 4 bytes per weight.
    OpCost wgrad = l.wgrad_flops > 0
                       ? hw.process(l.wgrad_flops, l.unit, (l.in + l.out) * b + l.weights * 2 * kGradientBytes)
                       : OpCost{};
    out.fw += fw;
    out.agrad += agrad;
    out.wgrad += wgrad;
    running_fw += fw;
    out.weights += l.weights;
    out.act_no_recompute_bytes += l.stored_bytes;
    widest = std::max(widest, l.in + l.out);
    const bool rerun = exe.recompute == Recompute::kFull || (exe.recompute == Recompute::kAttnOnly && l.attention_core);
    if (rerun) {
      out.re += fw;
      out.re_calculon += running_fw;  // Calculon's bug: the running block total instead of this layer
    }
    out.act_stored_bytes +=
        exe.recompute == Recompute::kAttnOnly ? stored_under_attention_recompute(layers, i, kv_bytes) : l.stored_bytes;
    if (i == kQkv)
      linears[0] = {fw, agrad};
    if (i == kOutProj)
      linears[1] = {fw, agrad};
    if (i == kMlpUp)
      linears[2] = {fw, agrad};
    if (i == kMlpDown)
      linears[3] = {fw, agrad};
  }
  const OpCost reduction = tp_reduction_cost(exe, hw, out.activation_elements);
  out.fw += reduction;
  out.agrad += reduction;
  if (exe.recompute == Recompute::kFull) {
    out.re += reduction;
    out.re_calculon += reduction;
  }
  out.bw = out.agrad;
  out.bw += out.wgrad;

  out.act_checkpoint_bytes = out.activation_elements * b;
  if (exe.recompute == Recompute::kFull)
    out.act_stored_bytes = out.act_checkpoint_bytes;
  // The gradient flowing in and out of the widest layer, plus the residual stream's gradient.
  out.act_grad_bytes = (widest + out.activation_elements) * b;

  const double act_bytes = out.activation_elements * b;
  const bool rs_ag_everywhere = exe.tp_comm == TpCommType::kRsAg;
  out.tp_base = tp_comm_for(rs_ag_everywhere, exe, linears, act_bytes, tp_net);
  out.tp_edge = tp_comm_for(exe.tp_comm != TpCommType::kAr, exe, linears, act_bytes, tp_net);
  // Each tensor-parallel rank sends its 1/TP share of the activation to the next stage: sequence parallelism
  // holds it sharded already, and without it Megatron's scatter/gather optimisation (Narayanan et al. 2021,
  // section 4.1) splits the replicated activation and re-gathers it over the TP network on arrival.
  out.pp_message_bytes = act_bytes / static_cast<double>(exe.tensor_par);
  if (exe.tensor_par > 1 && exe.tp_comm == TpCommType::kAr)
    out.pp_regather_time = tp_net.op_time(Collective::kAllGather, act_bytes, exe.tensor_par);
  return out;
}

}  // namespace chorus::llm
