// The workload runtime on small hand-made workloads whose times are worked out by hand in each test:
// replayed compute, resource rules, point-to-point messages, collectives waiting for their last member,
// communicator subgroups, the exposed-communication accounting, deadlock reports and bad input.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "workload_builder.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

// Every link 1 GB/s and 1 us: a 1000-byte message between neighbours takes 1 us + 1 us = 2 us.
constexpr LinkParams kLink{Bandwidth::gb_per_s(1), Time::us(1)};

RunReport simulate(const WorkloadBuilder& b, const Topology& topology, const std::string& groups = "",
                   bool limits = true) {
  const Workload w = load_workload(b.write(), groups);
  RuntimeOptions options;
  options.resource_limits = limits;
  options.lower_bounds = false;
  return run_workload(w, topology, options);
}

std::string deadlock_of(const WorkloadBuilder& b, const Topology& topology) {
  try {
    simulate(b, topology);
  } catch (const DeadlockError& e) {
    return e.what();
  }
  return "";
}

std::string error_of(const WorkloadBuilder& b, const Topology& topology, const std::string& groups = "") {
  try {
    simulate(b, topology, groups);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Runtime, ComputeChainAndResourceRule) {
  WorkloadBuilder b("compute", 2);
  b.comp(0, 1, 2);
  b.comp(0, 2, 3);  // independent of node 1, but one GPU compute at a time: 2 + 3 = 5 us
  b.comp(1, 1, 4);
  b.comp(1, 2, 6, {1});  // chain: 10 us
  const Topology t = fully_connected(2, kLink);
  const RunReport r = simulate(b, t);
  EXPECT_EQ(r.npus[0].finish, Time::us(5));
  EXPECT_EQ(r.npus[1].finish, Time::us(10));
  EXPECT_EQ(r.finish, Time::us(10));
  EXPECT_EQ(r.npus[0].compute, Time::us(5));
  EXPECT_EQ(r.npus[0].idle, Time::zero());
  // without the rule both compute nodes of NPU 0 run at once: max(2, 3) = 3 us
  EXPECT_EQ(simulate(b, t, "", false).npus[0].finish, Time::us(3));
}

TEST(Runtime, CpuOperatorsAreReportedAsCpuTimeNotIdle) {
  // A CPU run (gloo): NPU 0 runs a 4 us CPU operator, NPU 1 a 6 us one, then both All-Reduce 2000 B (a 2-member
  // ring: 2 steps of 1000 B at 1 us + 1 us = 4 us, from 6 us to 10 us), then 3 us and 1 us of CPU operators.
  WorkloadBuilder b("cpu_run", 2);
  b.comp(0, 1, 4).is_cpu_op = true;
  b.coll(0, 2, CommType::AllReduce, 2000, {1});
  b.comp(0, 3, 3, {2}).is_cpu_op = true;
  b.comp(1, 1, 6).is_cpu_op = true;
  b.coll(1, 2, CommType::AllReduce, 2000, {1});
  b.comp(1, 3, 1, {2}).is_cpu_op = true;
  const RunReport r = simulate(b, fully_connected(2, kLink));
  EXPECT_EQ(r.npus[0].finish, Time::us(13));
  EXPECT_EQ(r.npus[0].cpu, Time::us(7));
  EXPECT_EQ(r.npus[0].compute, Time::zero());
  EXPECT_EQ(r.npus[0].exposed_comm, Time::us(4));
  EXPECT_EQ(r.npus[0].peer_wait, Time::us(2));
  EXPECT_EQ(r.npus[0].idle, Time::zero());
  EXPECT_EQ(r.npus[1].finish, Time::us(11));
  EXPECT_EQ(r.npus[1].cpu, Time::us(7));
  EXPECT_EQ(r.npus[1].idle, Time::zero());
  EXPECT_EQ(r.compute_sources.cpu_ops, 4u);
  EXPECT_EQ(r.compute_sources.replayed, 0u);
  // A GPU trace: a CPU operator beside a GPU kernel is the kernel's time, not CPU time; one after it is.
  WorkloadBuilder g("cpu_beside_gpu", 2);
  g.comp(0, 1, 5);
  g.comp(1, 1, 1);
  g.comp(0, 2, 3).is_cpu_op = true;
  g.comp(0, 3, 2, {1}).is_cpu_op = true;
  const RunReport q = simulate(g, fully_connected(2, kLink));
  EXPECT_EQ(q.npus[0].finish, Time::us(7));
  EXPECT_EQ(q.npus[0].compute, Time::us(5));
  EXPECT_EQ(q.npus[0].cpu, Time::us(2));
  EXPECT_EQ(q.npus[0].idle, Time::zero());
  EXPECT_EQ(q.compute_sources.replayed, 2u);
}

TEST(Runtime, SendReceiveMatchedByTagInOrder) {
  WorkloadBuilder b("p2p", 2);
  b.comp(0, 1, 5);
  b.send(0, 2, 1, 1000, 7, {1});  // leaves at 5 us, arrives at 7 us
  b.recv(1, 1, 0, 1000, 7);       // posted at 0, done at 7 us
  b.comp(1, 2, 3, {1});           // 7..10 us
  const RunReport r = simulate(b, fully_connected(2, kLink));
  EXPECT_EQ(r.npus[0].finish, Time::us(7));
  EXPECT_EQ(r.npus[1].finish, Time::us(10));
  EXPECT_EQ(r.npus[1].compute, Time::us(3));
  EXPECT_EQ(r.npus[1].peer_wait, Time::us(5));     // until NPU 0 sends at 5 us
  EXPECT_EQ(r.npus[1].exposed_comm, Time::us(2));  // then the message moves
  EXPECT_EQ(r.npus[0].exposed_comm, Time::us(2));
}

TEST(Runtime, ReceivePostedAfterArrivalCompletesAtOnce) {
  WorkloadBuilder b("late_recv", 2);
  b.send(0, 1, 1, 1000, 0);  // arrives at 2 us
  b.comp(1, 1, 10);
  b.recv(1, 2, 0, 1000, 0, {1});  // posted at 10 us: the data is there
  const RunReport r = simulate(b, fully_connected(2, kLink));
  EXPECT_EQ(r.npus[1].finish, Time::us(10) + Time::ns(0));
}

TEST(Runtime, CollectiveStartsWhenTheLastMemberIssuesIt) {
  // Native ring All-Reduce of 2000 B on 2 NPUs: 2 steps of 1000 B, each 1 us + 1 us = 4 us in all.
  WorkloadBuilder b("coll", 2);
  b.comp(0, 1, 10);
  b.coll(0, 2, CommType::AllReduce, 2000, {1});
  b.coll(1, 1, CommType::AllReduce, 2000);
  const RunReport r = simulate(b, fully_connected(2, kLink));
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].first_issue, Time::zero());
  EXPECT_EQ(r.collectives[0].start, Time::us(10));
  EXPECT_EQ(r.collectives[0].end, Time::us(14));
  EXPECT_EQ(r.npus[0].exposed_comm, Time::us(4));
  EXPECT_EQ(r.npus[0].peer_wait, Time::zero());
  // NPU 1 issued it at 0 and waited 10 us for NPU 0: that is waiting for a peer, not exposed communication.
  EXPECT_EQ(r.npus[1].peer_wait, Time::us(10));
  EXPECT_EQ(r.npus[1].exposed_comm, Time::us(4));
  EXPECT_EQ(r.npus[1].compute, Time::zero());
  EXPECT_EQ(r.npus[1].idle, Time::zero());
}

