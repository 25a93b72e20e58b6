// Communication-hiding GEMMs (tp_gemm_overlap) against hand-derived pipelines: one GEMM in each regime
// (compute-bound, bandwidth-bound, small shards, latency-bound, processor share, SUMMA), a whole tiny block, the
// bounds max(C, A) <= time <= C + A on real models, the unchanged default, bad input, and the warning when
// Calculon's tensor_par_overlap ring puts a GEMM plus its collective below the collective's own time.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/block.hpp"
#include "chorus/llm/collective_matmul.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm/tp_gemm_report.hpp"
#include "chorus/llm/tp_overlap_bound.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

constexpr double kUs = 1e-6;
constexpr double kPs = 1e-12;  // the pipeline is evaluated in whole picoseconds

// One network tier of 100 GB/s, efficiency 1, latency `latency` s, ring All-Gather / Reduce-Scatter (scale 1,
// offset -1: S (n-1)/n / bandwidth), the share `usage` of the processor taken by transfers.
nlohmann::json one_tier(double latency, double usage) {
  return {
      {"bandwidth", 100},
      {"efficiency", 1.0},
      {"size", 8},
      {"latency", latency},
      {"ops",
       {{"p2p", {1.0, nullptr}}, {"reduce_scatter", {1.0, -1}}, {"all_gather", {1.0, -1}}, {"all_reduce", {2.0, -1}}}},
      {"must_be_filled", false},
      {"processor_usage", usage}};
}

// 100 TFLOP/s matrix unit with `curve` (GFLOP thresholds), HBM so fast (1e15 B/s) that every GEMM here is
// compute-bound under the roofline, and one network tier of 100 GB/s, efficiency 1, latency `latency` s, ring
// All-Gather / Reduce-Scatter (scale 1, offset -1: S (n-1)/n / bandwidth).
System test_system(const nlohmann::json& curve, double latency = 1e-6, double usage = 0) {
  nlohmann::json j = {{"matrix", {{"float16", {{"tflops", 100}, {"gflops_efficiency", curve}}}}},
                      {"vector", {{"float16", {{"tflops", 10}, {"gflops_efficiency", {{0, 1.0}}}}}}},
                      {"mem1", {{"GiB", 80}, {"GBps", 1e6}, {"MB_efficiency", {{0, 1.0}}}}},
                      {"mem2", {{"GiB", 0}, {"GBps", 1}, {"MB_efficiency", {{0, 1.0}}}}},
                      {"processing_mode", "roofline"},
                      {"networks", nlohmann::json::array({one_tier(latency, usage)})}};
  return parse_system(j, "test system");
}

const nlohmann::json kFlat = {{0, 1.0}};

// An 8 GFLOP GEMM with a few thousand elements (memory time in nanoseconds, hidden by the roofline): C = 80 us.
TpGemm gemm_8gflop(const Hardware& hw) {
  TpGemm g{Unit::kMatrix, 8e9, 1000, 1000, 1000, 1, 0};
  g.time = hw.process(g.flops, g.unit, 3000 * hw.bytes_per_element()).time;
  return g;
}

TEST(CollectiveMatmul, ComputeBoundRingHidesTheWholeCollective) {
  // N = 4, C = 8e9 / 1e14 = 80 us, c = 20 us. All-Gather of 4 MB: A = 1 + 4e6 x 3/4 / 1e11 s = 1 + 30 = 31 us,
  // one ring step t = 1 + 30 / 3 = 11 us. T = c + 3 max(c, t) = 20 + 60 = 80 us = C: nothing exposed.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  const NetworkTier& net = sys.networks[0];
  const double a = net.op_time(Collective::kAllGather, 4e6, 4);
  EXPECT_NEAR(a, 31 * kUs, 1e-12);
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), a, net, 4);
  EXPECT_NEAR(g.compute, 80 * kUs, 1e-12);
  EXPECT_NEAR(g.step_compute, 20 * kUs, 1e-12);
  EXPECT_NEAR(g.step_comm, 11 * kUs, 1e-12);
  EXPECT_NEAR(g.pipelined, 80 * kUs, 4 * kPs);
  EXPECT_TRUE(g.decomposed());
  EXPECT_NEAR(g.exposed(), 0, 4 * kPs);
  EXPECT_NEAR(g.link, 33 * kUs, 1e-12);  // three steps of 11 us: the latency is paid three times
}

