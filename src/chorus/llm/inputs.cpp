// Readers for Calculon's application, system and execution JSON files (see inputs.hpp).
#include "chorus/llm/inputs.hpp"

#include "chorus/llm/collective_matmul.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/llm/hardware.hpp"
#include "chorus/llm/json_fields.hpp"

namespace chorus::llm {

double Application::qkv_weights_per_rank(int64_t tp) const {
  const double h = static_cast<double>(hidden);
  const double heads = static_cast<double>(attn_heads) / static_cast<double>(tp);
  const double d = static_cast<double>(attn_size);
  const double r = static_cast<double>(rope_head_dim);
  const double kv_lora = static_cast<double>(kv_lora_rank);
  const double q_lora = static_cast<double>(q_lora_rank);
  const double q = q_lora > 0 ? h * q_lora + q_lora * heads * (d + r) : h * heads * (d + r);
  return q + h * (kv_lora + r) + kv_lora * heads * 2 * d;
}

double Application::attention_weight_count() const {
  double h = static_cast<double>(hidden);
  const double out_proj = static_cast<double>(attn_heads * attn_size) * h + h;
  if (mla())
    return qkv_weights_per_rank(1) + out_proj;
  double qkv_out = static_cast<double>((attn_heads + 2 * kv_heads) * attn_size);
  return h * qkv_out + qkv_out + out_proj;
}

double Application::mlp_weight_count(int64_t ff) const {
  double h = static_cast<double>(hidden);
  double f = static_cast<double>(ff);
  double mlp_in = mlp == MlpKind::kSwiglu ? 2 * f : f;
  return h * mlp_in + mlp_in + f * h + h;
}

double Application::block_weight_count() const {
  const double layer_norms = 4 * static_cast<double>(hidden);
  return attention_weight_count() + mlp_weight_count(feedforward) + layer_norms;
}

double Application::moe_block_weight_count() const {
  const double h = static_cast<double>(hidden);
  const double router = h * static_cast<double>(experts);
  return attention_weight_count() + 4 * h + router +
         static_cast<double>(experts + shared_experts) * mlp_weight_count(expert_feedforward);
}

double Application::parameter_count() const {
  const double embeddings = static_cast<double>(vocab + seq_size) * static_cast<double>(hidden);
  if (!moe())
    return static_cast<double>(num_blocks) * block_weight_count() + embeddings;
  return static_cast<double>(dense_blocks) * block_weight_count() +
         static_cast<double>(num_blocks - dense_blocks) * moe_block_weight_count() + embeddings;
}

double Application::active_parameter_count() const {
  if (!moe())
    return parameter_count();
  const double idle = static_cast<double>(experts - top_k) * mlp_weight_count(expert_feedforward);
  return parameter_count() - static_cast<double>(num_blocks - dense_blocks) * idle;
}

int System::datatype_index(const std::string& name) const {
  auto it = std::find(datatypes.begin(), datatypes.end(), name);
  return it == datatypes.end() ? -1 : static_cast<int>(it - datatypes.begin());
}

namespace {

EfficiencyCurve parse_curve(FieldReader& r, std::string_view key) {
  const auto& v = r.raw(key);
  std::string field = r.field(key);
  if (!v.is_array() || v.empty())
    throw Error(r.file(), field, "must be a non-empty list of [threshold, efficiency]");
  if (v.size() > 8)
    throw Error(r.file(), field, fmt::format("has {} steps; at most 8 are supported", v.size()));
  std::vector<std::pair<double, double>> steps;
  bool has_zero = false;
  for (const auto& step : v) {
    if (!step.is_array() || step.size() != 2 || !step[0].is_number() || !step[1].is_number())
      throw Error(r.file(), field, fmt::format("step {} must be [threshold, efficiency]", step.dump()));
    double threshold = step[0].get<double>();
    double eff = step[1].get<double>();
    if (threshold < 0)
      throw Error(r.file(), field, fmt::format("threshold {} must be >= 0", threshold));
    if (eff <= 0 || eff > 1)
      throw Error(r.file(), field, fmt::format("efficiency {} must be in (0, 1]", eff));
    has_zero = has_zero || threshold == 0;
    steps.emplace_back(threshold, eff);
  }
  if (!has_zero)
    throw Error(r.file(), field, "needs a step with threshold 0 so that every size has an efficiency");
  return EfficiencyCurve(std::move(steps));
}

ComputeUnit parse_unit(FieldReader r) {
  ComputeUnit unit;
  unit.flops_per_second = r.positive_number("tflops") * 1e12;
  unit.efficiency = parse_curve(r, "gflops_efficiency");
  r.finish();
  return unit;
}

MemoryTier parse_memory(FieldReader r, bool allow_zero_capacity) {
  MemoryTier tier;
  double gib = allow_zero_capacity ? r.non_negative_number("GiB") : r.positive_number("GiB");
  tier.capacity_bytes = gib * 1073741824.0;
  tier.bytes_per_second = r.positive_number("GBps") * 1e9;
  tier.efficiency = parse_curve(r, "MB_efficiency");
  r.finish();
  return tier;
}

void parse_op(FieldReader& ops, std::string_view key, Collective op, NetworkTier& tier) {
  const auto& v = ops.raw(key);
  std::string field = ops.field(key);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !(v[1].is_number() || v[1].is_null()))
    throw Error(ops.file(), field, fmt::format("is {}; must be [scale, offset or null]", v.dump()));
  auto i = static_cast<size_t>(op);
  tier.scale[i] = v[0].get<double>();
  if (tier.scale[i] <= 0)
    throw Error(ops.file(), field, fmt::format("scale {} must be > 0", tier.scale[i]));
  tier.offset[i] = v[1].is_null() ? 0.0 : v[1].get<double>();
}

NetworkTier parse_network(FieldReader r) {
  NetworkTier tier;
  tier.bytes_per_second = r.positive_number("bandwidth") * 1e9;
  tier.efficiency = r.fraction("efficiency");
  if (tier.efficiency == 0)
    throw Error(r.file(), r.field("efficiency"), "is 0; must be > 0");
  tier.size = r.positive_int("size");
  tier.latency_s = r.non_negative_number("latency");
  FieldReader ops = r.object("ops");
  parse_op(ops, "p2p", Collective::kP2p, tier);
  parse_op(ops, "reduce_scatter", Collective::kReduceScatter, tier);
  parse_op(ops, "all_gather", Collective::kAllGather, tier);
  parse_op(ops, "all_reduce", Collective::kAllReduce, tier);
  ops.finish();
  tier.must_be_filled = r.boolean("must_be_filled");
  tier.processor_usage = r.fraction("processor_usage");
  if (tier.processor_usage >= 1)
    throw Error(r.file(), r.field("processor_usage"), "must be < 1");
  r.finish();
  return tier;
}

template <typename Enum, size_t N>
Enum parse_choice(FieldReader& r, std::string_view key, const std::array<std::pair<const char*, Enum>, N>& choices) {
  std::string value = r.string(key);
  std::string names;
  for (const auto& [name, e] : choices) {
    if (value == name)
      return e;
    names += names.empty() ? name : fmt::format(", {}", name);
  }
  throw Error(r.file(), r.field(key), fmt::format("is '{}'; must be one of {}", value, names));
}

void require_divides(const std::string& file, const char* key, int64_t divisor, int64_t value, const char* what) {
  if (value % divisor != 0)
    throw Error(file, key, fmt::format("{} does not divide {} ({})", divisor, what, value));
}

int8_t network_index(FieldReader& r, std::string_view key, const System& sys) {
  const int64_t net = r.non_negative_int(key);
  const auto nets = static_cast<int64_t>(sys.networks.size());
  if (net >= nets)
    throw Error(r.file(), r.field(key), fmt::format("is {}; the system has {} network(s)", net, nets));
  return static_cast<int8_t>(net);
}

// chorus's optional execution keys; absent, they leave a Calculon execution as it was.
void parse_extensions(FieldReader& r, Execution& e, const System& sys) {
  if (r.has("context_par"))
    e.context_par = r.positive_int("context_par");
  if (r.has("expert_par"))
    e.expert_par = r.positive_int("expert_par");
  e.context_par_net = r.has("context_par_net") ? network_index(r, "context_par_net", sys) : e.data_par_net;
  e.expert_par_net = r.has("expert_par_net") ? network_index(r, "expert_par_net", sys) : e.data_par_net;
  if (r.has("fsdp")) {
    e.fsdp = parse_choice(r, "fsdp",
                          std::array{std::pair{"none", Fsdp::kNone}, std::pair{"zero1", Fsdp::kZero1},
                                     std::pair{"zero2", Fsdp::kZero2}, std::pair{"zero3", Fsdp::kZero3}});
  }
  if (r.has("tp_gemm_overlap")) {
    e.tp_gemm_overlap = parse_choice(
        r, "tp_gemm_overlap",
        std::array{std::pair{"none", TpGemmOverlap::kNone}, std::pair{"pipelined", TpGemmOverlap::kPipelined},
                   std::pair{"summa", TpGemmOverlap::kSumma}});
  }
  // ZeRO-1 is Calculon's optimizer_sharding; every ZeRO stage shards the optimizer state.
  if (r.has("fused_attention"))
    e.fused_attention = r.boolean("fused_attention");
  if (r.has("ep_overlap"))
    e.ep_overlap = r.boolean("ep_overlap");
  if (r.has("pipeline_p2p_overlap"))
    e.pipeline_p2p_overlap = r.boolean("pipeline_p2p_overlap");
  if (e.optimizer_sharding && e.fsdp == Fsdp::kNone)
    e.fsdp = Fsdp::kZero1;
  if (e.fsdp != Fsdp::kNone)
    e.optimizer_sharding = true;
}

// The communication-hiding GEMMs decompose the All-Gathers and Reduce-Scatters of TP (collective_matmul.hpp).
void check_tp_gemm_overlap(const Execution& e, const std::string& file, const Application& app) {
  const TpGemmOverlap o = e.tp_gemm_overlap;
  if (o == TpGemmOverlap::kNone)
    return;
  const std::string value = to_string(o);
  if (e.tensor_par < 2)
    throw Error(file, "tp_gemm_overlap", fmt::format("is '{}'; needs tensor_par > 1", value));
  if (e.tp_overlap != TpOverlap::kNone)
    throw Error(file, "tp_gemm_overlap",
                fmt::format("is '{}' and tensor_par_overlap is '{}': both hide the TP collectives; set one to none",
                            value, to_string(e.tp_overlap)));
  if (o == TpGemmOverlap::kPipelined && e.tp_comm == TpCommType::kAr)
    throw Error(file, "tp_gemm_overlap",
                "is 'pipelined'; needs tensor_par_comm_type rs_ag or p2p_rs_ag (it decomposes All-Gather and "
                "Reduce-Scatter)");
  if (o != TpGemmOverlap::kSumma)
    return;
  if (e.tp_comm != TpCommType::kRsAg)
    throw Error(file, "tp_gemm_overlap", "is 'summa'; needs tensor_par_comm_type rs_ag (activations sharded 2-D)");
  if (summa_grid(e.tensor_par).rows < 2)
    throw Error(file, "tp_gemm_overlap",
                fmt::format("is 'summa'; tensor_par {} has no 2-D grid (rows and columns >= 2)", e.tensor_par));
  if (app.moe())
    throw Error(file, "tp_gemm_overlap", "is 'summa'; only dense models are modelled (the model has experts)");
  if (e.seq_par_ag_redo)
    throw Error(file, "seq_par_ag_redo", "has no effect with tp_gemm_overlap summa; set it to false");
}

void check_execution(const Execution& e, const std::string& file, const Application& app, const System& sys) {
  const int64_t procs =
      checked_mul(checked_mul(checked_mul(e.tensor_par, e.pipeline_par, file, "tensor_par x pipeline_par"), e.data_par,
                              file, "tensor_par x pipeline_par x data_par"),
                  e.context_par, file, "tensor_par x pipeline_par x data_par x context_par");
  if (procs != e.num_procs)
    throw Error(file, "num_procs",
                fmt::format("is {}; tensor_par x pipeline_par x data_par x context_par = {} x {} x {} x {} = {}",
                            e.num_procs, e.tensor_par, e.pipeline_par, e.data_par, e.context_par, procs));
  require_divides(file, "context_par", e.context_par, app.seq_size, "seq_size");
  if (e.expert_par > 1 && !app.moe())
    throw Error(file, "expert_par", fmt::format("is {}; the model has no experts", e.expert_par));
  if (e.ep_overlap && e.expert_par <= 1)
    throw Error(file, "ep_overlap", "needs expert_par > 1 (there is no All-to-All to overlap)");
  if (e.pipeline_p2p_overlap && (e.pipeline_par <= 1 || e.pipeline_interleaving <= 1))
    throw Error(file, "pipeline_p2p_overlap",
                "needs pipeline_par > 1 and pipeline_interleaving > 1 (Megatron-Core overlaps the sends of the "
                "interleaved schedule only)");
  if (app.moe()) {
    require_divides(file, "expert_par", e.expert_par, app.experts, "experts");
    require_divides(file, "expert_par", e.expert_par, e.data_par, "data_par (experts are split over DP ranks)");
  }
  require_divides(file, "tensor_par", e.tensor_par, app.attn_heads, "attn_heads");
  require_divides(file, "tensor_par", e.tensor_par, app.hidden, "hidden");
  require_divides(file, "tensor_par", e.tensor_par, app.feedforward, "feedforward");
  require_divides(file, "tensor_par", e.tensor_par, e.microbatch_size * app.seq_size / e.context_par,
                  "microbatch_size x seq_size / context_par");
  if (app.moe())
    require_divides(file, "tensor_par", e.tensor_par, app.expert_feedforward, "expert_feedforward");
  // An uneven split (DeepSeek-V3's 61 blocks on 16 stages) gives some stages one block more; they set the pace.
  if (e.pipeline_par > app.num_blocks)
    throw Error(file, "pipeline_par", fmt::format("{} exceeds num_blocks {}", e.pipeline_par, app.num_blocks));
  const int64_t stage_blocks = (app.num_blocks + e.pipeline_par - 1) / e.pipeline_par;
  require_divides(file, "pipeline_interleaving", e.pipeline_interleaving, stage_blocks,
                  "the blocks of a pipeline stage");
  require_divides(file, "batch_size", e.data_par * e.microbatch_size, e.batch_size,
                  "batch_size (as data_par x microbatch_size)");
  if (!e.multiquery && app.kv_heads != app.attn_heads) {
    // Grouped-query models: the K/V heads are split across tensor-parallel ranks or replicated.
    if (app.kv_heads % e.tensor_par != 0 && e.tensor_par % app.kv_heads != 0)
      throw Error(file, "tensor_par",
                  fmt::format("{} and kv_heads {} do not divide one another", e.tensor_par, app.kv_heads));
  }
  if (e.seq_par_ag_redo && e.tp_comm != TpCommType::kRsAg)
    throw Error(file, "seq_par_ag_redo", "needs tensor_par_comm_type rs_ag (sequence parallelism)");
  if (e.seq_par_ag_redo && e.recompute == Recompute::kFull)
    throw Error(file, "seq_par_ag_redo", "has no effect with full recompute; set it to false");
  if ((e.weight_offload || e.activations_offload || e.optimizer_offload) && sys.mem2.capacity_bytes <= 0)
    throw Error(file, "weight_offload", "offload needs a second memory tier (mem2.GiB > 0)");
  check_tp_gemm_overlap(e, file, app);
}

// The mixture-of-experts keys (all optional; "experts" > 0 turns the others on).
void parse_experts(FieldReader& r, Application& app) {
  if (r.has("experts"))
    app.experts = r.non_negative_int("experts");
  const bool moe = app.experts > 0;
  for (const char* key :
       {"top_k", "shared_experts", "expert_feedforward", "capacity_factor", "load_imbalance", "dense_blocks"}) {
    if (r.has(key) && !moe)
      throw Error(r.file(), key, "needs \"experts\" > 0 (a mixture-of-experts model)");
  }
  if (!moe)
    return;
  app.top_k = r.has("top_k") ? r.positive_int("top_k") : 1;
  if (app.top_k > app.experts)
    throw Error(r.file(), "top_k", fmt::format("{} exceeds experts {}", app.top_k, app.experts));
  if (r.has("shared_experts"))
    app.shared_experts = r.non_negative_int("shared_experts");
  app.expert_feedforward = r.has("expert_feedforward") ? r.positive_int("expert_feedforward") : app.feedforward;
  if (r.has("capacity_factor")) {
    app.capacity_factor = r.non_negative_number("capacity_factor");
    if (app.capacity_factor > 0 && app.capacity_factor < 1)
      throw Error(
          r.file(), "capacity_factor",
          fmt::format("{} drops tokens even when routing is balanced; use 0 (dropless) or >= 1", app.capacity_factor));
  }
  if (r.has("load_imbalance")) {
    app.load_imbalance = r.positive_number("load_imbalance");
    if (app.load_imbalance < 1)
      throw Error(r.file(), "load_imbalance",
                  fmt::format("{} is below 1; it is the busiest rank's tokens over the mean", app.load_imbalance));
  }
  if (r.has("dense_blocks"))
    app.dense_blocks = r.non_negative_int("dense_blocks");
}

}  // namespace

