// The MoE token dispatch and combine All-to-All of one block and microbatch: what each rank sends and how long the
// exchange takes when part of the expert-parallel group shares a scale-up (NVLink) domain.
//
//   double s = dispatch_bytes(app, exe, hw.bytes_per_element());
//   double t = expert_all_to_all_time(*nets.ep, nets.scale_up, s, exe.expert_par, ep_ranks_per_domain(exe, 8));
#pragma once

#include <cstdint>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// Bytes one rank sends into one dispatch (or combine) All-to-All: its 1/TP share of the microbatch's tokens, each
// sent to top_k experts (padded by the capacity factor when there is one), `hidden` elements per token. The payload
// is the activations' width, at least 16 bits: FP8 training casts to FP8 inside the expert GEMM (Transformer
// Engine's GroupedLinear), so the dispatched hidden states, the combined outputs and both gradients travel in BF16.
double dispatch_bytes(const Application& app, const Execution& exe, double bytes_per_element);

// Members of one EP group inside one scale-up domain of `domain_size` GPUs. An EP group larger than a domain (TP x CP
// x EP > domain_size) spans several: Megatron orders ranks TP, CP, DP, PP and an EP group is `expert_par` consecutive
// DP ranks, so a domain holds domain_size / (TP x CP) of them. A group that would fit one domain but runs on a higher
// tier is spread by the execution's choice (1 per domain); on the scale-up tier itself the whole group is local.
int64_t ep_ranks_per_domain(const Execution& exe, int64_t domain_size);

// All-to-All over n ranks, each holding `bytes` and keeping 1/n. Of the n - 1 peers, local - 1 share this rank's
// scale-up domain and are reached over `scale_up`; the n - local others over `net`. The two parts run at once
// (different links), so the slower one sets the time. `scale_up` null or local <= 1: every peer goes over `net`.
double expert_all_to_all_time(const NetworkTier& net, const NetworkTier* scale_up, double bytes, int64_t n,
                              int64_t local);

}  // namespace chorus::llm
