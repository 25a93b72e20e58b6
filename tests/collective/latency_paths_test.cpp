// LatencyPaths: Dial's buckets (few latency values), the heap (many) and the diameter (bit-parallel hop searches
// for one latency value) against Bellman-Ford on random graphs, zero latencies and unreachable nodes included.
#include "chorus/collective/latency_paths.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace chorus {
namespace {

struct Graph {
  uint32_t nodes = 0;
  std::vector<uint32_t> src, dst, out_offset, out_arc;
  std::vector<int64_t> latency;
};

Graph random_graph(uint32_t nodes, uint32_t arcs, const std::vector<int64_t>& latencies, std::mt19937& rng) {
  Graph g;
  g.nodes = nodes;
  std::uniform_int_distribution<uint32_t> node(0, nodes - 1);
  std::uniform_int_distribution<size_t> pick(0, latencies.size() - 1);
  for (uint32_t a = 0; a < arcs; ++a) {
    g.src.push_back(node(rng));
    g.dst.push_back(node(rng));
    g.latency.push_back(latencies[pick(rng)]);
  }
  g.out_offset.assign(nodes + 1, 0);
  for (uint32_t s : g.src)
    ++g.out_offset[s + 1];
  for (uint32_t n = 0; n < nodes; ++n)
    g.out_offset[n + 1] += g.out_offset[n];
  g.out_arc.resize(arcs);
  std::vector<uint32_t> cursor(g.out_offset.begin(), g.out_offset.end() - 1);
  for (uint32_t a = 0; a < arcs; ++a)
    g.out_arc[cursor[g.src[a]]++] = a;
  return g;
}

std::vector<int64_t> bellman_ford(const Graph& g, uint32_t source) {
  std::vector<int64_t> d(g.nodes, kUnreachablePs);
  d[source] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t a = 0; a < g.src.size(); ++a) {
      if (d[g.src[a]] != kUnreachablePs && d[g.src[a]] + g.latency[a] < d[g.dst[a]]) {
        d[g.dst[a]] = d[g.src[a]] + g.latency[a];
        changed = true;
      }
    }
  }
  return d;
}

TEST(LatencyPaths, BucketsAndHeapMatchBellmanFord) {
  std::mt19937 rng(7);
  const std::vector<std::vector<int64_t>> kinds = {
      {500'000},                      // one latency: every distance a multiple of it
      {250'000, 2'000'000},           // a DGX's two tiers
      {0, 150'000, 400'000},          // zero-latency arcs in the bucket being scanned
      {0},                            // all zero
      {1, 7'919, 1'000'003, 4'999}};  // span far above the bucket limit: the heap
  for (const auto& latencies : kinds) {
    for (uint32_t trial = 0; trial < 4; ++trial) {
      const Graph g = random_graph(60, 150 + 40 * trial, latencies, rng);
      LatencyPaths paths(g.nodes, g.out_offset, g.out_arc, g.dst, g.latency);
      int64_t diameter = 0;  // over sources and targets 0 .. 29, reachable pairs
      for (uint32_t s = 0; s < g.nodes; ++s) {
        const std::vector<int64_t> reference = bellman_ford(g, s);
        if (s % 7 == 0) {
          EXPECT_EQ(paths.from(s), reference) << "latencies[0] " << latencies[0] << " source " << s;
        }
        for (uint32_t t = 0; s < 30 && t < 30; ++t) {
          if (reference[t] != kUnreachablePs)
            diameter = std::max(diameter, reference[t]);
        }
      }
      EXPECT_EQ(paths.diameter(30, 30), diameter) << "latencies[0] " << latencies[0];
    }
  }
}

}  // namespace
}  // namespace chorus