Application parse_application(const nlohmann::json& json, const std::string& file) {
  FieldReader r(json, file);
  Application app;
  app.hidden = r.positive_int("hidden");
  app.feedforward = r.positive_int("feedforward");
  app.seq_size = r.positive_int("seq_size");
  app.attn_heads = r.positive_int("attn_heads");
  app.attn_size = r.positive_int("attn_size");
  app.num_blocks = r.positive_int("num_blocks");
  app.kv_heads = r.has("kv_heads") ? r.positive_int("kv_heads") : app.attn_heads;
  if (r.has("vocab"))
    app.vocab = r.non_negative_int("vocab");
  if (r.has("mlp")) {
    app.mlp =
        parse_choice(r, "mlp", std::array{std::pair{"gelu", MlpKind::kGelu}, std::pair{"swiglu", MlpKind::kSwiglu}});
  }
  parse_experts(r, app);
  if (r.has("kv_lora_rank")) {
    app.kv_lora_rank = r.positive_int("kv_lora_rank");
    if (r.has("q_lora_rank"))
      app.q_lora_rank = r.non_negative_int("q_lora_rank");
    if (r.has("rope_head_dim"))
      app.rope_head_dim = r.non_negative_int("rope_head_dim");
    if (r.has("kv_heads"))
      throw Error(file, "kv_heads", "does not apply to multi-head latent attention (kv_lora_rank)");
  } else {
    for (const char* key : {"q_lora_rank", "rope_head_dim"}) {
      if (r.has(key))
        throw Error(file, key, "needs kv_lora_rank (multi-head latent attention)");
    }
  }
  if (r.has("source"))
    r.string("source");  // where the architecture values come from (documentation only)
  r.finish();
  if (app.hidden % app.attn_heads != 0)
    throw Error(file, "hidden", fmt::format("{} is not divisible by attn_heads {}", app.hidden, app.attn_heads));
  if (app.attn_heads % app.kv_heads != 0)
    throw Error(file, "kv_heads", fmt::format("{} does not divide attn_heads {}", app.kv_heads, app.attn_heads));
  if (app.moe() && app.dense_blocks >= app.num_blocks)
    throw Error(
        file, "dense_blocks",
        fmt::format("{} leaves no mixture-of-experts block of num_blocks {}", app.dense_blocks, app.num_blocks));
  return app;
}

