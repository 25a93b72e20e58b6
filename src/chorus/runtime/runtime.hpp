// The workload runtime: executes every NPU's Chakra graph on a simulated platform, event by event.
//
// Semantics (docs/workload.md has the full list and the differences from ASTRA-sim):
// - One executor per NPU. A node is ready when all its data and control dependencies are done; ready nodes
//   are issued smallest node id first (COMM_COLL/SEND under the EXPLICIT policy: highest comm_priority first).
// - Resource rules (ASTRA-sim's defaults, `resource_limits`): per NPU at most one GPU compute node, one CPU
//   node and one collective-or-send in flight; receives and memory accesses are unlimited.
// - COMP: duration_micros replayed (0 -> 1 ns, as ASTRA-sim), or with roofline on, num_ops over
//   min(peak, local_mem_bw * num_ops / tensor_size); CPU ops are always replayed.
// - COMM_COLL: the k-th collective an NPU issues on a group is matched with the k-th of every other member;
//   it starts when the last member issues it and lasts what CollectiveTimer says for that group, in isolation,
//   unless `contention` is on under the flow model: then overlapping collectives share the links they have in
//   common (collective_contention.hpp). BROADCAST is replayed, BARRIER is a zero-length synchronisation.
// - COMM_SEND/RECV: matched by (source, destination, tag) in issue order. The message leaves when the send is
//   issued and takes the network's point-to-point cost; the send completes on arrival, the receive at the later
//   of its issue and the arrival.
// - MEM_LOAD/STORE: the remote-memory model (remote_memory.hpp).
// If the event queue empties while nodes remain, run_workload throws DeadlockError with a per-NPU report.
// With link_stats under aware or flow, RunReport::links holds the per-link load of the whole run (link_usage.hpp).
// A simulated collective's lower_bound is that of the physical links its group uses (group_bound.hpp). Per NPU,
// communication waiting for a peer (a collective before its last member, a receive before its send) counts as
// peer_wait, apart from exposed_comm (communication moving data).
//
//   RunReport r = run_workload(workload, topology, options);
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "chorus/astra/system_config.hpp"
#include "chorus/nccl/group_timing.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/runtime/critical_path.hpp"
#include "chorus/runtime/fused_ops.hpp"
#include "chorus/runtime/link_load.hpp"
#include "chorus/runtime/remote_memory.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/topology.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

class Progress;

struct RuntimeOptions {
  NetworkModelKind model = NetworkModelKind::Unaware;
  const AstraSystemConfig* system = nullptr;  // ASTRA-sim compatibility when set (algorithms, roofline, policy)
  RemoteMemoryConfig memory;
  bool resource_limits = true;
  bool record_timeline = true;
  bool lower_bounds = true;
  bool link_stats = false;  // accumulate per-link statistics (aware and flow models; link_usage.hpp)
  bool contention = false;  // flow model: overlapping collectives share links (collective_contention.hpp)
  // Link utilisation over time in this many bins per link group (link_load.hpp; needs link statistics, so aware
  // or flow); 0: not recorded.
  size_t link_load_bins = 0;
  PacketOptions packet;  // packet model: its switch queues
  // Collectives timed by NCCL's model of a machine for their groups (nccl/group_timing.hpp); none: simulated.
  std::optional<nccl::NcclContext> nccl;
  // Collectives timed by schedules synthesized for their groups on the topology (collective_timer.hpp).
  bool synthesize_collectives = false;
  // An All-to-All of every NPU runs direct, as a subgroup's (collective_timer.hpp); without a system file only.
  bool whole_all_to_all_direct = false;
  // Hears of each trace node completed (core/progress.hpp); none: silent.
  Progress* progress = nullptr;
  // Record which dependency released each node: RunReport::critical_path, with blame (critical_path.hpp).
  bool critical_path = false;
  // Changed inputs of the what-if runs (what_if.hpp); the defaults change nothing.
  bool free_communication = false;    // collectives, broadcasts and messages take no time (peers still wait)
  bool collectives_at_bound = false;  // a simulated collective lasts its physical lower bound, uncontended
  double compute_scale = 1;           // GPU compute times multiplied by this (0.5: compute 2x faster)
  // GPU compute runs 1 + this times slower while its NPU moves data (overlap_slowdown.hpp); 0: not at all.
  double overlap_slowdown = 0;
};

struct NpuReport {
  Time finish;
  Time compute;       // GPU compute (non-CPU COMP nodes)
  Time exposed_comm;  // communication moving data (all its peers there) while no GPU compute runs
  Time peer_wait;     // communication waiting for a peer (pipeline bubble) while nothing above runs
  Time idle;          // finish - compute - exposed_comm - peer_wait - cpu
  uint64_t nodes = 0;
  Time cpu;  // CPU operators (is_cpu_op) while nothing above runs: a CPU run's compute, a GPU run's host gaps
};

struct CollectiveReport {
  chakra::CommType type = chakra::CommType::AllReduce;
  uint32_t group = 0;
  uint32_t npus = 0;
  Bytes comm_size;  // Chakra's comm_size
  Bytes nccl_size;  // NCCL's size convention, for bandwidths
  std::string algorithm;
  Time first_issue;  // when the first member issued it
  Time start;        // when the last member issued it
  Time end;
  Time lower_bound;      // on the physical links the group uses (group_bound.hpp); 0 when not computed
  uint64_t node_id = 0;  // the node on the group's first member
  bool fused = false;    // ends a fused operator: its span is the pipeline's tail after the compute (fused_ops.hpp)
};

enum class Track : uint8_t { Compute, Comm, Memory };

struct TimelineEvent {
  uint32_t npu = 0;
  uint32_t node = 0;  // index into the NPU's graph
  Track track = Track::Compute;
  Time start;
  Time end;
};

// A send and the receive it matched (recorded with RuntimeOptions::record_timeline: the timeline's flow arrows).
struct MessageFlow {
  uint32_t send_npu = 0;
  uint32_t send_node = 0;
  uint32_t recv_npu = 0;
  uint32_t recv_node = 0;
};

// Where the COMP nodes' times came from, over all NPUs: replayed from the trace's durations, the roofline of the
// system file (roofline-enabled), or CPU operators (replayed, reported as cpu).
struct ComputeSources {
  uint64_t replayed = 0;
  uint64_t roofline = 0;
  uint64_t cpu_ops = 0;
};

struct RunReport {
  Time finish;
  ComputeSources compute_sources;
  std::vector<NpuReport> npus;
  std::vector<CollectiveReport> collectives;
  std::vector<FusedOpReport> fused_ops;  // one per fused operator run (fused_ops.hpp)
  std::vector<TimelineEvent> timeline;
  std::vector<MessageFlow> flows;             // with record_timeline
  std::optional<LinkStats> links;             // with RuntimeOptions::link_stats under aware or flow
  std::optional<LinkLoadSeries> link_load;    // with RuntimeOptions::link_load_bins under aware or flow
  std::optional<CriticalPath> critical_path;  // with RuntimeOptions::critical_path
  uint64_t events = 0;
};

// Thrown when the run cannot progress; what() is the whole multi-line report.
class DeadlockError : public std::runtime_error {
 public:
  explicit DeadlockError(const std::string& report) : std::runtime_error(report) {}
};

RunReport run_workload(const Workload& workload, const Topology& topology, const RuntimeOptions& options);

}  // namespace chorus
