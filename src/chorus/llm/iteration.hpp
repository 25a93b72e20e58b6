// The time of one training iteration (one global batch) and its statistics, Calculon-style.
//
//   total = fw + bw + optimizer step + offload overheads + recompute + recompute-communication
//         + pipeline bubble + exposed TP, PP and DP communication + LM head
//
// Each term restates Calculon (Isaev et al., SC'23; llm-model.md section 2.3): per-block costs (block.hpp)
// times blocks per processor times microbatches; TP communication per chunk with a distinct edge block;
// one PP p2p per chunk per microbatch each way; the interleaved 1F1B bubble (PP-1) x chunk_time (Narayanan
// et al. 2021: (p-1)/(v m) of the ideal time); DP all-reduce (or reduce-scatter + all-gather when the
// optimizer is sharded) per block, optionally hidden behind the backward passes of later microbatches.
// Two changes from Calculon, both documented in docs/llm.md: its recompute-accumulation bug is fixed
// (kept behind Options::calculon_recompute_bug so tests can show the difference), and the last stage's LM
// head (logits + loss over the vocabulary, which Calculon leaves out) is on the critical path once per microbatch.
//
// A configuration that does not fit in memory, or whose parallel groups do not fit their network tiers, is
// an Outcome, not an error.
//
//   IterationModel model(app, sys);
//   Stats st = model.evaluate(exe);
//   if (st.outcome == Outcome::kOk) fmt::print("{} s\n", st.total_time);
#pragma once

#include <string>

#include "chorus/llm/block.hpp"
#include "chorus/llm/hardware.hpp"
#include "chorus/llm/inputs.hpp"
#include "chorus/llm/memory.hpp"

namespace chorus::llm {

enum class Outcome : uint8_t { kOk, kDoesNotFit, kNetworkTooSmall };

// Times in seconds, sizes in bytes, rates per second (doubles: the model is continuous and runs millions
// of times per second; chorus::Time is for the event simulators).
struct Stats {
  Outcome outcome = Outcome::kOk;
  BlockCost block;
  OpCost head;
  PipelineShape shape;
  MemoryUse memory;
  double block_dp_time = 0;     // one block's gradient reduction link time over the whole iteration
  double block_dp_mb_time = 0;  // of which each microbatch's (ZeRO-2/3 reduce-scatter every microbatch)
  double pp_p2p_time = 0;
  double chunk_time = 0;
  double optim_flops = 0;

  double fw_time = 0;
  double bw_time = 0;
  double optim_step_time = 0;
  double recompute_time = 0;
  double recomm_link_time = 0;
  double recomm_exposed_time = 0;
  double bubble_time = 0;
  double tp_comm_link_time = 0;
  double tp_comm_exposed_time = 0;
  double pp_comm_link_time = 0;
  double pp_comm_exposed_time = 0;
  double dp_comm_link_time = 0;
  double dp_comm_exposed_time = 0;
  double fw_offload_exposed_time = 0;
  double bw_offload_exposed_time = 0;
  double head_time = 0;
  double cp_comm_link_time = 0;  // ring attention (context parallelism)
  double cp_comm_exposed_time = 0;
  double ep_comm_link_time = 0;  // MoE token dispatch and combine (expert parallelism)
  double ep_comm_exposed_time = 0;
  double fsdp_gather_link_time = 0;  // ZeRO-3 weight all-gathers
  double fsdp_gather_exposed_time = 0;
  double total_time = 0;

  double useful_flops = 0;
  double compute_efficiency = 0;
  double system_efficiency = 0;
  double total_efficiency = 0;
  double sample_rate = 0;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;  // model FLOPs (no recompute) per second per GPU / 1e12
};

// Model FLOPs of one token through the whole model (forward, or forward + backward when training).
double model_flops_per_token(const Application& app, bool training);

// The LM head's time per microbatch beyond the fullest stage: when `blocks` do not fill PP stages of
// `blocks_per_stage`, the last stage (where the head runs) is a short one, so the head adds only what the missing
// block's time (`block`: its forward, backward and recompute) does not cover (Llama 3 405B: 126 blocks on 16
// stages of 8).
double exposed_head_time(int64_t blocks, int64_t pp, int64_t blocks_per_stage, double head, double block);

struct Options {
  // Reproduce Calculon's recompute-accumulation bug in the DP-overlap window (for comparison only).
  bool calculon_recompute_bug = false;
  // Put the LM head on the last stage's critical path (Calculon does not model it).
  bool include_head = true;
};

class IterationModel {
 public:
  IterationModel(const Application& app, const System& sys, Options options = {});

  Stats evaluate(const Execution& exe) const;

  // The two halves of evaluate(), for the search: the block depends on fewer execution fields than the rest.
  BlockCost block(const Execution& exe) const;
  // Fills every statistic from a block computed for the same execution; cheap (no per-layer work).
  void finish(const Execution& exe, Stats& st) const;
  // Memory only: enough to reject an execution that cannot fit before any timing work.
  MemoryUse memory(const Execution& exe, const BlockCost& block) const;
  bool networks_fit(const Execution& exe) const;

  const Application& application() const { return app_; }
  const System& system() const { return sys_; }
  const Hardware& hardware(int datatype) const { return hardware_.at(static_cast<size_t>(datatype)); }

 private:
  double dp_exposed(const Execution& exe, const Stats& st, double block_tp_bw_link) const;

  Application app_;
  System sys_;
  Options options_;
  std::vector<Hardware> hardware_;  // one per datatype of the system
};

// "does not fit: needs 91.2 GiB of 80 GiB in tier 1" and the like.
std::string describe_outcome(const Stats& st, const System& sys);

}  // namespace chorus::llm
