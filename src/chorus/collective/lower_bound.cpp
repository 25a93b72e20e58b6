// Lower bounds on collective time (see lower_bound.hpp for the formulas and their sources: Zhao & Krishnamurthy,
// arXiv:2305.18461 §1.1; ForestColl; Dinkelbach 1967; shared/reference/tacos.md §7).
//
// The All-Gather cut bound needs λ* = min_{S: 0 < |S ∩ V_c| < N} B+(S) / |S ∩ V_c|. For a sink NPU v, add a source
// s with an arc of capacity λ to every NPU; the min s-v cut is λN + min_{S ∌ v} [B+(S) - λ|S ∩ V_c|], so a cut
// below λN is a set S ∌ v with a ratio below λ (Dinkelbach step: λ := that ratio, repeat). λ only decreases, so a
// sink that found nothing at some λ finds nothing at any later, smaller λ: one pass over the sinks suffices and
// costs N + (number of improvements) max-flows. Every S contains a non-member NPU, so all sinks make it exact.
// The max-flows use highest-label push-relabel (Cherkassky & Goldberg 1997, max_flow.hpp): Dinic needed one phase
// per path length, ~N/2 on an N-ring, which made one-sink bounds on 65,536-NPU rings take minutes.
#include "chorus/collective/lower_bound.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "chorus/collective/latency_paths.hpp"
#include "chorus/collective/max_flow.hpp"
#include "chorus/collective/symmetric_bound.hpp"
#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/progress.hpp"

namespace chorus {

std::string to_string(BoundMethod method) {
  switch (method) {
    case BoundMethod::Auto:
      return "auto";
    case BoundMethod::AllSinks:
      return "all_sinks";
    case BoundMethod::OneSink:
      return "one_sink";
    case BoundMethod::BruteForce:
      return "brute_force";
    case BoundMethod::SingleNodeCuts:
      return "single_node_cuts";
    case BoundMethod::Symmetric:
      return "symmetric";
  }
  return "?";
}

std::optional<BoundMethod> parse_bound_method(std::string_view text) {
  if (text == "auto")
    return BoundMethod::Auto;
  if (text == "all")
    return BoundMethod::AllSinks;
  if (text == "one")
    return BoundMethod::OneSink;
  if (text == "brute")
    return BoundMethod::BruteForce;
  if (text == "symmetric")
    return BoundMethod::Symmetric;
  return std::nullopt;
}

namespace {

constexpr uint32_t kMaxBruteForceNodes = 20;
constexpr int64_t kUnreachable = std::numeric_limits<int64_t>::max();

// The links as a plain arc list, optionally transposed (Reduce-Scatter and Reduce are the transposed problems).
// Capacities are divided by the largest bandwidth so that the solver's tolerances do not depend on units.
struct CapacityGraph {
  uint32_t nodes = 0;
  uint32_t npus = 0;
  double unit = 1;  // bytes/s of one capacity unit
  std::vector<uint32_t> src, dst;
  std::vector<double> capacity;     // normalised
  std::vector<double> bytes_per_s;  // the same, unnormalised, for the exact final arithmetic
  std::vector<int64_t> latency_ps;
  std::vector<uint32_t> out_offset, out_arc;  // CSR of arcs by source, for Dijkstra
};

CapacityGraph make_capacity_graph(const Topology& topology, bool transposed) {
  CapacityGraph g;
  g.nodes = topology.node_count();
  g.npus = topology.npu_count();
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    g.unit = std::max(g.unit, topology.link_bandwidth(LinkId{l}).bytes_per_second());
  }
  g.out_offset.assign(g.nodes + 1, 0);
  // Sized once: grown by doubling, the five columns were copied and first touched about twice over.
  const size_t links = topology.link_count();
  g.src.reserve(links);
  g.dst.reserve(links);
  g.bytes_per_s.reserve(links);
  g.capacity.reserve(links);
  g.latency_ps.reserve(links);
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const LinkId link{l};
    uint32_t from = topology.link_src(link).value, to = topology.link_dst(link).value;
    if (transposed)
      std::swap(from, to);
    g.src.push_back(from);
    g.dst.push_back(to);
    g.bytes_per_s.push_back(topology.link_bandwidth(link).bytes_per_second());
    g.capacity.push_back(g.bytes_per_s.back() / g.unit);
    g.latency_ps.push_back(topology.link_latency(link).picoseconds());
    ++g.out_offset[from + 1];
  }
  for (uint32_t n = 0; n < g.nodes; ++n)
    g.out_offset[n + 1] += g.out_offset[n];
  g.out_arc.resize(g.src.size());
  std::vector<uint32_t> cursor(g.out_offset.begin(), g.out_offset.end() - 1);
  for (uint32_t a = 0; a < g.src.size(); ++a)
    g.out_arc[cursor[g.src[a]]++] = a;
  return g;
}

