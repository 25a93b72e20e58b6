// The critical path and blame of small hand-made workloads, every segment and sum worked out by hand: a message
// between two NPUs, a collective waiting for its last member, a node waiting for its NPU's compute resource, and
// the charging of exposed communication where transfers and compute overlap; and the invariants (the path tiles
// the run, the blame adds up) on a generated 3-D parallel iteration under every model.
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/network/model_registry.hpp"

#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/workload/name_patterns.hpp"
#include "workload_builder.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

// Every link 1 GB/s and 1 us: a 1000-byte message between neighbours takes 1 us + 1 us = 2 us.
constexpr LinkParams kLink{Bandwidth::gb_per_s(1), Time::us(1)};

RunReport simulate(const WorkloadBuilder& b, const Topology& topology) {
  const Workload w = load_workload(b.write(), "");
  RuntimeOptions options;
  options.lower_bounds = false;
  options.critical_path = true;
  return run_workload(w, topology, options);
}

const BlameRow& row(const CriticalPath& p, const std::string& name) {
  for (const BlameRow& r : p.blame) {
    if (r.name == name)
      return r;
  }
  throw std::runtime_error("no blame row " + name);
}

TEST(CriticalPath, MessageLinksSenderAndReceiver) {
  // NPU 0 computes 2 us, then sends 1000 B (2 us, arriving at 4 us); NPU 1 posts its receive at 0, then computes
  // 3 us on the data: finish 7 us. Path: NPU 0's compute [0, 2], the message [2, 4], NPU 1's compute [4, 7].
  WorkloadBuilder b("cp_message", 2);
  b.comp(0, 1, 2).name = "produce";
  b.send(0, 2, 1, 1000, 7, {1}).name = "activation";
  b.recv(1, 1, 0, 1000, 7).name = "activation_in";
  b.comp(1, 2, 3, {1}).name = "consume";
  const RunReport r = simulate(b, fully_connected(2, kLink));
  ASSERT_EQ(r.finish, Time::us(7));
  ASSERT_TRUE(r.critical_path);
  const std::vector<PathSegment>& s = r.critical_path->segments;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].kind, PathKind::Compute);
  EXPECT_EQ(s[0].npu, 0u);
  EXPECT_EQ(s[0].end, Time::us(2));
  EXPECT_EQ(s[1].kind, PathKind::P2p);
  EXPECT_EQ(s[1].npu, 0u);  // a message is named by its send
  EXPECT_EQ(s[1].start, Time::us(2));
  EXPECT_EQ(s[1].end, Time::us(4));
  EXPECT_EQ(s[2].npu, 1u);
  EXPECT_EQ(s[2].start, Time::us(4));
  EXPECT_EQ(s[2].end, Time::us(7));
  EXPECT_EQ(r.critical_path->totals.compute, Time::us(5));
  EXPECT_EQ(r.critical_path->totals.p2p, Time::us(2));
  EXPECT_EQ(r.critical_path->totals.sum(), r.finish);
  // Exposed: the sender's transfer [2, 4] with no compute (2 us) and the receiver's [2, 4] (before 2 us it waits
  // for the send: a peer wait), both charged to the message.
  const BlameRow& message = row(*r.critical_path, "activation");
  EXPECT_EQ(message.kind, PathKind::P2p);
  EXPECT_EQ(message.instances, 1u);
  EXPECT_EQ(message.on_path, 1u);
  EXPECT_EQ(message.critical, Time::us(2));
  EXPECT_EQ(message.exposed_npu_time, Time::us(4));
  EXPECT_EQ(r.npus[0].exposed_comm + r.npus[1].exposed_comm, Time::us(4));
}

