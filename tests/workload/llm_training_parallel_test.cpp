// The LLM training generator's context parallelism (ring attention), mixture of experts with expert parallelism,
// and ZeRO / FSDP, against node counts, sizes, peers and groups worked out by hand for a tiny model.
#include <algorithm>
#include <filesystem>

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

llm::Application tiny_model() {
  return testing_support::tiny_llm_model();
}  // tiny_llm_model.hpp

// The tiny model with 4 routed experts of 128, top-2, the first block dense.
llm::Application tiny_moe() {
  llm::Application m = tiny_model();
  m.experts = 4;
  m.top_k = 2;
  m.expert_feedforward = 128;
  m.dense_blocks = 1;
  return m;
}

LlmTrainingSpec spec(const llm::Application& m, uint32_t dp, uint32_t tp, uint32_t cp, uint32_t ep = 1) {
  LlmTrainingSpec s;
  s.model = m;
  s.dp = dp;
  s.tp = tp;
  s.cp = cp;
  s.ep = ep;
  s.microbatches = 1;
  return s;
}

size_t count_type(const chakra::ChakraTrace& t, NodeType type) {
  return static_cast<size_t>(
      std::count_if(t.nodes.begin(), t.nodes.end(), [&](const auto& n) { return n.type == type; }));
}

size_t count_coll(const chakra::ChakraTrace& t, CommType c) {
  return static_cast<size_t>(std::count_if(t.nodes.begin(), t.nodes.end(), [&](const auto& n) {
    return n.type == NodeType::CommColl && *n.comm_type == static_cast<int64_t>(c);
  }));
}

const chakra::TraceNode& named(const chakra::ChakraTrace& t, const std::string& name) {
  auto it = std::find_if(t.nodes.begin(), t.nodes.end(), [&](const auto& n) { return n.name == name; });
  if (it == t.nodes.end())
    throw std::runtime_error("no node " + name);
  return *it;
}

TEST(LlmTrainingParallel, RingAttentionPassesKvAroundTheCpGroup) {
  // CP 2 on 2 ranks (rank = cp index). Each attention half: send K/V, chunk 0, receive K/V, chunk 1 (cp - 1 = 1
  // step); the MLP half one node. Forward and backward, 4 layers, plus the LM head forward and backward:
  // compute 4 x (2 + 1) x 2 + 2 = 26, sends 4 x 2 = 8, receives 8, and the gradient All-Reduce over DP x CP = 2
  // ranks: 43 nodes.
  const LlmTrainingSpec s = spec(tiny_model(), 1, 1, 2);
  const chakra::ChakraTrace t = llm_rank_trace(s, 0);
  EXPECT_EQ(t.nodes.size(), 43u);
  EXPECT_EQ(count_type(t, NodeType::Comp), 26u);
  EXPECT_EQ(count_type(t, NodeType::CommSend), 8u);
  EXPECT_EQ(count_type(t, NodeType::CommRecv), 8u);
  EXPECT_EQ(count_coll(t, CommType::AllReduce), 1u);
  // A K/V block: 2 x 16 local tokens x 4 K/V heads x 16 x 2 bytes = 4096 bytes; backward also their gradients.
  const auto& send = named(t, "mb0.L0.attn.fwd.cp0.send_kv");
  EXPECT_EQ(send.comm_size, 4096);
  EXPECT_EQ(*send.comm_dst, 1);
  EXPECT_EQ(named(t, "mb0.L0.attn.bwd.cp0.send_kv").comm_size, 8192);
  // Rank 1 receives it from rank 0 under the same tag.
  const chakra::ChakraTrace other = llm_rank_trace(s, 1);
  const auto& recv = named(other, "mb0.L0.attn.fwd.cp0.recv_kv");
  EXPECT_EQ(*recv.comm_src, 0);
  EXPECT_EQ(*recv.comm_tag, *send.comm_tag);
  EXPECT_NE(*send.comm_tag, *named(t, "mb0.L1.attn.fwd.cp0.send_kv").comm_tag);
  // Each chunk is half the attention of 16 local queries against all 32 keys: (2 x 16 x 64 x 192 + 4 x 16 x 32 x
  // 64 + 2 x 16 x 64 x 64) / 2 = 327,680 FLOPs, half of the CP-free attention's 1,310,720 / 2.
  EXPECT_EQ(named(t, "mb0.L0.attn.fwd.cp0").num_ops, 327680);
  EXPECT_EQ(named(t, "mb0.L0.attn.fwd.cp1").num_ops, 327680);
  // The gradient group is DP x CP: both ranks, group "1" (no TP groups).
  EXPECT_EQ(t.nodes.back().pg_name, "1");
  const auto groups = llm_comm_groups(s);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].npus, (std::vector<uint32_t>{0, 1}));
}

