// Symmetric workloads (issue #16 part 2): one representative per rank class gives the full simulation's results,
// and inconsistent class descriptions are refused; the llama3-405b preset and its uneven pipeline stages.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/generate/llm_symmetric.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/load.hpp"
#include "chorus/workload/symmetric_workload.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

LlmTrainingSpec spec_of(uint32_t tp, uint32_t pp, uint32_t dp, uint32_t microbatches) {
  LlmTrainingSpec s;
  llm::Application& m = s.model;
  m.hidden = 64;
  m.feedforward = 256;
  m.seq_size = 32;
  m.attn_heads = 4;
  m.kv_heads = 4;
  m.attn_size = 16;
  m.num_blocks = 4;
  m.vocab = 128;
  s.tp = tp;
  s.pp = pp;
  s.dp = dp;
  s.microbatches = microbatches;
  s.peak_tflops = 0.5;  // microsecond-scale compute next to microsecond-scale messages
  s.mem_bw_gbps = 100;
  return s;
}

Topology network(const std::string& spec) {
  TopologyRequest r;
  r.spec = spec;
  r.bandwidths = {Bandwidth::gb_per_s(10)};
  r.latencies = {Time::us(1)};
  return load_topology(r);
}

// A fresh directory of this test and process: ctest runs each test in its own process, in parallel, and other
// checkouts share the temporary directory, so a fixed name let one test overwrite another's classes.json.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       fmt::format("chorus_symmetric_{}_{}_{}", name,
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
  fs::remove_all(dir);
  return dir;
}

struct Pair {
  Workload full;
  Workload symmetric;
};

Pair write_both(const LlmTrainingSpec& spec, const std::string& name) {
  const fs::path dir = scratch(name);
  const std::string prefix = write_llm_training((dir / "full").string(), spec, false);
  write_llm_training_symmetric((dir / "sym").string(), spec, false);
  Pair p{load_workload(prefix, (dir / "full" / "comm_groups.json").string()),
         load_workload((dir / "sym").string(), "")};
  fs::remove_all(dir);  // both are in memory
  return p;
}

RuntimeOptions options_for(NetworkModelKind model, bool contention) {
  RuntimeOptions o;
  o.model = model;
  o.contention = contention;
  o.link_stats = model != NetworkModelKind::Unaware;
  o.record_timeline = false;
  return o;
}

// Every rank's report, every collective (as many in the full run as the symmetric one's stand for, at the same
// instants) and every link's load agree.
void expect_same(const Pair& p, const RunReport& full, const RunReport& sym, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(sym.finish, full.finish);
  ASSERT_EQ(sym.npus.size(), full.npus.size());
  for (size_t r = 0; r < full.npus.size(); ++r) {
    EXPECT_EQ(sym.npus[r].finish, full.npus[r].finish) << "rank " << r;
    EXPECT_EQ(sym.npus[r].compute, full.npus[r].compute) << "rank " << r;
    EXPECT_EQ(sym.npus[r].exposed_comm, full.npus[r].exposed_comm) << "rank " << r;
    EXPECT_EQ(sym.npus[r].peer_wait, full.npus[r].peer_wait) << "rank " << r;
  }
  size_t stands_for = 0;
  for (const CollectiveReport& c : sym.collectives) {
    stands_for += p.symmetric.symmetry->replicas[c.group].count;
    const auto same = std::count_if(full.collectives.begin(), full.collectives.end(), [&](const CollectiveReport& f) {
      return f.type == c.type && f.comm_size == c.comm_size && f.npus == c.npus && f.start == c.start && f.end == c.end;
    });
    EXPECT_EQ(static_cast<uint32_t>(same) % p.symmetric.symmetry->replicas[c.group].count, 0u);
    EXPECT_GE(same, 1) << "collective at " << c.start.picoseconds() << " ps";
  }
  EXPECT_EQ(stands_for, full.collectives.size());
  ASSERT_EQ(sym.links.has_value(), full.links.has_value());
  if (full.links) {
    for (size_t l = 0; l < full.links->bytes.size(); ++l) {
      EXPECT_DOUBLE_EQ(sym.links->bytes[l], full.links->bytes[l]) << "link " << l;
      EXPECT_EQ(sym.links->busy[l], full.links->busy[l]) << "link " << l;
    }
  }
}

struct Case {
  uint32_t tp, pp, dp;
  const char* topology;
};