// A node set S with the two numbers every bound needs.
struct Cut {
  std::vector<char> member;
  uint32_t npus = 0;     // |S ∩ V_c|
  double capacity = 0;   // B+(S), normalised
  double bandwidth = 0;  // B+(S) in bytes/s, summed from the link values (exact for whole-number bandwidths)
  double ratio() const { return capacity / npus; }
};

Cut make_cut(const CapacityGraph& g, std::vector<char> member) {
  Cut cut;
  cut.member = std::move(member);
  for (uint32_t n = 0; n < g.npus; ++n)
    cut.npus += cut.member[n] ? 1 : 0;
  for (size_t a = 0; a < g.src.size(); ++a) {
    if (cut.member[g.src[a]] && !cut.member[g.dst[a]]) {
      cut.capacity += g.capacity[a];
      cut.bandwidth += g.bytes_per_s[a];
    }
  }
  return cut;
}

std::vector<NodeId> members_of(const Cut& cut) {
  std::vector<NodeId> nodes;
  for (uint32_t n = 0; n < cut.member.size(); ++n) {
    if (cut.member[n])
      nodes.push_back(NodeId{n});
  }
  return nodes;
}

__extension__ typedef unsigned __int128 Uint128;

// size * p / (q * bandwidth) as a Time rounded DOWN, so that it stays a lower bound. Exact integer arithmetic when
// the bandwidth is a whole number of bytes/s (what the unit factories give for the usual GB/s and GiB/s values);
// otherwise double arithmetic minus a relative 1e-12 margin that covers its rounding error.
Time floor_transfer_time(Bytes size, uint64_t p, uint64_t q, double bandwidth) {
  const bool exact = bandwidth == std::floor(bandwidth) && bandwidth < 0x1p63 && size.count() < (int64_t{1} << 50) &&
                     p < (uint64_t{1} << 32) && q < (uint64_t{1} << 32);
  if (exact) {
    const Uint128 numerator = Uint128(static_cast<uint64_t>(size.count())) * p * 1'000'000'000'000ULL;  // < 2^122
    const Uint128 picoseconds = numerator / (Uint128(q) * static_cast<uint64_t>(bandwidth));
    const auto limit = static_cast<Uint128>(std::numeric_limits<int64_t>::max());
    return picoseconds >= limit ? Time::max() : Time::ps(static_cast<int64_t>(picoseconds));
  }
  const double ps = std::floor(static_cast<double>(size.count()) * static_cast<double>(p) /
                               (static_cast<double>(q) * bandwidth) * 1e12 * (1 - 1e-12));
  if (!(ps > 0))
    return Time::zero();
  if (ps >= 0x1p63)
    return Time::max();
  return Time::ps(static_cast<int64_t>(ps));
}

double transfer_seconds(Bytes size, double p, double q, double bandwidth) {
  return static_cast<double>(size.count()) * p / (q * bandwidth);
}

// ---- Reachability and latency -------------------------------------------------------------------------------

// Collectives need every NPU to reach every other; switches may be dead ends without harm.
void require_strongly_connected(const Topology& topology) {
  for (bool forward : {true, false}) {
    std::vector<char> seen(topology.node_count(), 0);
    std::vector<uint32_t> stack{0};
    seen[0] = 1;
    while (!stack.empty()) {
      const NodeId n{stack.back()};
      stack.pop_back();
      for (LinkId l : forward ? topology.out_links(n) : topology.in_links(n)) {
        const uint32_t next = (forward ? topology.link_dst(l) : topology.link_src(l)).value;
        if (!seen[next]) {
          seen[next] = 1;
          stack.push_back(next);
        }
      }
    }
    for (uint32_t n = 0; n < topology.npu_count(); ++n) {
      if (seen[n])
        continue;
      const std::string field = forward ? fmt::format("npu {}", n) : "npu 0";
      throw Error(topology.name(), field,
                  forward ? "is unreachable from npu 0; a collective cannot complete"
                          : fmt::format("is unreachable from npu {}; a collective cannot complete", n));
    }
  }
}

LatencyPaths latency_paths(const CapacityGraph& g) {
  return LatencyPaths(g.nodes, g.out_offset, g.out_arc, g.dst, g.latency_ps);
}

int64_t eccentricity(LatencyPaths& paths, const CapacityGraph& g, uint32_t source) {
  const std::vector<int64_t>& dist = paths.from(source);
  return *std::max_element(dist.begin(), dist.begin() + g.npus);  // strongly connected: all finite
}

int64_t latency_eccentricity(const CapacityGraph& g, uint32_t source) {
  LatencyPaths paths = latency_paths(g);
  return eccentricity(paths, g, source);
}

int64_t latency_diameter(const CapacityGraph& g) {
  return latency_paths(g).diameter(g.npus, g.npus);  // strongly connected: every pair counts
}

