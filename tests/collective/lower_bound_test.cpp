// Tests of the collective lower bounds (lower_bound.hpp): closed forms of tacos.md §7, brute-force subset
// enumeration as a certificate for the max-flow (Dinkelbach) solver, and every row of the reference table
// shared/reference/tacos-bounds.csv (cut bound of Zhao & Krishnamurthy, arXiv:2305.18461 §1.1).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/topology/edge_list.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {
namespace {

constexpr double kGiB = 1073741824.0;
const Bandwidth kB = Bandwidth::gib_per_s(50);
const Time kAlpha = Time::ns(500);

Collective collective(CollectiveKind kind, const Topology& t, Bytes size = Bytes::gib(1)) {
  return Collective{kind, size, t.npu_count()};
}

LowerBound bound_of(const Topology& t, CollectiveKind kind, BoundMethod method = BoundMethod::AllSinks) {
  BoundOptions options;
  options.method = method;
  return lower_bound(t, collective(kind, t), options);
}

// ---- Small topologies built by hand ------------------------------------------------------------------------

Topology ring(uint32_t n, bool bidirectional, bool with_dimensions = false) {
  TopologyBuilder b(bidirectional ? "ring" : "uniring", n);
  for (uint32_t i = 0; i < (n == 2 ? 1 : n); ++i) {  // a ring of 2 is a single pair, as in the generators
    const NodeId a{i}, next{(i + 1) % n};
    if (bidirectional) {
      b.add_duplex(a, next, kB, kAlpha);
    } else {
      b.add_link(a, next, kB, kAlpha);
    }
  }
  if (with_dimensions)
    b.set_dimensions({{bidirectional ? BlockKind::Ring : BlockKind::UniRing, n, kB, kAlpha}});
  return std::move(b).seal();
}

// X x Y torus (wrap = true) or mesh, NPU id = x + X*y; `slow_link` makes one link 40 GiB/s to break symmetry.
Topology grid(uint32_t x_size, uint32_t y_size, bool wrap, bool slow_link = false) {
  TopologyBuilder b(wrap ? "torus" : "mesh", x_size * y_size);
  auto id = [&](uint32_t x, uint32_t y) { return NodeId{x + x_size * y}; };
  for (uint32_t y = 0; y < y_size; ++y) {
    for (uint32_t x = 0; x < x_size; ++x) {
      if (wrap || x + 1 < x_size)
        b.add_duplex(id(x, y), id((x + 1) % x_size, y), kB, kAlpha);
      if (wrap || y + 1 < y_size)
        b.add_duplex(id(x, y), id(x, (y + 1) % y_size), kB, kAlpha);
    }
  }
  if (slow_link)
    b.add_link(id(0, 0), id(1, 1), Bandwidth::gib_per_s(40), kAlpha);
  const BlockKind kind = wrap ? BlockKind::Ring : BlockKind::Mesh;
  b.set_dimensions({{kind, x_size, kB, kAlpha}, {kind, y_size, kB, kAlpha}});
  return std::move(b).seal();
}

Topology full_mesh(uint32_t n, std::string name = "fc") {
  TopologyBuilder b(std::move(name), n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = i + 1; j < n; ++j)
      b.add_duplex(NodeId{i}, NodeId{j}, kB, kAlpha);
  }
  b.set_dimensions({{BlockKind::FullyConnected, n, kB, kAlpha}});
  return std::move(b).seal();
}

Topology hypercube(uint32_t dims) {
  const uint32_t n = 1u << dims;
  TopologyBuilder b("hypercube", n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t d = 0; d < dims; ++d) {
      if (!(i >> d & 1))
        b.add_duplex(NodeId{i}, NodeId{i ^ (1u << d)}, kB, kAlpha);
    }
  }
  return std::move(b).seal();
}

