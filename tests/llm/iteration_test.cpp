// The iteration-time model against closed forms (interleaved bubble, 18 bytes per parameter, op times), against
// Calculon's published breakdown where chorus means to agree with it, and the DP-overlap effect of the fix.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/json_fields.hpp"
#include "chorus/llm/validation.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

constexpr double kGiB = 1073741824.0;

System a100() {
  return read_system(testing::calculon("systems/a100_80g.json"));
}

// An A100 whose networks are free (no latency, near-infinite bandwidth): only compute remains.
System a100_free_network() {
  nlohmann::json j = read_json_file(testing::calculon("systems/a100_80g.json"));
  for (auto& n : j["networks"]) {
    n["bandwidth"] = 1e12;
    n["latency"] = 0;
    n["size"] = 65536;
  }
  return parse_system(j, "free");
}

TEST(LlmIteration, TotalIsTheSumOfItsParts) {
  const Application app = read_application(testing::calculon("models/megatron-1T.json"));
  const System sys = a100();
  const Stats st = IterationModel(app, sys).evaluate(
      read_execution(testing::calculon("examples/3072_t4_p64_d12_mbs4_full.json"), app, sys));
  const double sum = st.fw_time + st.bw_time + st.optim_step_time + st.fw_offload_exposed_time +
                     st.bw_offload_exposed_time + st.recompute_time + st.recomm_exposed_time + st.bubble_time +
                     st.tp_comm_exposed_time + st.pp_comm_exposed_time + st.dp_comm_exposed_time + st.head_time;
  EXPECT_NEAR(st.total_time, sum, 1e-9);
  EXPECT_NEAR(st.sample_rate, 3072 / st.total_time, 1e-12);
}

TEST(LlmIteration, AgreesWithCalculonWhereTheModelsCoincide) {
  // llm-model.md section 2.2: megatron-1T on 3,072 A100 (TP4 PP64 DP12, full recompute, rs_ag): fw 15.48 s,
  // recompute 15.48 s, recompute comm 1.24 s, PP 0.60 s, DP 0.70 s. chorus changes the backward (fp32 gradient
  // accumulation traffic), the bubble with it, and adds the LM head; these terms are untouched.
  const Application app = read_application(testing::calculon("models/megatron-1T.json"));
  const System sys = a100();
  const Stats st = IterationModel(app, sys).evaluate(
      read_execution(testing::calculon("examples/3072_t4_p64_d12_mbs4_full.json"), app, sys));
  EXPECT_NEAR(st.fw_time, 15.48, 0.01 * 15.48);
  EXPECT_NEAR(st.recompute_time, 15.48, 0.01 * 15.48);
  EXPECT_NEAR(st.recomm_exposed_time, 1.24, 0.02 * 1.24);
  EXPECT_NEAR(st.pp_comm_exposed_time, 0.60, 0.02 * 0.60);
  // Calculon runs the DP All-Reduce on one flat ring over the NICs; chorus reduces inside each 8-GPU node first (two
  // DP members per node at TP 4, llm/group_spread.hpp), never slower. With 4-GPU nodes (one DP member per node)
  // the two coincide again.
  EXPECT_LT(st.dp_comm_exposed_time, 0.70 * 0.98);
  System one_per_node = sys;
  one_per_node.networks[0].size = 4;
  const Stats flat =
      IterationModel(app, one_per_node)
          .evaluate(read_execution(testing::calculon("examples/3072_t4_p64_d12_mbs4_full.json"), app, one_per_node));
  EXPECT_NEAR(flat.dp_comm_exposed_time, 0.70, 0.02 * 0.70);
  EXPECT_NEAR(flat.pp_comm_exposed_time, 0.60, 0.02 * 0.60);
}

