// Per-processor memory accounting and tier placement (see memory.hpp).
#include "chorus/llm/memory.hpp"

#include <algorithm>

namespace chorus::llm {

bool stages_hold_blocks(int64_t blocks, int64_t stages) {
  return blocks % stages == 0 || ((blocks + 2) % stages == 0 && (blocks + 2) / stages >= 2);
}

bool virtual_stages_hold_blocks(int64_t blocks, int64_t virtual_stages) {
  return blocks % virtual_stages == 0 || (blocks + 2) % virtual_stages == 0;
}

PipelineShape pipeline_shape(const Application& app, const Execution& exe) {
  PipelineShape s;
  s.blocks_per_proc = (app.num_blocks + exe.pipeline_par - 1) / exe.pipeline_par;  // the fullest stage
  s.chunks = exe.pipeline_interleaving;
  s.blocks_per_chunk = std::max<int64_t>(1, s.blocks_per_proc / s.chunks);
  s.microbatches = exe.batch_size / (exe.data_par * exe.microbatch_size);
  s.in_flight = std::min(s.microbatches, exe.pipeline_par);
  const double pp = static_cast<double>(exe.pipeline_par);
  s.interleave_factor = s.chunks > 1 ? 1.0 + (pp - 1) / (pp * static_cast<double>(s.chunks)) : 1.0;
  return s;
}

MemoryUse memory_use(const BlockCost& block, const Execution& exe, const PipelineShape& shape, double bytes) {
  MemoryUse m;
  // FP8 training computes its GEMMs in FP8 but keeps its weights at 16 bits (cast to FP8 per GEMM: Transformer
  // Engine, Megatron-LM without --fp8-param-gather); block_cost() already counts the stored activations at 16 bits.
  const double stored = std::max(bytes, kStoredBytesFp8);
  const double blocks = static_cast<double>(shape.blocks_per_proc);
  // ZeRO shards over the ranks that hold the same weights: DP x CP for dense weights, DP x CP / EP for experts.
  const double group = static_cast<double>(exe.grad_group());
  const double expert_group = group / static_cast<double>(exe.expert_par);
  const double dense_w = block.weights - block.expert_weights;
  auto space = [&](double per_weight, bool sharded) {
    return dense_w * blocks * per_weight / (sharded ? group : 1.0) +
           block.expert_weights * blocks * per_weight / (sharded ? expert_group : 1.0);
  };
  const bool zero2 = exe.fsdp == Fsdp::kZero2 || exe.fsdp == Fsdp::kZero3;
  const bool zero3 = exe.fsdp == Fsdp::kZero3;
  m.weight_space = space(stored, zero3);
  m.weight_grad_space = space(kGradientBytes, zero2);
  m.optimizer_space = space(optimizer_bytes_per_weight(bytes), exe.optimizer_sharding);
  // ZeRO-3 gathers a block's weights before use and prefetches the next: two whole blocks in flight. ZeRO-2/3
  // reduce-scatter each block's fp32 gradients as they are produced: one whole block's buffer.
  if (zero3)
    m.weight_space += 2 * block.weights * stored;
  if (zero2)
    m.weight_grad_space += block.weights * kGradientBytes;
  const double held = blocks * static_cast<double>(shape.in_flight) * shape.interleave_factor;
  if (exe.training) {
    m.act_space = block.act_stored_bytes * held;
    m.act_working_space = block.act_no_recompute_bytes - block.act_stored_bytes;
    m.act_grad_space = block.act_grad_bytes;
  } else {
    // Inference keeps nothing for a backward pass: one block's forward working set.
    m.act_working_space = block.act_no_recompute_bytes;
    m.weight_grad_space = 0;
    m.optimizer_space = 0;
  }
  if (exe.recompute == Recompute::kFull)
    m.act_checkpoint_size = m.act_space;

  const double per_block_weights = block.weights * (stored + (exe.training ? kGradientBytes : 0));
  const double weights_and_grads = m.weight_space + m.weight_grad_space;
  const double buffered_blocks = std::min(2.0, blocks);
  const double weights_tier1 = exe.weight_offload ? per_block_weights * buffered_blocks : weights_and_grads;
  const double acts_tier1 = exe.activations_offload ? block.act_stored_bytes * std::min(2.0, held) : m.act_space;
  const double optimizer_tier1 = exe.optimizer_offload ? 0.0 : m.optimizer_space;
  m.tier1 = weights_tier1 + acts_tier1 + optimizer_tier1 + m.act_working_space + m.act_grad_space;
  m.tier2 = (exe.weight_offload ? weights_and_grads : 0.0) + (exe.activations_offload ? m.act_space : 0.0) +
            (exe.optimizer_offload ? m.optimizer_space : 0.0);
  return m;
}

}  // namespace chorus::llm
