// Link utilisation over time (runtime/link_load.hpp), against hand calculations, and its counter tracks in
// timeline.json.
//
// ring:4 at 50 GB/s has 8 directed links, all in one group of 8 x 50 = 400 GB/s. Over 20 us in 4 bins of 5 us a
// bin can carry 400e9 x 5e-6 = 2e6 bytes.
// - A 400,000-byte message on one link over [0, 10 us]: 200,000 bytes in each of bins 0 and 1.
// - A 300,000-byte message on two links (600,000 bytes) over [2.5, 17.5 us], 40,000 bytes/us: bin 0 gets 2.5 us
//   (100,000), bins 1 and 2 5 us each (200,000), bin 3 2.5 us (100,000).
// - A collective of zero duration at 5 us putting 1e6 bytes on one link: all in bin 1.
// Bins: 300,000 / 2e6 = 0.15; 1,400,000 / 2e6 = 0.7; 200,000 / 2e6 = 0.1; 100,000 / 2e6 = 0.05.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/runtime/link_load.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/topology/link_groups.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

TEST(LinkGroups, OneGroupPerDimensionWithItsCapacity) {
  const Topology topology = ring(4, LinkParams{Bandwidth::gb_per_s(50), Time::us(1)});
  const LinkGroups g = group_links(topology);
  ASSERT_EQ(g.names.size(), 1u);
  EXPECT_EQ(g.links[0], 8u);
  EXPECT_DOUBLE_EQ(g.capacity[0].gb_per_second(), 400.0);
}

TEST(LinkLoad, SpreadsBytesOverTheirTimeInFlight) {
  const Topology topology = ring(4, LinkParams{Bandwidth::gb_per_s(50), Time::us(1)});
  LinkLoadRecorder load(topology);
  load.add_message(Time::zero(), Time::us(10), {LinkShare{0, 400'000, Time::us(8), 1}});
  load.add_message(Time::ns(2'500), Time::ns(17'500),
                   {LinkShare{0, 300'000, Time::us(6), 1}, LinkShare{1, 300'000, Time::us(6), 1}});
  std::vector<CollectiveReport> collectives(1);
  collectives[0].start = Time::us(5);
  collectives[0].end = Time::us(5);
  load.add_collective(0, {{2, 1e6}});
  const LinkLoadSeries s = load.series(collectives, Time::us(20), 4);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.bin, Time::us(5));
  const std::vector<double> expected{0.15, 0.7, 0.1, 0.05};
  ASSERT_EQ(s.utilisation[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(s.utilisation[0][i], expected[i], 1e-12) << "bin " << i;
}

// Every byte the run put on a link shows up in the counters once: the integral of utilisation x bin x capacity
// equals the sum of links.csv's bytes column (the same bytes, accumulated without time).
TEST(LinkLoadCli, CountersCarryEveryByteOfTheRun) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("chorus_link_load_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  using testing_support::run_chorus_split;
  ASSERT_EQ(run_chorus_split({"generate", "llm", "--model", "gpt3-1.3b", "--pp", "2", "--dp", "2", "--microbatches",
                              "2", "--out", (dir / "traces").string()})
                .status,
            0);
  const auto sim = run_chorus_split({"sim", "--workload", (dir / "traces").string(), "--comm-groups",
                                     (dir / "traces" / "comm_groups.json").string(), "--topology", "ring:4",
                                     "--bandwidth", "50GB/s", "--latency", "1us", "--model", "aware",
                                     "--timeline-link-bins", "64", "--out", (dir / "out").string()});
  ASSERT_EQ(sim.status, 0) << sim.err;
  std::ifstream in(dir / "out" / "timeline.json");
  const nlohmann::json t = nlohmann::json::parse(in);
  std::vector<double> times;
  double utilisation_sum = 0;
  size_t counters = 0;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e["ph"] != "C")
      continue;
    ++counters;
    EXPECT_EQ(e["name"], "dim 0: Ring, 50 GB/s");
    times.push_back(e["ts"].get<double>());
    utilisation_sum += e["args"]["utilisation"].get<double>();
  }
  ASSERT_EQ(counters, 65u);  // 64 bins and the return to 0 at the end
  EXPECT_EQ(times.front(), 0.0);
  const double bin_s = times[1] * 1e-6;
  const double carried = utilisation_sum * bin_s * 400e9;
  double links_csv_bytes = 0;
  std::ifstream links(dir / "out" / "links.csv");
  std::string line;
  std::getline(links, line);  // header: link,src,dst,bandwidth_GBps,latency_ns,bytes,...
  while (std::getline(links, line)) {
    size_t field = 0;
    size_t at = 0;
    for (; field < 5; ++field)
      at = line.find(',', at) + 1;
    links_csv_bytes += std::stod(line.substr(at, line.find(',', at) - at));
  }
  ASSERT_GT(links_csv_bytes, 0);
  EXPECT_NEAR(carried / links_csv_bytes, 1.0, 1e-3);  // the bin width is rounded to a picosecond
  fs::remove_all(dir);
}

}  // namespace
}  // namespace chorus

namespace chorus {
namespace {

// A bin count below 0 or above 100,000 is refused in one line naming the option, before anything runs.
TEST(LinkLoadCli, BinCountsOutOfRangeAreRefused) {
  for (const char* bins : {"-3", "100001"}) {
    const auto sim = testing_support::run_chorus_split(
        {"sim", "--workload",
         CHORUS_SOURCE_DIR "/tests/data/reference/chakra-traces/all_reduce_1048576B/8npus/all_reduce", "--topology",
         "ring:8", "--bandwidth", "50GB/s", "--latency", "1us", "--model", "flow", "--out",
         ::testing::TempDir() + "/chorus_link_bins_refused", "--timeline-link-bins", bins});
    EXPECT_EQ(sim.status, 2) << bins;
    EXPECT_NE(sim.err.find("--timeline-link-bins: is " + std::string(bins) + "; expected 0"), std::string::npos)
        << sim.err;
    EXPECT_EQ(std::count(sim.err.begin(), sim.err.end(), '\n'), 1) << sim.err;
  }
}

}  // namespace
}  // namespace chorus
