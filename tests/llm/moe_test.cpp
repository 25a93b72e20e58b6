// Mixture of experts, multi-head latent attention, context parallelism, ZeRO stages, FP8 casts, per-GPU rates and
// the GPU system presets, each against a hand calculation written out in the test.
#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/block.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm/validation.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

// h 1024, 16 heads of 64, seq 512, 4 blocks, GeLU, no LM head; MoE: 8 experts of 2048, top-2.
Application toy(bool moe) {
  Application a;
  a.hidden = 1024;
  a.attn_heads = 16;
  a.kv_heads = 16;
  a.attn_size = 64;
  a.seq_size = 512;
  a.num_blocks = 4;
  a.vocab = 0;
  a.feedforward = 4096;  // = top_k x expert_feedforward: the dense model with the same active FLOPs
  if (moe) {
    a.experts = 8;
    a.top_k = 2;
    a.expert_feedforward = 2048;
  }
  return a;
}

Execution single(int64_t dp = 1) {
  Execution e;
  e.num_procs = dp;
  e.data_par = dp;
  e.data_par_net = 1;
  e.context_par_net = 1;
  e.expert_par_net = 1;
  e.batch_size = 4 * dp;
  e.microbatch_size = 1;
  return e;
}

System a100() {
  return read_system(testing::calculon("systems/a100_80g.json"));
}

BlockCost block_of(const Application& app, const Execution& e, const System& sys) {
  return IterationModel(app, sys).block(e);
}

TEST(LlmMoe, BlockAddsRouterGateAndPermutationToTheDenseEquivalent) {
  // With top_k x expert_feedforward = feedforward and balanced routing, the experts do the dense MLP's FLOPs;
  // the MoE block adds the router (2mhE forward, 2mhE + 2mhE backward), the softmax/top-k gate (5mE / 8mE)
  // and the permutation copies (2mkh each way).
  const System sys = a100();
  const BlockCost dense = block_of(toy(false), single(), sys);
  const BlockCost moe = block_of(toy(true), single(), sys);
  const double m = 512, h = 1024, E = 8, k = 2;
  EXPECT_NEAR(moe.fw.flops - dense.fw.flops, 2 * m * h * E + 5 * m * E + 2 * m * k * h, 1.0);
  EXPECT_NEAR(moe.bw.flops - dense.bw.flops, 4 * m * h * E + 8 * m * E + 2 * m * k * h, 1.0);
}

TEST(LlmMoe, LoadImbalanceScalesTheExpertWork) {
  // Expert FLOPs forward: up 2(mk)h f + GeLU 8(mk) f + down 2(mk) f h = mk f (4h + 8); 1.5x imbalance adds half.
  const System sys = a100();
  Application imbalanced = toy(true);
  imbalanced.load_imbalance = 1.5;
  const double m = 512, h = 1024, k = 2, f = 2048;
  const double expert_fw = m * k * f * (4 * h + 8);
  EXPECT_NEAR(block_of(imbalanced, single(), sys).fw.flops - block_of(toy(true), single(), sys).fw.flops,
              0.5 * expert_fw, 1.0);
  // A capacity factor pads every expert to that multiple of the mean, whatever the imbalance.
  imbalanced.capacity_factor = 1.25;
  EXPECT_NEAR(block_of(imbalanced, single(), sys).fw.flops - block_of(toy(true), single(), sys).fw.flops,
              0.25 * expert_fw, 1.0);
}

TEST(LlmMoe, ExpertParallelismSplitsTheExpertsAndPaysTwoAllToAllsEachWay) {
  const System sys = a100();
  const Application app = toy(true);
  Execution e = single(4);
  e.expert_par = 4;
  const BlockCost b = block_of(app, e, sys);
  // 8 / 4 = 2 experts of h x f + f + f x h + h weights each.
  EXPECT_DOUBLE_EQ(b.expert_weights, 2 * (1024.0 * 2048 + 2048 + 2048.0 * 1024 + 1024));
  // Each rank sends m k h x 2 bytes; an All-to-All over 4 keeps 1/4: on the InfiniBand tier (25 GB/s x 0.9,
  // 20 us latency) t = 20e-6 + 512 x 2 x 1024 x 2 x 3/4 / 22.5e9. Dispatch + combine, forward and backward.
  const double t = 20e-6 + 512.0 * 2 * 1024 * 2 * 0.75 / 22.5e9;
  const Stats st = IterationModel(app, sys).evaluate(e);
  const double microbatches = 4, blocks = 4;
  EXPECT_NEAR(st.ep_comm_link_time, microbatches * blocks * 4 * t, 1e-12);
  EXPECT_NEAR(st.ep_comm_exposed_time, st.ep_comm_link_time, 1e-12);
}