TEST(Runtime, PipelineStageWaitingOnASendIsPeerWaitNotExposedComm) {
  // A 2-stage pipeline: stage 0 computes 10 us and sends 1000 B (1 us + 1 us = 2 us) to stage 1, which posted its
  // receive at 0 and then computes 5 us. Stage 1: waits for the send [0, 10], receives [10, 12], computes
  // [12, 17]. Stage 0: computes [0, 10], sends [10, 12].
  WorkloadBuilder b("pipeline_wait", 2);
  b.comp(0, 1, 10);
  b.send(0, 2, 1, 1000, 7, {1});
  b.recv(1, 1, 0, 1000, 7);
  b.comp(1, 2, 5, {1});
  const RunReport r = simulate(b, fully_connected(2, kLink));
  EXPECT_EQ(r.npus[0].finish, Time::us(12));
  EXPECT_EQ(r.npus[0].compute, Time::us(10));
  EXPECT_EQ(r.npus[0].exposed_comm, Time::us(2));
  EXPECT_EQ(r.npus[0].peer_wait, Time::zero());
  EXPECT_EQ(r.npus[0].idle, Time::zero());
  EXPECT_EQ(r.npus[1].finish, Time::us(17));
  EXPECT_EQ(r.npus[1].compute, Time::us(5));
  EXPECT_EQ(r.npus[1].exposed_comm, Time::us(2));
  EXPECT_EQ(r.npus[1].peer_wait, Time::us(10));
  EXPECT_EQ(r.npus[1].idle, Time::zero());
}