TEST(CollectiveMatmul, BandwidthBoundRingExposesWhatTheStepsCannotHide) {
  // All-Gather of 40 MB: A = 1 + 300 = 301 us, t = 1 + 100 = 101 us. T = 20 + 3 x 101 = 323 us against the plain
  // 80 + 301 = 381 us: exposed 323 - 80 = 243 us.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  const NetworkTier& net = sys.networks[0];
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), net.op_time(Collective::kAllGather, 4e7, 4), net, 4);
  EXPECT_NEAR(g.pipelined, 323 * kUs, 4 * kPs);
  EXPECT_TRUE(g.decomposed());
  EXPECT_NEAR(g.exposed(), 243 * kUs, 4 * kPs);
  EXPECT_EQ(tp_gemm_reason(g), "hides 19 % of the collective");  // (381 - 323) / 301 = 19.3 %
}

TEST(CollectiveMatmul, SmallShardsFallBackToGemmThenCollective) {
  // Efficiency 1 from 4 GFLOP, 0.25 below: the 2 GFLOP shard runs at 25 TFLOP/s, c = 80 us, and T = 80 + 3 x 80
  // = 320 us > the plain 80 + 31 = 111 us, so the GEMM is not decomposed and its time stays 111 us.
  const System sys = test_system({{4, 1.0}, {0, 0.25}});
  const Hardware hw(sys, 0);
  const NetworkTier& net = sys.networks[0];
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), net.op_time(Collective::kAllGather, 4e6, 4), net, 4);
  EXPECT_NEAR(g.step_compute, 80 * kUs, 1e-12);
  EXPECT_NEAR(g.pipelined, 320 * kUs, 4 * kPs);
  EXPECT_FALSE(g.decomposed());
  EXPECT_NEAR(g.time, 111 * kUs, 1e-12);
  EXPECT_EQ(tp_gemm_reason(g).rfind("small shards", 0), 0u) << tp_gemm_reason(g);
}

TEST(CollectiveMatmul, LatencyBoundStepsFallBack) {
  // Latency 50 us, All-Gather of 0.4 MB: A = 50 + 3 = 53 us, t = 50 + 1 = 51 us. T = 20 + 3 x 51 = 173 us > 80 + 53
  // = 133 us, while the four step GEMMs alone (80 us) would fit: the per-step latency is what loses.
  const System sys = test_system(kFlat, 50e-6);
  const Hardware hw(sys, 0);
  const NetworkTier& net = sys.networks[0];
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), net.op_time(Collective::kAllGather, 4e5, 4), net, 4);
  EXPECT_NEAR(g.pipelined, 173 * kUs, 4 * kPs);
  EXPECT_FALSE(g.decomposed());
  EXPECT_NEAR(g.time, 133 * kUs, 1e-12);
  EXPECT_EQ(tp_gemm_reason(g).rfind("latency-bound", 0), 0u) << tp_gemm_reason(g);
}

TEST(CollectiveMatmul, ProcessorShareSlowsTheStepGemms) {
  // processor_usage 0.2: c = 20 / 0.8 = 25 us, T = 25 + 3 x 25 = 100 us (plain 111 us): 20 us exposed.
  const System sys = test_system(kFlat, 1e-6, 0.2);
  const Hardware hw(sys, 0);
  const NetworkTier& net = sys.networks[0];
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), net.op_time(Collective::kAllGather, 4e6, 4), net, 4);
  EXPECT_NEAR(g.step_compute, 25 * kUs, 1e-12);
  EXPECT_NEAR(g.exposed(), 20 * kUs, 4 * kPs);
}

TEST(CollectiveMatmul, AbsurdlySlowNetworksStayFinite) {
  // 1 B/s: the All-Gather of 4 MB takes 3e6 s, past what picoseconds in 63 bits hold at 4 steps; the pipeline is
  // evaluated in a coarser unit: T = c + 3 t with t = 1e6 s (bandwidth-bound), relative error ~1e-12.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  NetworkTier net = sys.networks[0];
  net.bytes_per_second = 1;
  const double a = net.op_time(Collective::kAllGather, 4e6, 4);
  const DecomposedGemm g = ring_decomposed(hw, gemm_8gflop(hw), a, net, 4);
  EXPECT_NEAR(g.pipelined, 20e-6 + 3 * (1e-6 + 1e6), 1e-3);
  EXPECT_LE(g.time, g.compute + g.collective);
}