TEST(LlmTrainingParallel, GroupsWithTensorAndContextParallelism) {
  // dp 2, tp 2, cp 2: rank = (dp x 2 + cp) x 2 + tp. TP groups by (dp, cp) "1".."4", then the DP x CP gradient
  // groups by tp: {0, 2, 4, 6} and {1, 3, 5, 7}.
  const LlmTrainingSpec s = spec(tiny_model(), 2, 2, 2);
  EXPECT_EQ(rank_of(s, {1, 1, 0, 1}), 7u);
  const RankCoords c = rank_coords(s, 6);
  EXPECT_EQ(c.dp, 1u);
  EXPECT_EQ(c.cp, 1u);
  EXPECT_EQ(c.tp, 0u);
  const auto groups = llm_comm_groups(s);
  ASSERT_EQ(groups.size(), 6u);
  EXPECT_EQ(groups[1].name, "2");
  EXPECT_EQ(groups[1].npus, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(groups[4].name, "5");
  EXPECT_EQ(groups[4].npus, (std::vector<uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(groups[5].npus, (std::vector<uint32_t>{1, 3, 5, 7}));
  // The K/V ring of rank 2 (dp 0, cp 1, tp 0) goes to rank 0 (cp 0) and comes from it.
  EXPECT_EQ(*named(llm_rank_trace(s, 2), "mb0.L0.attn.fwd.cp0.send_kv").comm_dst, 0);
}

TEST(LlmTrainingParallel, MoeLayersDispatchAndCombineOverTheEpGroup) {
  // dp 2 = ep 2, 4 experts (2 per rank), top-2, block 0 dense. Per pass: the dense block 2 compute nodes, each MoE
  // block attention + router + experts = 3 and two All-to-Alls; with the LM head: compute 2 x (2 + 3 x 3) + 2 = 24,
  // All-to-All 3 x 2 x 2 = 12, one gradient All-Reduce: 37 nodes.
  const LlmTrainingSpec s = spec(tiny_moe(), 2, 1, 1, 2);
  const chakra::ChakraTrace t = llm_rank_trace(s, 1);
  EXPECT_EQ(t.nodes.size(), 37u);
  EXPECT_EQ(count_type(t, NodeType::Comp), 24u);
  EXPECT_EQ(count_coll(t, CommType::AllToAll), 12u);
  EXPECT_EQ(count_coll(t, CommType::AllReduce), 1u);
  // Dispatch: 32 tokens x top-2 x h 64 x 2 bytes = 8192, in the EP group "2" (after the DP group "1").
  const auto& dispatch = named(t, "mb0.L1.mlp.fwd.ep_dispatch");
  EXPECT_EQ(dispatch.comm_size, 8192);
  EXPECT_EQ(dispatch.pg_name, "2");
  EXPECT_EQ(named(t, "mb0.L3.mlp.bwd.ep_combine").comm_size, 8192);
  EXPECT_THROW(named(t, "mb0.L0.mlp.fwd.ep_dispatch"), std::runtime_error);  // block 0 is dense
  // Experts: 64 token slots x (2 x 64 x 128 + 2 x 128 x 64) = 2,097,152 FLOPs; router 2 x 32 x 64 x 4 = 16,384.
  EXPECT_EQ(named(t, "mb0.L1.mlp.fwd.experts").num_ops, 2097152);
  EXPECT_EQ(named(t, "mb0.L1.mlp.fwd.router").num_ops, 16384);
  // The dense gradients: block 0 (49,984 weights) + 3 MoE blocks without their routed experts (attention 16,640 +
  // norms 256 + router 256 = 17,152) + two 128 x 64 embeddings = 117,824 weights, 235,648 bytes. Each expert lives
  // on one rank (DP x CP / EP = 1), so the experts' gradients are not reduced.
  EXPECT_EQ(t.nodes.back().comm_size, 235648);
  EXPECT_EQ(t.nodes.back().pg_name, "1");
  const auto groups = llm_comm_groups(s);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].npus, (std::vector<uint32_t>{0, 1}));
}

TEST(LlmTrainingParallel, ExpertGradientsReduceOverTheRanksHoldingTheSameExperts) {
  // dp 4, ep 2: EP groups {0, 1} and {2, 3}; experts 0-1 live on dp ranks 0 and 2, experts 2-3 on 1 and 3, so the
  // expert gradient groups are {0, 2} and {1, 3}. Each rank's experts: 3 blocks x 2 experts x 16,576 weights x 2
  // bytes = 198,912 bytes, All-Reduced in that group.
  const LlmTrainingSpec s = spec(tiny_moe(), 4, 1, 1, 2);
  const auto groups = llm_comm_groups(s);
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups[0].npus, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(groups[2].npus, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(groups[3].name, "4");
  EXPECT_EQ(groups[3].npus, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(groups[4].npus, (std::vector<uint32_t>{1, 3}));
  const chakra::ChakraTrace t = llm_rank_trace(s, 3);
  const auto& experts = named(t, "dp_all_reduce_gradients.experts");
  EXPECT_EQ(experts.pg_name, "5");
  EXPECT_EQ(experts.comm_size, 198912);
  EXPECT_EQ(named(t, "mb0.L2.mlp.fwd.ep_dispatch").pg_name, "3");
}

TEST(LlmTrainingParallel, Zero3GathersEachLayerAheadAndReduceScattersItsGradients) {
  // dp 2, ZeRO-3, 4 dense blocks of 49,984 weights: per pass the first block's parameters are gathered on the
  // stream and each block gathers the next (4 All-Gathers of 49,984 x 2 / 2 = 49,984 bytes per pass); the
  // backward reduce-scatters each block's 99,968 bytes; at the end only the two embeddings' gradients (2 x 128 x
  // 64 x 2 = 32,768 bytes) remain to reduce-scatter, and nothing is gathered.
  LlmTrainingSpec s = spec(tiny_model(), 2, 1, 1);
  s.fsdp = llm::Fsdp::kZero3;
  s.overlap_dp = true;
  const chakra::ChakraTrace t = llm_rank_trace(s, 0);
  EXPECT_EQ(count_coll(t, CommType::AllGather), 8u);
  EXPECT_EQ(count_coll(t, CommType::ReduceScatter), 5u);
  EXPECT_EQ(count_coll(t, CommType::AllReduce), 0u);
  EXPECT_EQ(named(t, "mb0.L2.fwd.zero3_all_gather").comm_size, 49984);
  EXPECT_EQ(named(t, "mb0.L2.zero_reduce_scatter").comm_size, 99968);
  EXPECT_EQ(named(t, "dp_reduce_scatter_embeddings").comm_size, 32768);
  // Prefetch: block 1's gather waits only for block 0's (issued when block 0 starts); block 1's first node waits
  // for it, block 0's does not.
  const auto& g0 = named(t, "mb0.L0.fwd.zero3_all_gather");
  const auto& g1 = named(t, "mb0.L1.fwd.zero3_all_gather");
  EXPECT_EQ(g1.data_deps, std::vector<uint64_t>{g0.id});
  auto waits_for = [](const chakra::TraceNode& n, uint64_t id) {
    return std::find(n.data_deps.begin(), n.data_deps.end(), id) != n.data_deps.end();
  };
  EXPECT_TRUE(waits_for(named(t, "mb0.L1.attn.fwd"), g1.id));
  EXPECT_FALSE(waits_for(named(t, "mb0.L0.attn.fwd"), g1.id));
  // ZeRO-2: no gathers per block, the same per-block Reduce-Scatters, one parameter All-Gather at the end.
  s.fsdp = llm::Fsdp::kZero2;
  const chakra::ChakraTrace z2 = llm_rank_trace(s, 0);
  EXPECT_EQ(count_coll(z2, CommType::AllGather), 1u);
  EXPECT_EQ(count_coll(z2, CommType::ReduceScatter), 5u);
  // 4 x 49,984 + 2 x 8,192 = 216,320 weights, 432,640 bytes, each rank contributing half.
  EXPECT_EQ(named(z2, "dp_all_gather_parameters").comm_size, 216320);
}

TEST(LlmTrainingParallel, RingAttentionRunMatchesTheHandSchedule) {
  // CP 2 on 2 ranks, one block, no LM head, 1 microbatch. At 0.065536 TFLOPS an attention chunk (327,680 FLOPs) is
  // 5 us and the MLP (16 tokens: 1,048,576 FLOPs) 16 us; backward twice. Links: 1 GB/s, 1 us.
  // Forward: the K/V send (4,096 bytes: 1 + 4.096 us) leaves at 0, chunk 0 runs 0-5, the K/V from the peer has
  // arrived at 5.096, chunk 1 runs 5.096-10.096, the MLP to 26.096. Backward: MLP to 58.096; the K/V + gradient
  // send (8,192 bytes, arriving at 67.288) leaves then, chunk 0 runs to 68.096, chunk 1 to 78.096. Then the
  // gradient All-Reduce of 49,984 bf16 weights (99,968 bytes) over the 2 ranks: a reduce-scatter and an all-gather
  // step of half of it each, 2 x (1 + 49.984) us = 101.968 us: finish 180.064 us.
  LlmTrainingSpec s = spec(tiny_model(), 1, 1, 2);
  s.model.num_blocks = 1;
  s.model.vocab = 0;
  s.peak_tflops = 0.065536;
  const std::string dir = (std::filesystem::temp_directory_path() / "chorus_llm_ring_attention").string();
  std::filesystem::remove_all(dir);
  const Workload w = load_workload(write_llm_training(dir, s, false), dir + "/comm_groups.json");
  const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::us(1)});
  RuntimeOptions options;
  options.lower_bounds = false;
  const RunReport r = run_workload(w, t, options);
  for (const auto& npu : r.npus) {
    EXPECT_EQ(npu.compute, Time::us(2 * 5 + 16 + 2 * 10 + 32));
    EXPECT_EQ(npu.finish, Time::ns(180064));
  }
}

TEST(LlmTrainingParallel, AllParallelismsTogetherRunToTheEnd) {
  // TP 2 x CP 2 x DP 2 (EP 2) x PP 2 with sequence parallelism and ZeRO-3, 2 microbatches: every send finds its
  // receive and every collective its group, so each of the 16 ranks finishes, and ranks of one TP group (same
  // work, same messages) finish together.
  LlmTrainingSpec s = spec(tiny_moe(), 2, 2, 2, 2);
  s.pp = 2;
  s.microbatches = 2;
  s.sequence_parallel = true;
  s.fsdp = llm::Fsdp::kZero3;
  const std::string dir = (std::filesystem::temp_directory_path() / "chorus_llm_all_parallel").string();
  std::filesystem::remove_all(dir);
  const Workload w = load_workload(write_llm_training(dir, s, false), dir + "/comm_groups.json");
  const RunReport r =
      run_workload(w, fully_connected(16, LinkParams{Bandwidth::gb_per_s(100), Time::us(1)}), RuntimeOptions{});
  ASSERT_EQ(r.npus.size(), 16u);
  for (uint32_t rank = 0; rank < 16; ++rank) {
    EXPECT_GT(r.npus[rank].finish, Time::zero()) << rank;
    EXPECT_EQ(r.npus[rank].finish, r.npus[rank ^ 1].finish) << rank;  // TP partner: rank differs in the last bit
  }
}

TEST(LlmTrainingParallel, BadSpecsNameTheArgument) {
  auto error_of = [](const LlmTrainingSpec& s) {
    try {
      validate(s);
    } catch (const Error& e) {
      return e.field();
    }
    return std::string();
  };
  EXPECT_EQ(error_of(spec(tiny_model(), 1, 1, 3)), "cp");     // 3 does not divide 32 tokens
  EXPECT_EQ(error_of(spec(tiny_model(), 2, 1, 1, 2)), "ep");  // a dense model has no experts
  EXPECT_EQ(error_of(spec(tiny_moe(), 2, 1, 1, 4)), "ep");    // 4 does not divide dp 2
  EXPECT_EQ(error_of(spec(tiny_moe(), 1, 1, 0)), "cp");
  EXPECT_EQ(error_of(spec(tiny_moe(), 4, 1, 2, 4)), "");
}

}  // namespace
}  // namespace chorus
