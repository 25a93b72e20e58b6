// The critical path of one rank's measured timeline (a Kineto / profiler chrome trace), walked back from the last
// event to end (docs/workload.md, "Measured beside simulated"):
// - on a GPU stream, a kernel was released by whichever came later: the end of the stream's previous kernel, or its
//   launch (the CUDA runtime call with the kernel's "correlation", or the ac2g flow that links them); a launch that
//   came later moves the walk onto the launching CPU thread, at the launch call's end;
// - on a CPU thread, the time just before belongs to the innermost operator running then (its own time between its
//   children, a previous sibling, the parent), and a gap to nothing (idle);
// - a CUDA call that waits for the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, ...) was released by the last
//   kernel to end while it waited: the walk moves onto that kernel's stream.
// The segments tile [first event's start, last event's end]: compute and communication kernels (CPU operators in a
// run without kernels), launch (CPU time in a run with kernels, launch latency) and idle.
//
//   TimelineBuilder b;   b.add({...}, correlation);   MeasuredRank m = walk_measured_path(b.finish());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "chorus/runtime/measured_run.hpp"

namespace chorus::pytorch {

enum class EventKind : uint8_t { Cpu, Runtime, Gpu };

struct KinetoEvent {
  int64_t start = 0;  // ns
  int64_t end = 0;
  uint32_t lane = 0;  // one (pid, tid): a CPU thread or a GPU stream
  uint32_t name = 0;  // index into KinetoTimeline::names
  EventKind kind = EventKind::Cpu;
  bool comm = false;  // an NCCL kernel, or a communication operator
  bool sync = false;  // a CUDA call that waits for the GPU
};

struct KinetoTimeline {
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::string> names;
  std::vector<KinetoEvent> events;
  std::vector<uint32_t> launched_by;  // per event: the runtime call that launched it (GPU events), else kNone
  uint32_t lanes = 0;
};

// Collects the events of one trace; lanes and names are interned, launches linked by correlation id or flow.
class TimelineBuilder {
 public:
  uint32_t lane(const std::string& key);
  uint32_t name(const std::string& text);
  void add(const KinetoEvent& e, std::optional<int64_t> correlation);
  // An ac2g flow's start ('s', at the runtime call) or finish ('f', at the kernel): both at their event's ts.
  void flow(char phase, int64_t id, uint32_t lane, int64_t ts);
  KinetoTimeline finish();

 private:
  KinetoTimeline t_;
  std::unordered_map<std::string, uint32_t> lanes_, names_;
  std::unordered_map<int64_t, uint32_t> runtime_by_correlation_;
  std::vector<std::pair<uint32_t, int64_t>> gpu_correlations_;  // (event, correlation)
  struct FlowEnd {
    uint32_t lane;
    int64_t ts;
  };
  std::unordered_map<int64_t, FlowEnd> flow_starts_, flow_ends_;
};

// Fills span, path and path_ops (at most kMaxPathOps, longest first); source and nodes are the caller's.
MeasuredRank walk_measured_path(const KinetoTimeline& t);

}  // namespace chorus::pytorch
