// The fused-operator model (src/chorus/overlap/fused_model.hpp) on a 2-GPU network with a made-up GPU whose roofline is
// worked out by hand; the per-tile collective comes from the runtime's collective timer, called here on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "chorus/core/error.hpp"
#include "chorus/overlap/fused_model.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus::fused {
namespace {

// 2 GPUs, fully connected, 1 GB/s (1 byte per ns) and 250 ns per link.
const Topology& network() {
  static const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::ns(250)});
  return t;
}

// 1 TFLOP/s bf16, HBM so fast that the compute roof binds GEMMs, one compute unit (so each 128 x 128 output tile is
// its own wave), unless told otherwise.
GpuSpec test_gpu(uint32_t units = 1) {
  return GpuSpec{"test", {{"bf16", 1e12}}, Bandwidth::gb_per_s(1e6), units};
}

// gemm-all-to-all [512, 128] x [128, 128]: 2*512*128*128 = 16,777,216 FLOPs = 16.777216 us at 1 TFLOP/s; output
// 4 tiles of 128 x 128; the combine All-to-All carries 512*128*2 = 131,072 bytes per GPU.
FusedRequest gemm_a2a(std::optional<uint32_t> tiles, uint32_t units = 1, uint32_t comm = 0) {
  FusedRequest q;
  q.op = FusedOp::GemmAllToAll;
  q.shape = OperatorShape{512, 128, 128, 1, "bf16"};
  q.npus = 2;
  q.gpu = test_gpu(units);
  q.tiles = tiles;
  q.comm_workgroups = comm;
  return q;
}

FusedResult evaluate(const FusedRequest& q) {
  CollectiveTimer timer(network(), CollectiveTimerOptions{});
  GroupBounds bounds(network());
  return evaluate_fused(q, timer, bounds);
}

Time all_to_all(int64_t bytes) {
  CollectiveTimer timer(network(), CollectiveTimerOptions{});
  return timer.time(chakra::CommType::AllToAll, Bytes(bytes), {0, 1}).duration;
}

void expect_near_ps(Time a, Time b) {
  EXPECT_LE(std::llabs(a.picoseconds() - b.picoseconds()), 1) << to_string(a) << " vs " << to_string(b);
}

