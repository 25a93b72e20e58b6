// chorus codesign's nccl and synth dimensions: the tables against NCCL's model of the shipped machine preset and
// against synthesis run directly at the dimension's own bandwidth, the interpolation by hand, bounds every
// collective must respect, and the search over them against a brute force.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/codesign/cost_file.hpp"
#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/codesign/solver.hpp"
#include "chorus/llm/block.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/nccl/cost_model.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus::codesign {
namespace {

namespace fs = std::filesystem;
using llm::Collective;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("chorus_codesign_tables_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(CodesignTables, CurveInterpolatesByHand) {
  const llm::CollectiveCurve c{{1e3, 1e6, 2e6}, {1e-5, 2e-5, 3e-5}};
  EXPECT_DOUBLE_EQ(c.at(10), 1e-5);  // below the first point: its time
  EXPECT_DOUBLE_EQ(c.at(1e3), 1e-5);
  EXPECT_NEAR(c.at(500500), 1.5e-5, 1e-18);  // halfway between the first two
  EXPECT_NEAR(c.at(2e6), 3e-5, 1e-18);
  EXPECT_NEAR(c.at(4e6), 5e-5, 1e-18);  // past the last: the last slope, 1e-5 s per 1e6 B
  llm::CollectiveTable t;
  t.group_sizes = {2, 8};
  t.curves[static_cast<size_t>(Collective::kAllReduce)] = {{{1}, {1.0}}, {{1}, {8.0}}};
  EXPECT_EQ(t.time(Collective::kAllReduce, 5, 2), 1.0);
  EXPECT_EQ(t.time(Collective::kAllReduce, 5, 4), 8.0);   // not tabulated: the next larger size
  EXPECT_EQ(t.time(Collective::kAllReduce, 5, 16), 8.0);  // above every size: the largest
}

// nccl on the first dimension is priced as switch-reduce (NVLS needs SHARP switches), elsewhere and synth as ring.
// By hand: 16 GPUs at $1,000, NVLink 75 GB/s at $10 per GB/s in domains of 16 beyond the 8-GPU server: 2 ports of
// 50 GB/s per GPU, one switch level, $2,000 NIC + $562.5 switch port (x 1.1 with the premium) + $1,280 cable.
TEST(CodesignTables, NcclOnTheFirstDimensionIsPricedAsSwitchReduce) {
  CostFile prices;
  prices.gpu_dollars = 1000;
  DimensionPrices p;
  p.dollars_per_gbps = 10;
  p.node_gpus = 8;
  p.nic_port_dollars = 2000;
  p.switch_port_dollars = 562.5;
  p.cable_dollars = 1280;
  p.switch_reduce_premium = 0.1;
  prices.dimensions = {p, p};
  const double plain = 16 * 75 * 10.0 + 16 * 2 * (2000 + 562.5 + 1280);
  const double reducing = 16 * 75 * 10.0 + 16 * 2 * (2000 + 562.5 * 1.1 + 1280);
  auto cost = [&](Algorithm first, Algorithm second) {
    return network_cost({{75, 16, 1, first}, {75, 16, 1, second}}, prices, 16);
  };
  EXPECT_DOUBLE_EQ(cost(Algorithm::kNccl, Algorithm::kRing), 16000 + reducing + plain);
  EXPECT_DOUBLE_EQ(cost(Algorithm::kRing, Algorithm::kNccl), 16000 + plain + plain);
  EXPECT_DOUBLE_EQ(cost(Algorithm::kSynth, Algorithm::kSynth), 16000 + plain + plain);
  EXPECT_DOUBLE_EQ(cost(Algorithm::kSwitchReduce, Algorithm::kSwitchReduce), 16000 + reducing + reducing);
}

// The two-dimension template every test here reads: 16 GPUs, an 8-GPU NVLink domain and a scale-out fabric.
NetworkTemplate two_dims(const std::string& name, const std::string& nv_algorithms, const std::string& so_algorithms) {
  return load_network_template(write_file(name, R"(dimensions:
  - name: nvlink
    size: 8
    bandwidth_GBps: {values: [450, 900], default: 450}
    algorithms: )" + nv_algorithms + R"(
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [50, 100], default: 50}
    algorithms: )" + so_algorithms + "\n"));
}

NetworkPoint point(double nv_gbps, Algorithm nv, double so_gbps, Algorithm so, int64_t gpus) {
  NetworkPoint p;
  p.dims = {{nv_gbps, 8, 1, nv}, {so_gbps, gpus, 1, so}};
  return p;
}

double nccl_seconds(const nccl::CommSystem& s, CollectiveKind kind, int64_t bytes) {
  return nccl::choose(s, kind, bytes).time_us * 1e-6;
}

// At the preset's own bandwidths the nccl dimensions are exactly `chorus collective --algorithm nccl --machine
// dgx-h100`: the first dimension one DGX H100 node (groups of 2 to 8 of its GPUs), the outer one GPUs on separate
// nodes, each with one of the node's 50 GB/s NICs.
TEST(CodesignTables, NcclAtThePresetsBandwidthIsThePreset) {
  const llm::System machine = llm::resolve_system("dgx-h100");
  const machine::Machine& dgx = machine::machine("dgx-h100");
  const NetworkTemplate t = two_dims("nccl.yml", "[nccl]", "[nccl]");
  const NetworkPoint p = point(450, Algorithm::kNccl, 50, Algorithm::kNccl, 16);
  const DimensionTables tables(machine, &dgx, t, {p}, 1);
  const llm::System sys = network_system(machine, t, p, &tables);
  const std::pair<Collective, CollectiveKind> kinds[] = {{Collective::kAllReduce, CollectiveKind::AllReduce},
                                                         {Collective::kReduceScatter, CollectiveKind::ReduceScatter},
                                                         {Collective::kAllGather, CollectiveKind::AllGather}};
  for (const auto& [planner, nccl_kind] : kinds) {
    for (const int64_t bytes : {int64_t{1} << 12, int64_t{1} << 20, int64_t{1} << 30}) {
      for (const uint32_t n : {2u, 4u, 8u}) {
        const double want = nccl_seconds(nccl::comm_system(dgx, 1, {}, n), nccl_kind, bytes);
        EXPECT_NEAR(sys.networks[0].op_time(planner, static_cast<double>(bytes), n), want, 1e-12 * want);
      }
      const double want = nccl_seconds(nccl::comm_system(dgx, 16, {}, 1), nccl_kind, bytes);
      EXPECT_NEAR(sys.networks[1].op_time(planner, static_cast<double>(bytes), 16), want, 1e-12 * want);
    }
  }
  // Back of the envelope: an 8-GPU All-Reduce of 1 GiB at 450 GB/s moves 2 x 7/8 GiB per GPU; NVLS reduces in the
  // switch, so its bus bandwidth may pass the links' 450 GB/s, but stays within the same few hundred GB/s.
  const double ar = sys.networks[0].op_time(Collective::kAllReduce, std::pow(2.0, 30), 8);
  const double busbw = 2.0 * 7 / 8 * std::pow(2.0, 30) / ar / 1e9;
  EXPECT_GT(busbw, 300);
  EXPECT_LT(busbw, 600);
  // All-to-All (MoE dispatch, all_to_all_time) is NCCL's send/receive to every peer; point-to-point of S bytes its
  // All-to-All of two GPUs whose send buffer is 2 S (half for the peer).
  for (const int64_t bytes : {int64_t{1} << 16, int64_t{1} << 26}) {
    for (const uint32_t n : {2u, 8u}) {
      const double want = nccl_seconds(nccl::comm_system(dgx, 1, {}, n), CollectiveKind::AllToAll, bytes);
      EXPECT_NEAR(llm::all_to_all_time(sys.networks[0], static_cast<double>(bytes), n), want, 1e-12 * want);
    }
    const double a2a = nccl_seconds(nccl::comm_system(dgx, 16, {}, 1), CollectiveKind::AllToAll, bytes);
    EXPECT_NEAR(llm::all_to_all_time(sys.networks[1], static_cast<double>(bytes), 16), a2a, 1e-12 * a2a);
    const double p2p = nccl_seconds(nccl::comm_system(dgx, 2, {}, 1), CollectiveKind::AllToAll, 2 * bytes);
    EXPECT_NEAR(sys.networks[1].op_time(Collective::kP2p, static_cast<double>(bytes), 2), p2p, 1e-12 * p2p);
  }
}

// Twice the bandwidth: never slower, and a large All-Reduce on 16 separate nodes at 100 GB/s each reaches a bus
// bandwidth between half and all of the NIC's.
TEST(CodesignTables, NcclFollowsTheDimensionsBandwidth) {
  const llm::System machine = llm::resolve_system("dgx-h100");
  const NetworkTemplate t = two_dims("nccl2.yml", "[nccl]", "[nccl]");
  const NetworkPoint slow = point(450, Algorithm::kNccl, 50, Algorithm::kNccl, 16);
  const NetworkPoint fast = point(900, Algorithm::kNccl, 100, Algorithm::kNccl, 16);
  const DimensionTables tables(machine, &machine::machine("dgx-h100"), t, {slow, fast}, 1);
  EXPECT_EQ(tables.size(), 4u);
  const llm::System a = network_system(machine, t, slow, &tables);
  const llm::System b = network_system(machine, t, fast, &tables);
  for (const Collective c : {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather}) {
    for (double bytes = 1e3; bytes < 1e11; bytes *= 7) {
      EXPECT_LE(b.networks[0].op_time(c, bytes, 8), a.networks[0].op_time(c, bytes, 8) * (1 + 1e-12));
      EXPECT_LE(b.networks[1].op_time(c, bytes, 16), a.networks[1].op_time(c, bytes, 16) * (1 + 1e-12));
    }
  }
  const double s = std::pow(2.0, 32);
  const double busbw = 2.0 * 15 / 16 * s / b.networks[1].op_time(Collective::kAllReduce, s, 16) / 1e9;
  EXPECT_GT(busbw, 50);
  EXPECT_LE(busbw, 100);
}

// The synth table, built at a reference bandwidth and rescaled, against synthesis at the dimension's own bandwidth
// (450 GB/s x the tier's efficiency, half the tier's latency per link); and every synthesized All-Reduce on a switch
// that does not reduce needs at least 2 (n-1)/n of the bytes through each GPU's link.
TEST(CodesignTables, SynthRescaledMatchesSynthesisAtTheDimensionsBandwidth) {
  const llm::System machine = llm::resolve_system("dgx-h100");
  const NetworkTemplate t = two_dims("synth.yml", "[synth]", "[ring]");
  const NetworkPoint p = point(450, Algorithm::kSynth, 50, Algorithm::kRing, 8);
  const DimensionTables tables(machine, nullptr, t, {p}, 2);
  const llm::System sys = network_system(machine, t, p, &tables);
  const llm::NetworkTier& nv = sys.networks[0];
  const double link_bps = 450e9 * machine.networks.front().efficiency;
  const Time link_latency = Time::from_seconds(machine.networks.front().latency_s / 2);
  for (const int64_t n : {4, 8}) {
    for (const double seconds : {1e-5, 1e-3}) {
      const double bytes = seconds * link_bps;  // a grid point of the table
      SynthOptions o;
      o.kind = CollectiveKind::AllReduce;
      o.size = Bytes(std::llround(bytes));
      const double direct =
          synthesize(switch_star(static_cast<uint32_t>(n), {Bandwidth::bytes_per_s(link_bps), link_latency}), o)
              .time.seconds();
      const double tabled = nv.op_time(Collective::kAllReduce, bytes, n);
      EXPECT_NEAR(tabled, direct, 1e-6 * direct) << n << " GPUs, " << bytes << " B";
      const double bound = 2.0 * (n - 1) / n * bytes / link_bps;
      EXPECT_GE(tabled, bound * (1 - 1e-9));
      // All-to-All: each GPU sends (n-1)/n of its buffer through its one link.
      EXPECT_GE(llm::all_to_all_time(nv, bytes, n), (n - 1.0) / n * bytes / link_bps * (1 - 1e-9));
    }
  }
  // Point-to-point keeps the tier's formula: latency + bytes / (bandwidth x efficiency).
  EXPECT_DOUBLE_EQ(nv.op_time(Collective::kP2p, 1e6, 2), nv.latency_s + 1e6 / (450e9 * nv.efficiency));
}

// The search with nccl and synth dimensions is still exact: its top five are those of every network's system built
// from the same tables and searched without pruning.
TEST(CodesignTables, SearchMatchesBruteForceOverTheTables) {
  const llm::Application app = llm::read_application(std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama2-7b.json");
  llm::System machine = llm::resolve_system("dgx-h100");
  machine.mem2.capacity_bytes = 0;
  const NetworkTemplate t = two_dims("search.yml", "[ring, nccl, synth]", "[ring, nccl]");
  const CostFile prices = load_cost_file(write_file("search_cost.yml", R"(gpu_dollars: 30000
dimensions:
  nvlink: {dollars_per_GBps: 20, node_gpus: 8}
  scale-out: {port_GBps: 50, nic_port_dollars: 2000, switch_port_dollars: 500, cable_dollars: 1000, radix: 64}
)"),
                                         t);
  CodesignSpec spec;
  spec.gpus = 16;
  spec.batch = 32;
  spec.datatype = machine.datatype_index("bfloat16");
  spec.top_n = 5;
  spec.threads = 2;
  spec.nccl_machine = &machine::machine("dgx-h100");
  const CodesignResult r = run_codesign(app, machine, t, prices, spec);
  ASSERT_EQ(r.networks, 24u);  // 2 bandwidths x 3 algorithms x 2 bandwidths x 2 algorithms

  const std::vector<NetworkPoint> all = enumerate_networks(t, prices, 16);
  const DimensionTables tables(machine, spec.nccl_machine, t, all, 2);
  std::vector<std::pair<double, double>> want;  // (time, cost) of every network's five best
  for (const NetworkPoint& p : all) {
    const llm::IterationModel model(app, network_system(machine, t, p, &tables));
    llm::SearchSpec s;
    s.num_procs = 16;
    s.max_batch = 32;
    s.datatype = spec.datatype;
    s.top_n = 5;
    s.prune = false;
    s.dims.exact_batch = true;
    for (const llm::Candidate& c : llm::run_search(model, s).top)
      want.emplace_back(c.stats.total_time, p.cost);
  }
  std::sort(want.begin(), want.end());
  ASSERT_EQ(r.top.size(), 5u);
  // Designs the same at the same time and cost are listed once; the brute force's list may repeat one, so compare
  // the fastest time and that every listed design is one of the brute force's, in order.
  EXPECT_NEAR(r.top.front().time_s, want.front().first, 1e-12 * want.front().first);
  size_t j = 0;
  for (const Design& d : r.top) {
    while (j < want.size() && !(std::abs(want[j].first - d.time_s) <= 1e-12 * d.time_s && want[j].second == d.cost))
      ++j;
    EXPECT_LT(j, want.size()) << "design at " << d.time_s << " s, $" << d.cost << " is not the brute force's";
  }
}

}  // namespace
}  // namespace chorus::codesign