// Floyd-Warshall: an independent certificate of the Dijkstra diameter for brute-force mode.
int64_t latency_diameter_floyd(const CapacityGraph& g) {
  std::vector<int64_t> d(static_cast<size_t>(g.nodes) * g.nodes, kUnreachable);
  auto at = [&](uint32_t i, uint32_t j) -> int64_t& { return d[static_cast<size_t>(i) * g.nodes + j]; };
  for (uint32_t i = 0; i < g.nodes; ++i)
    at(i, i) = 0;
  for (size_t a = 0; a < g.src.size(); ++a)
    at(g.src[a], g.dst[a]) = std::min(at(g.src[a], g.dst[a]), g.latency_ps[a]);
  for (uint32_t k = 0; k < g.nodes; ++k) {
    for (uint32_t i = 0; i < g.nodes; ++i) {
      if (at(i, k) == kUnreachable)
        continue;
      for (uint32_t j = 0; j < g.nodes; ++j) {
        if (at(k, j) != kUnreachable)
          at(i, j) = std::min(at(i, j), at(i, k) + at(k, j));
      }
    }
  }
  int64_t diameter = 0;
  for (uint32_t i = 0; i < g.npus; ++i) {
    for (uint32_t j = 0; j < g.npus; ++j)
      diameter = std::max(diameter, at(i, j));
  }
  return diameter;
}

// ---- Max-flow (max_flow.hpp: highest-label push-relabel) ------------------------------------------------------

// The links of g as flow arcs (arc a = link a), plus, with a super source (node g.nodes), one arc to every NPU at
// index g.src.size() + npu whose capacity is set per run (the Dinkelbach λ).
std::vector<FlowArc> flow_arcs(const CapacityGraph& g, bool super_source) {
  std::vector<FlowArc> arcs;
  arcs.reserve(g.src.size() + (super_source ? g.npus : 0));
  for (size_t a = 0; a < g.src.size(); ++a)
    arcs.push_back(FlowArc{g.src[a], g.dst[a], g.capacity[a]});
  if (super_source) {
    for (uint32_t n = 0; n < g.npus; ++n)
      arcs.push_back(FlowArc{g.nodes, n, 0});
  }
  return arcs;
}

MaxFlow make_max_flow(const CapacityGraph& g, bool super_source, double epsilon) {
  return MaxFlow(g.nodes + (super_source ? 1 : 0), flow_arcs(g, super_source), epsilon);
}

void set_super_source_capacity(MaxFlow& flow, const CapacityGraph& g, double capacity) {
  for (uint32_t n = 0; n < g.npus; ++n)
    flow.set_capacity(g.src.size() + n, capacity);
}

// The source side of the minimum cut of the last run, restricted to g's nodes (drops the super source).
std::vector<char> graph_source_side(MaxFlow& flow, const CapacityGraph& g) {
  std::vector<char> side = flow.source_side();
  side.resize(g.nodes);
  return side;
}

// ---- Cut searches -------------------------------------------------------------------------------------------

// The best of the 2N cuts that need no search: one NPU ({u}, bounded by its out-links) and all but one NPU
// (V \ {v}, bounded by v's in-links). The latter binds on every homogeneous topology of tacos.md §7, so Dinkelbach
// usually starts at the optimum and each sink needs a single max-flow to confirm it.
Cut best_simple_gather_cut(const CapacityGraph& g) {
  std::vector<double> out(g.nodes, 0), in(g.nodes, 0);
  for (size_t a = 0; a < g.src.size(); ++a) {
    out[g.src[a]] += g.capacity[a];
    in[g.dst[a]] += g.capacity[a];
  }
  uint32_t best_node = 0;
  bool best_is_complement = false;
  double best_ratio = std::numeric_limits<double>::infinity();
  for (uint32_t n = 0; n < g.npus; ++n) {
    if (out[n] < best_ratio)
      std::tie(best_ratio, best_node, best_is_complement) = std::tuple(out[n], n, false);
    const double complement = in[n] / (g.npus - 1);
    if (complement < best_ratio)
      std::tie(best_ratio, best_node, best_is_complement) = std::tuple(complement, n, true);
  }
  std::vector<char> member(g.nodes, best_is_complement ? 1 : 0);
  member[best_node] = best_is_complement ? 0 : 1;
  return make_cut(g, std::move(member));
}

