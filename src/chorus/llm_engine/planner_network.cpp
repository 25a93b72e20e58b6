// The planner's network tiers as a simulator topology (see planner_network.hpp).
#include "chorus/llm_engine/planner_network.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

Topology planner_topology(const llm::System& sys, int64_t npus, const std::string& system_name) {
  std::vector<Dimension> dims;
  int64_t spanned = 1;
  for (size_t t = 0; t < sys.networks.size() && spanned < npus; ++t) {
    const llm::NetworkTier& tier = sys.networks[t];
    const int64_t domain = std::min(tier.size, npus);  // NPUs inside one domain of this tier
    if (domain <= spanned)
      continue;  // no wider than the tiers below it
    if (domain % spanned != 0 || npus % domain != 0) {
      throw Error(system_name, fmt::format("networks[{}].size", t),
                  fmt::format("a domain of {} NPUs does not split {} NPUs into whole domains of the {} below it",
                              domain, npus, spanned));
    }
    const auto n = static_cast<uint32_t>(domain / spanned);
    const double steps = 2.0 * (n - 1);
    dims.push_back(Dimension{BlockKind::Switch, n, Bandwidth::bytes_per_s(tier.bytes_per_second * tier.efficiency),
                             Time::from_seconds(tier.latency_s / steps)});
    spanned = domain;
  }
  if (spanned < npus) {
    throw Error(system_name, "networks", fmt::format("the widest tier holds {} NPUs; the job has {}", spanned, npus));
  }
  if (dims.empty())  // one NPU: a switch of one is no network; the first tier's link is never used
    throw Error(system_name, "networks", "the simulator engine needs at least 2 GPUs");
  return compose(std::move(dims), system_name + " tiers");
}

}  // namespace chorus
