// The scenario set of the SimGrid cross-check (see scenario.hpp).
//
// Sizes are 16 KiB (latency-bound) to 8 MiB (bandwidth-bound); link bandwidths 10-150 GB/s and latencies
// 0-2 us, mixed inside one topology where the scenario is about heterogeneity.
#include <utility>

#include "chorus/topology/generators.hpp"
#include "validation/simgrid/scenario.hpp"

namespace chorus::validation {

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

LinkParams link(double gb_per_s, int64_t latency_ns) {
  return LinkParams{Bandwidth::gb_per_s(gb_per_s), Time::ns(latency_ns)};
}

Flow flow(uint32_t src, uint32_t dst, int64_t bytes, int64_t start_ns = 0) {
  return Flow{src, dst, bytes, Time::ns(start_ns)};
}

// Every NPU but `dst` sends to `dst`.
std::vector<Flow> incast(uint32_t npus, uint32_t dst, int64_t bytes) {
  std::vector<Flow> flows;
  for (uint32_t s = 0; s < npus; ++s)
    if (s != dst)
      flows.push_back(flow(s, dst, bytes));
  return flows;
}

// `src` sends to every other NPU.
std::vector<Flow> outcast(uint32_t npus, uint32_t src, int64_t bytes) {
  std::vector<Flow> flows;
  for (uint32_t d = 0; d < npus; ++d)
    if (d != src)
      flows.push_back(flow(src, d, bytes));
  return flows;
}

// NPU i sends to NPU (i + k) mod npus.
std::vector<Flow> shift(uint32_t npus, uint32_t k, int64_t bytes) {
  std::vector<Flow> flows;
  for (uint32_t s = 0; s < npus; ++s)
    flows.push_back(flow(s, (s + k) % npus, bytes));
  return flows;
}

// Every ordered pair; NPU s injects at s * `stagger_ns`.
std::vector<Flow> all_to_all(uint32_t npus, int64_t bytes, int64_t stagger_ns = 0) {
  std::vector<Flow> flows;
  for (uint32_t s = 0; s < npus; ++s)
    for (uint32_t d = 0; d < npus; ++d)
      if (s != d)
        flows.push_back(flow(s, d, bytes, s * stagger_ns));
  return flows;
}

std::vector<Flow> concat(std::vector<Flow> a, const std::vector<Flow>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A deterministic pseudo-random sequence (64-bit LCG), identical on every platform.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t below(uint32_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state_ >> 33) % n);
  }

 private:
  uint64_t state_;
};

// `count` flows between random distinct NPUs, random sizes (64 KiB .. 4 MiB) and start times (0 .. 40 us).
std::vector<Flow> random_flows(uint32_t npus, uint32_t count, uint64_t seed) {
  Lcg rng(seed);
  std::vector<Flow> flows;
  while (flows.size() < count) {
    const uint32_t s = rng.below(npus), d = rng.below(npus);
    if (s == d)
      continue;
    const int64_t bytes = (64 * kKiB) << rng.below(7);
    flows.push_back(flow(s, d, bytes, int64_t{rng.below(40)} * 1000));
  }
  return flows;
}

// NPUs 0..n-1 on a line; hop i (i <-> i+1) has its own bandwidth and latency.
Topology chain(const std::vector<LinkParams>& hops) {
  const auto npus = static_cast<uint32_t>(hops.size() + 1);
  TopologyBuilder b("chain:" + std::to_string(npus), npus);
  for (uint32_t i = 0; i + 1 < npus; ++i)
    b.add_duplex(NodeId{i}, NodeId{i + 1}, hops[i].bandwidth, hops[i].latency);
  return std::move(b).seal();
}

// One switch; NPU i's full-duplex link has params[i].
Topology heterogeneous_star(const std::vector<LinkParams>& params) {
  const auto npus = static_cast<uint32_t>(params.size());
  TopologyBuilder b("hetero-star:" + std::to_string(npus), npus);
  const NodeId sw = b.add_switch();
  for (uint32_t i = 0; i < npus; ++i)
    b.add_duplex(NodeId{i}, sw, params[i].bandwidth, params[i].latency);
  return std::move(b).seal();
}

// Two leaf switches of four NPUs each under one spine; the leaf-spine uplinks are the thin part.
Topology two_level_tree() {
  TopologyBuilder b("tree:2x4", 8);
  const NodeId leaf[2] = {b.add_switch(), b.add_switch()};
  const NodeId spine = b.add_switch();
  const LinkParams down = link(100, 300), up = link(50, 1000);
  for (uint32_t i = 0; i < 8; ++i)
    b.add_duplex(NodeId{i}, leaf[i / 4], down.bandwidth, down.latency);
  for (NodeId l : leaf)
    b.add_duplex(l, spine, up.bandwidth, up.latency);
  return std::move(b).seal();
}

std::vector<LinkParams> mixed_star_links() {
  return {link(100, 100), link(10, 2000), link(25, 500), link(50, 800), link(40, 1200), link(80, 300)};
}

