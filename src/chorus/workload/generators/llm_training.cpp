// Generated LLM training iterations (see llm_training.hpp for the model and its sources).
#include "chorus/workload/generators/llm_training.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/progress.hpp"
#include "chorus/workload/chakra/trace_directory.hpp"

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

void validate(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
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
  if (m.num_blocks % spec.pp != 0 && ((m.num_blocks + 2) % spec.pp != 0 || (m.num_blocks + 2) / spec.pp < 2)) {
    throw Error("", Argument{"pp"},
                fmt::format("{} divides neither the model's num_blocks {} nor num_blocks + 2 (the first and last "
                            "stages one layer short, as Llama 3 405B's 126 layers on 16 stages)",
                            spec.pp, m.num_blocks));
  }
  if (spec.sequence_parallel && m.seq_size * spec.microbatch_size % spec.tp != 0) {
    throw Error(
        "", Argument{"sequence_parallel"},
        fmt::format("tp {} does not divide the {} tokens of a microbatch", spec.tp, m.seq_size * spec.microbatch_size));
  }
  if (!(spec.peak_tflops > 0))
    throw Error("", Argument{"peak_perf"}, "must be > 0 TFLOPS");
  if (!(spec.mem_bw_gbps > 0))
    throw Error("", Argument{"mem_bw"}, "must be > 0 GB/s");
  const uint64_t npus = uint64_t{spec.dp} * spec.tp * spec.pp;
  if (npus > (uint64_t{1} << 24))
    throw Error("", Argument{"dp"}, fmt::format("dp*tp*pp = {} NPUs is more than chorus simulates", npus));
}

LayerWork layer_forward_work(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double t = spec.tp;
  const double e = spec.bytes_per_element;
  const double b = spec.microbatch_size;
  const double s = d(m.seq_size);
  const double tokens = b * s;
  const double h = d(m.hidden);
  const double q = d(m.attn_heads * m.attn_size);  // query (and context) width
  const double kv = d(m.kv_heads * m.attn_size);   // key and value widths (grouped-query attention)
  const double f = d(m.feedforward);
  const double up = m.mlp == llm::MlpKind::kSwiglu ? 2 : 1;  // SwiGLU has a gate and an up projection

  LayerWork w;
  // QKV projection, Q K^T and A V (each 2*b*s*s*q), output projection: Megatron's 8bsh^2 + 4bs^2h for q = kv = h.
  w.attention.flops = (2 * tokens * h * (q + 2 * kv) + 4 * b * s * s * q + 2 * tokens * q * h) / t;
  // Weights read; block input read and output written; QKV written then read; scores written, read and rewritten
  // by softmax, read by A V; context written then read.
  w.attention.bytes = e * ((h * (q + 2 * kv) + q * h) / t + 2 * tokens * h + 2 * tokens * (q + 2 * kv) / t +
                           4 * b * d(m.attn_heads) / t * s * s + 2 * tokens * q / t);
  w.mlp.flops = (2 * tokens * h * f * up + 2 * tokens * f * h) / t;
  // Weights read; input read and output written; up projections written then read by the activation; activation
  // written then read by the down projection.
  w.mlp.bytes = e * ((up + 1) * h * f / t + 2 * tokens * h + 2 * up * tokens * f / t + 2 * tokens * f / t);
  return w;
}

Work head_forward_work(const LlmTrainingSpec& spec) {
  const llm::Application& m = spec.model;
  const double t = spec.tp;
  const double tokens = d(spec.microbatch_size) * d(m.seq_size);
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
  return to_bytes(d(spec.microbatch_size) * d(spec.model.seq_size) * d(spec.model.hidden) * spec.bytes_per_element);
}

int64_t pipeline_message_bytes(const LlmTrainingSpec& spec) {
  // With sequence parallelism a TP rank holds (and sends) only its 1/t sequence shard (Korthikanti et al. 2022).
  const int64_t full = tp_collective_bytes(spec);
  return spec.sequence_parallel ? full / spec.tp : full;
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

RankCoords rank_coords(const LlmTrainingSpec& spec, uint32_t rank) {
  return RankCoords{rank / spec.tp % spec.dp, rank % spec.tp, rank / (spec.tp * spec.dp)};
}

uint32_t rank_of(const LlmTrainingSpec& spec, RankCoords c) {
  return (c.pp * spec.dp + c.dp) * spec.tp + c.tp;
}

std::string tp_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  return std::to_string(1 + c.pp * spec.dp + c.dp);
}