// min ratio over S ∌ v for v in `sinks` (Dinkelbach, see the top of the file).
Cut gather_cut_by_flows(const CapacityGraph& g, std::span<const uint32_t> sinks, const Tolerance& tolerance,
                        uint32_t& max_flows, ProgressScope& progress) {
  Cut best = best_simple_gather_cut(g);
  MaxFlow flow = make_max_flow(g, /*super_source=*/true, tolerance.residual);
  const uint32_t super_source = g.nodes;
  const double keep = 1 - tolerance.relative;
  bool preflow = false;  // the last run's preflow can move on to the next sink (same lambda, no cut taken)
  for (uint32_t sink : sinks) {
    for (int step = 0;; ++step) {
      CHORUS_ASSERT(step < 100000, "Dinkelbach did not converge at sink {}", sink);
      const double lambda = best.ratio();
      // Reaching the threshold confirms this sink; only a flow short of it needs to be maximal (for its cut).
      const double enough = lambda * g.npus * keep;
      double value = 0;
      if (preflow) {
        value = flow.move_sink(sink, enough);
      } else {
        set_super_source_capacity(flow, g, lambda);
        value = flow.run(super_source, sink, enough);
      }
      ++max_flows;
      progress.advance();
      preflow = value >= enough;
      if (preflow)
        break;
      Cut found = make_cut(g, graph_source_side(flow, g));
      // Re-evaluated exactly: a cut that only looks better through rounding ends the search for this sink.
      if (found.npus == 0 || !(found.ratio() < lambda * keep))
        break;
      best = std::move(found);
    }
  }
  return best;
}

// The same search with sink NPU 0 on the quotient by NPU 0's stabiliser (symmetric_bound.hpp): each improving cut
// is a union of orbits, expanded and re-evaluated on the whole graph exactly as the max-flow path does.
Cut gather_cut_by_quotient(const CapacityGraph& g, const NpuOrbits& orbits, const Tolerance& tolerance,
                           uint32_t& max_flows, ProgressScope& progress) {
  Cut best = best_simple_gather_cut(g);
  QuotientCutSearch search(orbits, g.src, g.dst, g.capacity, tolerance.residual);
  const double keep = 1 - tolerance.relative;
  for (int step = 0;; ++step) {
    CHORUS_ASSERT(step < 100000, "Dinkelbach did not converge on the quotient graph");
    const double lambda = best.ratio();
    const std::optional<std::vector<char>> classes = search.improve(lambda, keep);
    ++max_flows;
    progress.advance();
    if (!classes)
      break;
    std::vector<char> member(g.nodes);
    for (uint32_t n = 0; n < g.nodes; ++n)
      member[n] = (*classes)[orbits.class_of[n]];
    Cut found = make_cut(g, std::move(member));
    if (found.npus == 0 || !(found.ratio() < lambda * keep))
      break;
    best = std::move(found);
  }
  return best;
}

// Calls visit(mask, npus, capacity) for every node subset; capacity = B+(S), normalised.
template <typename Visit>
void for_each_subset(const CapacityGraph& g, const std::string& source, Visit&& visit) {
  if (g.nodes > kMaxBruteForceNodes) {
    throw Error(source, "method",
                fmt::format("brute force enumerates 2^nodes subsets; {} nodes is more than the {} allowed", g.nodes,
                            kMaxBruteForceNodes));
  }
  for (uint32_t mask = 0; mask < (1u << g.nodes); ++mask) {
    const auto npus = static_cast<uint32_t>(std::popcount(mask & ((1u << g.npus) - 1)));
    double capacity = 0;
    for (size_t a = 0; a < g.src.size(); ++a) {
      if ((mask >> g.src[a] & 1) && !(mask >> g.dst[a] & 1))
        capacity += g.capacity[a];
    }
    visit(mask, npus, capacity);
  }
}

Cut cut_from_mask(const CapacityGraph& g, uint32_t mask) {
  std::vector<char> member(g.nodes, 0);
  for (uint32_t n = 0; n < g.nodes; ++n)
    member[n] = (mask >> n & 1) ? 1 : 0;
  return make_cut(g, std::move(member));
}

// Picks the subset maximising score(npus, capacity) among those with 0 < npus < N and accept(mask).
template <typename Score, typename Accept>
Cut best_subset(const CapacityGraph& g, const std::string& source, Score&& score, Accept&& accept) {
  uint32_t best_mask = 0;
  double best_score = -1;
  for_each_subset(g, source, [&](uint32_t mask, uint32_t npus, double capacity) {
    if (npus == 0 || npus == g.npus || !accept(mask))
      return;
    const double s = score(npus, capacity);
    if (s > best_score)
      std::tie(best_score, best_mask) = std::tuple(s, mask);
  });
  return cut_from_mask(g, best_mask);
}

Cut gather_cut_brute_force(const CapacityGraph& g, const std::string& source) {
  return best_subset(
      g, source, [](uint32_t npus, double capacity) { return npus / capacity; }, [](uint32_t) { return true; });
}

// min B+(S) over S containing `root` but not every NPU (Broadcast; Reduce on the transpose): N-1 max-flows.
Cut rooted_cut_by_flows(const CapacityGraph& g, uint32_t root, const Tolerance& tolerance, uint32_t& max_flows,
                        ProgressScope& progress) {
  MaxFlow flow = make_max_flow(g, /*super_source=*/false, tolerance.residual);
  std::optional<Cut> best;
  for (uint32_t v = 0; v < g.npus; ++v) {
    if (v == root)
      continue;
    const double enough = best ? best->capacity : std::numeric_limits<double>::infinity();
    const double value = flow.run(root, v, enough);
    ++max_flows;
    progress.advance();
    if (value >= enough * (1 - tolerance.relative))
      continue;
    Cut found = make_cut(g, graph_source_side(flow, g));
    if (!best || found.capacity < best->capacity)
      best = std::move(found);
  }
  return std::move(*best);
}