System parse_system(const nlohmann::json& json, const std::string& file) {
  FieldReader r(json, file);
  System sys;
  FieldReader matrix = r.object("matrix");
  FieldReader vector = r.object("vector");
  for (const auto& [name, value] : json.at("matrix").items()) {
    sys.datatypes.push_back(name);
    sys.matrix.push_back(parse_unit(matrix.object(name)));
    if (!vector.has(name))
      throw Error(file, vector.field(name), "missing key (every matrix datatype needs a vector unit)");
    sys.vector.push_back(parse_unit(vector.object(name)));
  }
  if (sys.datatypes.empty())
    throw Error(file, "matrix", "names no datatype");
  matrix.finish();
  vector.finish();
  sys.mem1 = parse_memory(r.object("mem1"), false);
  sys.mem2 = parse_memory(r.object("mem2"), true);
  sys.mode = parse_choice(r, "processing_mode",
                          std::array{std::pair{"no_overlap", ProcessingMode::kNoOverlap},
                                     std::pair{"roofline", ProcessingMode::kRoofline}});
  const auto& nets = r.raw("networks");
  if (!nets.is_array() || nets.empty())
    throw Error(file, "networks", "must be a non-empty list");
  for (size_t i = 0; i < nets.size(); ++i) {
    sys.networks.push_back(parse_network(FieldReader(nets[i], file, fmt::format("networks[{}]", i))));
  }
  if (sys.networks.size() > 127)
    throw Error(file, "networks", "more than 127 network tiers");
  r.finish();
  return sys;
}