TEST(LlmIteration, InterleavedBubbleIsPMinusOneOverVm) {
  // Narayanan et al. 2021: with free communication, bubble / ideal = (p - 1) / (v m).
  const Application app = paper_application(korthikanti2022_runs()[1]);  // 96 blocks
  const System sys = a100_free_network();
  IterationModel model(app, sys, Options{false, false});
  for (int64_t v : {1, 2, 3}) {
    Execution e;
    e.num_procs = 8;
    e.pipeline_par = 8;
    e.batch_size = 16;
    e.microbatch_size = 1;
    e.pipeline_interleaving = v;
    e.recompute = Recompute::kNone;
    const Stats st = model.evaluate(e);
    const double ideal = st.fw_time + st.bw_time;
    EXPECT_NEAR(st.bubble_time / ideal, 7.0 / (static_cast<double>(v) * 16), 1e-9) << "v=" << v;
  }
}

TEST(LlmIteration, MixedPrecisionCostsEighteenBytesPerParameter) {
  // fp16 weights 2 + fp32 gradients 4 + fp32 master 4 + Adam moments 8; sharding divides the last 12 by DP.
  const Application app = paper_application(korthikanti2022_runs()[0]);
  const System sys = a100();
  IterationModel model(app, sys);
  Execution e = paper_execution(korthikanti2022_runs()[0], Technique::kNone, 0);
  const Stats st = model.evaluate(e);
  const double params = st.block.weights * 48;
  EXPECT_NEAR(st.memory.weight_space + st.memory.weight_grad_space + st.memory.optimizer_space, 18 * params, 1);
  e.num_procs = 32;
  e.data_par = 4;
  e.batch_size = 16;
  e.optimizer_sharding = true;
  const Stats sharded = model.evaluate(e);
  EXPECT_NEAR(sharded.memory.optimizer_space, 12 * params / 4, 1);
}

TEST(LlmIteration, DoesNotFitIsAResultWithTheNumbers) {
  const Application app = read_application(testing::calculon("models/megatron-1T.json"));
  const System sys = a100();
  Execution e = paper_execution(korthikanti2022_runs()[3], Technique::kNone, 0);
  e.pipeline_par = 8;  // 16 blocks per GPU: ~ 18 B x 16 x 983M parameters = 264 GiB > 80 GiB
  e.num_procs = 64;
  e.batch_size = 64;
  const Stats st = IterationModel(app, sys).evaluate(e);
  EXPECT_EQ(st.outcome, Outcome::kDoesNotFit);
  const std::string text = describe_outcome(st, sys);
  EXPECT_EQ(text.rfind("does not fit: needs ", 0), 0u) << text;
  EXPECT_NE(text.find("of 80.00 GiB"), std::string::npos) << text;
  EXPECT_GT(st.memory.tier1, 200 * kGiB);
}

TEST(LlmIteration, NetworkTierTooSmallIsAResult) {
  const Application app = paper_application(korthikanti2022_runs()[1]);
  const System sys = a100();
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kFull, 0);
  e.pipeline_par_net = 0;  // TP 8 x PP 8 = 64 GPUs cannot share an 8-GPU NVLink domain
  EXPECT_EQ(IterationModel(app, sys).evaluate(e).outcome, Outcome::kNetworkTooSmall);
}

TEST(LlmIteration, OffloadMovesStateToTierTwo) {
  const Application app = paper_application(korthikanti2022_runs()[1]);
  const System sys = a100();
  IterationModel model(app, sys);
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, 0);
  const Stats base = model.evaluate(e);
  e.optimizer_offload = true;
  const Stats off = model.evaluate(e);
  EXPECT_NEAR(base.memory.tier1 - off.memory.tier1, base.memory.optimizer_space, 1);
  EXPECT_NEAR(off.memory.tier2, base.memory.optimizer_space, 1);
}

TEST(LlmIteration, FixedRecomputeMakesDataParallelOverlapHelp) {
  // llm-model.md 2.6: with Calculon's bug the DP-overlap window of a full-recompute run shrinks (it can go
  // negative), so overlap exposes more DP time than it should; fixed, overlap never exposes more than no overlap.
  const Application app = read_application(testing::calculon("models/megatron-5B.json"));
  const System sys = a100();
  Execution e;
  e.num_procs = 32;
  e.data_par = 32;
  e.batch_size = 32;
  e.microbatch_size = 1;
  e.recompute = Recompute::kFull;
  e.data_par_net = 1;
  e.optimizer_sharding = false;
  const Stats plain = IterationModel(app, sys).evaluate(e);
  e.data_par_overlap = true;
  const Stats fixed = IterationModel(app, sys).evaluate(e);
  const Stats buggy = IterationModel(app, sys, Options{true, true}).evaluate(e);
  EXPECT_LT(fixed.dp_comm_exposed_time, plain.dp_comm_exposed_time);
  EXPECT_GT(buggy.dp_comm_exposed_time, fixed.dp_comm_exposed_time);
  EXPECT_GT(buggy.total_time, fixed.total_time);
}