TEST(Runtime, CommunicatorSubgroupsRunIndependently) {
  // groups {0,1} and {2,3} on a 4-NPU fully connected network: each a 2-member ring, 4 us for 2000 B;
  // the group {2,3} starts its second collective only after its first (one collective in flight): 8 us.
  WorkloadBuilder b("groups", 4);
  b.coll(0, 1, CommType::AllReduce, 2000, {}, "a");
  b.coll(1, 1, CommType::AllReduce, 2000, {}, "a");
  for (uint32_t npu : {2u, 3u}) {
    b.coll(npu, 1, CommType::AllReduce, 2000, {}, "b");
    b.coll(npu, 2, CommType::AllReduce, 2000, {}, "b");
  }
  const std::string groups = b.file("groups.json", R"({"a": [0, 1], "b": [2, 3]})");
  const RunReport r = simulate(b, fully_connected(4, kLink), groups);
  EXPECT_EQ(r.npus[0].finish, Time::us(4));
  EXPECT_EQ(r.npus[2].finish, Time::us(8));
  EXPECT_EQ(r.collectives.size(), 3u);
}

TEST(Runtime, ComputeOverlapsCommunication) {
  // NPU 0: a 3 us compute and an independent 4 us All-Reduce at once: finish 4 us, exposed 1 us.
  WorkloadBuilder b("overlap", 2);
  b.comp(0, 1, 3);
  b.coll(0, 2, CommType::AllReduce, 2000);
  b.coll(1, 1, CommType::AllReduce, 2000);
  const RunReport r = simulate(b, fully_connected(2, kLink));
  EXPECT_EQ(r.npus[0].finish, Time::us(4));
  EXPECT_EQ(r.npus[0].compute, Time::us(3));
  EXPECT_EQ(r.npus[0].exposed_comm, Time::us(1));
  EXPECT_EQ(r.npus[0].idle, Time::zero());
}

TEST(RuntimeDeadlock, ReceiveWithoutSend) {
  WorkloadBuilder b("dl_recv", 2);
  b.recv(1, 4, 0, 1000, 9);
  b.comp(0, 1, 1);
  const std::string e = deadlock_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("NPU 1"), std::string::npos) << e;
  EXPECT_NE(e.find("node 4"), std::string::npos) << e;
  EXPECT_NE(e.find("no matching send"), std::string::npos) << e;
}

TEST(RuntimeDeadlock, CollectiveSomeMembersNeverReach) {
  WorkloadBuilder b("dl_coll", 3);
  b.coll(0, 1, CommType::AllReduce, 3000);
  b.coll(1, 1, CommType::AllReduce, 3000);
  b.comp(2, 1, 1);
  const std::string e = deadlock_of(b, fully_connected(3, kLink));
  EXPECT_NE(e.find("never reached by NPU(s) 2"), std::string::npos) << e;
}

TEST(RuntimeDeadlock, DependencyCycle) {
  WorkloadBuilder b("dl_cycle", 2);
  b.comp(0, 1, 1);
  b.comp(0, 2, 1, {1, 3});
  b.comp(0, 3, 1, {2});
  b.comp(1, 1, 1);
  const std::string e = deadlock_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("dependency cycle"), std::string::npos) << e;
  EXPECT_NE(e.find("NPU 0"), std::string::npos) << e;
  EXPECT_EQ(e.find("NPU 1 "), std::string::npos) << e;
}

TEST(RuntimeBadInput, MismatchedSendReceiveSizes) {
  WorkloadBuilder b("bad_sizes", 2);
  b.send(0, 1, 1, 1000, 0);
  b.recv(1, 2, 0, 999, 0);
  const std::string e = error_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("w.1.et"), std::string::npos) << e;
  EXPECT_NE(e.find("node 2"), std::string::npos) << e;
}

TEST(RuntimeBadInput, CollectiveOfSizeZero) {
  WorkloadBuilder b("bad_zero", 2);
  b.coll(0, 1, CommType::AllReduce, 0);
  b.coll(1, 1, CommType::AllReduce, 0);
  const std::string e = error_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("w.0.et: node 1"), std::string::npos) << e;
}

