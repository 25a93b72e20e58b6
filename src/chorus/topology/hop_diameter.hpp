// The hop diameter of a directed graph between its first nodes, by breadth-first searches run 64 sources at a time.
//
// Why: the synthesizer's chunk-model bound and the latency bound of uniform-latency networks need the largest hop
// distance over all NPU pairs, N searches. Holding one bit per source in a 64-bit word per node, a level of 64
// searches is one pass over the arcs (an OR per arc), so the whole costs N / 64 x diameter x arcs word operations
// instead of N x (nodes + arcs) queue steps: 7-10x fewer instructions on the 1,024-NPU TACOS inputs.
//
//   // arcs k = offset[u] .. offset[u + 1] leave node u for target[k]
//   uint32_t d = hop_diameter(nodes, offset, target, /*sources=*/npus, /*targets=*/npus);
#pragma once

#include <cstdint>
#include <span>

namespace chorus {

// The most hops from a source (nodes 0 .. sources-1) to a target (nodes 0 .. targets-1) it reaches; pairs with no
// path are ignored.
uint32_t hop_diameter(uint32_t nodes, std::span<const uint32_t> offset, std::span<const uint32_t> target,
                      uint32_t sources, uint32_t targets);

}  // namespace chorus
