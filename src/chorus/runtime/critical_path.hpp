// The critical path of a workload run and the blame of each operation (docs/workload.md, "Critical path and
// blame"): what the runtime records while it runs (ReleaseLog), the walk back from the last node to finish, and the
// per-operation sums.
//
// Every issued node remembers the node on its own NPU whose completion issued it: the dependency that released it
// last, or the node that held its resource (one GPU compute, one CPU op, one collective-or-send at a time). A node
// issued with nothing pending started at time 0. A collective ends what its last member's issue plus its duration
// decide, a receive that waited for its data what the send's issue plus the message decide. Walking these links
// back from the last node to finish gives segments that tile [0, finish] exactly.
//
// Blame rows group operations by name with every run of digits read as '#', so that the microbatches and layers
// of one operation ("mb3.L7.attn.fwd") add up in one row ("mb#.L#.attn.fwd"). Exposed communication (moving data
// while no GPU compute runs, NpuReport::exposed_comm) is charged to the collective or message whose transfer covers
// it; where transfers overlap, to one the GPU stream waited for (its end released a compute node), else to the one
// that started first, so the rows add up to the NPUs' exposed_comm.
//
//   const CriticalPath path = walk_critical_path(workload, report, log, issued_at);
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

struct RunReport;

enum class PathKind : uint8_t { Compute, Collective, P2p, Other };
std::string_view to_string(PathKind kind);

struct PathSegment {
  PathKind kind = PathKind::Compute;
  uint32_t npu = 0;
  uint32_t node = 0;  // index into the NPU's graph (a message: its send)
  Time start;
  Time end;
  int64_t collective = -1;  // index into RunReport::collectives; -1 when none
};

struct PathTotals {
  Time compute;     // COMP nodes, GPU and CPU
  Time collective;  // collectives from their last member's issue to their end
  Time p2p;         // messages from their send to their arrival
  Time other;       // memory accesses and nodes without a duration of their own
  Time sum() const { return compute + collective + p2p + other; }
};

struct BlameRow {
  std::string name;  // the operation's name pattern: digit runs as '#' (workload/name_patterns.hpp)
  PathKind kind = PathKind::Compute;
  uint64_t instances = 0;  // nodes of the run (collectives: instances; messages: sends)
  uint64_t on_path = 0;    // segments of the critical path
  Time critical;           // time on the critical path
  Time exposed_npu_time;   // exposed communication summed over NPUs (the per-NPU mean is this / NPUs)
};

struct CriticalPath {
  std::vector<PathSegment> segments;  // in time order, tiling [0, finish]
  PathTotals totals;
  std::vector<BlameRow> blame;  // longest on the critical path first, then most exposed
};

// What the runtime records for the walk and the blame (RuntimeOptions::critical_path).
struct ReleaseLog {
  static constexpr uint32_t kNone = UINT32_MAX;
  using NodeRef = std::pair<uint32_t, uint32_t>;  // (npu, node)
  struct Npu {
    std::vector<uint32_t> issued_by;  // node of the same NPU whose completion issued this one; kNone: at time 0
    std::vector<uint32_t> ended_by;   // collectives: index into collectives; receives: into messages; else kNone
    // Per name pattern of the NPU's graph (workload/name_patterns.hpp) and PathKind: nodes counted, and exposed
    // communication charged to them (both weighted by the ranks each NPU stands for).
    std::vector<std::array<uint64_t, 4>> instances;
    std::vector<std::array<Time, 4>> exposed;
  };

  explicit ReleaseLog(const Workload& workload);
  // Counts a node among its pattern's instances: every node but receives (a message counts at its send) and
  // collectives timed per instance (counted once per instance, from `collectives`).
  void count(uint32_t npu, const WorkloadNode& n);
  // Charges exposed communication of `node` on `npu` to it (a collective), or to its message's send (a receive).
  void charge(uint32_t npu, uint32_t node, Time time);
  // Per node of `npu`: whether the GPU stream waited for it, i.e. its end released a compute node or released a
  // node that did (a TP Reduce-Scatter, then the All-Gather the next GEMM needs). Valid once the run is over.
  std::vector<bool> waited_for(uint32_t npu) const;

  const Workload& workload;
  std::vector<Npu> npus;
  std::vector<NodeRef> collectives;  // per RunReport::collectives entry: its last member to issue
  std::vector<NodeRef> messages;     // per matched message: its send
  NodeRef last{kNone, kNone};        // the node that finished last
};

// `issued_at[npu][node]` is when each node was issued.
CriticalPath walk_critical_path(const RunReport& report, const ReleaseLog& log,
                                const std::vector<const std::vector<Time>*>& issued_at);

// The dimension that bounds a group's collectives: among the dimensions its members' coordinates differ in, the
// slowest (least bandwidth, then most latency). None when the topology has no dimensions or the group one NPU.
std::optional<size_t> bounding_dimension(const Topology& topology, const std::vector<uint32_t>& members);

// Exposed communication per node, from one NPU's transfers and its merged GPU compute spans: each stretch with no
// compute is charged to the transfer that started first among those covering it. `transfers` holds (start, end,
// node) and is sorted in place; the result (node, time) only nodes with exposed time.
std::vector<std::pair<uint32_t, Time>> charge_exposed(std::vector<std::tuple<Time, Time, uint32_t>>& transfers,
                                                      const std::vector<std::pair<Time, Time>>& compute);

// The same charge with the transfers the GPU stream waited for first: a stretch with no compute goes to a
// `blocking` transfer covering it (one whose end released a compute node: a TP collective, a pipeline receive),
// else, as above, to the first-started background transfer (a gradient reduction running beside it). Without this,
// a background reduction that started earlier takes the blame for the TP collectives the stream stopped for.
// `blocking[node]` says whether a node is blocking (nodes past its end are not); `transfers` ends up sorted.
std::vector<std::pair<uint32_t, Time>> charge_exposed_blocking_first(
    std::vector<std::tuple<Time, Time, uint32_t>>& transfers, const std::vector<std::pair<Time, Time>>& compute,
    const std::vector<bool>& blocking);

}  // namespace chorus