// min over S with 0 < |S ∩ V_c| < N of B+(S). Such an S either holds NPU 0 and misses some NPU v, or misses NPU 0
// and holds some NPU v, so 2(N-1) max-flows against NPU 0 cover every S.
Cut separating_cut_by_flows(const CapacityGraph& g, const Tolerance& tolerance, uint32_t& max_flows,
                            ProgressScope& progress) {
  MaxFlow flow = make_max_flow(g, /*super_source=*/false, tolerance.residual);
  std::optional<Cut> best;
  for (uint32_t v = 1; v < g.npus; ++v) {
    for (auto [from, to] : {std::pair(0u, v), std::pair(v, 0u)}) {
      const double enough = best ? best->capacity : std::numeric_limits<double>::infinity();
      const double value = flow.run(from, to, enough);  // stops early once it cannot improve on `best`
      ++max_flows;
      progress.advance();
      if (value >= enough * (1 - tolerance.relative))
        continue;
      Cut found = make_cut(g, graph_source_side(flow, g));
      if (!best || found.capacity < best->capacity)
        best = std::move(found);
    }
  }
  return std::move(*best);
}

Cut separating_cut_brute_force(const CapacityGraph& g, const std::string& source) {
  return best_subset(
      g, source, [](uint32_t, double capacity) { return 1 / capacity; }, [](uint32_t) { return true; });
}

// ---- Symmetry -----------------------------------------------------------------------------------------------

using LinkKey = std::tuple<uint32_t, uint32_t, double, int64_t>;

// The links with every endpoint mapped by `map` (node id -> node id), sorted: equal to the unmapped list exactly when
// the map is an automorphism of the links with their bandwidths and latencies.
template <typename Map>
std::vector<LinkKey> mapped_links(const Topology& topology, Map map) {
  std::vector<LinkKey> keys;
  keys.reserve(topology.link_count());
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const LinkId link{l};
    keys.emplace_back(map(topology.link_src(link).value), map(topology.link_dst(link).value),
                      topology.link_bandwidth(link).bytes_per_second(), topology.link_latency(link).picoseconds());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// A unit translation along the dimension of `size` NPUs at `stride` (size 0: none).
std::vector<LinkKey> sorted_links(const Topology& topology, uint32_t stride, uint32_t size) {
  return mapped_links(topology, [&](uint32_t n) {
    if (size == 0)
      return n;
    const uint32_t coordinate = n / stride % size;
    return coordinate + 1 == size ? n - coordinate * stride : n + stride;
  });
}

// Every node id XORed with `mask` (mask 0: the links as they are).
std::vector<LinkKey> xored_links(const Topology& topology, uint32_t mask) {
  return mapped_links(topology, [mask](uint32_t n) { return n ^ mask; });
}

// An edge list of 2^k NPUs (and nothing else) whose links map onto themselves when every id is XORed with each
// power of two: these maps generate the group x -> x XOR m, transitive on the NPUs (a hypercube numbered as
// TACOS's inputs are).
bool npus_xor_symmetric(const Topology& topology) {
  const uint32_t n = topology.npu_count();
  if (topology.node_count() != n || n < 2 || (n & (n - 1)) != 0)
    return false;
  const std::vector<LinkKey> links = xored_links(topology, 0);
  for (uint32_t bit = 1; bit < n; bit <<= 1) {
    if (xored_links(topology, bit) != links)
      return false;
  }
  return true;
}

}  // namespace

// A unit translation along one dimension maps every NPU coordinate c_d to c_d + 1 (mod size). If it maps the
// multiset of links (with their bandwidth and latency) onto itself it is an automorphism; translations along all
// dimensions generate a group that is transitive on the NPUs. Then any cut S ∌ u maps to a cut of equal ratio
// that excludes NPU 0, so the single sink 0 sees every ratio (and NPU 0's eccentricity is the diameter). Merely
// having uniform links or identical per-NPU bandwidth multisets would not prove this, hence the explicit check;
// it also rejects topologies whose links disagree with their declared dimensions.
// An edge list gets the same argument from XOR translations (npus_xor_symmetric).
bool npus_provably_symmetric(const Topology& topology) {
  if (!topology.is_dimensional())
    return npus_xor_symmetric(topology);
  if (topology.node_count() != topology.npu_count())
    return false;
  const std::vector<LinkKey> links = sorted_links(topology, 1, 0);
  uint32_t stride = 1;
  for (const Dimension& dim : topology.dimensions()) {
    if (dim.size > 1 && sorted_links(topology, stride, dim.size) != links)
      return false;
    stride *= dim.size;
  }
  return true;
}

