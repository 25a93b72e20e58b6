// All-to-All lower bound with a demand matrix (see all_to_all_bound.hpp).
#include "chorus/synth/all_to_all_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace chorus {

namespace {

Time floor_seconds(double s) {
  return Time::ps(static_cast<int64_t>(std::floor(s * 1e12 * (1 - 1e-12))));
}

Time single_npu_cuts(const SynthGraph& g, const std::vector<int64_t>& d) {
  const uint32_t n = g.member_count();
  double worst = 0;
  for (uint32_t v = 0; v < n; ++v) {
    double out = 0, in = 0, b_out = 0, b_in = 0;
    for (uint32_t w = 0; w < n; ++w) {
      out += static_cast<double>(d[size_t{v} * n + w]);
      in += static_cast<double>(d[size_t{w} * n + v]);
    }
    for (uint32_t l : g.out_links(v))
      b_out += g.bandwidth(l).bytes_per_second();
    for (uint32_t l : g.in_links(v))
      b_in += g.bandwidth(l).bytes_per_second();
    if (out > 0)
      worst = std::max(worst, out / b_out);
    if (in > 0)
      worst = std::max(worst, in / b_in);
  }
  return floor_seconds(worst);
}

// The largest latency distance between a pair with traffic (Dijkstra on latencies from every sending member).
Time latency_reach(const SynthGraph& g, const std::vector<int64_t>& d) {
  const uint32_t n = g.member_count();
  int64_t worst = 0;
  std::vector<int64_t> dist(g.node_count());
  using Item = std::pair<int64_t, uint32_t>;
  for (uint32_t s = 0; s < n; ++s) {
    std::fill(dist.begin(), dist.end(), std::numeric_limits<int64_t>::max());
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist[s] = 0;
    heap.push({0, s});
    while (!heap.empty()) {
      const auto [dv, v] = heap.top();
      heap.pop();
      if (dv > dist[v])
        continue;
      for (uint32_t l : g.out_links(v)) {
        const int64_t nd = dv + g.latency(l).picoseconds();
        if (nd < dist[g.dst(l)]) {
          dist[g.dst(l)] = nd;
          heap.push({nd, g.dst(l)});
        }
      }
    }
    for (uint32_t t = 0; t < n; ++t) {
      if (t != s && d[size_t{s} * n + t] > 0)
        worst = std::max(worst, dist[t]);
    }
  }
  return Time::ps(worst);
}

}  // namespace

std::vector<int64_t> uniform_demand(uint32_t members, Bytes size) {
  const int64_t each = members == 0 ? 0 : (size.count() + members - 1) / members;
  std::vector<int64_t> d(size_t{members} * members, each);
  for (uint32_t v = 0; v < members; ++v)
    d[size_t{v} * members + v] = 0;
  return d;
}

AllToAllBound all_to_all_bound(const SynthGraph& g, const std::vector<int64_t>& pair_bytes,
                               const ConcurrentFlowOptions& options) {
  AllToAllBound b;
  const ConcurrentFlow f = concurrent_flow(g, pair_bytes, options);
  b.flow_lower = floor_seconds(f.lower_s);
  b.flow_upper = Time::ps(static_cast<int64_t>(std::ceil(f.upper_s * 1e12)));
  b.phases = f.phases;
  b.exact = f.exact;
  b.cut = single_npu_cuts(g, pair_bytes);
  b.latency = latency_reach(g, pair_bytes);
  b.bound = std::max({b.flow_lower, b.cut, b.latency});
  if (b.bound == b.latency && b.latency > std::max(b.flow_lower, b.cut))
    b.binding = "latency";
  else if (b.bound == b.flow_lower)
    b.binding = std::string("flow (") + f.binding + ")";
  else
    b.binding = "single-npu cut";
  return b;
}

}  // namespace chorus
