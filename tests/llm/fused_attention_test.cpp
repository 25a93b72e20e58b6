// Fused (Flash) attention against a hand-worked tiny block: the FLOPs, HBM bytes and stored activations it
// removes or adds next to the Megatron-style unfused attention (block.cpp, fuse_attention).
#include <gtest/gtest.h>

#include "chorus/llm/block.hpp"
#include "chorus/llm/inference.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

// h = 8, a = 2 heads of d = 4, s = 16, ff = 4h = 32 (GeLU), one microbatch of one sequence, TP = 1, float16.
Application tiny() {
  Application a;
  a.hidden = 8;
  a.feedforward = 32;
  a.seq_size = 16;
  a.attn_heads = 2;
  a.attn_size = 4;
  a.kv_heads = 2;
  a.num_blocks = 1;
  return a;
}

BlockCost tiny_block(bool fused, Recompute r = Recompute::kNone) {
  const System sys = read_system(testing::calculon("systems/a100_80g.json"));
  const Hardware hw(sys, 0);
  EXPECT_EQ(hw.bytes_per_element(), 2);  // the figures below assume float16
  Execution e;
  e.microbatch_size = 1;
  e.recompute = r;
  e.fused_attention = fused;
  return block_cost(tiny(), e, hw, sys.networks[0]);
}

// m = 16 tokens; scores = a s^2 = 2 x 16 x 16 = 512; Q = K = V = O = m a d = 128 elements.
// QK^T forward = 2 x (b a) x s x d x s = 2 x 2 x 16 x 4 x 16 = 4,096 FLOPs (AV the same).
TEST(LlmFusedAttention, BackwardRecomputesTheScoresOnChip) {
  const BlockCost plain = tiny_block(false);
  const BlockCost fused = tiny_block(true);
  // Forward FLOPs are the same kernel work: QK^T, softmax (5 / score), dropout (1 / score), AV.
  EXPECT_DOUBLE_EQ(fused.fw.flops, plain.fw.flops);
  // Backward adds S = QK^T again (4,096 matrix FLOPs) and P = exp(S - LSE) (2 x 512 = 1,024 vector FLOPs).
  EXPECT_DOUBLE_EQ(fused.bw.flops - plain.bw.flops, 4096 + 1024);
  EXPECT_DOUBLE_EQ(fused.wgrad.flops, plain.wgrad.flops);
}

TEST(LlmFusedAttention, ScoresNeverReachHbm) {
  const BlockCost plain = tiny_block(false);
  const BlockCost fused = tiny_block(true);
  // Unfused, 2 bytes per element: QK^T reads Q, K, writes S: (128 + 128 + 512) x 2 = 1,536; softmax reads and writes
  // S: 2,048; dropout the same: 2,048; AV reads P, V and writes O: 1,536. Total 7,168 bytes.
  // Fused: reads Q, K, V, writes O (4 x 128 x 2 = 1,024) and the log-sum-exp, 2 heads x 16 rows x 4 bytes = 128.
  // Total 1,152 bytes, 6,016 fewer; backward moves the same tensors in this model, so it saves as much.
  EXPECT_DOUBLE_EQ(plain.fw.mem_bytes - fused.fw.mem_bytes, 7168 - 1152);
  EXPECT_DOUBLE_EQ(plain.agrad.mem_bytes - fused.agrad.mem_bytes, 7168 - 1152);
}

TEST(LlmFusedAttention, StoresTheSoftmaxStatisticsInsteadOfTheScores) {
  // Korthikanti et al. 2022, Table 2 with t = 1: sbh x 34 + 5 a s^2 b bytes; s b h = 16 x 1 x 8 = 128, so
  // 4,352 + 5 x 2 x 256 = 6,912 bytes unfused. Fused keeps no scores, softmax output or dropout mask (the 5 a s^2 b
  // term) but the fp32 log-sum-exp, a s b x 4 = 128 bytes: 4,480.
  EXPECT_DOUBLE_EQ(tiny_block(false).act_stored_bytes, 6912);
  EXPECT_DOUBLE_EQ(tiny_block(true).act_stored_bytes, 4352 + 128);
  // Attention-only recompute already drops the scores; fused on top re-runs the kernel and keeps Q, K, V: 4,352.
  EXPECT_DOUBLE_EQ(tiny_block(true, Recompute::kAttnOnly).act_stored_bytes, 4352);
}

TEST(LlmFusedAttention, InferPrefillHasNoScoreWorkingSet) {
  // The tiny model with a 64-token prompt, one sequence on one GPU, bfloat16 (2 bytes). The prefill working set is
  // the widest layer's input + output plus the residual stream (m h = 64 x 8 = 512 elements). Unfused, the widest
  // is the softmax over a s^2 = 2 x 64 x 64 = 8,192 scores (in + out 16,384); fused, the GeLU: m ff in and out,
  // 2 x 64 x 32 = 4,096. So (4,096 + 512) x 2 = 9,216 bytes, not (16,384 + 512) x 2 = 33,792.
  Application a = tiny();
  a.vocab = 0;
  const System sys = resolve_system("h100-80gb");
  ServingConfig c;
  c.prompt = 64;
  c.output = 1;
  c.batch = 1;
  c.datatype = sys.datatype_index("bfloat16");
  EXPECT_DOUBLE_EQ(evaluate_inference(a, sys, c).workspace_bytes, 9216);
}

TEST(LlmFusedAttention, SearchFlagRunsEveryCandidateFused) {
  // 2-block model with 2,048-token sequences (scores dominate the activations) on 8 H100s: --fused-attention
  // changes no count of the space, and each of its top candidates runs fused attention, which keeps less than the
  // same execution unfused (fused keeps a s b x 4 bytes of statistics instead of 5 a s^2 b).
  const Application app = parse_application({{"hidden", 256},
                                             {"feedforward", 1024},
                                             {"seq_size", 2048},
                                             {"attn_heads", 8},
                                             {"attn_size", 32},
                                             {"num_blocks", 2},
                                             {"vocab", 0}},
                                            "small.json");
  const IterationModel model(app, resolve_system("h100-80gb"));
  SearchSpec spec;
  spec.num_procs = 8;
  spec.max_batch = 16;
  spec.top_n = 3;
  const SearchResult plain = run_search(model, spec);
  spec.dims.fused_attention = true;
  const SearchResult fused = run_search(model, spec);
  EXPECT_EQ(fused.enumerated, plain.enumerated);
  ASSERT_EQ(fused.top.size(), 3u);
  for (const Candidate& c : fused.top) {
    EXPECT_TRUE(c.execution.fused_attention);
    Execution unfused = c.execution;
    unfused.fused_attention = false;
    EXPECT_LT(c.stats.memory.tier1, model.evaluate(unfused).memory.tier1);
  }
  for (const Candidate& c : plain.top)
    EXPECT_FALSE(c.execution.fused_attention);
}

}  // namespace
}  // namespace chorus::llm