// `servers` x `gpus`: full mesh of 100 GiB/s inside a server, GPU g of server s and of server s+1 joined by a
// 12.5 GiB/s rail (as the tacos-inputs dgxlike_* files).
Topology dgx_like(uint32_t servers, uint32_t gpus) {
  TopologyBuilder b("dgx", servers * gpus);
  const Bandwidth nvlink = Bandwidth::gib_per_s(100), rail = Bandwidth::gib_per_s(12.5);
  for (uint32_t s = 0; s < servers; ++s) {
    for (uint32_t i = 0; i < gpus; ++i) {
      for (uint32_t j = i + 1; j < gpus; ++j)
        b.add_duplex(NodeId{s * gpus + i}, NodeId{s * gpus + j}, nvlink, Time::ns(250));
    }
  }
  const uint32_t rail_pairs = servers == 2 ? 1 : servers;  // a ring of 2 servers is a single pair
  for (uint32_t s = 0; s < rail_pairs; ++s) {
    for (uint32_t g = 0; g < gpus; ++g) {
      b.add_duplex(NodeId{s * gpus + g}, NodeId{(s + 1) % servers * gpus + g}, rail, Time::us(2));
    }
  }
  return std::move(b).seal();
}

// The same hierarchy with switches: each server's GPUs hang off one NVSwitch, and GPU 0 of every server off a
// shared leaf switch.
Topology dgx_with_switches(uint32_t servers, uint32_t gpus) {
  TopologyBuilder b("dgx-switched", servers * gpus);
  const NodeId leaf = b.add_switch();
  for (uint32_t s = 0; s < servers; ++s) {
    const NodeId nvswitch = b.add_switch();
    for (uint32_t g = 0; g < gpus; ++g)
      b.add_duplex(NodeId{s * gpus + g}, nvswitch, Bandwidth::gib_per_s(100), Time::ns(250));
    b.add_duplex(NodeId{s * gpus}, leaf, Bandwidth::gib_per_s(25), Time::us(1));
  }
  return std::move(b).seal();
}

// A strongly connected random directed graph with heterogeneous links and optional switches. Raw mt19937 output
// (fully specified by the standard) keeps it identical on every platform.
Topology random_graph(uint32_t seed, uint32_t npus, uint32_t switches, uint32_t extra_links) {
  std::mt19937 rng(seed);
  const double bandwidths[] = {10, 12.5, 25, 40, 100};
  auto pick_bw = [&] { return Bandwidth::gb_per_s(bandwidths[rng() % 5]); };
  auto pick_lat = [&] { return Time::ns(100 * (1 + rng() % 20)); };
  TopologyBuilder b("random-" + std::to_string(seed), npus);
  for (uint32_t s = 0; s < switches; ++s)
    b.add_switch();
  const uint32_t nodes = npus + switches;
  // A directed cycle through every node in random order makes the graph strongly connected.
  std::vector<uint32_t> order(nodes);
  for (uint32_t i = 0; i < nodes; ++i)
    order[i] = i;
  for (uint32_t i = nodes - 1; i > 0; --i)
    std::swap(order[i], order[rng() % (i + 1)]);
  for (uint32_t i = 0; i < nodes; ++i)
    b.add_link(NodeId{order[i]}, NodeId{order[(i + 1) % nodes]}, pick_bw(), pick_lat());
  for (uint32_t k = 0; k < extra_links; ++k) {
    const uint32_t a = rng() % nodes, c = rng() % nodes;
    if (a != c)
      b.add_link(NodeId{a}, NodeId{c}, pick_bw(), pick_lat());
  }
  return std::move(b).seal();
}

double us(Time t) {
  return t.microseconds();
}

// ---- Closed forms (tacos.md §7) -------------------------------------------------------------------------------

// M / B in microseconds for M = 1 GiB, B = 50 GiB/s.
constexpr double kMOverBUs = 1e6 / 50;
constexpr double kPs = 1e-6;  // one picosecond in microseconds: exact arithmetic rounds down by less

TEST(LowerBound, BidirectionalRingClosedForm) {
  for (uint32_t n : {2u, 3u, 8u, 16u}) {
    SCOPED_TRACE(n);
    const Topology t = ring(n, true);
    const double ag = n == 2 ? kMOverBUs / 2 : (n - 1.0) / (2.0 * n) * kMOverBUs;  // a ring of 2 is one pair
    const LowerBound b = bound_of(t, CollectiveKind::AllGather);
    EXPECT_NEAR(us(b.bandwidth_bound), ag, kPs);
    EXPECT_LE(b.bandwidth_bound.microseconds(), ag);
    EXPECT_EQ(b.latency_bound, kAlpha * (n / 2));
    EXPECT_EQ(b.bound, std::max(b.bandwidth_bound, b.latency_bound));
    const LowerBound ar = bound_of(t, CollectiveKind::AllReduce);
    EXPECT_NEAR(us(ar.bandwidth_bound), 2 * ag, 2 * kPs);
    ASSERT_TRUE(ar.information_bound.has_value());
    // Information cut: any separating cut of a bidirectional ring has two links each way (one for N = 2).
    EXPECT_NEAR(us(*ar.information_bound), n == 2 ? kMOverBUs : kMOverBUs / 2, kPs);
  }
}

