// ASTRA-sim compatibility: every congestion-unaware row of the published ASTRA-sim measurements
// (shared/reference/astra-sim-results.csv), run from the same network YAML and system JSON, must give the
// same finish time to the nanosecond. Rows small enough are also run through the full Schedule, which must
// agree with the symmetric evaluation op for op.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/astra_network.hpp"

namespace chorus {
namespace {

struct Row {
  std::string backend, topology;
  uint32_t npus = 0;
  std::string collective;
  int64_t size = 0;
  std::string system;
  int64_t finish_ns = 0;
};

std::vector<Row> rows_of(const std::string& backend) {
  std::ifstream in(std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-results.csv");
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream s(line);
    Row r;
    std::string npus, size, finish;
    std::getline(s, r.backend, ',');
    std::getline(s, r.topology, ',');
    std::getline(s, npus, ',');
    std::getline(s, r.collective, ',');
    std::getline(s, size, ',');
    std::getline(s, r.system, ',');
    std::getline(s, finish, ',');
    r.npus = static_cast<uint32_t>(std::stoul(npus));
    r.size = std::stoll(size);
    r.finish_ns = std::stoll(finish);
    if (r.backend == backend)
      rows.push_back(r);
  }
  return rows;
}

std::string network_file(const Row& r) {
  const std::string dir = std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-inputs/network/";
  if (r.topology.find('_') != std::string::npos)
    return dir + r.topology + ".yml";  // e.g. RingxFCxSwitch_4x4x4
  return dir + r.topology + "_" + std::to_string(r.npus) + ".yml";
}

CollectiveRunResult run_row(const Row& r, const Topology& topology, Evaluation evaluation,
                            NetworkModelKind model = NetworkModelKind::Unaware) {
  const AstraSystemConfig system =
      load_astra_system(std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-inputs/system/" + r.system + ".json");
  const CollectiveKind kind = *parse_collective_kind(r.collective);
  CollectiveRunOptions options;
  options.plan = system.plan_config(kind);
  options.evaluation = evaluation;
  options.model = model;
  // The CSV's size is ASTRA-sim's comm_size; for All-Gather that is each NPU's contribution.
  const int64_t size = kind == CollectiveKind::AllGather ? r.size * r.npus : r.size;
  return run_collective(topology, Collective{kind, Bytes(size), topology.npu_count()}, options);
}

TEST(AstraCompat, EveryUnawareRowToTheNanosecond) {
  const std::vector<Row> rows = rows_of("unaware");
  ASSERT_GE(rows.size(), 40u);
  for (const Row& r : rows) {
    SCOPED_TRACE(r.topology + " " + std::to_string(r.npus) + " " + r.collective + " " + std::to_string(r.size) + " " +
                 r.system);
    const Topology topology = load_astra_network(network_file(r));
    ASSERT_EQ(topology.npu_count(), r.npus);
    const CollectiveRunResult fast = run_row(r, topology, Evaluation::Auto);
    EXPECT_EQ(fast.time, Time::ns(r.finish_ns));
    // The full schedule gives the same time where it is small enough to build in a unit test.
    if (fast.transfers <= 300'000) {
      const CollectiveRunResult full = run_row(r, topology, Evaluation::Schedule);
      EXPECT_EQ(full.evaluation, "schedule");
      EXPECT_EQ(full.time, fast.time);
    }
  }
}

TEST(AstraCompat, EveryAwareRowToTheNanosecond) {
  const std::vector<Row> rows = rows_of("aware");
  ASSERT_GE(rows.size(), 40u);
  for (const Row& r : rows) {
    SCOPED_TRACE(r.topology + " " + std::to_string(r.npus) + " " + r.collective + " " + std::to_string(r.size) + " " +
                 r.system);
    const Topology topology = load_astra_network(network_file(r));
    const CollectiveRunResult fast = run_row(r, topology, Evaluation::Auto, NetworkModelKind::Aware);
    EXPECT_EQ(fast.evaluation, "symmetric");
    EXPECT_EQ(fast.time, Time::ns(r.finish_ns));
    if (fast.transfers <= 100'000) {
      const CollectiveRunResult full = run_row(r, topology, Evaluation::Schedule, NetworkModelKind::Aware);
      EXPECT_EQ(full.time, fast.time);
    }
  }
}

TEST(AstraCompat, AwareSwitchIsUnawarePlusOneStoreAndForwardPerMessage) {
  // 8-NPU Switch (500 ns), 1 MiB ring All-Reduce, 4 splits: message m = 32768 B at 50 GiB/s = 610.35 ns
  // serialisation. Unaware: d = floor(2 * 500 + 610.35) = 1610 ns. Aware: each of the 2 hops takes
  // floor(500 + 610.35) = 1110 ns, d = 2220 ns. Per chunk: 10 + 7 (d + 10 + 60) + 7 (d + 10); four chunks.
  const Topology topology =
      load_astra_network(std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-inputs/network/Switch_8.yml");
  Row r{"aware", "Switch", 8, "all_reduce", 1 << 20, "ring_1d", 0};
  EXPECT_EQ(run_row(r, topology, Evaluation::Auto, NetworkModelKind::Unaware).time,
            Time::ns(4 * (10 + 7 * (1610 + 70) + 7 * (1610 + 10))));
  EXPECT_EQ(run_row(r, topology, Evaluation::Auto, NetworkModelKind::Aware).time,
            Time::ns(4 * (10 + 7 * (2220 + 70) + 7 * (2220 + 10))));
}

TEST(AstraCompat, WorkedExampleFromTheFormulas) {
  // 8-NPU Ring, 1 MiB, 4 splits: C = 262144, message m = C/8 = 32768 B, B = 50 * 2^30 / 1e9 B/ns,
  // d = floor(500 + 32768 / B) = 1110 ns, reduction r = 3 * floor(32768 / 1600) = 60 ns, endpoint 10 ns.
  // One chunk: 10 + 7 * (1110 + 10 + 60) + 7 * (1110 + 10) = 16110 ns; four chunks back to back: 64440 ns.
  const Topology topology =
      load_astra_network(std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-inputs/network/Ring_8.yml");
  Row r{"unaware", "Ring", 8, "all_reduce", 1 << 20, "ring_1d", 0};
  EXPECT_EQ(run_row(r, topology, Evaluation::Auto).time, Time::ns(4 * (10 + 7 * 1180 + 7 * 1120)));
}

}  // namespace
}  // namespace chorus