TEST(CriticalPath, CollectiveGoesThroughItsLastMember) {
  // NPU 0 computes 1 us, NPU 1 6 us, then both All-Reduce 2000 B (a 2-member ring: 2 steps of 1000 B at 2 us each,
  // 4 us): it starts when NPU 1 issues it at 6 us and ends at 10 us. Path: NPU 1's compute, then the collective.
  WorkloadBuilder b("cp_collective", 2);
  b.comp(0, 1, 1).name = "layer3.fwd";
  b.coll(0, 2, CommType::AllReduce, 2000, {1}).name = "layer3.grad_sync";
  b.comp(1, 1, 6).name = "layer12.fwd";
  b.coll(1, 2, CommType::AllReduce, 2000, {1}).name = "layer3.grad_sync";
  const RunReport r = simulate(b, fully_connected(2, kLink));
  ASSERT_EQ(r.finish, Time::us(10));
  const std::vector<PathSegment>& s = r.critical_path->segments;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].npu, 1u);
  EXPECT_EQ(s[0].end, Time::us(6));
  EXPECT_EQ(s[1].kind, PathKind::Collective);
  EXPECT_EQ(s[1].start, Time::us(6));
  EXPECT_EQ(s[1].end, Time::us(10));
  EXPECT_EQ(s[1].collective, 0);
  EXPECT_EQ(r.critical_path->totals.compute, Time::us(6));
  EXPECT_EQ(r.critical_path->totals.collective, Time::us(4));
  // Digits are wildcards: both compute nodes are one row, 2 instances, 6 us on the path.
  const BlameRow& fwd = row(*r.critical_path, "layer#.fwd");
  EXPECT_EQ(fwd.instances, 2u);
  EXPECT_EQ(fwd.on_path, 1u);
  EXPECT_EQ(fwd.critical, Time::us(6));
  // One collective instance; each NPU moves data 4 us with no compute (NPU 0's 5 us before are a peer wait).
  const BlameRow& sync = row(*r.critical_path, "layer#.grad_sync");
  EXPECT_EQ(sync.instances, 1u);
  EXPECT_EQ(sync.critical, Time::us(4));
  EXPECT_EQ(sync.exposed_npu_time, Time::us(8));
}

TEST(CriticalPath, ResourceHolderReleasesTheNextNode) {
  // NPU 0: two independent compute nodes, one GPU compute at a time: A [0, 2], then B [2, 5] (A released B).
  WorkloadBuilder b("cp_resource", 2);
  b.comp(0, 1, 2).name = "a";
  b.comp(0, 2, 3).name = "b";
  b.comp(1, 1, 1).name = "c";
  const RunReport r = simulate(b, fully_connected(2, kLink));
  ASSERT_EQ(r.finish, Time::us(5));
  const std::vector<PathSegment>& s = r.critical_path->segments;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, 0u);
  EXPECT_EQ(s[0].end, Time::us(2));
  EXPECT_EQ(s[1].node, 1u);
  EXPECT_EQ(s[1].start, Time::us(2));
  EXPECT_EQ(row(*r.critical_path, "c").on_path, 0u);
}

TEST(CriticalPath, ExposedTimeGoesToTheFirstTransferCoveringIt) {
  // Transfers a [0, 10] and b [5, 15]; compute [2, 4] and [12, 20]. a: 10 - 2 = 8 us exposed; b gets only
  // [10, 15] (a covers the rest), minus compute [12, 15]: 2 us. Together 10 us = 15 us of transfer - 5 us hidden.
  const auto us = [](int64_t v) { return Time::us(v); };
  std::vector<std::tuple<Time, Time, uint32_t>> transfers = {{us(5), us(15), 2}, {us(0), us(10), 1}};
  const auto charged = charge_exposed(transfers, {{us(2), us(4)}, {us(12), us(20)}});
  ASSERT_EQ(charged.size(), 2u);
  EXPECT_EQ(charged[0], std::make_pair(1u, us(8)));
  EXPECT_EQ(charged[1], std::make_pair(2u, us(2)));
  // A transfer entirely inside an earlier one gets nothing.
  std::vector<std::tuple<Time, Time, uint32_t>> nested = {{us(0), us(10), 1}, {us(2), us(3), 2}};
  EXPECT_EQ(charge_exposed(nested, {}).size(), 1u);
}

TEST(CriticalPath, ExposedTimeGoesFirstToTheTransferTheStreamWaitedFor) {
  // The same transfers, b now blocking (a compute node waited for it): b [5, 15] minus compute [12, 15] = 7 us;
  // a gets what neither compute nor b covers, [0, 2] and [4, 5] = 3 us. Still 10 us in all.
  const auto us = [](int64_t v) { return Time::us(v); };
  std::vector<std::tuple<Time, Time, uint32_t>> transfers = {{us(5), us(15), 2}, {us(0), us(10), 1}};
  const std::vector<bool> blocking = {false, false, true};
  const auto charged = charge_exposed_blocking_first(transfers, {{us(2), us(4)}, {us(12), us(20)}}, blocking);
  ASSERT_EQ(charged.size(), 2u);
  EXPECT_EQ(charged[0], std::make_pair(2u, us(7)));
  EXPECT_EQ(charged[1], std::make_pair(1u, us(3)));
  // The transfers come back sorted by start, as the merge of the NPU's transfer spans needs.
  ASSERT_EQ(transfers.size(), 2u);
  EXPECT_EQ(std::get<2>(transfers[0]), 1u);
  // Nothing blocking: the first-started rule.
  std::vector<std::tuple<Time, Time, uint32_t>> plain = {{us(5), us(15), 2}, {us(0), us(10), 1}};
  const auto first = charge_exposed_blocking_first(plain, {{us(2), us(4)}, {us(12), us(20)}}, {});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0], std::make_pair(1u, us(8)));
  EXPECT_EQ(first[1], std::make_pair(2u, us(2)));
}

