// MaxMinSystem: max-min fair sharing of capacitated resources among flows, solved incrementally.
//
// A flow crosses a set of resources (links); every flow gets the largest rate such that no resource is over its
// capacity and no flow could get more without taking from a flow that has less (Bertsekas & Gallager, Data
// Networks, 6.5.2: progressive filling). Only the resources touched since the last solve() and everything
// connected to them through shared flows are re-solved, so a change on one ring link costs O(1), not O(flows).
// The solver knows nothing about links, collectives or time (cf. SimGrid's kernel/lmm).
//
//   MaxMinSystem s;
//   uint32_t link = s.add_resource(50e9);
//   uint32_t a = s.add_flow({&link, 1}), b = s.add_flow({&link, 1});
//   s.solve(changed);  // s.rate(a) == s.rate(b) == 25e9
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace chorus {

class MaxMinSystem {
 public:
  uint32_t add_resource(double capacity);
  // A flow over `resources`. A resource listed k times is loaded k times by the flow's rate (a weighted flow,
  // used for classes of symmetric links). Ids of removed flows are reused.
  uint32_t add_flow(std::span<const uint32_t> resources);
  void remove_flow(uint32_t flow);
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
    uint32_t version = 0;
    uint32_t mark = 0;
  };
  struct Flow {
    std::vector<uint32_t> resources;
    std::vector<uint32_t> slot;  // index of this flow in resources_[resources[i]].flows
    double rate = 0;
    bool active = false;
    bool frozen = false;
    uint32_t mark = 0;
  };

  void collect_component(std::vector<uint32_t>& resources, std::vector<uint32_t>& flows);
  void water_fill(const std::vector<uint32_t>& resources, const std::vector<uint32_t>& flows,
                  std::vector<uint32_t>& changed);

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<uint32_t> dirty_;
  uint32_t epoch_ = 0;
};

}  // namespace chorus