TEST(RuntimeBadInput, GroupNamingAnAbsentNpu) {
  WorkloadBuilder b("bad_group", 2);
  b.coll(0, 1, CommType::AllReduce, 100, {}, "1");
  b.coll(1, 1, CommType::AllReduce, 100, {}, "1");
  const std::string groups = b.file("groups.json", R"({"1": [0, 5]})");
  const std::string e = error_of(b, fully_connected(2, kLink), groups);
  EXPECT_NE(e.find("NPU 5"), std::string::npos) << e;
}

TEST(RuntimeBadInput, UndefinedGroupNamesTheNode) {
  WorkloadBuilder b("bad_pg", 2);
  b.coll(0, 3, CommType::AllReduce, 100, {}, "tp7");
  b.coll(1, 3, CommType::AllReduce, 100, {}, "tp7");
  const std::string e = error_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("node 3"), std::string::npos) << e;
  EXPECT_NE(e.find("tp7"), std::string::npos) << e;
}

TEST(RuntimeBadInput, MismatchedCollectives) {
  WorkloadBuilder b("bad_coll", 2);
  b.coll(0, 1, CommType::AllReduce, 100);
  b.coll(1, 1, CommType::AllGather, 100);
  EXPECT_NE(error_of(b, fully_connected(2, kLink)).find("ALL_GATHER"), std::string::npos);
}

TEST(RuntimeBadInput, MissingDependency) {
  WorkloadBuilder b("bad_dep", 2);
  b.comp(0, 1, 1, {99});
  b.comp(1, 1, 1);
  const std::string e = error_of(b, fully_connected(2, kLink));
  EXPECT_NE(e.find("node 1"), std::string::npos) << e;
  EXPECT_NE(e.find("99"), std::string::npos) << e;
}

TEST(RuntimeBadInput, MissingRankFile) {
  WorkloadBuilder b("bad_rank", 3);
  b.comp(0, 1, 1);
  b.comp(1, 1, 1);
  b.comp(2, 1, 1);
  const std::string prefix = b.write();
  std::filesystem::remove(prefix + ".1.et");
  try {
    load_workload(prefix, "");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w.1.et"), std::string::npos) << e.what();
  }
}

TEST(RuntimeBadInput, RankCountDiffersFromNetwork) {
  WorkloadBuilder b("bad_npus", 2);
  b.comp(0, 1, 1);
  b.comp(1, 1, 1);
  EXPECT_NE(error_of(b, fully_connected(4, kLink)).find("4 NPUs"), std::string::npos);
}

// ---- per-link statistics (links.csv) ------------------------------------------------------------------------

RunReport simulate_with_links(const WorkloadBuilder& b, const Topology& topology, NetworkModelKind model,
                              const std::string& groups = "") {
  const Workload w = load_workload(b.write(), groups);
  RuntimeOptions options;
  options.model = model;
  options.lower_bounds = false;
  options.link_stats = true;
  return run_workload(w, topology, options);
}

// The id of the link from node `src` to node `dst`.
uint32_t link_between(const Topology& t, uint32_t src, uint32_t dst) {
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    if (t.link_src(LinkId{l}).value == src && t.link_dst(LinkId{l}).value == dst)
      return l;
  }
  ADD_FAILURE() << "no link " << src << " -> " << dst;
  return 0;
}

TEST(RuntimeLinks, MessageAddsItsBytesAndTransmissionTime) {
  WorkloadBuilder b("links_p2p", 2);
  b.send(0, 1, 1, 1000, 0);
  b.recv(1, 1, 0, 1000, 0);
  const Topology t = fully_connected(2, kLink);
  const RunReport r = simulate_with_links(b, t, NetworkModelKind::Flow);
  ASSERT_TRUE(r.links.has_value());
  const uint32_t forward = link_between(t, 0, 1);
  EXPECT_EQ(r.links->bytes[forward], 1000.0);
  EXPECT_EQ(r.links->busy[forward], Time::us(1));  // 1000 B at 1 GB/s
  EXPECT_EQ(r.links->bytes[link_between(t, 1, 0)], 0.0);
  EXPECT_FALSE(simulate_with_links(b, t, NetworkModelKind::Unaware).links.has_value());
}

