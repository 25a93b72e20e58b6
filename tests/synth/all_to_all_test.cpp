// All-to-All synthesis and its bound: the concurrent-flow bracket and the exact LP against values worked out by
// hand on tiny graphs and by brute force on random unique-path graphs (where the exact bound is the busiest link's
// load, counted here independently), and against the brute-force cut bound; the synthesized schedules'
// certificates; non-uniform demand matrices; and the quality floors of issue #17 (at most 1.3x the bound on 8x8 tori
// and meshes, a 6-cube and dgxlike_8x8).
#include <algorithm>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/synth/all_to_all_bound.hpp"
#include "chorus/synth/concurrent_flow.hpp"
#include "chorus/synth/demand.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/verify.hpp"
#include "chorus/topology/edge_list.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

const Bandwidth kBw = Bandwidth::gib_per_s(50);
const LinkParams kLink{kBw, Time::ns(500)};
constexpr int64_t kMiB = int64_t{1} << 20;

SynthGraph whole(const Topology& t) {
  return make_synth_graph(t, {});
}

double seconds(int64_t bytes) {
  return static_cast<double>(bytes) / kBw.bytes_per_second();
}

// The bracket must contain the exact value, and the solver must close it to 1%.
void expect_exact(const ConcurrentFlow& f, double exact, const std::string& what) {
  EXPECT_LE(f.lower_s, exact * (1 + 1e-9)) << what;
  EXPECT_GE(f.upper_s, exact * (1 - 1e-9)) << what;
  EXPECT_GE(f.lower_s, exact / 1.01) << what;
  EXPECT_LE(f.upper_s, exact * 1.01) << what;
}

TEST(ConcurrentFlow, UnidirectionalRingOfThree) {
  // 0 -> 1 -> 2 -> 0, 1 MiB per pair. Paths are unique: link 0->1 carries (0,1), (0,2) and (2,1): 3 MiB, as does
  // every link by symmetry, so T* = 3 MiB / 50 GiB/s.
  const Topology t = uniring(3, kLink);
  const ConcurrentFlow f = concurrent_flow(whole(t), uniform_demand(3, Bytes(3 * kMiB)), {});
  expect_exact(f, seconds(3 * kMiB), "uniring 3");
}

TEST(ConcurrentFlow, LineOfFiveBeyondTheHopBound) {
  // A line 0-1-2-3-4 (a 5x1 mesh), 1 MiB per pair. Link i -> i+1 carries every pair from {0..i} to {i+1..4}:
  // (i+1)(4-i) MiB, at most 6 (i = 1, 2). The hop bound is only sum |i-j| / links = 40 / 8 = 5 MiB per link, so the
  // phases have to find the cut-like lengths themselves (the exact LP is switched off here; it gets the same).
  const Topology t = mesh2d(5, 1, kLink, kLink);
  ConcurrentFlowOptions phases_only;
  phases_only.exact_variables = 0;
  const ConcurrentFlow f = concurrent_flow(whole(t), uniform_demand(5, Bytes(5 * kMiB)), phases_only);
  int64_t busiest = 0;
  for (int64_t i = 0; i < 4; ++i)
    busiest = std::max(busiest, (i + 1) * (4 - i));
  EXPECT_EQ(busiest, 6);
  expect_exact(f, seconds(busiest * kMiB), "line 5");
  EXPECT_STREQ(f.binding, "flow");
  const ConcurrentFlow lp = concurrent_flow(whole(t), uniform_demand(5, Bytes(5 * kMiB)), {});
  EXPECT_TRUE(lp.exact);
  EXPECT_NEAR(lp.lower_s, seconds(busiest * kMiB), seconds(busiest * kMiB) * 1e-9);
}

TEST(ConcurrentFlow, NonUniformDemandThroughASwitch) {
  // A star: NPU v's only links go to and from the switch. NPU 0 sends 3 MiB to NPU 1, everybody else 1 MiB to each
  // NPU. Busiest links: 0 -> switch carries 3 + 1 + 1 = 5 MiB, switch -> 1 carries 3 + 1 + 1 = 5 MiB.
  const Topology t = switch_star(4, kLink);
  std::vector<int64_t> d = uniform_demand(4, Bytes(4 * kMiB));
  d[0 * 4 + 1] = 3 * kMiB;
  const ConcurrentFlow f = concurrent_flow(whole(t), d, {});
  expect_exact(f, seconds(5 * kMiB), "star");
}