// Networks whose dimensions follow the rank order (TP fastest), so every rank of a stage is a translated copy of
// its representative; and a plain ring and star. Times are compared to the picosecond.
TEST(SymmetricWorkload, SameResultsAsTheFullSimulation) {
  const Case cases[] = {
      {2, 2, 4, "torus3d:2x4x2"}, {2, 2, 4, "switch:16"},   {1, 2, 4, "ring:8"},
      {4, 2, 1, "fc:8"},          {2, 4, 2, "torus2d:4x4"},
  };
  for (const Case& c : cases) {
    const LlmTrainingSpec spec = spec_of(c.tp, c.pp, c.dp, 2 * c.pp);
    const Pair p = write_both(spec, fmt::format("{}_{}_{}", c.tp, c.pp, c.dp));
    const Topology t = network(c.topology);
    for (const auto& [model, contention] :
         {std::pair{NetworkModelKind::Unaware, false}, std::pair{NetworkModelKind::Aware, false},
          std::pair{NetworkModelKind::Flow, true}}) {
      const RuntimeOptions o = options_for(model, contention);
      expect_same(
          p, run_workload(p.full, t, o), run_workload(p.symmetric, t, o),
          fmt::format("tp {} pp {} dp {} on {}, model {}", c.tp, c.pp, c.dp, c.topology, static_cast<int>(model)));
    }
  }
}

TEST(SymmetricWorkload, ContextParallelClassesGiveTheFullSimulation) {
  // CP 2: one class per (stage, CP index), so each ring-attention peer of a representative is a representative.
  // tp 2 x cp 2 x dp 2 x pp 2 = 16 ranks, 4 classes of 4.
  LlmTrainingSpec spec = spec_of(2, 2, 2, 4);
  spec.cp = 2;
  const Pair p = write_both(spec, "cp2");
  ASSERT_TRUE(p.symmetric.symmetry.has_value());
  EXPECT_EQ(p.symmetric.symmetry->classes.size(), 4u);
  const Topology t = network("switch:16");
  for (const auto& [model, contention] :
       {std::pair{NetworkModelKind::Unaware, false}, std::pair{NetworkModelKind::Flow, true}}) {
    const RuntimeOptions o = options_for(model, contention);
    expect_same(p, run_workload(p.full, t, o), run_workload(p.symmetric, t, o),
                fmt::format("cp 2, model {}", static_cast<int>(model)));
  }
}

TEST(SymmetricWorkload, OnlyRepresentativesAreSimulated) {
  // TP 2, PP 2, DP 4: 16 ranks in 2 classes of 8; the TP group of rank 0 has 4 copies 2 apart, its DP group 2
  // copies 1 apart; stage 1's representative is rank (1 * 4 + 0) * 2 = 8.
  const Pair p = write_both(spec_of(2, 2, 4, 4), "layout");
  const RankClasses& s = *p.symmetric.symmetry;
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].representative, 0u);
  EXPECT_EQ(s.classes[1].representative, 8u);
  EXPECT_EQ(s.classes[1].size, 8u);
  EXPECT_EQ(p.symmetric.npus.size(), 16u);
  EXPECT_EQ(p.symmetric.node_count(), p.full.npus[0].nodes.size() + p.full.npus[8].nodes.size());
  for (uint32_t g = 1; g < p.symmetric.groups.size(); ++g) {
    const CommGroup& group = p.symmetric.groups[g];
    const bool tp = group.npus.size() == 2;
    EXPECT_EQ(s.replicas[g].count, tp ? 4u : 2u) << group.name;
    EXPECT_EQ(s.replicas[g].stride, tp ? 2u : 1u) << group.name;
    EXPECT_EQ(p.symmetric.issuing_members(g), 1u);
  }
}

TEST(SymmetricWorkload, ContentionOfTheReplicasIsCounted) {
  // 8 ranks of one stage on a ring; the DP groups {0,2,4,6} and {1,3,5,7} route their hops over the same ring
  // links, so the DP All-Reduce under --contention is slower than in isolation. The representative alone would
  // see no one to share with; with its replica's demand added it gets what the full simulation gives.
  const LlmTrainingSpec spec = spec_of(2, 1, 4, 1);
  const Pair p = write_both(spec, "contention");
  const Topology t = network("ring:8");
  const RunReport isolated = run_workload(p.symmetric, t, options_for(NetworkModelKind::Flow, false));
  const RuntimeOptions o = options_for(NetworkModelKind::Flow, true);
  const RunReport full = run_workload(p.full, t, o);
  const RunReport sym = run_workload(p.symmetric, t, o);
  EXPECT_GT(full.finish, isolated.finish);
  expect_same(p, full, sym, "ring:8, tp 2 dp 4");
}

// ---- the llama3-405b preset and uneven stages ----

