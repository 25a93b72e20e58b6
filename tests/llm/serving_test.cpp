// `chorus llm infer` and `chorus llm calibrate` against hand calculations and the published Megatron runs.
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/calibration.hpp"
#include "chorus/llm/inference.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/system_presets.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

// One GPU, roofline, every efficiency 1: 300 TFLOP/s, 2 TB/s HBM, 80 GiB.
System ideal_gpu() {
  const nlohmann::json one = nlohmann::json::array({nlohmann::json::array({0, 1.0})});
  nlohmann::json j = {
      {"matrix", {{"float16", {{"tflops", 300}, {"gflops_efficiency", one}}}}},
      {"vector", {{"float16", {{"tflops", 300}, {"gflops_efficiency", one}}}}},
      {"mem1", {{"GiB", 80}, {"GBps", 2000}, {"MB_efficiency", one}}},
      {"mem2", {{"GiB", 0}, {"GBps", 1}, {"MB_efficiency", one}}},
      {"processing_mode", "roofline"},
      {"networks",
       {{{"bandwidth", 100},
         {"efficiency", 1},
         {"size", 8},
         {"latency", 0},
         {"ops",
          {{"p2p", {1, nullptr}}, {"reduce_scatter", {1, -1}}, {"all_gather", {1, -1}}, {"all_reduce", {2, -1}}}},
         {"must_be_filled", false},
         {"processor_usage", 0}}}}};
  return parse_system(j, "ideal");
}

Application small(bool moe) {
  Application a;
  a.hidden = 1024;
  a.attn_heads = 16;
  a.kv_heads = 16;
  a.attn_size = 64;
  a.seq_size = 2048;
  a.num_blocks = 4;
  a.feedforward = 4096;
  a.vocab = 0;
  if (moe) {
    a.experts = 8;
    a.top_k = 2;
    a.expert_feedforward = 1024;
  }
  return a;
}

ServingConfig one_gpu(int64_t batch) {
  ServingConfig c;
  c.prompt = 1000;
  c.output = 200;
  c.batch = batch;
  c.pp_net = 0;
  return c;
}

TEST(LlmInfer, SmallDenseDecodeIsWeightsPlusKvOverBandwidth) {
  // One sequence at the mean context 1000 + 200/2 = 1100. Per block: QKV 1024 x 3 x 1024, output 1024^2, MLP
  // 1024 x 4096 + 4096 + 4096 x 1024 + 1024 = 12,588,032 weights x 2 B, and the KV cache 1100 x 2 x 16 x 64 x 2 B.
  // Memory-bound (2 FLOPs per weight plus 4 x 1100 x 1024 for attention is ~0.1 us against ~15 us of reading),
  // so TPOT = 4 blocks x bytes / 2 TB/s.
  const InferenceResult r = evaluate_inference(small(false), ideal_gpu(), one_gpu(1));
  const double weights = 3.0 * 1024 * 1024 + 1024.0 * 1024 + (1024.0 * 4096 + 4096 + 4096.0 * 1024 + 1024);
  const double kv = 1100.0 * 2 * 16 * 64 * 2;
  EXPECT_TRUE(r.decode_memory_bound);
  EXPECT_NEAR(r.tpot_s, 4 * (weights * 2 + kv) / 2e12, 1e-12);
  EXPECT_DOUBLE_EQ(r.kv_cache_bytes, 1200.0 * 4 * 2 * 16 * 64 * 2);  // full length, 4 blocks
  EXPECT_DOUBLE_EQ(r.e2e_s, r.ttft_s + 199 * r.tpot_s);
  EXPECT_DOUBLE_EQ(r.tokens_per_s, 200 / r.e2e_s);
}

TEST(LlmInfer, MoeDecodeReadsOnlyTheExpertsItsTokensPicked) {
  // One token picks 2 of 8 experts: the step reads attention + router + 2 experts (not 8). With 64 tokens nearly
  // every expert is picked: 8 x (1 - (6/8)^64).
  const double attn = 3.0 * 1024 * 1024 + 1024.0 * 1024, router = 1024.0 * 8;
  const double expert = 1024.0 * 1024 + 1024 + 1024.0 * 1024 + 1024;
  const InferenceResult one = evaluate_inference(small(true), ideal_gpu(), one_gpu(1));
  EXPECT_NEAR(one.decode_weight_bytes, 4 * (attn + router + 2 * expert) * 2, 1.0);
  const InferenceResult many = evaluate_inference(small(true), ideal_gpu(), one_gpu(64));
  EXPECT_NEAR(many.decode_weight_bytes, 4 * (attn + router + 8 * (1 - std::pow(0.75, 64)) * expert) * 2, 1.0);
}

