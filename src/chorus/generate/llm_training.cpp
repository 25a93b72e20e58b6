// Generated LLM training iterations (see llm_training.hpp for the model and its sources).
#include "chorus/generate/llm_training.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/chakra/trace_directory.hpp"
#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/progress.hpp"
#include "chorus/llm/memory.hpp"

namespace chorus {

using chakra::CommType;
using chakra::NodeType;
using chakra::TraceNode;

namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

// Sizes and operation counts computed from the model's dimensions, range-checked before rounding: a model with
// dimensions near the readers' limits can exceed 1 PiB per tensor, which the runtime would refuse anyway.
int64_t whole(double value, double max, const char* what) {
  if (!(value >= 0 && value <= max))
    throw Error("", Argument{"model"}, fmt::format("gives a {} of {}; at most {} is supported", what, value, max));
  return std::llround(value);
}

int64_t to_bytes(double bytes) {
  return whole(bytes, static_cast<double>(kMaxSizeBytes), "tensor size in bytes");
}

}  // namespace

// Context and expert parallelism and ZeRO (see llm_training.hpp); dp, tp and pp are checked by validate().
void validate_cp_ep(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  for (const auto& [flag, value] : {std::pair{"cp", spec.cp}, std::pair{"ep", spec.ep}}) {
    if (value == 0)
      throw Error("", Argument{flag}, "must be >= 1");
    if (value > limits::kMaxNpus)
      throw Error("", Argument{flag}, fmt::format("is {}; must be at most {}", value, limits::kMaxNpus));
  }
  if (m.seq_size % spec.cp != 0)
    throw Error("", Argument{"cp"}, fmt::format("{} does not divide the model's seq_size {}", spec.cp, m.seq_size));
  if (spec.ep > 1 && !m.moe())
    throw Error("", Argument{"ep"}, fmt::format("is {}; the model has no experts", spec.ep));
  if (spec.ep > 1 && (spec.dp % spec.ep != 0 || m.experts % spec.ep != 0)) {
    throw Error("", Argument{"ep"},
                fmt::format("{} must divide dp {} and the model's experts {}", spec.ep, spec.dp, m.experts));
  }
  if (m.moe() && m.expert_feedforward % spec.tp != 0) {
    throw Error("", Argument{"tp"},
                fmt::format("{} does not divide the model's expert_feedforward {}", spec.tp, m.expert_feedforward));
  }
}

// Interleaved 1F1B needs whole chunks of layers and, as Megatron's schedule, whole rounds of microbatches.
void validate_interleaving(const LlmTrainingSpec& spec) {
  const uint32_t v = spec.interleaving;
  if (v == 0 || v > limits::kMaxMicrobatches)
    throw Error("", Argument{"pipeline_interleaving"},
                fmt::format("is {}; must be 1 to {}", v, limits::kMaxMicrobatches));
  if (v == 1)
    return;
  // As without interleaving, the first and the last virtual stage may each hold one layer less (Llama 3 405B:
  // 126 layers on 16 x 8 virtual stages, the first only the embedding, the last only the output layer).
  if (!llm::virtual_stages_hold_blocks(spec.model.num_blocks, int64_t{spec.pp} * v)) {
    throw Error("", Argument{"pipeline_interleaving"},
                fmt::format("pp {} x interleaving {} divides neither the model's num_blocks {} nor num_blocks + 2",
                            spec.pp, v, spec.model.num_blocks));
  }
  if (spec.microbatches % spec.pp != 0) {
    throw Error("", Argument{"pipeline_interleaving"},
                fmt::format("needs a multiple of pp {} microbatches (Megatron's interleaved schedule); got {}", spec.pp,
                            spec.microbatches));
  }
}

void validate(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  validate_cp_ep(spec);
  for (const auto& [flag, value] :
       {std::pair{"dp", spec.dp}, std::pair{"tp", spec.tp}, std::pair{"pp", spec.pp},
        std::pair{"microbatches", spec.microbatches}, std::pair{"microbatch_size", spec.microbatch_size}}) {
    if (value == 0)
      throw Error("", Argument{flag}, "must be >= 1");
  }
  // Each factor is bounded before the product is formed, so dp*tp*pp cannot wrap; the micro-batch count sets the
  // number of nodes per rank file (memory and disk), hence its own limit.
  for (const auto& [flag, value, limit] :
       {std::tuple{"dp", spec.dp, limits::kMaxNpus}, std::tuple{"tp", spec.tp, limits::kMaxNpus},
        std::tuple{"pp", spec.pp, limits::kMaxNpus},
        std::tuple{"microbatches", spec.microbatches, limits::kMaxMicrobatches},
        std::tuple{"microbatch_size", spec.microbatch_size, limits::kMaxNpus}}) {
    if (value > limit) {
      throw Error("", Argument{flag},
                  fmt::format("is {}; must be at most {} (see \"Limits\" in docs/cli.md)", value, limit));
    }
  }
  if (m.attn_heads % spec.tp != 0 || m.kv_heads % spec.tp != 0 || m.feedforward % spec.tp != 0) {
    throw Error("", Argument{"tp"},
                fmt::format("{} does not divide the model's attn_heads {}, kv_heads {} and feedforward {}", spec.tp,
                            m.attn_heads, m.kv_heads, m.feedforward));
  }
  if (!llm::stages_hold_blocks(m.num_blocks, spec.pp)) {
    throw Error("", Argument{"pp"},
                fmt::format("{} divides neither the model's num_blocks {} nor num_blocks + 2 (the first and last "
                            "stages one layer short, as Llama 3 405B's 126 layers on 16 stages)",
                            spec.pp, m.num_blocks));
  }
  validate_interleaving(spec);
  if (spec.sequence_parallel && m.seq_size / spec.cp * spec.microbatch_size % spec.tp != 0) {
    throw Error("", Argument{"sequence_parallel"},
                fmt::format("tp {} does not divide the {} tokens of a microbatch", spec.tp,
                            m.seq_size / spec.cp * spec.microbatch_size));
  }
  // 0.001 to 10^6 TFLOPS and 0.001 to 10^9 GB/s: outside them the node times leave chorus's time range, and the
  // error would name --model instead.
  if (!(spec.peak_tflops >= 1e-3 && spec.peak_tflops <= 1e6))
    throw Error("", Argument{"peak_perf"}, fmt::format("is {}; must be 0.001 to 1000000 TFLOPS", spec.peak_tflops));
  if (!(spec.mem_bw_gbps >= 1e-3 && spec.mem_bw_gbps <= 1e9))
    throw Error("", Argument{"mem_bw"}, fmt::format("is {}; must be 0.001 to 1e9 GB/s", spec.mem_bw_gbps));
  const uint64_t npus = uint64_t{spec.dp} * spec.tp * spec.pp * spec.cp;
  if (npus > (uint64_t{1} << 24))
    throw Error("", Argument{"dp"}, fmt::format("dp*tp*pp*cp = {} NPUs is more than chorus simulates", npus));
}

