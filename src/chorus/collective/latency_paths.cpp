// Shortest latency paths (see latency_paths.hpp).
#include "chorus/collective/latency_paths.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

#include "chorus/topology/hop_diameter.hpp"

namespace chorus {

LatencyPaths::LatencyPaths(uint32_t nodes, std::span<const uint32_t> out_offset, std::span<const uint32_t> out_arc,
                           std::span<const uint32_t> dst, std::span<const int64_t> latency_ps)
    : out_offset_(out_offset), out_arc_(out_arc), dst_(dst), latency_ps_(latency_ps), dist_(nodes, kUnreachablePs) {
  int64_t gcd = 0, largest = 0, smallest = kUnreachablePs;
  for (int64_t l : latency_ps) {
    gcd = std::gcd(gcd, l);
    largest = std::max(largest, l);
    smallest = std::min(smallest, l);
  }
  unit_ = gcd > 0 ? gcd : 1;
  span_ = largest / unit_;
  uniform_ = latency_ps.empty() || (smallest == largest && largest > 0);
  if (span_ < kMaxBuckets)
    buckets_.resize(static_cast<size_t>(span_) + 1);
}

const std::vector<int64_t>& LatencyPaths::from(uint32_t source) {
  std::fill(dist_.begin(), dist_.end(), kUnreachablePs);
  if (buckets_.empty())
    by_heap(source);
  else
    by_buckets(source);
  return dist_;
}

int64_t LatencyPaths::diameter(uint32_t sources, uint32_t targets) {
  if (uniform_) {
    std::vector<uint32_t> target(out_arc_.size());
    for (size_t k = 0; k < out_arc_.size(); ++k)
      target[k] = dst_[out_arc_[k]];
    return int64_t{hop_diameter(static_cast<uint32_t>(dist_.size()), out_offset_, target, sources, targets)} * unit_;
  }
  int64_t diameter = 0;
  for (uint32_t s = 0; s < sources; ++s) {
    const std::vector<int64_t>& d = from(s);
    for (uint32_t t = 0; t < targets; ++t) {
      if (d[t] != kUnreachablePs)
        diameter = std::max(diameter, d[t]);
    }
  }
  return diameter;
}

// Distances in units: a node reached at d waits in bucket d mod (span + 1); every tentative distance lies within
// span of the one being settled, so the buckets never mix two distances. A node may sit in several buckets; only
// the entry matching its current distance counts. Zero-latency arcs land in the bucket being scanned, which is read
// by index as it grows.
void LatencyPaths::by_buckets(uint32_t source) {
  const auto slots = static_cast<int64_t>(buckets_.size());
  dist_[source] = 0;
  buckets_[0].push_back(source);
  size_t pending = 1;
  for (int64_t d = 0; pending > 0; ++d) {
    std::vector<uint32_t>& bucket = buckets_[static_cast<size_t>(d % slots)];
    for (size_t i = 0; i < bucket.size(); ++i) {
      const uint32_t u = bucket[i];
      if (dist_[u] != d * unit_)
        continue;
      for (uint32_t k = out_offset_[u]; k < out_offset_[u + 1]; ++k) {
        const uint32_t a = out_arc_[k];
        const int64_t candidate = dist_[u] + latency_ps_[a];
        if (candidate < dist_[dst_[a]]) {
          dist_[dst_[a]] = candidate;
          buckets_[static_cast<size_t>((candidate / unit_) % slots)].push_back(dst_[a]);
          ++pending;
        }
      }
    }
    pending -= bucket.size();
    bucket.clear();
  }
}

void LatencyPaths::by_heap(uint32_t source) {
  using Entry = std::pair<int64_t, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  dist_[source] = 0;
  heap.emplace(0, source);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != dist_[u])
      continue;
    for (uint32_t k = out_offset_[u]; k < out_offset_[u + 1]; ++k) {
      const uint32_t a = out_arc_[k];
      const int64_t candidate = d + latency_ps_[a];
      if (candidate < dist_[dst_[a]]) {
        dist_[dst_[a]] = candidate;
        heap.emplace(candidate, dst_[a]);
      }
    }
  }
}

}  // namespace chorus
