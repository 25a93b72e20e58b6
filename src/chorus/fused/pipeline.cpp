// The tile pipeline closed forms (see pipeline.hpp).
#include "chorus/fused/pipeline.hpp"

#include <algorithm>

#include "chorus/core/assert.hpp"

namespace chorus::fused {

Time tile_pipeline(Time tile_compute, Time tile_transfer, uint32_t tiles, PipelineOrder order) {
  CHORUS_ASSERT(tiles >= 1, "a tile pipeline needs at least one tile, got {}", tiles);
  const Time steady = std::max(tile_compute, tile_transfer) * static_cast<int64_t>(tiles - 1);
  const Time f = tile_compute + steady;
  return order == PipelineOrder::ComputeThenSend ? f + tile_transfer : f;
}

Time split_time(Time total, uint32_t parts) {
  CHORUS_ASSERT(parts >= 1, "cannot split a time into {} parts", parts);
  const int64_t ps = total.picoseconds();
  return Time::ps((ps + parts - 1) / parts);
}

}  // namespace chorus::fused
