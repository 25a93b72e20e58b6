// The iteration-time model (see iteration.hpp for the formula and its sources).
#include "chorus/llm/iteration.hpp"

#include "chorus/llm/expert_dispatch.hpp"
#include "chorus/llm/group_spread.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace chorus::llm {

IterationModel::IterationModel(const Application& app, const System& sys, Options options)
    : app_(app), sys_(sys), options_(options) {
  for (size_t i = 0; i < sys_.datatypes.size(); ++i)
    hardware_.emplace_back(sys_, static_cast<int>(i));
}

BlockCost IterationModel::block(const Execution& exe) const {
  const auto net = [this](int8_t i) { return &sys_.networks[static_cast<size_t>(i)]; };
  const NetworkTier* scale_up = net(0);
  return block_cost(app_, exe, hardware(exe.datatype),
                    {net(exe.tensor_par_net), net(exe.context_par_net), net(exe.expert_par_net), scale_up,
                     ep_ranks_per_domain(exe, scale_up->size)});
}

MemoryUse IterationModel::memory(const Execution& exe, const BlockCost& block) const {
  return memory_use(block, exe, pipeline_shape(app_, exe), hardware(exe.datatype).bytes_per_element());
}

bool IterationModel::networks_fit(const Execution& exe) const {
  // Every parallel group assigned to a tier lives inside one of its domains: the sizes of the groups
  // sharing a tier multiply. A tier that must be filled exists only in whole domains.
  for (size_t t = 0; t < sys_.networks.size(); ++t) {
    const auto tier = static_cast<int8_t>(t);
    int64_t span = 1;
    if (exe.tensor_par > 1 && exe.tensor_par_net == tier)
      span *= exe.tensor_par;
    if (exe.pipeline_par > 1 && exe.pipeline_par_net == tier)
      span *= exe.pipeline_par;
    if (exe.data_par > 1 && exe.data_par_net == tier)
      span *= exe.data_par;
    if (exe.context_par > 1 && exe.context_par_net == tier)
      span *= exe.context_par;
    // EP groups are made of data-parallel ranks: on the DP tier they are inside its groups already.
    if (exe.expert_par > 1 && exe.expert_par_net == tier && exe.data_par_net != tier)
      span *= exe.expert_par;
    const NetworkTier& net = sys_.networks[t];
    if (span > net.size)
      return false;
    if (span > 1 && net.must_be_filled && exe.num_procs % net.size != 0)
      return false;
  }
  return true;
}

namespace {

// Chunk forwards the first stage runs after its first backward: all but the warm-up ones (Megatron's interleaved
// schedule warms up with (PP - 1) x 2 + (V - 1) x PP chunk forwards, 1F1B with PP - 1, then one more forward
// precedes the first backward).
double forwards_after_first_backward(const Execution& exe, const PipelineShape& shape) {
  const int64_t pp = exe.pipeline_par;
  const int64_t v = shape.chunks;
  const int64_t total = shape.microbatches * v;
  const int64_t before = v == 1 ? pp : (pp - 1) * 2 + (v - 1) * pp + 1;
  return static_cast<double>(std::max<int64_t>(0, total - before));
}

}  // namespace