std::vector<Scenario> switch_scenarios() {
  std::vector<Scenario> s;
  s.push_back({"star8_incast", switch_star(8, link(50, 500)), incast(8, 0, 2 * kMiB)});
  s.push_back({"star8_outcast", switch_star(8, link(50, 500)), outcast(8, 0, 2 * kMiB)});
  std::vector<Flow> staggered;
  for (uint32_t i = 1; i < 8; ++i)
    staggered.push_back(flow(i, 0, int64_t{i} * kMiB, (i - 1) * 5000));
  s.push_back({"star8_incast_staggered", switch_star(8, link(50, 500)), staggered});
  s.push_back({"star8_shift_plus_hotspot", switch_star(8, link(50, 500)),
               concat(shift(8, 1, 4 * kMiB), {flow(0, 3, 2 * kMiB, 3000), flow(6, 3, kMiB, 9000)})});
  s.push_back({"star8_small_messages", switch_star(8, link(50, 2000)),
               concat(incast(8, 2, 16 * kKiB), outcast(8, 5, 64 * kKiB))});
  s.push_back({"hetero_star_incast", heterogeneous_star(mixed_star_links()), incast(6, 0, 2 * kMiB)});
  s.push_back({"hetero_star_random", heterogeneous_star(mixed_star_links()), random_flows(6, 24, 7)});
  s.push_back({"tree_uplink_hotspot", two_level_tree(),
               concat(shift(8, 4, 4 * kMiB), {flow(0, 1, 4 * kMiB), flow(5, 6, 2 * kMiB, 2000)})});
  std::vector<Flow> tree_incast;
  for (uint32_t i = 0; i < 7; ++i)
    tree_incast.push_back(flow(i, 7, 2 * kMiB, int64_t{i} * 7000));
  s.push_back({"tree_incast_staggered", two_level_tree(), tree_incast});
  s.push_back({"dgx2x4_cross_node", dgx(2, 4, link(150, 200), link(25, 2000)),
               concat(all_to_all(8, 512 * kKiB, 1000), {flow(0, 1, 8 * kMiB)})});
  return s;
}

std::vector<Scenario> ring_and_chain_scenarios() {
  std::vector<Scenario> s;
  s.push_back({"ring8_neighbours", ring(8, link(25, 1000)), shift(8, 1, 2 * kMiB)});
  std::vector<Flow> both = shift(8, 1, 2 * kMiB);
  for (uint32_t i = 0; i < 8; ++i)
    both.push_back(flow(i, (i + 7) % 8, kMiB + i * 128 * kKiB, i * 500));
  s.push_back({"ring8_bidirectional_mixed", ring(8, link(25, 1000)), both});
  s.push_back({"ring8_shift2", ring(8, link(25, 1000)), shift(8, 2, kMiB)});
  s.push_back({"ring8_shift4_tie", ring(8, link(25, 1000)), shift(8, 4, kMiB)});
  s.push_back({"uniring6_shift3", uniring(6, link(40, 700)), shift(6, 3, 3 * kMiB)});
  s.push_back({"ring6_zero_latency", ring(6, link(50, 0)), concat(shift(6, 1, kMiB), shift(6, 2, 2 * kMiB))});
  const std::vector<LinkParams> hops = {link(100, 100), link(40, 900), link(80, 300), link(25, 1500), link(60, 500)};
  std::vector<Flow> parking = {flow(0, 5, 4 * kMiB)};
  for (uint32_t i = 0; i < 5; ++i)
    parking.push_back(flow(i, i + 1, 2 * kMiB));
  s.push_back({"chain6_parking_lot", chain(hops), parking});
  s.push_back({"chain6_overlapping_staggered",
               chain(hops),
               {flow(0, 3, 3 * kMiB), flow(1, 4, 2 * kMiB, 4000), flow(2, 5, kMiB, 8000), flow(0, 2, kMiB, 12000),
                flow(3, 5, 2 * kMiB, 1000), flow(5, 0, 2 * kMiB, 6000), flow(4, 1, kMiB)}});
  s.push_back({"chain6_repeated_pair_waves",
               chain(hops),
               {flow(0, 5, kMiB), flow(0, 5, kMiB, 20000), flow(0, 5, kMiB, 40000), flow(2, 4, 8 * kMiB, 10000)}});
  return s;
}

std::vector<Scenario> grid_scenarios() {
  std::vector<Scenario> s;
  s.push_back({"torus3x3_all_to_all", torus2d(3, 3, link(50, 500), link(25, 800)), all_to_all(9, 512 * kKiB)});
  s.push_back({"torus4x2_all_to_all_staggered", torus2d(4, 2, link(100, 200), link(20, 1500)),
               all_to_all(8, 256 * kKiB, 3000)});
  s.push_back({"torus4x4_shift5", torus2d(4, 4, link(50, 500), link(50, 500)), shift(16, 5, 2 * kMiB)});
  std::vector<Flow> transpose;
  for (uint32_t i = 0; i < 9; ++i)
    if (i % 3 != i / 3)
      transpose.push_back(flow(i, (i % 3) * 3 + i / 3, 2 * kMiB, (i % 3) * 2000));
  s.push_back({"mesh3x3_transpose", mesh2d(3, 3, link(40, 600), link(60, 400)), transpose});
  s.push_back({"fc4_all_to_all", fully_connected(4, link(30, 700)), all_to_all(4, kMiB, 500)});
  s.push_back({"hypercube3_all_to_all", hypercube(3, {link(50, 300), link(25, 600), link(12.5, 1200)}),
               all_to_all(8, 256 * kKiB)});
  const std::vector<Dimension> dims = {{BlockKind::Ring, 4, Bandwidth::gb_per_s(100), Time::ns(250)},
                                       {BlockKind::Switch, 2, Bandwidth::gb_per_s(20), Time::ns(1500)}};
  s.push_back({"ring4_x_switch2_all_to_all", compose(dims), all_to_all(8, 512 * kKiB, 2000)});
  return s;
}

}  // namespace

std::vector<Scenario> make_scenarios() {
  std::vector<Scenario> all = switch_scenarios();
  for (auto* part : {ring_and_chain_scenarios, grid_scenarios})
    for (Scenario& s : part())
      all.push_back(std::move(s));
  return all;
}

}  // namespace chorus::validation
