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
    if (e["ph"] == "s")
      starts[e["id"].get<int64_t>()] = e;
    if (e["ph"] == "f")
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
    if (e["ph"] == "X") {
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