double IterationModel::dp_exposed(const Execution& exe, const Stats& st, double chunk_tp_bw_link) const {
  const double d = st.block_dp_time;
  const double blocks = static_cast<double>(st.shape.blocks_per_proc);
  if (!exe.data_par_overlap)
    return blocks * d;
  const NetworkTier& net = sys_.networks[static_cast<size_t>(exe.data_par_net)];
  const double u = net.processor_usage;
  // Compute a block's gradient reduction can hide behind: its backward (and recompute) flops, slowed by the
  // share of the processor the collective takes. Calculon's bug inflates the recompute memory time here.
  const BlockCost& b = st.block;
  const double re_mem = options_.calculon_recompute_bug ? b.re_calculon.mem_time : b.re.mem_time;
  const double block_compute = (b.bw.time + b.re.time - b.bw.mem_time - re_mem) / (1 - u);
  const double bpc = static_cast<double>(st.shape.blocks_per_chunk);
  const double pp = static_cast<double>(exe.pipeline_par);
  if (st.block_dp_mb_time > 0) {
    // ZeRO-2/3: every microbatch's backward reduce-scatters its gradients block by block, so the reductions
    // spread over the whole backward pass; only what the link cannot fit beside it, and the last block's
    // reduction (nothing runs after it), are exposed.
    const double microbatches = static_cast<double>(st.shape.microbatches);
    double backward = microbatches * blocks * block_compute;
    if (exe.tensor_par > 1 && exe.tensor_par_net == exe.data_par_net)
      backward -= microbatches * static_cast<double>(st.shape.chunks) * chunk_tp_bw_link;
    // The reductions run on their own stream, so they also hide behind the forwards that follow the first
    // backward (1F1B alternates the passes; the first stage's warm-up forwards come before any backward). Where TP
    // shares the DP tier the forwards' TP traffic would compete: then only the backward counts, as before.
    if (exe.tensor_par == 1 || exe.tensor_par_net != exe.data_par_net) {
      const double fw_compute = (b.fw.time - b.fw.mem_time) / (1 - u);
      backward +=
          forwards_after_first_backward(exe, st.shape) * static_cast<double>(st.shape.blocks_per_chunk) * fw_compute;
    }
    // The first stage, the last to finish, spends the pipeline bubble waiting between its last backwards for the
    // later stages' gradients: its reductions go on meanwhile.
    backward += st.bubble_time;
    const double last = d - (microbatches - 1) * st.block_dp_mb_time;  // its last reduce-scatter and gather
    const double exposed = std::max(last, blocks * d - (backward - block_compute));
    return exposed + std::max(0.0, blocks * d - exposed) * u;
  }
  // A chunk's gradients are final PP microbatch-backwards before the next chunk's are: that is its window.
  double window = pp * bpc * block_compute;
  if (exe.tensor_par > 1 && exe.tensor_par_net == exe.data_par_net)
    window -= pp * chunk_tp_bw_link;
  const double per_chunk = std::max(0.0, bpc * d - window);
  // The last chunk reduces block by block while its remaining blocks run backward.
  const double last = std::max(d, bpc * d - (bpc - 1) * block_compute);
  const double exposed = static_cast<double>(st.shape.chunks - 1) * per_chunk + last;
  const double hidden = std::max(0.0, blocks * d - exposed);
  return exposed + hidden * u;  // the hidden part still slows the compute it shares the processor with
}

