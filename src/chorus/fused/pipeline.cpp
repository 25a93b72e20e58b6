// The tile pipeline closed forms (see pipeline.hpp).
#include "chorus/fused/pipeline.hpp"

#include <algorithm>

#include "chorus/core/assert.hpp"

namespace chorus::fused {

Time tile_pipeline(const TileTimes& tile, uint32_t tiles, PipelineOrder order) {
  CHORUS_ASSERT(tiles >= 1, "a tile pipeline needs at least one tile, got {}", tiles);
  CHORUS_ASSERT(tile.occupancy <= tile.transfer, "a tile's occupancy {} exceeds its transfer {}",
                to_string(tile.occupancy), to_string(tile.transfer));
  const Time c = tile.compute;
  const Time steady = std::max(c, tile.occupancy);
  if (order == PipelineOrder::ComputeThenSend)
    return c + steady * static_cast<int64_t>(tiles - 1) + tile.transfer;
  if (tiles == 1)
    return c;
  return c + std::max(c, tile.transfer) + steady * static_cast<int64_t>(tiles - 2);
}

Time split_time(Time total, uint32_t parts) {
  CHORUS_ASSERT(parts >= 1, "cannot split a time into {} parts", parts);
  const int64_t ps = total.picoseconds();
  return Time::ps((ps + parts - 1) / parts);
}

}  // namespace chorus::fused
