// Concurrent collectives sharing links (see collective_contention.hpp).
#include "chorus/runtime/collective_contention.hpp"

#include <algorithm>
#include <cmath>

namespace chorus {

namespace {
// A full link still lets every collective crawl, so that every end time stays finite.
constexpr double kMinRate = 1e-9;
}  // namespace

CollectiveContention::CollectiveContention(const Topology& topology) {
  for (uint32_t l = 0; l < topology.link_count(); ++l)
    system_.add_resource(topology.link_bandwidth(LinkId{l}).bytes_per_second());
}

const std::vector<EndChange>& CollectiveContention::start(Time now, Time isolated,
                                                          const std::vector<std::pair<uint32_t, double>>& link_bytes) {
  // Demand on each link at the isolated speed (bytes/s); the cap resource bounds the fraction by 1.
  const double seconds = std::max(isolated.seconds(), 1e-12);
  resources_.clear();
  weights_.clear();
  for (const auto& [link, bytes] : link_bytes) {
    if (bytes <= 0)
      continue;
    resources_.push_back(link);
    weights_.push_back(bytes / seconds);
  }
  // Flow ids are dense and reused after remove_flow(); each id keeps the cap resource it got first.
  const uint32_t id = system_.next_flow();
  if (id == cap_.size()) {
    cap_.push_back(system_.add_resource(1.0));
    active_.emplace_back();
  }
  resources_.push_back(cap_[id]);
  weights_.push_back(1.0);
  system_.add_flow(resources_, weights_);
  Active& a = active_[id];
  a.remaining_ps = static_cast<double>(isolated.picoseconds());
  a.rate = 0;
  a.last = now;
  a.live = true;
  update(now, id);
  return changes_;
}

const std::vector<EndChange>& CollectiveContention::finish(uint32_t id, Time now) {
  Active& a = active_[id];
  system_.remove_flow(id);
  a.live = false;
  ++a.version;
  update(now, -1);
  return changes_;
}

bool CollectiveContention::current(uint32_t id, uint32_t version) const {
  return id < active_.size() && active_[id].live && active_[id].version == version;
}

// Re-solves the shares; every collective whose fraction moved is advanced to `now` at its old fraction and gets
// a new end time. The fresh collective (if any) comes last, so callers find its id there.
void CollectiveContention::update(Time now, int64_t fresh) {
  changed_.clear();
  system_.solve(changed_);
  changes_.clear();
  auto change = [&](uint32_t c) {
    Active& a = active_[c];
    a.remaining_ps = std::max(0.0, a.remaining_ps - a.rate * static_cast<double>((now - a.last).picoseconds()));
    a.last = now;
    a.rate = std::max(system_.rate(c), kMinRate);
    ++a.version;
    changes_.push_back(EndChange{c, now + Time::ps(std::llround(a.remaining_ps / a.rate)), a.version});
  };
  for (const uint32_t c : changed_) {
    if (static_cast<int64_t>(c) == fresh || !active_[c].live)
      continue;
    if (std::max(system_.rate(c), kMinRate) != active_[c].rate)
      change(c);  // unchanged ones keep their queued end
  }
  if (fresh >= 0)
    change(static_cast<uint32_t>(fresh));
}

}  // namespace chorus
