// Concurrent collectives sharing links (see collective_contention.hpp).
#include "chorus/runtime/collective_contention.hpp"

#include <algorithm>
#include <cmath>

namespace chorus {

CollectiveContention::CollectiveContention(const Topology& topology)
    : capacity_(topology.link_count()),
      users_(topology.link_count()),
      seen_link_(topology.link_count(), 0),
      used_(topology.link_count(), 0),
      want_(topology.link_count(), 0) {
  for (uint32_t l = 0; l < topology.link_count(); ++l)
    capacity_[l] = topology.link_bandwidth(LinkId{l}).bytes_per_second();
}

const std::vector<EndChange>& CollectiveContention::start(Time now, Time isolated,
                                                          const std::vector<std::pair<uint32_t, double>>& link_bytes) {
  uint32_t id = 0;
  if (free_.empty()) {
    id = static_cast<uint32_t>(active_.size());
    active_.emplace_back();
    seen_collective_.push_back(0);
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Active& a = active_[id];
  a.remaining_ps = static_cast<double>(isolated.picoseconds());
  a.rate = 1;
  a.last = now;
  a.live = true;
  a.demand.clear();
  const double seconds = std::max(isolated.seconds(), 1e-12);
  for (const auto& [link, bytes] : link_bytes) {
    if (bytes <= 0)
      continue;
    a.demand.emplace_back(link, bytes / seconds);
    users_[link].push_back(id);
  }
  component(a.demand);
  if (std::find(group_.begin(), group_.end(), id) == group_.end())
    group_.push_back(id);  // a collective on no link is its own component
  advance(now);
  std::vector<double> old_rates;
  for (const uint32_t c : group_)
    old_rates.push_back(active_[c].rate);
  share();
  publish(now, old_rates, id);
  return changes_;
}

const std::vector<EndChange>& CollectiveContention::finish(uint32_t id, Time now) {
  const std::vector<std::pair<uint32_t, double>> links = active_[id].demand;
  detach(id);
  component(links);
  advance(now);
  std::vector<double> old_rates;
  for (const uint32_t c : group_)
    old_rates.push_back(active_[c].rate);
  share();
  publish(now, old_rates, -1);
  return changes_;
}

bool CollectiveContention::current(uint32_t id, uint32_t version) const {
  return id < active_.size() && active_[id].live && active_[id].version == version;
}

void CollectiveContention::detach(uint32_t id) {
  Active& a = active_[id];
  for (const auto& [link, demand] : a.demand) {
    std::vector<uint32_t>& u = users_[link];
    u.erase(std::find(u.begin(), u.end(), id));
  }
  a.live = false;
  ++a.version;
  free_.push_back(id);
}

// The live collectives reachable from the seed links through shared links.
void CollectiveContention::component(const std::vector<std::pair<uint32_t, double>>& seeds) {
  ++stamp_;
  group_.clear();
  std::vector<uint32_t> links;
  for (const auto& [link, demand] : seeds) {
    if (seen_link_[link] != stamp_) {
      seen_link_[link] = stamp_;
      links.push_back(link);
    }
  }
  while (!links.empty()) {
    const uint32_t link = links.back();
    links.pop_back();
    for (const uint32_t c : users_[link]) {
      if (seen_collective_[c] == stamp_)
        continue;
      seen_collective_[c] = stamp_;
      group_.push_back(c);
      for (const auto& [other, demand] : active_[c].demand) {
        if (seen_link_[other] != stamp_) {
          seen_link_[other] = stamp_;
          links.push_back(other);
        }
      }
    }
  }
}

void CollectiveContention::advance(Time now) {
  for (const uint32_t c : group_) {
    Active& a = active_[c];
    a.remaining_ps = std::max(0.0, a.remaining_ps - a.rate * static_cast<double>((now - a.last).picoseconds()));
    a.last = now;
  }
}

// Progressive filling: raise every unfrozen collective's fraction together until a link is full (or 1 is
// reached), freeze the collectives on that link, repeat. used_ and want_ are per-link scratch, zero outside.
void CollectiveContention::share() {
  std::vector<uint32_t> unfrozen = group_;
  std::vector<uint32_t> touched;
  for (const uint32_t c : group_) {
    for (const auto& [link, demand] : active_[c].demand)
      touched.push_back(link);
  }
  while (!unfrozen.empty()) {
    for (const uint32_t c : unfrozen) {
      for (const auto& [link, demand] : active_[c].demand)
        want_[link] += demand;
    }
    double level = 1;
    int64_t bottleneck = -1;
    for (const uint32_t c : unfrozen) {
      for (const auto& [link, demand] : active_[c].demand) {
        const double fill = (capacity_[link] - used_[link]) / want_[link];
        if (fill < level * (1 - 1e-12)) {
          level = std::max(fill, 0.0);
          bottleneck = link;
        }
      }
    }
    for (const uint32_t c : unfrozen) {
      for (const auto& [link, demand] : active_[c].demand)
        want_[link] = 0;
    }
    if (bottleneck < 0) {  // no link fills below the isolated speed
      for (const uint32_t c : unfrozen)
        active_[c].rate = 1;
      break;
    }
    std::vector<uint32_t> rest;
    for (const uint32_t c : unfrozen) {
      const auto& d = active_[c].demand;
      if (std::none_of(d.begin(), d.end(), [&](const auto& p) { return p.first == bottleneck; })) {
        rest.push_back(c);
        continue;
      }
      active_[c].rate = std::max(level, 1e-9);  // a full link still lets every collective crawl
      for (const auto& [link, demand] : d)
        used_[link] += demand * active_[c].rate;
    }
    unfrozen = std::move(rest);
  }
  for (const uint32_t link : touched)
    used_[link] = 0;
}

void CollectiveContention::publish(Time now, const std::vector<double>& old_rates, int64_t fresh) {
  changes_.clear();
  auto change = [&](uint32_t c) {
    Active& a = active_[c];
    ++a.version;
    changes_.push_back(EndChange{c, now + Time::ps(std::llround(a.remaining_ps / a.rate)), a.version});
  };
  for (size_t i = 0; i < group_.size(); ++i) {
    const uint32_t c = group_[i];
    if (static_cast<int64_t>(c) != fresh && active_[c].rate != old_rates[i])
      change(c);  // unchanged ones keep their queued end
  }
  if (fresh >= 0)
    change(static_cast<uint32_t>(fresh));  // last, so callers find the new collective's id there
}

}  // namespace chorus
