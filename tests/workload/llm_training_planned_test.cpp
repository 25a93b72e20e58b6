// The generator as the simulator engine drives it (llm_engine/planned_spec.hpp): Megatron's interleaved 1F1B order
// worked out by hand, the planner's times on the compute nodes, recompute and the optimizer step, overlapped DP
// reductions, scattered pipeline messages, and an interleaved run whose finish time is derived step by step.
#include <algorithm>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/workload/tiny_llm_model.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using chakra::NodeType;

LlmTrainingSpec tiny_spec(uint32_t dp, uint32_t tp, uint32_t pp, uint32_t microbatches) {
  LlmTrainingSpec s;
  s.model = testing_support::tiny_llm_model();
  s.dp = dp;
  s.tp = tp;
  s.pp = pp;
  s.microbatches = microbatches;
  return s;
}

std::string order(const std::vector<PipelineStep>& steps) {
  std::string out;
  for (const PipelineStep& s : steps)
    out += fmt::format("{}{}c{} ", s.pass == Pass::Forward ? 'F' : 'B', s.microbatch, s.chunk);
  return out;
}

TEST(LlmTrainingPlanned, InterleavedOrderIsMegatrons) {
  // PP 2, 2 chunks, 4 microbatches. Stage 0 warms up with (2 - 0 - 1) x 2 + (2 - 1) x 2 = 4 forwards, stage 1
  // with 2; forward k runs microbatch (k / 4) x 2 + k % 2 of chunk (k / 2) % 2, backwards the chunks reversed.
  EXPECT_EQ(order(interleaved_one_f_one_b(0, 2, 2, 4)),
            "F0c0 F1c0 F0c1 F1c1 F2c0 B0c1 F3c0 B1c1 F2c1 B0c0 F3c1 B1c0 B2c1 B3c1 B2c0 B3c0 ");
  EXPECT_EQ(order(interleaved_one_f_one_b(1, 2, 2, 4)),
            "F0c0 F1c0 F0c1 B0c1 F1c1 B1c1 F2c0 B0c0 F3c0 B1c0 F2c1 B2c1 F3c1 B3c1 B2c0 B3c0 ");
  // One chunk is plain 1F1B.
  EXPECT_EQ(order(interleaved_one_f_one_b(0, 2, 1, 2)), "F0c0 F1c0 B0c0 B1c0 ");
}

uint64_t duration_of(const chakra::ChakraTrace& t, const std::string& name) {
  uint64_t sum = 0;
  for (const chakra::TraceNode& n : t.nodes) {
    if (n.name == name)
      sum += n.duration_micros;
  }
  return sum;
}

TEST(LlmTrainingPlanned, PlannerTimesReplaceTheRoofline) {
  // The roofline splits a planned 3 ms forward 5 : 8 between attention and MLP (1310720 and 2097152 FLOPs of the
  // tiny layer); the backward is 6 ms; the LM head's 0.9 ms is a third forward, two thirds backward.
  LlmTrainingSpec s = tiny_spec(1, 1, 1, 1);
  s.peak_tflops = 0.262144;  // compute-bound: 5 us and 8 us of roofline, the head 2 us
  s.recompute = llm::Recompute::kFull;
  s.planned = PlannerTimes{.block_forward_s = 3e-3,
                           .block_backward_s = 6e-3,
                           .block_recompute_s = 2e-3,
                           .head_s = 0.9e-3,
                           .optimizer_s = 1e-4};
  const chakra::ChakraTrace t = llm_rank_trace(s, 0);
  EXPECT_EQ(duration_of(t, "mb0.L0.attn.fwd"), 1154u);  // 3000 x 5 / 13
  EXPECT_EQ(duration_of(t, "mb0.L0.mlp.fwd"), 1846u);   // 3000 x 8 / 13
  EXPECT_EQ(duration_of(t, "mb0.L2.attn.bwd") + duration_of(t, "mb0.L2.mlp.bwd"), 6000u);
  EXPECT_EQ(duration_of(t, "mb0.L3.recompute"), 2000u);
  EXPECT_EQ(duration_of(t, "mb0.head.fwd"), 300u);
  EXPECT_EQ(duration_of(t, "mb0.head.bwd"), 600u);
  EXPECT_EQ(duration_of(t, "optimizer_step"), 400u);  // 4 layers x 0.1 ms
  // The recompute runs before the layer's backward.
  size_t recompute = 0;
  size_t backward = 0;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    recompute = t.nodes[i].name == "mb0.L1.recompute" ? i : recompute;
    backward = t.nodes[i].name == "mb0.L1.mlp.bwd" ? i : backward;
  }
  EXPECT_EQ(recompute + 1, backward);
}