TEST(LlmMoe, PublishedParameterCounts) {
  // Mixtral 8x7B (Jiang et al. 2024, section 1): 47B parameters, 13B active per token (rounded by the paper).
  const Application mixtral = read_application(testing::preset("mixtral-8x7b.json"));
  EXPECT_NEAR(mixtral.parameter_count() / 47e9, 1.0, 0.02);
  EXPECT_NEAR(mixtral.active_parameter_count() / 13e9, 1.0, 0.03);
  // DeepSeek-V3 (technical report, abstract): 671B total, 37B activated (MLA, 1 shared + 8 of 256 routed).
  const Application dsv3 = read_application(testing::preset("deepseek-v3.json"));
  EXPECT_NEAR(dsv3.parameter_count() / 671e9, 1.0, 0.01);
  EXPECT_NEAR(dsv3.active_parameter_count() / 37e9, 1.0, 0.02);
  // LLaMA 3 70B (model card): 70.6B, which includes a separate 128256 x 8192 output matrix; chorus counts one
  // vocabulary matrix (tied, as Megatron's GPT).
  EXPECT_NEAR(read_application(testing::preset("llama3-70b.json")).parameter_count() / (70.6e9 - 128256.0 * 8192), 1.0,
              0.005);
}

TEST(LlmMla, QkvWeightsByHand) {
  // DeepSeek-V3 per block: q 7168 x 1536 + 1536 x 128 x (128 + 64); kv 7168 x (512 + 64) + 512 x 128 x 256.
  const Application dsv3 = read_application(testing::preset("deepseek-v3.json"));
  const double q = 7168.0 * 1536 + 1536.0 * 128 * 192;
  const double kv = 7168.0 * 576 + 512.0 * 128 * 256;
  EXPECT_DOUBLE_EQ(dsv3.qkv_weights_per_rank(1), q + kv);
  // With TP 8 the down-projections are replicated and the up-projections split.
  EXPECT_DOUBLE_EQ(dsv3.qkv_weights_per_rank(8), 7168.0 * 1536 + 1536.0 * 16 * 192 + 7168.0 * 576 + 512.0 * 16 * 256);
}

TEST(LlmContextParallel, HalvesEveryFlopAndPassesKeysAndValuesAroundTheRing) {
  // Every token-wise layer sees s / CP tokens and attention s / CP queries against s keys: all FLOPs halve.
  const System sys = a100();
  const Application app = toy(false);
  Execution e2 = single();
  e2.context_par = 2;
  e2.num_procs = 2;
  e2.context_par_net = 0;
  const BlockCost one = block_of(app, single(), sys);
  const BlockCost two = block_of(app, e2, sys);
  EXPECT_NEAR(two.fw.flops, one.fw.flops / 2, 1e-6 * one.fw.flops);
  EXPECT_NEAR(two.bw.flops, one.bw.flops / 2, 1e-6 * one.bw.flops);
  // Ring on NVLink (300 GB/s x 0.65, 10 us; p2p scale 1): CP - 1 = 1 step of K and V, 256 tokens x 1024 x 2 B each,
  // forward; the backward pass also passes their gradients (twice the bytes).
  const double kv = 2 * 256.0 * 1024 * 2;
  EXPECT_NEAR(two.cp.fw_link, 10e-6 + kv / 195e9, 1e-15);
  EXPECT_NEAR(two.cp.bw_link, 10e-6 + 2 * kv / 195e9, 1e-15);
  EXPECT_LE(two.cp.fw_exposed, two.cp.fw_link);
}

