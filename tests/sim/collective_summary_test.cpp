// The one collective summary (sim/collective_summary.hpp) that `chorus collective`, its --json and Python share,
// the nccl-tests bandwidths it reports, and the library's errors naming the request's arguments.
#include <gtest/gtest.h>

#include "chorus/collective/bound_request.hpp"
#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/sim/collective_request.hpp"
#include "chorus/topology/load.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

Topology ring8() {
  TopologyRequest request;
  request.spec = "ring:8";
  request.bandwidths = {Bandwidth::gb_per_s(50)};
  request.latencies = {Time::ns(500)};
  return load_topology(request);
}

TEST(CollectiveSummary, BandwidthsFollowNcclTests) {
  // nccl-tests' PERFORMANCE.md: algbw = S / t; busbw = algbw * 2(n-1)/n (All-Reduce), (n-1)/n (All-Gather).
  const CollectiveBandwidth ar =
      collective_bandwidth(CollectiveKind::AllReduce, Bytes(1'000'000'000), 8, Time::us(1'000'000));
  EXPECT_DOUBLE_EQ(ar.algbw_GBps, 1.0);
  EXPECT_DOUBLE_EQ(ar.busbw_GBps, 1.75);
  const CollectiveBandwidth ag =
      collective_bandwidth(CollectiveKind::AllGather, Bytes(2'000'000'000), 4, Time::us(1'000'000));
  EXPECT_DOUBLE_EQ(ag.algbw_GBps, 2.0);
  EXPECT_DOUBLE_EQ(ag.busbw_GBps, 1.5);
  const CollectiveBandwidth none = collective_bandwidth(CollectiveKind::AllReduce, Bytes(1), 8, Time::zero());
  EXPECT_EQ(none.algbw_GBps, 0.0);
}

TEST(CollectiveSummary, RingAllReduceByHand) {
  // Ring All-Reduce of D = 1 MiB on ring:8: 2(p-1) = 14 steps of alpha + (D/p)/B = 0.5 us + 131072 B / 50 GB/s
  // = 3.12144 us, 43.70016 us in all. Cut bound: each NPU sends 2(p-1)/p D = 1835008 B over its two 50 GB/s
  // links, 18.35008 us.
  CollectiveRequest q;
  q.kind = CollectiveKind::AllReduce;
  q.size = Bytes::mib(1);
  const CollectiveSummary s = run_collective_request(ring8(), q).summary;
  EXPECT_EQ(s.time, Time::ps(43'700'160));
  EXPECT_EQ(s.bound, Time::ps(18'350'080));
  ASSERT_TRUE(s.native);
  EXPECT_FALSE(s.synthesized);
  EXPECT_DOUBLE_EQ(s.native->bandwidth.algbw_GBps, 1048576 / 43.70016e-6 / 1e9);
  EXPECT_DOUBLE_EQ(s.native->bandwidth.busbw_GBps, 1.75 * 1048576 / 43.70016e-6 / 1e9);
  EXPECT_DOUBLE_EQ(s.ratio(), 43.70016 / 18.35008);
  EXPECT_TRUE(s.physically_feasible());
  const nlohmann::json j = to_json(s);
  EXPECT_DOUBLE_EQ(j["time_ns"].get<double>(), 43700.16);
  EXPECT_DOUBLE_EQ(j["bound_ns"].get<double>(), 18350.08);
  EXPECT_EQ(j["size_bytes"], 1048576);
  EXPECT_EQ(j["astra_compatible"], false);
  EXPECT_FALSE(j.contains("chunks_per_npu"));
}

TEST(CollectiveSummary, SynthRecordHasItsOwnKeys) {
  // A synthesized All-Gather on ring:8 (1 MiB gathered, 128 KiB per NPU): its estimate and chunks, and nccl-tests'
  // bandwidths of the simulated time (a sweep grid's CSV reads them).
  CollectiveRequest q;
  q.kind = CollectiveKind::AllGather;
  q.size = Bytes::mib(1);
  q.algorithm = "synth";
  const CollectiveSummary s = run_collective_request(ring8(), q).summary;
  ASSERT_TRUE(s.synthesized);
  EXPECT_FALSE(s.native);
  const nlohmann::json j = to_json(s);
  for (const char* key : {"chunks_per_npu", "synth_estimate_ns", "synthesis_s", "time_ns", "bound_ns", "ratio"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["algbw_GBps"].get<double>(), 1048576.0 / s.time.nanoseconds());
  EXPECT_DOUBLE_EQ(j["busbw_GBps"].get<double>(), 1048576.0 / s.time.nanoseconds() * 7 / 8);
  // The bound is the per-NPU cut: 7/8 MiB in over two 50 GB/s links, 9.17504 us; a schedule cannot beat it.
  EXPECT_EQ(s.bound, Time::ps(9'175'040));
  EXPECT_GE(s.time, s.bound);
}

TEST(CollectiveSummary, ErrorsNameTheArgument) {
  CollectiveRequest q;
  q.size = Bytes::mib(1);
  q.active_chunks = 0;
  try {
    run_collective_request(ring8(), q);
    FAIL() << "active_chunks 0 accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.names_argument());
    EXPECT_EQ(e.field(), "active_chunks");
    EXPECT_EQ(std::string(e.what()), "active_chunks: is 0; must be 1 to 1000000");
  }
  try {
    (void)bound_options("everything", 0, "auto", 8);
    FAIL() << "sinks 'everything' accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.names_argument());
    EXPECT_EQ(e.field(), "sinks");
  }
  const Error from_file("net.yml", "bandwidth[1]", "is 0 GB/s; must be > 0");
  EXPECT_FALSE(from_file.names_argument());
}

TEST(CollectiveSummary, CliNamesTheArgumentsOption) {
  // The CLI prints an argument's keyword as its option: active_chunks -> --active-chunks.
  const testing_support::CliRun run =
      testing_support::run_chorus({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "500ns",
                                   "--collective", "all_reduce", "--size", "1MiB", "--active-chunks", "0"},
                                  true);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "error: --active-chunks: is 0; must be 1 to 1000000\n");
}

}  // namespace
}  // namespace chorus
