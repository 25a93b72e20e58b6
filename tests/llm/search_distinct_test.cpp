// The search's top list holds distinct configurations: keys that cannot matter (the TP comm type at TP 1, ...) do
// not make two, and of two equally fast ones the simpler (fewer optional techniques) wins (issue: Mixtral 8x7B on
// 256 H100s listed one configuration four times).
#include <set>

#include <gtest/gtest.h>

#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

Candidate candidate(double rate, uint64_t ordinal, const Execution& e) {
  return Candidate{rate, ordinal, e, Stats{}};
}

TEST(SearchDistinct, KeysWithoutEffectMakeOneConfiguration) {
  Execution a;  // TP 1, PP 1, DP 8
  a.num_procs = 8;
  a.data_par = 8;
  Execution b = a;
  b.tp_comm = TpCommType::kRsAg;  // no TP group: no TP communication to shape
  b.seq_par_ag_redo = true;
  b.tensor_par_net = 1;
  b.pipeline_par_net = 1;  // no pipeline: no pipeline tier
  EXPECT_EQ(canonical_execution(a).tp_comm, canonical_execution(b).tp_comm);
  TopList top(5);
  top.offer(candidate(10, 2, b));
  top.offer(candidate(10, 1, a));
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top.sorted()[0].ordinal, 1u);  // the same configuration: the first enumerated stays
  Execution c = a;
  c.tensor_par = 2;
  c.data_par = 4;
  Execution d = c;
  d.tp_comm = TpCommType::kRsAg;  // with a TP group the comm type matters: two configurations
  top.offer(candidate(9, 3, c));
  top.offer(candidate(9, 4, d));
  EXPECT_EQ(top.size(), 3u);
}

TEST(SearchDistinct, TiesGoToTheSimplerConfiguration) {
  Execution plain;
  plain.num_procs = 8;
  plain.data_par = 8;
  Execution offloaded = plain;
  offloaded.weight_offload = true;
  TopList top(1);
  top.offer(candidate(10, 1, offloaded));  // enumerated first, equally fast
  top.offer(candidate(10, 7, plain));
  ASSERT_EQ(top.size(), 1u);
  EXPECT_FALSE(top.sorted()[0].execution.weight_offload);
  EXPECT_EQ(execution_complexity(offloaded), 1);
  top.offer(candidate(11, 9, offloaded));  // faster wins whatever it uses
  EXPECT_TRUE(top.sorted()[0].execution.weight_offload);
}

TEST(SearchDistinct, TopListIsDistinctAndEqualsTheExhaustiveOne) {
  // The case: Mixtral 8x7B on 256 H100s, batch up to 1,024, top 10.
  const Application app = read_application(testing::preset("mixtral-8x7b.json"));
  const IterationModel model(app, resolve_system("h100-80gb"));
  SearchSpec spec;
  spec.num_procs = 256;
  spec.max_batch = 1024;
  spec.top_n = 10;
  spec.threads = 2;
  spec.datatype = resolve_system("h100-80gb").datatype_index("float8");
  const SearchResult pruned = run_search(model, spec);
  ASSERT_EQ(pruned.top.size(), 10u);
  // The network tiers count too: TP 2 on the NICs with EP on NVLink is another configuration than both on NVLink.
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int, bool, bool, bool, bool, bool, int, int, int>>
      seen;
  for (const Candidate& c : pruned.top) {
    const Execution e = canonical_execution(c.execution);
    seen.insert({e.tensor_par, e.data_par, e.expert_par, e.microbatch_size, static_cast<int>(e.tp_comm),
                 static_cast<int>(e.tp_overlap), static_cast<int>(e.recompute), e.seq_par_ag_redo, e.weight_offload,
                 e.activations_offload, e.optimizer_offload, e.data_par_overlap, e.tensor_par_net, e.data_par_net,
                 e.expert_par_net});
    if (c.execution.tensor_par == 1) {
      EXPECT_EQ(c.execution.tp_comm, TpCommType::kAr);  // the first enumerated of the equivalent ones
    }
  }
  EXPECT_EQ(seen.size(), 10u);
  spec.prune = false;
  const SearchResult exhaustive = run_search(model, spec);
  ASSERT_EQ(exhaustive.top.size(), pruned.top.size());
  for (size_t i = 0; i < pruned.top.size(); ++i)
    EXPECT_EQ(pruned.top[i].ordinal, exhaustive.top[i].ordinal) << i;
}

}  // namespace
}  // namespace chorus::llm
