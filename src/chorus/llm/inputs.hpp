// The LLM planner's three inputs, read from Calculon's JSON files unchanged (same keys, same meanings):
//
// - Application: the transformer (hidden, feedforward, seq_size, attn_heads, attn_size, num_blocks).
//   chorus extensions, all optional: "kv_heads" (grouped-query attention; default attn_heads),
//   "mlp" ("gelu" default, or "swiglu": two input projections and a gated SiLU) and "vocab"
//   (the LM head on the last pipeline stage; default 51200 as in Megatron's GPT runs, 0 leaves it out).
//   Mixture of experts (docs/llm.md, "Mixture of experts"): "experts" (routed experts per block, 0 = dense),
//   "top_k", "shared_experts", "expert_feedforward", "capacity_factor" (0 = dropless), "load_imbalance"
//   (busiest expert rank's tokens / the mean) and "dense_blocks" (leading blocks with a dense MLP).
//   Multi-head latent attention: "kv_lora_rank", "q_lora_rank", "rope_head_dim". "source": free text.
// - System: matrix/vector units per datatype with step efficiency curves, two memory tiers, the
//   processing mode and the network tiers with per-collective (scale, offset) pairs.
// - Execution: the 23 keys of Calculon's execution file (parallelism, batch, recompute, overlaps, ...).
//
// Units follow Calculon: tflops = 1e12 FLOP/s, GBps and network "bandwidth" = 1e9 B/s, GiB = 2^30 B,
// latency in seconds, gflops_efficiency thresholds in 1e9 FLOP, MB_efficiency thresholds in 1e6 B.
// Source: calculon-ai/calculon (Isaev et al., SC'23); restated in docs/llm.md.
//
//   auto app = chorus::llm::read_application("gpt3-175B.json");
//   auto sys = chorus::llm::read_system("a100_80g.json");
//   auto exe = chorus::llm::read_execution("exec.json", app, sys);
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/llm/collective_table.hpp"
#include "chorus/machine/efficiency_curve.hpp"

namespace chorus::llm {

enum class MlpKind : uint8_t { kGelu, kSwiglu };

struct Application {
  int64_t hidden = 0;
  int64_t feedforward = 0;
  int64_t seq_size = 0;
  int64_t attn_heads = 0;
  int64_t attn_size = 0;  // per-head dimension
  int64_t num_blocks = 0;
  int64_t kv_heads = 0;  // equals attn_heads for multi-head attention
  int64_t vocab = 51200;
  MlpKind mlp = MlpKind::kGelu;
  // Mixture of experts: every block but the first dense_blocks replaces its MLP by a router and `experts`
  // expert MLPs of expert_feedforward, each token going to top_k of them, plus shared_experts always-on ones.
  int64_t experts = 0;
  int64_t top_k = 0;
  int64_t shared_experts = 0;
  int64_t expert_feedforward = 0;
  int64_t dense_blocks = 0;
  double capacity_factor = 0;  // > 0: every expert is padded to this multiple of the mean tokens (GShard)
  double load_imbalance = 1;   // dropless: the busiest expert rank gets this multiple of the mean tokens

  // Multi-head latent attention (DeepSeek-V2/V3): K and V come from a kv_lora_rank latent (plus a shared
  // rope_head_dim key part), Q from a q_lora_rank latent (0: a full projection); query/key heads have
  // attn_size + rope_head_dim dimensions, value heads attn_size.
  int64_t kv_lora_rank = 0;
  int64_t q_lora_rank = 0;
  int64_t rope_head_dim = 0;

  bool moe() const { return experts > 0; }
  bool mla() const { return kv_lora_rank > 0; }
  // Weights of the Q, K, V projections held by one of `tp` tensor-parallel ranks (MLA's down-projections are
  // replicated, its up-projections split).
  double qkv_weights_per_rank(int64_t tp) const;
  // Megatron's count (Narayanan et al. 2021, eq. 2 generalised to kv_heads and SwiGLU): blocks plus
  // the (vocab + seq) x hidden embeddings.
  double parameter_count() const;
  // Parameters one token uses (MoE: top_k + shared experts instead of all), embeddings included.
  double active_parameter_count() const;
  double block_weight_count() const;  // weights and biases of one (dense) transformer block
  double attention_weight_count() const;
  double mlp_weight_count(int64_t ff) const;  // one MLP (or expert) of inner size ff
  double moe_block_weight_count() const;      // attention + router + all routed and shared experts
};

// The step function of Calculon's gflops_efficiency / MB_efficiency keys (machine/efficiency_curve.hpp).
using EfficiencyCurve = machine::EfficiencyCurve;

struct ComputeUnit {
  double flops_per_second = 0;
  EfficiencyCurve efficiency;  // argument: FLOPs of one op / 1e9
};

struct MemoryTier {
  double capacity_bytes = 0;  // 0 for mem2 means "no second tier"
  double bytes_per_second = 0;
  EfficiencyCurve efficiency;  // argument: bytes of one access / 1e6
};

enum class Collective : uint8_t { kP2p, kReduceScatter, kAllGather, kAllReduce };

struct NetworkTier {
  double bytes_per_second = 0;
  double efficiency = 1;
  int64_t size = 0;
  double latency_s = 0;
  std::array<double, 4> scale{};   // indexed by Collective
  std::array<double, 4> offset{};  // null offset in the file reads as 0
  bool must_be_filled = false;
  double processor_usage = 0;
  // chorus codesign: collective times from NCCL's model or a synthesized schedule (collective_table.hpp) instead of
  // the formula below (and of all_to_all_time's, block.hpp); none: the formulas. Not part of a system file.
  std::shared_ptr<const CollectiveTable> table;

