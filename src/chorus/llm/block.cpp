// Per-layer accounting of one transformer block (see block.hpp for the model and its sources).
#include "chorus/llm/block.hpp"

#include "chorus/llm/expert_dispatch.hpp"
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
  // Identical instances on this processor (the local experts of a grouped GEMM) times the share of the blocks
  // that have this layer (a MoE model's dense blocks); every cost, weight and stored byte scales with it.
  double count = 1;
  bool expert = false;  // a routed expert's weights: their gradients are reduced over DP x CP / EP ranks
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

constexpr size_t kMaxLayers = 24;
constexpr double kStatsBytes = 4;  // fused attention's log-sum-exp, fp32 per query row and head
// Indices of the linears next to a TP communication point, whose compute a tiled collective can hide behind.
constexpr size_t kQkv = 1;
constexpr size_t kOutProj = 6;
constexpr size_t kMlpUp = 10;
constexpr size_t kMlpDown = 12;

struct Layers {
  std::array<Layer, kMaxLayers> l{};
  size_t n = 0;
  void add(const Layer& layer) { l[n++] = layer; }
};

// The MLP part of a mixture-of-experts block, appended after the block's first 10 layers at kMlpUp: the local
// experts' grouped GEMMs at kMlpUp..kMlpDown (so TP overlap still sees two linears), then the router, the
// token permutation and the shared experts. `share` is the fraction of this processor's blocks that are MoE.
void add_moe_mlp(Layers& out, const Application& app, const Execution& exe, double m, double bytes, double share) {
  const double p = static_cast<double>(exe.tensor_par);
  const double h = static_cast<double>(app.hidden);
  const double local_experts = static_cast<double>(app.experts / exe.expert_par);
  // Tokens this EP rank's experts receive: the mean (m tokens x top_k over the EP group, spread evenly) times
  // the capacity factor (padded) or the load imbalance (dropless, the busiest rank sets the pace).
  const double factor = app.capacity_factor > 0 ? app.capacity_factor : app.load_imbalance;
  const double routed = m * static_cast<double>(app.top_k) * factor;
  const double per_expert = routed / local_experts;
  const double ff = static_cast<double>(app.expert_feedforward) / p;
  const double up = app.mlp == MlpKind::kSwiglu ? 2 * ff : ff;
  Layer e_up = linear(per_expert, h, up, per_expert * h * bytes);
  Layer e_act = {Unit::kVector,
                 8 * per_expert * ff,
                 13 * per_expert * ff,
                 0,
                 per_expert * up,
                 per_expert * ff,
                 0,
                 per_expert * up * bytes,
                 false,
                 1};
  Layer e_down = linear(per_expert, ff, h, exe.fused_activation ? 0.0 : per_expert * ff * bytes);
  for (Layer* l : {&e_up, &e_act, &e_down}) {
    l->count = local_experts * share;
    l->expert = true;
    out.add(*l);
  }
  // Router: logits over the experts, then softmax and top-k selection on the vector unit.
  Layer router = linear(m, h, static_cast<double>(app.experts), m * h * bytes);
  router.count = share;
  out.add(router);
  Layer gate = vector_op(5, 8, m * static_cast<double>(app.experts), m * static_cast<double>(app.experts) * bytes);
  gate.count = share;
  out.add(gate);
  // Permute before dispatch and un-permute (weighted sum of top_k outputs) after combine: memory-bound copies.
  Layer permute = vector_op(2, 2, m * static_cast<double>(app.top_k) * h, 0);
  permute.count = share;
  out.add(permute);
  if (app.shared_experts > 0) {
    const double sff = static_cast<double>(app.shared_experts * app.expert_feedforward) / p;
    const double sup = app.mlp == MlpKind::kSwiglu ? 2 * sff : sff;
    Layer s_up = linear(m, h, sup, 0);  // its input is the stored MLP input already
    Layer s_act = {Unit::kVector, 8 * m * sff, 13 * m * sff, 0, m * sup, m * sff, 0, m * sup * bytes, false, 1};
    Layer s_down = linear(m, sff, h, exe.fused_activation ? 0.0 : m * sff * bytes);
    for (Layer* l : {&s_up, &s_act, &s_down}) {
      l->count = share;
      out.add(*l);
    }
  }
}

