// Per-layer accounting of one transformer block for one microbatch on one processor: FLOPs, bytes moved,
// time, weights, stored activations, and the tensor-parallel communication with its overlap.
//
// The block is Megatron's: LN, QKV projection, QK^T, softmax, dropout, AV, output projection, dropout,
// residual; LN, MLP up-projection, GeLU (or SwiGLU), down-projection, dropout, residual, with the four
// tensor-parallel communication points F/G of Shoeybi et al. (2019). Layer FLOPs, memory traffic and
// the overlap formula restate Calculon (Isaev et al., SC'23; llm-model.md section 2.3). Stored
// activations restate Korthikanti et al. 2022 (arXiv:2205.05198), Table 2 and section 4: per layer
// sbh(10 + 24/t + 5as/(ht)) bytes without recompute, 34 sbh/t + 5as^2b/t with sequence parallelism,
// the 5as^2b/t attention term dropped by selective (attention-only) recompute, 2sbh with full recompute.
//
// Calculon's recompute-accumulation bug (each recomputed layer adds the running block totals instead of
// its own) is fixed; BlockCost::re_calculon keeps the buggy sum only so tests can show the difference.
//
// Mixture of experts (grouped expert GEMMs, router, shared experts, dispatch/combine All-to-All), context
// parallelism (ring attention), FP8 cast overheads and fused (Flash) attention are chorus extensions, documented in
// docs/llm.md.
//
//   BlockCost b = block_cost(app, exe, hw, {&tp_net, &cp_net, &ep_net});
#pragma once

#include "chorus/llm/collective_matmul.hpp"
#include "chorus/llm/hardware.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// Calculon's tiled TP overlap (tensor_par_overlap ring / pipe, LinearOverlapped) can finish a GEMM and its
// collective sooner than the collective alone takes: it hides the first tile's transfer and pays no per-tile
// latency. No schedule can; `chorus llm run` warns. Per block and microbatch, keeping the pass furthest below.
struct TpOverlapBound {
  int passes = 0;         // GEMM passes overlapped (forward and activation gradient of the four linears)
  int passes_below = 0;   // of those, the ones whose GEMM + exposed time is below the collective's own time
  double gemm = 0;        // the furthest pass's GEMM time (s)
  double exposed = 0;     // what Calculon's overlap leaves exposed of its collective (s)
  double collective = 0;  // the collective's own time (s)
  Collective kind = Collective::kAllGather;
};

// Tensor-parallel communication of one block for one microbatch.
struct TpComm {
  double fw_link = 0;     // network time of the forward-pass collectives
  double bw_link = 0;     // backward (including AG redo)
  double fw_exposed = 0;  // what overlap leaves on the critical path, plus the compute slowed by it
  double bw_exposed = 0;
  double re_link = 0;  // forward collectives re-done by full recompute
  double re_exposed = 0;
  TpOverlapBound bound;  // tensor_par_overlap ring / pipe only
};

// Communication beside the TP collectives: ring attention (CP) or expert dispatch/combine (EP), per block and
// microbatch.
struct SideComm {
  double fw_link = 0;
  double bw_link = 0;
  double fw_exposed = 0;
  double bw_exposed = 0;
};

struct BlockCost {
  OpCost fw;  // forward pass, TP reduction compute included
  OpCost bw;  // activation + weight gradients
  OpCost agrad;
  OpCost wgrad;
  OpCost re;                          // forward layers re-run by recompute (each counted once)
  OpCost re_calculon;                 // the same accumulated the way Calculon does it (bug kept for comparison)
  double weights = 0;                 // elements held by this processor
  double expert_weights = 0;          // the part of `weights` in routed experts (reduced over DP x CP / EP)
  double act_stored_bytes = 0;        // kept from forward to backward under the recompute policy
  double act_no_recompute_bytes = 0;  // what the block would keep with no recompute (its backward working set)
  double act_checkpoint_bytes = 0;    // the block input, kept by full recompute
  double act_grad_bytes = 0;          // activation-gradient buffers alive during the block's backward
  double activation_elements = 0;     // m x hidden, the block's input and output size (elements)
  TpComm tp_base;                     // a block inside a pipeline chunk
  TpComm tp_edge;                     // the chunk's last block (differs for p2p_rs_ag)
  double pp_message_bytes = 0;        // activation each processor sends to the next pipeline stage
  double pp_regather_time = 0;        // all-gather that rebuilds a scattered activation after a p2p
  SideComm cp;                        // ring attention K/V passing, overlapped with attention
  SideComm ep;                        // MoE token dispatch + combine All-to-All, exposed
  TpGemmDetail tp_gemm;               // tp_gemm_overlap: each decomposed GEMM of a block using All-Gather/RS
};

// The network tiers a block's communication runs on.
struct BlockNets {
  const NetworkTier* tp = nullptr;
  const NetworkTier* cp = nullptr;
  const NetworkTier* ep = nullptr;
  // The scale-up tier (tier 0) and how many members of an EP group share one of its domains: those exchange their
  // share of the All-to-All over it (expert_dispatch.hpp). Null: the whole All-to-All runs on `ep`.
  const NetworkTier* scale_up = nullptr;
  int64_t ep_local = 1;
};

// All-to-All over n ranks, each holding `bytes` (it keeps 1/n and sends the rest).
double all_to_all_time(const NetworkTier& net, double bytes, int64_t n);

// The LM head (logits over the vocabulary, vocab-parallel over TP) that the last stage runs per microbatch.
OpCost head_cost(const Application& app, const Execution& exe, const Hardware& hw);

BlockCost block_cost(const Application& app, const Execution& exe, const Hardware& hw, const BlockNets& nets);
// Every communication on one tier (a dense model without CP or EP needs only the TP tier).
inline BlockCost block_cost(const Application& app, const Execution& exe, const Hardware& hw,
                            const NetworkTier& tp_net) {
  return block_cost(app, exe, hw, BlockNets{&tp_net, &tp_net, &tp_net});
}

}  // namespace chorus::llm