void IterationModel::finish(const Execution& exe, Stats& st) const {
  const Hardware& hw = hardware(exe.datatype);
  const double b = hw.bytes_per_element();
  st.shape = pipeline_shape(app_, exe);
  st.memory = memory_use(st.block, exe, st.shape, b);
  st.outcome = Outcome::kOk;
  if (!networks_fit(exe))
    st.outcome = Outcome::kNetworkTooSmall;
  const auto& shape = st.shape;
  const BlockCost& blk = st.block;
  const double n_mb = static_cast<double>(shape.microbatches);
  const double bpp = static_cast<double>(shape.blocks_per_proc);
  const double v = static_cast<double>(shape.chunks);
  const double bpc = static_cast<double>(shape.blocks_per_chunk);
  const double pp = static_cast<double>(exe.pipeline_par);

  // Compute.
  st.fw_time = n_mb * bpp * blk.fw.time;
  st.bw_time = exe.training ? n_mb * bpp * blk.bw.time : 0.0;
  st.recompute_time = exe.training ? n_mb * bpp * blk.re.time : 0.0;
  if (options_.include_head) {
    st.head = head_cost(app_, exe, hw);
    const double block = blk.fw.time + (exe.training ? blk.bw.time + blk.re.time : 0.0);
    st.head_time =
        n_mb * exposed_head_time(app_.num_blocks, exe.pipeline_par, shape.blocks_per_proc, st.head.time, block);
  }

  // Tensor parallelism: per chunk, (bpc - 1) base blocks and one edge block.
  const TpComm& base = blk.tp_base;
  const TpComm& edge = blk.tp_edge;
  const double chunk_tp_fw_exposed = (bpc - 1) * base.fw_exposed + edge.fw_exposed;
  const double chunk_tp_bw_exposed = (bpc - 1) * base.bw_exposed + edge.bw_exposed;
  const double chunk_tp_re_exposed = (bpc - 1) * base.re_exposed + edge.re_exposed;
  const double chunk_tp_bw_link = (bpc - 1) * base.bw_link + edge.bw_link;
  const double train = exe.training ? 1.0 : 0.0;
  st.tp_comm_link_time = n_mb * v * ((bpc - 1) * base.fw_link + edge.fw_link + train * chunk_tp_bw_link);
  st.tp_comm_exposed_time = n_mb * v * (chunk_tp_fw_exposed + train * chunk_tp_bw_exposed);
  st.recomm_link_time = train * n_mb * v * ((bpc - 1) * base.re_link + edge.re_link);
  st.recomm_exposed_time = train * n_mb * v * chunk_tp_re_exposed;

  // Pipeline parallelism: one p2p per chunk per microbatch forward, and one backward.
  st.pp_p2p_time = 0;
  if (exe.pipeline_par > 1) {
    // Stages that share a domain send over tier 0; the others over the pipeline's tier (group_spread.hpp).
    const NetworkTier& net = sys_.networks[static_cast<size_t>(exe.pipeline_par_net)];
    const double cross = pipeline_cross_domain_share(exe, sys_);
    const double across = net.op_time(Collective::kP2p, blk.pp_message_bytes, 2);
    const double inside = cross < 1 ? sys_.networks.front().op_time(Collective::kP2p, blk.pp_message_bytes, 2) : 0.0;
    st.pp_p2p_time = cross * across + (1 - cross) * inside + blk.pp_regather_time;
  }
  st.pp_comm_link_time = (1 + train) * n_mb * v * st.pp_p2p_time;

  // Context parallelism (ring attention) and expert dispatch/combine, per block per microbatch.
  const SideComm& cp = blk.cp;
  const SideComm& ep = blk.ep;
  st.cp_comm_link_time = n_mb * bpp * (cp.fw_link + train * cp.bw_link);
  st.cp_comm_exposed_time = n_mb * bpp * (cp.fw_exposed + train * cp.bw_exposed);
  st.ep_comm_link_time = n_mb * bpp * (ep.fw_link + train * ep.bw_link);
  st.ep_comm_exposed_time = n_mb * bpp * (ep.fw_exposed + train * ep.bw_exposed);
  // Full recompute redoes the forward passes' communication too.
  const double side_re = exe.recompute == Recompute::kFull ? train * (cp.fw_exposed + ep.fw_exposed) : 0.0;
  st.recomm_exposed_time += n_mb * bpp * side_re;
  const double side_block = cp.fw_exposed + ep.fw_exposed + train * (cp.bw_exposed + ep.bw_exposed) + side_re;
  st.pp_comm_exposed_time = st.pp_comm_link_time;
  if (exe.pipeline_p2p_overlap) {
    // Each chunk's send runs beside the next chunk's compute in the same direction.
    const double fw_chunk = bpc * blk.fw.time;
    const double bw_chunk = bpc * (blk.bw.time + blk.re.time);
    st.pp_comm_exposed_time =
        n_mb * v * (std::max(0.0, st.pp_p2p_time - fw_chunk) + train * std::max(0.0, st.pp_p2p_time - bw_chunk));
  }

  // Offload to the second tier, per block per microbatch: what the block's own time cannot hide.
  const double w_bytes = blk.weights * b;
  const double fw_offload =
      std::max(exe.weight_offload ? w_bytes : 0.0, exe.activations_offload ? blk.act_stored_bytes : 0.0);
  const double bw_offload = (exe.weight_offload ? blk.weights * (b + kGradientBytes) : 0.0) +
                            (exe.activations_offload ? blk.act_stored_bytes : 0.0);
  const double fw_over = std::max(0.0, hw.mem2_time(fw_offload) - blk.fw.time);
  const double bw_over = std::max(0.0, hw.mem2_time(bw_offload) - blk.bw.time);
  st.fw_offload_exposed_time = n_mb * bpp * fw_over;
  st.bw_offload_exposed_time = train * n_mb * bpp * bw_over;

  // Optimizer step, once per block per batch, on the (sharded) weights.
  const double shard = exe.optimizer_sharding ? static_cast<double>(exe.data_par) : 1.0;
  const double w_sharded = blk.weights / shard;
  const double opt_bytes = optimizer_bytes_per_weight(b);
  OpCost optim = hw.process(11 * w_sharded, Unit::kVector, w_sharded * (2 * opt_bytes + kGradientBytes + b));
  double optim_block = optim.time;
  if (exe.optimizer_offload)
    optim_block += hw.mem2_time(2 * w_sharded * opt_bytes);
  st.optim_flops = exe.training ? bpp * optim.flops : 0.0;
  st.optim_step_time = exe.training ? bpp * optim_block : 0.0;

  // Pipeline bubble: (PP - 1) chunk times, more when interleaving meets a microbatch count PP does not divide.
  st.chunk_time = bpc * (blk.fw.time + train * (blk.bw.time + blk.re.time) + fw_over + train * bw_over) +
                  chunk_tp_fw_exposed + train * (chunk_tp_bw_exposed + chunk_tp_re_exposed) +
                  (1 + train) * st.pp_p2p_time + bpc * side_block;
  st.bubble_time = 0;
  if (exe.pipeline_par > 1) {
    const int64_t rem = shape.microbatches % exe.pipeline_par;
    double chunks = pp - 1;
    if (shape.chunks > 1 && rem != 0)
      chunks += (v - 1) * static_cast<double>(exe.pipeline_par - rem);
    st.bubble_time = chunks * st.chunk_time;
  }

  // Data parallelism: the block's weight gradients, all-reduced or reduce-scattered + all-gathered.
  st.block_dp_time = st.block_dp_mb_time = 0;
  st.fsdp_gather_link_time = st.fsdp_gather_exposed_time = 0;
  if (exe.grad_group() > 1 && exe.training) {
    // Dense weights reduce over DP x CP ranks, routed experts over the DP x CP / EP ranks holding the same experts.
    const double e_bytes = blk.expert_weights * b;
    const double d_bytes = w_bytes - e_bytes;
    const int64_t group = exe.grad_group();
    const int64_t e_group = group / exe.expert_par;
    // ZeRO-2/3 keep no whole gradient buffer, so each microbatch's gradients are reduce-scattered; the updated
    // weights are all-gathered once per iteration (ZeRO-2; ZeRO-3 gathers them where used, below).
    const bool per_microbatch = exe.fsdp == Fsdp::kZero2 || exe.fsdp == Fsdp::kZero3;
    // The dense group's members share nodes (TP below a node's size): each node reduces inside first
    // (group_spread.hpp). The expert groups keep the one-tier time.
    const int64_t per_domain = gradient_members_per_domain(exe, sys_);
    auto op = [&](Collective c, double bytes, int64_t n) {
      return spread_op_time(sys_, exe.data_par_net, c, bytes, n, n == group ? per_domain : 1);
    };
    auto microbatch_reduce = [&](double bytes, int64_t n) {
      return n > 1 && bytes > 0 && per_microbatch ? op(Collective::kReduceScatter, bytes, n) : 0.0;
    };
    auto step_reduce = [&](double bytes, int64_t n) {
      if (n <= 1 || bytes <= 0 || exe.fsdp == Fsdp::kZero3)
        return 0.0;
      if (exe.fsdp == Fsdp::kZero2)
        return op(Collective::kAllGather, bytes, n);
      return exe.optimizer_sharding ? op(Collective::kReduceScatter, bytes, n) + op(Collective::kAllGather, bytes, n)
                                    : op(Collective::kAllReduce, bytes, n);
    };
    st.block_dp_mb_time = microbatch_reduce(d_bytes, group) + microbatch_reduce(e_bytes, e_group);
    st.block_dp_time = n_mb * st.block_dp_mb_time + step_reduce(d_bytes, group) + step_reduce(e_bytes, e_group);
    if (exe.fsdp == Fsdp::kZero3) {
      // Each block's weights are all-gathered before its forward and again before its backward, every microbatch,
      // prefetched during the previous block's compute: only what that compute cannot hide is exposed.
      const double ag = op(Collective::kAllGather, d_bytes, group) +
                        (e_group > 1 && e_bytes > 0 ? op(Collective::kAllGather, e_bytes, e_group) : 0.0);
      st.fsdp_gather_link_time = n_mb * bpp * 2 * ag;
      st.fsdp_gather_exposed_time =
          n_mb * bpp * (std::max(0.0, ag - blk.fw.time) + std::max(0.0, ag - blk.bw.time - blk.re.time));
    }
  }
  st.dp_comm_link_time = bpp * st.block_dp_time;
  st.dp_comm_exposed_time = st.block_dp_time > 0 ? dp_exposed(exe, st, chunk_tp_bw_link) : 0.0;

  st.total_time = st.fw_time + st.bw_time + st.optim_step_time + st.fw_offload_exposed_time +
                  st.bw_offload_exposed_time + st.recompute_time + st.recomm_exposed_time + st.bubble_time +
                  st.tp_comm_exposed_time + st.pp_comm_exposed_time + st.dp_comm_exposed_time + st.head_time +
                  st.cp_comm_exposed_time + st.ep_comm_exposed_time + st.fsdp_gather_exposed_time;

  const double compute = st.fw_time + st.bw_time + st.optim_step_time;
  st.useful_flops = n_mb * bpp * (blk.fw.flops + train * blk.bw.flops) + st.optim_flops;
  st.compute_efficiency = compute > 0 ? st.useful_flops / hw.matrix_peak() / compute : 0.0;
  st.system_efficiency = st.total_time > 0 ? compute / st.total_time : 0.0;
  st.total_efficiency = st.compute_efficiency * st.system_efficiency;
  st.sample_rate = st.total_time > 0 ? static_cast<double>(exe.batch_size) / st.total_time : 0.0;
  const double procs = static_cast<double>(exe.num_procs);
  st.tokens_per_s_per_gpu = st.sample_rate * static_cast<double>(app_.seq_size) / procs;
  st.model_tflops_per_gpu = st.tokens_per_s_per_gpu * model_flops_per_token(app_, exe.training) / 1e12;

  if (st.outcome == Outcome::kOk &&
      (st.memory.tier1 > hw.mem1().capacity_bytes || st.memory.tier2 > hw.mem2().capacity_bytes))
    st.outcome = Outcome::kDoesNotFit;
}