TEST(LlmZero, StagesShardOptimizerGradientsAndWeights) {
  const System sys = a100();
  const Application app = toy(false);
  Execution e = single(8);
  const double w = block_of(app, e, sys).weights;
  const double blocks = 4;
  auto mem = [&](Fsdp f) {
    e.fsdp = f;
    e.optimizer_sharding = f != Fsdp::kNone;
    return IterationModel(app, sys).evaluate(e).memory;
  };
  // ZeRO-1: optimizer (4 + 8 bytes per weight) / DP; fp16 weights and fp32 gradients whole.
  const MemoryUse z1 = mem(Fsdp::kZero1);
  EXPECT_DOUBLE_EQ(z1.optimizer_space, w * blocks * 12 / 8);
  EXPECT_DOUBLE_EQ(z1.weight_grad_space, w * blocks * 4);
  // ZeRO-2: gradients / DP plus one block's whole fp32 buffer being reduce-scattered.
  const MemoryUse z2 = mem(Fsdp::kZero2);
  EXPECT_DOUBLE_EQ(z2.weight_grad_space, w * blocks * 4 / 8 + w * 4);
  EXPECT_DOUBLE_EQ(z2.weight_space, w * blocks * 2);
  // ZeRO-3: weights / DP plus two gathered blocks (the one in use and the prefetched one).
  const MemoryUse z3 = mem(Fsdp::kZero3);
  EXPECT_DOUBLE_EQ(z3.weight_space, w * blocks * 2 / 8 + 2 * w * 2);
  const Stats st = IterationModel(app, sys).evaluate(e);
  // Two all-gathers of a block's fp16 weights per block per microbatch (ring [1, 0] on the IB tier of this file).
  const double ag = 20e-6 + w * 2 / 22.5e9;
  EXPECT_NEAR(st.fsdp_gather_link_time, 4 * 4 * 2 * ag, 1e-12);
}

TEST(LlmFp8, GemmInputsPayAScaleAndCastPass) {
  // 3 FLOPs per element of each linear's input and weights forward, of its output gradient backward.
  const System sys = resolve_system("h100-80gb");
  const Application app = toy(false);
  Execution e = single();
  e.datatype = sys.datatype_index("float16");
  const BlockCost fp16 = block_of(app, e, sys);
  e.datatype = sys.datatype_index("float8");
  const BlockCost fp8 = block_of(app, e, sys);
  const double m = 512, h = 1024, f = 4096;
  const double inputs = (m * h + 3 * h * h + 3 * h) + (m * h + h * h + h) + (m * h + h * f + f) + (m * f + f * h + h);
  const double grads = m * 3 * h + m * h + m * f + m * h;
  EXPECT_NEAR(fp8.fw.flops - fp16.fw.flops, 3 * inputs, 1.0);
  EXPECT_NEAR(fp8.agrad.flops - fp16.agrad.flops, 3 * grads, 1.0);
}

TEST(LlmRates, TokensPerGpuAndModelFlopsFollowMegatronsFormula) {
  // GPT-3 175B as run by Korthikanti et al.: model FLOPs per token 72 L h^2 (1 + s/6h + V/12hL) / s... per
  // token: 72 L h^2 + 12 s L h + 6 V h (Narayanan et al. 2021, eq. 3, divided by B s).
  const auto run = korthikanti2022_runs()[1];
  const Application app = paper_application(run);
  const double L = 96, h = 12288, s = 2048, V = 51200;
  EXPECT_NEAR(model_flops_per_token(app, true) / (72 * L * h * h + 12 * s * L * h + 6 * V * h), 1.0, 0.005);
  const System sys = a100();
  const Execution e = paper_execution(run, Technique::kSeqSel, 0);
  const Stats st = IterationModel(app, sys).evaluate(e);
  EXPECT_DOUBLE_EQ(st.tokens_per_s_per_gpu,
                   static_cast<double>(e.batch_size) / st.total_time * s / static_cast<double>(e.num_procs));
  EXPECT_DOUBLE_EQ(st.model_tflops_per_gpu, st.tokens_per_s_per_gpu * model_flops_per_token(app, true) / 1e12);
}