TEST(Llama3Preset, ShapeFromThePaper) {
  // Dubey et al. 2024, Table 3: 126 layers, model dimension 16384, FFN 53248, 128 heads, 8 KV heads; vocabulary
  // 128256; sequence 8192.
  const auto m = llm::model_preset("llama3-405b");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->num_blocks, 126);
  EXPECT_EQ(m->hidden, 16384);
  EXPECT_EQ(m->feedforward, 53248);
  EXPECT_EQ(m->attn_heads, 128);
  EXPECT_EQ(m->kv_heads, 8);
  EXPECT_EQ(m->attn_size, 128);
  EXPECT_EQ(m->vocab, 128256);
  EXPECT_EQ(m->seq_size, 8192);
  // Parameters: per layer 2*h*q (Q and output projections) + 2*h*kv (K and V, 8 heads of 128) + 3*h*f (SwiGLU)
  // = 536,870,912 + 33,554,432 + 2,617,245,696 = 3,187,671,040; x 126 = 401.65 B, plus the input and output
  // embeddings 2 x 128256 x 16384 = 4.20 B: 405.85 B, the paper's "405B".
  const double per_layer = 2.0 * m->hidden * m->attn_heads * m->attn_size +
                           2.0 * m->hidden * m->kv_heads * m->attn_size + 3.0 * m->hidden * m->feedforward;
  EXPECT_DOUBLE_EQ(per_layer, 3187671040.0);
  EXPECT_NEAR((126 * per_layer + 2.0 * m->vocab * m->hidden) / 1e9, 405.85, 0.005);
}

TEST(Llama3Preset, SixteenStagesHoldSevenEightsAndSeven) {
  LlmTrainingSpec s;
  s.model = *llm::model_preset("llama3-405b");
  s.tp = 8;
  s.pp = 16;
  s.dp = 768;
  s.microbatches = 16;
  EXPECT_NO_THROW(validate(s));
  uint32_t next = 0;
  for (uint32_t p = 0; p < 16; ++p) {
    const StageLayers l = stage_layers(s, p);
    EXPECT_EQ(l.first, next) << "stage " << p;
    EXPECT_EQ(l.count, p == 0 || p == 15 ? 7u : 8u) << "stage " << p;
    next += l.count;
  }
  EXPECT_EQ(next, 126u);
  s.pp = 5;  // 126 % 5 = 1, 128 % 5 = 3
  EXPECT_THROW(validate(s), Error);
}

TEST(Llama3Preset, EightChunksPerStageLeaveTheFirstAndLastChunkEmpty) {
  // Dubey et al. 2024, section 3.3.2: interleaved with V stages per rank, one layer less on the first and the last
  // stage, "the first model chunk on the first stage has only the embedding, and the last model chunk on the last
  // stage has only output projection and loss calculation": 126 + 2 = 16 x 8 virtual stages of one layer.
  LlmTrainingSpec s;
  s.model = *llm::model_preset("llama3-405b");
  s.tp = 8;
  s.pp = 16;
  s.dp = 64;
  s.microbatches = 32;
  s.interleaving = 8;
  EXPECT_NO_THROW(validate(s));
  uint32_t next = 0;
  for (uint32_t vs = 0; vs < 128; ++vs) {
    const StageLayers l = virtual_stage_layers(s, vs);
    EXPECT_EQ(l.first, next) << "virtual stage " << vs;
    EXPECT_EQ(l.count, vs == 0 || vs == 127 ? 0u : 1u) << "virtual stage " << vs;
    next += l.count;
  }
  EXPECT_EQ(next, 126u);
  // Rank 0 holds virtual stages 0, 16, ..., 112 and rank 15 stages 15, ..., 127: 7 layers each, the others 8.
  for (uint32_t p = 0; p < 16; ++p) {
    uint32_t layers = 0;
    for (uint32_t c = 0; c < 8; ++c)
      layers += virtual_stage_layers(s, c * 16 + p).count;
    EXPECT_EQ(layers, stage_layers(s, p).count) << "stage " << p;
  }
  s.interleaving = 4;  // 64 virtual stages: 128 = 2 x 64, two layers each, one in the first and the last
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(virtual_stage_layers(s, 0).count, 1u);
  EXPECT_EQ(virtual_stage_layers(s, 1).first, 1u);
  EXPECT_EQ(virtual_stage_layers(s, 63).count, 1u);
  s.interleaving = 3;  // 48 divides neither 126 nor 128
  EXPECT_THROW(validate(s), Error);
}

// ---- inconsistent class descriptions ----