TEST(CollectiveMatmul, SummaGridAndPipeline) {
  // Grids: rows = the largest divisor <= sqrt(n); panels = lcm(rows, cols).
  EXPECT_EQ(summa_grid(8).rows, 2);
  EXPECT_EQ(summa_grid(8).cols, 4);
  EXPECT_EQ(summa_grid(8).steps(), 4);
  EXPECT_EQ(summa_grid(6).steps(), 6);
  EXPECT_EQ(summa_grid(16).rows, 4);
  EXPECT_EQ(summa_grid(7).rows, 1);
  // N = 4 (2 x 2, S = 2 panels), operands of 4e6 elements each and an output of 4e3 (2 bytes): per step this rank
  // receives 4e6 / (2 x 2) x 2 = 2e6 elements = 4 MB, t = 1 + 4e6 / 1e11 s = 41 us; c = 8e9 / 2 / 1e14 = 40 us. T = t +
  // (S - 1) max(c, t) + c = 41 + 41 + 40 = 122 us; unoverlapped C + S t = 80 + 82 = 162 us.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  const DecomposedGemm g = summa_decomposed(hw, gemm_8gflop(hw), 4e6, 4e6, 4e3, sys.networks[0], summa_grid(4));
  EXPECT_EQ(g.steps, 2);
  EXPECT_NEAR(g.step_comm, 41 * kUs, 1e-12);
  EXPECT_NEAR(g.step_compute, 40 * kUs, 1e-12);
  EXPECT_NEAR(g.collective, 82 * kUs, 1e-12);
  EXPECT_NEAR(g.pipelined, 122 * kUs, 4 * kPs);
  EXPECT_NEAR(g.exposed(), 42 * kUs, 4 * kPs);
}

// A tiny dense block: hidden 1024, 8 heads of 128, feedforward 4096, one 1,024-token sequence, TP 2, sequence
// parallel (rs_ag), float16 on test_system(flat).
Application tiny_app() {
  Application a;
  a.hidden = 1024;
  a.feedforward = 4096;
  a.seq_size = 1024;
  a.attn_heads = 8;
  a.kv_heads = 8;
  a.attn_size = 128;
  a.num_blocks = 1;
  a.vocab = 0;
  return a;
}

Execution tiny_exec(TpGemmOverlap mode) {
  Execution e;
  e.num_procs = 2;
  e.tensor_par = 2;
  e.tp_comm = TpCommType::kRsAg;
  e.tp_gemm_overlap = mode;
  return e;
}

TEST(CollectiveMatmul, TinyBlockByHand) {
  // Every All-Gather / Reduce-Scatter moves the 1024 x 1024 activation (2 MiB): A = 1 us + 2,097,152 x 1/2 / 1e11
  // = 11.48576 us; with N = 2 one ring step is the whole collective, t = A. Each linear's step GEMM is half of it:
  //   QKV       2 x 1024 x 1024 x 1536 = 3.221 GFLOP, C = 32.212 us, c = 16.106 us > t: T = 2c = C, hidden
  //   out-proj  2 x 1024 x  512 x 1024 = 1.074 GFLOP, C = 10.737 us, c =  5.369 us < t: T = c + t, exposed t - c
  //   MLP up    2 x 1024 x 1024 x 2048 = 4.295 GFLOP, c = 21.475 us > t: hidden
  //   MLP down  2 x 1024 x 2048 x 1024 = 4.295 GFLOP: hidden
  // The activation gradients have the same FLOPs and the reverse collectives, so forward and backward each expose
  // t - c(out-proj) = 11.48576 - 5.36871 = 6.11705 us, against 4 A = 45.943 us without the decomposition.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  const Application app = tiny_app();
  const double a = 1e-6 + 2097152.0 / 2 / 1e11;
  const double c_out = 2.0 * 1024 * 512 * 1024 / 2 / 1e14;
  const BlockCost with = block_cost(app, tiny_exec(TpGemmOverlap::kPipelined), hw, sys.networks[0]);
  EXPECT_NEAR(with.tp_base.fw_exposed, a - c_out, 10 * kPs);
  EXPECT_NEAR(with.tp_base.bw_exposed, a - c_out, 10 * kPs);
  EXPECT_NEAR(with.tp_base.fw_link, 4 * a, 1e-12);
  ASSERT_EQ(with.tp_gemm.n, 8u);
  for (size_t i = 0; i < with.tp_gemm.n; ++i)
    EXPECT_TRUE(with.tp_gemm.gemms[i].decomposed()) << i;
  const BlockCost without = block_cost(app, tiny_exec(TpGemmOverlap::kNone), hw, sys.networks[0]);
  EXPECT_NEAR(without.tp_base.fw_exposed, 4 * a, 1e-12);
  EXPECT_EQ(without.tp_gemm.n, 0u);
  // The compute of the block is the same either way: only the exposed communication changes.
  EXPECT_EQ(with.fw.time, without.fw.time);
  EXPECT_EQ(with.bw.time, without.bw.time);
}

