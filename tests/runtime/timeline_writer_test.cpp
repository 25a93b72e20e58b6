// timeline.json bounded in size (whole NPUs kept, every k-th one) and with an
// arrow from each send to the receive it matched. Sizes are counted by hand: a
// 2-stage pipeline of gpt3-1.3b (pp 2, 2 microbatches) sends each microbatch's
// activations forward and its gradients back: 2 x 2 = 4 sends, 4 receives, 4
// arrows.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/runtime/timeline_writer.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::run_chorus_split;

RunReport report_with(uint32_t npus, uint32_t events_per_npu) {
  RunReport r;
  r.npus.resize(npus);
  for (uint32_t npu = 0; npu < npus; ++npu) {
    for (uint32_t i = 0; i < events_per_npu; ++i)
      r.timeline.push_back(
          TimelineEvent{npu, i, i % 2 == 0 ? Track::Compute : Track::Comm, Time::ns(i), Time::ns(i + 1)});
  }
  return r;
}

TEST(TimelineSelection, KeepsWholeNpusEveryKth) {
  const RunReport r = report_with(8, 10);  // 80 events
  EXPECT_EQ(select_timeline(r, {TimelineLevel::Auto, 80}).npu_stride, 1u);
  const TimelineSelection half = select_timeline(r, {TimelineLevel::Auto, 40});  // NPUs 0, 2, 4, 6
  EXPECT_EQ(half.npu_stride, 2u);
  EXPECT_EQ(half.kept, 40u);
  const TimelineSelection third = select_timeline(r, {TimelineLevel::Auto, 35});  // NPUs 0, 3, 6
  EXPECT_EQ(third.npu_stride, 3u);
  EXPECT_EQ(third.kept, 30u);
  EXPECT_EQ(select_timeline(r, {TimelineLevel::Auto, 5}).kept,
            10u);  // NPU 0 alone, even above the budget
  EXPECT_EQ(select_timeline(r, {TimelineLevel::Full, 5}).kept, 80u);
  EXPECT_EQ(select_timeline(r, {TimelineLevel::Comm, 5}).kept,
            40u);  // odd events are communication
  EXPECT_EQ(parse_timeline_level("comm"), TimelineLevel::Comm);
  EXPECT_FALSE(parse_timeline_level("some").has_value());
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(TimelineCli, FlowArrowsJoinEachSendToItsReceive) {
  const fs::path dir = fs::path(::testing::TempDir()) / "chorus_timeline_flows";
  fs::remove_all(dir);
  ASSERT_EQ(run_chorus_split({"generate", "llm", "--model", "gpt3-1.3b", "--pp", "2", "--microbatches", "2", "--out",
                              (dir / "traces").string()})
                .status,
            0);
  const auto sim = run_chorus_split({"sim", "--workload", (dir / "traces").string(), "--topology", "ring:2",
                                     "--bandwidth", "50GB/s", "--latency", "1us", "--out", (dir / "out").string()});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const nlohmann::json t = read_json(dir / "out" / "timeline.json");
  std::map<int64_t, nlohmann::json> starts;
  std::map<int64_t, nlohmann::json> finishes;
  size_t sends = 0;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e["ph"] == "s" && e["cat"] == "p2p")
      starts[e["id"].get<int64_t>()] = e;
    if (e["ph"] == "f" && e["cat"] == "p2p")
      finishes[e["id"].get<int64_t>()] = e;
    if (e["ph"] == "X" && e["cat"] == "COMM_SEND_NODE")
      ++sends;
  }
  EXPECT_EQ(sends, 4u);
  ASSERT_EQ(starts.size(), 4u);
  ASSERT_EQ(finishes.size(), 4u);
  for (const auto& [id, s] : starts) {
    ASSERT_TRUE(finishes.contains(id));
    const nlohmann::json& f = finishes[id];
    EXPECT_NE(s["pid"], f["pid"]);  // stage 0 to stage 1 or back
    EXPECT_LE(s["ts"].get<double>(), f["ts"].get<double>());
    EXPECT_EQ(f["bp"], "e");
  }
  EXPECT_EQ(t["otherData"]["npu_stride"].get<int>(), 1);
}