namespace {

// ---- Assembling the bounds ----------------------------------------------------------------------------------

struct Context {
  const Topology& topology;
  const Collective& collective;
  const BoundOptions& options;
  BoundMethod method;
  const NpuOrbits* orbits;  // set for BoundMethod::Symmetric
  LowerBound& result;
  ProgressScope& progress;
};

CutBound to_cut_bound(const Cut& cut, Bytes size, uint32_t npus) {
  CutBound b;
  b.seconds = transfer_seconds(size, cut.npus, npus, cut.bandwidth);
  b.time = floor_transfer_time(size, cut.npus, npus, cut.bandwidth);
  b.cut = members_of(cut);
  b.cut_npus = cut.npus;
  b.cut_bandwidth = cut.bandwidth;
  return b;
}

// T*_AG on g (T*_RS when g is transposed).
CutBound gather_bound(const Context& c, const CapacityGraph& g) {
  Cut cut;
  if (c.method == BoundMethod::BruteForce) {
    cut = gather_cut_brute_force(g, c.topology.name());
  } else if (c.method == BoundMethod::Symmetric) {
    cut = gather_cut_by_quotient(g, *c.orbits, c.options.tolerance, c.result.max_flows, c.progress);
  } else {
    std::vector<uint32_t> sinks;
    for (uint32_t n = 0; n < (c.method == BoundMethod::OneSink ? 1 : g.npus); ++n)
      sinks.push_back(n);
    cut = gather_cut_by_flows(g, sinks, c.options.tolerance, c.result.max_flows, c.progress);
  }
  return to_cut_bound(cut, c.collective.size, g.npus);
}

// The α-diameter over NPU pairs; with one sink, NPU 0's eccentricity (equal on NPU-transitive graphs, a valid
// bound on any graph since NPU 0's data must reach every NPU).
Time phase_latency(const Context& c, const CapacityGraph& g) {
  switch (c.method) {
    case BoundMethod::BruteForce:
      return Time::ps(latency_diameter_floyd(g));
    case BoundMethod::OneSink:
    case BoundMethod::Symmetric:
      return Time::ps(latency_eccentricity(g, 0));
    default:
      return Time::ps(latency_diameter(g));
  }
}

void set_worst_cut(LowerBound& r, const Cut& cut) {
  r.worst_cut = members_of(cut);
  r.worst_cut_npus = cut.npus;
  r.worst_cut_bandwidth = cut.bandwidth;
}

void bound_gather_or_scatter(const Context& c, bool scatter) {
  const CapacityGraph g = make_capacity_graph(c.topology, scatter);
  CutBound cut = gather_bound(c, g);
  LowerBound& r = c.result;
  r.bandwidth_bound = cut.time;
  r.latency_bound = phase_latency(c, g);
  r.bound = std::max(r.bandwidth_bound, r.latency_bound);
  r.worst_cut = cut.cut;
  r.worst_cut_npus = cut.cut_npus;
  r.worst_cut_bandwidth = cut.cut_bandwidth;
  (scatter ? r.reduce_scatter : r.all_gather) = std::move(cut);
}

// max(M / min_S B+(S), α-diameter) over S separating the NPUs: any algorithm must move M bytes of information
// across every such cut (both directions, and B-(S) = B+(V \ S), so B+ alone covers min(B+, B-)).
Time information_bound(const Context& c, const CapacityGraph& g, Time latency) {
  const Cut cut = c.method == BoundMethod::BruteForce
                      ? separating_cut_brute_force(g, c.topology.name())
                      : separating_cut_by_flows(g, c.options.tolerance, c.result.max_flows, c.progress);
  c.result.information_cut_bandwidth = cut.bandwidth;
  return std::max(floor_transfer_time(c.collective.size, 1, 1, cut.bandwidth), latency);
}

void bound_all_reduce(const Context& c) {
  const CapacityGraph forward = make_capacity_graph(c.topology, false);
  const CapacityGraph transposed = make_capacity_graph(c.topology, true);
  CutBound gather = gather_bound(c, forward);
  CutBound scatter = gather_bound(c, transposed);
  const Time latency = phase_latency(c, forward);
  LowerBound& r = c.result;
  r.bandwidth_bound = scatter.time + gather.time;
  r.latency_bound = latency * 2;
  r.bound = std::max(scatter.time, latency) + std::max(gather.time, latency);
  if (c.options.information_bound)
    r.information_bound = information_bound(c, forward, latency);
  r.worst_cut = gather.cut;
  r.worst_cut_npus = gather.cut_npus;
  r.worst_cut_bandwidth = gather.cut_bandwidth;
  r.all_gather = std::move(gather);
  r.reduce_scatter = std::move(scatter);
}

// Every NPU pair exchanges M/N, so S must send (M/N)|S ∩ V_c||V_c \ S| out through B+(S).
void bound_all_to_all(const Context& c) {
  const CapacityGraph g = make_capacity_graph(c.topology, false);
  const uint64_t n = g.npus;
  auto pairs = [n](uint32_t npus) { return static_cast<uint64_t>(npus) * (n - npus); };
  Cut cut;
  LowerBound& r = c.result;
  if (c.method == BoundMethod::BruteForce) {
    cut = best_subset(
        g, c.topology.name(), [&](uint32_t npus, double capacity) { return pairs(npus) / capacity; },
        [](uint32_t) { return true; });
    r.latency_bound = Time::ps(latency_diameter_floyd(g));
  } else {
    // Both single-NPU cut families have |S ∩ V_c||V_c \ S| = N - 1, so the best simple gather cut is the best.
    cut = best_simple_gather_cut(g);
    r.latency_bound = phase_latency(c, g);
    r.method = BoundMethod::SingleNodeCuts;
  }
  r.bandwidth_bound = floor_transfer_time(c.collective.size, pairs(cut.npus), n, cut.bandwidth);
  r.bound = std::max(r.bandwidth_bound, r.latency_bound);
  set_worst_cut(r, cut);
}

// Broadcast from the root (Reduce: to the root, i.e. Broadcast on the transpose).
void bound_rooted(const Context& c, bool reduce) {
  const CapacityGraph g = make_capacity_graph(c.topology, reduce);
  const uint32_t root = c.options.root.value;
  Cut cut;
  LowerBound& r = c.result;
  if (c.method == BoundMethod::BruteForce) {
    cut = best_subset(
        g, c.topology.name(), [](uint32_t, double capacity) { return 1 / capacity; },
        [root](uint32_t mask) { return (mask >> root & 1) != 0; });
  } else {
    cut = rooted_cut_by_flows(g, root, c.options.tolerance, r.max_flows, c.progress);
    r.method = BoundMethod::AllSinks;  // one max-flow per non-root NPU is exact on any graph
  }
  r.bandwidth_bound = floor_transfer_time(c.collective.size, 1, 1, cut.bandwidth);
  r.latency_bound = Time::ps(latency_eccentricity(g, root));
  r.bound = std::max(r.bandwidth_bound, r.latency_bound);
  set_worst_cut(r, cut);
}

void validate(const Topology& topology, const Collective& collective, const BoundOptions& options) {
  if (collective.size < Bytes(0)) {
    throw Error(topology.name(), "size", fmt::format("is {} bytes; must be >= 0", collective.size.count()));
  }
  if (collective.npus != 0 && collective.npus != topology.npu_count()) {
    throw Error(topology.name(), "npus",
                fmt::format("the collective spans {} NPUs but the topology has {}; bounds cover all NPUs",
                            collective.npus, topology.npu_count()));
  }
  const bool rooted = collective.kind == CollectiveKind::Broadcast || collective.kind == CollectiveKind::Reduce;
  if (rooted && !topology.is_npu(options.root)) {
    throw Error(
        topology.name(), "root",
        fmt::format("node {} is not an NPU (the topology has {} NPUs)", options.root.value, topology.npu_count()));
  }
  require_strongly_connected(topology);
}

BoundMethod resolve_method(const Topology& topology, BoundMethod requested, const std::optional<NpuOrbits>& orbits) {
  if (requested == BoundMethod::Symmetric && !orbits) {
    throw Error(topology.name(), "method",
                "symmetric needs a dimensional topology of Ring, UniRing, FullyConnected and Switch dimensions whose "
                "links follow its dimensions, or a fattree");
  }
  if (requested != BoundMethod::Auto)
    return requested;
  if (orbits)
    return BoundMethod::Symmetric;
  return npus_provably_symmetric(topology) ? BoundMethod::OneSink : BoundMethod::AllSinks;
}

// The orbits, computed only where a method may use them (Auto or Symmetric asked for).
std::optional<NpuOrbits> orbits_for(const Topology& topology, BoundMethod requested) {
  if (requested != BoundMethod::Auto && requested != BoundMethod::Symmetric)
    return std::nullopt;
  return npu_orbits(topology);
}

// Max-flows one per NPU pair or sink, or Dijkstra from every NPU, grow faster than linearly with the NPUs; so do
// the quotient max-flows when the orbits are many (a ring of N has N/2 + 1).
bool needs_per_npu_work(const Collective& collective, const BoundOptions& options, BoundMethod method,
                        const std::optional<NpuOrbits>& orbits) {
  const bool rooted = collective.kind == CollectiveKind::Broadcast || collective.kind == CollectiveKind::Reduce;
  const bool information = collective.kind == CollectiveKind::AllReduce && options.information_bound;
  return method != BoundMethod::Symmetric || rooted || information || orbits->classes > limits::kMaxBoundNpus;
}

std::optional<std::string> too_costly(const Topology& topology, const Collective& collective,
                                      const BoundOptions& options, BoundMethod method,
                                      const std::optional<NpuOrbits>& orbits) {
  if (topology.npu_count() <= limits::kMaxBoundNpus || !needs_per_npu_work(collective, options, method, orbits))
    return std::nullopt;
  return fmt::format(
      "{} NPUs; bounds are computed for at most {} (kMaxBoundNpus in src/chorus/core/limits.hpp), "
      "except All-Gather, Reduce-Scatter, All-Reduce and All-to-All on symmetric dimensional "
      "topologies and fat-trees with at most that many NPU orbits",
      topology.npu_count(), limits::kMaxBoundNpus);
}

}  // namespace