double exposed_head_time(int64_t blocks, int64_t pp, int64_t blocks_per_stage, double head, double block) {
  if (pp > 1 && blocks < pp * blocks_per_stage)
    return std::max(0.0, head - block);
  return head;
}

double model_flops_per_token(const Application& app, bool training) {
  // Forward: 2 FLOPs per active weight (embedding table lookups excluded, the LM head included) plus attention
  // scores and values, 4 x seq x heads x head_dim per block; training adds the backward pass (2x forward).
  // Recompute is not counted (MFU convention, Korthikanti et al. 2022, section 6.3; Chowdhery et al. 2022).
  const double h = static_cast<double>(app.hidden);
  const double matmul_weights = app.active_parameter_count() - static_cast<double>(app.vocab + app.seq_size) * h +
                                static_cast<double>(app.vocab) * h;
  const double attention = 4.0 * static_cast<double>(app.seq_size) *
                           static_cast<double>(app.attn_heads * app.attn_size) * static_cast<double>(app.num_blocks);
  return (2 * matmul_weights + attention) * (training ? 3.0 : 1.0);
}

Stats IterationModel::evaluate(const Execution& exe) const {
  Stats st;
  st.block = block(exe);
  finish(exe, st);
  return st;
}

std::string describe_outcome(const Stats& st, const System& sys) {
  constexpr double kGiB = 1073741824.0;
  switch (st.outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kNetworkTooSmall:
      return "does not fit the network: a parallel group is larger than its network tier";
    case Outcome::kDoesNotFit:
      if (st.memory.tier1 > sys.mem1.capacity_bytes)
        return fmt::format("does not fit: needs {:.2f} GiB of {:.2f} GiB in memory tier 1 ({:.2f} GiB over)",
                           st.memory.tier1 / kGiB, sys.mem1.capacity_bytes / kGiB,
                           (st.memory.tier1 - sys.mem1.capacity_bytes) / kGiB);
      return fmt::format("does not fit: needs {:.2f} GiB of {:.2f} GiB in memory tier 2 ({:.2f} GiB over)",
                         st.memory.tier2 / kGiB, sys.mem2.capacity_bytes / kGiB,
                         (st.memory.tier2 - sys.mem2.capacity_bytes) / kGiB);
  }
  return "?";
}

}  // namespace chorus::llm
