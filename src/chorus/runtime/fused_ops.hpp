// The runtime's side of fused computation-collective operators: a collective marked fused (workload/
// fusion_marks.hpp) ends one tile pipeline with the compute node it depends on (fused/pipeline.hpp).
//
// The compute node keeps its own span (the whole computation, as unfused); the collective then lasts only what the
// pipeline adds after it: fused - compute, where fused = tile_pipeline({compute / T, x, o}, T), x is the same
// collective on 1/T of the data, timed like every collective of the run, and o its network occupancy
// (tile_transfer). With every member's compute ending together this is exact; a member whose compute ends early
// waits for the others as with any collective.
//
//   FusedOpReport f = time_fused_op(graph, node, compute, type, bytes, members, timer);
//   end = start + (f.fused - f.compute);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

struct FusedOpReport {
  uint64_t node_id = 0;  // the collective on its group's first member
  std::string op;
  uint32_t tiles = 0;
  Time compute;     // the compute node alone
  Time collective;  // the collective alone
  Time fused;       // the tile pipeline of both
  Time unfused() const { return compute + collective; }
};

// One tile's collective: x, the collective of ceil(bytes / tiles) bytes on `members`, and o = x - L, its network
// occupancy, where L is its latency part read off a linear fit of two sizes, L = 2 x(s) - x(2s) (exact when the
// time is latency + size / bandwidth), clamped to [0, x].
struct TileTransfer {
  Time transfer;
  Time occupancy;
};
TileTransfer tile_transfer(CollectiveTimer& timer, chakra::CommType type, Bytes bytes, uint32_t tiles,
                           const std::vector<uint32_t>& members);

// `node` is the marked collective in `g` (the group's first member), `compute` its input's compute time and
// `whole` the collective's own time. Throws chorus::Error naming the node when the operator is unknown, ends a
// different collective, or fuses a collective into the compute after it (all-gather-gemm: not a compute ->
// collective chain).
FusedOpReport time_fused_op(const NpuGraph& g, uint32_t node, Time compute, Time whole, chakra::CommType type,
                            Bytes bytes, const std::vector<uint32_t>& members, CollectiveTimer& timer);

}  // namespace chorus