std::string dp_group_name(const LlmTrainingSpec& spec, RankCoords c) {
  const uint32_t first = spec.tp > 1 ? 1 + spec.dp * spec.pp : 1;
  return std::to_string(first + c.pp * spec.tp + c.tp);
}

std::vector<NamedGroup> llm_comm_groups(const LlmTrainingSpec& spec) {
  std::vector<NamedGroup> groups;
  if (spec.tp > 1) {
    for (uint32_t p = 0; p < spec.pp; ++p) {
      for (uint32_t r = 0; r < spec.dp; ++r) {
        NamedGroup g{tp_group_name(spec, {r, 0, p}), {}};
        for (uint32_t t = 0; t < spec.tp; ++t)
          g.npus.push_back(rank_of(spec, {r, t, p}));
        groups.push_back(std::move(g));
      }
    }
  }
  if (spec.dp > 1) {
    for (uint32_t p = 0; p < spec.pp; ++p) {
      for (uint32_t t = 0; t < spec.tp; ++t) {
        NamedGroup g{dp_group_name(spec, {0, t, p}), {}};
        for (uint32_t r = 0; r < spec.dp; ++r)
          g.npus.push_back(rank_of(spec, {r, t, p}));
        groups.push_back(std::move(g));
      }
    }
  }
  return groups;
}

namespace {

// Builds one rank's trace as a single in-order stream: every node but the sends depends on the stream's tail.
class RankTraceBuilder {
 public:
  RankTraceBuilder(const LlmTrainingSpec& spec, uint32_t rank)
      : spec_(spec),
        at_(rank_coords(spec, rank)),
        layers_(stage_layers(spec, at_.pp)),
        work_(layer_forward_work(spec)),
        tp_group_(tp_group_name(spec, at_)),
        dp_group_(dp_group_name(spec, at_)) {
    trace_.version = "0.0.4";
  }

  chakra::ChakraTrace build() {
    for (const PipelineStep& step : one_f_one_b(at_.pp, spec_.pp, spec_.microbatches)) {
      if (step.pass == Pass::Forward) {
        forward(step.microbatch);
      } else {
        backward(step.microbatch);
      }
    }
    gradient_sync();
    return std::move(trace_);
  }

 private:
  bool first_stage() const { return at_.pp == 0; }
  bool last_stage() const { return at_.pp + 1 == spec_.pp; }
  uint32_t neighbour(int delta) const {
    return rank_of(spec_, {at_.dp, at_.tp, static_cast<uint32_t>(static_cast<int>(at_.pp) + delta)});
  }

  void forward(uint32_t mb) {
    if (!first_stage())
      receive(neighbour(-1), activation_tag(mb), fmt::format("mb{}.recv_activation", mb));
    for (uint32_t l = 0; l < layers_.count; ++l) {
      const uint32_t layer = layers_.first + l;
      tensor_parallel_half(fmt::format("mb{}.L{}.attn.fwd", mb, layer), work_.attention, 1);
      tensor_parallel_half(fmt::format("mb{}.L{}.mlp.fwd", mb, layer), work_.mlp, 1);
    }
    if (last_stage() && spec_.model.vocab > 0)
      compute(fmt::format("mb{}.head.fwd", mb), head_forward_work(spec_), 1);
    if (!last_stage())
      send(neighbour(1), activation_tag(mb), fmt::format("mb{}.send_activation", mb));
  }

  void backward(uint32_t mb) {
    if (!last_stage())
      receive(neighbour(1), gradient_tag(mb), fmt::format("mb{}.recv_gradient", mb));
    if (last_stage() && spec_.model.vocab > 0)
      compute(fmt::format("mb{}.head.bwd", mb), head_forward_work(spec_), 2);
    for (uint32_t l = layers_.count; l-- > 0;) {
      const uint32_t layer = layers_.first + l;
      tensor_parallel_half(fmt::format("mb{}.L{}.mlp.bwd", mb, layer), work_.mlp, 2);
      tensor_parallel_half(fmt::format("mb{}.L{}.attn.bwd", mb, layer), work_.attention, 2);
    }
    if (!first_stage())
      send(neighbour(-1), gradient_tag(mb), fmt::format("mb{}.send_gradient", mb));
  }