// The critical path: one "X" event per segment of summary.json's critical_path on a track of its own, tiling
// [0, finish], and an arrow from each segment to the next (both NPUs kept), never backwards in time.
TEST(TimelineCli, CriticalPathTrackAndArrows) {
  const fs::path dir = fs::path(::testing::TempDir()) / "chorus_timeline_critical";
  fs::remove_all(dir);
  ASSERT_EQ(run_chorus_split({"generate", "llm", "--model", "gpt3-1.3b", "--pp", "2", "--microbatches", "2", "--out",
                              (dir / "traces").string()})
                .status,
            0);
  const auto sim = run_chorus_split({"sim", "--workload", (dir / "traces").string(), "--topology", "ring:2",
                                     "--bandwidth", "50GB/s", "--latency", "1us", "--out", (dir / "out").string()});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const nlohmann::json summary = read_json(dir / "out" / "summary.json");
  const size_t segments = summary["critical_path"].size();
  ASSERT_GT(segments, 2u);
  const nlohmann::json t = read_json(dir / "out" / "timeline.json");
  std::map<int64_t, double> starts;
  std::map<int64_t, double> finishes;
  double covered_us = 0;
  size_t slices = 0;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (!e.contains("cat") || e["cat"] != "critical_path")
      continue;
    if (e["ph"] == "X") {
      ++slices;
      covered_us += e["dur"].get<double>();
    } else if (e["ph"] == "s") {
      starts[e["id"].get<int64_t>()] = e["ts"].get<double>();
    } else if (e["ph"] == "f") {
      EXPECT_EQ(e["bp"], "e");
      finishes[e["id"].get<int64_t>()] = e["ts"].get<double>();
    }
  }
  EXPECT_EQ(slices, segments);
  EXPECT_NEAR(covered_us, summary["finish_ns"].get<double>() / 1e3, 1e-6);
  EXPECT_EQ(starts.size(), segments - 1);
  ASSERT_EQ(finishes.size(), segments - 1);
  for (const auto& [id, ts] : starts)
    EXPECT_LE(ts, finishes[id]);
}

TEST(TimelineCli, LargeTimelinesKeepEveryKthNpu) {
  const fs::path dir = fs::path(::testing::TempDir()) / "chorus_timeline_sampled";
  fs::remove_all(dir);
  ASSERT_EQ(run_chorus_split({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size", "1MiB",
                              "--out", (dir / "traces").string()})
                .status,
            0);
  // 8 events (one collective per NPU); a budget of 4 keeps NPUs 0, 2, 4, 6.
  const auto sim =
      run_chorus_split({"sim", "--workload", (dir / "traces").string(), "--topology", "ring:8", "--bandwidth", "50GB/s",
                        "--latency", "1us", "--out", (dir / "out").string(), "--timeline-max-events", "4"});
  ASSERT_EQ(sim.status, 0) << sim.err;
  EXPECT_NE(sim.err.find("notice: timeline.json holds 4 of 8 events (NPUs 0, 2, 4, ...)"), std::string::npos)
      << sim.err;
  const nlohmann::json t = read_json(dir / "out" / "timeline.json");
  EXPECT_EQ(t["otherData"]["npu_stride"].get<int>(), 2);
  size_t events = 0;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] != "critical_path") {  // the critical path's track is always whole
      ++events;
      EXPECT_EQ(e["pid"].get<int>() % 2, 0);
    }
  }
  EXPECT_EQ(events, 4u);
  const auto bad =
      run_chorus_split({"sim", "--workload", (dir / "traces").string(), "--topology", "ring:8", "--bandwidth", "50GB/s",
                        "--latency", "1us", "--out", (dir / "out").string(), "--timeline-level", "most"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--timeline-level: is 'most'; expected auto, full or comm"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace chorus
