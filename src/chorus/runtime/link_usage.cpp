// Per-link statistics of a workload run (see link_usage.hpp).
#include "chorus/runtime/link_usage.hpp"

#include <algorithm>

namespace chorus {

LinkUsage::LinkUsage(const Topology& topology) : topology_(topology), router_(topology) {
  stats_.resize(topology.link_count());
  scratch_.resize(topology.link_count());
  in_scratch_.assign(topology.link_count(), 0);
}

const std::vector<LinkId>& LinkUsage::route(uint32_t src, uint32_t dst) {
  const uint64_t key = (uint64_t{src} << 32) | dst;
  auto it = routes_.find(key);
  if (it == routes_.end())
    it = routes_.emplace(key, router_.route(NodeId{src}, NodeId{dst})).first;
  return it->second;
}

void LinkUsage::add_collective(const std::vector<uint32_t>& members, const TimedCollective& timed) {
  if (!timed.links)
    return;
  const LinkStats& links = *timed.links;
  if (timed.ring_links.empty()) {  // timed on the whole network: the statistics are per physical link already
    for (size_t l = 0; l < links.bytes.size(); ++l) {
      stats_.bytes[l] += links.bytes[l];
      stats_.busy[l] += links.busy[l];
      stats_.peak_flows[l] = std::max(stats_.peak_flows[l], links.peak_flows[l]);
    }
    return;
  }
  // Gather the collective's load per physical link first, so hops sharing a link are combined, then add it.
  for (size_t l = 0; l < timed.ring_links.size(); ++l) {
    const auto [from, to] = timed.ring_links[l];
    for (const LinkId physical : route(members[from], members[to])) {
      const uint32_t p = physical.value;
      if (!in_scratch_[p]) {
        in_scratch_[p] = 1;
        touched_.push_back(p);
      }
      scratch_.bytes[p] += links.bytes[l];
      scratch_.busy[p] = std::max(scratch_.busy[p], links.busy[l]);
      scratch_.peak_flows[p] += links.peak_flows[l];
    }
  }
  for (const uint32_t p : touched_) {
    stats_.bytes[p] += scratch_.bytes[p];
    stats_.busy[p] += scratch_.busy[p];
    stats_.peak_flows[p] = std::max(stats_.peak_flows[p], scratch_.peak_flows[p]);
    scratch_.bytes[p] = 0;
    scratch_.busy[p] = Time::zero();
    scratch_.peak_flows[p] = 0;
    in_scratch_[p] = 0;
  }
  touched_.clear();
}

void LinkUsage::add_message(uint32_t src, uint32_t dst, Bytes bytes) {
  for (const LinkId l : route(src, dst)) {
    stats_.bytes[l.value] += static_cast<double>(bytes.count());
    stats_.busy[l.value] +=
        Time::from_seconds(static_cast<double>(bytes.count()) / topology_.link_bandwidth(l).bytes_per_second());
    stats_.peak_flows[l.value] = std::max(stats_.peak_flows[l.value], 1u);
  }
}

}  // namespace chorus