LayerWork layer_forward_work(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double t = spec.tp;
  const double e = spec.bytes_per_element;
  const double b = spec.microbatch_size;
  const double s = d(m.seq_size);
  const double s_local = s / spec.cp;  // context parallelism: this rank's queries (all s keys are visited)
  const double tokens = b * s_local;
  const double h = d(m.hidden);
  const double q = d(m.attn_heads * m.attn_size);  // query (and context) width
  const double kv = d(m.kv_heads * m.attn_size);   // key and value widths (grouped-query attention)
  const double f = d(m.feedforward);
  const double up = m.mlp == llm::MlpKind::kSwiglu ? 2 : 1;  // SwiGLU has a gate and an up projection

  LayerWork w;
  // QKV projection, Q K^T and A V (each 2*b*s*s*q), output projection: Megatron's 8bsh^2 + 4bs^2h for q = kv = h.
  w.attention.flops = (2 * tokens * h * (q + 2 * kv) + 4 * b * s_local * s * q + 2 * tokens * q * h) / t;
  // Weights read; block input read and output written; QKV written then read; scores written, read and rewritten
  // by softmax, read by A V; context written then read.
  w.attention.bytes = e * ((h * (q + 2 * kv) + q * h) / t + 2 * tokens * h + 2 * tokens * (q + 2 * kv) / t +
                           4 * b * d(m.attn_heads) / t * s_local * s + 2 * tokens * q / t);
  w.mlp.flops = (2 * tokens * h * f * up + 2 * tokens * f * h) / t;
  // Weights read; input read and output written; up projections written then read by the activation; activation
  // written then read by the down projection.
  w.mlp.bytes = e * ((up + 1) * h * f / t + 2 * tokens * h + 2 * up * tokens * f / t + 2 * tokens * f / t);
  return w;
}

bool moe_layer(const LlmTrainingSpec& spec, uint32_t layer) {
  return spec.model.moe() && layer >= spec.model.dense_blocks;
}

namespace {

// Token slots a rank's experts process per microbatch: top_k per token, padded to the capacity factor or raised to
// the busiest rank's load (the planner's accounting, block.cpp).
double routed_tokens(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size) / spec.cp;
  return tokens * d(m.top_k) * (m.capacity_factor > 0 ? m.capacity_factor : m.load_imbalance);
}

}  // namespace

MoeWork moe_forward_work(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double t = spec.tp;
  const double e = spec.bytes_per_element;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size) / spec.cp;
  const double h = d(m.hidden);
  const double f = d(m.expert_feedforward);
  const double up = m.mlp == llm::MlpKind::kSwiglu ? 2 : 1;
  const double experts = d(m.experts);
  MoeWork w;
  // Router: a h x E linear and its scores written and read.
  w.router = Work{2 * tokens * h * experts / t, e * (h * experts + 2 * tokens * h / t + 2 * tokens * experts / t)};
  // The routed slots and the shared experts' tokens through one expert MLP each (the dense MLP's accounting).
  const double slots = routed_tokens(spec) + tokens * d(m.shared_experts);
  const double local = experts / spec.ep + d(m.shared_experts);
  w.experts = Work{slots * (2 * h * f * up + 2 * f * h) / t,
                   e * (local * (up + 1) * h * f / t + slots * (2 * h + 2 * up * f / t + 2 * f / t))};
  return w;
}

int64_t moe_all_to_all_bytes(const LlmTrainingSpec& spec) {
  // The planner's payload (llm/expert_dispatch.hpp): 16-bit hidden states even when the GEMMs run in FP8.
  const llm::Application& m = spec.model;
  const double pad = m.capacity_factor > 0 ? m.capacity_factor : 1.0;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size) / spec.cp;
  const double width = std::max(spec.bytes_per_element, llm::kStoredBytesFp8);
  return to_bytes(tokens * d(m.top_k) * pad * d(m.hidden) * width / spec.tp);
}

int64_t cp_message_bytes(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size) / spec.cp;
  return to_bytes(2 * tokens * d(m.kv_heads * m.attn_size) / spec.tp * spec.bytes_per_element);
}

LayerParams layer_param_bytes(const LlmTrainingSpec& spec, uint32_t layer) {
  const llm::Application& m = spec.model;
  const double e = spec.bytes_per_element / spec.tp;
  if (!moe_layer(spec, layer))
    return LayerParams{to_bytes(m.block_weight_count() * e), 0};
  const double expert = m.mlp_weight_count(m.expert_feedforward);
  const double dense = m.moe_block_weight_count() - d(m.experts) * expert;
  return LayerParams{to_bytes(dense * e), to_bytes(d(m.experts / spec.ep) * expert * e)};
}

Work head_forward_work(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double t = spec.tp;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size) / spec.cp;
  const double h = d(m.hidden);
  const double v = d(m.vocab);
  // Logits (2*b*s*h*V / t); the weights and the input read, the logits written and read by the loss.
  return Work{2 * tokens * h * v / t, spec.bytes_per_element * (h * v / t + tokens * h + 2 * tokens * v / t)};
}