// Fraction of a processor's blocks that are MoE: with one pipeline stage it holds them all (dense_blocks
// included); with several, the slowest stage is one made only of MoE blocks, which sets the pipeline's pace.
double moe_share(const Application& app, const Execution& exe) {
  if (!app.moe())
    return 0;
  if (exe.pipeline_par > 1)
    return 1;
  return static_cast<double>(app.num_blocks - app.dense_blocks) / static_cast<double>(app.num_blocks);
}

// Fused (Flash) attention (Dao et al. 2022; FlashAttention-2, Dao 2023): QK^T, softmax, dropout and AV run as one
// kernel on on-chip tiles, so the mbs x heads x s_local x s score matrix never reaches HBM and is not stored for
// backward. The kernel reads Q, K, V and writes O plus the softmax log-sum-exp statistics, one fp32 per query row and
// head (mbs x heads x s_local x 4 bytes), kept for backward; dropout regenerates its mask from the RNG state.
// Backward rebuilds the scores on chip: S = QK^T once more, 2 x mbs x heads x s_local x s x (d + rope) extra matrix
// FLOPs (the forward QK^T count again, so QK^T's backward is 3x its forward), and P = exp(S - LSE), 2 vector FLOPs
// per score. The softmax and dropout FLOPs stay; only their HBM traffic and stored bytes go.
void fuse_attention(std::array<Layer, kMaxLayers>& l, double scores, double stats_elems, double bytes) {
  l[2].agrad_flops += l[2].fw_flops;
  l[2].out = 0;
  l[3].agrad_flops += 2 * scores;
  for (size_t i : {3, 4}) {
    l[i].in = l[i].out = 0;
    l[i].stored_bytes = 0;
  }
  l[5].in -= scores;  // V only
  l[5].out += stats_elems;
  l[5].stored_bytes = l[5].in * bytes + stats_elems * bytes;
}

