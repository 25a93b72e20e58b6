// Per-link statistics of a workload run (see link_usage.hpp).
#include "chorus/runtime/link_usage.hpp"

#include <algorithm>

namespace chorus {

LinkUsage::LinkUsage(const Topology& topology) : topology_(topology), routes_(topology) {
  stats_.resize(topology.link_count());
  scratch_.resize(topology.link_count());
  in_scratch_.assign(topology.link_count(), 0);
}

void LinkUsage::gather(const std::vector<uint32_t>& members, const TimedCollective& timed) {
  const LinkStats& links = *timed.links;
  auto touch = [&](uint32_t p) {
    if (!in_scratch_[p]) {
      in_scratch_[p] = 1;
      touched_.push_back(p);
    }
  };
  if (timed.ring_links.empty()) {  // timed on the whole network: the statistics are per physical link already
    for (uint32_t l = 0; l < links.bytes.size(); ++l) {
      if (links.bytes[l] == 0 && links.peak_flows[l] == 0)
        continue;
      touch(l);
      scratch_.bytes[l] = links.bytes[l];
      scratch_.busy[l] = links.busy[l];
      scratch_.peak_flows[l] = links.peak_flows[l];
    }
    return;
  }
  // Hops sharing a physical link are combined: bytes and flows add, busy times overlap.
  for (size_t l = 0; l < timed.ring_links.size(); ++l) {
    const auto [from, to] = timed.ring_links[l];
    for (const LinkId physical : route(members[from], members[to])) {
      const uint32_t p = physical.value;
      touch(p);
      scratch_.bytes[p] += links.bytes[l];
      scratch_.busy[p] = std::max(scratch_.busy[p], links.busy[l]);
      scratch_.peak_flows[p] += links.peak_flows[l];
    }
  }
}

void LinkUsage::clear_scratch() {
  for (const uint32_t p : touched_) {
    scratch_.bytes[p] = 0;
    scratch_.busy[p] = Time::zero();
    scratch_.peak_flows[p] = 0;
    in_scratch_[p] = 0;
  }
  touched_.clear();
}

void LinkUsage::add_collective(const std::vector<uint32_t>& members, const TimedCollective& timed) {
  if (!timed.links)
    return;
  gather(members, timed);
  for (const uint32_t p : touched_) {
    stats_.bytes[p] += scratch_.bytes[p];
    stats_.busy[p] += scratch_.busy[p];
    stats_.peak_flows[p] = std::max(stats_.peak_flows[p], scratch_.peak_flows[p]);
  }
  clear_scratch();
}

std::vector<std::pair<uint32_t, double>> LinkUsage::link_bytes(const std::vector<uint32_t>& members,
                                                               const TimedCollective& timed) {
  std::vector<std::pair<uint32_t, double>> out;
  if (!timed.links)
    return out;
  gather(members, timed);
  for (const uint32_t p : touched_)
    out.emplace_back(p, scratch_.bytes[p]);
  clear_scratch();
  return out;
}

std::vector<LinkShare> LinkUsage::shares(const std::vector<uint32_t>& members, const TimedCollective& timed) {
  std::vector<LinkShare> out;
  if (!timed.links)
    return out;
  gather(members, timed);
  for (const uint32_t p : touched_)
    out.push_back(LinkShare{p, scratch_.bytes[p], scratch_.busy[p], scratch_.peak_flows[p]});
  clear_scratch();
  return out;
}

void LinkUsage::add(const std::vector<LinkShare>& shares) {
  for (const LinkShare& s : shares) {
    stats_.bytes[s.link] += s.bytes;
    stats_.busy[s.link] += s.busy;
    stats_.peak_flows[s.link] = std::max(stats_.peak_flows[s.link], s.peak_flows);
  }
}

void LinkUsage::message_shares(uint32_t src, uint32_t dst, Bytes bytes, std::vector<LinkShare>& out) const {
  for (const LinkId l : route(src, dst)) {
    const double b = static_cast<double>(bytes.count());
    out.push_back(LinkShare{l.value, b, Time::from_seconds(b / topology_.link_bandwidth(l).bytes_per_second()), 1});
  }
}

void LinkUsage::add_message(uint32_t src, uint32_t dst, Bytes bytes) {
  std::vector<LinkShare> shares;
  message_shares(src, dst, bytes, shares);
  add(shares);
}

}  // namespace chorus
