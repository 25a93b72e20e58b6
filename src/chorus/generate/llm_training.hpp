// Generated LLM training iterations: one Chakra trace per NPU for a GPT/LLaMA-style transformer trained with
// data (DP), tensor (TP) and pipeline (PP) parallelism, plus the communicator-group JSON.
//
// - Ranks follow Megatron-LM's order (Shoeybi et al. 2019; Narayanan et al. 2021): TP fastest, then CP, then DP,
//   then PP, rank = ((pp * dp_size + dp) * cp_size + cp) * tp_size + tp, so a TP group is tp consecutive NPUs
//   (one scale-up node); without CP, rank = (pp * dp_size + dp) * tp_size + tp.
// - Tensor parallelism is Megatron's: per layer, the attention and the MLP halves each end with an All-Reduce of
//   the b*s*h activation in the TP group, forward and backward (the f/g operators of Shoeybi et al. 2019). With
//   sequence parallelism (Korthikanti et al. 2022, arXiv:2205.05198) each All-Reduce becomes an All-Gather before
//   the half and a Reduce-Scatter after it, in both passes.
// - Pipeline parallelism is 1F1B / PipeDream-Flush (Narayanan et al. 2021, SC'21, section 2.2): stage p runs
//   min(P-p-1, M) warm-up forwards, then alternates one forward and one backward, then drains the backwards.
//   Forward activations go to the next stage and activation gradients to the previous one as COMM_SEND/RECV
//   (b*s*h elements; with sequence parallelism the 1/t shard each TP rank holds).
// - Compute: one COMP node per layer half per pass with its FLOPs (num_ops) and bytes moved (tensor_size), and
//   duration_micros from the roofline max(flops / peak, bytes / bandwidth). Backward costs twice the forward
//   (Narayanan et al. 2021: activation and weight gradients). The last stage also runs the LM head.
// - At the end each stage's DP group All-Reduces its gradients (or, with a distributed optimizer, Reduce-Scatters
//   them and All-Gathers the updated parameters).
// - Context parallelism (--cp, ring attention, Liu et al. 2023): every token-wise layer sees s/cp tokens; each
//   attention half runs in cp chunks (the local queries against one KV block each) with the rank's K and V
//   passed to the next rank of the CP ring as a COMM_SEND/RECV between chunks, cp-1 steps forward; backward
//   also passes their gradients (twice the bytes). The gradient group becomes DP x CP.
// - Mixture of experts (models with `experts`; --ep over the data-parallel ranks): after the first dense_blocks
//   layers the MLP half is a router, a dispatch All-to-All of the rank's routed tokens (its 1/tp share of
//   b*s/cp * top_k * h elements) in the EP group, the local experts, and a combine All-to-All; backward in
//   reverse. Expert gradients reduce over the DP x CP / EP ranks holding the same experts.
// - ZeRO / FSDP (--fsdp): zero1 is the distributed optimizer; zero2 reduce-scatters each layer's gradients in
//   its backward, every microbatch (off the stream with overlap_dp, as `generate llm --fsdp` sets it), then
//   all-gathers the parameters once; zero3 also all-gathers each layer's parameters before its forward and before
//   its backward (prefetched: issued one layer ahead, off the stream), with no gathering at the end.
// - Generated from the planner's inputs (chorus llm run --engine sim, generate llm --exec; llm_engine/): compute
//   nodes take the planner's per-block forward, backward and recompute times (the roofline only splits a block's
//   time among its nodes), the LM head and the optimizer step; activation recompute re-runs each layer's forward
//   (and, full recompute, its TP collectives) before its backward; interleaved 1F1B runs `interleaving` model
//   chunks per stage in Megatron's order; overlapped DP reduces each layer's gradients during the last
//   microbatch's backward; without sequence parallelism each TP rank sends 1/tp of the activation to the next
//   stage and the receivers All-Gather it (Narayanan et al. 2021, section 4.1).
// Each rank's nodes form one in-order stream (a dependency chain, as Megatron's single compute stream);
// sends leave the stream so the next work is not held up by them.
//
//   LlmTrainingSpec spec{.model = *llm::model_preset("gpt3-175b"), .dp = 8, .tp = 8, .pp = 16, .microbatches = 16};
//   write_llm_training("traces/gpt3", spec, false);  // traces/gpt3/llm.<rank>.et + traces/gpt3/comm_groups.json
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/core/units.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus {

class Progress;

// What the planner decided, in seconds per block and microbatch on one rank (llm::Stats); the generator gives its
// compute nodes these times instead of the roofline's.
struct PlannerTimes {
  double block_forward_s = 0;
  double block_backward_s = 0;
  double block_recompute_s = 0;
  double head_s = 0;       // the LM head's forward + backward per microbatch, on the last stage
  double optimizer_s = 0;  // the optimizer step of one block's weights
};

struct LlmTrainingSpec {
  std::string model_name = "model";
  llm::Application model;  // Calculon's application format (examples/llm/*.json)
  uint32_t dp = 1;
  uint32_t tp = 1;
  uint32_t pp = 1;
  uint32_t microbatches = 1;     // per iteration and pipeline (M)
  uint32_t microbatch_size = 1;  // sequences per microbatch (b)
  bool sequence_parallel = false;
  bool distributed_optimizer = false;  // DP Reduce-Scatter + All-Gather instead of All-Reduce
  double bytes_per_element = 2;        // fp16/bf16 activations, weights and gradients
  double peak_tflops = 312;            // per NPU, 1e12 FLOP/s (A100 dense fp16)
  double mem_bw_gbps = 2039;           // per NPU, 1e9 B/s (A100-80GB HBM2e)
  uint32_t cp = 1;                     // context parallelism (ring attention); divides seq_size
  uint32_t ep = 1;                     // expert parallelism over DP ranks; divides dp and the experts
  llm::Fsdp fsdp = llm::Fsdp::kNone;   // kZero1 = distributed_optimizer
  uint32_t interleaving = 1;           // model chunks per stage (interleaved 1F1B); pp * it divides num_blocks
  llm::Recompute recompute = llm::Recompute::kNone;
  // DP communication overlaps the backward: each layer's gradients reduced during the last microbatch's backward,
  // or (ZeRO-2/3) each microbatch's per-layer Reduce-Scatter off the stream; otherwise on the stream.
  bool overlap_dp = false;
  bool pipeline_scatter = false;  // 1/tp of the activation per TP rank to the next stage, All-Gathered there
  bool ag_redo = false;           // sequence parallelism: the backward re-gathers each half's input
  // The TP collectives of each half run beside its compute (tiled or decomposed GEMMs overlapping their
  // collective): the half lasts at least the longer of the two, never less.
  bool tp_overlap = false;
  // Pipeline sends leave the stream (the next node does not wait for them); false: the stage waits for each send
  // to arrive before it goes on, as Megatron's blocking send/receive pairs do without overlap_p2p_comm (the
  // planner's exec key pipeline_p2p_overlap false).
  bool pipeline_send_overlap = true;
  std::optional<PlannerTimes> planned;
  uint32_t grad_group() const { return dp * cp; }
};

// Throws chorus::Error naming the field (Argument dp, tp, pp, microbatches, ...) when the spec is unusable.
void validate(const LlmTrainingSpec& spec);

struct Work {
  double flops = 0;
  double bytes = 0;
};

// Forward work of one microbatch on one TP rank; the backward is twice each.
struct LayerWork {
  Work attention;
  Work mlp;
};
LayerWork layer_forward_work(const LlmTrainingSpec& spec);
// The MoE half of a layer (models with experts, layers from dense_blocks on), forward, one TP rank.
struct MoeWork {
  Work router;
  Work experts;  // the routed tokens this rank's experts receive plus the shared experts
};
MoeWork moe_forward_work(const LlmTrainingSpec& spec);
bool moe_layer(const LlmTrainingSpec& spec, uint32_t layer);
// comm_size of the dispatch (and combine) All-to-All: the rank's 1/tp share of b*s/cp * top_k * h elements (x the
// capacity factor when one is set).
int64_t moe_all_to_all_bytes(const LlmTrainingSpec& spec);
// One ring-attention message: this rank's K and V, 2 * b * s/cp * kv_heads/tp * head_dim elements.
int64_t cp_message_bytes(const LlmTrainingSpec& spec);
// Gradient bytes of one layer on one TP rank: the parts every DP x CP rank holds (attention, norms, router, shared
// experts, dense MLP) and the rank's local routed experts (experts / ep of them).
struct LayerParams {
  int64_t dense = 0;
  int64_t experts = 0;
};
LayerParams layer_param_bytes(const LlmTrainingSpec& spec, uint32_t layer);
Work head_forward_work(const LlmTrainingSpec& spec);  // LM head logits over the vocabulary, vocab-parallel
Time roofline_time(const Work& work, const LlmTrainingSpec& spec);

// Chakra comm_size of the TP All-Reduce and Reduce-Scatter (b*s*h elements); the All-Gather's is this / tp.
int64_t tp_collective_bytes(const LlmTrainingSpec& spec);
int64_t pipeline_message_bytes(const LlmTrainingSpec& spec);
// The layers of one pipeline stage (with interleaving: of one virtual stage, chunk * pp + stage, each holding
// num_blocks / (pp * interleaving)). num_blocks / pp each when pp divides num_blocks; otherwise num_blocks + 2 must
// be a multiple of pp and the first and the last stage hold one layer fewer than the others, to balance the
// embedding and the LM head (Llama 3 405B: 126 layers on 16 stages, 7 + 14 x 8 + 7; Dubey et al. 2024, "The Llama 3
// Herd of Models", section 3.3.2).
struct StageLayers {
  uint32_t first = 0;  // index of the stage's first layer
  uint32_t count = 0;
};
StageLayers stage_layers(const LlmTrainingSpec& spec, uint32_t stage);
StageLayers virtual_stage_layers(const LlmTrainingSpec& spec, uint32_t virtual_stage);

// Gradient bytes one TP rank of `stage` holds: its layers' weights / tp, plus vocab*h/tp for the input
// embedding on the first stage and the output layer on the last.
int64_t stage_gradient_bytes(const LlmTrainingSpec& spec, uint32_t stage);

enum class Pass : uint8_t { Forward, Backward };
struct PipelineStep {
  Pass pass = Pass::Forward;
  uint32_t microbatch = 0;
  uint32_t chunk = 0;  // model chunk (interleaved 1F1B)
  bool operator==(const PipelineStep&) const = default;
};
// The 1F1B order of one stage.
std::vector<PipelineStep> one_f_one_b(uint32_t stage, uint32_t stages, uint32_t microbatches);
// Interleaved 1F1B (Narayanan et al. 2021, section 2.2; Megatron-LM's schedule): (stages - stage - 1) * 2 +
// (chunks - 1) * stages warm-up forwards, then one forward and one backward; forward k runs microbatch
// (k / (stages * chunks)) * stages + k % stages of chunk (k / stages) % chunks, backwards the chunks in reverse.
// `microbatches` must be a multiple of `stages` when chunks > 1.
std::vector<PipelineStep> interleaved_one_f_one_b(uint32_t stage, uint32_t stages, uint32_t chunks,
                                                  uint32_t microbatches);

struct RankCoords {
  uint32_t dp = 0;
  uint32_t tp = 0;
  uint32_t pp = 0;
  uint32_t cp = 0;
};
RankCoords rank_coords(const LlmTrainingSpec& spec, uint32_t rank);
uint32_t rank_of(const LlmTrainingSpec& spec, RankCoords coords);

struct NamedGroup {
  std::string name;
  std::vector<uint32_t> npus;
};
// TP groups (when tp > 1) named "1".."dp*cp*pp" by (pp, dp, cp), then the gradient (DP x CP) groups (when
// dp*cp > 1) by (pp, tp), then EP groups (when ep > 1) by (pp, cp, tp, dp / ep), then the expert gradient groups
// (MoE models with dp*cp/ep > 1) by (pp, tp, dp % ep): numeric names, as ASTRA-sim's comm-group JSON expects.
std::vector<NamedGroup> llm_comm_groups(const LlmTrainingSpec& spec);
std::string tp_group_name(const LlmTrainingSpec& spec, RankCoords coords);
std::string dp_group_name(const LlmTrainingSpec& spec, RankCoords coords);
std::string ep_group_name(const LlmTrainingSpec& spec, RankCoords coords);
std::string expert_dp_group_name(const LlmTrainingSpec& spec, RankCoords coords);

chakra::ChakraTrace llm_rank_trace(const LlmTrainingSpec& spec, uint32_t rank);

// Validates, then writes `<directory>/llm.<rank>.et` for every rank and `<directory>/comm_groups.json`;
// returns the trace prefix.
// `progress` (optional) hears of each rank file written.
std::string write_llm_training(const std::string& directory, const LlmTrainingSpec& spec, bool gzip,
                               Progress* progress = nullptr);

}  // namespace chorus
