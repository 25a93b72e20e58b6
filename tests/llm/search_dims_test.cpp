// The search's extra dimensions (SearchDims): context parallelism and the ZeRO stages, on a toy case small enough
// to enumerate by hand, and the search's best checked against a brute force over that enumeration.
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

// One block, one head (so TP = PP = 1), 8-token sequences, no LM head.
Application toy() {
  return parse_application({{"hidden", 64},
                            {"feedforward", 256},
                            {"seq_size", 8},
                            {"attn_heads", 1},
                            {"attn_size", 64},
                            {"num_blocks", 1},
                            {"vocab", 0}},
                           "toy.json");
}

// The A100 datasheet preset with a single network tier and no offload tier, so every parallelism has one network
// and no offload flag doubles the space.
System one_tier() {
  nlohmann::json j = *system_preset_json("a100-80gb-datasheet");
  j["networks"] = nlohmann::json::array({j["networks"][1]});
  j["mem2"]["GiB"] = 0;
  return parse_system(j, "one_tier");
}

TEST(LlmSearchDims, ToySpaceCountedByHand) {
  // 4 GPUs, max batch 4, TP = PP = 1, so CP x DP = 4 with CP | seq 8: (CP, DP) = (1, 4), (2, 2), (4, 1); the batch
  // is 4, so the local batch is 4 / DP and the microbatch sizes are its divisors: 1, 2 and 3 of them.
  // Per microbatch size and ZeRO stage: recompute (3) x TP comm (3), where rs_ag without full recompute also has
  // AG redo on/off (2 of the 9 pairs count twice: 11), x DP overlap (2, the gradient group DP x CP = 4 > 1), one
  // network for DP: 22. ZeRO stages: Calculon's optimizer sharding on/off (2), with --fsdp also ZeRO-2 and -3 (4).
  const Application app = toy();
  const System sys = one_tier();
  EXPECT_EQ(search_space_size(app, sys, 4, 4), 22 * 2 * 1);                                   // Calculon: CP 1 only
  EXPECT_EQ(search_space_size(app, sys, 4, 4, {.context_par = true}), 22 * 2 * (1 + 2 + 3));  // 264
  EXPECT_EQ(search_space_size(app, sys, 4, 4, {.fsdp = true}), 22 * 4 * 1);                   // 88
  EXPECT_EQ(search_space_size(app, sys, 4, 4, {.context_par = true, .fsdp = true}), 22 * 4 * (1 + 2 + 3));  // 528
}

TEST(LlmSearchDims, BestIsTheBestOfTheHandEnumeration) {
  // Every configuration of the toy space above, built here by hand and timed: the search's best (pruned or not)
  // has the highest sample rate of those that fit, and the extended space's best is at least the Calculon one.
  const Application app = toy();
  const System sys = one_tier();
  const IterationModel model(app, sys);
  double best = 0;
  int64_t timed = 0;
  for (int64_t cp : {1, 2, 4}) {
    for (Fsdp zero : {Fsdp::kZero1, Fsdp::kNone, Fsdp::kZero2, Fsdp::kZero3}) {
      for (Recompute r : {Recompute::kFull, Recompute::kAttnOnly, Recompute::kNone}) {
        for (TpCommType comm : {TpCommType::kAr, TpCommType::kP2pRsAg, TpCommType::kRsAg}) {
          for (int64_t mbs = 1; mbs <= cp; mbs *= 2) {  // divisors of the local batch 4 / DP = cp
            for (bool redo : {false, true}) {
              if (redo && (comm != TpCommType::kRsAg || r == Recompute::kFull))
                continue;
              for (bool overlap : {false, true}) {
                Execution e;
                e.num_procs = 4;
                e.context_par = cp;
                e.data_par = 4 / cp;
                e.batch_size = 4;
                e.microbatch_size = mbs;
                e.fused_activation = true;
                e.recompute = r;
                e.tp_comm = comm;
                e.seq_par_ag_redo = redo;
                e.data_par_overlap = overlap;
                e.fsdp = zero;
                e.optimizer_sharding = zero != Fsdp::kNone;
                ++timed;
                const Stats st = model.evaluate(e);
                if (st.outcome == Outcome::kOk)
                  best = std::max(best, st.sample_rate);
              }
            }
          }
        }
      }
    }
  }
  ASSERT_EQ(timed, 528);
  ASSERT_GT(best, 0);
  SearchSpec spec;
  spec.num_procs = 4;
  spec.max_batch = 4;
  spec.top_n = 3;
  spec.dims = {.context_par = true, .fsdp = true};
  for (bool prune : {true, false}) {
    spec.prune = prune;
    const SearchResult r = run_search(model, spec);
    EXPECT_EQ(r.enumerated, 528);
    ASSERT_FALSE(r.top.empty());
    EXPECT_DOUBLE_EQ(r.top[0].sample_rate, best);
    EXPECT_DOUBLE_EQ(model.evaluate(r.top[0].execution).sample_rate, best);
  }
  spec.dims = {};
  EXPECT_LE(run_search(model, spec).top[0].sample_rate, best);
}

