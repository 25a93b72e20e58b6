// The MoE dispatch/combine All-to-All (payload width, the share inside a scale-up domain, overlap with another
// microbatch) and the measured MoE runs of validation/llm/mbridge_h100_moe_runs.csv, against hand calculations.
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/llm/calibration.hpp"
#include "chorus/llm/expert_dispatch.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/system_presets.hpp"

namespace chorus::llm {
namespace {

std::string validation(const std::string& rel) {
  return std::string(CHORUS_SOURCE_DIR) + "/validation/llm/" + rel;
}

// Mixtral 8x7B's MoE dimensions: hidden 4096, 8 experts, top-2, sequence 4096.
Application mixtral_like() {
  Application a;
  a.hidden = 4096;
  a.attn_heads = 32;
  a.kv_heads = 8;
  a.attn_size = 128;
  a.seq_size = 4096;
  a.num_blocks = 32;
  a.feedforward = 14336;
  a.vocab = 32000;
  a.mlp = MlpKind::kSwiglu;
  a.experts = 8;
  a.top_k = 2;
  a.expert_feedforward = 14336;
  return a;
}

TEST(LlmExpertDispatch, PayloadIsSixteenBitEvenForFp8GemmsAndPaddedByTheCapacityFactor) {
  Application app = mixtral_like();
  Execution e;
  e.tensor_par = 2;
  e.microbatch_size = 1;
  // 4,096 tokens / TP 2 = 2,048 per rank, each to 2 experts, 4,096 elements of 2 bytes: 33,554,432 bytes, for BF16
  // (2 bytes) and for FP8 GEMMs (1 byte) alike; FP32 activations (4 bytes) double it.
  EXPECT_DOUBLE_EQ(dispatch_bytes(app, e, 2), 33554432.0);
  EXPECT_DOUBLE_EQ(dispatch_bytes(app, e, 1), 33554432.0);
  EXPECT_DOUBLE_EQ(dispatch_bytes(app, e, 4), 67108864.0);
  app.capacity_factor = 1.25;  // GShard padding: 1.25 x 33,554,432
  EXPECT_DOUBLE_EQ(dispatch_bytes(app, e, 2), 41943040.0);
}

TEST(LlmExpertDispatch, RanksOfAnEpGroupInsideOneEightGpuDomain) {
  Execution e;
  e.expert_par = 16;
  e.expert_par_net = 1;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 8);  // TP 1: 16 consecutive DP ranks, 8 per node
  e.tensor_par = 2;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 4);  // TP 2 x 4 DP ranks fill a node
  e.tensor_par = 16;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 1);  // TP alone spans more than a node
  e.tensor_par = 1;
  e.expert_par = 4;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 1);  // would fit one node but the execution puts it on the NICs
  e.expert_par_net = 0;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 4);  // on NVLink: all local
  e.expert_par = 1;
  EXPECT_EQ(ep_ranks_per_domain(e, 8), 1);
}

TEST(LlmExpertDispatch, PeersInTheDomainGoOverNvlinkTheOthersOverTheNics) {
  NetworkTier nic;
  nic.bytes_per_second = 50e9;
  nic.latency_s = 20e-6;
  NetworkTier nvlink;
  nvlink.bytes_per_second = 450e9;
  nvlink.latency_s = 10e-6;
  const double s = 134217728;  // 128 MiB per rank
  // EP 16, 8 per node: 8 of the 16 shares leave the node at 50 GB/s (1.342 ms); 7 stay, at 450 GB/s (0.130 ms),
  // at the same time, so the NICs set the pace: 20 us + 134,217,728 x 8/16 / 50e9.
  EXPECT_NEAR(expert_all_to_all_time(nic, &nvlink, s, 16, 8), 20e-6 + s * 8 / 16 / 50e9, 1e-15);
  // One rank per node: 15 of 16 shares over the NICs, as a flat All-to-All.
  EXPECT_NEAR(expert_all_to_all_time(nic, &nvlink, s, 16, 1), 20e-6 + s * 15 / 16 / 50e9, 1e-15);
  EXPECT_NEAR(expert_all_to_all_time(nic, nullptr, s, 16, 8), 20e-6 + s * 15 / 16 / 50e9, 1e-15);
  // A slow scale-up tier sets the pace: 10 GB/s for 7/16 (5.872 ms) against the NICs' 1.342 ms.
  nvlink.bytes_per_second = 10e9;
  EXPECT_NEAR(expert_all_to_all_time(nic, &nvlink, s, 16, 8), 20e-6 + s * 7 / 16 / 10e9, 1e-15);
  EXPECT_EQ(expert_all_to_all_time(nic, &nvlink, s, 1, 1), 0.0);
}