TEST(LlmInfer, BadConfigurationsNameTheArgument) {
  auto expect_option = [](ServingConfig c, const std::string& keyword) {
    try {
      evaluate_inference(small(true), resolve_system("h100-80gb"), c);
      ADD_FAILURE() << "no error for " << keyword;
    } catch (const Error& e) {
      EXPECT_TRUE(e.names_argument()) << e.what();
      EXPECT_EQ(e.field(), keyword) << e.what();
    }
  };
  ServingConfig c = one_gpu(8);
  c.gpus = 8;
  c.tp = 3;
  expect_option(c, "gpus");  // 8 GPUs, TP 3
  c.tp = 2;
  c.ep = 3;
  expect_option(c, "ep");  // 4 replicas
  c.ep = 1;
  c.batch = 6;
  expect_option(c, "batch");  // 4 replicas
  c.batch = 8;
  c.output = 0;
  expect_option(c, "output");
  c.output = 8;
  c.gpus = 16;
  c.tp = 16;  // an H100 NVLink domain is 8 GPUs
  expect_option(c, "tp");
}

TEST(LlmInferCli, TimeToFirstTokenTarget) {
  const std::string base = "llm infer --model " + testing::preset("llama3-70b.json") +
                           " --system h100-80gb --gpus 8 --prompt 2048 --output 256 --batch 256";
  auto r = testing::run_chorus(base + " --max-ttft-ms 2000 --json", "infer_ttft");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_LE(j.at("ttft_ms").get<double>(), 2000);
  EXPECT_EQ(j.at("search").at("max_ttft_ms").get<double>(), 2000);
  EXPECT_TRUE(j.at("search").at("max_tpot_ms").is_null());
  r = testing::run_chorus(base + " --max-ttft-ms 0", "infer_ttft_zero");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: --max-ttft-ms: 0: must be > 0\n");
  r = testing::run_chorus(base + " --max-ttft-ms 0.001", "infer_ttft_tiny");  // 1 us: no prefill is that fast
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--max-ttft-ms: 0.001: no configuration of 8 GPUs meets it"), std::string::npos) << r.err;
}

TEST(LlmInferCli, JsonKeysAndMemoryThatDoesNotFit) {
  const std::string base = "llm infer --model " + testing::preset("llama3-70b.json") +
                           " --system h100-80gb --gpus 8 --prompt 2048 --output 256";
  auto r = testing::run_chorus(base + " --batch 64 --json", "infer_json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j.at("ttft_ms").get<double>(), 0);
  EXPECT_GT(j.at("tpot_ms").get<double>(), 0);
  // 64 sequences x 256 tokens over TTFT + 255 TPOT.
  const double e2e = j.at("ttft_ms").get<double>() + 255 * j.at("tpot_ms").get<double>();
  EXPECT_NEAR(j.at("tokens_per_s").get<double>(), 64 * 256 / e2e * 1e3, 1e-6 * j.at("tokens_per_s").get<double>());
  // LLaMA 3 70B in bf16 is 141 GB: on one 80 GB GPU it cannot fit, and the message says by how much.
  r = testing::run_chorus("llm infer --model " + testing::preset("llama3-70b.json") +
                              " --system h100-80gb --gpus 1 --prompt 128 --output 16 --batch 1",
                          "infer_oom");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("GiB over"), std::string::npos) << r.err;
}

std::string validation(const std::string& rel) {
  return std::string(CHORUS_SOURCE_DIR) + "/validation/llm/" + rel;
}

