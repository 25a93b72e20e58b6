// MaxMinSystem: max-min fair sharing of capacitated resources among flows, solved incrementally.
//
// A flow crosses a set of resources (links); every flow gets the largest rate such that no resource is over its
// capacity and no flow could get more without taking from a flow that has less (Bertsekas & Gallager, Data
// Networks, 6.5.2: progressive filling). Only the resources touched since the last solve() and everything
// connected to them through shared flows are re-solved, so a change on one ring link costs O(1), not O(flows).
// Weighted flows generalise this: a flow that loads resource r with w_r times its rate gets rates such that
// sum_f w_fr * rate_f <= capacity_r, raised together until a resource fills (the collective-level contention
// of runtime/collective_contention.hpp, whose flows are collectives and whose weights are their link demands).
// A cap on a flow's rate is a resource of that capacity that only this flow crosses.
// The solver knows nothing about links, collectives or time (cf. SimGrid's kernel/lmm).
//
//   MaxMinSystem s;
//   uint32_t link = s.add_resource(50e9);
//   uint32_t a = s.add_flow({&link, 1}), b = s.add_flow({&link, 1});
//   s.solve(changed);  // s.rate(a) == s.rate(b) == 25e9
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace chorus {

class MaxMinSystem {
 public:
  uint32_t add_resource(double capacity);
  // A flow over `resources`. A resource listed k times is loaded k times by the flow's rate (a weighted flow,
  // used for classes of symmetric links). Ids of removed flows are reused.
  uint32_t add_flow(std::span<const uint32_t> resources);
  // A weighted flow: it loads resources[i] with weights[i] (> 0) times its rate.
  uint32_t add_flow(std::span<const uint32_t> resources, std::span<const double> weights);
  void remove_flow(uint32_t flow);
  // The id the next add_flow() returns (the last removed one, else a new one).
  uint32_t next_flow() const { return free_flows_.empty() ? static_cast<uint32_t>(flows_.size()) : free_flows_.back(); }
  // Re-solves the part of the system affected by changes since the last call; appends to `changed` the
  // active flows whose rate is new or different.
  void solve(std::vector<uint32_t>& changed);

  double rate(uint32_t flow) const { return flows_[flow].rate; }
  uint32_t flow_count(uint32_t resource) const { return static_cast<uint32_t>(resources_[resource].flows.size()); }
  size_t resource_count() const { return resources_.size(); }

 private:
  struct Resource {
    double capacity = 0;
    std::vector<uint32_t> flows;  // active flows crossing it
    // scratch for solve()
    double remaining = 0;
    uint32_t unfrozen = 0;
    double load = 0;  // sum of the unfrozen flows' weights (weighted systems only)
    uint32_t version = 0;
    uint32_t mark = 0;
  };
  struct Flow {
    std::vector<uint32_t> resources;
    std::vector<uint32_t> slot;   // index of this flow in resources_[resources[i]].flows
    std::vector<double> weights;  // per listing; empty: all 1
    double rate = 0;
    bool active = false;
    bool frozen = false;
    uint32_t mark = 0;
  };

  void collect_component(std::vector<uint32_t>& resources, std::vector<uint32_t>& flows);
  double weight(const Flow& flow, size_t listing) const { return flow.weights.empty() ? 1.0 : flow.weights[listing]; }
  // The rate every unfrozen flow on `r` would get if `r` were the next to fill (a drained load: never).
  double share(const Resource& r) const {
    if (!weighted_)
      return r.remaining / r.unfrozen;
    return r.load > 0 ? r.remaining / r.load : std::numeric_limits<double>::infinity();
  }
  void water_fill(const std::vector<uint32_t>& resources, const std::vector<uint32_t>& flows,
                  std::vector<uint32_t>& changed);

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<uint32_t> dirty_;
  uint32_t epoch_ = 0;
  bool weighted_ = false;  // some flow has weights: shares divide by load, not by the unfrozen count
};

}  // namespace chorus