TEST(LowerBound, UnidirectionalRingClosedForm) {
  const uint32_t n = 8;
  const Topology t = ring(n, false);
  const double expected = (n - 1.0) / n * kMOverBUs;
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    const LowerBound b = bound_of(t, kind);
    EXPECT_NEAR(us(b.bandwidth_bound), expected, kPs);
    EXPECT_EQ(b.latency_bound, kAlpha * (n - 1));
    EXPECT_EQ(b.worst_cut_npus, n - 1);
  }
  const LowerBound ar = bound_of(t, CollectiveKind::AllReduce);
  EXPECT_NEAR(us(ar.bound), 2 * expected, 2 * kPs);
  EXPECT_EQ(ar.latency_bound, kAlpha * (2 * (n - 1)));
}

TEST(LowerBound, CompleteGraphClosedForm) {
  for (uint32_t n : {4u, 8u, 16u}) {
    const LowerBound b = bound_of(full_mesh(n), CollectiveKind::AllGather);
    EXPECT_NEAR(us(b.bandwidth_bound), kMOverBUs / n, kPs) << n;
    EXPECT_EQ(b.latency_bound, kAlpha);
  }
}

TEST(LowerBound, TorusAndHypercubeClosedForm) {
  // (N-1) M / (2 d N B) with 2d links of B per NPU.
  const Topology torus = grid(4, 4, true);
  EXPECT_NEAR(us(bound_of(torus, CollectiveKind::AllGather).bandwidth_bound), 15.0 / (4 * 16) * kMOverBUs, kPs);
  EXPECT_EQ(bound_of(torus, CollectiveKind::AllGather).latency_bound, kAlpha * 4);
  const Topology torus_3x5 = grid(3, 5, true);
  EXPECT_NEAR(us(bound_of(torus_3x5, CollectiveKind::ReduceScatter).bandwidth_bound), 14.0 / (4 * 15) * kMOverBUs, kPs);
  const Topology cube = hypercube(4);  // 4 links per NPU: 2d = 4
  EXPECT_NEAR(us(bound_of(cube, CollectiveKind::AllGather).bandwidth_bound), 15.0 / (4 * 16) * kMOverBUs, kPs);
  EXPECT_EQ(bound_of(cube, CollectiveKind::AllGather).latency_bound, kAlpha * 4);
}

TEST(LowerBound, MeshCornerCut) {
  // tacos.md: a 2D mesh has the ring's bound (N-1)M/(2NB): the cut around a corner NPU.
  const LowerBound b = bound_of(grid(4, 4, false), CollectiveKind::AllGather);
  EXPECT_NEAR(us(b.bandwidth_bound), 15.0 / 32 * kMOverBUs, kPs);
  EXPECT_EQ(b.worst_cut_npus, 15u);
  EXPECT_EQ(b.latency_bound, kAlpha * 6);
}

TEST(LowerBound, DgxLikeBindsOnOneServer) {
  // Two servers of 8 GPUs: one server's 8 shards leave through 8 rails of 12.5 GiB/s:
  // (M/16) * 8 / (8 * 12.5 GiB/s) = 5000 us for 1 GiB (tacos-bounds.csv dgxlike_2x8).
  const LowerBound b = bound_of(dgx_like(2, 8), CollectiveKind::AllGather);
  EXPECT_NEAR(us(b.bandwidth_bound), 1e6 / 16 / 12.5, kPs);
  EXPECT_EQ(b.worst_cut_npus, 8u);
  EXPECT_EQ(b.latency_bound, Time::ns(2250));  // NVLink hop + rail: 0.25 + 2 us
  const LowerBound brute = bound_of(dgx_like(2, 8), CollectiveKind::AllGather, BoundMethod::BruteForce);
  EXPECT_EQ(brute.bandwidth_bound, b.bandwidth_bound);
}

