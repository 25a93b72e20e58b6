// Memory per processor for one execution, split over the two tiers, and the capacity check.
//
// - weights: the blocks this processor holds, in the training datatype;
// - weight gradients: fp32 for every held weight (Megatron accumulates gradients over microbatches in an
//   fp32 "main_grad" buffer), so mixed precision costs 2 + 4 + 4 + 8 = 18 bytes per parameter, which is what
//   Korthikanti et al. 2022 (arXiv:2205.05198) Fig. 1 shows (Calculon keeps one fp32 block and low-precision
//   copies for the rest, and reads 8.5 % low on that figure);
// - optimizer: fp32 master copy (when the datatype is narrower) + two fp32 Adam moments, divided by DP when sharded;
// - activations: the per-block stored activations x blocks x in-flight microbatches min(n_mb, PP) x the
//   interleaving factor 1 + (PP-1)/(PP v) (Korthikanti et al. section 4.2.3), plus the backward working set of
//   one block that recompute brings back, plus one block's activation gradients.
// - FP8 training: GEMMs in FP8, but weights and stored activations at 16 bits (the weights are cast per GEMM), so
//   the bytes above are those of BF16 except for the GEMM inputs' traffic (the time model's concern).
// Offloading keeps two blocks' worth (the one in use and the one being fetched) in tier 1 and the rest in tier 2.
//
//   MemoryUse mem = memory_use(block, exe, shape, hw.bytes_per_element());
#pragma once

#include "chorus/llm/block.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// How an execution cuts the model: blocks per processor, chunks (interleaving), microbatches.
struct PipelineShape {
  int64_t blocks_per_proc = 1;
  int64_t chunks = 1;  // pipeline interleaving v
  int64_t blocks_per_chunk = 1;
  int64_t microbatches = 1;
  int64_t in_flight = 1;  // microbatches whose activations the first stage holds at once
  double interleave_factor = 1;
};

PipelineShape pipeline_shape(const Application& app, const Execution& exe);

// The layouts of blocks on stages the trace generator expresses (and the search tries): PP stages hold the blocks
// evenly, or the first and the last one block short, each still holding one (Llama 3 405B: 126 blocks on 16).
bool stages_hold_blocks(int64_t blocks, int64_t stages);
// The same for PP x V virtual stages, where the first and the last may hold none (Llama 3's V = 8).
bool virtual_stages_hold_blocks(int64_t blocks, int64_t virtual_stages);

struct MemoryUse {
  double weight_space = 0;
  double weight_grad_space = 0;
  double optimizer_space = 0;
  double act_space = 0;            // stored for backward across in-flight microbatches
  double act_working_space = 0;    // recomputed activations of the block being back-propagated
  double act_checkpoint_size = 0;  // the checkpoint part of act_space under full recompute
  double act_grad_space = 0;
  double tier1 = 0;  // bytes required in mem1 (HBM)
  double tier2 = 0;  // bytes required in mem2 (offload tier)
};

MemoryUse memory_use(const BlockCost& block, const Execution& exe, const PipelineShape& shape, double bytes);

// Bytes per weight of optimizer state: fp32 master copy when the datatype is narrower, plus two fp32 moments.
inline double optimizer_bytes_per_weight(double datatype_bytes) {
  return (datatype_bytes < 4 ? 4.0 : 0.0) + 8.0;
}
inline constexpr double kGradientBytes = 4;  // fp32 gradient accumulation
// What FP8 training stores per weight and per activation element: 16 bits (memory_use).
inline constexpr double kStoredBytesFp8 = 2;

}  // namespace chorus::llm
