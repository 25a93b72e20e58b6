// SynthGraph: the part of a Topology a synthesis may use, renumbered densely, with failures removed.
//
// - Members (the NPUs taking part: all NPUs, or a tenant's subset) are local nodes 0..members-1, in the order
//   given; relays (switches: they store and forward chunks, never reduce) follow. NPUs outside the group are
//   left out together with their links ("other links reserved" for other tenants).
// - Failed links are removed in both directions (a failed cable); failed NPUs are left out.
// - Validation (chorus::Error, exit status 2 in the CLI): duplicate links, group NPUs outside the topology or
//   listed twice, failures naming links that do not exist, and any member that can never receive from, or never
//   send to, the others (the message names those NPUs).
//
//   SynthGraph g = make_synth_graph(topology, {.group = {0, 1, 2, 3}, .failed_links = {{0, 1}}});
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct SynthGraphOptions {
  std::vector<uint32_t> group;                              // NPU ids taking part; empty = every NPU
  std::vector<std::pair<uint32_t, uint32_t>> failed_links;  // cables a-b (both directions) that are down
  std::vector<uint32_t> failed_npus;                        // NPUs that are down (not in the group)
  // Which direction must connect every member: Reduce-type collectives need paths into the root only, etc.
  // Checked here for the symmetric case (every member reaches every other); the broadcast root case in
  // check_reaches().
  bool require_all_pairs = true;
};

class SynthGraph {
 public:
  uint32_t node_count() const { return static_cast<uint32_t>(global_.size()); }
  uint32_t member_count() const { return members_; }
  uint32_t link_count() const { return static_cast<uint32_t>(src_.size()); }
  bool is_member(uint32_t node) const { return node < members_; }

  uint32_t src(uint32_t link) const { return src_[link]; }
  uint32_t dst(uint32_t link) const { return dst_[link]; }
  NodeId global_node(uint32_t node) const { return NodeId{global_[node]}; }
  LinkId global_link(uint32_t link) const { return global_link_[link]; }
  Bandwidth bandwidth(uint32_t link) const { return bandwidth_[link]; }
  Time latency(uint32_t link) const { return latency_[link]; }
  // Inline: the matching engine asks for a node's in-links per option it scores.
  std::span<const uint32_t> out_links(uint32_t node) const {
    return {out_.data() + out_offset_[node], out_offset_[node + 1] - out_offset_[node]};
  }
  std::span<const uint32_t> in_links(uint32_t node) const {
    return {in_.data() + in_offset_[node], in_offset_[node + 1] - in_offset_[node]};
  }

  // The same graph with every link reversed (Reduce-Scatter and Reduce are synthesized on it, then reversed in
  // time). Global link ids keep pointing at the original links, so a reversed transfer maps back to them.
  SynthGraph transposed() const;

  // Builder interface (used by make_synth_graph and transposed()).
  SynthGraph(std::vector<uint32_t> global, uint32_t members);
  void add_link(uint32_t src, uint32_t dst, LinkId global, Bandwidth bandwidth, Time latency);
  void finish();

 private:
  std::vector<uint32_t> global_;
  uint32_t members_ = 0;
  std::vector<uint32_t> src_, dst_;
  std::vector<LinkId> global_link_;
  std::vector<Bandwidth> bandwidth_;
  std::vector<Time> latency_;
  std::vector<uint32_t> out_offset_, in_offset_, out_, in_;
};

// Throws chorus::Error (source "synth") on any of the bad inputs listed at the top.
SynthGraph make_synth_graph(const Topology& topology, const SynthGraphOptions& options);

// The graph as a Topology of its own (members = NPUs 0..n-1 in rank order, relays = switches), for lower bounds
// of a tenant's group or a failed network.
Topology as_topology(const SynthGraph& graph, const std::string& name);

// Members that cannot be reached from `root` (forward = false: that cannot reach `root`), as global NPU ids.
std::vector<uint32_t> unreachable_members(const SynthGraph& graph, uint32_t root, bool forward);

// "3, 5, 7" (at most 20 ids, then "... (N in all)").
std::string format_npu_list(std::span<const uint32_t> npus);

}  // namespace chorus
