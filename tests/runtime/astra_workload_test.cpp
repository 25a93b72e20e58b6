// ASTRA-sim compatibility of the workload runtime: the microbenchmark traces in the shared reference folder,
// simulated with the network and system files ASTRA-sim used, give ASTRA-sim's measured finish times
// (astra-sim-results.csv) to the nanosecond under the unaware and aware models.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/load.hpp"

namespace chorus {
namespace {

const std::string kReference = CHORUS_REFERENCE_DIR;

struct AstraRow {
  std::string backend, topology, collective, system;
  uint32_t npus = 0;
  int64_t size = 0;
  int64_t finish_ns = 0;
};

// Rows with a matching trace set in chakra-traces/: All-Reduce on 8 NPUs, the others on 64, 1 MiB.
std::vector<AstraRow> rows_with_traces() {
  std::ifstream in(kReference + "/astra-sim-results.csv");
  std::string line;
  std::getline(in, line);
  std::vector<AstraRow> rows;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(s, cell, ',');)
      f.push_back(cell);
    if (f.size() < 7)
      continue;
    AstraRow r{f[0], f[1], f[3], f[5], static_cast<uint32_t>(std::stoul(f[2])), std::stoll(f[4]), std::stoll(f[6])};
    const uint32_t trace_npus = r.collective == "all_reduce" ? 8 : 64;
    if (r.size == 1048576 && r.npus == trace_npus)
      rows.push_back(r);
  }
  return rows;
}

TEST(AstraWorkload, MicrobenchmarkTracesGiveAstraSimTimes) {
  const std::vector<AstraRow> rows = rows_with_traces();
  // All-Reduce: Ring/FullyConnected/Switch x unaware/aware and the two 2x2x2 3-D systems (8 rows); All-Gather,
  // Reduce-Scatter, All-to-All: Ring/Switch x unaware/aware (12 rows).
  ASSERT_EQ(rows.size(), 20u);
  for (const AstraRow& row : rows) {
    SCOPED_TRACE(row.backend + " " + row.topology + " " + row.collective + " " + row.system);
    const std::string network = row.topology.find('x') != std::string::npos
                                    ? row.topology + ".yml"
                                    : row.topology + "_" + std::to_string(row.npus) + ".yml";
    TopologyRequest request;
    request.network_file = kReference + "/astra-sim-inputs/network/" + network;
    const Topology topology = load_topology(request);
    const AstraSystemConfig system = load_astra_system(kReference + "/astra-sim-inputs/system/" + row.system + ".json");
    const std::string prefix = kReference + "/chakra-traces/" + row.collective + "_1048576B/" +
                               std::to_string(row.npus) + "npus/" + row.collective;
    RuntimeOptions options;
    options.model = row.backend == "aware" ? NetworkModelKind::Aware : NetworkModelKind::Unaware;
    options.system = &system;
    options.lower_bounds = false;
    const RunReport r = run_workload(load_workload(prefix, ""), topology, options);
    EXPECT_EQ(r.finish, Time::ns(row.finish_ns));
    // ASTRA-sim's "exposed communication" = finish - GPU compute; these traces have no compute.
    EXPECT_EQ(r.npus.back().exposed_comm, Time::ns(row.finish_ns));
  }
}

}  // namespace
}  // namespace chorus
