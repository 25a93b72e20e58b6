// Per-link statistics of a whole workload run (links.csv): what every collective and point-to-point message put
// on each physical link of the network, accumulated over the run.
//
// - A collective of every NPU was timed on the network itself: its LinkStats (from the aware or flow model) are
//   added link by link.
// - A subgroup's collective was timed on its logical ring (collective_timer.hpp): each logical ring link's bytes
//   and busy time are charged to every physical link on the route between the two members (RouteTable, as the
//   contention models route), the approximation ASTRA-sim's CommunicatorGroup makes too. Within one collective, hops
//   that share a physical link add their bytes and flows; their busy times overlap, so the longest counts.
// - A point-to-point message adds its bytes and its transmission time (bytes / link bandwidth) on its route.
// Busy times are summed over collectives, each of which was timed in isolation, so a utilization above 1 marks a
// link that concurrent collectives would have contended for (docs/workload.md); peak_flows is the largest
// number of flows of one collective sharing the link.
//
//   LinkUsage usage(topology);
//   usage.add_collective(group.npus, timed);
//   usage.add_message(0, 8, Bytes(1 << 20));
//   write_link_stats_csv("links.csv", topology, usage.stats(), finish);
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chorus/network/link_stats.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {

// One collective's contribution to one physical link.
struct LinkShare {
  uint32_t link = 0;
  double bytes = 0;
  Time busy;
  uint32_t peak_flows = 0;
};

class LinkUsage {
 public:
  explicit LinkUsage(const Topology& topology);
  // `members`: the group in the order it was timed; `timed` must carry link statistics (else nothing is added).
  void add_collective(const std::vector<uint32_t>& members, const TimedCollective& timed);
  void add_message(uint32_t src, uint32_t dst, Bytes bytes);
  // The bytes the collective puts on each physical link, (link, bytes), without adding them to the totals.
  std::vector<std::pair<uint32_t, double>> link_bytes(const std::vector<uint32_t>& members,
                                                      const TimedCollective& timed);
  // The collective's contribution per physical link, without adding it; add() adds such a list as add_collective does.
  std::vector<LinkShare> shares(const std::vector<uint32_t>& members, const TimedCollective& timed);
  void add(const std::vector<LinkShare>& shares);
  // A point-to-point message's contribution, appended to `out` (add_message() adds it directly).
  void message_shares(uint32_t src, uint32_t dst, Bytes bytes, std::vector<LinkShare>& out) const;
  const LinkStats& stats() const { return stats_; }

 private:
  std::span<const LinkId> route(uint32_t src, uint32_t dst) const { return routes_.route(NodeId{src}, NodeId{dst}); }
  void gather(const std::vector<uint32_t>& members, const TimedCollective& timed);  // into scratch_ and touched_
  void clear_scratch();

  const Topology& topology_;
  RouteTable routes_;
  LinkStats stats_;
  LinkStats scratch_;  // one collective's contribution before it is added
  std::vector<uint8_t> in_scratch_;
  std::vector<uint32_t> touched_;
};

}  // namespace chorus