  // Calculon's op time: latency + S * scale * (1 + offset / n) / (bandwidth * efficiency); a table's time instead
  // where it has the collective.
  double op_time(Collective op, double bytes, int64_t n) const {
    auto i = static_cast<size_t>(op);
    if (table && n > 1 && !table->curves[i].empty())
      return table->time(op, bytes, n);
    double factor = scale[i] * (1.0 + offset[i] / static_cast<double>(n));
    return latency_s + bytes * factor / (bytes_per_second * efficiency);
  }
};

enum class ProcessingMode : uint8_t { kNoOverlap, kRoofline };

struct System {
  // Per datatype; the execution picks one. Datatype names follow Calculon ("float16", "float8", ...).
  std::vector<std::string> datatypes;
  std::vector<ComputeUnit> matrix;  // parallel to datatypes
  std::vector<ComputeUnit> vector;
  MemoryTier mem1;
  MemoryTier mem2;
  ProcessingMode mode = ProcessingMode::kNoOverlap;
  std::vector<NetworkTier> networks;

  int datatype_index(const std::string& name) const;  // -1 when absent; callers turn that into an Error
};

enum class Recompute : uint8_t { kFull, kAttnOnly, kNone };
enum class TpCommType : uint8_t { kAr, kP2pRsAg, kRsAg };
enum class TpOverlap : uint8_t { kNone, kRing, kPipe };
// Communication-hiding GEMMs (chorus extension, collective_matmul.hpp): the TP GEMMs decomposed and pipelined
// with their All-Gather / Reduce-Scatter (1-D ring), or run as 2-D SUMMA over a grid of the TP group.
enum class TpGemmOverlap : uint8_t { kNone, kPipelined, kSumma };
// ZeRO stage: 1 shards the optimizer state, 2 also the gradients, 3 also the weights (FSDP).
enum class Fsdp : uint8_t { kNone, kZero1, kZero2, kZero3 };

// One execution strategy. Plain data so the search can build millions of them without allocating.
struct Execution {
  int64_t num_procs = 1;
  int64_t tensor_par = 1;
  int64_t pipeline_par = 1;
  int64_t data_par = 1;
  int8_t tensor_par_net = 0;
  int8_t pipeline_par_net = 0;
  int8_t data_par_net = 0;
  int64_t batch_size = 1;
  int64_t microbatch_size = 1;
  int datatype = 0;  // index into System::datatypes
  bool fused_activation = false;
  bool multiquery = false;  // attention_type "multiquery": one K/V head
  Recompute recompute = Recompute::kNone;
  int64_t pipeline_interleaving = 1;
  bool optimizer_sharding = false;
  TpCommType tp_comm = TpCommType::kAr;
  TpOverlap tp_overlap = TpOverlap::kNone;
  bool seq_par_ag_redo = false;
  bool data_par_overlap = false;
  bool weight_offload = false;
  bool activations_offload = false;
  bool optimizer_offload = false;
  bool training = true;
  // chorus extensions, optional keys (docs/llm.md): the defaults reproduce Calculon's executions.
  int64_t context_par = 1;  // ring attention over the sequence; num_procs = TP x PP x DP x CP
  int64_t expert_par = 1;   // experts split over EP ranks taken from the data-parallel group
  int8_t context_par_net = 0;
  int8_t expert_par_net = 0;
  Fsdp fsdp = Fsdp::kNone;
  TpGemmOverlap tp_gemm_overlap = TpGemmOverlap::kNone;  // key tp_gemm_overlap
  bool fused_attention = false;  // Flash attention: no score matrix in HBM, scores recomputed on chip in backward
  bool ep_overlap = false;       // MoE All-to-All of one microbatch hidden behind another's compute (paired 1F1B)
  // Interleaved 1F1B's stage-to-stage sends run beside the next chunk's compute (Megatron-Core's overlap_p2p_comm,
  // NeMo's default with virtual pipelines): only what a chunk's compute cannot hide is exposed.
  bool pipeline_p2p_overlap = false;
  // Ranks that hold the same weights and reduce their gradients: data x context parallel.
  int64_t grad_group() const { return data_par * context_par; }
};

Application parse_application(const nlohmann::json& json, const std::string& file);
System parse_system(const nlohmann::json& json, const std::string& file);
// Checks the execution against the application and system (divisibility, network indices, datatype).
Execution parse_execution(const nlohmann::json& json, const std::string& file, const Application& app,
                          const System& sys);

Application read_application(const std::string& path);
System read_system(const std::string& path);
Execution read_execution(const std::string& path, const Application& app, const System& sys);

// Calculon's spellings, for JSON/CSV output.
const char* to_string(Recompute r);
const char* to_string(TpCommType t);
const char* to_string(TpOverlap o);
const char* to_string(Fsdp f);
const char* to_string(TpGemmOverlap o);  // defined in collective_matmul.cpp
nlohmann::json execution_to_json(const Execution& exe, const System& sys);
// The system as a Calculon system file (what parse_system reads back unchanged).
nlohmann::json system_to_json(const System& sys);

}  // namespace chorus::llm