Time roofline_time(const Work& work, const LlmTrainingSpec& spec) {
  const double seconds = std::max(work.flops / (spec.peak_tflops * 1e12), work.bytes / (spec.mem_bw_gbps * 1e9));
  return checked_time_from_seconds(seconds, "", Argument{"model"});
}

int64_t tp_collective_bytes(const LlmTrainingSpec& spec) {
  return to_bytes(d(spec.microbatch_size) * d(spec.model.seq_size / spec.cp) * d(spec.model.hidden) *
                  spec.bytes_per_element);
}

int64_t pipeline_message_bytes(const LlmTrainingSpec& spec) {
  // With sequence parallelism a TP rank holds (and sends) only its 1/t sequence shard (Korthikanti et al. 2022).
  const int64_t full = tp_collective_bytes(spec);
  return spec.sequence_parallel || spec.pipeline_scatter ? full / spec.tp : full;
}

StageLayers virtual_stage_layers(const LlmTrainingSpec& spec, uint32_t virtual_stage) {
  if (spec.interleaving == 1)
    return stage_layers(spec, virtual_stage);
  const auto blocks = static_cast<uint32_t>(spec.model.num_blocks);
  const uint32_t virtual_stages = spec.pp * spec.interleaving;
  if (blocks % virtual_stages == 0)
    return StageLayers{virtual_stage * (blocks / virtual_stages), blocks / virtual_stages};
  // num_blocks + 2 = pp * v * full (validate_interleaving() checked it): the first and the last hold full - 1.
  const uint32_t full = (blocks + 2) / virtual_stages;
  const bool short_stage = virtual_stage == 0 || virtual_stage + 1 == virtual_stages;
  return StageLayers{virtual_stage == 0 ? 0 : virtual_stage * full - 1, short_stage ? full - 1 : full};
}

StageLayers stage_layers(const LlmTrainingSpec& spec, uint32_t stage) {
  const auto blocks = static_cast<uint32_t>(spec.model.num_blocks);
  if (blocks % spec.pp == 0)
    return StageLayers{stage * (blocks / spec.pp), blocks / spec.pp};
  // num_blocks + 2 = pp * full: the first and the last stage hold full - 1 layers (validate() checked it).
  const uint32_t full = (blocks + 2) / spec.pp;
  const uint32_t first = stage == 0 ? 0 : stage * full - 1;
  return StageLayers{first, stage == 0 || stage + 1 == spec.pp ? full - 1 : full};
}

int64_t stage_gradient_bytes(const LlmTrainingSpec& spec, uint32_t stage) {
  const llm::Application& m = spec.model;
  const double layers = stage_layers(spec, stage).count;
  double params = layers * m.block_weight_count() / spec.tp;
  if (m.moe()) {  // MoE layers: the parts every rank holds (layer_param_bytes' dense share)
    params = 0;
    for (uint32_t c = 0; c < spec.interleaving; ++c) {
      const StageLayers chunk = virtual_stage_layers(spec, c * spec.pp + stage);
      for (uint32_t l = chunk.first; l < chunk.first + chunk.count; ++l)
        params += d(layer_param_bytes(spec, l).dense) / spec.bytes_per_element;
    }
  }
  const double embedding = d(m.vocab) * d(m.hidden) / spec.tp;
  if (stage == 0)
    params += embedding;
  if (stage + 1 == spec.pp)
    params += embedding;
  return to_bytes(params * spec.bytes_per_element);
}

std::vector<PipelineStep> one_f_one_b(uint32_t stage, uint32_t stages, uint32_t microbatches) {
  // PipeDream-Flush (Narayanan et al. 2021, fig. 4): earlier stages keep more microbatches in flight.
  const uint32_t warmup = std::min(stages - stage - 1, microbatches);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * size_t{microbatches});
  for (uint32_t m = 0; m < warmup; ++m)
    steps.push_back({Pass::Forward, m});
  for (uint32_t i = 0; i + warmup < microbatches; ++i) {
    steps.push_back({Pass::Forward, warmup + i});
    steps.push_back({Pass::Backward, i});
  }
  for (uint32_t m = microbatches - warmup; m < microbatches; ++m)
    steps.push_back({Pass::Backward, m});
  return steps;
}

std::vector<PipelineStep> interleaved_one_f_one_b(uint32_t stage, uint32_t stages, uint32_t chunks,
                                                  uint32_t microbatches) {
  if (chunks == 1)
    return one_f_one_b(stage, stages, microbatches);
  const uint64_t total = uint64_t{microbatches} * chunks;
  const uint64_t round = uint64_t{stages} * chunks;
  const auto step = [&](Pass pass, uint64_t k) {
    const auto in_round = static_cast<uint32_t>(k % round);
    const uint32_t chunk = in_round / stages;
    return PipelineStep{pass, static_cast<uint32_t>(k / round * stages + in_round % stages),
                        pass == Pass::Forward ? chunk : chunks - 1 - chunk};
  };
  const uint64_t warmup = std::min<uint64_t>(total, uint64_t{stages - stage - 1} * 2 + uint64_t{chunks - 1} * stages);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * total);
  for (uint64_t k = 0; k < warmup; ++k)
    steps.push_back(step(Pass::Forward, k));
  for (uint64_t i = 0; i + warmup < total; ++i) {
    steps.push_back(step(Pass::Forward, warmup + i));
    steps.push_back(step(Pass::Backward, i));
  }
  for (uint64_t k = total - warmup; k < total; ++k)
    steps.push_back(step(Pass::Backward, k));
  return steps;
}

RankCoords rank_coords(const LlmTrainingSpec& spec, uint32_t rank) {
  const uint32_t tc = spec.tp * spec.cp;
  return RankCoords{rank / tc % spec.dp, rank % spec.tp, rank / (tc * spec.dp), rank / spec.tp % spec.cp};
}

uint32_t rank_of(const LlmTrainingSpec& spec, RankCoords c) {
  return ((c.pp * spec.dp + c.dp) * spec.cp + c.cp) * spec.tp + c.tp;
}

