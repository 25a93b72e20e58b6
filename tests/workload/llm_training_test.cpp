// The LLM training generator against numbers worked out by hand: Megatron's per-layer FLOP count, byte counts of
// a tiny model, collective and message sizes, the 1F1B order (Narayanan et al. 2021), node and collective counts
// per rank, communicator groups, and an end-to-end run whose finish time is derived step by step.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/workload/tiny_llm_model.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using chakra::NodeType;

llm::Application tiny_model() {
  return testing_support::tiny_llm_model();
}  // tiny_llm_model.hpp

LlmTrainingSpec tiny_spec(uint32_t dp, uint32_t tp, uint32_t pp, uint32_t microbatches) {
  LlmTrainingSpec s;
  s.model = tiny_model();
  s.dp = dp;
  s.tp = tp;
  s.pp = pp;
  s.microbatches = microbatches;
  return s;
}

struct Counts {
  size_t nodes = 0;
  size_t sends = 0;
  size_t receives = 0;
  size_t compute = 0;
  size_t all_reduce = 0;
  size_t all_gather = 0;
  size_t reduce_scatter = 0;
};

Counts count(const chakra::ChakraTrace& t) {
  Counts c;
  c.nodes = t.nodes.size();
  for (const chakra::TraceNode& n : t.nodes) {
    c.sends += n.type == NodeType::CommSend;
    c.receives += n.type == NodeType::CommRecv;
    c.compute += n.type == NodeType::Comp;
    if (n.type != NodeType::CommColl)
      continue;
    c.all_reduce += *n.comm_type == static_cast<int64_t>(CommType::AllReduce);
    c.all_gather += *n.comm_type == static_cast<int64_t>(CommType::AllGather);
    c.reduce_scatter += *n.comm_type == static_cast<int64_t>(CommType::ReduceScatter);
  }
  return c;
}

TEST(LlmTraining, Gpt3LayerFlopsAreMegatrons) {
  // Narayanan et al. 2021, eq. 3: a layer's forward is 24 b s h^2 + 4 b s^2 h FLOPs, split over t TP ranks.
  LlmTrainingSpec s;
  s.model = *llm::model_preset("gpt3-175b");
  s.tp = 8;
  const LayerWork w = layer_forward_work(s);
  const double b = 1, sq = 2048, h = 12288;
  const double megatron = (24 * b * sq * h * h + 4 * b * sq * sq * h) / 8;
  EXPECT_NEAR(w.attention.flops + w.mlp.flops, megatron, megatron * 1e-12);
  // MLP: two GEMMs of b s h 4h, 16 b s h^2 in all.
  EXPECT_NEAR(w.mlp.flops, 16 * b * sq * h * h / 8, 1);
}

TEST(LlmTraining, Llama70bLayerFlopsWithGroupedQueryAttentionAndSwiglu) {
  // QKV: 2*4096*8192*(8192 + 2*1024); scores and A V: 4*4096^2*8192; output: 2*4096*8192^2; over t = 8.
  LlmTrainingSpec s;
  s.model = *llm::model_preset("llama2-70b");
  s.tp = 8;
  const LayerWork w = layer_forward_work(s);
  EXPECT_NEAR(w.attention.flops, (687194767360.0 + 549755813888.0 + 549755813888.0) / 8, 1);
  // Gate, up and down projections: 3 * 2 * 4096 * 8192 * 28672.
  EXPECT_NEAR(w.mlp.flops, 5772436045824.0 / 8, 1);
}