class BadClasses : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch("bad");
    write_llm_training_symmetric(dir_.string(), spec_of(2, 2, 4, 2), false);
    std::ifstream in(dir_ / kClassesFile);
    json_ = nlohmann::json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Loads the edited classes.json; returns the error's text.
  std::string error_after_edit() {
    std::ofstream(dir_ / kClassesFile) << json_.dump();
    try {
      load_workload(dir_.string(), "");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  void expect_error(const std::vector<std::string>& needles) {
    const std::string e = error_after_edit();
    ASSERT_FALSE(e.empty());
    for (const std::string& n : needles)
      EXPECT_NE(e.find(n), std::string::npos) << e << " does not name " << n;
  }
  fs::path dir_;
  nlohmann::json json_;
};

TEST_F(BadClasses, TheGoodOneLoads) {
  EXPECT_EQ(error_after_edit(), "");
}

TEST_F(BadClasses, ClassesLeaveARankOut) {
  json_["classes"][1]["ranks"][0]["count"] = 7;
  expect_error({"classes.json", "classes", "cover 15 of the 16 ranks", "rank 15"});
}

TEST_F(BadClasses, ClassesOverlap) {
  json_["classes"][0]["ranks"][0]["count"] = 9;
  expect_error({"classes.json", "classes[1].ranks", "rank 8"});
}

TEST_F(BadClasses, RangePastTheRanks) {
  json_["classes"][1]["ranks"][0]["stride"] = 2;
  expect_error({"classes.json", "classes[1].ranks[0]", "rank 22"});
}

TEST_F(BadClasses, RepresentativeOutsideItsClass) {
  json_["classes"][0]["representative"] = 9;
  expect_error({"classes.json", "classes[0].representative", "rank 9"});
}

TEST_F(BadClasses, ReplicasCoverTooLittle) {
  json_["groups"]["1"]["replicas"]["count"] = 3;  // the TP group {0,1}: 3 copies cover 6 of stage 0's 8 ranks
  expect_error({"classes.json", "groups.1", "covers 6 of the 8 ranks of class 'stage 0'"});
}

TEST_F(BadClasses, ReplicasLeaveTheClass) {
  json_["groups"]["1"]["replicas"]["count"] = 5;
  expect_error({"classes.json", "groups.1", "replica 4", "outside that class"});
}

TEST_F(BadClasses, ReplicasOverlap) {
  json_["groups"]["1"]["replicas"]["stride"] = 1;
  expect_error({"classes.json", "groups.1", "overlap at rank 1"});
}

TEST_F(BadClasses, GroupWithoutItsRepresentative) {
  json_["groups"]["1"]["npus"] = {2, 3};  // stage 0's TP group, but rank 0 (the representative) is not in it
  json_["groups"]["1"]["replicas"]["count"] = 3;
  expect_error({"groups.1", "rank 0"});
}

TEST_F(BadClasses, GroupSpanningClassesWithoutTheirIssuers) {
  json_["groups"]["1"]["npus"] = {0, 9};  // holds a rank of stage 1 whose representative (8) is not in it
  json_["groups"]["1"]["replicas"]["count"] = 1;
  expect_error({"groups.1", "class 'stage 1'", "representative, rank 8"});
}

TEST_F(BadClasses, PeerIsNotARepresentative) {
  json_["classes"][1]["representative"] = 9;  // rank 0 still sends its activations to rank 8
  expect_error({"node", "sends to rank 8 of class 'stage 1', whose representative is rank 9"});
}

TEST_F(BadClasses, PeerClassOfAnotherSize) {
  json_["classes"][0]["ranks"][0]["count"] = 7;  // stage 0: ranks 0-6, stage 1: ranks 7-15 (representative 8)
  json_["classes"][1]["ranks"][0] = {{"start", 7}, {"count", 9}, {"stride", 1}};
  expect_error({"node", "class 'stage 1' (9 ranks, representative at position 1)", "class 'stage 0' has 7 ranks"});
}

TEST_F(BadClasses, UndefinedGroup) {
  json_["groups"].erase("1");
  expect_error({"pg_name", "'1'", "classes.json"});
}

TEST_F(BadClasses, WrongVersion) {
  json_["symmetric_workload"] = 2;
  expect_error({"classes.json", "symmetric_workload", "is 2"});
}

TEST_F(BadClasses, TooManyRanks) {
  json_["npus"] = 1 << 22;  // would need a record per rank before the network could say it has 16 NPUs
  expect_error({"classes.json", "npus", "at most 2097152"});
}

TEST_F(BadClasses, MissingTrace) {
  json_["classes"][1]["trace"] = "nowhere.et";
  expect_error({"nowhere.et"});
}

}  // namespace
}  // namespace chorus