TEST(CriticalPath, BlameNamesReadDigitRunsAsWildcards) {
  EXPECT_EQ(name_pattern("mb12.L3.attn.fwd"), "mb#.L#.attn.fwd");
  EXPECT_EQ(name_pattern("42"), "#");
  EXPECT_EQ(name_pattern("dp_all_reduce"), "dp_all_reduce");
}

TEST(CriticalPath, BoundingDimensionIsTheSlowestSpanned) {
  // 2 x 4 NPUs: dimension 0 a ring of 2 at 50 GB/s, dimension 1 a switch of 4 at 25 GB/s.
  const Topology t = compose({{BlockKind::Ring, 2, Bandwidth::gb_per_s(50), Time::ns(500)},
                              {BlockKind::Switch, 4, Bandwidth::gb_per_s(25), Time::ns(1000)}});
  EXPECT_EQ(bounding_dimension(t, {0, 1}), 0u);
  EXPECT_EQ(bounding_dimension(t, {0, 2, 4, 6}), 1u);
  EXPECT_EQ(bounding_dimension(t, {0, 1, 2, 3, 4, 5, 6, 7}), 1u);
  EXPECT_EQ(bounding_dimension(t, {3}), std::nullopt);
}

// On a generated 3-D parallel iteration (DP 2 x TP 2 x PP 2, sequence parallel, 3 microbatches: collectives of
// two group kinds, pipeline messages, overlap), under every model, with contention, without resource limits and
// with an overlap slowdown, the invariants that hold by construction: the segments are contiguous and tile
// [0, finish], the totals add up to finish, and the blame rows' exposed time adds up to the NPUs' exposed_comm.
TEST(CriticalPath, TilesTheRunAndBlameAddsUpUnderEveryModel) {
  LlmTrainingSpec spec;
  spec.model = *llm::model_preset("gpt3-1.3b");
  spec.dp = 2;
  spec.tp = 2;
  spec.pp = 2;
  spec.microbatches = 3;
  spec.sequence_parallel = true;
  const std::string dir = (std::filesystem::temp_directory_path() / "chorus_cp_llm").string();
  const std::string prefix = write_llm_training(dir, spec, false);
  const Workload w = load_workload(prefix, dir + "/comm_groups.json");
  const Topology t = compose({{BlockKind::Switch, 2, Bandwidth::gb_per_s(300), Time::ns(700)},
                              {BlockKind::Switch, 4, Bandwidth::gb_per_s(25), Time::ns(2000)}});
  struct Case {
    NetworkModelKind model;
    bool contention;
    bool limits;
    double slowdown;
  };
  for (const Case c :
       {Case{NetworkModelKind::Unaware, false, true, 0}, Case{NetworkModelKind::Aware, false, true, 0},
        Case{NetworkModelKind::Flow, false, true, 0}, Case{NetworkModelKind::Flow, true, true, 0},
        Case{NetworkModelKind::Unaware, false, false, 0}, Case{NetworkModelKind::Flow, false, true, 0.4}}) {
    RuntimeOptions o;
    o.model = c.model;
    o.contention = c.contention;
    o.resource_limits = c.limits;
    o.overlap_slowdown = c.slowdown;
    o.critical_path = true;
    const RunReport r = run_workload(w, t, o);
    const std::string what = fmt::format("model {} contention {} limits {} slowdown {}", to_string(c.model),
                                         c.contention, c.limits, c.slowdown);
    const CriticalPath& p = *r.critical_path;
    ASSERT_FALSE(p.segments.empty()) << what;
    EXPECT_EQ(p.segments.front().start, Time::zero()) << what;
    EXPECT_EQ(p.segments.back().end, r.finish) << what;
    for (size_t i = 1; i < p.segments.size(); ++i)
      EXPECT_EQ(p.segments[i].start, p.segments[i - 1].end) << what << ", segment " << i;
    EXPECT_EQ(p.totals.sum(), r.finish) << what;
    EXPECT_GT(p.totals.collective, Time::zero()) << what;
    EXPECT_GT(p.totals.compute, Time::zero()) << what;
    Time exposed_rows = Time::zero();
    for (const BlameRow& b : p.blame)
      exposed_rows += b.exposed_npu_time;
    Time exposed_npus = Time::zero();
    for (const NpuReport& n : r.npus)
      exposed_npus += n.exposed_comm;
    EXPECT_EQ(exposed_rows, exposed_npus) << what;
  }
}

}  // namespace
}  // namespace chorus