  // One layer half (attention or MLP) with its TP communication: All-Reduce after it (Megatron's g in the
  // forward, f's conjugate in the backward), or All-Gather before and Reduce-Scatter after it under sequence
  // parallelism (Korthikanti et al. 2022, fig. 5), in both passes.
  void tensor_parallel_half(const std::string& name, const Work& forward, double scale) {
    const bool tp = spec_.tp > 1;
    const int64_t bytes = tp_collective_bytes(spec_);
    if (tp && spec_.sequence_parallel)
      collective(name + ".tp_all_gather", CommType::AllGather, bytes / spec_.tp, tp_group_);
    compute(name, forward, scale);
    if (tp && spec_.sequence_parallel) {
      collective(name + ".tp_reduce_scatter", CommType::ReduceScatter, bytes, tp_group_);
    } else if (tp) {
      collective(name + ".tp_all_reduce", CommType::AllReduce, bytes, tp_group_);
    }
  }

  void gradient_sync() {
    if (spec_.dp < 2)
      return;
    const int64_t bytes = stage_gradient_bytes(spec_, at_.pp);
    if (spec_.distributed_optimizer) {
      collective("dp_reduce_scatter_gradients", CommType::ReduceScatter, bytes, dp_group_);
      collective("dp_all_gather_parameters", CommType::AllGather, bytes / spec_.dp, dp_group_);
    } else {
      collective("dp_all_reduce_gradients", CommType::AllReduce, bytes, dp_group_);
    }
  }

  static int64_t activation_tag(uint32_t mb) { return 2 * int64_t{mb}; }
  static int64_t gradient_tag(uint32_t mb) { return 2 * int64_t{mb} + 1; }

  TraceNode& add(std::string name, NodeType type, bool in_stream) {
    TraceNode n;
    n.id = trace_.nodes.size();
    n.name = std::move(name);
    n.type = type;
    if (tail_)
      n.data_deps.push_back(*tail_);
    if (in_stream)
      tail_ = n.id;
    trace_.nodes.push_back(std::move(n));
    return trace_.nodes.back();
  }

  void compute(std::string name, const Work& forward, double scale) {
    const Work w{forward.flops * scale, forward.bytes * scale};
    TraceNode& n = add(std::move(name), NodeType::Comp, true);
    n.num_ops = whole(w.flops, 9e18, "per-node operation count");  // below 2^63
    n.tensor_size = to_bytes(w.bytes);
    n.duration_micros = static_cast<uint64_t>(std::llround(roofline_time(w, spec_).microseconds()));
  }

  void collective(std::string name, CommType type, int64_t bytes, const std::string& group) {
    TraceNode& n = add(std::move(name), NodeType::CommColl, true);
    n.comm_type = static_cast<int64_t>(type);
    n.comm_size = bytes;
    n.pg_name = group;
  }

  void send(uint32_t peer, int64_t tag, std::string name) {
    TraceNode& n = add(std::move(name), NodeType::CommSend, false);
    n.comm_dst = peer;
    n.comm_size = pipeline_message_bytes(spec_);
    n.comm_tag = tag;
  }

  void receive(uint32_t peer, int64_t tag, std::string name) {
    TraceNode& n = add(std::move(name), NodeType::CommRecv, true);
    n.comm_src = peer;
    n.comm_size = pipeline_message_bytes(spec_);
    n.comm_tag = tag;
  }

  const LlmTrainingSpec& spec_;
  RankCoords at_;
  StageLayers layers_;
  LayerWork work_;
  std::string tp_group_;
  std::string dp_group_;
  std::optional<uint64_t> tail_;
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
  const uint32_t npus = spec.dp * spec.tp * spec.pp;
  ProgressScope written(progress, "generate: rank files written", npus);
  for (uint32_t rank = 0; rank < npus; ++rank) {
    write_chakra_trace(rank_file(prefix, rank), llm_rank_trace(spec, rank), gzip);
    written.advance();
  }
  write_comm_groups(directory, groups_json(spec));
  return prefix;
}

}  // namespace chorus
