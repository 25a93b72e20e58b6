// The tile pipeline of a fused computation-collective operator, in closed form. Depends on core only, so that
// the workload runtime can use it as well as the analytical model (model.hpp).
//
// A fused kernel computes T tiles of time c each (tile i done at (i+1)c) and hands each tile to the network as
// soon as it is done. One tile's collective takes x from its start to its end, but keeps the network busy for only
// o <= x of that: its bandwidth time (x minus the latency it spends in flight, which the next tiles' transfers
// overlap, as a GPU issues the next tile's stores or puts without waiting for the previous ones to land). Tile i's
// transfer starts at the later of its compute end and tile i-1's start + o. With constant c, o and x:
//
//     send-as-finished (compute -> collective):   F = c + max(c, o) (T - 1) + x
//
// (c >= o: the network keeps up, F = T c + x; o > c: the network's bandwidth is the bottleneck, F = c + (T-1) o + x;
// T = 1: c + x, no overlap). With o = x this is the plain two-stage pipeline c + max(c, x) (T - 1) + x.
// The reverse order, an All-Gather feeding a GEMM decomposed by shard (collective matmul), computes the local
// shard first; shard i >= 1 lands at x + (i-1) o and is computed once it has landed and shard i-1 is done:
//
//     gather-then-compute (collective -> compute): F = c + max(c, x) + max(c, o) (T - 2)   (T >= 2; T = 1: c)
//
//   Time f = tile_pipeline({Time::us(1), Time::us(2), Time::us(2)}, 4, PipelineOrder::ComputeThenSend);  // 9 us
#pragma once

#include <cstdint>

#include "chorus/core/units.hpp"

namespace chorus::fused {

enum class PipelineOrder : uint8_t { ComputeThenSend, GatherThenCompute };

struct TileTimes {
  Time compute;    // c: one tile's computation
  Time transfer;   // x: one tile's collective, start to end
  Time occupancy;  // o: how long one tile's collective keeps the network from starting the next (o <= x)
};

// `tiles` >= 1 (a programmer invariant: callers validate user input).
Time tile_pipeline(const TileTimes& tile, uint32_t tiles, PipelineOrder order);

// `total` split into `parts` equal pieces, rounded up to whole picoseconds (so parts * piece >= total).
Time split_time(Time total, uint32_t parts);

}  // namespace chorus::fused