TEST(LlmTrainingPlanned, FullRecomputeRedoesTheTpCollectives) {
  // TP 2 without sequence parallelism: two All-Reduces per half per pass (4 per layer per microbatch), plus two
  // more per layer re-done by full recompute: 4 layers x (4 + 2) = 24.
  LlmTrainingSpec s = tiny_spec(1, 2, 1, 1);
  s.model.vocab = 0;
  s.recompute = llm::Recompute::kFull;
  size_t all_reduces = 0;
  for (const chakra::TraceNode& n : llm_rank_trace(s, 0).nodes)
    all_reduces += n.type == NodeType::CommColl && *n.comm_type == static_cast<int64_t>(CommType::AllReduce);
  EXPECT_EQ(all_reduces, 24u);
}

TEST(LlmTrainingPlanned, OverlappedDpReducesEachLayerDuringTheLastBackward) {
  // DP 2, 2 microbatches: each of the 4 layers' gradients is All-Reduced once, off the stream, right after that
  // layer's backward of microbatch 1; the embeddings (first and last stage: both tables) at the end.
  LlmTrainingSpec s = tiny_spec(2, 1, 1, 2);
  s.overlap_dp = true;
  const chakra::ChakraTrace t = llm_rank_trace(s, 0);
  std::vector<std::string> reductions;
  for (const chakra::TraceNode& n : t.nodes) {
    if (n.type == NodeType::CommColl)
      reductions.push_back(n.name);
  }
  const std::vector<std::string> expected{"L3.dp_all_reduce_gradients", "L2.dp_all_reduce_gradients",
                                          "L1.dp_all_reduce_gradients", "L0.dp_all_reduce_gradients",
                                          "dp_all_reduce_gradients_embeddings"};
  EXPECT_EQ(reductions, expected);
  // A layer's gradients: 4 h^2 (attention, q = kv = h) + 2 h f (MLP) + biases/norms as block_weight_count, x 2 B.
  for (const chakra::TraceNode& n : t.nodes) {
    if (n.name == "L0.dp_all_reduce_gradients") {
      EXPECT_EQ(n.comm_size, static_cast<int64_t>(s.model.block_weight_count() * 2));
    }
    if (n.name == "dp_all_reduce_gradients_embeddings") {
      EXPECT_EQ(n.comm_size, 2 * 128 * 64 * 2);
    }
  }
}

TEST(LlmTrainingPlanned, ScatteredPipelineMessagesAreGatheredOnArrival) {
  // TP 2, PP 2: each TP rank sends half the 32 x 64 x 2 B activation; the receiver All-Gathers its 2048 B share.
  LlmTrainingSpec s = tiny_spec(1, 2, 2, 1);
  s.pipeline_scatter = true;
  EXPECT_EQ(pipeline_message_bytes(s), 2048);
  const chakra::ChakraTrace stage1 = llm_rank_trace(s, 2);
  bool gathered = false;
  for (const chakra::TraceNode& n : stage1.nodes) {
    if (n.name == "mb0.recv_activation.pp_all_gather") {
      gathered = true;
      EXPECT_EQ(*n.comm_type, static_cast<int64_t>(CommType::AllGather));
      EXPECT_EQ(n.comm_size, 2048);
    }
  }
  EXPECT_TRUE(gathered);
}

TEST(LlmTrainingPlanned, InterleavedRunMatchesTheHandSchedule) {
  // PP 2, 2 chunks of one layer each, 2 microbatches, no LM head. Forward F = 13 us, backward 26 us (the planned
  // times equal the roofline's at 0.262144 TFLOPS); a 4096-byte activation over 1 GB/s + 1 us: c = 5.096 us.
  // Stage 0: F0c0 0-13, F1c0 13-26, F0c1 36.192-49.192, F1c1 49.192-62.192, B0c1 98.384-124.384,
  //          B1c1 137.384-163.384, B0c0 163.384-189.384, B1c0 199.576-225.576.
  // Stage 1: F0c0 18.096-31.096, F1c0 31.096-44.096, F0c1 54.288-67.288, B0c1 67.288-93.288,
  //          F1c1 93.288-106.288, B1c1 106.288-132.288, B0c0 132.288-158.288, B1c0 168.48-194.48 (its gradient
  //          arrives at stage 0 at 199.576).
  LlmTrainingSpec s = tiny_spec(1, 1, 2, 2);
  s.model.vocab = 0;
  s.interleaving = 2;
  s.peak_tflops = 0.262144;
  s.planned = PlannerTimes{.block_forward_s = 13e-6, .block_backward_s = 26e-6};
  const std::string dir = (std::filesystem::temp_directory_path() / "chorus_llm_interleaved").string();
  std::filesystem::remove_all(dir);
  const std::string prefix = write_llm_training(dir, s, false);
  const Workload w = load_workload(prefix, dir + "/comm_groups.json");
  const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::us(1)});
  RuntimeOptions options;
  options.lower_bounds = false;
  const RunReport r = run_workload(w, t, options);
  EXPECT_EQ(r.npus[0].finish, Time::ns(225576));
  EXPECT_EQ(r.npus[1].finish, Time::ns(199576));
  EXPECT_EQ(r.npus[0].compute, Time::us(4 * 13 + 4 * 26));
  std::filesystem::remove_all(dir);
}