TEST(ConcurrentFlow, AtLeastTheBruteForceCutOnSmallGraphs) {
  // Every cut is a dual solution (length 1 on the links leaving S), so T* >= the best cut, found here by
  // enumerating every node subset (lower_bound's BruteForce). On these graphs the flow matches the cut.
  for (const Topology& t :
       {ring(6, kLink), mesh2d(3, 3, kLink, kLink), hypercube(3, {kLink, kLink, kLink}), torus2d(3, 4, kLink, kLink)}) {
    const uint32_t n = t.npu_count();
    const Bytes size(int64_t{n} * kMiB);
    BoundOptions bo;
    bo.method = BoundMethod::BruteForce;
    const LowerBound cut = lower_bound(t, Collective{CollectiveKind::AllToAll, size, n}, bo);
    const ConcurrentFlow f = concurrent_flow(whole(t), uniform_demand(n, size), {});
    const double cut_s = static_cast<double>(cut.bandwidth_bound.picoseconds()) * 1e-12;
    EXPECT_GE(f.upper_s, cut_s * (1 - 1e-9)) << t.name();
    EXPECT_GE(f.lower_s, cut_s / 1.01) << t.name();
    EXPECT_LE(f.upper_s, f.lower_s * 1.01) << t.name();
  }
}

TEST(ConcurrentFlow, HopBoundIsExactOnATorus) {
  // 8x8 torus, 1 MiB per pair: the mean distance between two NPUs of an 8-ring is (0+1+2+3+4+3+2+1)/8 = 2, so
  // 64 x 64 pairs travel 4 hops on average: 16384 MiB-hops over 256 links = 64 MiB per link.
  const Topology t = torus2d(8, 8, kLink, kLink);
  const ConcurrentFlow f = concurrent_flow(whole(t), uniform_demand(64, Bytes(64 * kMiB)), {});
  EXPECT_NEAR(f.lower_s, seconds(64 * kMiB), seconds(64 * kMiB) * 1e-9);
  EXPECT_LE(f.upper_s, seconds(64 * kMiB) * 1.01);
}

// The exact LP (concurrent_flow_lp.hpp) against brute force where the optimum can be counted: on a graph where
// every pair has exactly one simple path (trees, with switches among the inner nodes; unidirectional rings), no
// routing has a choice, so T* is the busiest link's load over its bandwidth, counted here by walking each pair's
// path. Random shapes, bandwidths (25, 50, 100 GiB/s) and demands (0-5 MiB per pair, some pairs empty).
double unique_path_optimum(const Topology& t, const std::vector<int64_t>& d) {
  const uint32_t n = t.npu_count();
  std::vector<double> load(t.link_count(), 0);
  for (uint32_t s = 0; s < n; ++s) {
    // Breadth-first from s: the link into each node on its one path.
    std::vector<int64_t> via(t.node_count(), -1);
    std::vector<char> seen(t.node_count(), 0);
    std::queue<uint32_t> q;
    q.push(s);
    seen[s] = 1;
    while (!q.empty()) {
      const uint32_t v = q.front();
      q.pop();
      for (LinkId l : t.out_links(NodeId{v})) {
        const uint32_t w = t.link_dst(l).value;
        if (!seen[w]) {
          seen[w] = 1;
          via[w] = l.value;
          q.push(w);
        }
      }
    }
    for (uint32_t dst = 0; dst < n; ++dst) {
      for (uint32_t v = dst; dst != s && v != s; v = t.link_src(LinkId{static_cast<uint32_t>(via[v])}).value)
        load[via[v]] += static_cast<double>(d[size_t{s} * n + dst]);
    }
  }
  double worst = 0;
  for (uint32_t l = 0; l < t.link_count(); ++l)
    worst = std::max(worst, load[l] / t.link_bandwidth(LinkId{l}).bytes_per_second());
  return worst;
}