TEST(CollectiveMatmul, P2pRsAgDecomposesTheEdgeBlockOnly) {
  // p2p_rs_ag keeps All-Reduces inside a pipeline chunk (nothing to decompose) and uses All-Gather / Reduce-Scatter
  // in the chunk's last block, where the decomposition applies: the base block is the same as without it.
  const System sys = test_system(kFlat);
  const Hardware hw(sys, 0);
  Execution with = tiny_exec(TpGemmOverlap::kPipelined);
  with.tp_comm = TpCommType::kP2pRsAg;
  Execution without = with;
  without.tp_gemm_overlap = TpGemmOverlap::kNone;
  const BlockCost a = block_cost(tiny_app(), with, hw, sys.networks[0]);
  const BlockCost b = block_cost(tiny_app(), without, hw, sys.networks[0]);
  EXPECT_EQ(a.tp_base.fw_exposed, b.tp_base.fw_exposed);
  EXPECT_EQ(a.tp_base.bw_exposed, b.tp_base.bw_exposed);
  // Edge block, as in TinyBlockByHand: 4 A exposed without; only the out-projection's A - c with.
  const double ag = 1e-6 + 2097152.0 / 2 / 1e11;
  const double c_out = 2.0 * 1024 * 512 * 1024 / 2 / 1e14;
  EXPECT_NEAR(b.tp_edge.fw_exposed - a.tp_edge.fw_exposed, 3 * ag + c_out, 10 * kPs);
}

// Every decomposed GEMM of a real configuration stays within max(C, A) <= time <= C + A (<= the unoverlapped sum
// plus one step), and the pipeline alone within max(N c, (N-1) t) <= T <= N c + (N-1) t.
void expect_bounds(const TpGemmDetail& d) {
  ASSERT_GT(d.n, 0u);
  for (size_t i = 0; i < d.n; ++i) {
    const DecomposedGemm& g = d.gemms[i];
    const double steps = static_cast<double>(g.steps);
    const double slack = 1e-9 * (g.compute + g.collective) + 100 * kPs;
    EXPECT_GE(g.time + slack, std::max(g.compute, g.collective)) << i;
    EXPECT_LE(g.time, g.compute + g.collective + slack) << i;
    EXPECT_LE(g.time, g.compute + g.collective + std::max(g.step_compute, g.step_comm)) << i;
    EXPECT_GE(g.pipelined + slack, steps * g.step_compute) << i;
    EXPECT_LE(g.pipelined, steps * g.step_compute + steps * g.step_comm + slack) << i;
  }
}

TEST(CollectiveMatmul, BoundsOnGpt3AndLlamaPresets) {
  for (const char* preset : {"a100-80gb", "h100-80gb"}) {
    const System sys = resolve_system(preset);
    const Hardware hw(sys, 0);
    for (const char* model : {"gpt3-175b.json", "llama3-70b.json"}) {
      const Application app = read_application(testing::preset(model));
      for (int64_t mbs : {1, 4}) {
        for (TpGemmOverlap mode : {TpGemmOverlap::kPipelined, TpGemmOverlap::kSumma}) {
          Execution e = tiny_exec(mode);
          e.tensor_par = 8;
          e.num_procs = 8;
          e.microbatch_size = mbs;
          e.batch_size = mbs;
          const BlockCost b = block_cost(app, e, hw, sys.networks[0]);
          SCOPED_TRACE(std::string(preset) + " " + model + " " + to_string(mode));
          expect_bounds(b.tp_gemm);
          if (mode == TpGemmOverlap::kPipelined) {
            // Per GEMM never worse than the plain sequence, so never worse than no decomposition.
            Execution plain = e;
            plain.tp_gemm_overlap = TpGemmOverlap::kNone;
            const BlockCost p = block_cost(app, plain, hw, sys.networks[0]);
            EXPECT_LE(b.tp_base.fw_exposed, p.tp_base.fw_exposed * (1 + 1e-12));
            EXPECT_LE(b.tp_base.bw_exposed, p.tp_base.bw_exposed * (1 + 1e-12));
          }
        }
      }
    }
  }
}