Execution parse_execution(const nlohmann::json& json, const std::string& file, const Application& app,
                          const System& sys) {
  FieldReader r(json, file);
  Execution e;
  e.num_procs = r.positive_int("num_procs");
  e.tensor_par = r.positive_int("tensor_par");
  e.pipeline_par = r.positive_int("pipeline_par");
  e.data_par = r.positive_int("data_par");
  e.tensor_par_net = network_index(r, "tensor_par_net", sys);
  e.pipeline_par_net = network_index(r, "pipeline_par_net", sys);
  e.data_par_net = network_index(r, "data_par_net", sys);
  e.batch_size = r.positive_int("batch_size");
  e.microbatch_size = r.positive_int("microbatch_size");
  std::string datatype = r.string("datatype");
  e.datatype = sys.datatype_index(datatype);
  if (e.datatype < 0)
    throw Error(file, "datatype", fmt::format("'{}' is not a datatype of the system", datatype));
  if (datatype_bytes(datatype) == 0)
    throw Error(file, "datatype", fmt::format("'{}' has no known size (float8, float16, bfloat16, float32)", datatype));
  e.fused_activation = r.boolean("fused_activation");
  e.multiquery =
      parse_choice(r, "attention_type", std::array{std::pair{"multihead", false}, std::pair{"multiquery", true}});
  e.recompute =
      parse_choice(r, "activation_recompute",
                   std::array{std::pair{"full", Recompute::kFull}, std::pair{"attn_only", Recompute::kAttnOnly},
                              std::pair{"none", Recompute::kNone}});
  e.pipeline_interleaving = r.positive_int("pipeline_interleaving");
  e.optimizer_sharding = r.boolean("optimizer_sharding");
  e.tp_comm = parse_choice(r, "tensor_par_comm_type",
                           std::array{std::pair{"ar", TpCommType::kAr}, std::pair{"p2p_rs_ag", TpCommType::kP2pRsAg},
                                      std::pair{"rs_ag", TpCommType::kRsAg}});
  e.tp_overlap = parse_choice(r, "tensor_par_overlap",
                              std::array{std::pair{"none", TpOverlap::kNone}, std::pair{"ring", TpOverlap::kRing},
                                         std::pair{"pipe", TpOverlap::kPipe}});
  e.seq_par_ag_redo = r.boolean("seq_par_ag_redo");
  e.data_par_overlap = r.boolean("data_par_overlap");
  e.weight_offload = r.boolean("weight_offload");
  e.activations_offload = r.boolean("activations_offload");
  e.optimizer_offload = r.boolean("optimizer_offload");
  e.training = r.boolean("training");
  parse_extensions(r, e, sys);
  r.finish();
  check_execution(e, file, app, sys);
  return e;
}

