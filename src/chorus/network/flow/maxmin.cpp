// Incremental progressive filling (see maxmin.hpp).
#include "chorus/network/flow/maxmin.hpp"

#include <algorithm>
#include <queue>

#include "chorus/core/assert.hpp"

namespace chorus {

uint32_t MaxMinSystem::add_resource(double capacity) {
  CHORUS_ASSERT(capacity > 0, "resource capacity {}", capacity);
  resources_.push_back(Resource{capacity, {}, 0, 0, 0, 0});
  return static_cast<uint32_t>(resources_.size() - 1);
}

uint32_t MaxMinSystem::add_flow(std::span<const uint32_t> resources) {
  uint32_t id = 0;
  if (!free_flows_.empty()) {
    id = free_flows_.back();
    free_flows_.pop_back();
  } else {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[id];
  f.resources.assign(resources.begin(), resources.end());
  f.slot.resize(resources.size());
  f.weights.clear();
  f.rate = 0;
  f.active = true;
  for (size_t i = 0; i < resources.size(); ++i) {
    Resource& r = resources_[resources[i]];
    f.slot[i] = static_cast<uint32_t>(r.flows.size());
    r.flows.push_back(id);
    dirty_.push_back(resources[i]);
  }
  return id;
}

uint32_t MaxMinSystem::add_flow(std::span<const uint32_t> resources, std::span<const double> weights) {
  CHORUS_ASSERT(weights.size() == resources.size(), "{} weights for {} resources", weights.size(), resources.size());
  const uint32_t id = add_flow(resources);
  flows_[id].weights.assign(weights.begin(), weights.end());
  weighted_ = true;
  return id;
}

void MaxMinSystem::remove_flow(uint32_t id) {
  CHORUS_ASSERT(flows_[id].active, "removing inactive flow {}", id);
  for (size_t i = 0; i < flows_[id].resources.size(); ++i) {
    const uint32_t resource = flows_[id].resources[i];
    Resource& r = resources_[resource];
    const uint32_t slot = flows_[id].slot[i];
    const uint32_t last = static_cast<uint32_t>(r.flows.size() - 1);
    const uint32_t moved = r.flows[last];
    r.flows[slot] = moved;
    r.flows.pop_back();
    dirty_.push_back(resource);
    if (moved == id && slot == last)
      continue;  // this very listing was last: nothing moved (without this check, removing a flow alone on its n
                 // resources scanned its own n listings n times)
    // The moved entry is the listing of `moved` (possibly this flow, if it crosses the resource twice) that sat
    // in the last slot.
    Flow& m = flows_[moved];
    for (size_t j = 0; j < m.resources.size(); ++j) {
      if (m.resources[j] == resource && m.slot[j] == last) {
        m.slot[j] = slot;
        break;
      }
    }
  }
  Flow& f = flows_[id];
  f.active = false;
  f.rate = 0;
  free_flows_.push_back(id);
}

// Everything reachable from the dirty resources through shared flows.
void MaxMinSystem::collect_component(std::vector<uint32_t>& resources, std::vector<uint32_t>& flows) {
  ++epoch_;
  std::vector<uint32_t> stack;
  for (uint32_t r : dirty_) {
    if (resources_[r].mark != epoch_) {
      resources_[r].mark = epoch_;
      stack.push_back(r);
    }
  }
  dirty_.clear();
  while (!stack.empty()) {
    const uint32_t r = stack.back();
    stack.pop_back();
    resources.push_back(r);
    for (uint32_t f : resources_[r].flows) {
      if (flows_[f].mark == epoch_)
        continue;
      flows_[f].mark = epoch_;
      flows.push_back(f);
      for (uint32_t q : flows_[f].resources) {
        if (resources_[q].mark != epoch_) {
          resources_[q].mark = epoch_;
          stack.push_back(q);
        }
      }
    }
  }
}

void MaxMinSystem::water_fill(const std::vector<uint32_t>& resources, const std::vector<uint32_t>& flows,
                              std::vector<uint32_t>& changed) {
  struct Entry {
    double share;
    uint32_t resource;
    uint32_t version;
    bool operator>(const Entry& o) const { return share != o.share ? share > o.share : resource > o.resource; }
  };
  // The first entries are heapified at once (linear) rather than pushed one by one.
  std::vector<Entry> first;
  first.reserve(resources.size());
  for (uint32_t r : resources) {
    Resource& res = resources_[r];
    res.remaining = res.capacity;
    res.unfrozen = static_cast<uint32_t>(res.flows.size());
    res.load = 0;
    ++res.version;
    if (!weighted_ && res.unfrozen > 0)
      first.push_back({share(res), r, res.version});
  }
  if (weighted_) {  // loads first, then the shares they give
    for (uint32_t f : flows) {
      for (size_t i = 0; i < flows_[f].resources.size(); ++i)
        resources_[flows_[f].resources[i]].load += weight(flows_[f], i);
    }
    for (uint32_t r : resources) {
      const Resource& res = resources_[r];
      if (res.unfrozen > 0)
        first.push_back({share(res), r, res.version});
    }
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap(std::greater<>{}, std::move(first));
  std::vector<double> old_rate(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    old_rate[i] = flows_[flows[i]].rate;
    flows_[flows[i]].frozen = false;
  }
  // Once every flow is frozen only outdated entries remain: stop (a flow over n resources left n of them).
  size_t unfrozen_flows = flows.size();
  while (!heap.empty() && unfrozen_flows > 0) {
    const Entry top = heap.top();
    heap.pop();
    Resource& bottleneck = resources_[top.resource];
    if (top.version != bottleneck.version || bottleneck.unfrozen == 0)
      continue;
    const double level = std::max(0.0, top.share);
    for (uint32_t f : bottleneck.flows) {
      Flow& flow = flows_[f];
      if (flow.frozen)
        continue;
      flow.frozen = true;
      flow.rate = level;
      --unfrozen_flows;
      for (size_t i = 0; i < flow.resources.size(); ++i) {
        const uint32_t q = flow.resources[i];
        Resource& res = resources_[q];
        const double w = weight(flow, i);
        res.remaining = std::max(0.0, res.remaining - w * level);
        res.load -= w;
        --res.unfrozen;
        ++res.version;
        if (res.unfrozen > 0)
          heap.push({share(res), q, res.version});
      }
    }
  }
  for (size_t i = 0; i < flows.size(); ++i) {
    if (flows_[flows[i]].rate != old_rate[i] || old_rate[i] == 0)
      changed.push_back(flows[i]);
  }
}

void MaxMinSystem::solve(std::vector<uint32_t>& changed) {
  if (dirty_.empty())
    return;
  std::vector<uint32_t> resources, flows;
  collect_component(resources, flows);
  water_fill(resources, flows, changed);
}

}  // namespace chorus
