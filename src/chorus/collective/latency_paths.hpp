// Shortest latency (α) paths from one node, for the latency parts of the lower bounds (lower_bound.cpp): N of them
// per all-pairs diameter, so each must be cheap.
//
// A topology has a few kinds of links, so every latency is usually a small multiple of the latencies' greatest
// common divisor; then Dial's bucket queue (Dial, CACM 12(11), 1969) settles each node in O(1): O(V + E + C) per
// source for C = max latency / gcd, against a binary heap's O(E log V). Above kMaxBuckets the heap is used. Both
// give the same integer distances.
//
//   LatencyPaths paths(nodes, out_offset, out_arc, dst, latency_ps);
//   const std::vector<int64_t>& d = paths.from(0);  // kUnreachablePs where there is no path
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace chorus {

inline constexpr int64_t kUnreachablePs = std::numeric_limits<int64_t>::max();

class LatencyPaths {
 public:
  // Arcs a = out_arc[out_offset[u] .. out_offset[u + 1]) leave u for dst[a] and take latency_ps[a] >= 0. The
  // spans must outlive this object.
  LatencyPaths(uint32_t nodes, std::span<const uint32_t> out_offset, std::span<const uint32_t> out_arc,
               std::span<const uint32_t> dst, std::span<const int64_t> latency_ps);

  // Distances from `source` to every node; valid until the next call.
  const std::vector<int64_t>& from(uint32_t source);

  // The largest distance from a node in 0 .. sources-1 to a node in 0 .. targets-1 (pairs with no path ignored).
  // With one latency on every arc it is the hop diameter times that latency, found by bit-parallel searches
  // (topology/hop_diameter.hpp); otherwise one search per source.
  int64_t diameter(uint32_t sources, uint32_t targets);

 private:
  static constexpr int64_t kMaxBuckets = 4096;

  void by_buckets(uint32_t source);
  void by_heap(uint32_t source);

  std::span<const uint32_t> out_offset_, out_arc_, dst_;
  std::span<const int64_t> latency_ps_;
  int64_t unit_ = 1;      // the latencies' gcd (1 when all are 0)
  int64_t span_ = 0;      // the largest latency in units
  bool uniform_ = false;  // every arc has the latency unit_ (or there are no arcs)
  std::vector<int64_t> dist_;
  std::vector<std::vector<uint32_t>> buckets_;  // span_ + 1 of them, circular, when span_ < kMaxBuckets
};

}  // namespace chorus
