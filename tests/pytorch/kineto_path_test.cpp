// The measured critical path of a Kineto timeline (pytorch/kineto_path.hpp), on hand-made timelines whose path is
// worked out by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/kineto.hpp"
#include "chorus/pytorch/kineto_path.hpp"

namespace chorus::pytorch {
namespace {

std::string data(const std::string& name) {
  return std::string(CHORUS_SOURCE_DIR) + "/tests/data/pytorch/" + name;
}

const MeasuredPathOp* find_op(const MeasuredRank& m, const std::string& name) {
  for (const MeasuredPathOp& o : m.path_ops)
    if (o.name == name)
      return &o;
  return nullptr;
}

TEST(KinetoPath, GpuTimelineLaunchStreamAndSync) {
  // tests/data/pytorch/kineto_gpu_2r.kineto.0.json, in us. CPU thread: aten::mm [1000,1010] launching gemm_a by
  // cudaLaunchKernel [1002,1008] (linked by its ac2g flow only: the kernel has no correlation), aten::mm
  // [1010,1020] launching gemm_b [1012,1018], c10d::allreduce_ [1020,1030] launching the NCCL kernel [1022,1028],
  // then cudaDeviceSynchronize [1030,1152]. Stream 7: gemm_a [1010,1050], gemm_b [1055,1085], NCCL [1090,1150].
  // Span: 1000 .. 1152 = 152 us. The walk from the last event to end, cudaDeviceSynchronize at 1152:
  //   it waited for the NCCL kernel, which ended at 1150: launch 2 (cudaDeviceSynchronize), onto stream 7;
  //   NCCL [1090,1150]: communication 60; its launch returned at 1028, before the stream was free (1085): the stream;
  //   gap [1085,1090]: idle 5; gemm_b [1055,1085]: compute 30; launch at 1018 < 1050: the stream; gap: idle 5;
  //   gemm_a [1010,1050]: compute 40; its launch returned at 1008, the stream held nothing before: launch latency
  //   [1008,1010] 2 (cudaLaunchKernel), onto the CPU thread at 1008;
  //   cudaLaunchKernel [1002,1008]: launch 6; aten::mm's own time [1000,1002]: launch 2.
  // compute 40 + 30 = 70, communication 60, launch 2 + 2 + 6 + 2 = 12, idle 5 + 5 = 10: 152.
  const ExecutionTrace et = read_execution_trace(data("kineto_gpu_2r.et.0.json"), nullptr);
  const KinetoTimes k = join_kineto(data("kineto_gpu_2r.kineto.0.json"), et);
  const MeasuredRank& m = k.measured;
  EXPECT_EQ(m.span, Time::us(152));
  EXPECT_EQ(m.path.compute, Time::us(70));
  EXPECT_EQ(m.path.communication, Time::us(60));
  EXPECT_EQ(m.path.launch, Time::us(12));
  EXPECT_EQ(m.path.idle, Time::us(10));
  EXPECT_EQ(m.path.sum(), m.span);
  ASSERT_EQ(m.path_ops.size(), 6u);
  EXPECT_EQ(m.path_ops[0].name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_EQ(m.path_ops[0].kind, "communication");
  EXPECT_EQ(m.path_ops[1].name, "sm90_gemm_a");
  EXPECT_EQ(m.path_ops[2].name, "sm90_gemm_b");
  const MeasuredPathOp* launch = find_op(m, "cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->kind, "launch");
  EXPECT_EQ(launch->segments, 2u);  // the launch latency and the call itself
  EXPECT_EQ(launch->time, Time::us(8));
  ASSERT_NE(find_op(m, "cudaDeviceSynchronize"), nullptr);
  EXPECT_EQ(find_op(m, "cudaDeviceSynchronize")->time, Time::us(2));
  EXPECT_EQ(find_op(m, "aten::mm")->time, Time::us(2));
  EXPECT_EQ(find_op(m, "sm90_gemm_b"), &m.path_ops[2]);
}

// Builds a timeline of events (start, end in ns) on lanes "cpu" and "gpu".
struct Events {
  TimelineBuilder b;
  void cpu(const std::string& name, int64_t start, int64_t end, bool comm = false) {
    b.add({start, end, b.lane("cpu"), b.name(name), EventKind::Cpu, comm, false}, std::nullopt);
  }
  void launch(int64_t start, int64_t end, int64_t correlation) {
    b.add({start, end, b.lane("cpu"), b.name("cudaLaunchKernel"), EventKind::Runtime, false, false}, correlation);
  }
  void kernel(const std::string& name, int64_t start, int64_t end, int64_t correlation) {
    b.add({start, end, b.lane("gpu"), b.name(name), EventKind::Gpu, false, false}, correlation);
  }
};

TEST(KinetoPath, CpuOnlyRunNestedOperators) {
  // No kernels: CPU operators are the compute. step [0,100] holds fwd [10,40] (holding mm [15,30]) and
  // allreduce [50,90] (communication). From 100 back: step's own time [90,100] 10, allreduce 40, step [40,50] 10,
  // fwd's own [30,40] 10, mm 15, fwd's own [10,15] 5, step [0,10] 10. Compute 10+10+10+15+5+10 = 60,
  // communication 40, nothing idle or launched: 100.
  Events e;
  e.cpu("step", 0, 100);
  e.cpu("fwd", 10, 40);
  e.cpu("mm", 15, 30);
  e.cpu("allreduce", 50, 90, true);
  const MeasuredRank m = walk_measured_path(e.b.finish());
  EXPECT_EQ(m.span, Time::ns(100));
  EXPECT_EQ(m.path.compute, Time::ns(60));
  EXPECT_EQ(m.path.communication, Time::ns(40));
  EXPECT_EQ(m.path.launch, Time::zero());
  EXPECT_EQ(m.path.idle, Time::zero());
  EXPECT_EQ(m.path_ops[0].name, "allreduce");
  EXPECT_EQ(m.path_ops[1].name, "step");  // 30 in three segments
  EXPECT_EQ(m.path_ops[1].segments, 3u);
  EXPECT_EQ(m.path_ops[1].time, Time::ns(30));
}

TEST(KinetoPath, LaunchBoundKernelsWalkTheCpuThread) {
  // Kernels shorter than their launches: k1 [12,14] launched by [5,11], k2 [22,24] by [15,21]. From 24: k2 2, its
  // launch returned at 21 after the stream's previous kernel (14): launch latency [21,22] 1, the launch call [15,21]
  // 6, a gap on the thread [11,15] idle 4, launch call [5,11] 6; before 5 nothing ran on the thread (the span
  // starts at 5). k1 is not on the path. compute 2, launch 13, idle 4: 19 = 24 - 5.
  Events e;
  e.launch(5, 11, 1);
  e.launch(15, 21, 2);
  e.kernel("k1", 12, 14, 1);
  e.kernel("k2", 22, 24, 2);
  const MeasuredRank m = walk_measured_path(e.b.finish());
  EXPECT_EQ(m.span, Time::ns(19));
  EXPECT_EQ(m.path.compute, Time::ns(2));
  EXPECT_EQ(m.path.launch, Time::ns(13));
  EXPECT_EQ(m.path.idle, Time::ns(4));
  EXPECT_EQ(m.path.sum(), m.span);
}

TEST(KinetoPath, ChildOutlastingItsParentIsCut) {
  // Rounding in a trace can leave a child ending after its parent: parent [0,10], child [5,11], then op [11,20].
  // The child is cut at 10, so [10,11] runs nothing: op 9, idle 1, child 5, parent 5 (compute 19): 20.
  Events e;
  e.cpu("parent", 0, 10);
  e.cpu("child", 5, 11);
  e.cpu("op", 11, 20);
  const MeasuredRank m = walk_measured_path(e.b.finish());
  EXPECT_EQ(m.span, Time::ns(20));
  EXPECT_EQ(m.path.compute, Time::ns(19));
  EXPECT_EQ(m.path.idle, Time::ns(1));
  EXPECT_EQ(m.path_ops[0].name, "op");
  EXPECT_EQ(m.path_ops[0].time, Time::ns(9));
}

TEST(KinetoPath, EmptyTimeline) {
  Events e;
  const MeasuredRank m = walk_measured_path(e.b.finish());
  EXPECT_EQ(m.span, Time::zero());
  EXPECT_TRUE(m.path_ops.empty());
}

}  // namespace
}  // namespace chorus::pytorch
