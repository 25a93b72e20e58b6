// Hop diameter by bit-parallel breadth-first search (see hop_diameter.hpp).
#include "chorus/topology/hop_diameter.hpp"

#include <algorithm>
#include <vector>

namespace chorus {

namespace {

// Searches from sources first .. first+63 (fewer at the end) at once; bit i of a node's word stands for source
// first + i. Returns the level at which the last target was first reached by some of them.
uint32_t deepest_level(uint32_t nodes, std::span<const uint32_t> offset, std::span<const uint32_t> target,
                       uint32_t first, uint32_t count, uint32_t targets, std::vector<uint64_t>& seen,
                       std::vector<uint64_t>& frontier, std::vector<uint64_t>& next) {
  std::fill(seen.begin(), seen.end(), 0);
  std::fill(frontier.begin(), frontier.end(), 0);
  for (uint32_t i = 0; i < count; ++i)
    seen[first + i] = frontier[first + i] = 1ull << i;
  uint32_t deepest = 0;
  for (uint32_t level = 1;; ++level) {
    std::fill(next.begin(), next.end(), 0);
    bool moved = false;
    for (uint32_t u = 0; u < nodes; ++u) {
      if (frontier[u] == 0)
        continue;
      for (uint32_t k = offset[u]; k < offset[u + 1]; ++k)
        next[target[k]] |= frontier[u];
    }
    for (uint32_t v = 0; v < nodes; ++v) {
      next[v] &= ~seen[v];
      seen[v] |= next[v];
      moved = moved || next[v] != 0;
      if (next[v] != 0 && v < targets)
        deepest = level;
    }
    if (!moved)
      return deepest;
    frontier.swap(next);
  }
}

}  // namespace

uint32_t hop_diameter(uint32_t nodes, std::span<const uint32_t> offset, std::span<const uint32_t> target,
                      uint32_t sources, uint32_t targets) {
  std::vector<uint64_t> seen(nodes), frontier(nodes), next(nodes);
  uint32_t diameter = 0;
  for (uint32_t first = 0; first < sources; first += 64) {
    const uint32_t count = std::min<uint32_t>(64, sources - first);
    diameter = std::max(diameter, deepest_level(nodes, offset, target, first, count, targets, seen, frontier, next));
  }
  return diameter;
}

}  // namespace chorus