// A 4096-hidden, 8-block model on 8 GPUs of 24 GiB (TP 1 does not fit: the search must use TP) whose GEMMs are
// HBM-bound (a 10 PFLOP/s matrix unit fed by 2 TB/s, no overlap of the two) and whose TP collectives take about
// twice as long as the GEMMs (100 GB/s): each step's GEMM hides part of the next step's transfer, so the decomposed
// GEMMs should be chosen over no overlap.
nlohmann::json hbm_bound_json(double latency) {
  return {{"matrix", {{"float16", {{"tflops", 10000}, {"gflops_efficiency", {{0, 1.0}}}}}}},
          {"vector", {{"float16", {{"tflops", 1000}, {"gflops_efficiency", {{0, 1.0}}}}}}},
          {"mem1", {{"GiB", 24}, {"GBps", 2000}, {"MB_efficiency", {{0, 1.0}}}}},
          {"mem2", {{"GiB", 0}, {"GBps", 1}, {"MB_efficiency", {{0, 1.0}}}}},
          {"processing_mode", "no_overlap"},
          {"networks", nlohmann::json::array({one_tier(latency, 0)})}};
}

System hbm_bound_system(double latency) {
  return parse_system(hbm_bound_json(latency), "hbm-bound system");
}

Application search_app() {
  Application a = tiny_app();
  a.hidden = 4096;
  a.feedforward = 16384;
  a.seq_size = 4096;
  a.attn_heads = 32;
  a.kv_heads = 32;
  a.num_blocks = 8;
  return a;
}

SearchResult search(const IterationModel& model, bool decomposed) {
  SearchSpec spec;
  spec.num_procs = 8;
  spec.max_batch = 8;
  spec.top_n = 1;
  spec.dims = {.tp_gemm_overlap = decomposed, .calculon_tp_overlap = false};
  return run_search(model, spec);
}

TEST(CollectiveMatmul, SearchPicksDecomposedGemmsWhereStepsHideTransfers) {
  const IterationModel model(search_app(), hbm_bound_system(1e-6));
  const SearchResult plain = search(model, false);
  const SearchResult with = search(model, true);
  ASSERT_EQ(with.top.size(), 1u);
  const Execution& best = with.top[0].execution;
  EXPECT_GT(best.tensor_par, 1);
  EXPECT_NE(best.tp_gemm_overlap, TpGemmOverlap::kNone);
  EXPECT_GT(with.top[0].sample_rate, plain.top[0].sample_rate);
  // The space grows by the decomposed modes only: Calculon's space less ring/pipe, plus pipelined (rs_ag and
  // p2p_rs_ag) and summa (rs_ag, TP 4 or 8, no AG redo).
  EXPECT_GT(with.enumerated, plain.enumerated);
  EXPECT_EQ(with.enumerated, search_space_size(search_app(), hbm_bound_system(1e-6), 8, 8,
                                               {.tp_gemm_overlap = true, .calculon_tp_overlap = false}));
}

TEST(CollectiveMatmul, SearchLeavesThemOutWhereStepsAreLatencyBound) {
  // 1 ms per step: no GEMM is decomposed, each mode ties with none, and the earlier enumerated (none) stays first.
  const IterationModel model(search_app(), hbm_bound_system(1e-3));
  const SearchResult with = search(model, true);
  ASSERT_EQ(with.top.size(), 1u);
  EXPECT_EQ(with.top[0].execution.tp_gemm_overlap, TpGemmOverlap::kNone);
  EXPECT_EQ(with.top[0].sample_rate, search(model, false).top[0].sample_rate);
}

TEST(CollectiveMatmul, DefaultLeavesCalculonExecutionsUnchanged) {
  // The same execution with the key absent and with "tp_gemm_overlap": "none" gives bit-identical statistics.
  const Application app = read_application(testing::preset("gpt3-175b.json"));
  const System sys = resolve_system("a100-80gb");
  nlohmann::json j = nlohmann::json::parse(testing::slurp(testing::preset("gpt3-175b_exec.json")));
  const Execution plain = parse_execution(j, "exec", app, sys);
  j["tp_gemm_overlap"] = "none";
  const Execution none = parse_execution(j, "exec", app, sys);
  const IterationModel model(app, sys);
  EXPECT_EQ(model.evaluate(plain).total_time, model.evaluate(none).total_time);
  EXPECT_EQ(model.evaluate(plain).tp_comm_exposed_time, model.evaluate(none).tp_comm_exposed_time);
}