namespace {

// Groups are numbered in blocks: TP, gradient (DP x CP), EP, expert gradient; each block exists only when its
// groups have more than one member. These give the first name of each block.
uint32_t tp_groups(const LlmTrainingSpec& s) {
  return s.tp > 1 ? s.dp * s.cp * s.pp : 0;
}
uint32_t dp_groups(const LlmTrainingSpec& s) {
  return s.grad_group() > 1 ? s.pp * s.tp : 0;
}
uint32_t ep_groups(const LlmTrainingSpec& s) {
  return s.ep > 1 ? s.pp * s.cp * s.tp * (s.dp / s.ep) : 0;
}

}  // namespace

std::string tp_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  return std::to_string(1 + (c.pp * spec.dp + c.dp) * spec.cp + c.cp);
}

std::string dp_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  return std::to_string(1 + tp_groups(spec) + c.pp * spec.tp + c.tp);
}

std::string ep_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  const uint32_t index = ((c.pp * spec.cp + c.cp) * spec.tp + c.tp) * (spec.dp / spec.ep) + c.dp / spec.ep;
  return std::to_string(1 + tp_groups(spec) + dp_groups(spec) + index);
}

std::string expert_dp_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  const uint32_t index = (c.pp * spec.tp + c.tp) * spec.ep + c.dp % spec.ep;
  return std::to_string(1 + tp_groups(spec) + dp_groups(spec) + ep_groups(spec) + index);
}

namespace {

// EP groups (ep consecutive DP ranks of one (pp, cp, tp)) and the expert gradient groups (the DP x CP ranks of one
// (pp, tp) holding the same experts: equal dp % ep).
void append_expert_groups(const LlmTrainingSpec& spec, std::vector<NamedGroup>& groups) {
  if (spec.ep > 1) {
    for (uint32_t p = 0; p < spec.pp; ++p) {
      for (uint32_t c = 0; c < spec.cp; ++c) {
        for (uint32_t t = 0; t < spec.tp; ++t) {
          for (uint32_t first = 0; first < spec.dp; first += spec.ep) {
            NamedGroup g{ep_group_name(spec, {first, t, p, c}), {}};
            for (uint32_t r = first; r < first + spec.ep; ++r)
              g.npus.push_back(rank_of(spec, {r, t, p, c}));
            groups.push_back(std::move(g));
          }
        }
      }
    }
  }
  if (!spec.model.moe() || spec.ep <= 1 || spec.grad_group() / spec.ep <= 1)
    return;
  for (uint32_t p = 0; p < spec.pp; ++p) {
    for (uint32_t t = 0; t < spec.tp; ++t) {
      for (uint32_t k = 0; k < spec.ep; ++k) {
        NamedGroup g{expert_dp_group_name(spec, {k, t, p}), {}};
        for (uint32_t r = k; r < spec.dp; r += spec.ep) {
          for (uint32_t c = 0; c < spec.cp; ++c)
            g.npus.push_back(rank_of(spec, {r, t, p, c}));
        }
        groups.push_back(std::move(g));
      }
    }
  }
}

}  // namespace

std::vector<NamedGroup> llm_comm_groups(const LlmTrainingSpec& spec) {
  std::vector<NamedGroup> groups;
  if (spec.tp > 1) {
    for (uint32_t p = 0; p < spec.pp; ++p) {
      for (uint32_t r = 0; r < spec.dp; ++r) {
        for (uint32_t c = 0; c < spec.cp; ++c) {
          NamedGroup g{tp_group_name(spec, {r, 0, p, c}), {}};
          for (uint32_t t = 0; t < spec.tp; ++t)
            g.npus.push_back(rank_of(spec, {r, t, p, c}));
          groups.push_back(std::move(g));
        }
      }
    }
  }
  if (spec.grad_group() > 1) {
    for (uint32_t p = 0; p < spec.pp; ++p) {
      for (uint32_t t = 0; t < spec.tp; ++t) {
        NamedGroup g{dp_group_name(spec, {0, t, p}), {}};
        for (uint32_t r = 0; r < spec.dp; ++r) {
          for (uint32_t c = 0; c < spec.cp; ++c)
            g.npus.push_back(rank_of(spec, {r, t, p, c}));
        }
        groups.push_back(std::move(g));
      }
    }
  }
  append_expert_groups(spec, groups);
  return groups;
}

namespace {

// Builds one rank's trace as a single in-order stream: every node but the sends depends on the stream's tail.
class RankTraceBuilder {
 public:
  RankTraceBuilder(const LlmTrainingSpec& spec, uint32_t rank)
      : spec_(spec),
        at_(rank_coords(spec, rank)),
        work_(layer_forward_work(spec)),
        moe_(spec.model.moe() ? moe_forward_work(spec) : MoeWork{}),
        tp_group_(tp_group_name(spec, at_)),
        dp_group_(dp_group_name(spec, at_)),
        ep_group_(spec.ep > 1 ? ep_group_name(spec, at_) : ""),
        expert_dp_group_(spec.ep > 1 && spec.grad_group() / spec.ep > 1 ? expert_dp_group_name(spec, at_) : "") {
    trace_.version = "0.0.4";
    if (spec.planned)
      plan_factors(*spec.planned);
  }

  chakra::ChakraTrace build() {
    for (const PipelineStep& step : interleaved_one_f_one_b(at_.pp, spec_.pp, spec_.interleaving, spec_.microbatches)) {
      if (step.pass == Pass::Forward) {
        forward(step.microbatch, step.chunk);
      } else {
        backward(step.microbatch, step.chunk);
      }
    }
    gradient_sync();
    return std::move(trace_);
  }

 private:
  bool first_stage() const { return at_.pp == 0; }
  bool last_stage() const { return at_.pp + 1 == spec_.pp; }
  uint32_t virtual_stages() const { return spec_.pp * spec_.interleaving; }
  uint32_t stage_rank(uint32_t virtual_stage) const {
    return rank_of(spec_, {at_.dp, at_.tp, virtual_stage % spec_.pp, at_.cp});
  }
  // "mb3" without interleaving, "mb3.c1" with it (the chunk's messages).
  std::string step_name(uint32_t mb, uint32_t chunk) const {
    return spec_.interleaving == 1 ? fmt::format("mb{}", mb) : fmt::format("mb{}.c{}", mb, chunk);
  }