TEST(LowerBound, RoundsDownToWholePicoseconds) {
  // 3-NPU bidirectional ring at 1 B/s, M = 1 B: (M/3) * 2 / (2 B/s) = 1/3 s = 333333333333.33 ps.
  TopologyBuilder b("tiny", 3);
  for (uint32_t i = 0; i < 3; ++i)
    b.add_duplex(NodeId{i}, NodeId{(i + 1) % 3}, Bandwidth::bytes_per_s(1), Time::zero());
  const Topology t = std::move(b).seal();
  const LowerBound lb = lower_bound(t, Collective{CollectiveKind::AllGather, Bytes(1), 3});
  EXPECT_EQ(lb.bandwidth_bound.picoseconds(), 333'333'333'333);
  EXPECT_NEAR(lb.all_gather->seconds, 1.0 / 3, 1e-15);
}

// ---- Brute-force certificate -----------------------------------------------------------------------------------

void expect_same_bounds(const Topology& t, CollectiveKind kind, BoundOptions flows) {
  BoundOptions brute = flows;
  brute.method = BoundMethod::BruteForce;
  const LowerBound a = lower_bound(t, collective(kind, t), flows);
  const LowerBound b = lower_bound(t, collective(kind, t), brute);
  // Both evaluate their cut exactly, so equal ratios give identical picoseconds.
  EXPECT_EQ(a.bandwidth_bound, b.bandwidth_bound) << to_string(kind);
  EXPECT_EQ(a.latency_bound, b.latency_bound) << to_string(kind);
  EXPECT_EQ(a.bound, b.bound) << to_string(kind);
  EXPECT_EQ(a.information_bound, b.information_bound) << to_string(kind);
}

TEST(LowerBound, MaxFlowMatchesBruteForceOnRandomGraphs) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const uint32_t npus = 3 + seed % 10, switches = seed % 4, extra = seed % 3 == 0 ? 3 : 2 * (npus + switches);
    const Topology t = random_graph(seed, npus, switches, extra);
    SCOPED_TRACE(t.name());
    BoundOptions options;
    options.method = BoundMethod::AllSinks;
    options.root = NodeId{seed % npus};
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
                                CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
      expect_same_bounds(t, kind, options);
    }
  }
}

TEST(LowerBound, MaxFlowMatchesBruteForceOnStructuredGraphs) {
  const Topology graphs[] = {ring(9, true),     ring(7, false),         grid(4, 4, true),
                             grid(3, 4, false), grid(4, 4, true, true), full_mesh(6),
                             hypercube(4),      dgx_like(2, 8),         dgx_with_switches(3, 4)};
  for (const Topology& t : graphs) {
    SCOPED_TRACE(t.name());
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce}) {
      expect_same_bounds(t, kind, BoundOptions{});
    }
  }
}

TEST(LowerBound, BruteForceCertifiesWorstCut) {
  // The reported cut is a real set whose ratio gives the bound: recompute B+(S) from the links.
  const Topology t = random_graph(7, 9, 2, 20);
  const LowerBound b = bound_of(t, CollectiveKind::AllGather);
  std::vector<char> in(t.node_count(), 0);
  for (NodeId n : b.worst_cut)
    in[n.value] = 1;
  double out = 0;
  uint32_t npus = 0;
  for (uint32_t n = 0; n < t.npu_count(); ++n)
    npus += in[n];
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    if (in[t.link_src(LinkId{l}).value] && !in[t.link_dst(LinkId{l}).value]) {
      out += t.link_bandwidth(LinkId{l}).bytes_per_second();
    }
  }
  EXPECT_EQ(npus, b.worst_cut_npus);
  EXPECT_NEAR(b.all_gather->seconds, kGiB / t.npu_count() * npus / out, 1e-12);
}

TEST(LowerBound, AllToAllSingleNodeCutsAreSound) {
  for (uint32_t seed = 50; seed < 60; ++seed) {
    const Topology t = random_graph(seed, 4 + seed % 8, seed % 3, 12);
    const LowerBound fast = bound_of(t, CollectiveKind::AllToAll);
    const LowerBound exact = bound_of(t, CollectiveKind::AllToAll, BoundMethod::BruteForce);
    EXPECT_EQ(fast.method, BoundMethod::SingleNodeCuts);
    EXPECT_LE(fast.bandwidth_bound, exact.bandwidth_bound) << t.name();
    EXPECT_EQ(fast.latency_bound, exact.latency_bound) << t.name();
  }
  // Full mesh: the single-NPU cut binds: (M/N)(N-1)/((N-1)B) = M/(NB).
  const LowerBound fc = bound_of(full_mesh(8), CollectiveKind::AllToAll);
  EXPECT_NEAR(us(fc.bandwidth_bound), kMOverBUs / 8, kPs);
}