Execution mixtral_exec(const System& sys, bool overlap) {
  Execution e;
  e.datatype = sys.datatype_index("bfloat16");
  e.num_procs = 16;
  e.data_par = 16;
  e.data_par_net = 1;
  e.expert_par = 8;
  e.expert_par_net = 1;
  e.context_par_net = 1;
  e.batch_size = 64;
  e.microbatch_size = 1;
  e.ep_overlap = overlap;
  return e;
}

TEST(LlmExpertDispatch, OverlapHidesOneMicrobatchsAllToAllBehindTheOthersCompute) {
  const System sys = resolve_system("h100-80gb");
  const Application app = mixtral_like();
  const BlockCost plain = IterationModel(app, sys).block(mixtral_exec(sys, false));
  const BlockCost hidden = IterationModel(app, sys).block(mixtral_exec(sys, true));
  // EP 8 would fit one 8-GPU node but the execution puts it on the NICs, so all 7 peers are remote: dispatch +
  // combine per pass a = 2 x (20 us + S x 7/8 / (50e9 x e)), S = 4,096 tokens x 2 experts x 4,096 x 2 bytes, e the
  // preset's NIC efficiency (0.9 x the NeMo fit's 1.0396 = 0.936).
  const double s = 4096.0 * 2 * 4096 * 2;
  const double e = 0.9 * 1.0395784;
  const double a = 2 * (20e-6 + s * 7 / 8 / (50e9 * e));
  EXPECT_NEAR(plain.ep.fw_link / a, 1.0, 1e-7);
  EXPECT_NEAR((plain.ep.fw_exposed + plain.ep.bw_exposed) / (2 * a), 1.0, 1e-7);
  // Overlapped: the block's forward + backward compute c covers 2a; exposed max(0, 2a - c) + min(2a, c) x 0.02 (the
  // NIC tier's processor usage), split between the passes; the links are as busy as before.
  const double c = hidden.fw.time + hidden.bw.time;
  const double exposed = std::max(0.0, 2 * a - c) + std::min(2 * a, c) * 0.02;
  EXPECT_NEAR((hidden.ep.fw_exposed + hidden.ep.bw_exposed) / exposed, 1.0, 1e-7);
  EXPECT_NEAR(hidden.ep.fw_link / a, 1.0, 1e-7);
  EXPECT_LT(hidden.ep.fw_exposed, plain.ep.fw_exposed);
}

TEST(LlmExpertDispatch, OverlapWithoutExpertParallelismNamesTheKey) {
  const System sys = resolve_system("h100-80gb");
  const Application app = read_application(validation("models/qwen3-30B-A3B.json"));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(validation("execs/mbridge-qwen3-30B-A3B_16.json")));
  j["ep_overlap"] = true;
  EXPECT_TRUE(parse_execution(j, "exec.json", app, sys).ep_overlap);
  j["expert_par"] = 1;
  try {
    parse_execution(j, "exec.json", app, sys);
    ADD_FAILURE() << "ep_overlap with expert_par 1 accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.source(), "exec.json");
    EXPECT_EQ(err.field(), "ep_overlap");
  }
}

TEST(LlmMoeValidation, MegatronBridgeH100RunsAreReadAsPublished) {
  const System sys = resolve_system("h100-80gb");
  const auto runs = read_measured_runs(validation("mbridge_h100_moe_runs.csv"), sys);
  ASSERT_EQ(runs.size(), 3u);
  // Step time = GBS x sequence / (tokens/s/GPU x GPUs): Qwen3 1,024 x 4,096 / (8,960 x 16) = 29.2571 s, the PP 2 row
  // 1,024 x 4,096 / (9,058 x 16) = 28.9413 s, DeepSeek-V3 8,192 x 4,096 / (1,297 x 1,024) = 25.2641 s.
  EXPECT_NEAR(runs[0].measured_s, 1024.0 * 4096 / (8960.0 * 16), 1e-9);
  EXPECT_NEAR(runs[1].measured_s, 1024.0 * 4096 / (9058.0 * 16), 1e-9);
  EXPECT_NEAR(runs[2].measured_s, 8192.0 * 4096 / (1297.0 * 1024), 1e-9);
  EXPECT_EQ(runs[0].exe.expert_par, 16);
  EXPECT_EQ(runs[2].exe.pipeline_interleaving, 4);
  EXPECT_TRUE(runs[2].exe.ep_overlap);
}