  // The roofline splits each planned block time among the block's nodes: a factor per pass, from the roofline
  // time of an average layer (dense and MoE layers as the model has them) and of the LM head.
  void plan_factors(const PlannerTimes& planned) {
    double layer_s = 0;
    const auto seconds = [&](const Work& w) { return roofline_time(w, spec_).seconds(); };
    for (uint32_t l = 0; l < spec_.model.num_blocks; ++l) {
      layer_s += seconds(work_.attention) +
                 (moe_layer(spec_, l) ? seconds(moe_.router) + seconds(moe_.experts) : seconds(work_.mlp));
    }
    layer_s /= d(spec_.model.num_blocks);
    if (layer_s > 0) {
      forward_factor_ = planned.block_forward_s / layer_s;
      backward_factor_ = planned.block_backward_s / (2 * layer_s);
    }
    const double head_s = spec_.model.vocab > 0 ? seconds(head_forward_work(spec_)) : 0;
    if (head_s > 0)
      head_factor_ = planned.head_s / (3 * head_s);
  }
  uint32_t ring_peer(uint32_t step) const {
    return rank_of(spec_, {at_.dp, at_.tp, at_.pp, (at_.cp + step) % spec_.cp});
  }
  bool zero3() const { return spec_.fsdp == llm::Fsdp::kZero3; }
  bool per_layer_reduce_scatter() const { return spec_.fsdp == llm::Fsdp::kZero2 || zero3(); }

  void forward(uint32_t mb, uint32_t chunk) {
    const uint32_t vs = chunk * spec_.pp + at_.pp;
    const StageLayers layers = virtual_stage_layers(spec_, vs);
    factor_ = forward_factor_;
    if (vs > 0)
      receive(stage_rank(vs - 1), activation_tag(mb, vs - 1), step_name(mb, chunk) + ".recv_activation");
    for (uint32_t l = 0; l < layers.count; ++l) {
      const uint32_t layer = layers.first + l;
      if (zero3())
        gather_layer(mb, layer, Pass::Forward, l == 0, l + 1 < layers.count ? layer + 1 : layer);
      attention_half(fmt::format("mb{}.L{}.attn.fwd", mb, layer), mb, layer, Pass::Forward);
      mlp_half(fmt::format("mb{}.L{}.mlp.fwd", mb, layer), layer, Pass::Forward);
    }
    if (vs + 1 == virtual_stages() && spec_.model.vocab > 0)
      compute(fmt::format("mb{}.head.fwd", mb), head_forward_work(spec_), 1, head_factor_);
    if (vs + 1 < virtual_stages())
      send(stage_rank(vs + 1), activation_tag(mb, vs), step_name(mb, chunk) + ".send_activation");
  }

  void backward(uint32_t mb, uint32_t chunk) {
    const uint32_t vs = chunk * spec_.pp + at_.pp;
    const StageLayers layers = virtual_stage_layers(spec_, vs);
    factor_ = backward_factor_;
    if (vs + 1 < virtual_stages())
      receive(stage_rank(vs + 1), gradient_tag(mb, vs), step_name(mb, chunk) + ".recv_gradient");
    if (vs + 1 == virtual_stages() && spec_.model.vocab > 0)
      compute(fmt::format("mb{}.head.bwd", mb), head_forward_work(spec_), 2, head_factor_);
    // Megatron's last microbatch is the last backward of every chunk: its layers' gradients are final.
    const bool final_gradients = mb + 1 == spec_.microbatches;
    for (uint32_t l = layers.count; l-- > 0;) {
      const uint32_t layer = layers.first + l;
      if (zero3())
        gather_layer(mb, layer, Pass::Backward, l + 1 == layers.count, l > 0 ? layer - 1 : layer);
      recompute_layer(mb, layer);
      mlp_half(fmt::format("mb{}.L{}.mlp.bwd", mb, layer), layer, Pass::Backward);
      attention_half(fmt::format("mb{}.L{}.attn.bwd", mb, layer), mb, layer, Pass::Backward);
      if (per_layer_reduce_scatter()) {
        reduce_scatter_layer(fmt::format("mb{}.L{}", mb, layer), layer);
      } else if (spec_.overlap_dp && final_gradients) {
        reduce_layer(fmt::format("L{}", layer), layer);
      }
    }
    if (vs > 0)
      send(stage_rank(vs - 1), gradient_tag(mb, vs - 1), step_name(mb, chunk) + ".send_gradient");
  }

  // Activation recompute before a layer's backward: the layer's forward (full) or its attention (attention-only),
  // with full recompute's TP collectives done again.
  void recompute_layer(uint32_t mb, uint32_t layer) {
    if (spec_.recompute == llm::Recompute::kNone)
      return;
    const std::string name = fmt::format("mb{}.L{}.recompute", mb, layer);
    const bool full = spec_.recompute == llm::Recompute::kFull;
    if (spec_.planned) {
      compute_node(name, Work{}, spec_.planned->block_recompute_s);
    } else {
      Work w = work_.attention;
      if (full) {
        const bool moe = moe_layer(spec_, layer);
        w.flops += moe ? moe_.router.flops + moe_.experts.flops : work_.mlp.flops;
        w.bytes += moe ? moe_.router.bytes + moe_.experts.bytes : work_.mlp.bytes;
      }
      compute(name, w, 1, 1);
    }
    if (!full || spec_.tp == 1)
      return;
    for (const char* half : {".attn", ".mlp"}) {
      if (spec_.sequence_parallel) {
        collective(name + half + ".tp_all_gather", CommType::AllGather, tp_collective_bytes(spec_) / spec_.tp,
                   tp_group_);
        collective(name + half + ".tp_reduce_scatter", CommType::ReduceScatter, tp_collective_bytes(spec_), tp_group_);
      } else {
        collective(name + half + ".tp_all_reduce", CommType::AllReduce, tp_collective_bytes(spec_), tp_group_);
      }
    }
  }