TEST(LlmPresets, DatasheetValues) {
  // H100 SXM datasheet: 989.5 dense BF16 TFLOPS (1,979 sparse), 1,979 FP8, 80 GB at 3.35 TB/s, NVLink 900 GB/s
  // both ways, DGX H100: 400 Gb/s per GPU.
  const System h100 = resolve_system("h100-80gb");
  const int bf16 = h100.datatype_index("bfloat16");
  ASSERT_GE(bf16, 0);
  EXPECT_DOUBLE_EQ(h100.matrix[static_cast<size_t>(bf16)].flops_per_second, 989.5e12);
  EXPECT_DOUBLE_EQ(h100.matrix[static_cast<size_t>(h100.datatype_index("float8"))].flops_per_second, 1979e12);
  EXPECT_DOUBLE_EQ(h100.mem1.capacity_bytes, 80.0 * 1073741824);
  EXPECT_DOUBLE_EQ(h100.mem1.bytes_per_second, 3350e9);
  EXPECT_DOUBLE_EQ(h100.networks[0].bytes_per_second, 450e9);
  EXPECT_EQ(h100.networks[0].size, 8);
  EXPECT_DOUBLE_EQ(h100.networks[1].bytes_per_second, 50e9);
  // A100 40GB has no FP8; MI300X's Infinity Fabric reaches 7 peers at 64 GB/s each way.
  EXPECT_LT(resolve_system("a100-40gb").datatype_index("float8"), 0);
  EXPECT_DOUBLE_EQ(resolve_system("mi300x").networks[0].bytes_per_second, 7 * 64e9);
  // Eight GPUs (a100-40gb, a100-80gb, h100-80gb, h200, b200, gb200, mi300x, mi355x), two of them also as
  // NAME-datasheet, and the seven machines whose names differ from their GPU's (dgx-a100, dgx-a100-320gb, dgx-h100,
  // hgx-h200, dgx-b200, gb200-nvl72, gcp-a3-mega).
  EXPECT_EQ(system_preset_names().size(), 17u);
  for (const auto& name : system_preset_names())
    EXPECT_NO_THROW(resolve_system(name)) << name;
  // A file path still works (Calculon's system JSON).
  EXPECT_DOUBLE_EQ(resolve_system(testing::calculon("systems/a100_80g.json")).mem1.bytes_per_second, 2048e9);
  try {
    resolve_system("h100");
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    EXPECT_TRUE(err.names_argument());
    EXPECT_EQ(err.field(), "system");
    EXPECT_NE(std::string(err.what()).find("h100-80gb"), std::string::npos) << err.what();
  }
}

// ---- bad input ------------------------------------------------------------------------------------------------

nlohmann::json mixtral_exec() {
  return {{"num_procs", 64},
          {"tensor_par", 2},
          {"pipeline_par", 4},
          {"data_par", 8},
          {"tensor_par_net", 0},
          {"pipeline_par_net", 1},
          {"data_par_net", 1},
          {"batch_size", 64},
          {"microbatch_size", 1},
          {"datatype", "bfloat16"},
          {"fused_activation", true},
          {"attention_type", "multihead"},
          {"activation_recompute", "attn_only"},
          {"pipeline_interleaving", 1},
          {"optimizer_sharding", false},
          {"tensor_par_comm_type", "rs_ag"},
          {"tensor_par_overlap", "none"},
          {"seq_par_ag_redo", false},
          {"data_par_overlap", false},
          {"weight_offload", false},
          {"activations_offload", false},
          {"optimizer_offload", false},
          {"training", true},
          {"expert_par", 8}};
}

void expect_field(const nlohmann::json& exec, const std::string& field) {
  const Application app = read_application(testing::preset("mixtral-8x7b.json"));
  const System sys = resolve_system("h100-80gb");
  try {
    parse_execution(exec, "e.json", app, sys);
    ADD_FAILURE() << "no error for " << field;
  } catch (const Error& err) {
    EXPECT_EQ(err.field(), field) << err.what();
  }
}

TEST(LlmMoeBadInput, EachInconsistencyNamesItsKey) {
  EXPECT_NO_THROW(parse_execution(mixtral_exec(), "e.json", read_application(testing::preset("mixtral-8x7b.json")),
                                  resolve_system("h100-80gb")));
  auto j = mixtral_exec();
  j["expert_par"] = 3;  // 8 experts
  expect_field(j, "expert_par");
  j = mixtral_exec();
  j["expert_par"] = 16;  // divides neither 8 experts nor data_par 8
  expect_field(j, "expert_par");
  j = mixtral_exec();
  j["context_par"] = 3;  // 4096 tokens; num_procs also off
  j["num_procs"] = 192;
  expect_field(j, "context_par");
  j = mixtral_exec();
  j["context_par"] = 2;  // num_procs stays 64: 2 x 4 x 8 x 2 = 128
  expect_field(j, "num_procs");
  j = mixtral_exec();
  j["fsdp"] = "zero4";
  expect_field(j, "fsdp");
  j = mixtral_exec();
  j["expert_paralel"] = 2;
  expect_field(j, "expert_paralel");

  auto model = nlohmann::json::parse(testing::slurp(testing::preset("mixtral-8x7b.json")));
  model["top_k"] = 9;
  EXPECT_THROW(parse_application(model, "m.json"), Error);
  model = nlohmann::json::parse(testing::slurp(testing::preset("llama3-70b.json")));
  model["top_k"] = 2;  // no experts
  try {
    parse_application(model, "m.json");
    ADD_FAILURE();
  } catch (const Error& err) {
    EXPECT_EQ(err.field(), "top_k");
  }
}