Layers build_layers(const Application& app, const Execution& exe, double bytes) {
  const double p = static_cast<double>(exe.tensor_par);
  // Context parallelism splits the sequence: every token-wise layer sees s / CP tokens; attention computes the
  // local queries against the whole sequence's keys (ring attention).
  const double s = static_cast<double>(app.seq_size);
  const double s_local = s / static_cast<double>(exe.context_par);
  const double mbs = static_cast<double>(exe.microbatch_size);
  const double m = mbs * s_local;
  const double h = static_cast<double>(app.hidden);
  const double d = static_cast<double>(app.attn_size);
  const bool seq_par = exe.tp_comm == TpCommType::kRsAg;
  const double full = m * h;
  const double outside_tp = seq_par ? full / p : full;  // LN, dropout, residual run on the shard with SP
  // The all-gathered input of QKV and MLP-up is kept whole unless SP re-gathers it in backward.
  const double gathered_kept = seq_par && exe.seq_par_ag_redo ? full / p : full;
  const double heads = static_cast<double>(app.attn_heads) / p;
  // MLA expands its latent into per-head keys and values, so attention itself runs as multi-head.
  const double kv_total = exe.multiquery ? 1.0 : static_cast<double>(app.mla() ? app.attn_heads : app.kv_heads);
  const double kv = std::max(kv_total / p, 1.0);  // fewer K/V heads than ranks: replicated
  const double scores = mbs * heads * s_local * s;
  const double q = m * heads * d;
  const double kv_elems = m * kv * d;
  const double ff = static_cast<double>(app.feedforward) / p;
  const double up_out = app.mlp == MlpKind::kSwiglu ? 2 * m * ff : m * ff;
  const double act = m * ff;
  const double share = moe_share(app, exe);
  const double dense = 1 - share;

  Layers out;
  std::array<Layer, kMaxLayers>& l = out.l;
  l[0] = layer_norm(outside_tp, h, bytes);
  // MLA: one linear with the FLOPs and weights of its down- and up-projections; its query/key heads are wider.
  l[kQkv] = app.mla() ? linear(m, h, app.qkv_weights_per_rank(exe.tensor_par) / h, gathered_kept * bytes)
                      : linear(m, h, (heads + 2 * kv) * d, gathered_kept * bytes);
  const double dqk = d + static_cast<double>(app.rope_head_dim);
  l[2] = batch_matmul(mbs * heads, s_local, dqk, s, q + kv_elems, scores, (q + kv_elems) * bytes);
  l[3] = vector_op(5, 8, scores, scores * bytes);
  l[3].attention_core = true;
  l[4] = vector_op(1, 1, scores, scores * 1.0);  // dropout keeps a one-byte mask
  l[4].attention_core = true;
  l[5] = batch_matmul(mbs * heads, s_local, s, d, scores + kv_elems, q, (scores + kv_elems) * bytes);
  if (exe.fused_attention)  // the statistics counted in elements of the datatype, so 4 bytes each come out
    fuse_attention(l, scores, mbs * heads * s_local * kStatsBytes / bytes, bytes);
  l[kOutProj] = linear(m, heads * d, h, q * bytes);
  l[7] = vector_op(1, 1, outside_tp, outside_tp * 1.0);
  l[8] = vector_op(1, 2, outside_tp, 0);  // residual add; its gradient also sums the fork
  l[9] = layer_norm(outside_tp, h, bytes);
  out.n = 10;
  if (dense > 0) {
    Layer up = linear(m, h, up_out / m, gathered_kept * bytes);
    // GeLU: 8 FLOPs forward, 13 backward per element (Calculon); SwiGLU is priced the same on its gated output.
    Layer gelu = {Unit::kVector, 8 * act, 13 * act, 0, up_out, act, 0, up_out * bytes, false, 1};
    // A fused activation recomputes its output inside the down-projection's backward instead of storing it.
    Layer down = linear(m, ff, h, exe.fused_activation ? 0.0 : act * bytes);
    for (Layer* x : {&up, &gelu, &down}) {
      x->count = dense;
      out.add(*x);
    }
  }
  if (share > 0) {
    if (dense > 0) {
      // Keep the expert GEMMs at kMlpUp..kMlpDown for TP overlap; the dense MLP moves after them.
      add_moe_mlp(out, app, exe, m, bytes, share);
      std::rotate(l.begin() + kMlpUp, l.begin() + kMlpUp + 3, l.begin() + kMlpUp + 6);
    } else {
      add_moe_mlp(out, app, exe, m, bytes, share);
    }
  }
  out.add(vector_op(1, 1, outside_tp, outside_tp * 1.0));
  out.add(vector_op(1, 2, outside_tp, 0));
  return out;
}