// GPT-3 175B on 256 GPUs, TP 8 x PP 8 x DP 4, 16 microbatches of 4, the distributed optimizer, overlapped DP on
// the NIC tier, with ZeRO stage `zero`: the ZeRO-2 tests' job.
Execution gpt3_dp4_sharded(Fsdp zero) {
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, 0);  // TP 8 x PP 8
  e.data_par = 4;
  e.num_procs = 256;
  e.batch_size = 256;
  e.microbatch_size = 4;  // 16 microbatches per pipeline, each long enough to hide a reduce-scatter
  e.data_par_net = 1;
  e.optimizer_sharding = true;
  e.data_par_overlap = true;
  e.fsdp = zero;
  return e;
}

TEST(LlmIteration, ZeroTwoReduceScattersEveryMicrobatchAndGathersOnce) {
  // ZeRO-2 keeps no whole gradient buffer: each of the m microbatches reduce-scatters every block's gradients;
  // the updated weights are all-gathered once per iteration, as ZeRO-1 does. So ZeRO-2's DP link time is ZeRO-1's
  // plus (m - 1) reduce-scatters per block.
  const Application app = paper_application(korthikanti2022_runs()[1]);  // GPT-3 175B, 96 blocks
  const System sys = a100();
  IterationModel model(app, sys);
  const Stats zero1 = model.evaluate(gpt3_dp4_sharded(Fsdp::kZero1));
  const Stats zero2 = model.evaluate(gpt3_dp4_sharded(Fsdp::kZero2));
  const double blocks = 12, microbatches = 16;
  const double block_bytes = zero1.block.weights * 2;  // fp16 gradients of one block on one rank
  const double rs = sys.networks[1].op_time(Collective::kReduceScatter, block_bytes, 4);
  EXPECT_NEAR(zero2.dp_comm_link_time - zero1.dp_comm_link_time, blocks * (microbatches - 1) * rs, 1e-9);
  // Spread over 16 backward passes the reduce-scatters hide: what is exposed is at most the last block's
  // reduce-scatter and gather plus the processor share of the rest, far below the link time.
  const double last = rs + sys.networks[1].op_time(Collective::kAllGather, block_bytes, 4);
  const double u = sys.networks[1].processor_usage;
  EXPECT_NEAR(zero2.dp_comm_exposed_time, last + (zero2.dp_comm_link_time - last) * u, 1e-9);
  EXPECT_LT(zero2.dp_comm_exposed_time, 0.5 * zero2.dp_comm_link_time);
}

TEST(LlmIteration, ZeroTwoReductionsHideBehindLaterForwardsAndTheBubble) {
  // The per-microbatch reduce-scatters run on their own stream from the first backward on. 1F1B on 8 stages with 16
  // microbatches: the first stage runs 8 forwards (7 warm-up, 1 more) before its first backward, so 8 forwards
  // follow it, and it waits out the bubble (7 chunk times) between its last backwards. A DP tier slow enough that
  // the backwards alone cannot hide the reductions exposes only what all of that cannot hide.
  const Application app = paper_application(korthikanti2022_runs()[1]);  // GPT-3 175B, 96 blocks
  System sys = a100();
  sys.networks[1].bytes_per_second /= 2.6;
  Execution e = gpt3_dp4_sharded(Fsdp::kZero2);
  e.pipeline_interleaving = 1;
  const Stats st = IterationModel(app, sys).evaluate(e);
  ASSERT_EQ(st.shape.microbatches, 16);
  ASSERT_EQ(st.shape.blocks_per_proc, 12);
  const double u = sys.networks[1].processor_usage;
  const BlockCost& b = st.block;
  const double backward = (b.bw.time + b.re.time - b.bw.mem_time - b.re.mem_time) / (1 - u);
  const double forward = (b.fw.time - b.fw.mem_time) / (1 - u);
  EXPECT_NEAR(st.bubble_time, 7 * st.chunk_time, 1e-12);
  const double window = 16 * 12 * backward + 8 * 12 * forward + st.bubble_time;
  const double link = st.dp_comm_link_time;
  ASSERT_GT(link, 16 * 12 * backward);  // the backwards alone would leave some exposed
  ASSERT_LT(link, window);              // the whole window hides all but the last block's reductions
  const double last = st.block_dp_time - 15 * st.block_dp_mb_time;
  const double exposed = std::max(last, link - (window - backward));
  EXPECT_NEAR(st.dp_comm_exposed_time, exposed + (link - exposed) * u, 1e-9);
}

