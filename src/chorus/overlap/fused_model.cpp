// The fused-operator model (see model.hpp).
#include "chorus/overlap/fused_model.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"

namespace chorus::fused {
namespace {

uint32_t checked_waves(const FusedRequest& r, const OperatorWork& w) {
  if (r.comm_workgroups >= r.gpu.compute_units) {
    throw Error("", Argument{"comm_workgroups"},
                fmt::format("is {}; {} has {} compute units and needs at least one for computing", r.comm_workgroups,
                            r.gpu.name, r.gpu.compute_units));
  }
  const int64_t compute_wgs = r.gpu.compute_units - r.comm_workgroups;
  return static_cast<uint32_t>(std::min<int64_t>((w.output_tiles + compute_wgs - 1) / compute_wgs, UINT32_MAX));
}

void check_tiles(const FusedRequest& r, const OperatorWork& w) {
  if (!r.tiles)
    return;
  if (*r.tiles == 0)
    throw Error("", Argument{"tiles"}, "is 0; a fused operator needs at least one tile");
  if (r.op == FusedOp::AllGatherGemm && *r.tiles != r.npus) {
    throw Error("", Argument{"tiles"},
                fmt::format("is {}; all-gather-gemm pipelines shard by shard, so its tiles are the {} GPUs' shards",
                            *r.tiles, r.npus));
  }
  if (*r.tiles > w.output_tiles) {
    throw Error("", Argument{"tiles"},
                fmt::format("is {}; the operator has only {} workgroup tiles to split its output into", *r.tiles,
                            w.output_tiles));
  }
}

struct TileCost {
  TileTimes tile;
  Time fused;
};

class TileEvaluator {
 public:
  TileEvaluator(const FusedRequest& r, const FusedResult& base, CollectiveTimer& timer, std::vector<uint32_t> members)
      : r_(r), base_(base), timer_(timer), members_(std::move(members)) {}

  TileCost at(uint32_t tiles) const {
    TileCost t;
    t.tile.compute = split_time(base_.fused_compute, tiles);
    if (r_.op == FusedOp::AllGatherGemm) {
      t.tile.transfer = split_time(base_.collective_time, std::max<uint32_t>(r_.npus - 1, 1));
      t.tile.occupancy = t.tile.transfer;  // a ring step forwards what the previous step brought: no overlap
    } else {
      const TileTransfer x = tile_transfer(timer_, base_.collective, base_.work.comm_size, tiles, members_);
      t.tile.transfer = x.transfer + r_.tile_overhead;
      t.tile.occupancy = x.occupancy + r_.tile_overhead;
    }
    t.fused = tile_pipeline(t.tile, tiles, order_of(r_.op));
    return t;
  }

 private:
  const FusedRequest& r_;
  const FusedResult& base_;
  CollectiveTimer& timer_;
  std::vector<uint32_t> members_;
};

// The tile counts tried without --tiles: 1, 2, 4, ... below the wave count, and the wave count.
std::vector<uint32_t> candidate_tiles(uint32_t waves) {
  std::vector<uint32_t> out;
  for (uint64_t t = 1; t < waves; t *= 2)
    out.push_back(static_cast<uint32_t>(t));
  out.push_back(std::max<uint32_t>(waves, 1));
  return out;
}

}  // namespace

Time roofline_time(const GpuSpec& gpu, const std::string& dtype, double flops, double memory_bytes, double share) {
  const double compute_s = flops / (gpu.peak(dtype, "") * share);
  const double memory_s = memory_bytes / gpu.memory_bandwidth.bytes_per_second();
  return checked_time_from_seconds(std::max(compute_s, memory_s), "", Argument{"m"});
}

FusedResult evaluate_fused(const FusedRequest& r, CollectiveTimer& timer, GroupBounds& bounds) {
  if (r.npus < 2)
    throw Error("", Argument{"npus"}, fmt::format("is {}; a collective needs at least 2 GPUs", r.npus));
  FusedResult out;
  out.work = operator_work(r.op, r.shape, r.npus);
  out.collective = collective_of(r.op);
  check_tiles(r, out.work);
  out.waves = checked_waves(r, out.work);

  const double share = static_cast<double>(r.gpu.compute_units - r.comm_workgroups) / r.gpu.compute_units;
  out.compute = roofline_time(r.gpu, r.shape.dtype, out.work.flops, out.work.memory_bytes, 1.0);
  out.fused_compute = roofline_time(r.gpu, r.shape.dtype, out.work.flops, out.work.memory_bytes, share);
  out.memory_bound = out.work.memory_bytes / r.gpu.memory_bandwidth.bytes_per_second() >=
                     out.work.flops / r.gpu.peak(r.shape.dtype, "");

  std::vector<uint32_t> members(r.npus);
  std::iota(members.begin(), members.end(), 0U);
  out.collective_time = timer.time(out.collective, out.work.comm_size, members).duration;
  out.collective_bound = bounds.bound(out.collective, out.work.comm_size, members);

  const TileEvaluator evaluate(r, out, timer, members);
  std::vector<uint32_t> tries;
  if (r.tiles) {
    tries = {*r.tiles};
  } else if (r.op == FusedOp::AllGatherGemm) {
    tries = {r.npus};
  } else {
    tries = candidate_tiles(static_cast<uint32_t>(std::min<int64_t>(out.waves, out.work.output_tiles)));
  }
  std::optional<TileCost> best;
  for (const uint32_t t : tries) {
    const TileCost cost = evaluate.at(t);
    if (!best || cost.fused < best->fused) {
      best = cost;
      out.tiles = t;
    }
  }
  out.tile_compute = best->tile.compute;
  out.tile_transfer = best->tile.transfer;
  out.tile_occupancy = best->tile.occupancy;
  out.fused = best->fused;
  out.unfused = out.compute + out.collective_time;
  out.bound = std::max(out.compute, out.collective_bound);
  return out;
}

}  // namespace chorus::fused
