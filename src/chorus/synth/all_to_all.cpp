// All-to-All synthesis (see all_to_all.hpp).
#include "chorus/synth/all_to_all.hpp"

#include <algorithm>
#include <queue>
#include <random>

#include "chorus/core/assert.hpp"

namespace chorus {

namespace {

constexpr uint32_t kFar = UINT32_MAX;

// Hops from every node to member d (BFS on reversed links).
std::vector<uint32_t> hops_to(const SynthGraph& g, uint32_t d) {
  std::vector<uint32_t> dist(g.node_count(), kFar);
  std::vector<uint32_t> queue{d};
  dist[d] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    const uint32_t v = queue[i];
    for (uint32_t l : g.in_links(v)) {
      const uint32_t u = g.src(l);
      if (dist[u] == kFar) {
        dist[u] = dist[v] + 1;
        queue.push_back(u);
      }
    }
  }
  return dist;
}

struct Ready {
  Time at;
  uint32_t remaining = 0;  // hops left, longer first
  uint32_t chunk = 0;
  uint32_t hop = 0;  // index into the chunk's path
  bool operator>(const Ready& o) const {
    if (at != o.at)
      return at > o.at;
    if (remaining != o.remaining)
      return remaining < o.remaining;
    return chunk > o.chunk;
  }
};

}  // namespace

AllToAllResult synthesize_all_to_all(const SynthGraph& g, uint32_t k, Bytes chunk_bytes, uint64_t seed) {
  const uint32_t n = g.member_count();
  std::vector<Time> tau(g.link_count());
  for (uint32_t l = 0; l < g.link_count(); ++l)
    tau[l] = g.latency(l) + transfer_time(chunk_bytes, g.bandwidth(l));
  std::mt19937_64 rng(seed);
  std::vector<int64_t> load(g.link_count(), 0);
  std::vector<uint32_t> path_begin{0}, path_links;
  std::vector<uint32_t> chunk_of_path;
  for (uint32_t d = 0; d < n; ++d) {
    const std::vector<uint32_t> dist = hops_to(g, d);
    for (uint32_t j = 0; j < k; ++j) {
      for (uint32_t s = 0; s < n; ++s) {
        if (s == d)
          continue;
        CHORUS_ASSERT(dist[s] != kFar, "all-to-all: member {} cannot reach member {}", s, d);
        for (uint32_t at = s; at != d;) {
          uint32_t pick = UINT32_MAX;
          for (uint32_t l : g.out_links(at)) {
            if (dist[g.dst(l)] + 1 != dist[at])
              continue;
            if (pick == UINT32_MAX || load[l] + tau[l].picoseconds() < load[pick] + tau[pick].picoseconds() ||
                (load[l] + tau[l].picoseconds() == load[pick] + tau[pick].picoseconds() && (rng() & 1)))
              pick = l;
          }
          load[pick] += tau[pick].picoseconds();
          path_links.push_back(pick);
          at = g.dst(pick);
        }
        path_begin.push_back(static_cast<uint32_t>(path_links.size()));
        chunk_of_path.push_back((j * n + s) * n + d);
      }
    }
  }
  AllToAllResult r;
  std::vector<Time> link_free(g.link_count(), Time::zero());
  std::vector<uint32_t> last_hop(chunk_of_path.size(), UINT32_MAX);
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (uint32_t p = 0; p + 1 < path_begin.size(); ++p)
    ready.push({Time::zero(), path_begin[p + 1] - path_begin[p], p, 0});
  while (!ready.empty()) {
    const Ready x = ready.top();
    ready.pop();
    const uint32_t l = path_links[path_begin[x.chunk] + x.hop];
    const Time start = std::max(x.at, link_free[l]);
    const Time end = start + tau[l];
    link_free[l] = end;
    r.hops.push_back({l, chunk_of_path[x.chunk], start, end, last_hop[x.chunk]});
    last_hop[x.chunk] = static_cast<uint32_t>(r.hops.size() - 1);
    r.makespan = std::max(r.makespan, end);
    if (x.hop + 1 < path_begin[x.chunk + 1] - path_begin[x.chunk])
      ready.push({end, x.remaining - 1, x.chunk, x.hop + 1});
  }
  return r;
}

}  // namespace chorus