  // One layer half (attention or MLP) with its TP communication: All-Reduce after it (Megatron's g in the
  // forward, f's conjugate in the backward), or All-Gather before and Reduce-Scatter after it under sequence
  // parallelism (Korthikanti et al. 2022, fig. 5), in both passes. `body` adds the half's own nodes.
  // With `ag_redo` the backward gathers the half's input once more (it was not kept from the forward).
  // With `tp_overlap` the half's collectives leave the stream beside its compute and the next node waits for both.
  template <typename Body>
  void tensor_parallel_half(const std::string& name, Pass pass, Body body) {
    const bool tp = spec_.tp > 1;
    const int64_t bytes = tp_collective_bytes(spec_);
    if (tp && spec_.tp_overlap) {
      overlapped_half(name, pass, bytes, body);
      return;
    }
    if (tp && spec_.sequence_parallel && spec_.ag_redo && pass == Pass::Backward)
      collective(name + ".tp_all_gather_redo", CommType::AllGather, bytes / spec_.tp, tp_group_);
    if (tp && spec_.sequence_parallel)
      collective(name + ".tp_all_gather", CommType::AllGather, bytes / spec_.tp, tp_group_);
    body();
    if (tp && spec_.sequence_parallel) {
      collective(name + ".tp_reduce_scatter", CommType::ReduceScatter, bytes, tp_group_);
    } else if (tp) {
      collective(name + ".tp_all_reduce", CommType::AllReduce, bytes, tp_group_);
    }
  }

  template <typename Body>
  void overlapped_half(const std::string& name, Pass pass, int64_t bytes, Body body) {
    std::vector<uint64_t> beside;
    if (spec_.sequence_parallel) {
      if (spec_.ag_redo && pass == Pass::Backward) {
        beside.push_back(
            collective(name + ".tp_all_gather_redo", CommType::AllGather, bytes / spec_.tp, tp_group_, false));
      }
      beside.push_back(collective(name + ".tp_all_gather", CommType::AllGather, bytes / spec_.tp, tp_group_, false));
      beside.push_back(collective(name + ".tp_reduce_scatter", CommType::ReduceScatter, bytes, tp_group_, false));
    } else {
      beside.push_back(collective(name + ".tp_all_reduce", CommType::AllReduce, bytes, tp_group_, false));
    }
    // They wait, as the compute does, for what the stream still waits for (the previous half's collectives).
    for (const uint64_t id : beside) {
      std::vector<uint64_t>& deps = trace_.nodes[id].data_deps;
      deps.insert(deps.end(), pending_.begin(), pending_.end());
    }
    body();
    pending_.insert(pending_.end(), beside.begin(), beside.end());
  }

  static double scale_of(Pass pass) { return pass == Pass::Forward ? 1 : 2; }

  // Ring attention: cp chunks of the attention, the rank's K and V (and, backward, their gradients) passed to the
  // next CP rank between chunks; without CP one node.
  void attention_half(const std::string& name, uint32_t mb, uint32_t layer, Pass pass) {
    tensor_parallel_half(name, pass, [&] {
      if (spec_.cp == 1) {
        compute(name, work_.attention, scale_of(pass));
        return;
      }
      const double share = scale_of(pass) / spec_.cp;
      const int64_t bytes = cp_message_bytes(spec_) * (pass == Pass::Forward ? 1 : 2);
      for (uint32_t step = 0; step + 1 < spec_.cp; ++step) {
        const int64_t tag = ring_tag(mb, layer, pass, step);
        send_bytes(ring_peer(1), tag, fmt::format("{}.cp{}.send_kv", name, step), bytes);
        compute(fmt::format("{}.cp{}", name, step), work_.attention, share);
        receive_bytes(ring_peer(spec_.cp - 1), tag, fmt::format("{}.cp{}.recv_kv", name, step), bytes);
      }
      compute(fmt::format("{}.cp{}", name, spec_.cp - 1), work_.attention, share);
    });
  }

  // The MLP half: a dense MLP, or (MoE layers) router, dispatch All-to-All, experts, combine All-to-All; the
  // backward runs them in reverse (the combine's gradient first).
  void mlp_half(const std::string& name, uint32_t layer, Pass pass) {
    tensor_parallel_half(name, pass, [&] {
      const double k = scale_of(pass);
      if (!moe_layer(spec_, layer)) {
        compute(name, work_.mlp, k);
        return;
      }
      const bool a2a = spec_.ep > 1;
      const int64_t bytes = moe_all_to_all_bytes(spec_);
      if (pass == Pass::Forward) {
        compute(name + ".router", moe_.router, k);
        if (a2a)
          collective(name + ".ep_dispatch", CommType::AllToAll, bytes, ep_group_);
        compute(name + ".experts", moe_.experts, k);
        if (a2a)
          collective(name + ".ep_combine", CommType::AllToAll, bytes, ep_group_);
      } else {
        if (a2a)
          collective(name + ".ep_combine", CommType::AllToAll, bytes, ep_group_);
        compute(name + ".experts", moe_.experts, k);
        if (a2a)
          collective(name + ".ep_dispatch", CommType::AllToAll, bytes, ep_group_);
        compute(name + ".router", moe_.router, k);
      }
    });
  }

  // ZeRO-3: each rank holds 1/(DP x CP) of a layer's parameters (experts: 1/(DP x CP / EP)) and all-gathers them
  // before use. The first layer of a pass is gathered on the stream (exposed); each gathers the next layer
  // (`next`) off the stream, and that layer's first node waits for it (prefetch, one layer ahead).
  void gather_layer(uint32_t mb, uint32_t layer, Pass pass, bool first, uint32_t next) {
    const char* dir = pass == Pass::Forward ? "fwd" : "bwd";
    if (first) {
      gather(fmt::format("mb{}.L{}.{}.zero3_all_gather", mb, layer, dir), layer, true);
    } else {
      pending_ = std::move(prefetched_);  // this layer's gather, issued during the previous layer
      prefetched_.clear();
    }
    if (next != layer)
      prefetched_ = gather(fmt::format("mb{}.L{}.{}.zero3_all_gather", mb, next, dir), next, false);
  }

