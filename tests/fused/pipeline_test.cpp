// The tile pipeline closed forms (src/chorus/fused/pipeline.hpp) against hand-worked cases and against a direct
// tile-by-tile simulation of the same two-stage pipeline.
#include <gtest/gtest.h>

#include <algorithm>

#include "chorus/fused/pipeline.hpp"

namespace chorus::fused {
namespace {

// Tile i's compute ends at (i+1)c; its transfer starts at the later of that and the previous start + o, and ends
// x after its start.
Time simulate_send_as_finished(const TileTimes& t, uint32_t tiles) {
  Time start = Time::zero();
  for (uint32_t i = 0; i < tiles; ++i)
    start = i == 0 ? t.compute : std::max(t.compute * (i + 1), start + t.occupancy);
  return start + t.transfer;
}

// Shard 0 is local; shard i >= 1 lands at x + (i-1) o; each shard's compute starts at the later of its landing and
// the previous compute's end.
Time simulate_gather_then_compute(const TileTimes& t, uint32_t tiles) {
  Time compute_free = t.compute;
  for (uint32_t i = 1; i < tiles; ++i)
    compute_free = std::max(t.transfer + t.occupancy * (i - 1), compute_free) + t.compute;
  return compute_free;
}

TileTimes us(int64_t c, int64_t x, int64_t o) {
  return TileTimes{Time::us(c), Time::us(x), Time::us(o)};
}

TEST(FusedPipeline, HandWorkedCases) {
  constexpr auto kSend = PipelineOrder::ComputeThenSend;
  // Bandwidth-bound, no latency to overlap (o = x): c = 1, x = 2, 4 tiles: 1 + 2*3 + 2 = 9 us.
  EXPECT_EQ(tile_pipeline(us(1, 2, 2), 4, kSend), Time::us(9));
  // Compute-bound: c = 3, x = o = 1: 3 + 3*3 + 1 = 13 us (the network idles between tiles).
  EXPECT_EQ(tile_pipeline(us(3, 1, 1), 4, kSend), Time::us(13));
  // x = 5 us of which 3 us latency overlapped by the next tiles (o = 2): 1 + 2*3 + 5 = 12 us, not 1 + 5*3 + 5.
  EXPECT_EQ(tile_pipeline(us(1, 5, 2), 4, kSend), Time::us(12));
  // One tile is no overlap at all: c + x.
  EXPECT_EQ(tile_pipeline(us(5, 7, 3), 1, kSend), Time::us(12));
  // Gather-then-compute, 4 shards, x = o = 2: 1 + 2 + 2*2 = 7 us; c = 3, x = o = 1: 3 + 3 + 3*2 = 12 us.
  EXPECT_EQ(tile_pipeline(us(1, 2, 2), 4, PipelineOrder::GatherThenCompute), Time::us(7));
  EXPECT_EQ(tile_pipeline(us(3, 1, 1), 4, PipelineOrder::GatherThenCompute), Time::us(12));
}

TEST(FusedPipeline, ClosedFormsMatchTileByTileSimulation) {
  for (const int64_t c : {1, 3, 10, 250}) {
    for (const int64_t x : {1, 2, 10, 999}) {
      for (const int64_t o : {int64_t{0}, x / 2, x}) {
        for (const uint32_t t : {1u, 2u, 3u, 7u, 64u}) {
          const TileTimes tile{Time::ns(c), Time::ns(x), Time::ns(o)};
          EXPECT_EQ(tile_pipeline(tile, t, PipelineOrder::ComputeThenSend), simulate_send_as_finished(tile, t))
              << c << " " << x << " " << o << " " << t;
          EXPECT_EQ(tile_pipeline(tile, t, PipelineOrder::GatherThenCompute), simulate_gather_then_compute(tile, t))
              << c << " " << x << " " << o << " " << t;
        }
      }
    }
  }
}

TEST(FusedPipeline, SplitRoundsUpSoTheTilesCoverTheWhole) {
  EXPECT_EQ(split_time(Time::ps(10), 3), Time::ps(4));
  EXPECT_EQ(split_time(Time::ps(9), 3), Time::ps(3));
  EXPECT_EQ(split_time(Time::us(8), 1), Time::us(8));
}

}  // namespace
}  // namespace chorus::fused