TEST(LlmTraining, TinyLayerWorkByHand) {
  // t = 2, 2-byte elements, b s = 32 tokens.
  const LayerWork w = layer_forward_work(tiny_spec(1, 2, 1, 1));
  // (2*32*64*192 + 4*32*32*64 + 2*32*64*64) / 2
  EXPECT_DOUBLE_EQ(w.attention.flops, 655360);
  // (2*32*64*256 * 2) / 2
  EXPECT_DOUBLE_EQ(w.mlp.flops, 1048576);
  // 2 * (weights 16384/2 + in/out 4096 + QKV 6144 + scores 4*2*1024 + context 2048)
  EXPECT_DOUBLE_EQ(w.attention.bytes, 57344);
  // 2 * (weights 32768/2 + in/out 4096 + up 8192 + activation 8192)
  EXPECT_DOUBLE_EQ(w.mlp.bytes, 73728);
  // Head: 2*32*64*128/2 FLOPs; 2 * (8192/2 + 2048 + 2*32*128/2) bytes.
  const Work head = head_forward_work(tiny_spec(1, 2, 1, 1));
  EXPECT_DOUBLE_EQ(head.flops, 262144);
  EXPECT_DOUBLE_EQ(head.bytes, 2 * (4096 + 2048 + 4096));
}

TEST(LlmTraining, RooflineTakesTheSlowerOfComputeAndMemory) {
  LlmTrainingSpec s = tiny_spec(1, 1, 1, 1);
  s.peak_tflops = 1;
  s.mem_bw_gbps = 1;
  EXPECT_EQ(roofline_time(Work{2e6, 1000}, s), Time::us(2));  // 2e6 / 1e12 s > 1000 / 1e9 s
  EXPECT_EQ(roofline_time(Work{1e3, 5000}, s), Time::us(5));  // memory bound
}

TEST(LlmTraining, MessageAndCollectiveSizes) {
  LlmTrainingSpec s = tiny_spec(2, 2, 2, 3);
  EXPECT_EQ(tp_collective_bytes(s), 1 * 32 * 64 * 2);  // b s h fp16
  EXPECT_EQ(pipeline_message_bytes(s), 4096);
  s.sequence_parallel = true;
  EXPECT_EQ(pipeline_message_bytes(s), 2048);  // the sequence shard of one TP rank
  // Gradients of a stage: 2 layers of 12h^2 + 13h = 49984 parameters / t, plus vocab*h/t for the embedding
  // (first stage) or the output layer (last stage), 2 bytes each.
  EXPECT_EQ(stage_gradient_bytes(s, 0), (2 * 49984 / 2 + 128 * 64 / 2) * 2);
  EXPECT_EQ(stage_gradient_bytes(s, 1), (2 * 49984 / 2 + 128 * 64 / 2) * 2);
  const LlmTrainingSpec one_stage = tiny_spec(2, 2, 1, 1);
  EXPECT_EQ(stage_gradient_bytes(one_stage, 0), (4 * 49984 / 2 + 2 * 128 * 64 / 2) * 2);
}

TEST(LlmTraining, OneFOneBOrder) {
  using P = PipelineStep;
  const Pass F = Pass::Forward;
  const Pass B = Pass::Backward;
  // 4 stages, 6 microbatches: stage 0 warms up with 3 forwards, the last stage alternates from the start.
  EXPECT_EQ(
      one_f_one_b(0, 4, 6),
      (std::vector<P>{{F, 0}, {F, 1}, {F, 2}, {F, 3}, {B, 0}, {F, 4}, {B, 1}, {F, 5}, {B, 2}, {B, 3}, {B, 4}, {B, 5}}));
  EXPECT_EQ(
      one_f_one_b(1, 4, 6),
      (std::vector<P>{{F, 0}, {F, 1}, {F, 2}, {B, 0}, {F, 3}, {B, 1}, {F, 4}, {B, 2}, {F, 5}, {B, 3}, {B, 4}, {B, 5}}));
  EXPECT_EQ(
      one_f_one_b(3, 4, 6),
      (std::vector<P>{{F, 0}, {B, 0}, {F, 1}, {B, 1}, {F, 2}, {B, 2}, {F, 3}, {B, 3}, {F, 4}, {B, 4}, {F, 5}, {B, 5}}));
  // Fewer microbatches than stages: all forwards, then all backwards.
  EXPECT_EQ(one_f_one_b(0, 4, 2), (std::vector<P>{{F, 0}, {F, 1}, {B, 0}, {B, 1}}));
}

