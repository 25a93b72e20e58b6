// Generated Mixture-of-Experts transformer training iterations with expert parallelism: E experts spread over
// `ep` GPUs (E/ep each), every token routed to its top-k experts, per-expert capacity
// C = ceil(capacity_factor * k * T / E) for T tokens in the group (GShard, Lepikhin et al. 2020, arXiv 2006.16668;
// Switch Transformer, Fedus et al. 2021, arXiv 2101.03961), tokens dispatched to their experts by an All-to-All
// and combined back by another.
//
// Per rank and layer, with t tokens per GPU, hidden size h, expert FFN size f (two GEMMs, h -> f -> h):
//   attention_fwd  COMP  the dense part of the layer (Q, K, V, output projections 8 t h^2 FLOPs and the scores
//                        4 t s h for sequence length s = t, a single sequence per GPU)
//   router_fwd     COMP  2 t h E
//   dispatch_fwd   All-to-All of ceil(cf * k * t) * h elements (the capacity-padded token buffer)
//   experts_fwd    COMP  4 * ceil(cf k t) * h * f (both GEMMs on the tokens received)
//   combine_fwd    All-to-All, same size                (depends on experts_fwd only: fusable, gemm-all-to-all)
// and backward in reverse with twice the compute: combine_bwd All-to-All, experts_bwd, dispatch_bwd All-to-All
// (depends on experts_bwd only: fusable), router_bwd, attention_bwd. Then the dense (non-expert) gradients are
// All-Reduced over the ep GPUs (their data-parallel group). Compute times are the GPU's roofline.
//
//   write_moe("traces/moe", MoeSpec{.experts = 64, .top_k = 2, .ep = 8}, false);   // traces/moe/moe.<r>.et
#pragma once

#include <cstdint>
#include <string>

#include "chorus/fused/gpu.hpp"

namespace chorus {

struct MoeSpec {
  uint32_t experts = 64;
  uint32_t top_k = 2;
  uint32_t ep = 8;
  uint32_t layers = 1;
  uint32_t tokens_per_gpu = 4096;
  uint32_t hidden = 4096;
  uint32_t ffn = 14336;
  double capacity_factor = 1.25;
  std::string dtype = "bf16";
  fused::GpuSpec gpu;
};

// Throws chorus::Error naming the Argument ("experts", ...): experts not a multiple of ep, top-k of 0 or above the
// experts, a capacity factor <= 0, zero sizes.
void validate(const MoeSpec& spec);

// The dispatch (and combine) All-to-All's comm_size per GPU (bytes).
int64_t moe_all_to_all_bytes(const MoeSpec& spec);

std::string write_moe(const std::string& directory, const MoeSpec& spec, bool gzip);

}  // namespace chorus
