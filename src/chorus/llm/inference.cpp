// Prefill and decode of a served model (see inference.hpp for the model).
#include "chorus/llm/inference.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/block.hpp"
#include "chorus/llm/hardware.hpp"

namespace chorus::llm {
namespace {

constexpr double kGiB = 1073741824.0;

void check(const Application& app, const System& sys, const ServingConfig& c) {
  auto positive = [](const char* keyword, int64_t v) {
    if (v <= 0)
      throw Error("", Argument{keyword}, fmt::format("is {}; must be > 0", v));
  };
  positive("gpus", c.gpus);
  positive("tp", c.tp);
  positive("pp", c.pp);
  positive("ep", c.ep);
  positive("prompt", c.prompt);
  positive("output", c.output);
  positive("batch", c.batch);
  if (c.gpus % (c.tp * c.pp) != 0)
    throw Error("", Argument{"gpus"}, fmt::format("is {}, not a multiple of tp x pp = {}", c.gpus, c.tp * c.pp));
  const int64_t dp = c.gpus / (c.tp * c.pp);
  if (app.attn_heads % c.tp != 0 || app.hidden % c.tp != 0)
    throw Error("", Argument{"tp"},
                fmt::format("is {}; it does not divide attn_heads {} and hidden {}", c.tp, app.attn_heads, app.hidden));
  if (!app.mla() && app.kv_heads % c.tp != 0 && c.tp % app.kv_heads != 0)
    throw Error("", Argument{"tp"},
                fmt::format("is {}; it and kv_heads {} do not divide one another", c.tp, app.kv_heads));
  if (c.pp > app.num_blocks)
    throw Error("", Argument{"pp"}, fmt::format("is {}; it exceeds num_blocks {}", c.pp, app.num_blocks));
  if (c.batch % dp != 0)
    throw Error("", Argument{"batch"},
                fmt::format("is {}, not a multiple of the {} data-parallel replicas (gpus / (tp x pp))", c.batch, dp));
  if (c.ep > 1 && !app.moe())
    throw Error("", Argument{"ep"}, fmt::format("is {}; expert parallelism needs a mixture-of-experts model", c.ep));
  if (dp % c.ep != 0)
    throw Error("", Argument{"ep"}, fmt::format("is {}; it does not divide the {} data-parallel replicas", c.ep, dp));
  if (app.moe() && app.experts % c.ep != 0)
    throw Error("", Argument{"ep"}, fmt::format("is {}; it does not divide experts {}", c.ep, app.experts));
  if (app.moe() && app.expert_feedforward % c.tp != 0)
    throw Error("", Argument{"tp"},
                fmt::format("is {}; it does not divide expert_feedforward {}", c.tp, app.expert_feedforward));
  if (c.tp > sys.networks[0].size)
    throw Error(
        "", Argument{"tp"},
        fmt::format("is {}; it exceeds the scale-up domain of {} GPUs (network tier 0)", c.tp, sys.networks[0].size));
  const size_t nets = sys.networks.size();
  if (static_cast<size_t>(c.pp_net) >= nets)
    throw Error("", Argument{"system"}, "networks: needs a second network tier for pipeline parallelism");
}

// The forward-only execution of one replica for block.hpp's accounting.
Execution prefill_execution(const ServingConfig& c) {
  Execution e;
  e.tensor_par = c.tp;
  e.pipeline_par = c.pp;
  e.data_par = c.gpus / (c.tp * c.pp);
  e.num_procs = c.gpus;
  e.expert_par = c.ep;
  e.microbatch_size = c.batch / e.data_par;
  e.batch_size = c.batch;
  e.datatype = c.datatype;
  e.training = false;
  e.fused_activation = true;
  // Serving engines (vLLM, TensorRT-LLM, SGLang) run prefill attention as fused (Flash) kernels: no score matrix in
  // HBM, and no s x s working set.
  e.fused_attention = true;
  e.recompute = Recompute::kNone;
  e.tp_comm = TpCommType::kAr;
  e.tensor_par_net = c.tp_net;
  e.pipeline_par_net = c.pp_net;
  e.data_par_net = c.ep_net;
  e.expert_par_net = c.ep_net;
  e.context_par_net = c.tp_net;
  return e;
}

// Bytes of KV cache per token per block on one GPU.
double kv_bytes_per_token(const Application& app, int64_t tp, double b) {
  if (app.mla())
    return static_cast<double>(app.kv_lora_rank + app.rope_head_dim) * b;  // the latent, replicated over TP
  const double kv = std::max(static_cast<double>(app.kv_heads) / static_cast<double>(tp), 1.0);
  return 2 * kv * static_cast<double>(app.attn_size) * b;
}

struct DecodeBlock {
  double weight_bytes = 0;
  double kv_bytes = 0;
  double flops = 0;
};

// One decode step of one block on one GPU for `tokens` sequences at context `ctx`.
DecodeBlock decode_block(const Application& app, const ServingConfig& c, bool moe_block, double tokens, double ctx,
                         double b) {
  const double tp = static_cast<double>(c.tp);
  const double h = static_cast<double>(app.hidden);
  const double heads = static_cast<double>(app.attn_heads) / tp;
  const double d = static_cast<double>(app.attn_size);
  DecodeBlock out;
  const double qkv = app.mla() ? app.qkv_weights_per_rank(c.tp)
                               : h * (heads + 2 * std::max(static_cast<double>(app.kv_heads) / tp, 1.0)) * d;
  const double attn_weights = qkv + heads * d * h;
  double dense_weights = attn_weights;  // every token uses these
  double mlp_flops_weights = 0;         // weights a token multiplies in the MLP
  if (moe_block) {
    const double expert = app.mlp_weight_count(app.expert_feedforward) / tp;
    const double shared = static_cast<double>(app.shared_experts) * expert;
    const double router = h * static_cast<double>(app.experts);
    dense_weights += shared + router;
    // Tokens reaching this EP rank's experts: its own and the other EP ranks' (tokens x EP), each picking top_k
    // of E experts; an expert is read when at least one token picked it.
    const double e = static_cast<double>(app.experts);
    const double k = static_cast<double>(app.top_k);
    const double local = e / static_cast<double>(c.ep);
    const double touched = local * (1 - std::pow(1 - k / e, tokens * static_cast<double>(c.ep)));
    out.weight_bytes += touched * expert * b;
    mlp_flops_weights = k * expert;  // per token, on whichever rank holds its experts (balanced)
  } else {
    dense_weights += app.mlp_weight_count(app.feedforward) / tp;
  }
  out.weight_bytes += dense_weights * b;
  out.kv_bytes = tokens * ctx * kv_bytes_per_token(app, c.tp, b);
  // Attention over the context: scores and values, 2 FLOPs per multiply-add; MLA in its absorbed form works on
  // the latent (kv_lora_rank + rope_head_dim for scores, kv_lora_rank for values).
  const double attn_dim = app.mla() ? static_cast<double>(2 * app.kv_lora_rank + app.rope_head_dim) : 2 * d;
  out.flops = tokens * (2 * (dense_weights + mlp_flops_weights) + 2 * ctx * heads * attn_dim);
  return out;
}

}  // namespace

InferenceResult evaluate_inference(const Application& app, const System& sys, const ServingConfig& c) {
  check(app, sys, c);
  const Hardware hw(sys, c.datatype);
  const double b = hw.bytes_per_element();
  const Execution exe = prefill_execution(c);
  const NetworkTier& tp_net = sys.networks[static_cast<size_t>(c.tp_net)];
  const NetworkTier& pp_net = sys.networks[static_cast<size_t>(c.pp_net)];
  const NetworkTier& ep_net = sys.networks[static_cast<size_t>(c.ep_net)];
  const double tokens = static_cast<double>(exe.microbatch_size);  // sequences per replica
  const double blocks = static_cast<double>(app.num_blocks);
  const double stage_blocks = std::ceil(blocks / static_cast<double>(c.pp));
  const double moe_blocks = app.moe() ? static_cast<double>(app.num_blocks - app.dense_blocks) : 0.0;
  const double h = static_cast<double>(app.hidden);
  const double vocab = static_cast<double>(app.vocab) / static_cast<double>(c.tp);
  InferenceResult r;

  // Prefill: the prompt as one forward pass, stage after stage.
  Application prompt_app = app;
  prompt_app.seq_size = c.prompt;
  const BlockCost blk = block_cost(prompt_app, exe, hw, BlockNets{&tp_net, &tp_net, &ep_net});
  const double hop = c.pp > 1 ? pp_net.op_time(Collective::kP2p, blk.activation_elements * b, 2) : 0.0;
  const double head =
      app.vocab > 0 ? hw.process(2 * tokens * h * vocab, Unit::kMatrix, (vocab * h + tokens * (h + vocab)) * b).time
                    : 0.0;
  r.ttft_s =
      blocks * (blk.fw.time + blk.tp_base.fw_exposed + blk.ep.fw_exposed) + static_cast<double>(c.pp - 1) * hop + head;

  // Decode at the mean context.
  const double ctx = static_cast<double>(c.prompt) + static_cast<double>(c.output) / 2;
  const double step_ar = c.tp > 1 ? 2 * tp_net.op_time(Collective::kAllReduce, tokens * h * b, c.tp) : 0.0;
  const double step_a2a =
      c.ep > 1 ? 2 * all_to_all_time(ep_net, tokens * static_cast<double>(app.top_k) * h * b, c.ep) : 0.0;
  double tpot = 0;
  double step_flop_time = 0;
  double step_mem_time = 0;
  auto add_blocks = [&](double count, bool moe) {
    if (count <= 0)
      return;
    const DecodeBlock d = decode_block(app, c, moe, tokens, ctx, b);
    const OpCost op = hw.process(d.flops, Unit::kMatrix, d.weight_bytes + d.kv_bytes);
    tpot += count * (op.time + step_ar + (moe ? step_a2a : 0.0));
    step_flop_time += count * op.flop_time;
    step_mem_time += count * op.mem_time;
    // Per GPU: the blocks of one stage, in the same proportion.
    const double share = count / blocks * stage_blocks;
    r.decode_weight_bytes += share * d.weight_bytes;
    r.decode_kv_bytes += share * d.kv_bytes;
    r.decode_flops += share * d.flops;
  };
  add_blocks(blocks - moe_blocks, false);
  add_blocks(moe_blocks, true);
  const OpCost decode_head =
      app.vocab > 0 ? hw.process(2 * tokens * h * vocab, Unit::kMatrix, (vocab * h + tokens * (h + vocab)) * b)
                    : OpCost{};
  const double decode_hop = c.pp > 1 ? pp_net.op_time(Collective::kP2p, tokens * h * b, 2) : 0.0;
  r.tpot_s = tpot + decode_head.time + static_cast<double>(c.pp - 1) * decode_hop;
  r.decode_memory_bound = step_mem_time > step_flop_time;
  r.e2e_s = r.ttft_s + static_cast<double>(c.output - 1) * r.tpot_s;
  r.tokens_per_s = static_cast<double>(c.batch * c.output) / r.e2e_s;

  // Memory per GPU: the stage's weights (all its local experts), the LM head on the last stage, the KV cache of
  // every sequence at full length, and one block's prefill activations.
  // (block.hpp already mixes dense and MoE blocks for one stage, and counts MoE blocks only with several.)
  r.weight_bytes = (blk.weights * stage_blocks + vocab * h) * b;
  r.kv_cache_bytes =
      tokens * static_cast<double>(c.prompt + c.output) * stage_blocks * kv_bytes_per_token(app, c.tp, b);
  // Forward only: nothing is kept for a backward pass; the widest layer's input and output (and the residual
  // stream) are alive at once.
  r.workspace_bytes = blk.act_grad_bytes;
  r.memory_bytes = r.weight_bytes + r.kv_cache_bytes + r.workspace_bytes;
  r.capacity_bytes = sys.mem1.capacity_bytes;
  if (r.memory_bytes > r.capacity_bytes) {
    throw Error(
        "", Argument{"batch"},
        fmt::format("is {}; it does not fit: needs {:.2f} GiB per GPU of {:.2f} GiB ({:.2f} GiB over): weights {:.2f}, "
                    "KV cache {:.2f}, prefill working set {:.2f} GiB",
                    c.batch, r.memory_bytes / kGiB, r.capacity_bytes / kGiB, (r.memory_bytes - r.capacity_bytes) / kGiB,
                    r.weight_bytes / kGiB, r.kv_cache_bytes / kGiB, r.workspace_bytes / kGiB));
  }
  return r;
}

ServingChoice search_serving(const Application& app, const System& sys, const ServingConfig& base,
                             const LatencyTargets& targets) {
  ServingChoice best;
  std::vector<int64_t> batches;
  for (int64_t b = 1; b < base.batch; b *= 2)
    batches.push_back(b);
  batches.push_back(base.batch);
  const int64_t domain = sys.networks[0].size;
  for (int64_t tp = 1; tp <= std::min(base.gpus, domain); ++tp) {
    if (base.gpus % tp != 0)
      continue;
    for (int64_t pp = 1; pp <= base.gpus / tp; ++pp) {
      if ((base.gpus / tp) % pp != 0)
        continue;
      const int64_t dp = base.gpus / (tp * pp);
      for (int64_t ep = 1; ep <= dp; ++ep) {
        if (dp % ep != 0 || (ep > 1 && (!app.moe() || app.experts % ep != 0)))
          continue;
        for (int64_t batch : batches) {
          ServingConfig c = base;
          c.tp = tp;
          c.pp = pp;
          c.ep = ep;
          c.batch = batch;
          c.ep_net = static_cast<int8_t>(tp * ep <= domain ? 0 : c.pp_net);
          ++best.evaluated;
          InferenceResult r;
          try {
            r = evaluate_inference(app, sys, c);
          } catch (const Error&) {
            continue;  // does not divide, or does not fit: not a candidate
          }
          if ((targets.max_tpot_s > 0 && r.tpot_s > targets.max_tpot_s) ||
              (targets.max_ttft_s > 0 && r.ttft_s > targets.max_ttft_s))
            continue;
          ++best.feasible;
          if (!best.found || r.tokens_per_s > best.result.tokens_per_s) {
            best.config = c;
            best.result = r;
            best.found = true;
          }
        }
      }
    }
  }
  return best;
}

}  // namespace chorus::llm
