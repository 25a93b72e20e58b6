// The analytical fused-operator model behind `chorus fused`: one fused computation-collective operator on P GPUs
// of a network, against the unfused sequence (the whole computation, then the collective).
//
// The recipe (evaluate_fused):
// 1. Work: per-GPU FLOPs, HBM bytes, collective size and output tiles of the operator (operators.hpp).
// 2. Compute: a roofline, max(FLOPs / (peak * share), bytes / HBM bandwidth), where share is the fraction of
//    compute units left to computation: 1 unfused; (CUs - W) / CUs fused, W the communication workgroups. Only
//    the compute-bound part slows down when workgroups are given away; a memory-bound kernel keeps its HBM rate.
// 3. Collective: timed on the network through the workload runtime's collective timer (the same path `chorus sim`
//    takes, and `chorus collective` with its default algorithm), with its physical lower bound (group_bound.hpp).
// 4. Tiles: a tile is one or more workgroup waves; per tile c = fused compute / T, x = the collective of 1/T of
//    the data on the same network and o its network occupancy (x less its latency, which later tiles overlap;
//    runtime/fused_ops.hpp tile_transfer), both plus --tile-overhead (a per-tile issue cost, serialized). The
//    All-Gather + GEMM decomposition uses T = P shards and x = o = one of the ring collective's P-1 steps. Without
//    --tiles, T is the best of 1, 2, 4, ... up to the wave count (and the wave count itself): the granularity a
//    kernel writer would tune.
// 5. Fused = tile_pipeline({c, x, o}, T) (pipeline.hpp); unfused = compute alone + collective; bound = the larger of
//    the compute alone and the collective's lower bound (no schedule, fused or not, beats either).
// Scale-up transfers are zero-copy stores into the peers' buffers; scale-out ones are GPU-initiated puts, driven by
// dedicated communication workgroups (the occupancy they take is step 2's W). Both cost the network's time here.
//
//   FusedResult r = evaluate_fused(request, timer, bounds);   // r.fused, r.unfused, r.bound
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/fused/gpu.hpp"
#include "chorus/fused/operators.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/runtime/fused_ops.hpp"
#include "chorus/runtime/group_bound.hpp"

namespace chorus::fused {

struct FusedRequest {
  FusedOp op = FusedOp::GemvAllReduce;
  OperatorShape shape;
  uint32_t npus = 0;  // the GPUs of the network, all in the collective
  GpuSpec gpu;
  std::optional<uint32_t> tiles;  // none: the best power-of-two grouping of the waves
  uint32_t comm_workgroups = 0;   // workgroups reserved for communication (scale-out puts)
  Time tile_overhead;             // per tile, serialized: issuing its stores or puts
};

struct FusedResult {
  OperatorWork work;
  chakra::CommType collective = chakra::CommType::AllReduce;
  Time compute;        // compute alone, every compute unit
  Time fused_compute;  // compute with the communication workgroups taken away
  bool memory_bound = false;
  Time collective_time;  // the collective of the whole output, alone
  Time collective_bound;
  uint32_t waves = 0;
  uint32_t tiles = 0;
  Time tile_compute;
  Time tile_transfer;
  Time tile_occupancy;
  Time unfused;
  Time fused;
  Time bound;  // max(compute, collective_bound)
};

// Throws chorus::Error naming the Argument (the CLI: its flag) for inconsistent requests (tiles 0 or beyond the
// workgroup tiles, communication workgroups >= compute units, a shape that does not split over the GPUs).
FusedResult evaluate_fused(const FusedRequest& request, CollectiveTimer& timer, GroupBounds& bounds);

// The roofline time of `flops` and `memory_bytes` on `gpu` with `share` of its compute units.
Time roofline_time(const GpuSpec& gpu, const std::string& dtype, double flops, double memory_bytes, double share);

}  // namespace chorus::fused