TEST(FusedModel, ExplicitTilesFollowTheClosedForm) {
  const FusedResult r = evaluate(gemm_a2a(4));
  expect_near_ps(r.compute, Time::ps(16'777'216));
  EXPECT_EQ(r.work.comm_size, Bytes(131'072));
  EXPECT_EQ(r.waves, 4u);
  EXPECT_EQ(r.collective_time, all_to_all(131'072));
  // c = 16.777216 us / 4; x = the All-to-All of 131072 / 4 bytes; its latency L = 2 x(32768) - x(65536) overlaps
  // the next tiles, o = x - L; fused = c + max(c, o) * 3 + x.
  const Time c = Time::ps((r.compute.picoseconds() + 3) / 4);
  const Time x = all_to_all(32'768);
  const Time o = x - (x * 2 - all_to_all(65'536));
  EXPECT_GT(o, Time::zero());
  EXPECT_LT(o, x);
  EXPECT_EQ(r.tile_compute, c);
  EXPECT_EQ(r.tile_transfer, x);
  EXPECT_EQ(r.tile_occupancy, o);
  EXPECT_EQ(r.fused, c + std::max(c, o) * 3 + x);
  EXPECT_EQ(r.unfused, r.compute + r.collective_time);
}

TEST(FusedModel, FusedStaysBetweenTheBoundAndUnfusedPlusOneTile) {
  for (const uint32_t tiles : {1u, 2u, 4u}) {
    const FusedResult r = evaluate(gemm_a2a(tiles));
    EXPECT_LE(r.fused, r.unfused + r.tile_compute) << tiles;
    EXPECT_GE(r.fused, std::max(r.compute, r.collective_bound)) << tiles;
    EXPECT_EQ(r.bound, std::max(r.compute, r.collective_bound));
  }
  // One tile overlaps nothing: exactly compute then collective.
  EXPECT_EQ(evaluate(gemm_a2a(1)).fused, evaluate(gemm_a2a(1)).unfused);
}

TEST(FusedModel, DefaultTilesAreTheBestPowerOfTwoGroupingOfTheWaves) {
  Time best = Time::max();
  for (const uint32_t tiles : {1u, 2u, 4u})
    best = std::min(best, evaluate(gemm_a2a(tiles)).fused);
  EXPECT_EQ(evaluate(gemm_a2a(std::nullopt)).fused, best);
}

TEST(FusedModel, CommunicationWorkgroupsSlowOnlyComputeBoundWork) {
  // 4 compute units, 1 reserved: 3/4 of the peak, 16.777216 / 0.75 = 22.369621 us.
  const FusedResult r = evaluate(gemm_a2a(std::nullopt, 4, 1));
  expect_near_ps(r.fused_compute, Time::ps(22'369'621));
  expect_near_ps(r.compute, Time::ps(16'777'216));
  // A GEMV on a GPU with a vast peak is memory-bound: the reserved workgroup costs nothing.
  FusedRequest q;
  q.op = FusedOp::GemvAllReduce;
  q.shape = OperatorShape{4096, 1024, 0, 1, "bf16"};
  q.npus = 2;
  q.gpu = GpuSpec{"bandwidth-bound", {{"bf16", 1e18}}, Bandwidth::gb_per_s(1000), 4};
  q.comm_workgroups = 1;
  const FusedResult g = evaluate(q);
  EXPECT_TRUE(g.memory_bound);
  // bytes = 2 * (4096 * 512 + 512 + 4096) = 4,203,520 at 1e12 B/s = 4.20352 us.
  expect_near_ps(g.compute, Time::ps(4'203'520));
  EXPECT_EQ(g.fused_compute, g.compute);
}

TEST(FusedModel, AllGatherGemmPipelinesByShard) {
  // [512, 128] gathered from 2 shards of 256 rows, times [128, 256/2]: 2*512*128*128 FLOPs as above.
  FusedRequest q;
  q.op = FusedOp::AllGatherGemm;
  q.shape = OperatorShape{512, 128, 256, 1, "bf16"};
  q.npus = 2;
  q.gpu = test_gpu();
  const FusedResult r = evaluate(q);
  EXPECT_EQ(r.tiles, 2u);
  EXPECT_EQ(r.work.comm_size, Bytes(256 * 128 * 2));  // each GPU's shard
  // 2 shards: c = compute / 2, x = the whole All-Gather's one step (P - 1 = 1): fused = c + max(c, x).
  EXPECT_EQ(r.tile_transfer, r.collective_time);
  EXPECT_EQ(r.fused, r.tile_compute + std::max(r.tile_compute, r.tile_transfer));
}

std::string field_of(const FusedRequest& q) {
  try {
    evaluate(q);
  } catch (const Error& e) {
    EXPECT_TRUE(e.names_argument()) << e.what();  // a call's argument, which the CLI names by its flag
    return e.field();
  }
  return "";
}

TEST(FusedModelBadInput, EachInconsistencyNamesItsArgument) {
  EXPECT_EQ(field_of(gemm_a2a(0)), "tiles");
  EXPECT_EQ(field_of(gemm_a2a(5)), "tiles");  // only 4 workgroup tiles
  EXPECT_EQ(field_of(gemm_a2a(std::nullopt, 4, 4)), "comm_workgroups");
  FusedRequest gemv = gemm_a2a(std::nullopt);
  gemv.op = FusedOp::GemvAllReduce;
  EXPECT_EQ(field_of(gemv), "n");  // a GEMV has no N
  FusedRequest embedding = gemm_a2a(std::nullopt);
  embedding.op = FusedOp::EmbeddingAllToAll;
  embedding.shape.m = 513;  // a global batch that does not split over 2 GPUs
  EXPECT_EQ(field_of(embedding), "m");
  FusedRequest zero = gemm_a2a(std::nullopt);
  zero.shape.k = 0;
  EXPECT_EQ(field_of(zero), "k");
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(FusedGpu, JsonFileLoadsAndBadValuesNameTheirField) {
  const GpuSpec gpu =
      load_gpu(write_temp("chorus_fused_gpu_ok.json",
                          R"({"name": "x", "peak_tflops": {"bf16": 100}, "memory_GBps": 2000, "compute_units": 64})"));
  EXPECT_EQ(gpu.peak("bf16", ""), 100e12);
  EXPECT_EQ(gpu.memory_bandwidth.bytes_per_second(), 2000e9);
  EXPECT_EQ(gpu.compute_units, 64u);
  const auto field_of_file = [](const std::string& text) {
    try {
      load_gpu(write_temp("chorus_fused_gpu_bad.json", text));
    } catch (const Error& e) {
      return e.field();
    }
    return std::string();
  };
  EXPECT_EQ(field_of_file(R"({"peak_tflops": {"bf16": -1}, "memory_GBps": 1, "compute_units": 1})"),
            "peak_tflops.bf16");
  EXPECT_EQ(field_of_file(R"({"peak_tflops": {"bf16": 1}, "compute_units": 1})"), "memory_GBps");
  EXPECT_EQ(field_of_file(R"({"peak_tflops": {"bf16": 1}, "memory_GBps": 1, "compute_units": 1.5})"), "compute_units");
  EXPECT_EQ(field_of_file(R"({"peak_tflops": {"int3": 1}, "memory_GBps": 1, "compute_units": 1})"), "peak_tflops.int3");
}

}  // namespace
}  // namespace chorus::fused