Application read_application(const std::string& path) {
  return parse_application(read_json_file(path), path);
}
System read_system(const std::string& path) {
  return parse_system(read_json_file(path), path);
}
Execution read_execution(const std::string& path, const Application& app, const System& sys) {
  return parse_execution(read_json_file(path), path, app, sys);
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::kFull:
      return "full";
    case Recompute::kAttnOnly:
      return "attn_only";
    case Recompute::kNone:
      return "none";
  }
  return "?";
}

const char* to_string(TpCommType t) {
  switch (t) {
    case TpCommType::kAr:
      return "ar";
    case TpCommType::kP2pRsAg:
      return "p2p_rs_ag";
    case TpCommType::kRsAg:
      return "rs_ag";
  }
  return "?";
}

const char* to_string(Fsdp f) {
  switch (f) {
    case Fsdp::kNone:
      return "none";
    case Fsdp::kZero1:
      return "zero1";
    case Fsdp::kZero2:
      return "zero2";
    case Fsdp::kZero3:
      return "zero3";
  }
  return "?";
}

const char* to_string(TpOverlap o) {
  switch (o) {
    case TpOverlap::kNone:
      return "none";
    case TpOverlap::kRing:
      return "ring";
    case TpOverlap::kPipe:
      return "pipe";
  }
  return "?";
}