TEST(LlmCalibrate, MegatronReadmeRunsWithinFivePercentLeaveOneOut) {
  // The README's MFU (41.5 / 51.4 / 56.0 / 56.3 %) as step times on 312 TFLOP/s A100s; each run predicted by a
  // fit to the other three. Floor (issue #13): mean |error| <= 5 %.
  const System sys = resolve_system("a100-80gb-datasheet");
  const auto runs = read_measured_runs(validation("megatron_readme_runs.csv"), sys);
  ASSERT_EQ(runs.size(), 4u);
  // 175B: 72 B s L h^2 (1 + s/6h + V/12hL) / (0.514 x 64 x 312e12) = 13.75 s (Korthikanti Table 5's seq+sel time).
  EXPECT_NEAR(runs[1].measured_s, 13.75, 0.01);
  const CalibrationResult r = calibrate(sys, runs);
  EXPECT_LE(r.mean_abs_left_out, 0.05);
  EXPECT_LE(r.mean_abs_after, r.mean_abs_before);
}

TEST(LlmCalibrate, ShippedA100PresetIsTheTable5Fit) {
  // The a100-80gb preset is a100-80gb-datasheet with the multipliers `llm calibrate` fits to Korthikanti et al.
  // Table 5 (validation/llm/korthikanti2022_table5_runs.csv): refitting here gives the preset's iteration times
  // to 0.1 %, the fit's errors are those in docs/llm.md (4.52 % before, 1.37 % fitted, 1.83 % leave-one-out,
  // each within 0.05 %), and the paper's Table 5 floor (3 % mean) holds on the preset.
  const System datasheet = resolve_system("a100-80gb-datasheet");
  const System shipped = resolve_system("a100-80gb");
  const auto runs = read_measured_runs(validation("korthikanti2022_table5_runs.csv"), datasheet);
  ASSERT_EQ(runs.size(), 8u);
  const CalibrationResult r = calibrate(datasheet, runs);
  EXPECT_NEAR(r.mean_abs_before, 0.0452, 0.0005);
  EXPECT_NEAR(r.mean_abs_after, 0.0137, 0.0005);
  EXPECT_NEAR(r.mean_abs_left_out, 0.0183, 0.0005);
  double mean_abs = 0;
  for (const MeasuredRun& run : runs) {
    const double t = IterationModel(run.app, shipped).evaluate(run.exe).total_time;
    EXPECT_NEAR(t / IterationModel(run.app, r.calibrated).evaluate(run.exe).total_time, 1.0, 1e-3) << run.name;
    mean_abs += std::abs(1 - t / run.measured_s) / 8;
  }
  EXPECT_LE(mean_abs, 0.03);
}

TEST(LlmCalibrate, ShippedH100PresetIsTheNemoFit) {
  // The h100-80gb preset is h100-80gb-datasheet with the multipliers `llm calibrate` fits to the NeMo 24.07 DGX-H100
  // table (validation/llm/nemo2407_h100_runs.csv, fused attention): refitting gives the preset's iteration times to
  // 0.1 % and the errors in docs/llm.md (24.88 % before, 6.60 % fitted, 7.57 % leave-one-out, each within 0.05 %).
  const System datasheet = resolve_system("h100-80gb-datasheet");
  const System shipped = resolve_system("h100-80gb");
  const auto runs = read_measured_runs(validation("nemo2407_h100_runs.csv"), datasheet);
  ASSERT_EQ(runs.size(), 9u);
  // GPT3-175B on 128 GPUs: 256 sequences x 2,048 tokens / (726 tokens/s/GPU x 128 GPUs) = 5.642 s.
  EXPECT_NEAR(runs[2].measured_s, 256.0 * 2048 / (726.0 * 128), 1e-9);
  const CalibrationResult r = calibrate(datasheet, runs);
  EXPECT_NEAR(r.mean_abs_before, 0.2488, 0.0005);
  EXPECT_NEAR(r.mean_abs_after, 0.0660, 0.0005);
  EXPECT_NEAR(r.mean_abs_left_out, 0.0757, 0.0005);
  for (const MeasuredRun& run : runs) {
    const double t = IterationModel(run.app, shipped).evaluate(run.exe).total_time;
    EXPECT_NEAR(t / IterationModel(run.app, r.calibrated).evaluate(run.exe).total_time, 1.0, 1e-3) << run.name;
  }
  // The preset's efficiencies are the datasheet's times the fit's multipliers, capped at 1: the NVLink tier
  // 0.65 x 1.5385 = 1.0 (at the cap) and the NIC 0.9 x 1.0396 = 0.936, HBM at 1 MB 0.6 x 1.1111 = 0.667 and at
  // 100 MB 0.9 x 1.1111 = 1.0; the FP8 matrix unit for a GEMM of 128 GFLOP and more 0.95 x 0.6046 = 0.574 (about
  // 1,137 of 1,979 TFLOP/s).
  EXPECT_NEAR(shipped.networks[0].efficiency, std::min(1.0, 0.65 * r.params.network[0]), 1e-6);
  EXPECT_NEAR(shipped.networks[0].efficiency, 1.0, 0.001);
  EXPECT_NEAR(shipped.networks[1].efficiency, 0.936, 0.001);
  EXPECT_NEAR(shipped.mem1.efficiency.at(1.0), 0.667, 0.001);  // size in MB
  EXPECT_NEAR(shipped.mem1.efficiency.at(100.0), 1.0, 1e-6);
  const auto fp8 = static_cast<size_t>(shipped.datatype_index("float8"));
  EXPECT_NEAR(shipped.matrix[fp8].efficiency.at(1000.0), 0.574, 0.001);  // size in GFLOP
}