TEST(LlmIteration, OverlappedPipelineSendsExposeOnlyWhatAChunkCannotHide) {
  // GPT-3 175B, TP 8 x PP 8, 3 chunks per stage (Korthikanti et al.'s run). Without pipeline_p2p_overlap every send
  // is exposed: 2 x microbatches x chunks x one send. With it (Megatron-Core's overlap_p2p_comm) a send runs beside
  // the next chunk's compute in its direction: a 6 MiB send over the NICs is far below a chunk's 4 blocks of
  // compute, so nothing is exposed and the iteration is shorter by exactly the sends. On a NIC 10^5 times slower
  // each send outlasts its chunk, and only the difference is exposed.
  const Application app = paper_application(korthikanti2022_runs()[1]);
  System sys = a100();
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, 0);
  ASSERT_GT(e.pipeline_interleaving, 1);
  const Stats plain = IterationModel(app, sys).evaluate(e);
  const double sends = 2.0 * plain.shape.microbatches * plain.shape.chunks;
  EXPECT_NEAR(plain.pp_comm_exposed_time, sends * plain.pp_p2p_time, 1e-12);
  e.pipeline_p2p_overlap = true;
  const Stats hidden = IterationModel(app, sys).evaluate(e);
  EXPECT_EQ(hidden.pp_comm_exposed_time, 0.0);
  EXPECT_NEAR(hidden.total_time, plain.total_time - plain.pp_comm_exposed_time, 1e-9);
  EXPECT_NEAR(hidden.pp_comm_link_time, plain.pp_comm_link_time, 1e-12);
  sys.networks[static_cast<size_t>(e.pipeline_par_net)].bytes_per_second *= 1e-5;
  const Stats slow = IterationModel(app, sys).evaluate(e);
  const double bpc = static_cast<double>(slow.shape.blocks_per_chunk);
  const double fw_chunk = bpc * slow.block.fw.time;
  const double bw_chunk = bpc * (slow.block.bw.time + slow.block.re.time);
  ASSERT_GT(slow.pp_p2p_time, std::max(fw_chunk, bw_chunk));
  EXPECT_NEAR(slow.pp_comm_exposed_time, sends / 2 * ((slow.pp_p2p_time - fw_chunk) + (slow.pp_p2p_time - bw_chunk)),
              1e-9);
}

TEST(LlmIteration, OverlappedPipelineSendsNeedTheInterleavedSchedule) {
  const Application app = paper_application(korthikanti2022_runs()[1]);
  const System sys = a100();
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, 0);
  nlohmann::json j = execution_to_json(e, sys);
  j["pipeline_p2p_overlap"] = true;
  EXPECT_NO_THROW(parse_execution(j, "exec.json", app, sys));
  j["pipeline_interleaving"] = 1;
  try {
    parse_execution(j, "exec.json", app, sys);
    ADD_FAILURE() << "accepted without interleaving";
  } catch (const Error& err) {
    EXPECT_EQ(err.source(), "exec.json");
    EXPECT_EQ(err.field(), "pipeline_p2p_overlap");
  }
}