nlohmann::json execution_to_json(const Execution& e, const System& sys) {
  return {{"num_procs", e.num_procs},
          {"tensor_par", e.tensor_par},
          {"pipeline_par", e.pipeline_par},
          {"data_par", e.data_par},
          {"tensor_par_net", e.tensor_par_net},
          {"pipeline_par_net", e.pipeline_par_net},
          {"data_par_net", e.data_par_net},
          {"batch_size", e.batch_size},
          {"microbatch_size", e.microbatch_size},
          {"datatype", sys.datatypes.at(static_cast<size_t>(e.datatype))},
          {"fused_activation", e.fused_activation},
          {"attention_type", e.multiquery ? "multiquery" : "multihead"},
          {"activation_recompute", to_string(e.recompute)},
          {"pipeline_interleaving", e.pipeline_interleaving},
          {"optimizer_sharding", e.optimizer_sharding},
          {"tensor_par_comm_type", to_string(e.tp_comm)},
          {"tensor_par_overlap", to_string(e.tp_overlap)},
          {"seq_par_ag_redo", e.seq_par_ag_redo},
          {"data_par_overlap", e.data_par_overlap},
          {"weight_offload", e.weight_offload},
          {"activations_offload", e.activations_offload},
          {"optimizer_offload", e.optimizer_offload},
          {"training", e.training},
          {"context_par", e.context_par},
          {"expert_par", e.expert_par},
          {"context_par_net", e.context_par_net},
          {"expert_par_net", e.expert_par_net},
          {"fsdp", to_string(e.fsdp)},
          {"tp_gemm_overlap", to_string(e.tp_gemm_overlap)},
          {"fused_attention", e.fused_attention},
          {"ep_overlap", e.ep_overlap},
          {"pipeline_p2p_overlap", e.pipeline_p2p_overlap}};
}

}  // namespace chorus::llm