TEST(ConcurrentFlow, ExactMatchesBruteForceOnUniquePathGraphs) {
  std::mt19937 rng(17);
  const Bandwidth tiers[] = {Bandwidth::gib_per_s(25), Bandwidth::gib_per_s(50), Bandwidth::gib_per_s(100)};
  for (int round = 0; round < 40; ++round) {
    const uint32_t npus = 3 + rng() % 5, switches = round % 2 == 0 ? rng() % 3 : 0;
    TopologyBuilder b("unique-path", npus);
    for (uint32_t k = 0; k < switches; ++k)
      b.add_switch();
    const uint32_t nodes = npus + switches;
    if (round % 4 == 3) {
      for (uint32_t v = 0; v < npus; ++v)  // a unidirectional ring: one path between any two NPUs
        b.add_link(NodeId{v}, NodeId{(v + 1) % npus}, tiers[rng() % 3], Time::ns(500));
    } else {
      // A random tree, switches first so that NPUs hang off them; each node links to an earlier one.
      std::vector<uint32_t> order;
      for (uint32_t k = 0; k < switches; ++k)
        order.push_back(npus + k);
      for (uint32_t v = 0; v < npus; ++v)
        order.push_back(v);
      for (uint32_t i = 1; i < nodes; ++i)
        b.add_duplex(NodeId{order[i]}, NodeId{order[rng() % i]}, tiers[rng() % 3], Time::ns(500));
    }
    const Topology t = std::move(b).seal();
    std::vector<int64_t> d(size_t{npus} * npus, 0);
    for (uint32_t s = 0; s < npus; ++s)
      for (uint32_t x = 0; x < npus; ++x)
        d[size_t{s} * npus + x] = s == x ? 0 : static_cast<int64_t>(rng() % 6) * kMiB;
    d[1] = kMiB;  // at least one pair with traffic
    const double want = unique_path_optimum(t, d);
    const ConcurrentFlow f = concurrent_flow(whole(t), d, {});
    ASSERT_TRUE(f.exact) << "round " << round;
    EXPECT_NEAR(f.lower_s, want, want * 1e-9) << "round " << round;
    EXPECT_NEAR(f.upper_s, want, want * 1e-9) << "round " << round;
  }
}

// The hand-worked optima above, now exact; the exact value lies in the phases' bracket (solved without the LP) and
// at or above the brute-force cut; on the unidirectional ring of three it is strictly above every cut (2 MiB leave
// {0} on one link; the flow needs 3 MiB on each).
TEST(ConcurrentFlow, ExactInsideTheBracketAndAboveTheCut) {
  const Topology ring3 = uniring(3, kLink);
  const ConcurrentFlow exact = concurrent_flow(whole(ring3), uniform_demand(3, Bytes(3 * kMiB)), {});
  EXPECT_TRUE(exact.exact);
  EXPECT_NEAR(exact.lower_s, seconds(3 * kMiB), seconds(3 * kMiB) * 1e-9);
  BoundOptions bo;
  bo.method = BoundMethod::BruteForce;
  const LowerBound cut = lower_bound(ring3, Collective{CollectiveKind::AllToAll, Bytes(3 * kMiB), 3}, bo);
  EXPECT_NEAR(static_cast<double>(cut.bandwidth_bound.picoseconds()) * 1e-12, seconds(2 * kMiB), 1e-12);
  ConcurrentFlowOptions phases_only;
  phases_only.exact_variables = 0;
  for (const Topology& t : {ring(6, kLink), mesh2d(3, 3, kLink, kLink), mesh2d(4, 4, kLink, kLink),
                            torus2d(3, 4, kLink, kLink), switch_star(5, kLink)}) {
    const uint32_t n = t.npu_count();
    const std::vector<int64_t> d = uniform_demand(n, Bytes(int64_t{n} * kMiB));
    const ConcurrentFlow e = concurrent_flow(whole(t), d, {});
    const ConcurrentFlow p = concurrent_flow(whole(t), d, phases_only);
    EXPECT_TRUE(e.exact) << t.name();
    EXPECT_FALSE(p.exact) << t.name();
    EXPECT_GE(e.lower_s, p.lower_s * (1 - 1e-9)) << t.name();
    EXPECT_LE(e.upper_s, p.upper_s * (1 + 1e-9)) << t.name();
    const LowerBound c = lower_bound(t, Collective{CollectiveKind::AllToAll, Bytes(int64_t{n} * kMiB), n}, bo);
    EXPECT_GE(e.lower_s, static_cast<double>(c.bandwidth_bound.picoseconds()) * 1e-12 * (1 - 1e-9)) << t.name();
  }
  // 4x4 mesh: the bisection (8 x 8 pairs of 1 MiB over 4 links each way, 16 MiB per link) is met by XY routing.
  const ConcurrentFlow mesh =
      concurrent_flow(whole(mesh2d(4, 4, kLink, kLink)), uniform_demand(16, Bytes(16 * kMiB)), {});
  EXPECT_NEAR(mesh.lower_s, seconds(16 * kMiB), seconds(16 * kMiB) * 1e-9);
}

