// SynthRoutes: the exact link every transfer of a synthesized Schedule was placed on, as ResourceRoutes, so the
// aware and flow network models (network/aware_model.hpp, network/flow_model.hpp) run it hop for hop as
// synthesized instead of re-routing it.
#pragma once

#include <vector>

#include "chorus/network/resource_routes.hpp"
#include "chorus/synth/synthesize.hpp"

namespace chorus {

class SynthRoutes final : public ResourceRoutes {
 public:
  SynthRoutes(const Topology& topology, const SynthResult& result);
  uint32_t resource_count() const override { return topology_.link_count(); }
  Bandwidth bandwidth(uint32_t r) const override { return topology_.link_bandwidth(LinkId{r}); }
  Time latency(uint32_t r) const override { return topology_.link_latency(LinkId{r}); }
  std::span<const uint32_t> route(OpId op) const override;

 private:
  const Topology& topology_;
  std::vector<uint32_t> link_;  // per op
  std::vector<char> transfer_;
};

}  // namespace chorus
