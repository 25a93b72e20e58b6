// The Kineto (profiler chrome-trace) join: measured times attached to the execution-trace nodes of one rank.
//
// CPU ops are matched to execution-trace nodes by their record-function id (args "Record function id" = the
// node's rf_id) where the trace has one, else by order: the k-th event named X is the k-th node named X (the
// legacy profiler of PyTorch 1.13 writes a bare list of events with no ids). GPU kernels are attached to the CPU
// op that launched them through their "External id" (= the op's "External id"); kernels named nccl* are the
// collective's own, the others are compute. The whole timeline (CPU operators, CUDA runtime calls, kernels and the
// launches that link them) also gives the rank's measured span and critical path (kineto_path.hpp).
//
//   KinetoTimes k = join_kineto("rank0_kineto.json", et);   // k.cpu_us[i], k.gpu_us[i] per et.nodes[i]
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/runtime/measured_run.hpp"

namespace chorus::pytorch {

struct KinetoTimes {
  std::string path;
  std::vector<std::optional<uint64_t>> cpu_us;  // per execution-trace node: its CPU op's duration
  std::vector<uint64_t> gpu_us;                 // per node: the non-NCCL kernels it launched, summed
  std::vector<uint64_t> nccl_us;                // per node: the NCCL kernels it launched, summed
  size_t matched = 0;                           // nodes with a CPU duration
  size_t kernels = 0;
  std::optional<int64_t> rank;        // distributedInfo.rank where the trace has it
  std::optional<int64_t> world_size;  // distributedInfo.world_size
  MeasuredRank measured;              // span, critical path and its operations (source: path; nodes: empty)
};

// Throws chorus::Error(path, ...) when the file is not JSON or not a chrome trace (a list of events or an object
// with "traceEvents"), or an event's "dur" is not a non-negative number or its "ts" not a number.
KinetoTimes join_kineto(const std::string& path, const ExecutionTrace& et);

}  // namespace chorus::pytorch