// ---- Sink selection -----------------------------------------------------------------------------------------

TEST(LowerBound, SymmetryDetectionIsExplicit) {
  EXPECT_TRUE(npus_provably_symmetric(grid(4, 4, true)));
  EXPECT_TRUE(npus_provably_symmetric(ring(8, true, true)));
  EXPECT_TRUE(npus_provably_symmetric(ring(8, false, true)));
  EXPECT_TRUE(npus_provably_symmetric(full_mesh(5)));
  EXPECT_FALSE(npus_provably_symmetric(grid(4, 4, false)));       // mesh: corners differ from the middle
  EXPECT_FALSE(npus_provably_symmetric(grid(4, 4, true, true)));  // one extra link breaks the translations
  EXPECT_FALSE(npus_provably_symmetric(ring(8, true)));           // no dimensions: nothing to verify
  EXPECT_FALSE(npus_provably_symmetric(dgx_with_switches(2, 4)));
  EXPECT_EQ(bound_of(grid(4, 4, true), CollectiveKind::AllGather, BoundMethod::Auto).method, BoundMethod::OneSink);
  EXPECT_EQ(bound_of(grid(4, 4, false), CollectiveKind::AllGather, BoundMethod::Auto).method, BoundMethod::AllSinks);
}

TEST(LowerBound, HypercubeEdgeListIsSymmetricByXorTranslations) {
  // TACOS's hypercube inputs link i and i XOR 2^k: XOR with each power of two maps the links onto themselves, a
  // group transitive on the NPUs, so one sink suffices and gives the all-sinks bound. A ring of 8 as an edge list
  // is not XOR-invariant (0-1 and 1-2 map to 1-0 and 0-3): no proof, all sinks.
  const Topology cube = load_edge_list(std::string(CHORUS_REFERENCE_DIR) + "/tacos-inputs/hypercube_d6.txt");
  EXPECT_TRUE(npus_provably_symmetric(cube));
  const LowerBound one = bound_of(cube, CollectiveKind::AllGather, BoundMethod::Auto);
  EXPECT_EQ(one.method, BoundMethod::OneSink);
  EXPECT_EQ(one.bound, bound_of(cube, CollectiveKind::AllGather, BoundMethod::AllSinks).bound);
  EXPECT_FALSE(npus_provably_symmetric(ring(8, true)));
}

TEST(LowerBound, OneSinkIsExactOnSymmetricAndValidElsewhere) {
  const Topology torus = grid(6, 5, true);
  EXPECT_EQ(bound_of(torus, CollectiveKind::AllReduce, BoundMethod::OneSink).bound,
            bound_of(torus, CollectiveKind::AllReduce, BoundMethod::AllSinks).bound);
  for (uint32_t seed = 100; seed < 110; ++seed) {
    const Topology t = random_graph(seed, 8, 2, 10);
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
      EXPECT_LE(bound_of(t, kind, BoundMethod::OneSink).bound, bound_of(t, kind, BoundMethod::AllSinks).bound);
    }
  }
}

// ---- Errors and edge cases ----------------------------------------------------------------------------------

TEST(LowerBound, RejectsDisconnectedNpus) {
  TopologyBuilder b("split", 3);
  b.add_duplex(NodeId{0}, NodeId{1}, kB, kAlpha);
  b.add_link(NodeId{1}, NodeId{2}, kB, kAlpha);  // NPU 2 cannot send back
  const Topology t = std::move(b).seal();
  EXPECT_THROW(bound_of(t, CollectiveKind::AllGather), Error);
}

TEST(LowerBound, RejectsBadRequests) {
  const Topology t = ring(4, true);
  EXPECT_THROW(lower_bound(t, Collective{CollectiveKind::AllGather, Bytes(-1), 4}), Error);
  BoundOptions root;
  root.root = NodeId{7};
  EXPECT_THROW(lower_bound(t, collective(CollectiveKind::Broadcast, t), root), Error);
  EXPECT_THROW(bound_of(grid(5, 5, true), CollectiveKind::AllGather, BoundMethod::BruteForce), Error);
  EXPECT_THROW(bound_of(t, CollectiveKind::AllGather, BoundMethod::SingleNodeCuts), Error);
}

