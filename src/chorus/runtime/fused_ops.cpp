// Timing a fused computation-collective operator inside a workload run (see fused_ops.hpp).
#include "chorus/runtime/fused_ops.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/fused/operators.hpp"
#include "chorus/fused/pipeline.hpp"

namespace chorus {
namespace {

fused::FusedOp checked_op(const NpuGraph& g, const WorkloadNode& n, chakra::CommType type) {
  const std::string field = fmt::format("node {}: fused_op", n.id);
  const auto op = fused::parse_fused_op(n.fused_op);
  if (!op)
    throw Error(g.file, field,
                fmt::format("unknown fused operator '{}'; expected one of {}", n.fused_op, fused::fused_op_names()));
  if (fused::order_of(*op) != fused::PipelineOrder::ComputeThenSend) {
    throw Error(g.file, field,
                fmt::format("{} fuses a collective into the compute after it; the runtime fuses compute -> "
                            "collective chains only",
                            n.fused_op));
  }
  if (fused::collective_of(*op) != type) {
    throw Error(g.file, field,
                fmt::format("{} ends with {}, but this collective is {}", n.fused_op,
                            chakra::to_string(fused::collective_of(*op)), chakra::to_string(type)));
  }
  return *op;
}

}  // namespace

TileTransfer tile_transfer(CollectiveTimer& timer, chakra::CommType type, Bytes bytes, uint32_t tiles,
                           const std::vector<uint32_t>& members) {
  const Bytes piece(std::max<int64_t>((bytes.count() + tiles - 1) / tiles, 1));
  const Time x = timer.time(type, piece, members).duration;
  const Time doubled = timer.time(type, piece * 2, members).duration;
  const Time latency = std::clamp(x * 2 - doubled, Time::zero(), x);
  return TileTransfer{x, x - latency};
}

FusedOpReport time_fused_op(const NpuGraph& g, uint32_t node, Time compute, Time whole, chakra::CommType type,
                            Bytes bytes, const std::vector<uint32_t>& members, CollectiveTimer& timer) {
  const WorkloadNode& n = g.nodes[node];
  const fused::FusedOp op = checked_op(g, n, type);
  const uint32_t tiles = n.fused_tiles;
  const TileTransfer tile = tile_transfer(timer, type, bytes, tiles, members);
  FusedOpReport r;
  r.node_id = n.id;
  r.op = n.fused_op;
  r.tiles = tiles;
  r.compute = compute;
  r.collective = whole;
  r.fused = fused::tile_pipeline({fused::split_time(compute, tiles), tile.transfer, tile.occupancy}, tiles,
                                 fused::order_of(op));
  return r;
}

}  // namespace chorus