TEST(CollectiveMatmul, BadCombinationsNameTheKey) {
  const Application app = read_application(testing::preset("gpt3-175b.json"));
  const System sys = resolve_system("a100-80gb");
  const nlohmann::json base = nlohmann::json::parse(testing::slurp(testing::preset("gpt3-175b_exec.json")));
  auto message = [&](const nlohmann::json& changes) {
    nlohmann::json j = base;
    j.update(changes);
    try {
      parse_execution(j, "exec.json", app, sys);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"tp_gemm_overlap", "ring"}}).find("tp_gemm_overlap"), std::string::npos);
  EXPECT_NE(message({{"tp_gemm_overlap", "pipelined"}, {"tensor_par_overlap", "ring"}}).find("both hide"),
            std::string::npos);
  EXPECT_NE(message({{"tp_gemm_overlap", "pipelined"}, {"tensor_par_comm_type", "ar"}, {"seq_par_ag_redo", false}})
                .find("rs_ag or p2p_rs_ag"),
            std::string::npos);
  EXPECT_NE(message({{"tp_gemm_overlap", "summa"}}).find("seq_par_ag_redo"), std::string::npos);
  EXPECT_NE(message({{"tp_gemm_overlap", "summa"}, {"seq_par_ag_redo", false}, {"tensor_par_comm_type", "p2p_rs_ag"}})
                .find("needs tensor_par_comm_type rs_ag"),
            std::string::npos);
  EXPECT_EQ(message({{"tp_gemm_overlap", "summa"}, {"seq_par_ag_redo", false}}), "no error");
  EXPECT_EQ(message({{"tp_gemm_overlap", "pipelined"}}), "no error");
}