TEST(LlmSearchDims, StagesMayHoldTheFirstAndLastBlockShort) {
  // As Llama 3 405B (126 blocks on 16 stages of 8, the first and last holding 7): 6 blocks on 4 stages hold 2, 2
  // and the first and last 1 (6 + 2 = 4 x 2), so PP 4 is searched, with v = 1 and v = 2 (8 one-block virtual
  // stages, the first and the last empty). 5 blocks fill neither 2 nor 4 stages that way: PP 1 only.
  const System sys = one_tier();
  for (const auto& [blocks, pps] :
       {std::pair{6, std::set<std::pair<int64_t, int64_t>>{{1, 1}, {2, 1}, {2, 3}, {4, 1}, {4, 2}}},
        std::pair{5, std::set<std::pair<int64_t, int64_t>>{{1, 1}}}}) {
    Application app = toy();
    app.num_blocks = blocks;
    const IterationModel model(app, sys);
    SearchSpec spec;
    spec.num_procs = 4;
    spec.max_batch = 4;
    spec.top_n = 1000000;
    spec.prune = false;
    std::set<std::pair<int64_t, int64_t>> seen;  // (PP, v) of every configuration that fits
    for (const Candidate& c : run_search(model, spec).top)
      seen.insert({c.execution.pipeline_par, c.execution.pipeline_interleaving});
    EXPECT_EQ(seen, pps) << blocks << " blocks";
  }
}

TEST(LlmSearchDims, LongSequencesPickContextParallelism) {
  // 16k-token sequences of a LLaMA-70B-wide block (8 blocks) on 8 H100s: every configuration the search keeps fits
  // in 80 GiB and its CP divides the sequence. Calculon's space has no CP: its best is TP 4 x DP 2; with CP the
  // search finds TP 2 x DP 2 x CP 2 (the same attention-score memory per rank as TP 4, wider GEMMs), which is
  // faster, so the best of the extended space has CP > 1 and a higher rate.
  const System sys = resolve_system("h100-80gb");
  const Application app = parse_application({{"hidden", 8192},
                                             {"feedforward", 28672},
                                             {"seq_size", 16384},
                                             {"attn_heads", 64},
                                             {"kv_heads", 8},
                                             {"attn_size", 128},
                                             {"num_blocks", 8},
                                             {"vocab", 0},
                                             {"mlp", "swiglu"}},
                                            "long.json");
  const IterationModel model(app, sys);
  SearchSpec spec;
  spec.num_procs = 8;
  spec.max_batch = 8;
  spec.datatype = sys.datatype_index("bfloat16");
  spec.top_n = 5;
  const SearchResult calculon = run_search(model, spec);
  spec.dims = {.context_par = true, .fsdp = true};
  const SearchResult r = run_search(model, spec);
  ASSERT_FALSE(r.top.empty());
  ASSERT_FALSE(calculon.top.empty());
  for (const Candidate& c : r.top) {
    EXPECT_LE(c.stats.memory.tier1, sys.mem1.capacity_bytes);
    EXPECT_EQ(app.seq_size % c.execution.context_par, 0);
  }
  EXPECT_GT(r.top[0].execution.context_par, 1);
  EXPECT_GT(r.top[0].sample_rate, calculon.top[0].sample_rate);
}

TEST(LlmSearchDims, CliFlagsReachTheSearch) {
  // `llm search --context-par --fsdp --json` decides the extended space (its size from search_space_size) and
  // reports CP and the ZeRO stage of each execution; the long-sequence model above picks CP 2.
  const std::string model = ::testing::TempDir() + "long_seq_model.json";
  std::ofstream(model) << R"({"hidden": 8192, "feedforward": 28672, "seq_size": 16384, "attn_heads": 64,
      "kv_heads": 8, "attn_size": 128, "num_blocks": 8, "vocab": 0, "mlp": "swiglu"})";
  const auto r = testing::run_chorus("llm search --model " + model +
                                         " --system h100-80gb --gpus 8 --max-batch 8 --datatype bfloat16 --top 2 "
                                         "--threads 1 --context-par --fsdp --json",
                                     "search_dims_cli");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const System sys = resolve_system("h100-80gb");
  EXPECT_EQ(j["evaluated"].get<int64_t>(),
            search_space_size(read_application(model), sys, 8, 8, {.context_par = true, .fsdp = true}));
  EXPECT_EQ(j["top"][0]["execution"]["context_par"], 2);
  EXPECT_TRUE(j["top"][0]["execution"].contains("fsdp"));
}

}  // namespace
}  // namespace chorus::llm
