// Per-layer accounting against closed forms: Megatron's FLOP count (Narayanan et al. 2021), Korthikanti et al.
// 2022's activation-memory formulas (Table 2), 18 bytes per parameter, and the recompute-accumulation fix.
#include <gtest/gtest.h>

#include "chorus/llm/block.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/validation.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

struct Fixture {
  Application app;
  System sys;
  Hardware hw;
  explicit Fixture(const Application& a)
      : app(a), sys(read_system(testing::calculon("systems/a100_80g.json"))), hw(sys, 0) {}
  BlockCost block(const Execution& e) const { return block_cost(app, e, hw, sys.networks[0]); }
};

Execution exec(int64_t tp, int64_t mbs, Recompute r, TpCommType comm, bool redo = false) {
  Execution e;
  e.tensor_par = tp;
  e.num_procs = tp;
  e.microbatch_size = mbs;
  e.batch_size = mbs;
  e.recompute = r;
  e.tp_comm = comm;
  e.seq_par_ag_redo = redo;
  return e;
}

Application gpt3() {
  return paper_application(korthikanti2022_runs()[1]);
}

// Vector-unit FLOPs of the block as listed in block.cpp's layer table (TP = 1, no sequence parallelism):
// two LNs (9/elem), softmax (5), attention dropout (1), two dropouts and two residuals (1 each), GeLU (8).
double vector_fw_flops(const Application& a, double mbs) {
  const double m = mbs * a.seq_size, e = m * a.hidden, scores = mbs * a.attn_heads * a.seq_size * a.seq_size;
  return 2 * 9 * e + 6 * scores + 4 * e + 8 * m * a.feedforward;
}

TEST(LlmBlock, MatrixFlopsMatchMegatronsModelFlops) {
  // Narayanan et al. 2021: a block costs 72 B s h^2 (1 + s / 6h) FLOPs forward + backward with f = 4h.
  const Application a = gpt3();
  const Fixture f(a);
  const BlockCost b = f.block(exec(1, 2, Recompute::kNone, TpCommType::kAr));
  const double m = 2.0 * a.seq_size, h = static_cast<double>(a.hidden), s = static_cast<double>(a.seq_size);
  const double vector_fw = vector_fw_flops(a, 2);
  const double matrix_fw = b.fw.flops - vector_fw;
  EXPECT_NEAR(matrix_fw / (24 * m * h * h * (1 + s / (6 * h))), 1.0, 1e-3);  // biases add < 0.1 %
  // Backward: 2x the forward matmuls; LN 14 + 7, softmax 8, dropouts 1, residuals 2, GeLU 13 per element.
  const double e = m * h, scores = 2.0 * a.attn_heads * s * s;
  const double vector_bw = 2 * 21 * e + 9 * scores + 2 * e + 4 * e + 13 * m * a.feedforward;
  EXPECT_NEAR((b.bw.flops - vector_bw) / (48 * m * h * h * (1 + s / (6 * h))), 1.0, 1e-3);
}

TEST(LlmBlock, TensorParallelismDividesMatrixWork) {
  const Application a = gpt3();
  const Fixture f(a);
  const BlockCost one = f.block(exec(1, 1, Recompute::kNone, TpCommType::kAr));
  const BlockCost eight = f.block(exec(8, 1, Recompute::kNone, TpCommType::kAr));
  // Without SP, LN/dropout/residual are replicated; the rest splits 8 ways. Two all-reduces per pass add
  // e (p-1)/p reduction FLOPs each.
  const double e = 2048.0 * a.hidden;
  const double replicated = 2 * 9 * e + 4 * e;
  const double expected = (one.fw.flops - replicated) / 8 + replicated + 2 * e * 7 / 8;
  EXPECT_NEAR(eight.fw.flops / expected, 1.0, 1e-3);
}

// Korthikanti et al. Table 2 / section 4: activation bytes per layer, s = 2048, b = microbatch, t = TP.
double sbh(const Application& a, double mbs) {
  return a.seq_size * mbs * a.hidden;
}
double as2b(const Application& a, double mbs) {
  return a.attn_heads * a.seq_size * a.seq_size * mbs;
}