TEST(LlmCalibrate, Llama3405bOnThePapersScheduleWithoutRefitting) {
  // Dubey et al. 2024, Table 4 (430 and 400 TFLOP/s per GPU on 8,192 and 16,384 H100s) with section 3.3.2's
  // schedule: interleaved, 8 one-layer chunks per rank with the first and last chunk holding only the embedding and
  // the output layer, no activation checkpointing, gradients and optimizer state sharded (ZeRO-2). Neither preset
  // was fitted on these runs: the shipped one (fitted on NeMo's FP8 rows, its one matrix multiplier applied to BF16
  // too) is slow by 7.9 and 6.1 %, within 8.5 %; the datasheet is fast by 17.9 and 19.1 %, within 20 % (it was
  // 13.9 and 14.3 % while the ZeRO-2 reductions could hide only behind the backwards, not behind the forwards
  // after the first backward and the bubble, as the simulator's own stream lets them).
  const System datasheet = resolve_system("h100-80gb-datasheet");
  const System shipped = resolve_system("h100-80gb");
  const auto runs = read_measured_runs(validation("llama3_405b_table4_runs.csv"), shipped);
  ASSERT_EQ(runs.size(), 2u);
  // Model FLOPs per token: 3 x (2 x 403.75 B matmul weights + 4 x 8,192 x 128 x 128 x 126 attention) = 2,625.3 G;
  // 2,048 sequences x 8,192 tokens on 8,192 GPUs at 430 TFLOP/s: 2,048 x 2,625.3 G / 430 T = 12.50 s.
  EXPECT_NEAR(runs[0].measured_s, 2048 * 2625.3e9 / 430e12, 0.01);
  EXPECT_NEAR(runs[1].measured_s, 1024 * 2625.3e9 / 400e12, 0.01);
  for (const MeasuredRun& run : runs) {
    EXPECT_LE(std::abs(1 - IterationModel(run.app, shipped).evaluate(run.exe).total_time / run.measured_s), 0.085)
        << run.name;
    EXPECT_LE(std::abs(1 - IterationModel(run.app, datasheet).evaluate(run.exe).total_time / run.measured_s), 0.20)
        << run.name;
    EXPECT_EQ(IterationModel(run.app, shipped).evaluate(run.exe).outcome, Outcome::kOk) << run.name;
  }
}

