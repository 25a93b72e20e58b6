// LIBRA cost model (see cost_model.hpp). The per-block formula is evaluated as written (not the collapsed
// N * u_d) so that the collapse is something tests can check rather than an assumption.
#include "chorus/netopt/cost_model.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::netopt {

namespace {

double unit_cost(const NetworkShape& network, size_t d, const CostModel& model, const std::string& source) {
  const std::string& name = network.cost_dimensions[d];
  const auto it = model.find(name);
  if (it == model.end()) {
    throw Error(source, name, fmt::format("no cost for CostDimension[{}] of the network", d));
  }
  if (network.blocks[d] != BlockKind::Switch)
    return it->second.link;
  if (!it->second.switch_)
    throw Error(source, name + ".Switch", fmt::format("dimension {} is a Switch; give its price", d));
  return it->second.link + *it->second.switch_ + it->second.nic.value_or(0);
}

}  // namespace

std::vector<double> cost_coefficients(const NetworkShape& network, const CostModel& model, const std::string& source) {
  const double npus = static_cast<double>(network.npu_count());
  std::vector<double> c;
  for (size_t d = 0; d < network.dimension_count(); ++d) {
    const double n = network.sizes[d];
    const double u = unit_cost(network, d, model, source);
    double per_unit_bandwidth = 0;  // blocks * links * (per-link bandwidth / B_d)
    switch (network.blocks[d]) {
      case BlockKind::Ring:
        per_unit_bandwidth = (npus / n) * (2 * n) * 0.5;
        break;
      case BlockKind::FullyConnected:
        per_unit_bandwidth = (npus / n) * (n * (n - 1)) / (n - 1);
        break;
      default: {
        double below = 1;
        for (size_t j = 0; j <= d; ++j)
          below *= network.sizes[j];
        per_unit_bandwidth = (npus / below) * below;
      }
    }
    c.push_back(per_unit_bandwidth * u);
  }
  return c;
}

double network_cost(const std::vector<double>& coefficients, const std::vector<double>& bandwidth_gbps) {
  double cost = 0;
  for (size_t d = 0; d < coefficients.size(); ++d)
    cost += coefficients[d] * bandwidth_gbps[d];
  return cost;
}

}  // namespace chorus::netopt
