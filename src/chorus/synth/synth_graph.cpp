// SynthGraph construction and validation (see synth_graph.hpp).
#include "chorus/synth/synth_graph.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

constexpr uint32_t kAbsent = UINT32_MAX;

void build_csr(uint32_t nodes, const std::vector<uint32_t>& key, std::vector<uint32_t>& offset,
               std::vector<uint32_t>& items) {
  offset.assign(nodes + 1, 0);
  for (uint32_t k : key)
    ++offset[k + 1];
  for (uint32_t n = 0; n < nodes; ++n)
    offset[n + 1] += offset[n];
  items.assign(key.size(), 0);
  std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
  for (uint32_t l = 0; l < key.size(); ++l)
    items[fill[key[l]]++] = l;
}

uint64_t pair_key(uint32_t a, uint32_t b) {
  return (uint64_t{a} << 32) | b;
}

// Local ids: the group first (in the order given), then every switch. kAbsent for NPUs left out.
std::vector<uint32_t> local_ids(const Topology& topology, const SynthGraphOptions& options,
                                std::vector<uint32_t>& global) {
  const uint32_t npus = topology.npu_count();
  std::vector<uint32_t> local(topology.node_count(), kAbsent);
  std::vector<uint32_t> group = options.group;
  if (group.empty()) {
    for (uint32_t n = 0; n < npus; ++n)
      group.push_back(n);
  }
  const std::unordered_set<uint32_t> failed(options.failed_npus.begin(), options.failed_npus.end());
  for (uint32_t n : options.failed_npus) {
    if (n >= npus)
      throw Error("synth", Argument{"fail_npus"},
                  fmt::format("NPU {} is outside the topology (NPUs 0-{})", n, npus - 1));
  }
  for (uint32_t n : group) {
    if (n >= npus)
      throw Error("synth", Argument{"npus"}, fmt::format("NPU {} is outside the topology (NPUs 0-{})", n, npus - 1));
    if (local[n] != kAbsent)
      throw Error("synth", Argument{"npus"}, fmt::format("NPU {} is listed twice", n));
    if (failed.count(n) && !options.group.empty())
      throw Error("synth", Argument{"npus"}, fmt::format("NPU {} is in the group but marked failed", n));
    if (failed.count(n))
      continue;
    local[n] = static_cast<uint32_t>(global.size());
    global.push_back(n);
  }
  if (global.empty())
    throw Error("synth", Argument{"npus"}, "no NPU is left in the group");
  for (uint32_t n = npus; n < topology.node_count(); ++n) {
    local[n] = static_cast<uint32_t>(global.size());
    global.push_back(n);
  }
  return local;
}

void check_failed_links(const Topology& topology, const std::set<uint64_t>& failed) {
  std::set<uint64_t> seen;
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const uint32_t a = topology.link_src(LinkId{l}).value;
    const uint32_t b = topology.link_dst(LinkId{l}).value;
    seen.insert(pair_key(std::min(a, b), std::max(a, b)));
  }
  for (uint64_t key : failed) {
    if (!seen.count(key)) {
      throw Error("synth", Argument{"fail_links"},
                  fmt::format("there is no link between {} and {}", key >> 32, key & 0xffffffffu));
    }
  }
}

}  // namespace

SynthGraph::SynthGraph(std::vector<uint32_t> global, uint32_t members)
    : global_(std::move(global)), members_(members) {}

void SynthGraph::add_link(uint32_t src, uint32_t dst, LinkId global, Bandwidth bandwidth, Time latency) {
  src_.push_back(src);
  dst_.push_back(dst);
  global_link_.push_back(global);
  bandwidth_.push_back(bandwidth);
  latency_.push_back(latency);
}

void SynthGraph::finish() {
  build_csr(node_count(), src_, out_offset_, out_);
  build_csr(node_count(), dst_, in_offset_, in_);
}

SynthGraph SynthGraph::transposed() const {
  SynthGraph t(global_, members_);
  for (uint32_t l = 0; l < link_count(); ++l)
    t.add_link(dst_[l], src_[l], global_link_[l], bandwidth_[l], latency_[l]);
  t.finish();
  return t;
}