std::string exec_file(const std::string& tag, const nlohmann::json& changes) {
  nlohmann::json j = nlohmann::json::parse(testing::slurp(testing::preset("gpt3-175b_exec.json")));
  j.update(changes);
  const std::string path = ::testing::TempDir() + tag + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

TEST(CollectiveMatmulCli, RunSaysWhichGemmsDecomposeAndWhy) {
  // GPT-3 175B, TP 8, one 2,048-token sequence, on examples/llm/h100_80g.json (1,000 TFLOP/s, 3,072 GB/s HBM,
  // no_overlap; NVLink 450 GB/s x 0.65, 10 us, All-Gather S / bandwidth, processor usage 0.15):
  // QKV forward: 2 x 2048 x 12288 x 4608 = 231.9 GFLOP at 0.95 -> 244.1 us, plus 91.24 M elements (in, out, weights)
  //   x 2 B = 182.5 MB at 0.9 -> 66.0 us: C = 310.1 us. All-Gather of 50.33 MB: 10 + 172.1 = 182.1 us, t = 10 +
  //   172.1 / 7 = 34.58 us. A step: 28.99 GFLOP at 0.9 / 0.85 -> 37.89 us, plus 60.96 M elements (1/8 of in and
  //   out, the whole weight shard) = 121.9 MB -> 44.10 us: c = 81.99 us > t, T = 8 c = 655.9 us > C + A = 492.2 us.
  // Attention output forward: 77.3 GFLOP at 0.9 -> 85.9 us + 94.4 MB at 0.75 -> 41.0 us, C = 126.9 us; a step
  //   16.1 / 0.85 + 19.5 = 38.4 us > t, T = 307.3 us < 126.9 + 182.1 = 309.0 us: decomposed, hiding 1 %.
  const auto r = testing::run_chorus("llm run --model " + testing::preset("gpt3-175b.json") + " --system " +
                                         testing::preset("h100_80g.json") + " --exec " +
                                         exec_file("cm_gpt3", {{"tp_gemm_overlap", "pipelined"}}),
                                     "cm_run");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("TP GEMM overlap 'pipelined' wins against 'none'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no: small shards: 8 step GEMMs take 655.9 us, the whole GEMM 310.1 us"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("yes: hides 1 % of the collective"), std::string::npos) << r.out;
}

TEST(CollectiveMatmulCli, BadValuesAreOneLineExitTwo) {
  const auto bad =
      testing::run_chorus("llm run --model " + testing::preset("gpt3-175b.json") + " --system h100-80gb --exec " +
                              exec_file("cm_bad", {{"tp_gemm_overlap", "ring"}}),
                          "cm_bad");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("tp_gemm_overlap"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  const auto model = testing::run_chorus("llm search --model " + testing::preset("gpt3-175b.json") +
                                             " --system h100-80gb --gpus 8 --max-batch 8 --tp-overlap-model tiles",
                                         "cm_bad_model");
  EXPECT_EQ(model.status, 2);
  EXPECT_NE(model.err.find("--tp-overlap-model"), std::string::npos) << model.err;
}

// Calculon's tiled TP overlap below the collective's own time: the hand example of docs/llm.md. search_app()
// (hidden 4096, 32 heads of 128, feedforward 16384) at microbatch 2 x 4,096 tokens (m = 8,192), TP 2, rs_ag, on
// hbm_bound_system(1 us): 10 PFLOP/s, HBM 2 TB/s (no_overlap: FLOP time + memory time), 100 GB/s, efficiency 1.
// Every All-Gather / Reduce-Scatter moves the 8192 x 4096 x 2 B activation: A = 1 + 67.1 MB x 1/2 / 1e11 s =
// 336.544 us. Calculon's ring with T = 2 tiles and processor usage 0 exposes (T-1)(A - F)/T when A > F (the
// GEMM keeps its time, no extra compute), F the FLOP time. A linear m x k -> n reads and writes
// (m k + k n + n + m n) x 2 B (input, weights and bias, output):
//   QKV       F = 2 x 8192 x 4096 x 6144 / 1e16 = 41.232 us; 218.1 MB / 2e12 = 109.058 us: C = 150.290 us,
//             exposed 147.656 us, C + exposed = 297.946 us < A
//   out-proj  F = 2 x 8192 x 2048 x 4096 / 1e16 = 13.744 us; 117.4 MB -> 58.724 us: C = 72.468 us, exposed
//             161.400 us, C + exposed = 233.868 us < A (the furthest below: 102.7 us)
//   MLP up, down  F = 54.976 us; 268.4 MB -> 134.2 us: C = 189.2 us, exposed 140.784 us, 330.0 us < A
// The activation gradients have the same FLOPs and bytes, so all 8 passes are below. `pipe` exposes one tile
// more, A/T = 168.272 us: QKV 466.2, out-proj 402.1, MLP 498.3 us, all above A, so nothing is flagged.
constexpr double kRingA = 1e-6 + 8192.0 * 4096 * 2 / 2 / 1e11;

Execution hand_example(TpOverlap overlap) {
  Execution e;
  e.num_procs = 2;
  e.tensor_par = 2;
  e.batch_size = 2;
  e.microbatch_size = 2;
  e.tp_comm = TpCommType::kRsAg;
  e.tp_overlap = overlap;
  return e;
}

TEST(CollectiveMatmul, CalculonRingBelowTheCollectiveIsFlagged) {
  const System sys = hbm_bound_system(1e-6);
  const Hardware hw(sys, 0);
  const BlockCost ring = block_cost(search_app(), hand_example(TpOverlap::kRing), hw, sys.networks[0]);
  const TpOverlapBound& b = ring.tp_base.bound;
  EXPECT_EQ(b.passes, 8);
  EXPECT_EQ(b.passes_below, 8);
  EXPECT_EQ(b.kind, Collective::kReduceScatter);  // the out-projection's forward Reduce-Scatter, first of the two
  EXPECT_NEAR(b.collective, kRingA, 1e-12);
  EXPECT_NEAR(b.gemm, 2.0 * 8192 * 2048 * 4096 / 1e16 + (8192.0 * 2048 + 2048 * 4096 + 4096 + 8192 * 4096) * 2 / 2e12,
              1e-12);
  EXPECT_NEAR(b.exposed, (kRingA - 2.0 * 8192 * 2048 * 4096 / 1e16) / 2, 1e-12);
  EXPECT_NEAR((b.gemm + b.exposed) * 1e6, 233.868, 1e-3);
  const BlockCost pipe = block_cost(search_app(), hand_example(TpOverlap::kPipe), hw, sys.networks[0]);
  EXPECT_EQ(pipe.tp_base.bound.passes, 8);
  EXPECT_EQ(pipe.tp_base.bound.passes_below, 0);
  const BlockCost none = block_cost(search_app(), hand_example(TpOverlap::kNone), hw, sys.networks[0]);
  EXPECT_EQ(none.tp_base.bound.passes, 0);
}

// The hand example's files for the CLI: its model, its system (80 GiB so that memory is no question; capacity does
// not change a time) and its execution.
struct HandFiles {
  std::string model, system, exec;
};

HandFiles hand_files(const std::string& overlap) {
  // Named by process: checkouts running the suite at once share the temporary directory.
  const std::string dir = ::testing::TempDir() + "chorus_" + std::to_string(getpid()) + "_";
  HandFiles f{dir + "bound_model.json", dir + "bound_system.json", dir + "bound_exec_" + overlap + ".json"};
  std::ofstream(f.model) << R"({"hidden": 4096, "feedforward": 16384, "seq_size": 4096, "attn_heads": 32,
                               "attn_size": 128, "num_blocks": 8})";
  nlohmann::json sys = hbm_bound_json(1e-6);
  sys["mem1"]["GiB"] = 80;
  std::ofstream(f.system) << sys.dump();
  nlohmann::json exe = nlohmann::json::parse(testing::slurp(testing::preset("gpt3-175b_exec.json")));
  exe.update({{"num_procs", 2},
              {"tensor_par", 2},
              {"pipeline_par", 1},
              {"pipeline_par_net", 0},
              {"data_par_net", 0},
              {"pipeline_interleaving", 1},
              {"batch_size", 2},
              {"microbatch_size", 2},
              {"tensor_par_overlap", overlap}});
  std::ofstream(f.exec) << exe.dump();
  return f;
}