TEST(LowerBound, SingleNpuNeedsNoTime) {
  TopologyBuilder b("one", 1);
  const LowerBound lb = bound_of(std::move(b).seal(), CollectiveKind::AllReduce);
  EXPECT_EQ(lb.bound, Time::zero());
}

TEST(LowerBound, BroadcastOnRingUsesBothDirections) {
  // From any root of a bidirectional ring, every cut around the root has two outgoing links: M / (2B).
  const LowerBound b = bound_of(ring(8, true), CollectiveKind::Broadcast);
  EXPECT_NEAR(us(b.bandwidth_bound), kMOverBUs / 2, kPs);
  EXPECT_EQ(b.latency_bound, kAlpha * 4);
}

// ---- Reference table: shared/reference/tacos-bounds.csv --------------------------------------------------------

std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream stream(line);
    for (std::string cell; std::getline(stream, cell, ',');)
      cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
      row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

// The table has 3 decimals in microseconds (and its AR column sums two rounded values).
constexpr double kCsvTolUs = 0.002;

// The input of a table row. fc_256 and fc_1024 have no file in tacos-inputs/; they are the complete graph with
// the links of fc_16 and fc_64 (50 GiB/s, 0.5 us; checked in ReferenceFullMeshInputsMatchGenerated).
Topology reference_input(const std::string& label) {
  const std::string path = std::string(CHORUS_REFERENCE_DIR) + "/tacos-inputs/" + label + ".txt";
  if (label.starts_with("fc_") && !std::ifstream(path))
    return full_mesh(std::stoul(label.substr(3)), label);
  return load_edge_list(path);
}

void check_reference_row(const std::map<std::string, std::string>& row) {
  const std::string label = row.at("label");
  SCOPED_TRACE(label);
  const Topology t = reference_input(label);
  ASSERT_EQ(t.npu_count(), std::stoul(row.at("npus")));
  BoundOptions options;
  options.method = row.at("sinks") == "one" ? BoundMethod::OneSink : BoundMethod::AllSinks;
  options.information_bound = false;
  const LowerBound ag = lower_bound(t, collective(CollectiveKind::AllGather, t), options);
  const LowerBound rs = lower_bound(t, collective(CollectiveKind::ReduceScatter, t), options);
  const LowerBound ar = lower_bound(t, collective(CollectiveKind::AllReduce, t), options);
  auto csv = [&](const char* column) { return std::stod(row.at(column)); };
  EXPECT_NEAR(us(ag.bandwidth_bound), csv("ag_bw_cut_us"), kCsvTolUs);
  EXPECT_NEAR(us(ag.latency_bound), csv("ag_lat_us"), kCsvTolUs);
  EXPECT_NEAR(us(ag.bound), csv("ag_cont_bound_us"), kCsvTolUs);
  EXPECT_NEAR(us(rs.bound), csv("rs_cont_bound_us"), kCsvTolUs);
  EXPECT_NEAR(us(ar.bound), csv("ar_cont_bound_us"), kCsvTolUs);
  EXPECT_EQ(ag.worst_cut_npus, std::stoul(row.at("worst_cut_size")));
  EXPECT_EQ(ar.worst_cut_npus, std::stoul(row.at("worst_cut_size")));
}

TEST(LowerBound, ReferenceFullMeshInputsMatchGenerated) {
  for (uint32_t n : {16u, 64u}) {
    const Topology file =
        load_edge_list(std::string(CHORUS_REFERENCE_DIR) + "/tacos-inputs/fc_" + std::to_string(n) + ".txt");
    const Topology made = full_mesh(n);
    ASSERT_EQ(file.link_count(), made.link_count());
    for (uint32_t l = 0; l < file.link_count(); ++l) {
      EXPECT_EQ(file.link_bandwidth(LinkId{l}), kB);
      EXPECT_EQ(file.link_latency(LinkId{l}), kAlpha);
    }
  }
}

TEST(LowerBound, ReferenceTableEveryRow) {
  const auto rows = read_csv(std::string(CHORUS_REFERENCE_DIR) + "/tacos-bounds.csv");
  ASSERT_EQ(rows.size(), 40u);
  for (const auto& row : rows)
    check_reference_row(row);
}

}  // namespace
}  // namespace chorus