TEST(LlmMoeValidation, Qwen3FlopsPerTokenMatchThePublishedTflopsColumn) {
  const System sys = resolve_system("h100-80gb");
  const Application app = read_measured_runs(validation("mbridge_h100_moe_runs.csv"), sys)[0].app;
  // Qwen3-30B-A3B (config.json), per block: QKV 2,048 x (32 + 2 x 4) x 128 + 5,120 biases = 10,490,880; output
  // projection 4,096 x 2,048 + 2,048 = 8,390,656; 4 x 2,048 norm weights = 8,192; router 2,048 x 128 = 262,144; 8
  // active experts of 2,048 x 1,536 + 1,536 + 768 x 2,048 + 2,048 = 4,722,176 each = 37,777,408. Block 56,929,280,
  // x 48 = 2,732,605,440, plus the LM head 151,936 x 2,048 = 311,164,928: 3,043,770,368 matmul weights. Attention
  // 4 x 4,096 x 32 x 128 x 48 = 3,221,225,472 per token. Training: 3 x (2 x 3,043,770,368 + 3,221,225,472).
  const double attention = 4.0 * 4096 * 32 * 128 * 48;
  const double flops = 3 * (2 * 3043770368.0 + attention);
  EXPECT_DOUBLE_EQ(flops, 27926298624.0);
  EXPECT_NEAR(model_flops_per_token(app, true), flops, 1.0);
  // The table's Model TFLOP/s over its tokens/s: 206e12 / 8,960 = 22.99 GFLOP per token (26.04.01) and 208e12 /
  // 9,058 = 22.96 (26.02.01). Megatron counts causal attention, half of the scores: 27.926 - 3 x 3.221 / 2 = 23.094
  // GFLOP, within 0.6 % of both (the TFLOP/s column is rounded to whole TFLOP/s, and Megatron's count leaves out the
  // router, 0.33 %).
  const double causal = flops - 3 * attention / 2;
  EXPECT_NEAR(206e12 / 8960 / causal, 1.0, 0.006);
  EXPECT_NEAR(208e12 / 9058 / causal, 1.0, 0.006);
}

TEST(LlmMoeValidation, PlannerErrorsOnTheMoeRunsStayWithinWhatDocsLlmMdReports) {
  // docs/llm.md, "Measured MoE runs": with the shipped h100-80gb the planner is fast on two runs (it lacks the
  // overheads of fine-grained experts, and DeepSeek-V3's recompute and MTP layer), by 37.3 % (Qwen3 PP 2 x EP 8) and
  // 19.8 % (DeepSeek-V3), and 4.4 % slow on Qwen3 EP 16; 17.6 % signed mean. The bounds are those numbers plus 1 %.
  const System sys = resolve_system("h100-80gb");
  const auto runs = read_measured_runs(validation("mbridge_h100_moe_runs.csv"), sys);
  double mean = 0;
  for (const MeasuredRun& run : runs) {
    const double error = 1 - IterationModel(run.app, sys).evaluate(run.exe).total_time / run.measured_s;
    EXPECT_GT(error, -0.054) << run.name;
    EXPECT_LT(error, 0.383) << run.name;
    mean += error / static_cast<double>(runs.size());
  }
  EXPECT_LT(mean, 0.186);
}

TEST(LlmMoeValidation, DeepSeekV3ReportOnH800) {
  const System sys = read_system(validation("h800-deepseek-v3.json"));
  const auto runs = read_measured_runs(validation("deepseek_v3_report_runs.csv"), sys);
  ASSERT_EQ(runs.size(), 1u);
  // 180K H800 GPU hours per trillion tokens: 1e12 / (180,000 x 3,600) = 1,543.21 tokens/s/GPU; a batch of 15,360
  // sequences of 4,096 tokens on 2,048 GPUs is then 15,360 x 4,096 / (1,543.21 x 2,048) = 19.907 s.
  EXPECT_NEAR(1e12 / (180000.0 * 3600), 1543.21, 0.005);
  EXPECT_NEAR(runs[0].measured_s, 15360.0 * 4096 / (1543.21 * 2048), 1e-9);
  // The tiers are the report's: NVLink 160 GB/s, InfiniBand 50 GB/s.
  EXPECT_DOUBLE_EQ(sys.networks[0].bytes_per_second * sys.networks[0].efficiency, 160e9);
  EXPECT_DOUBLE_EQ(sys.networks[1].bytes_per_second * sys.networks[1].efficiency, 50e9);
  // docs/llm.md: the planner is 4.3 % fast (19.04 s) with the H800 file built on h100-80gb; bound 5.3 %.
  const double error = 1 - IterationModel(runs[0].app, sys).evaluate(runs[0].exe).total_time / runs[0].measured_s;
  EXPECT_GT(error, 0.0);
  EXPECT_LT(error, 0.053);
}

}  // namespace
}  // namespace chorus::llm