// Attention-only recompute keeps Q, K, V (inputs of the recomputed part) and drops the s^2 terms.
double stored_under_attention_recompute(const std::array<Layer, kMaxLayers>& l, size_t i, double kv_bytes) {
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

// One overlapped GEMM pass against the collective's own time (TpOverlapBound). The relative margin keeps rounding
// of an exactly-met bound from counting.
void note_bound(TpOverlapBound& b, double gemm, double exposed, double collective, Collective kind) {
  ++b.passes;
  const double below = collective - (gemm + exposed);
  if (below <= collective * 1e-9)
    return;
  if (b.passes_below == 0 || below > b.collective - (b.gemm + b.exposed)) {
    b.gemm = gemm;
    b.exposed = exposed;
    b.collective = collective;
    b.kind = kind;
  }
  ++b.passes_below;
}

struct LinearTimes {
  OpCost fw;
  OpCost agrad;
  OpCost wgrad;
  Layer layer;
};

// The linear's passes and whole dimensions for the communication-hiding GEMMs (collective_matmul.hpp).
TpLinear tp_linear(const LinearTimes& t, size_t index, double m, double p) {
  const Layer& l = t.layer;
  auto pass = [&l](double flops, const OpCost& cost) {
    return TpGemm{l.unit, flops, l.in, l.out, l.weights, l.count, cost.time};
  };
  TpLinear out{pass(l.fw_flops, t.fw), pass(l.agrad_flops, t.agrad), pass(l.wgrad_flops, t.wgrad), m, 0, 0};
  const bool column = index % 2 == 0;  // QKV and MLP up split their outputs; the others their inputs
  out.k = column ? l.in / m : l.in * p / m;
  out.n = column ? l.out * p / m : l.out / m;
  return out;
}

TpComm tp_comm_for(bool rs_ag, const Execution& exe, const std::array<LinearTimes, 4>& linears, double act_bytes,
                   const NetworkTier& net, const Hardware& hw, double tokens, double kv_bytes, TpGemmDetail& detail) {
  TpComm c;
  const auto p = exe.tensor_par;
  if (p <= 1)
    return c;
  if (rs_ag && exe.tp_gemm_overlap != TpGemmOverlap::kNone) {
    std::array<TpLinear, 4> tp{};
    for (size_t i = 0; i < 4; ++i)
      tp[i] = tp_linear(linears[i], i, tokens, static_cast<double>(p));
    detail = decompose_tp_gemms(exe, hw, tp, act_bytes, kv_bytes, net);
    c.fw_link = detail.fw_link;
    c.fw_exposed = detail.fw_exposed;
    c.bw_link = detail.bw_link;
    c.bw_exposed = detail.bw_exposed;
    if (exe.seq_par_ag_redo) {
      // The re-gathers for the weight gradients stay plain All-Gathers (pipelined only; SUMMA forbids the redo).
      const double ag = net.op_time(Collective::kAllGather, act_bytes, p);
      c.bw_link += 2 * ag;
      c.bw_exposed += 2 * ag;
    }
  } else if (!rs_ag) {
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
    constexpr Collective kAg = Collective::kAllGather, kRs = Collective::kReduceScatter;
    constexpr std::array<Collective, 4> fw_kinds = {kAg, kRs, kAg, kRs};
    constexpr std::array<Collective, 4> bw_kinds = {kRs, kAg, kRs, kAg};
    for (size_t i = 0; i < 4; ++i) {
      c.fw_link += fw_ops[i];
      c.bw_link += bw_ops[i];
      if (overlap) {
        const OpCost& fw = linears[i].fw;
        const OpCost& agrad = linears[i].agrad;
        const double fw_exposed = overlapped_exposed(fw.time, fw.flop_time, fw_ops[i], tiles, u, pipe);
        const double bw_exposed = overlapped_exposed(agrad.time, agrad.flop_time, bw_ops[i], tiles, u, pipe);
        c.fw_exposed += fw_exposed;
        c.bw_exposed += bw_exposed;
        note_bound(c.bound, fw.time, fw_exposed, fw_ops[i], fw_kinds[i]);
        note_bound(c.bound, agrad.time, bw_exposed, bw_ops[i], bw_kinds[i]);
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

namespace {

OpCost times(OpCost c, double k) {
  c.flops *= k;
  c.flop_time *= k;
  c.mem_bytes *= k;
  c.mem_time *= k;
  c.time *= k;
  return c;
}

// FP8 GEMMs (Transformer Engine style): each linear's inputs are scaled and cast before the GEMM, one
// vector pass computing the absolute maximum and one scaling the values (about 3 FLOPs per element), reading the
// high-precision copy (2 bytes) and writing the 1-byte one; the backward pass casts the output gradient.
void add_fp8_casts(const Layer& l, OpCost& fw, OpCost& agrad, const Hardware& hw) {
  if (!hw.fp8() || l.unit != Unit::kMatrix || l.weights <= 0)
    return;
  const double in = l.in + l.weights;
  fw += hw.process(3 * in, Unit::kVector, 3 * in);
  agrad += hw.process(3 * l.out, Unit::kVector, 3 * l.out);
}

// Ring attention over the context-parallel group (Liu et al. 2023): CP - 1 steps, each passing this rank's K and
// V blocks to the next rank while attention runs on the blocks it holds; the backward pass also passes their
// gradients (twice the bytes). What the attention of one step cannot hide is exposed.
SideComm ring_attention(const Execution& exe, double kv_bytes, double attn_fw, double attn_bw, const NetworkTier& net) {
  SideComm c;
  if (exe.context_par <= 1)
    return c;
  const double steps = static_cast<double>(exe.context_par - 1);
  const double cp = static_cast<double>(exe.context_par);
  const double fw_step = net.op_time(Collective::kP2p, kv_bytes, 2);
  const double bw_step = net.op_time(Collective::kP2p, 2 * kv_bytes, 2);
  c.fw_link = steps * fw_step;
  c.bw_link = steps * bw_step;
  c.fw_exposed = steps * std::max(0.0, fw_step - attn_fw / cp);
  c.bw_exposed = steps * std::max(0.0, bw_step - attn_bw / cp);
  return c;
}

}  // namespace

namespace {

// ep_overlap (Megatron-Core's overlap_moe_expert_parallel_comm, DeepSeek-V3's DualPipe): the forward of one
// microbatch and the backward of another run interleaved, so each one's dispatch and combine (`pass` seconds per
// pass) hide behind the other's compute. Exposed: what the block's forward + backward compute cannot cover, plus the
// compute the hidden transfers slow by taking `usage` of the processor (as for the DP overlap). Every microbatch is
// taken as paired (the pipeline's unpaired warm-up and cool-down passes are not treated apart).
SideComm overlapped_dispatch(double pass, double compute, double usage) {
  const double comm = 2 * pass;
  const double exposed = std::max(0.0, comm - compute) + std::min(comm, compute) * usage;
  return {pass, pass, exposed / 2, exposed / 2};
}

}  // namespace

double all_to_all_time(const NetworkTier& net, double bytes, int64_t n) {
  if (n <= 1)
    return 0;
  if (net.table && net.table->has_all_to_all())
    return net.table->all_to_all(bytes, n);
  const double nn = static_cast<double>(n);
  return net.latency_s + bytes * (nn - 1) / nn / (net.bytes_per_second * net.efficiency);
}

BlockCost block_cost(const Application& app, const Execution& exe, const Hardware& hw, const BlockNets& nets) {
  const NetworkTier& tp_net = *nets.tp;
  const double b = hw.bytes_per_element();
  const Layers built = build_layers(app, exe, b);
  const auto& layers = built.l;
  // FP8 training keeps a weighted GEMM's input for backward in FP8, the tensor it already cast (Transformer Engine's
  // Linear), and everything else it stores (norm, softmax, activation-function inputs, the residual stream, the
  // checkpoints and gradients) at 16 bits: those are counted on the layers built at that width.
  const double stored_b = std::max(b, kStoredBytesFp8);
  const Layers stored_built = stored_b == b ? built : build_layers(app, exe, stored_b);
  const auto& stored_layers = stored_built.l;
  auto kept = [&](size_t i) {
    return layers[i].unit == Unit::kMatrix && layers[i].weights > 0 ? layers[i].stored_bytes
                                                                    : stored_layers[i].stored_bytes;
  };
  BlockCost out;
  const double tokens = static_cast<double>(exe.microbatch_size * app.seq_size / exe.context_par);
  out.activation_elements = tokens * static_cast<double>(app.hidden);
  const double kv_bytes = layers[5].in > 0 ? (layers[5].in - layers[4].out) * b : 0;
  const double kv_stored_bytes = layers[5].in > 0 ? (layers[5].in - layers[4].out) * stored_b : 0;

  OpCost running_fw;
  std::array<LinearTimes, 4> linears{};
  double widest = 0;
  double attn_fw = 0;
  double attn_bw = 0;
  for (size_t i = 0; i < built.n; ++i) {
    const Layer& l = layers[i];
    OpCost fw = hw.process(l.fw_flops, l.unit, (l.in + l.out + l.weights) * b);
    OpCost agrad = hw.process(l.agrad_flops, l.unit, (l.weights + l.in + l.out) * b);
    // Weight gradients accumulate into an fp32 buffer across microbatches (Megatron's fused gradient
    // accumulation into main_grad): each weight-gradient pass reads and writes 4 bytes per weight.
    OpCost wgrad = l.wgrad_flops > 0
                       ? hw.process(l.wgrad_flops, l.unit, (l.in + l.out) * b + l.weights * 2 * kGradientBytes)
                       : OpCost{};
    add_fp8_casts(l, fw, agrad, hw);
    if (l.count != 1) {
      fw = times(fw, l.count);
      agrad = times(agrad, l.count);
      wgrad = times(wgrad, l.count);
    }
    out.fw += fw;
    out.agrad += agrad;
    out.wgrad += wgrad;
    running_fw += fw;
    out.weights += l.weights * l.count;
    if (l.expert)
      out.expert_weights += l.weights * l.count;
    out.act_no_recompute_bytes += kept(i) * l.count;
    widest = std::max(widest, (l.in + l.out) * std::max(1.0, l.count));
    if (l.attention_core || i == 2) {
      attn_fw += fw.time;
      attn_bw += agrad.time;
    }
    const bool rerun = exe.recompute == Recompute::kFull || (exe.recompute == Recompute::kAttnOnly && l.attention_core);
    if (rerun) {
      out.re += fw;
      out.re_calculon += running_fw;  // Calculon's bug: the running block total instead of this layer
    }
    out.act_stored_bytes +=
        (exe.recompute == Recompute::kAttnOnly ? stored_under_attention_recompute(stored_layers, i, kv_stored_bytes)
                                               : kept(i)) *
        l.count;
    if (i == kQkv)
      linears[0] = {fw, agrad, wgrad, l};
    if (i == kOutProj)
      linears[1] = {fw, agrad, wgrad, l};
    if (i == kMlpUp)
      linears[2] = {fw, agrad, wgrad, l};
    if (i == kMlpDown)
      linears[3] = {fw, agrad, wgrad, l};
  }
  out.cp = ring_attention(exe, 2 * kv_bytes, attn_fw, attn_bw, *nets.cp);  // K and V
  const OpCost reduction = tp_reduction_cost(exe, hw, out.activation_elements);
  out.fw += reduction;
  out.agrad += reduction;
  if (exe.recompute == Recompute::kFull) {
    out.re += reduction;
    out.re_calculon += reduction;
  }
  out.bw = out.agrad;
  out.bw += out.wgrad;
  if (app.moe() && exe.expert_par > 1) {
    // Token dispatch and combine: each rank sends its 1/TP share of the m x top_k routed tokens, an All-to-All
    // over the EP group, twice forward and twice backward (Megatron-Core's alltoall dispatcher), at 16 bits or
    // more; the members sharing this rank's scale-up domain are reached over it.
    const double one =
        expert_all_to_all_time(*nets.ep, nets.scale_up, dispatch_bytes(app, exe, b), exe.expert_par, nets.ep_local);
    const double a2a = 2 * one * moe_share(app, exe);
    out.ep = {a2a, a2a, a2a, a2a};
    if (exe.ep_overlap)
      out.ep = overlapped_dispatch(a2a, out.fw.time + out.bw.time, nets.ep->processor_usage);
  }

  out.act_checkpoint_bytes = out.activation_elements * stored_b;
  if (exe.recompute == Recompute::kFull)
    out.act_stored_bytes = out.act_checkpoint_bytes;
  // The gradient flowing in and out of the widest layer, plus the residual stream's gradient.
  out.act_grad_bytes = (widest + out.activation_elements) * stored_b;

  const double act_bytes = out.activation_elements * b;
  const bool rs_ag_everywhere = exe.tp_comm == TpCommType::kRsAg;
  out.tp_base = tp_comm_for(rs_ag_everywhere, exe, linears, act_bytes, tp_net, hw, tokens, kv_bytes, out.tp_gemm);
  out.tp_edge =
      tp_comm_for(exe.tp_comm != TpCommType::kAr, exe, linears, act_bytes, tp_net, hw, tokens, kv_bytes, out.tp_gemm);
  // Each tensor-parallel rank sends its 1/TP share of the activation to the next stage: sequence parallelism
  // holds it sharded already, and without it Megatron's scatter/gather optimisation (Narayanan et al. 2021,
  // section 4.1) splits the replicated activation and re-gathers it over the TP network on arrival.
  out.pp_message_bytes = act_bytes / static_cast<double>(exe.tensor_par);
  if (exe.tensor_par > 1 && exe.tp_comm == TpCommType::kAr)
    out.pp_regather_time = tp_net.op_time(Collective::kAllGather, act_bytes, exe.tensor_par);
  return out;
}

}  // namespace chorus::llm