// ---- synthesis ----

SynthResult synthesize_checked(const Topology& t, const SynthOptions& o) {
  SynthResult r = synthesize(t, o);
  const SynthCheck check = check_synthesis(t, r);
  EXPECT_TRUE(check.ok) << t.name() << ": " << check.problem;
  EXPECT_GE(r.time, synth_lower_bound(t, o).bound) << t.name();
  return r;
}

SynthOptions all_to_all(Bytes size, uint32_t k = 0) {
  SynthOptions o;
  o.kind = CollectiveKind::AllToAll;
  o.size = size;
  o.chunks_per_npu = k;
  return o;
}

TEST(AllToAllSynth, WithinOnePointThreeOfTheBound) {
  // Issue #17's floors: 64 MiB, 50 GiB/s, 0.5 us. The bound is the concurrent-flow bound (64 MiB / 50 GiB/s on the
  // 8x8 torus, 128 MiB / 50 GiB/s on the 8x8 mesh's bisection: 32 x 32 MiB over 8 links).
  const std::string dir = CHORUS_REFERENCE_DIR;
  const std::vector<Topology> shapes = {torus2d(8, 8, kLink, kLink), mesh2d(8, 8, kLink, kLink),
                                        hypercube(6, std::vector<LinkParams>(6, kLink)),
                                        load_edge_list(dir + "/tacos-inputs/dgxlike_8x8.txt")};
  for (const Topology& t : shapes) {
    const SynthOptions o = all_to_all(Bytes::mib(64));
    const SynthResult r = synthesize_checked(t, o);
    const SynthBound b = synth_lower_bound(t, o);
    EXPECT_LE(static_cast<double>(r.time.picoseconds()), 1.3 * static_cast<double>(b.bound.picoseconds())) << t.name();
  }
  const SynthBound torus = synth_lower_bound(torus2d(8, 8, kLink, kLink), all_to_all(Bytes::mib(64)));
  EXPECT_NEAR(static_cast<double>(torus.bound.picoseconds()) * 1e-12, seconds(64 * kMiB), 1e-9);
  const SynthBound mesh = synth_lower_bound(mesh2d(8, 8, kLink, kLink), all_to_all(Bytes::mib(64)));
  EXPECT_NEAR(static_cast<double>(mesh.bound.picoseconds()) * 1e-12, seconds(128 * kMiB), seconds(128 * kMiB) / 100);
}

// switch:8, All-to-All of 16 MiB, one 2 MiB chunk per pair: every path is GPU -> switch -> GPU, tau = 0.5 us +
// 2 MiB / 50 GiB/s = 39.5625 us per hop. The routes go to the list scheduler in shifted order (GPU s sends to s + 1,
// s + 2, ...), so each round of uplink sends lands on 8 different downlinks: 7 tau up, the last round's tau down,
// 8 tau = 316.5 us. In plain order every GPU started with GPU 0, then GPU 1, ..., and each downlink took its 7 chunks
// one after another: 14 tau.
TEST(AllToAllSynth, ShiftedOrderThroughASwitch) {
  const SynthResult r = synthesize_checked(switch_star(8, kLink), all_to_all(Bytes::mib(16), 1));
  const Time tau = Time::ns(500) + transfer_time(Bytes::mib(2), kBw);
  EXPECT_EQ(r.time, tau * 8);
}

