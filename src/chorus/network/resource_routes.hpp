// ResourceRoutes: what the contention models (aware, flow) need to know about where a transfer goes.
//
// A resource is something messages compete for: a physical link (PhysicalRoutes, for a full Schedule), or a
// class of identical links under the topology's symmetry (used by the symmetric evaluators, where a resource
// may appear several times in one route: a ring message crossing three forward links loads every forward link
// with three rotated copies of itself). Each resource has a bandwidth and a latency.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chorus/collective/schedule.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {

class ResourceRoutes {
 public:
  virtual ~ResourceRoutes() = default;
  virtual uint32_t resource_count() const = 0;
  virtual Bandwidth bandwidth(uint32_t resource) const = 0;
  virtual Time latency(uint32_t resource) const = 0;
  // The resources transfer `op` crosses, in order.
  virtual std::span<const uint32_t> route(OpId op) const = 0;
};

// Physical links along the RouteTable's routes.
class PhysicalRoutes final : public ResourceRoutes {
 public:
  PhysicalRoutes(const Schedule& schedule, const RouteTable& routes);
  uint32_t resource_count() const override { return topology_.link_count(); }
  Bandwidth bandwidth(uint32_t r) const override { return topology_.link_bandwidth(LinkId{r}); }
  Time latency(uint32_t r) const override { return topology_.link_latency(LinkId{r}); }
  std::span<const uint32_t> route(OpId op) const override;

 private:
  const Schedule& schedule_;
  const RouteTable& routes_;
  const Topology& topology_;
};

}  // namespace chorus