TEST(CollectiveMatmulCli, RunWarnsWhenCalculonsRingBeatsTheCollective) {
  // The hand example above through `llm run`: one warning line with the furthest pass's amounts, and the JSON flag.
  const HandFiles f = hand_files("ring");
  const std::string args = "llm run --model " + f.model + " --system " + f.system + " --exec " + f.exec;
  const auto r = testing::run_chorus(args, "bound_run");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("warning: Calculon's tensor_par_overlap 'ring' model hides more communication", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("8 of 8 overlapped GEMM passes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GEMM 72.5 us + exposed 161.4 us = 233.9 us < Reduce-Scatter 336.5 us"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("tp_gemm_overlap 'pipelined'"), std::string::npos) << r.err;
  const auto j = testing::run_chorus(args + " --json", "bound_run_json");
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json out = nlohmann::json::parse(j.out);
  EXPECT_TRUE(out.at("tp_overlap_below_collective_bound").get<bool>());
  EXPECT_NEAR(out.at("tp_overlap_bound").at("collective_s").get<double>(), kRingA, 1e-12);
  EXPECT_EQ(out.at("tp_overlap_bound").at("passes_below").get<int>(), 8);
  // `pipe` respects the bound here (above): no warning, the flag false.
  const HandFiles pipe = hand_files("pipe");
  const auto p = testing::run_chorus(
      "llm run --model " + pipe.model + " --system " + pipe.system + " --exec " + pipe.exec + " --json",
      "bound_run_pipe");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(p.err, "");
  EXPECT_FALSE(nlohmann::json::parse(p.out).at("tp_overlap_below_collective_bound").get<bool>());
}

TEST(CollectiveMatmulCli, SearchCountsTopConfigurationsBelowTheBound) {
  // On the hand example's system every TP 2 execution with Calculon's ring is below the bound (at microbatch 1 too:
  // A = 168.77 us, QKV C = 87.7 us + exposed 74.1 us = 161.8 us) and no other is (`pipe` exposes a tile more, TP 1
  // has no TP collective). So the count is the top entries with tensor_par_overlap ring at TP 2.
  const HandFiles f = hand_files("ring");
  const std::string args =
      "llm search --model " + f.model + " --system " + f.system + " --gpus 2 --max-batch 2 --top 5";
  const auto j = testing::run_chorus(args + " --json", "bound_search_json");
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json out = nlohmann::json::parse(j.out);
  int64_t ring_tp2 = 0;
  for (const auto& entry : out.at("top")) {
    const auto& e = entry.at("execution");
    const bool expected = e.at("tensor_par").get<int>() == 2 && e.at("tensor_par_overlap").get<std::string>() == "ring";
    ring_tp2 += expected ? 1 : 0;
    EXPECT_EQ(entry.at("tp_overlap_below_collective_bound").get<bool>(), expected) << e.dump();
  }
  EXPECT_GT(ring_tp2, 0);
  EXPECT_EQ(out.at("top_below_collective_bound").get<int64_t>(), ring_tp2);
  const auto text = testing::run_chorus(args, "bound_search");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(fmt::format("notice: {} of the top 5 configurations use Calculon's", ring_tp2)),
            std::string::npos)
      << text.out;
  const auto decomposed = testing::run_chorus(args + " --tp-overlap-model decomposed", "bound_search_dec");
  ASSERT_EQ(decomposed.status, 0) << decomposed.err;
  EXPECT_EQ(decomposed.out.find("notice:"), std::string::npos) << decomposed.out;
}

}  // namespace
}  // namespace chorus::llm