TEST(AllToAllSynth, NonUniformDemandSkipsEmptyPairs) {
  // A star of 4 NPUs; NPU 0 sends 3 MiB to NPU 1, NPUs 2 and 3 send nothing to each other, the rest 1 MiB. 10 pairs
  // carry data, each as k chunks over 2 hops (NPU -> switch -> NPU): 2 x 10 x k transfers. The bound is NPU 0's
  // (and NPU 1's) 5 MiB through one link.
  const Topology t = switch_star(4, kLink);
  std::vector<int64_t> bytes(16, kMiB);
  for (uint32_t v = 0; v < 4; ++v)
    bytes[v * 5] = 0;
  bytes[0 * 4 + 1] = 3 * kMiB;
  bytes[2 * 4 + 3] = 0;
  bytes[3 * 4 + 2] = 0;
  SynthOptions o = all_to_all(Bytes(5 * kMiB), 2);
  o.demand = DemandMatrix{"test", 4, bytes};
  const SynthResult r = synthesize_checked(t, o);
  EXPECT_EQ(r.schedule.transfer_count(), 2u * 10u * 2u);
  const SynthBound b = synth_lower_bound(t, o);
  EXPECT_NEAR(static_cast<double>(b.bound.picoseconds()) * 1e-12, seconds(5 * kMiB), seconds(5 * kMiB) / 100);
}

// Counts occurrences of `needle` in `text`.
size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(AllToAllSynth, MultiHopMscclXmlRelaysThroughScratch) {
  // A 6-ring, 1 chunk per pair: 30 chunks; every hop that does not end at its chunk's destination lands in a scratch
  // chunk of the GPU it reaches and leaves from there, so relays = transfers - 30, and the GPUs' s_chunks add up to
  // the same. Each transfer is two step lines (the send and the receive), both naming its buffers, so "s" appears
  // as a destination 2 x relays times and as a source 2 x relays times. Fewest-hop routes relay 6 sources x
  // (2 x 1 + 1 x 2) = 24 times.
  const Topology t = ring(6, kLink);
  const SynthResult r = synthesize_checked(t, all_to_all(Bytes::mib(6), 1));
  const std::string xml = msccl_xml(r, "a2a");
  const size_t relays = r.schedule.transfer_count() - 30;
  EXPECT_EQ(count(xml, "dstbuf=\"s\""), 2 * relays);
  EXPECT_EQ(count(xml, "srcbuf=\"s\""), 2 * relays);
  size_t scratch = 0;
  for (size_t at = xml.find("s_chunks=\""); at != std::string::npos; at = xml.find("s_chunks=\"", at + 1))
    scratch += std::stoul(xml.substr(at + 10));
  EXPECT_EQ(scratch, relays);
  EXPECT_GE(relays, 24u);  // no route is shorter than the fewest hops
  // Non-uniform demand has no equal-chunk layout.
  SynthOptions o = all_to_all(Bytes::mib(6), 1);
  std::vector<int64_t> bytes(36, kMiB);
  bytes[1] = 2 * kMiB;
  o.demand = DemandMatrix{"test", 6, bytes};
  EXPECT_THROW(msccl_xml(synthesize(t, o), "a2a"), Error);
}

TEST(AllToAllSynth, RefusesGroupsBeyondItsLimit) {
  // 65 x 64 = 4160 NPUs: 4160^2 = 17,305,600 pairs > 2^24 = 16,777,216; refused before any route is built.
  try {
    synthesize(torus2d(65, 64, kLink, kLink), all_to_all(Bytes::mib(64), 1));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("17305600 pairs"), std::string::npos) << e.what();
  }
}

TEST(AllToAllSynth, DemandFileParsing) {
  const DemandMatrix m = parse_demand_csv("# MoE\n0, 1MiB, 2048\n\n3,0,4KiB\n5,6,7\n", "m.csv", 3);
  EXPECT_EQ(m.at(0, 1), kMiB);
  EXPECT_EQ(m.at(0, 2), 2048);
  EXPECT_EQ(m.at(1, 2), 4096);
  EXPECT_EQ(m.at(2, 1), 6);
  EXPECT_EQ(m.at(2, 2), 0);  // the diagonal is a copy in place
  EXPECT_THROW(parse_demand_csv("0,1\n1,0\n", "m.csv", 3), Error);
}

}  // namespace
}  // namespace chorus