  std::vector<uint64_t> gather(const std::string& name, uint32_t layer, bool in_stream) {
    const LayerParams p = layer_param_bytes(spec_, layer);
    std::vector<uint64_t> ids;
    ids.push_back(collective(name, CommType::AllGather, p.dense / spec_.grad_group(), dp_group_, in_stream));
    if (p.experts > 0 && !expert_dp_group_.empty()) {
      const uint32_t n = spec_.grad_group() / spec_.ep;
      ids.push_back(collective(name + ".experts", CommType::AllGather, p.experts / n, expert_dp_group_, in_stream));
    }
    return ids;
  }

  // ZeRO-2/3: the layer's gradients reduce-scattered as soon as its backward is done; off the stream when DP
  // communication overlaps the backward, else on it.
  void reduce_scatter_layer(const std::string& prefix, uint32_t layer) {
    const LayerParams p = layer_param_bytes(spec_, layer);
    const int64_t dense = p.dense + (expert_dp_group_.empty() ? p.experts : 0);
    const bool in_stream = !spec_.overlap_dp;
    if (spec_.grad_group() > 1)
      collective(prefix + ".zero_reduce_scatter", CommType::ReduceScatter, dense, dp_group_, in_stream);
    if (!expert_dp_group_.empty() && p.experts > 0)
      collective(prefix + ".zero_reduce_scatter.experts", CommType::ReduceScatter, p.experts, expert_dp_group_,
                 in_stream);
  }

  // Expert gradient bytes of this stage (reduced over the expert gradient group when EP > 1; otherwise they join
  // the dense gradients).
  int64_t stage_expert_bytes() const {
    int64_t total = 0;
    for (uint32_t c = 0; c < spec_.interleaving; ++c) {
      const StageLayers chunk = virtual_stage_layers(spec_, c * spec_.pp + at_.pp);
      for (uint32_t l = chunk.first; l < chunk.first + chunk.count; ++l)
        total += layer_param_bytes(spec_, l).experts;
    }
    return total;
  }

  uint32_t stage_layer_count() const {
    uint32_t count = 0;
    for (uint32_t c = 0; c < spec_.interleaving; ++c)
      count += virtual_stage_layers(spec_, c * spec_.pp + at_.pp).count;
    return count;
  }

  // The input embedding (first stage) and the output layer (last stage), vocab x h / tp each.
  int64_t embedding_bytes() const {
    const int64_t table = to_bytes(d(spec_.model.vocab) * d(spec_.model.hidden) / spec_.tp * spec_.bytes_per_element);
    return (first_stage() ? table : 0) + (last_stage() ? table : 0);
  }

  bool sharded_optimizer() const { return spec_.distributed_optimizer || spec_.fsdp == llm::Fsdp::kZero1; }

  // Overlapped DP: a layer's final gradients reduced off the stream while the backward goes on; the optimizer
  // step waits for them all. Routed experts reduce over their own group (or join the dense gradients at EP 1).
  void reduce_layer(const std::string& prefix, uint32_t layer) {
    const LayerParams p = layer_param_bytes(spec_, layer);
    const CommType type = sharded_optimizer() ? CommType::ReduceScatter : CommType::AllReduce;
    const char* what = sharded_optimizer() ? ".dp_reduce_scatter_gradients" : ".dp_all_reduce_gradients";
    const int64_t dense = p.dense + (spec_.ep == 1 ? p.experts : 0);
    if (spec_.grad_group() > 1 && dense > 0)
      reductions_.push_back(collective(prefix + what, type, dense, dp_group_, false));
    if (!expert_dp_group_.empty() && p.experts > 0)
      reductions_.push_back(collective(prefix + what + ".experts", type, p.experts, expert_dp_group_, false));
  }

  // The planned optimizer step over the stage's layers, after the gradients are reduced.
  void optimizer_step() {
    if (spec_.planned && spec_.planned->optimizer_s > 0)
      compute_node("optimizer_step", Work{}, spec_.planned->optimizer_s * stage_layer_count());
  }

  void gradient_sync() {
    const int64_t experts = stage_expert_bytes();
    const bool expert_group = !expert_dp_group_.empty();
    const int64_t stage = stage_gradient_bytes(spec_, at_.pp) + (spec_.ep == 1 ? experts : 0);
    const uint32_t n = spec_.grad_group();
    if (per_layer_reduce_scatter()) {
      // The layers' gradients are already reduce-scattered; what remains are the embeddings.
      if (embedding_bytes() > 0 && n > 1)
        collective("dp_reduce_scatter_embeddings", CommType::ReduceScatter, embedding_bytes(), dp_group_);
      optimizer_step();
      if (spec_.fsdp == llm::Fsdp::kZero2 && n > 1) {
        collective("dp_all_gather_parameters", CommType::AllGather, stage / n, dp_group_);
        if (expert_group)
          collective("dp_all_gather_parameters.experts", CommType::AllGather, experts / (n / spec_.ep),
                     expert_dp_group_);
      }
      return;
    }
    if (spec_.overlap_dp) {
      reduce("_embeddings", embedding_bytes(), n, dp_group_);
      pending_.insert(pending_.end(), reductions_.begin(), reductions_.end());
      reductions_.clear();
    } else {
      reduce("", stage, n, dp_group_);
      if (expert_group)
        reduce(".experts", experts, n / spec_.ep, expert_dp_group_);
    }
    optimizer_step();
    if (sharded_optimizer() && n > 1) {
      collective("dp_all_gather_parameters", CommType::AllGather, stage / n, dp_group_);
      if (expert_group)
        collective("dp_all_gather_parameters.experts", CommType::AllGather, experts / (n / spec_.ep), expert_dp_group_);
    }
  }

