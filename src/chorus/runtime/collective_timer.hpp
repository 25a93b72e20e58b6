// Times the collectives of a workload: one collective on one communicator group, in isolation.
//
// - The group of every NPU runs on the whole network through run_collective(), with the system JSON's
//   algorithms, chunking and overheads (ASTRA-sim compatible) or chorus's native defaults.
// - A smaller group becomes a 1-D logical ring over its members, as ASTRA-sim's CommunicatorGroup does: a ring
//   topology whose every hop costs what the slowest member-to-next-member message costs on the real network,
//   running ASTRA-sim's Ring algorithm. Under the congestion-aware models (natively) a hop also gets no more than
//   its share of every physical link its route crosses, shared with the other hops crossing it, so a subgroup
//   ring never runs faster than its members' links allow. When the members fall into equal blocks joined by
//   slower hops (a data-parallel group with several members per node) the group runs one such ring per block
//   member, each leaving a block by a different member's links (NCCL's channels, one per NIC), so the hop between
//   blocks runs at the blocks' combined NIC rate, as far as the shared links allow. An All-to-All subgroup
//   instead runs direct (each member sends each other its share at once) on a logical switch: a ring All-to-All moves
//   each share up to n/2 hops, about n/4 times the traffic the physical bound allows. Its ports run at the slowest
//   hop's speed, unless the members fall into equal blocks whose in-block hops are faster (an EP group spanning NVLink
//   domains): then each member's near shares and far shares leave by different ports at once, and the port runs at the
//   speed that moves all n - 1 shares in the time the slower class takes (the planner's All-to-All,
//   llm/expert_dispatch.hpp). With `whole_all_to_all_direct` (the LLM simulator engine) the whole network's All-to-All
//   runs so too.
// - With `nccl` set, every group's collective is what NCCL's cost model gives for the nodes the group spans.
// Results are cached by what determines them (kind, size and the group's ring shape), so a 1024-NPU workload
// with 128 data-parallel groups of the same shape times each distinct collective once.
// With `link_stats` (aware and flow models) the evaluation that times a distinct collective also returns its
// per-link statistics (the symmetric evaluator per link class, the full schedule per link); no second run.
// Lower bounds are not computed here: they belong to the physical links (group_bound.hpp), not the logical ring.
//
//   CollectiveTimer timer(topology, options);
//   const TimedCollective& t = timer.time(chakra::CommType::AllReduce, Bytes::mib(64), group.npus);
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "chorus/astra/system_config.hpp"
#include "chorus/chakra/trace.hpp"
#include "chorus/nccl/group_timing.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/route_table.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct CollectiveTimerOptions {
  NetworkModelKind model = NetworkModelKind::Unaware;
  const AstraSystemConfig* system = nullptr;  // ASTRA-sim compatibility when set
  bool link_stats = false;                    // collect per-link statistics (aware and flow models only)
  PacketOptions packet;                       // the packet model's queues
  // Every collective timed by NCCL's model of this machine for its group (nccl/group_timing.hpp), not simulated.
  std::optional<nccl::NcclContext> nccl;
  // The whole network's All-to-All also runs direct on a logical switch as a subgroup's does (no system file):
  // the LLM simulator engine's, whose one EP group may be the whole job.
  bool whole_all_to_all_direct = false;
  // Every collective timed by a schedule synthesized for its group on the physical topology (chorus synth with the
  // group as its members, the other NPUs relays), simulated under `model`; not with `nccl` or a system file.
  bool synthesize = false;
};

struct TimedCollective {
  Time duration;
  std::string algorithm;  // e.g. "ring" or "ring,direct,halvingDoubling"
  Bytes nccl_size;        // NCCL's convention (All-Gather: the gathered output), for bandwidths
  // With link statistics: per link of the topology the collective was timed on. For the whole network these are
  // physical links; for a subgroup they are its logical ring's links, and ring_links names each one's ends as
  // positions in the group's member list.
  std::optional<LinkStats> links;
  std::vector<std::pair<uint32_t, uint32_t>> ring_links;
};

