// Reading the price list of `chorus codesign` and pricing one dimension (see cost_file.hpp).
#include "chorus/codesign/cost_file.hpp"

#include <cmath>

#include <fmt/format.h>

#include "chorus/codesign/yaml_fields.hpp"
#include "chorus/core/error.hpp"

namespace chorus::codesign {

namespace {

double price(const YAML::Node& map, const char* key, const std::string& path, const std::string& at, double fallback,
             double lowest, double highest) {
  if (!map[key])
    return fallback;
  const std::string f = at + "." + key;
  const double v = yaml_number(map[key], path, f);
  if (!(v >= lowest && v <= highest))
    throw Error(path, f, fmt::format("is {}; must be between {} and {}", v, lowest, highest));
  return v;
}

}  // namespace

CostFile load_cost_file(const std::string& path, const NetworkTemplate& t) {
  const YAML::Node root = load_yaml_map(path);
  check_keys(path, root, {"source", "date", "gpu_dollars", "dimensions"}, "");
  CostFile c;
  c.file = path;
  if (root["gpu_dollars"]) {
    c.gpu_dollars = yaml_number(root["gpu_dollars"], path, "gpu_dollars");
    if (!(c.gpu_dollars >= 0 && c.gpu_dollars <= 1e9))
      throw Error(path, "gpu_dollars", fmt::format("is {}; must be between 0 and 1e9", c.gpu_dollars));
  }
  const YAML::Node dims = root["dimensions"];
  if (!dims || !dims.IsMap())
    throw Error(path, "dimensions", "must map each dimension name of the template to its prices");
  for (const auto& entry : dims) {
    const std::string name = entry.first.Scalar();
    bool known = false;
    for (const DimensionTemplate& d : t.dimensions)
      known = known || d.name == name;
    if (!known)
      throw Error(path, "dimensions." + name, fmt::format("the template {} has no dimension '{}'", t.file, name));
  }
  for (const DimensionTemplate& d : t.dimensions) {
    const std::string at = "dimensions." + d.name;
    const YAML::Node m = dims[d.name];
    if (!m)
      throw Error(path, at, fmt::format("missing: the prices of the template's dimension '{}'", d.name));
    check_keys(path, m,
               {"dollars_per_GBps", "port_GBps", "node_gpus", "nic_port_dollars", "switch_port_dollars",
                "cable_dollars", "radix", "switch_reduce_premium", "source"},
               at + ".");
    DimensionPrices p;
    p.dollars_per_gbps = price(m, "dollars_per_GBps", path, at, 0, 0, 1e9);
    p.port_gbps = price(m, "port_GBps", path, at, 50, 1e-3, 1e6);
    p.node_gpus = static_cast<int64_t>(price(m, "node_gpus", path, at, 0, 0, 1e6));
    p.nic_port_dollars = price(m, "nic_port_dollars", path, at, 0, 0, 1e9);
    p.switch_port_dollars = price(m, "switch_port_dollars", path, at, 0, 0, 1e9);
    p.cable_dollars = price(m, "cable_dollars", path, at, 0, 0, 1e9);
    p.radix = static_cast<int64_t>(price(m, "radix", path, at, 64, 2, 1e6));
    p.switch_reduce_premium = price(m, "switch_reduce_premium", path, at, 0, 0, 100);
    c.dimensions.push_back(p);
  }
  return c;
}

int fat_tree_levels(int64_t endpoints, int64_t radix) {
  // A fat tree of L levels of radix-k switches holds k^L / 2^(L-1) endpoints.
  double holds = static_cast<double>(radix);
  int levels = 1;
  while (holds < static_cast<double>(endpoints) && levels < 16) {
    holds *= static_cast<double>(radix) / 2.0;
    ++levels;
  }
  return levels;
}

double dimension_cost(const DimensionPrices& p, int64_t gpus, double bandwidth_gbps, int64_t size, double oversub,
                      Algorithm algorithm) {
  const double g = static_cast<double>(gpus);
  double cost = g * bandwidth_gbps * p.dollars_per_gbps;
  if (size > p.node_gpus) {
    const double ports = std::ceil(bandwidth_gbps / p.port_gbps - 1e-9);
    const double above = static_cast<double>(fat_tree_levels(size, p.radix) - 1) / oversub;
    const double premium = algorithm == Algorithm::kSwitchReduce ? 1 + p.switch_reduce_premium : 1;
    cost += g * ports *
            (p.nic_port_dollars + p.switch_port_dollars * premium * (1 + 2 * above) + p.cable_dollars * (1 + above));
  }
  return cost;
}

}  // namespace chorus::codesign