TEST(LlmMoeBadInput, CliPrintsOneLineAndExits2) {
  const std::string dir = ::testing::TempDir();
  auto j = mixtral_exec();
  j["expert_par"] = 3;
  const std::string bad = dir + "bad_ep_exec.json";
  std::ofstream(bad) << j.dump();
  auto r = testing::run_chorus(
      "llm run --model " + testing::preset("mixtral-8x7b.json") + " --system h100-80gb --exec " + bad, "bad_ep");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(bad + ": expert_par:"), std::string::npos) << r.err;
  r = testing::run_chorus(
      "llm run --model " + testing::preset("mixtral-8x7b.json") + " --system h100-8gb --exec " + bad, "bad_system");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--system"), std::string::npos) << r.err;
}

TEST(LlmMoeCli, DeepSeekV3RunsOnTheH100PresetWithPerGpuRates) {
  const auto r =
      testing::run_chorus("llm run --model " + testing::preset("deepseek-v3.json") + " --system h100-80gb --exec " +
                              testing::preset("deepseek-v3_exec.json") + " --json",
                          "dsv3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double total = j.at("total_time").get<double>();
  const double tokens = j.at("tokens_per_s_per_gpu").get<double>();
  // 15,360 sequences of 4,096 tokens over 2,048 GPUs.
  EXPECT_NEAR(tokens, 15360.0 * 4096 / total / 2048, 1e-6 * tokens);
  EXPECT_GT(j.at("ep_comm_link_time").get<double>(), 0);
  // Model TFLOP/s per GPU cannot exceed the FP8 peak (1,979).
  EXPECT_LT(j.at("model_tflops_per_gpu").get<double>(), 1979);
}

}  // namespace
}  // namespace chorus::llm

namespace chorus::llm {
namespace {

TEST(LlmMoeSearch, ExpertParallelismJoinsTheSpaceOfMoeModelsOnly) {
  const System sys = resolve_system("h100-80gb");
  Application moe = read_application(testing::preset("mixtral-8x7b.json"));
  Application dense = moe;
  dense.experts = 0;
  // n = 2 GPUs: (TP, PP, DP) = (1, 1, 2), (1, 2, 1), (2, 1, 1); only DP 2 admits EP 2, so the MoE space is the
  // dense space plus one more copy of the TP 1 / PP 1 / DP 2 configurations.
  const int64_t d2 = search_space_size(dense, sys, 2, 64);
  const int64_t m2 = search_space_size(moe, sys, 2, 64);
  EXPECT_GT(m2, d2);
  EXPECT_LT(m2, 2 * d2);
  // The best of a 64-GPU search is a valid execution: EP divides the experts and DP, and re-evaluating it gives
  // the same rate.
  const IterationModel model(moe, sys);
  SearchSpec spec;
  spec.num_procs = 64;
  spec.max_batch = 256;
  spec.datatype = sys.datatype_index("bfloat16");
  spec.top_n = 5;
  spec.threads = 1;
  const SearchResult r = run_search(model, spec);
  ASSERT_FALSE(r.top.empty());
  bool some_ep = false;
  for (const Candidate& c : r.top) {
    EXPECT_EQ(moe.experts % c.execution.expert_par, 0);
    EXPECT_EQ(c.execution.data_par % c.execution.expert_par, 0);
    EXPECT_DOUBLE_EQ(model.evaluate(c.execution).sample_rate, c.sample_rate);
    some_ep = some_ep || c.execution.expert_par > 1;
  }
  EXPECT_TRUE(some_ep);  // splitting 8 experts beats replicating them at this size
}

}  // namespace
}  // namespace chorus::llm

namespace chorus::llm {
namespace {

TEST(LlmPresets, SystemFileRoundTripsAndTheCliPrintsIt) {
  // What `llm calibrate --out` and `llm systems --show` write reads back to the same system: the same iteration time.
  const Application app = read_application(testing::preset("llama3-70b.json"));
  for (const auto& name : system_preset_names()) {
    const System sys = resolve_system(name);
    const System back = parse_system(system_to_json(sys), "round trip");
    const Execution e = parse_execution(nlohmann::json::parse(testing::slurp(testing::preset("llama3-70b_exec.json"))),
                                        "e.json", app, sys);
    EXPECT_DOUBLE_EQ(IterationModel(app, back).evaluate(e).total_time, IterationModel(app, sys).evaluate(e).total_time)
        << name;
  }
  const auto r = testing::run_chorus("llm systems --show mi300x", "systems_show");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_DOUBLE_EQ(parse_system(nlohmann::json::parse(r.out), "out").mem1.bytes_per_second, 5300e9);
}

}  // namespace
}  // namespace chorus::llm