class CollectiveTimer {
 public:
  CollectiveTimer(const Topology& topology, CollectiveTimerOptions options);
  ~CollectiveTimer();
  // `bytes` is Chakra's comm_size (All-Gather: each NPU's contribution). Only All-Reduce, All-Gather,
  // Reduce-Scatter and All-to-All are timed here; the runtime handles the others.
  const TimedCollective& time(chakra::CommType type, Bytes bytes, const std::vector<uint32_t>& members);

 private:
  struct RingShape {
    uint32_t size = 0;
    Time latency;
    double bytes_per_s = 0;
    uint32_t channels = 1;  // rings run at once, one per member of a block (channel_rings_bytes_per_s)
    auto operator<=>(const RingShape&) const = default;
  };
  using Key = std::tuple<chakra::CommType, Bytes, bool, RingShape>;

  // The ring of the members in their order: the slowest hop's speed, and under the congestion-aware models no more
  // than each hop's share of the physical links it crosses.
  RingShape ring_shape(const std::vector<uint32_t>& members) const;
  // Each hop i -> i + 1 of the members' ring: the largest latency and every hop's transfer time of a probe message.
  struct HopTimes {
    Time latency;
    std::vector<double> transfer_s;
  };
  HopTimes hop_times(const std::vector<uint32_t>& members) const;
  static RingShape slowest_hop_shape(const HopTimes& hops);
  bool ring_hops_share_links() const;
  // The slowest hop's bandwidth when every hop of the rings sends at once on its physical route.
  double shared_hop_bytes_per_s(const std::vector<std::vector<uint32_t>>& rings) const;
  // Members in equal consecutive blocks joined by slower hops (several members per node): the block size, else 0.
  static uint32_t ring_block(const std::vector<double>& hop_transfer_s);
  // With blocks: the rate of one ring per block member, each leaving its blocks by a different member (NCCL's
  // channels, one per NIC), sharing the physical links; 0 without blocks.
  double channel_rings_bytes_per_s(const std::vector<uint32_t>& members, uint32_t block, double hop_bytes_per_s) const;
  // The logical switch of a direct All-to-All: the ring shape with the port speed of near and far peers combined.
  RingShape all_to_all_shape(const std::vector<uint32_t>& members) const;
  // A subgroup's All-to-All runs direct (each member to each other) on a logical switch, natively or when the
  // ASTRA-sim system asks for direct; otherwise on the logical ring.
  bool subgroup_all_to_all_direct(chakra::CommType type) const;
  const RingShape& cached_ring_shape(const std::vector<uint32_t>& members);
  TimedCollective run(chakra::CommType type, Bytes bytes, const Topology& topology, bool whole_network,
                      uint32_t channels = 1) const;
  const TimedCollective& time_by_nccl(chakra::CommType type, Bytes bytes, const std::vector<uint32_t>& members);
  const TimedCollective& time_by_synthesis(chakra::CommType type, Bytes bytes, const std::vector<uint32_t>& members);
  // NCCL's time depends on the group only through its shape, so groups of one shape share their timings.
  using NcclKey = std::tuple<chakra::CommType, Bytes, nccl::GroupShape>;

  const Topology& topology_;
  CollectiveTimerOptions options_;
  std::unique_ptr<MessageCost> cost_;
  // The physical routes of ring hops (ring_hops_share_links), built on first use and kept: an edge list's router
  // caches a BFS tree per source, which every group of that member reuses.
  mutable std::unique_ptr<RouteTable> routes_;
  std::map<Key, TimedCollective> cache_;
  std::map<NcclKey, TimedCollective> nccl_cache_;
  // A synthesized schedule belongs to its members (their places on the topology), so it is cached per member list.
  std::map<std::tuple<chakra::CommType, Bytes, std::vector<uint32_t>>, TimedCollective> synth_cache_;
  std::map<std::vector<uint32_t>, nccl::GroupShape> nccl_shapes_;
  // Per member list: a group issues many collectives, and its shape costs 2 x members message delays.
  std::map<std::vector<uint32_t>, RingShape> ring_shapes_;
  std::map<std::vector<uint32_t>, RingShape> all_to_all_shapes_;
};

// The simulated kinds (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL) as chorus collective kinds.
std::optional<CollectiveKind> simulated_kind(chakra::CommType type);

}  // namespace chorus
