// Size sweeps of one collective (see collective_sweep.hpp).
#include "chorus/sweep/collective_sweep.hpp"

#include <chrono>

#include "chorus/sim/default_chunks.hpp"

namespace chorus {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double SweepPoint::algbw_GBps() const {
  if (result.time <= Time::zero())
    return 0;
  return static_cast<double>(collective.size.count()) / result.time.seconds() / 1e9;
}

double SweepPoint::busbw_GBps() const {
  return algbw_GBps() * bus_factor(collective.kind, collective.npus);
}

std::optional<double> SweepPoint::ratio() const {
  if (!bound || bound->bound <= Time::zero())
    return std::nullopt;
  return static_cast<double>(result.time.picoseconds()) / static_cast<double>(bound->bound.picoseconds());
}

SizeSweep run_size_sweep(const Topology& topology, const SweepRequest& request) {
  SizeSweep sweep;
  const uint32_t npus = topology.npu_count();
  std::optional<LowerBound> reference;
  for (const Bytes given : request.sizes) {
    SweepPoint point;
    point.collective = Collective{request.kind, given, npus};
    if (request.per_npu_all_gather && request.kind == CollectiveKind::AllGather)
      point.collective.size = given * npus;
    if (request.bounds) {
      if (!reference) {
        const auto started = std::chrono::steady_clock::now();
        BoundOptions options;
        options.information_bound = false;  // 2(N-1) more max-flows, and never the binding bound here
        reference = lower_bound(topology, point.collective, options);
        sweep.bound_wall_s = seconds_since(started);
      }
      point.bound = lower_bound_at_size(*reference, point.collective.size);
    }
    CollectiveRunOptions options = request.options;
    if (request.choose_splits)
      options.plan.splits = default_splits(topology, point.collective, options.plan);
    const auto started = std::chrono::steady_clock::now();
    point.result = run_collective(topology, point.collective, options);
    point.wall_s = seconds_since(started);
    sweep.points.push_back(std::move(point));
  }
  return sweep;
}

int64_t nccl_count(CollectiveKind kind, Bytes size, uint32_t npus) {
  constexpr int64_t kFloatBytes = 4;
  const bool per_rank =
      kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::AllToAll;
  return size.count() / kFloatBytes / (per_rank && npus > 0 ? npus : 1);
}

std::string nccl_redop(CollectiveKind kind) {
  const bool reduces =
      kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::Reduce;
  return reduces ? "sum" : "none";
}

int nccl_root(CollectiveKind kind) {
  return kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce ? 0 : -1;
}

}  // namespace chorus