TEST(LlmBlock, StoredActivationsFollowKorthikantiTable2) {
  const Application a = gpt3();
  const Fixture f(a);
  const double t = 8, mbs = 1;
  const double none = sbh(a, mbs) * (10 + 24 / t) + 5 * as2b(a, mbs) / t;
  EXPECT_NEAR(f.block(exec(8, 1, Recompute::kNone, TpCommType::kAr)).act_stored_bytes / none, 1.0, 1e-9);
  const double sel = sbh(a, mbs) * (10 + 24 / t);
  EXPECT_NEAR(f.block(exec(8, 1, Recompute::kAttnOnly, TpCommType::kAr)).act_stored_bytes / sel, 1.0, 1e-9);
  const double seq = sbh(a, mbs) * 34 / t + 5 * as2b(a, mbs) / t;
  EXPECT_NEAR(f.block(exec(8, 1, Recompute::kNone, TpCommType::kRsAg, true)).act_stored_bytes / seq, 1.0, 1e-9);
  const double seq_sel = sbh(a, mbs) * 34 / t;
  EXPECT_NEAR(f.block(exec(8, 1, Recompute::kAttnOnly, TpCommType::kRsAg, true)).act_stored_bytes / seq_sel, 1.0, 1e-9);
  const double full = 2 * sbh(a, mbs);
  EXPECT_NEAR(f.block(exec(8, 1, Recompute::kFull, TpCommType::kAr)).act_stored_bytes / full, 1.0, 1e-9);
}

TEST(LlmBlock, SequenceParallelWithoutAgRedoKeepsTheGatheredInputs) {
  const Application a = gpt3();
  const Fixture f(a);
  // The QKV and MLP-up inputs (2 sbh each) stay whole instead of 2 sbh / t.
  const double redo = f.block(exec(8, 1, Recompute::kAttnOnly, TpCommType::kRsAg, true)).act_stored_bytes;
  const double keep = f.block(exec(8, 1, Recompute::kAttnOnly, TpCommType::kRsAg, false)).act_stored_bytes;
  EXPECT_NEAR(keep - redo, 2 * 2 * sbh(a, 1) * (1 - 1.0 / 8), 1.0);
}

TEST(LlmBlock, RecomputeRunsEachLayerOnceCalculonsBugAccumulates) {
  const Application a = read_application(testing::calculon("models/megatron-1T.json"));
  const Fixture f(a);
  const BlockCost full = f.block(exec(8, 1, Recompute::kFull, TpCommType::kAr));
  EXPECT_DOUBLE_EQ(full.re.flops, full.fw.flops);
  EXPECT_DOUBLE_EQ(full.re.time, full.fw.time);
  // The bug adds the running block total at every layer: many times the forward pass (Calculon: 7.6x).
  EXPECT_GT(full.re_calculon.flops, 4 * full.fw.flops);
  // Attention-only recompute re-runs QK^T, softmax, dropout and AV: 4 b a s^2 d / t matmul FLOPs + 6 per score.
  const BlockCost sel = f.block(exec(8, 1, Recompute::kAttnOnly, TpCommType::kAr));
  const double scores = as2b(a, 1) / 8;
  EXPECT_NEAR(sel.re.flops / (4 * scores * a.attn_size + 6 * scores), 1.0, 1e-12);
}

TEST(LlmBlock, MultiQueryAttentionShrinksKvAndStoredActivations) {
  const Application a = gpt3();
  const Fixture f(a);
  Execution mha = exec(8, 1, Recompute::kNone, TpCommType::kAr);
  Execution mqa = mha;
  mqa.multiquery = true;
  // QKV output per rank: (12 + 2 x 12) x 128 for MHA, (12 + 2 x 1) x 128 with one replicated K/V head.
  const double m = 2048, h = 12288, d = 128;
  const double weights_diff = h * (24 - 2) * d + (24 - 2) * d;
  EXPECT_NEAR(f.block(mha).weights - f.block(mqa).weights, weights_diff, 1e-6);
  // Stored K and V drop from 2 x 12 heads to 2 x 1 head per rank (2 bytes each).
  EXPECT_NEAR(f.block(mha).act_stored_bytes - f.block(mqa).act_stored_bytes, 2 * m * (24 - 2) * d, 1e-3);
}

TEST(LlmBlock, GroupedQueryAttentionAndSwigluWeights) {
  Application a = read_application(testing::preset("llama2-70b.json"));
  const Fixture f(a);
  const BlockCost b = f.block(exec(8, 1, Recompute::kNone, TpCommType::kAr));
  // Per rank: QKV 8192 x (8 + 2) x 128 (+bias), O 1024 x 8192 (+bias), SwiGLU 8192 x 7168 x 2 + 3584.. (see
  // block.cpp) and two LNs of 2 x 8192.
  const double h = 8192, ff = 28672.0 / 8, qkv = (8 + 2) * 128.0;
  const double expected = h * qkv + qkv + 1024 * h + h + h * 2 * ff + 2 * ff + ff * h + h + 4 * h;
  EXPECT_NEAR(b.weights, expected, 1e-6);
}

}  // namespace
}  // namespace chorus::llm