TEST(LlmTrainingPlanned, BlockingPipelineSendsHoldTheStage) {
  // PP 2 (2 layers per stage), 2 microbatches, 1F1B: F = 2 x 13 = 26 us, B = 52 us, c = 5.096 us per message. With
  // sends on the stream (the planner's pipeline_p2p_overlap false) each stage waits for its sends: stage 0 F0 0-26,
  // send until 31.096, F1 31.096-57.096, send until 62.192; stage 1 F0 31.096-57.096, B0 57.096-109.096, send until
  // 114.192, F1 114.192-140.192, B1 140.192-192.192, send until 197.288; stage 0 B0 114.192-166.192, B1
  // 197.288-249.288. Off the stream stage 1 starts F1 at 109.096, so both finish one message earlier.
  LlmTrainingSpec s = tiny_spec(1, 1, 2, 2);
  s.model.vocab = 0;
  s.peak_tflops = 0.262144;
  s.planned = PlannerTimes{.block_forward_s = 13e-6, .block_backward_s = 26e-6};
  const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::us(1)});
  RuntimeOptions options;
  options.lower_bounds = false;
  const auto finish = [&](bool overlap) {
    s.pipeline_send_overlap = overlap;
    const std::string dir = (std::filesystem::temp_directory_path() / "chorus_llm_blocking_sends").string();
    std::filesystem::remove_all(dir);
    const Workload w = load_workload(write_llm_training(dir, s, false), dir + "/comm_groups.json");
    const RunReport r = run_workload(w, t, options);
    std::filesystem::remove_all(dir);
    return std::make_pair(r.npus[0].finish, r.npus[1].finish);
  };
  EXPECT_EQ(finish(false), std::make_pair(Time::ns(249288), Time::ns(197288)));
  EXPECT_EQ(finish(true), std::make_pair(Time::ns(244192), Time::ns(192192)));
}

const chakra::TraceNode& named(const chakra::ChakraTrace& t, const std::string& name) {
  for (const chakra::TraceNode& n : t.nodes) {
    if (n.name == name)
      return n;
  }
  throw std::runtime_error("no node " + name);
}

TEST(LlmTrainingPlanned, OverlappedTpCollectivesRunBesideTheCompute) {
  // TP 2 with overlap: a half's All-Reduce waits only for what came before the half, as its compute does, and the
  // next half waits for both, so the half lasts the longer of the two.
  LlmTrainingSpec s = tiny_spec(1, 2, 1, 1);
  s.model.vocab = 0;
  s.tp_overlap = true;
  const chakra::ChakraTrace t = llm_rank_trace(s, 0);
  const auto& attention = named(t, "mb0.L1.attn.fwd");
  const auto& reduce = named(t, "mb0.L1.attn.fwd.tp_all_reduce");
  EXPECT_EQ(reduce.data_deps, attention.data_deps);
  const auto& mlp = named(t, "mb0.L1.mlp.fwd");
  EXPECT_NE(std::find(mlp.data_deps.begin(), mlp.data_deps.end(), attention.id), mlp.data_deps.end());
  EXPECT_NE(std::find(mlp.data_deps.begin(), mlp.data_deps.end(), reduce.id), mlp.data_deps.end());
}

TEST(LlmTrainingPlanned, BadInterleavingNamesTheKey) {
  LlmTrainingSpec s = tiny_spec(1, 1, 2, 2);
  s.interleaving = 4;  // 2 x 4 = 8 virtual stages for 4 layers
  EXPECT_THROW(
      {
        try {
          validate(s);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("pipeline_interleaving"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  s.interleaving = 2;
  s.microbatches = 3;  // not a multiple of pp 2
  EXPECT_THROW(validate(s), Error);
}

}  // namespace
}  // namespace chorus
