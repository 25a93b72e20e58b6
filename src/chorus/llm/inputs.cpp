// Readers for Calculon's application, system and execution JSON files (see inputs.hpp).
#include "chorus/llm/inputs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/llm/hardware.hpp"
#include "chorus/llm/json_fields.hpp"

namespace chorus::llm {

double Application::block_weight_count() const {
  double h = static_cast<double>(hidden);
  double qkv_out = static_cast<double>((attn_heads + 2 * kv_heads) * attn_size);
  double attn = h * qkv_out + qkv_out + static_cast<double>(attn_heads * attn_size) * h + h;
  double f = static_cast<double>(feedforward);
  double mlp_in = mlp == MlpKind::kSwiglu ? 2 * f : f;
  double mlp_weights = h * mlp_in + mlp_in + f * h + h;
  double layer_norms = 4 * h;
  return attn + mlp_weights + layer_norms;
}

double Application::parameter_count() const {
  return static_cast<double>(num_blocks) * block_weight_count() +
         static_cast<double>(vocab + seq_size) * static_cast<double>(hidden);
}

EfficiencyCurve::EfficiencyCurve(std::vector<std::pair<double, double>> steps) {
  // Sorting makes the lookup independent of the file's order; Calculon's files are already descending.
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  count_ = static_cast<int>(std::min<size_t>(steps.size(), kMaxSteps));
  for (int i = 0; i < count_; ++i) {
    thresholds_[i] = steps[i].first;
    efficiencies_[i] = steps[i].second;
  }
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

void check_execution(const Execution& e, const std::string& file, const Application& app, const System& sys) {
  const int64_t procs = checked_mul(checked_mul(e.tensor_par, e.pipeline_par, file, "tensor_par x pipeline_par"),
                                    e.data_par, file, "tensor_par x pipeline_par x data_par");
  if (procs != e.num_procs)
    throw Error(file, "num_procs",
                fmt::format("is {}; tensor_par x pipeline_par x data_par = {} x {} x {} = {}", e.num_procs,
                            e.tensor_par, e.pipeline_par, e.data_par, procs));
  require_divides(file, "tensor_par", e.tensor_par, app.attn_heads, "attn_heads");
  require_divides(file, "tensor_par", e.tensor_par, app.hidden, "hidden");
  require_divides(file, "tensor_par", e.tensor_par, app.feedforward, "feedforward");
  require_divides(file, "tensor_par", e.tensor_par, e.microbatch_size * app.seq_size, "microbatch_size x seq_size");
  require_divides(file, "pipeline_par", e.pipeline_par, app.num_blocks, "num_blocks");
  require_divides(file, "pipeline_interleaving", e.pipeline_interleaving, app.num_blocks / e.pipeline_par,
                  "num_blocks / pipeline_par");
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
  r.finish();
  if (app.hidden % app.attn_heads != 0)
    throw Error(file, "hidden", fmt::format("{} is not divisible by attn_heads {}", app.hidden, app.attn_heads));
  if (app.attn_heads % app.kv_heads != 0)
    throw Error(file, "kv_heads", fmt::format("{} does not divide attn_heads {}", app.kv_heads, app.attn_heads));
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
          {"training", e.training}};
}

}  // namespace chorus::llm
