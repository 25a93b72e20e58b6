// Serving a model: the prefill of a batch of prompts and the decode of the output tokens, with KV-cache memory and
// bandwidth, on GPUs split as tensor x pipeline x data (attention) parallel replicas with expert parallelism over the
// data-parallel ranks (the layout of DeepSeek-V3's serving: data-parallel attention, expert-parallel MoE).
//
// Prefill: one forward pass of batch/DP prompts per replica through every block (block.hpp's accounting with
// seq_size = prompt), the pipeline stages one after another, plus the LM head for the last token.
// Decode, one step (one token for each sequence), per block and GPU: the weights it reads (for MoE, only the
// local experts some token was routed to: E/EP x (1 - (1 - k/E)^(tokens)) of them), the KV cache of every
// sequence at the mean context prompt + output/2 (GQA: 2 x kv_heads/TP x head_dim per token; MLA: the compressed
// kv_lora_rank + rope_head_dim latent), the FLOPs (2 per weight per token plus attention over the context), priced
// as one op by the system's processing mode; plus two TP all-reduces, the EP dispatch/combine and the PP hops.
//
//   ServingConfig c{.gpus = 8, .tp = 8, .prompt = 2048, .output = 256, .batch = 64};
//   InferenceResult r = evaluate_inference(app, sys, c);   // r.ttft_s, r.tpot_s, r.tokens_per_s
#pragma once

#include <cstdint>
#include <string>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

struct ServingConfig {
  int64_t gpus = 1;
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t ep = 1;  // divides gpus / (tp x pp), the data-parallel replicas
  int64_t prompt = 1;
  int64_t output = 1;
  int64_t batch = 1;  // sequences served together, over all replicas
  int datatype = 0;
  int8_t tp_net = 0;
  int8_t pp_net = 1;
  int8_t ep_net = 0;
};

struct InferenceResult {
  double ttft_s = 0;        // time to first token: prefill of the batch
  double tpot_s = 0;        // time per output token (one decode step) at the mean context
  double e2e_s = 0;         // ttft + (output - 1) x tpot
  double tokens_per_s = 0;  // output tokens per second over all GPUs
  double weight_bytes = 0;  // per GPU
  double kv_cache_bytes = 0;
  double workspace_bytes = 0;  // prefill working set: the widest layer's input and output
  double memory_bytes = 0;
  double capacity_bytes = 0;
  double decode_weight_bytes = 0;  // read per decode step per GPU
  double decode_kv_bytes = 0;
  double decode_flops = 0;
  bool decode_memory_bound = false;
};

// Checks the configuration (an Error naming the option for anything inconsistent, and for a batch whose
// weights + KV cache do not fit, saying by how much) and evaluates it.
InferenceResult evaluate_inference(const Application& app, const System& sys, const ServingConfig& c);

struct ServingChoice {
  ServingConfig config;
  InferenceResult result;
  int64_t evaluated = 0;  // configurations tried
  int64_t feasible = 0;   // fitting in memory and meeting the latency target
  bool found = false;
};

// Serving latency targets, seconds; 0 leaves one out.
struct LatencyTargets {
  double max_tpot_s = 0;  // time per output token
  double max_ttft_s = 0;  // time to first token (the batch's prefill)
};

// The highest-throughput split of `base.gpus` GPUs (TP within one scale-up domain, PP, EP over the replicas) and
// batch (powers of two up to base.batch, and base.batch) that meets every given target.
ServingChoice search_serving(const Application& app, const System& sys, const ServingConfig& base,
                             const LatencyTargets& targets);

}  // namespace chorus::llm