  // The gradients' reduction on the stream: Reduce-Scatter under a sharded optimizer, else All-Reduce.
  void reduce(const std::string& suffix, int64_t bytes, uint32_t n, const std::string& group) {
    if (n < 2 || bytes <= 0)
      return;
    if (sharded_optimizer()) {
      collective("dp_reduce_scatter_gradients" + suffix, CommType::ReduceScatter, bytes, group);
    } else {
      collective("dp_all_reduce_gradients" + suffix, CommType::AllReduce, bytes, group);
    }
  }

  // Pipeline messages across the boundary after virtual stage `vs`: one tag per (microbatch, chunk, direction),
  // 2 mb and 2 mb + 1 without interleaving.
  int64_t activation_tag(uint32_t mb, uint32_t vs) const {
    return 2 * (int64_t{mb} * spec_.interleaving + vs / spec_.pp);
  }
  int64_t gradient_tag(uint32_t mb, uint32_t vs) const { return activation_tag(mb, vs) + 1; }
  // Ring-attention messages: above every pipeline tag, one per (microbatch, layer, pass, step).
  int64_t ring_tag(uint32_t mb, uint32_t layer, Pass pass, uint32_t step) const {
    const int64_t base = 2 * int64_t{spec_.microbatches} * spec_.interleaving;
    const int64_t slot = (int64_t{mb} * spec_.model.num_blocks + layer) * 2 + (pass == Pass::Forward ? 0 : 1);
    return base + slot * spec_.cp + step;
  }

  TraceNode& add(std::string name, NodeType type, bool in_stream) {
    TraceNode n;
    n.id = trace_.nodes.size();
    n.name = std::move(name);
    n.type = type;
    if (tail_)
      n.data_deps.push_back(*tail_);
    if (in_stream) {
      n.data_deps.insert(n.data_deps.end(), pending_.begin(), pending_.end());
      pending_.clear();
      tail_ = n.id;
    }
    trace_.nodes.push_back(std::move(n));
    return trace_.nodes.back();
  }

  // A compute node of `forward` x scale work, timed by the roofline x `factor` (the pass's planned factor unless
  // given).
  void compute(std::string name, const Work& forward, double scale, double factor = -1) {
    const Work w{forward.flops * scale, forward.bytes * scale};
    compute_node(std::move(name), w, roofline_time(w, spec_).seconds() * (factor < 0 ? factor_ : factor));
  }

  void compute_node(std::string name, const Work& w, double seconds) {
    TraceNode& n = add(std::move(name), NodeType::Comp, true);
    n.num_ops = whole(w.flops, 9e18, "per-node operation count");  // below 2^63
    n.tensor_size = to_bytes(w.bytes);
    n.duration_micros =
        static_cast<uint64_t>(std::llround(checked_time_from_seconds(seconds, "", Argument{"model"}).microseconds()));
  }

  uint64_t collective(std::string name, CommType type, int64_t bytes, const std::string& group, bool in_stream = true) {
    TraceNode& n = add(std::move(name), NodeType::CommColl, in_stream);
    n.comm_type = static_cast<int64_t>(type);
    n.comm_size = bytes;
    n.pg_name = group;
    return n.id;
  }

  void send(uint32_t peer, int64_t tag, std::string name) {
    send_bytes(peer, tag, std::move(name), pipeline_message_bytes(spec_), !spec_.pipeline_send_overlap);
  }

  // A pipeline message; scattered ones (1/tp per TP rank) are All-Gathered in the TP group on arrival.
  void receive(uint32_t peer, int64_t tag, std::string name) {
    receive_bytes(peer, tag, name, pipeline_message_bytes(spec_));
    if (spec_.pipeline_scatter && !spec_.sequence_parallel && spec_.tp > 1)
      collective(name + ".pp_all_gather", CommType::AllGather, tp_collective_bytes(spec_) / spec_.tp, tp_group_);
  }

  void send_bytes(uint32_t peer, int64_t tag, std::string name, int64_t bytes, bool in_stream = false) {
    TraceNode& n = add(std::move(name), NodeType::CommSend, in_stream);
    n.comm_dst = peer;
    n.comm_size = bytes;
    n.comm_tag = tag;
  }

  void receive_bytes(uint32_t peer, int64_t tag, std::string name, int64_t bytes) {
    TraceNode& n = add(std::move(name), NodeType::CommRecv, true);
    n.comm_src = peer;
    n.comm_size = bytes;
    n.comm_tag = tag;
  }

  const LlmTrainingSpec& spec_;
  RankCoords at_;
  LayerWork work_;
  MoeWork moe_;
  std::string tp_group_;
  std::string dp_group_;
  std::string ep_group_;
  std::string expert_dp_group_;  // empty unless EP > 1 and the experts have replicas
  std::optional<uint64_t> tail_;
  std::vector<uint64_t> pending_;     // gathers the next in-stream node waits for
  std::vector<uint64_t> prefetched_;  // gathers issued for the next layer
  std::vector<uint64_t> reductions_;  // overlapped DP reductions the optimizer step waits for
  double forward_factor_ = 1;         // planned time / roofline time, per pass (plan_factors)
  double backward_factor_ = 1;
  double head_factor_ = 1;
  double factor_ = 1;  // the current pass's
  chakra::ChakraTrace trace_;
};

nlohmann::ordered_json groups_json(const LlmTrainingSpec& spec) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const NamedGroup& g : llm_comm_groups(spec))
    json[g.name] = g.npus;
  return json;
}

}  // namespace

chakra::ChakraTrace llm_rank_trace(const LlmTrainingSpec& spec, uint32_t rank) {
  return RankTraceBuilder(spec, rank).build();
}

std::string write_llm_training(const std::string& directory, const LlmTrainingSpec& spec, bool gzip,
                               Progress* progress) {
  validate(spec);
  const std::string prefix = make_trace_directory(directory, "llm");
  const uint32_t npus = spec.dp * spec.tp * spec.pp * spec.cp;
  ProgressScope written(progress, "generate: rank files written", npus);
  for (uint32_t rank = 0; rank < npus; ++rank) {
    write_chakra_trace(rank_file(prefix, rank), llm_rank_trace(spec, rank), gzip);
    written.advance();
  }
  write_comm_groups(directory, groups_json(spec));
  return prefix;
}

}  // namespace chorus