std::optional<std::string> bound_not_computable(const Topology& topology, const Collective& collective,
                                                const BoundOptions& options) {
  if (topology.npu_count() <= limits::kMaxBoundNpus)
    return std::nullopt;
  const std::optional<NpuOrbits> orbits = orbits_for(topology, options.method);
  return too_costly(topology, collective, options, orbits ? BoundMethod::Symmetric : BoundMethod::AllSinks, orbits);
}

LowerBound lower_bound(const Topology& topology, const Collective& collective, const BoundOptions& options) {
  const std::optional<NpuOrbits> orbits = orbits_for(topology, options.method);
  LowerBound result;
  result.collective = collective.kind;
  result.size = collective.size;
  result.npus = topology.npu_count();
  result.method = resolve_method(topology, options.method, orbits);
  // The bound's cut and flow computations grow faster than linearly; past this size they run for minutes.
  if (const std::optional<std::string> why = too_costly(topology, collective, options, result.method, orbits))
    throw BoundNotComputed(topology.name(), "npus", *why);
  validate(topology, collective, options);
  if (result.method == BoundMethod::SingleNodeCuts) {
    throw Error(topology.name(), "method", "single_node_cuts is a reported method, not one to ask for");
  }
  if (topology.npu_count() == 1)
    return result;  // nothing to move: every bound is zero
  // A count without a total: Dinkelbach's max-flows per sink vary.
  ProgressScope progress(options.progress, "bound: max-flows", 0);
  const Context context{topology, collective, options, result.method, orbits ? &*orbits : nullptr, result, progress};
  switch (collective.kind) {
    case CollectiveKind::AllGather:
      bound_gather_or_scatter(context, false);
      break;
    case CollectiveKind::ReduceScatter:
      bound_gather_or_scatter(context, true);
      break;
    case CollectiveKind::AllReduce:
      bound_all_reduce(context);
      break;
    case CollectiveKind::AllToAll:
      bound_all_to_all(context);
      break;
    case CollectiveKind::Broadcast:
      bound_rooted(context, false);
      break;
    case CollectiveKind::Reduce:
      bound_rooted(context, true);
      break;
  }
  return result;
}

