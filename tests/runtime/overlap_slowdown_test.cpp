// --overlap-slowdown on hand-made workloads: GPU compute progresses at 1 / (1 + F) of its speed while its NPU moves
// data, whether the communication starts before or during the compute; CPU operators are not slowed. Every finish
// time is worked out by hand (F = 1: half speed).
#include <gtest/gtest.h>

#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "workload_builder.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

// Every link 1 GB/s and 1 us: a 1000-byte message takes 2 us, a 2000-byte All-Reduce of 2 NPUs 4 us.
constexpr LinkParams kLink{Bandwidth::gb_per_s(1), Time::us(1)};

RunReport simulate(const WorkloadBuilder& b, double slowdown) {
  const Workload w = load_workload(b.write(), "");
  RuntimeOptions options;
  options.lower_bounds = false;
  options.overlap_slowdown = slowdown;
  options.critical_path = true;
  return run_workload(w, fully_connected(2, kLink), options);
}

TEST(OverlapSlowdown, ComputeBesideASendRunsAtHalfSpeedWhileItMovesData) {
  // NPU 0: a 10 us kernel and an independent 1000 B send [0, 2]. F = 1: 1 us of work in [0, 2], 9 us after: 11 us.
  WorkloadBuilder b("slow_send", 2);
  b.comp(0, 1, 10);
  b.send(0, 2, 1, 1000, 1);
  b.recv(1, 1, 0, 1000, 1);
  EXPECT_EQ(simulate(b, 0).npus[0].finish, Time::us(10));
  const RunReport r = simulate(b, 1);
  EXPECT_EQ(r.npus[0].finish, Time::us(11));
  EXPECT_EQ(r.npus[0].compute, Time::us(11));
  EXPECT_EQ(r.critical_path->totals.sum(), r.finish);
}

TEST(OverlapSlowdown, CommunicationStartingDuringTheKernelSlowsItFromThen) {
  // NPU 1 computes 4 us, then sends 1000 B to NPU 0: NPU 0's receive moves data in [4, 6]. NPU 0's 10 us kernel
  // does 4 us of work by 4 us, 1 us in [4, 6], the last 5 us by 11 us.
  WorkloadBuilder b("slow_recv", 2);
  b.comp(0, 1, 10);
  b.recv(0, 2, 1, 1000, 1);
  b.comp(1, 1, 4);
  b.send(1, 2, 0, 1000, 1, {1});
  const RunReport r = simulate(b, 1);
  EXPECT_EQ(r.npus[0].finish, Time::us(11));
  EXPECT_EQ(r.npus[1].finish, Time::us(6));  // NPU 1's own kernel ran alone
}

TEST(OverlapSlowdown, CollectiveBesideComputeOnBothMembers) {
  // Both NPUs: a 6 us kernel and an independent 2000 B All-Reduce [0, 4]. F = 1: 2 us of work by 4 us, 4 us left:
  // 8 us. F = 0.5: 4 / 1.5 us of work by 4 us, 6 - 8/3 = 10/3 us left: 7.333333 us (rounded to the picosecond).
  WorkloadBuilder b("slow_collective", 2);
  for (uint32_t npu = 0; npu < 2; ++npu) {
    b.comp(npu, 1, 6);
    b.coll(npu, 2, CommType::AllReduce, 2000);
  }
  EXPECT_EQ(simulate(b, 1).finish, Time::us(8));
  EXPECT_EQ(simulate(b, 0.5).finish, Time::ps(7'333'333));
}

TEST(OverlapSlowdown, CpuOperatorsAreNotSlowed) {
  WorkloadBuilder b("slow_cpu", 2);
  b.comp(0, 1, 10).is_cpu_op = true;
  b.send(0, 2, 1, 1000, 1);
  b.recv(1, 1, 0, 1000, 1);
  EXPECT_EQ(simulate(b, 1).npus[0].finish, Time::us(10));
}

}  // namespace
}  // namespace chorus