namespace chorus::llm {

nlohmann::json system_to_json(const System& sys) {
  auto curve = [](const EfficiencyCurve& c) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& [threshold, eff] : c.steps())
      steps.push_back({threshold, eff});
    return steps;
  };
  nlohmann::json j;
  for (size_t i = 0; i < sys.datatypes.size(); ++i) {
    j["matrix"][sys.datatypes[i]] = {{"tflops", sys.matrix[i].flops_per_second / 1e12},
                                     {"gflops_efficiency", curve(sys.matrix[i].efficiency)}};
    j["vector"][sys.datatypes[i]] = {{"tflops", sys.vector[i].flops_per_second / 1e12},
                                     {"gflops_efficiency", curve(sys.vector[i].efficiency)}};
  }
  auto memory = [&](const MemoryTier& m) {
    return nlohmann::json{{"GiB", m.capacity_bytes / 1073741824.0},
                          {"GBps", m.bytes_per_second / 1e9},
                          {"MB_efficiency", curve(m.efficiency)}};
  };
  j["mem1"] = memory(sys.mem1);
  j["mem2"] = memory(sys.mem2);
  j["processing_mode"] = sys.mode == ProcessingMode::kRoofline ? "roofline" : "no_overlap";
  j["networks"] = nlohmann::json::array();
  for (const NetworkTier& n : sys.networks) {
    nlohmann::json ops;
    const char* names[] = {"p2p", "reduce_scatter", "all_gather", "all_reduce"};
    for (size_t i = 0; i < 4; ++i)
      ops[names[i]] = {n.scale[i], n.offset[i]};
    j["networks"].push_back({{"bandwidth", n.bytes_per_second / 1e9},
                             {"efficiency", n.efficiency},
                             {"size", n.size},
                             {"latency", n.latency_s},
                             {"ops", ops},
                             {"must_be_filled", n.must_be_filled},
                             {"processor_usage", n.processor_usage}});
  }
  return j;
}

}  // namespace chorus::llm