namespace {

// A CutBound's time at another size: the same cut, the same rounding as to_cut_bound.
void rescale_cut(std::optional<CutBound>& cut, Bytes size, uint32_t npus) {
  if (!cut)
    return;
  cut->seconds = transfer_seconds(size, cut->cut_npus, npus, cut->cut_bandwidth);
  cut->time = floor_transfer_time(size, cut->cut_npus, npus, cut->cut_bandwidth);
}

}  // namespace

LowerBound lower_bound_at_size(const LowerBound& reference, Bytes size) {
  if (size < Bytes(0))
    throw Error("lower bound", "size", fmt::format("is {} bytes; must be >= 0", size.count()));
  LowerBound r = reference;
  r.size = size;
  r.max_flows = 0;
  if (r.npus <= 1)
    return r;  // every bound is zero
  rescale_cut(r.all_gather, size, r.npus);
  rescale_cut(r.reduce_scatter, size, r.npus);
  const uint64_t n = r.npus;
  const uint64_t cut_npus = r.worst_cut_npus;
  switch (r.collective) {
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
      r.bandwidth_bound = (r.all_gather ? r.all_gather : r.reduce_scatter)->time;
      r.bound = std::max(r.bandwidth_bound, r.latency_bound);
      break;
    case CollectiveKind::AllReduce: {
      const Time latency = Time::ps(r.latency_bound.picoseconds() / 2);  // one α-diameter per phase
      r.bandwidth_bound = r.reduce_scatter->time + r.all_gather->time;
      r.bound = std::max(r.reduce_scatter->time, latency) + std::max(r.all_gather->time, latency);
      if (r.information_bound)
        r.information_bound = std::max(floor_transfer_time(size, 1, 1, r.information_cut_bandwidth), latency);
      break;
    }
    case CollectiveKind::AllToAll:
      r.bandwidth_bound = floor_transfer_time(size, cut_npus * (n - cut_npus), n, r.worst_cut_bandwidth);
      r.bound = std::max(r.bandwidth_bound, r.latency_bound);
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      r.bandwidth_bound = floor_transfer_time(size, 1, 1, r.worst_cut_bandwidth);
      r.bound = std::max(r.bandwidth_bound, r.latency_bound);
      break;
  }
  return r;
}

}  // namespace chorus