TEST(RuntimeLinks, WholeNetworkCollectiveUsesTheModelsStatistics) {
  // Ring All-Reduce of 2000 B on 2 NPUs: a 1000-byte Reduce-Scatter step and a 1000-byte All-Gather step in each
  // direction, 1 us of transmission each. Twice: 4000 B and 4 us per direction.
  WorkloadBuilder b("links_whole", 2);
  for (uint32_t npu = 0; npu < 2; ++npu) {
    b.coll(npu, 1, CommType::AllReduce, 2000);
    b.coll(npu, 2, CommType::AllReduce, 2000, {1});
  }
  const Topology t = fully_connected(2, kLink);
  for (const NetworkModelKind model : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
    const RunReport r = simulate_with_links(b, t, model);
    for (const uint32_t l : {link_between(t, 0, 1), link_between(t, 1, 0)}) {
      EXPECT_EQ(r.links->bytes[l], 4000.0);
      EXPECT_EQ(r.links->busy[l], Time::us(4));
      EXPECT_EQ(r.links->peak_flows[l], 1u);
    }
  }
}

TEST(RuntimeLinks, WholeNetworkRingOnASwitchLoadsEveryUpAndDownLinkAlike) {
  // Native ring All-Reduce of 4000 B on switch:4 (1 GB/s): 3 Reduce-Scatter and 3 All-Gather steps of 1000 B, each
  // NPU sending to the next through the switch (node 4). Every NPU's up-link and down-link carries 6 x 1000 B,
  // busy 6 x 1 us, one message at a time. Collected by the evaluation that times the collective (no second run).
  WorkloadBuilder b("links_switch_ring", 4);
  for (uint32_t npu = 0; npu < 4; ++npu)
    b.coll(npu, 1, CommType::AllReduce, 4000);
  const Topology t = switch_star(4, kLink);
  for (const NetworkModelKind model : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
    const RunReport r = simulate_with_links(b, t, model);
    ASSERT_TRUE(r.links.has_value());
    for (uint32_t npu = 0; npu < 4; ++npu) {
      for (const uint32_t l : {link_between(t, npu, 4), link_between(t, 4, npu)}) {
        EXPECT_EQ(r.links->bytes[l], 6000.0) << npu;
        EXPECT_EQ(r.links->busy[l], Time::us(6)) << npu;
        EXPECT_EQ(r.links->peak_flows[l], 1u) << npu;
      }
    }
  }
}

TEST(RuntimeLinks, SubgroupRingIsChargedToThePhysicalRoute) {
  // Group {0, 2} on a 4-NPU switch: its 2-member ring All-Reduce of 2000 B sends 2000 B each way, over NPU 0's and
  // NPU 2's links to and from the switch (node 4); NPUs 1 and 3 carry nothing.
  WorkloadBuilder b("links_subgroup", 4);
  b.coll(0, 1, CommType::AllReduce, 2000, {}, "g");
  b.coll(2, 1, CommType::AllReduce, 2000, {}, "g");
  b.comp(1, 1, 1);
  b.comp(3, 1, 1);
  const std::string groups = b.file("groups.json", R"({"g": [0, 2]})");
  const Topology t = switch_star(4, kLink);
  const RunReport r = simulate_with_links(b, t, NetworkModelKind::Flow, groups);
  for (const auto& [src, dst] : {std::pair{0u, 4u}, std::pair{4u, 2u}, std::pair{2u, 4u}, std::pair{4u, 0u}})
    EXPECT_EQ(r.links->bytes[link_between(t, src, dst)], 2000.0) << src << " -> " << dst;
  for (const auto& [src, dst] : {std::pair{1u, 4u}, std::pair{4u, 1u}, std::pair{3u, 4u}, std::pair{4u, 3u}})
    EXPECT_EQ(r.links->bytes[link_between(t, src, dst)], 0.0) << src << " -> " << dst;
}

// ---- contention between concurrent collectives (flow, --contention) -------------------------------------------

RunReport simulate_flow(const WorkloadBuilder& b, const Topology& topology, const std::string& groups,
                        bool contention) {
  const Workload w = load_workload(b.write(), groups);
  RuntimeOptions options;
  options.model = NetworkModelKind::Flow;
  options.lower_bounds = false;
  options.contention = contention;
  return run_workload(w, topology, options);
}