TEST(LlmCalibrate, TorchtitanFsdp2RunsAreFastWithTheMegatronFit) {
  // pytorch/torchtitan docs/performance.md, FSDP2 on 64 A100-80GB: tokens/s per GPU 2,162 (Llama 2 13B, local batch
  // 2 x 4,096 tokens, no AC), 353 (Llama 2 70B, 2 x 4,096, full AC), 331 (Llama 3 70B, 1 x 8,192, full AC). The
  // a100-80gb preset is fitted on Megatron-LM (fused kernels); eager FSDP2 runs below it, so the planner is fast on
  // every row, by 18.3-24.1 % (docs/llm.md: the compute efficiencies, not the network; both engines agree within
  // 0.3 % since the planner places the 64-GPU ZeRO-3 group on its nodes); a change that moves a row past 25 % must
  // say why there.
  const System shipped = resolve_system("a100-80gb");
  const auto runs = read_measured_runs(validation("torchtitan_fsdp2_a100_runs.csv"), shipped);
  ASSERT_EQ(runs.size(), 3u);
  // 128 sequences x 4,096 tokens / (2,162 tokens/s x 64 GPUs) = 3.789 s; 64 x 8,192 / (331 x 64) = 24.749 s.
  EXPECT_NEAR(runs[0].measured_s, 128.0 * 4096 / (2162.0 * 64), 1e-9);
  EXPECT_NEAR(runs[2].measured_s, 64.0 * 8192 / (331.0 * 64), 1e-9);
  for (const MeasuredRun& run : runs) {
    const Stats st = IterationModel(run.app, shipped).evaluate(run.exe);
    EXPECT_EQ(st.outcome, Outcome::kOk) << run.name;
    EXPECT_GT(1 - st.total_time / run.measured_s, 0.05) << run.name;  // fast
    EXPECT_LT(1 - st.total_time / run.measured_s, 0.25) << run.name;
  }
}

TEST(LlmCalibrate, BadCsvNamesFileAndLine) {
  const std::string path = ::testing::TempDir() + "bad_runs.csv";
  const System sys = resolve_system("a100-80gb");
  std::ofstream(path) << "source,name,model,exec,metric,value\nx,y," << validation("models/gpt3-175B.json") << ","
                      << validation("execs/gpt3-175B_seqsel.json") << ",speed,3\n";
  try {
    read_measured_runs(path, sys);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field(), "line 2: metric");
  }
  std::ofstream(path) << "model,value\n";
  EXPECT_THROW(read_measured_runs(path, sys), Error);
}

}  // namespace
}  // namespace chorus::llm

namespace chorus::llm {
namespace {

// Every candidate is checked by brute force: the search's answer meets the targets and no configuration the search
// may try (TP x PP splits of 8 GPUs, batches 1, 2, 4, ..., 64) beats it while meeting them.
void expect_best_under(const LatencyTargets& targets) {
  const System sys = resolve_system("h100-80gb");
  const Application app = read_application(testing::preset("mixtral-8x7b.json"));
  ServingConfig base;
  base.gpus = 8;
  base.prompt = 1024;
  base.output = 128;
  base.batch = 64;
  base.datatype = sys.datatype_index("bfloat16");
  const ServingChoice best = search_serving(app, sys, base, targets);
  ASSERT_TRUE(best.found);
  auto meets = [&](const InferenceResult& r) {
    return (targets.max_tpot_s == 0 || r.tpot_s <= targets.max_tpot_s) &&
           (targets.max_ttft_s == 0 || r.ttft_s <= targets.max_ttft_s);
  };
  EXPECT_TRUE(meets(best.result));
  int64_t feasible = 0;
  for (int64_t tp : {1, 2, 4, 8}) {
    for (int64_t pp = 1; pp * tp <= 8; pp *= 2) {
      const int64_t dp = 8 / (tp * pp);
      for (int64_t ep = 1; ep <= dp; ep *= 2) {
        for (int64_t batch : {1, 2, 4, 8, 16, 32, 64}) {
          ServingConfig c = base;
          c.tp = tp;
          c.pp = pp;
          c.ep = ep;
          c.batch = batch;
          c.ep_net = static_cast<int8_t>(tp * ep <= 8 ? 0 : 1);
          try {
            const InferenceResult r = evaluate_inference(app, sys, c);
            if (meets(r)) {
              ++feasible;
              EXPECT_LE(r.tokens_per_s, best.result.tokens_per_s);
            }
          } catch (const Error&) {
          }
        }
      }
    }
  }
  EXPECT_EQ(feasible, best.feasible);
}

TEST(LlmInferSearch, BestThroughputUnderTheLatencyTarget) {
  expect_best_under({0.02, 0});
}

TEST(LlmInferSearch, BestThroughputUnderATimeToFirstTokenTarget) {
  expect_best_under({0, 0.2});
  expect_best_under({0.02, 0.2});  // both met
}

}  // namespace
}  // namespace chorus::llm
