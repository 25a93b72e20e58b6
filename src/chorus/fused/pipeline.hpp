// The tile pipeline of a fused computation-collective operator, in closed form. Depends on core only, so that
// the workload runtime can use it as well as the analytical model (model.hpp).
//
// A fused kernel computes T tiles of time c each (tile i done at (i+1)c) and hands each tile to the network as
// soon as it is done; the network moves one tile in x and carries one tile at a time (tile i's transfer starts at
// the later of its compute end and tile i-1's transfer end). With constant c and x, the last transfer ends at
//
//     send-as-finished (compute -> collective):   F = c + max(c, x) (T - 1) + x
//
// (c >= x: the network keeps up, F = T c + x; x > c: the network is the bottleneck, F = c + T x).
// The reverse order, an All-Gather feeding a GEMM decomposed by shard (collective matmul), computes the local
// shard first while shard 1 arrives, then each shard as it lands (shard i arrives at i x):
//
//     gather-then-compute (collective -> compute): F = c + max(c, x) (T - 1)
//
//   Time f = tile_pipeline(Time::us(1), Time::us(2), 4, PipelineOrder::ComputeThenSend);  // 1 + 2*3 + 2 = 9 us
#pragma once

#include <cstdint>

#include "chorus/core/units.hpp"

namespace chorus::fused {

enum class PipelineOrder : uint8_t { ComputeThenSend, GatherThenCompute };

// `tiles` >= 1 (a programmer invariant: callers validate user input).
Time tile_pipeline(Time tile_compute, Time tile_transfer, uint32_t tiles, PipelineOrder order);

// `total` split into `parts` equal pieces, rounded up to whole picoseconds (so parts * piece >= total).
Time split_time(Time total, uint32_t parts);

}  // namespace chorus::fused