// Groups {0, 2} and {1, 3} on a 4-NPU unidirectional ring (0 -> 1 -> 2 -> 3 -> 0, 1 GB/s, 1 us): each member's
// ring hop crosses two links, and every link carries one hop of each group. A 2 MB All-Reduce on 2 members sends
// 1 MB + 1 MB per hop, so every link must carry 2 MB for each group.
WorkloadBuilder two_groups_on_uniring(const std::string& name) {
  WorkloadBuilder b(name, 4);
  for (uint32_t npu = 0; npu < 4; ++npu)
    b.coll(npu, 1, CommType::AllReduce, 2'000'000, {}, npu % 2 == 0 ? "a" : "b");
  return b;
}

TEST(RuntimeContention, OverlappingCollectivesShareTheirLinks) {
  const WorkloadBuilder b = two_groups_on_uniring("contention_shared");
  const std::string groups = b.file("groups.json", R"({"a": [0, 2], "b": [1, 3]})");
  const Topology t = uniring(4, kLink);
  // Together: every link carries 4 MB at 1 GB/s, so both collectives take 4 ms (their isolated time, about
  // 2 x (2 us + 1 ms), is shorter, so the links are the bottleneck).
  const RunReport shared = simulate_flow(b, t, groups, true);
  ASSERT_EQ(shared.collectives.size(), 2u);
  for (const CollectiveReport& c : shared.collectives)
    EXPECT_NEAR(c.end.nanoseconds(), 4e6, 1) << c.group;
  EXPECT_NEAR(shared.finish.nanoseconds(), 4e6, 1);
  // Alone, each is a 2-member ring: 2 steps of 1 MB over a 2-hop route, 2 us + 1 ms each: T = 2.004 ms.
  const RunReport isolated = simulate_flow(b, t, groups, false);
  EXPECT_EQ(isolated.finish, Time::us(2004));
}

TEST(RuntimeContention, ACollectiveAloneOrOnDisjointLinksKeepsItsIsolatedTime) {
  // Groups {0, 1} and {2, 3} on a switch use disjoint links; and one group alone has nothing to share with.
  WorkloadBuilder b("contention_disjoint", 4);
  for (uint32_t npu = 0; npu < 4; ++npu)
    b.coll(npu, 1, CommType::AllReduce, 2'000'000, {}, npu < 2 ? "a" : "b");
  const std::string groups = b.file("groups.json", R"({"a": [0, 1], "b": [2, 3]})");
  const Topology t = switch_star(4, kLink);
  const RunReport with = simulate_flow(b, t, groups, true);
  const RunReport without = simulate_flow(b, t, groups, false);
  ASSERT_EQ(with.collectives.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(with.collectives[i].end, without.collectives[i].end);
}

TEST(RuntimeContention, LaterCollectiveSlowsTheEarlierOneOnlyWhileTheyOverlap) {
  // As above, but group b starts 1 ms late (after a 1000 us compute node). Each group needs 2 MB / T of every
  // link on average (T = 2.004 ms). a runs alone at full speed for 1 ms; then the two want 4 MB / T > 1 GB/s, so
  // each progresses at x = 1e9 * T / 4e6 = 0.501 of its isolated speed. a's remaining 1.004 ms of isolated
  // time take 1.004 / 0.501 ms: a ends at 1 + 2.003992016 ms. By then b has done as much (1.004 ms) and runs
  // its last 1 ms alone: it ends at 4.003992016 ms.
  WorkloadBuilder b("contention_late", 4);
  for (uint32_t npu = 0; npu < 4; ++npu) {
    if (npu % 2 == 1) {
      b.comp(npu, 1, 1000);
      b.coll(npu, 2, CommType::AllReduce, 2'000'000, {1}, "b");
    } else {
      b.coll(npu, 1, CommType::AllReduce, 2'000'000, {}, "a");
    }
  }
  const std::string groups = b.file("groups.json", R"({"a": [0, 2], "b": [1, 3]})");
  const RunReport r = simulate_flow(b, uniring(4, kLink), groups, true);
  ASSERT_EQ(r.collectives.size(), 2u);
  const CollectiveReport& a = r.collectives[0];  // started first
  const CollectiveReport& late = r.collectives[1];
  EXPECT_EQ(late.start, Time::us(1000));
  EXPECT_NEAR(a.end.nanoseconds(), 1e6 + 1.004e6 / 0.501, 1);
  EXPECT_NEAR(late.end.nanoseconds(), 2e6 + 1.004e6 / 0.501, 1);
}

}  // namespace
}  // namespace chorus