TEST(LlmIteration, ShortLastStageHidesTheLmHeadBehindItsMissingBlock) {
  // 95 blocks on 8 stages: 12 on each but the last, which holds 11 and the LM head. Per microbatch the last stage
  // takes 11 blocks + head, the others 12 blocks, so the head adds max(0, head - block) beyond 12 blocks.
  Application app = paper_application(korthikanti2022_runs()[1]);
  const System sys = a100_free_network();
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, 0);
  e.pipeline_interleaving = 1;
  const Stats even = IterationModel(app, sys).evaluate(e);
  app.num_blocks = 95;
  const Stats shorter = IterationModel(app, sys).evaluate(e);
  const double microbatches = 64;
  EXPECT_NEAR(even.head_time, microbatches * even.head.time, 1e-12);
  const double block = shorter.block.fw.time + shorter.block.bw.time + shorter.block.re.time;
  EXPECT_NEAR(shorter.head_time, microbatches * std::max(0.0, shorter.head.time - block), 1e-12);
  EXPECT_LT(shorter.head_time, even.head_time);
  EXPECT_DOUBLE_EQ(shorter.fw_time, even.fw_time);  // the fullest stage still holds 12 blocks
}

}  // namespace
}  // namespace chorus::llm

namespace chorus::llm {
namespace {

TEST(LlmHardware, StepEfficiencyAndProcessingModes) {
  nlohmann::json j = read_json_file(testing::calculon("systems/a100_80g.json"));
  // 200 GFLOP reaches the 128-GFLOP step (0.95); 10 MB of traffic reaches the 10-MB step (0.75).
  const Hardware no_overlap(parse_system(j, "s"), 0);
  const OpCost c = no_overlap.process(200e9, Unit::kMatrix, 10e6);
  EXPECT_DOUBLE_EQ(c.flop_time, 200e9 / (312e12 * 0.95));
  EXPECT_DOUBLE_EQ(c.mem_time, 10e6 / (2048e9 * 0.75));
  EXPECT_DOUBLE_EQ(c.time, c.flop_time + c.mem_time);
  // 0.5 GFLOP on the vector unit sits on the 0-threshold step (0.1).
  EXPECT_DOUBLE_EQ(no_overlap.flop_time(0.5e9, Unit::kVector), 0.5e9 / (78e12 * 0.1));
  j["processing_mode"] = "roofline";
  const Hardware roofline(parse_system(j, "s"), 0);
  EXPECT_DOUBLE_EQ(roofline.process(200e9, Unit::kMatrix, 10e6).time, c.flop_time);
}

// FP8 training runs its GEMMs in FP8 but stores weights (cast per GEMM) and activations at 16 bits, with fp32
// gradients and optimizer state as in BF16: its memory equals BF16's, its time is lower.
TEST(LlmHardware, Float8StoresWhatBf16Stores) {
  const Application app = paper_application(korthikanti2022_runs()[1]);
  const System sys = read_system(testing::calculon("systems/h100_80g_nvl8.json"));
  Execution e = paper_execution(korthikanti2022_runs()[1], Technique::kSeqSel, sys.datatype_index("float16"));
  const Stats fp16 = IterationModel(app, sys).evaluate(e);
  e.datatype = sys.datatype_index("float8");
  const Stats fp8 = IterationModel(app, sys).evaluate(e);
  EXPECT_DOUBLE_EQ(fp8.memory.weight_space, fp16.memory.weight_space);
  EXPECT_DOUBLE_EQ(fp8.memory.weight_grad_space, fp16.memory.weight_grad_space);  // fp32 either way
  EXPECT_DOUBLE_EQ(fp8.memory.optimizer_space, fp16.memory.optimizer_space);      // fp32 master + 2 moments
  EXPECT_NEAR(fp8.memory.act_space, fp16.memory.act_space, 1e-9 * fp16.memory.act_space);
  EXPECT_LT(fp8.total_time, fp16.total_time);
}

TEST(LlmCli, ValidatePrintsTheTables) {
  const auto r = testing::run_chorus("llm validate --json", "validate_json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("table5").size(), 4u);
  EXPECT_LE(j.at("table5_mean_abs_error").get<double>(), 0.03);
}

}  // namespace
}  // namespace chorus::llm