TEST(LlmTraining, RanksAndGroupsFollowMegatronsOrder) {
  const LlmTrainingSpec s = tiny_spec(2, 2, 2, 1);
  // rank = (pp * dp + dp_rank) * tp + tp_rank
  EXPECT_EQ(rank_of(s, {1, 1, 1}), 7u);
  const RankCoords c = rank_coords(s, 5);
  EXPECT_EQ(c.dp, 0u);
  EXPECT_EQ(c.tp, 1u);
  EXPECT_EQ(c.pp, 1u);
  const std::vector<NamedGroup> groups = llm_comm_groups(s);
  ASSERT_EQ(groups.size(), 8u);  // 4 TP groups, then 4 DP groups
  EXPECT_EQ(groups[0].name, "1");
  EXPECT_EQ(groups[0].npus, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(groups[3].name, "4");
  EXPECT_EQ(groups[3].npus, (std::vector<uint32_t>{6, 7}));
  EXPECT_EQ(groups[4].name, "5");
  EXPECT_EQ(groups[4].npus, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(groups[7].name, "8");
  EXPECT_EQ(groups[7].npus, (std::vector<uint32_t>{5, 7}));
}

TEST(LlmTraining, NodesAndCollectivesPerRank) {
  // dp 2, tp 2, pp 2, 3 microbatches, 2 layers per stage.
  const LlmTrainingSpec s = tiny_spec(2, 2, 2, 3);
  // Stage 0: forward 2 layers x (2 compute + 2 All-Reduce) + send; backward receive + 8; 3 microbatches; 1 DP AR.
  const Counts first = count(llm_rank_trace(s, 0));
  EXPECT_EQ(first.nodes, 3u * (9 + 9) + 1);
  EXPECT_EQ(first.all_reduce, 3u * 2 * 2 * 2 + 1);
  EXPECT_EQ(first.sends, 3u);
  EXPECT_EQ(first.receives, 3u);
  EXPECT_EQ(first.compute, 3u * 2 * 2 * 2);
  // Last stage: receive + 8 + LM head forward, LM head backward + 8 + send.
  const Counts last = count(llm_rank_trace(s, 7));
  EXPECT_EQ(last.nodes, 3u * (10 + 10) + 1);
  EXPECT_EQ(last.compute, 3u * (2 * 2 * 2 + 2));
  EXPECT_EQ(last.all_reduce, 25u);

  LlmTrainingSpec sp = s;
  sp.sequence_parallel = true;
  sp.distributed_optimizer = true;
  // Each half: All-Gather, compute, Reduce-Scatter; the DP sync is a Reduce-Scatter and an All-Gather.
  const Counts seq = count(llm_rank_trace(sp, 0));
  EXPECT_EQ(seq.nodes, 3u * (13 + 13) + 2);
  EXPECT_EQ(seq.all_gather, 3u * 2 * 2 * 2 + 1);
  EXPECT_EQ(seq.reduce_scatter, 3u * 2 * 2 * 2 + 1);
  EXPECT_EQ(seq.all_reduce, 0u);
}

TEST(LlmTraining, NodeAttributesAndDependencies) {
  LlmTrainingSpec s = tiny_spec(2, 2, 2, 3);
  s.sequence_parallel = true;
  const chakra::ChakraTrace t = llm_rank_trace(s, 5);  // dp 0, tp 1, stage 1
  // First node: receive the activation of microbatch 0 from the same (dp, tp) on stage 0, rank 1, sequence shard.
  const chakra::TraceNode& recv = t.nodes[0];
  EXPECT_EQ(recv.type, NodeType::CommRecv);
  EXPECT_EQ(*recv.comm_src, 1);
  EXPECT_EQ(recv.comm_size, 2048);
  EXPECT_EQ(*recv.comm_tag, 0);
  // Then the attention half: All-Gather of the shard (comm_size = each NPU's input), compute, Reduce-Scatter.
  EXPECT_EQ(t.nodes[1].type, NodeType::CommColl);
  EXPECT_EQ(*t.nodes[1].comm_type, static_cast<int64_t>(CommType::AllGather));
  EXPECT_EQ(t.nodes[1].comm_size, 2048);
  EXPECT_EQ(t.nodes[1].pg_name, "3");  // TP group of (dp 0, stage 1), ranks 4 and 5: 1 + 1*2 + 0
  EXPECT_EQ(t.nodes[2].num_ops, 655360);
  EXPECT_EQ(t.nodes[2].tensor_size, 57344);
  EXPECT_EQ(*t.nodes[3].comm_type, static_cast<int64_t>(CommType::ReduceScatter));
  EXPECT_EQ(t.nodes[3].comm_size, 4096);
  for (size_t i = 1; i < 4; ++i)
    EXPECT_EQ(t.nodes[i].data_deps, std::vector<uint64_t>{i - 1});
  // The last node is the DP All-Reduce on group 1 + 4 + stage 1 * 2 + tp 1 = "8".
  EXPECT_EQ(t.nodes.back().pg_name, "8");
  EXPECT_EQ(t.nodes.back().comm_size, stage_gradient_bytes(s, 1));
}

TEST(LlmTraining, BadSpecsNameTheArgument) {
  // The library names the spec's argument by its keyword (the CLI prints it as --tp, --peak-perf, ...).
  auto error_of = [](const LlmTrainingSpec& s) {
    try {
      validate(s);
    } catch (const Error& e) {
      EXPECT_TRUE(e.names_argument()) << e.what();
      return e.field();
    }
    return std::string();
  };
  EXPECT_EQ(error_of(tiny_spec(1, 3, 1, 1)), "tp");  // 3 does not divide 4 heads
  EXPECT_EQ(error_of(tiny_spec(1, 1, 5, 1)), "pp");  // divides neither 4 blocks nor 4 + 2
  EXPECT_EQ(error_of(tiny_spec(1, 1, 6, 1)), "pp");  // 6 = 4 + 2, but the first and last stage would be empty
  EXPECT_EQ(error_of(tiny_spec(0, 1, 1, 1)), "dp");
  EXPECT_EQ(error_of(tiny_spec(1, 1, 1, 0)), "microbatches");
  LlmTrainingSpec s = tiny_spec(1, 1, 1, 1);
  s.peak_tflops = 0;
  EXPECT_EQ(error_of(s), "peak_perf");
  EXPECT_EQ(error_of(tiny_spec(1, 2, 2, 1)), "");
}

TEST(LlmTraining, PipelineRunMatchesTheHandSchedule) {
  // dp 1, tp 1, pp 2, 2 microbatches, one layer per stage, no LM head. Peak 0.262144 TFLOPS makes the attention
  // half (1310720 FLOPs) 5 us and the MLP half (2097152 FLOPs) 8 us: a forward F = 13 us, a backward 26 us.
  LlmTrainingSpec s = tiny_spec(1, 1, 2, 2);
  s.model.num_blocks = 2;
  s.model.vocab = 0;
  s.peak_tflops = 0.262144;
  const std::string dir = (std::filesystem::temp_directory_path() / "chorus_llm_pipeline").string();
  std::filesystem::remove_all(dir);
  const std::string prefix = write_llm_training(dir, s, false);
  const Workload w = load_workload(prefix, dir + "/comm_groups.json");
  // A 4096-byte activation over a 1 GB/s, 1 us link: c = 1 + 4.096 = 5.096 us.
  const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::us(1)});
  RuntimeOptions options;
  options.lower_bounds = false;
  const RunReport r = run_workload(w, t, options);
  // Stage 1: F0 at 18.096 (13 + c), B0 to 57.096, F1 and B1 to 96.096, gradient 1 arrives at 101.192.
  // Stage 0: F0, F1 to 26; B0 after gradient 0 arrives (57.096 + c = 62.192) to 88.192; B1 from 101.192 to 127.192.
  EXPECT_EQ(r.npus[1].finish, Time::ns(101192));
  EXPECT_EQ(r.npus[0].finish, Time::ns(127192));
  EXPECT_EQ(r.npus[0].compute, Time::us(2 * 13 + 2 * 26));
}

}  // namespace
}  // namespace chorus