std::vector<uint32_t> unreachable_members(const SynthGraph& graph, uint32_t root, bool forward) {
  std::vector<char> seen(graph.node_count(), 0);
  std::vector<uint32_t> stack{root};
  seen[root] = 1;
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    for (uint32_t l : forward ? graph.out_links(n) : graph.in_links(n)) {
      const uint32_t next = forward ? graph.dst(l) : graph.src(l);
      if (!seen[next]) {
        seen[next] = 1;
        stack.push_back(next);
      }
    }
  }
  std::vector<uint32_t> missing;
  for (uint32_t m = 0; m < graph.member_count(); ++m) {
    if (!seen[m])
      missing.push_back(graph.global_node(m).value);
  }
  return missing;
}

Topology as_topology(const SynthGraph& graph, const std::string& name) {
  TopologyBuilder builder(name, graph.member_count(), "synth");
  for (uint32_t n = graph.member_count(); n < graph.node_count(); ++n)
    builder.add_switch();
  for (uint32_t l = 0; l < graph.link_count(); ++l)
    builder.add_link(NodeId{graph.src(l)}, NodeId{graph.dst(l)}, graph.bandwidth(l), graph.latency(l));
  return std::move(builder).seal();
}

std::string format_npu_list(std::span<const uint32_t> npus) {
  std::string text;
  for (size_t i = 0; i < npus.size() && i < 20; ++i)
    text += (i ? ", " : "") + std::to_string(npus[i]);
  if (npus.size() > 20)
    text += fmt::format(", ... ({} in all)", npus.size());
  return text;
}

SynthGraph make_synth_graph(const Topology& topology, const SynthGraphOptions& options) {
  std::vector<uint32_t> global;
  const std::vector<uint32_t> local = local_ids(topology, options, global);
  std::set<uint64_t> failed;
  for (const auto& [a, b] : options.failed_links) {
    if (a == b)
      throw Error("synth", Argument{"fail_links"}, fmt::format("{}-{} is not a link", a, b));
    if (a >= topology.node_count() || b >= topology.node_count())
      throw Error("synth", Argument{"fail_links"}, fmt::format("{}-{} names a node outside the topology", a, b));
    failed.insert(pair_key(std::min(a, b), std::max(a, b)));
  }
  check_failed_links(topology, failed);
  uint32_t members = 0;
  while (members < global.size() && global[members] < topology.npu_count())
    ++members;
  SynthGraph graph(global, members);
  std::unordered_set<uint64_t> seen;
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const uint32_t a = topology.link_src(LinkId{l}).value;
    const uint32_t b = topology.link_dst(LinkId{l}).value;
    if (a == b)
      throw Error("synth", "topology", fmt::format("self link on node {}", a));
    if (!seen.insert(pair_key(a, b)).second) {
      throw Error("synth", "topology",
                  fmt::format("duplicate link {} -> {}; the synthesizer needs one link per direction", a, b));
    }
    if (!(topology.link_bandwidth(LinkId{l}).bytes_per_second() > 0))
      throw Error("synth", "topology", fmt::format("link {} -> {} has a non-positive bandwidth", a, b));
    if (local[a] == kAbsent || local[b] == kAbsent || failed.count(pair_key(std::min(a, b), std::max(a, b))))
      continue;
    graph.add_link(local[a], local[b], LinkId{l}, topology.link_bandwidth(LinkId{l}), topology.link_latency(LinkId{l}));
  }
  graph.finish();
  if (options.require_all_pairs && members > 1) {
    std::vector<uint32_t> bad = unreachable_members(graph, 0, true);
    const std::vector<uint32_t> mute = unreachable_members(graph, 0, false);
    if (!bad.empty()) {
      throw Error("synth", "topology",
                  fmt::format("NPUs {} can never receive from NPU {} (the group is disconnected)", format_npu_list(bad),
                              global[0]));
    }
    if (!mute.empty()) {
      throw Error("synth", "topology",
                  fmt::format("NPUs {} can never send to NPU {} (the group is disconnected)", format_npu_list(mute),
                              global[0]));
    }
  }
  return graph;
}

}  // namespace chorus
