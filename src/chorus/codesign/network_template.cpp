// Reading the network template of `chorus codesign` (see network_template.hpp).
#include "chorus/codesign/network_template.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "chorus/codesign/yaml_fields.hpp"
#include "chorus/core/error.hpp"

namespace chorus::codesign {

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kSwitchReduce:
      return "switch-reduce";
    case Algorithm::kNccl:
      return "nccl";
    case Algorithm::kSynth:
      return "synth";
  }
  return "ring";
}

bool reduces_in_switch(Algorithm a, size_t dimension) {
  return a == Algorithm::kSwitchReduce || (a == Algorithm::kNccl && dimension == 0);
}

uint64_t NetworkTemplate::point_count() const {
  uint64_t n = 1;
  for (const DimensionTemplate& d : dimensions)
    n *= d.bandwidth_gbps.values.size() * (d.size_all ? 1 : d.size.values.size()) * d.oversubscription.values.size() *
         d.algorithms.size();
  return n;
}

namespace {

constexpr size_t kMaxValues = 64;  // per parameter: the product over dimensions is what the search pays

// A number, or {values: [...], default: x}, or {min, max, step | factor, default}.
Choice parse_choice(const YAML::Node& node, const std::string& path, const std::string& field, double lowest,
                    bool integer) {
  Choice c;
  auto check = [&](double v, const std::string& f) {
    if (!std::isfinite(v) || v < lowest || v > 1e9)
      throw Error(path, f, fmt::format("is {}; must be between {} and 1e9", v, lowest));
    if (integer && v != std::floor(v))
      throw Error(path, f, fmt::format("is {}; must be a whole number", v));
    return v;
  };
  if (node.IsScalar()) {
    c.values = {check(yaml_number(node, path, field), field)};
    return c;
  }
  check_keys(path, node, {"values", "min", "max", "step", "factor", "default"}, field + ".");
  if (node["values"]) {
    if (node["min"] || node["max"] || node["step"] || node["factor"])
      throw Error(path, field + ".values", "give either values or min/max with step or factor, not both");
    const YAML::Node list = node["values"];
    if (!list.IsSequence() || list.size() == 0 || list.size() > kMaxValues)
      throw Error(path, field + ".values", fmt::format("must be a list of 1 to {} numbers", kMaxValues));
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string f = fmt::format("{}.values[{}]", field, i);
      const double v = check(yaml_number(list[i], path, f), f);
      if (!c.values.empty() && v <= c.values.back())
        throw Error(path, f, fmt::format("is {}; values must increase", v));
      c.values.push_back(v);
    }
  } else {
    if (!node["min"] || !node["max"])
      throw Error(path, field, "needs values, or min and max with step or factor");
    const double lo = check(yaml_number(node["min"], path, field + ".min"), field + ".min");
    const double hi = check(yaml_number(node["max"], path, field + ".max"), field + ".max");
    if (hi < lo)
      throw Error(path, field + ".max", fmt::format("is {}; must be >= min {}", hi, lo));
    if (node["step"].IsDefined() == node["factor"].IsDefined())
      throw Error(path, field, "give exactly one of step (added) and factor (multiplied)");
    const bool additive = node["step"].IsDefined();
    const double by = additive ? yaml_number(node["step"], path, field + ".step")
                               : yaml_number(node["factor"], path, field + ".factor");
    if (additive ? !(by > 0) : !(by > 1))
      throw Error(path, additive ? field + ".step" : field + ".factor",
                  fmt::format("is {}; must be {}", by, additive ? "> 0" : "> 1"));
    for (double v = lo; v <= hi * (1 + 1e-12); v = additive ? v + by : v * by) {
      if (c.values.size() == kMaxValues)
        throw Error(path, field, fmt::format("gives more than {} values", kMaxValues));
      c.values.push_back(check(v, field));
    }
  }
  if (!node["default"])
    throw Error(path, field + ".default", "missing: say which value the default network has");
  const double d = yaml_number(node["default"], path, field + ".default");
  for (size_t i = 0; i < c.values.size(); ++i) {
    if (std::abs(c.values[i] - d) <= 1e-9 * std::abs(d)) {
      c.default_index = i;
      return c;
    }
  }
  throw Error(path, field + ".default", fmt::format("is {}; must be one of the values", d));
}

DimensionTemplate parse_dimension(const YAML::Node& node, const std::string& path, size_t index, bool last) {
  const std::string at = fmt::format("dimensions[{}]", index);
  check_keys(path, node,
             {"name", "bandwidth_GBps", "size", "oversubscription", "algorithms", "latency_us", "efficiency"},
             at + ".");
  DimensionTemplate d;
  d.name = node["name"] ? yaml_string(node["name"], path, at + ".name") : fmt::format("dim{}", index);
  if (!node["bandwidth_GBps"])
    throw Error(path, at + ".bandwidth_GBps", "missing: the bandwidth per GPU in GB/s, or its choices");
  d.bandwidth_gbps = parse_choice(node["bandwidth_GBps"], path, at + ".bandwidth_GBps", 1e-3, false);
  if (!node["size"])
    throw Error(path, at + ".size",
                last ? "missing: the last dimension spans every GPU, write size: all"
                     : "missing: GPUs per domain of this dimension");
  if (node["size"].IsScalar() && node["size"].Scalar() == "all") {
    if (!last)
      throw Error(path, at + ".size", "is all; only the last dimension may span every GPU");
    d.size_all = true;
    d.size.values = {0};
  } else {
    d.size = parse_choice(node["size"], path, at + ".size", 1, true);
  }
  d.oversubscription = node["oversubscription"]
                           ? parse_choice(node["oversubscription"], path, at + ".oversubscription", 1, false)
                           : Choice{{1.0}, 0};
  if (node["algorithms"]) {
    const YAML::Node list = node["algorithms"];
    if (!list.IsSequence() || list.size() == 0)
      throw Error(path, at + ".algorithms", "must be a non-empty list of ring, switch-reduce, nccl, synth");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string f = fmt::format("{}.algorithms[{}]", at, i);
      const std::string name = yaml_string(list[i], path, f);
      Algorithm a;
      if (name == "ring") {
        a = Algorithm::kRing;
      } else if (name == "switch-reduce") {
        a = Algorithm::kSwitchReduce;
      } else if (name == "nccl") {
        a = Algorithm::kNccl;
      } else if (name == "synth") {
        a = Algorithm::kSynth;
      } else {
        throw Error(path, f, fmt::format("is '{}'; expected ring, switch-reduce, nccl or synth", name));
      }
      for (Algorithm seen : d.algorithms) {
        if (seen == a)
          throw Error(path, f, fmt::format("'{}' is listed twice", name));
      }
      d.algorithms.push_back(a);
    }
  } else {
    d.algorithms = {Algorithm::kRing};
  }
  if (node["latency_us"]) {
    const double us = yaml_number(node["latency_us"], path, at + ".latency_us");
    if (!(us >= 0 && us <= 1e6))
      throw Error(path, at + ".latency_us", fmt::format("is {}; must be between 0 and 1e6", us));
    d.latency_s = us * 1e-6;
  }
  if (node["efficiency"]) {
    const double e = yaml_number(node["efficiency"], path, at + ".efficiency");
    if (!(e > 0 && e <= 1))
      throw Error(path, at + ".efficiency", fmt::format("is {}; must be in (0, 1]", e));
    d.efficiency = e;
  }
  return d;
}

}  // namespace

NetworkTemplate load_network_template(const std::string& path) {
  const YAML::Node root = load_yaml_map(path);
  check_keys(path, root, {"name", "source", "dimensions"}, "");
  NetworkTemplate t;
  t.file = path;
  t.name = root["name"] ? yaml_string(root["name"], path, "name") : path;
  const YAML::Node dims = root["dimensions"];
  if (!dims || !dims.IsSequence() || dims.size() == 0 || dims.size() > 8)
    throw Error(path, "dimensions", "must be a list of 1 to 8 dimensions");
  for (size_t i = 0; i < dims.size(); ++i)
    t.dimensions.push_back(parse_dimension(dims[i], path, i, i + 1 == dims.size()));
  for (size_t i = 0; i < t.dimensions.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (t.dimensions[j].name == t.dimensions[i].name)
        throw Error(path, fmt::format("dimensions[{}].name", i),
                    fmt::format("'{}' names two dimensions", t.dimensions[i].name));
    }
  }
  if (t.point_count() > 10'000'000)
    throw Error(path, "dimensions", fmt::format("give {} networks; at most 10,000,000", t.point_count()));
  if (t.point_count() == 1)
    throw Error(path, "dimensions",
                "nothing is free: give a bandwidth_GBps, size or oversubscription more than one value, or a "
                "dimension more than one algorithm");
  return t;
}

void check_template_holds(const NetworkTemplate& t, int64_t gpus) {
  const size_t last = t.dimensions.size() - 1;
  const DimensionTemplate& d = t.dimensions[last];
  if (!d.size_all && d.size.values.back() < static_cast<double>(gpus)) {
    throw Error(t.file, fmt::format("dimensions[{}].size", last),
                fmt::format("is at most {}; the last dimension must hold all {} GPUs of --gpus (or write size: all)",
                            d.size.values.back(), gpus));
  }
  for (size_t i = 0; i <= last; ++i) {
    const DimensionTemplate& di = t.dimensions[i];
    const double largest = di.size_all ? static_cast<double>(gpus) : std::min(di.size.values.back(), 1.0 * gpus);
    const bool synth = std::find(di.algorithms.begin(), di.algorithms.end(), Algorithm::kSynth) != di.algorithms.end();
    if (synth && largest > static_cast<double>(kMaxSynthDomain)) {
      throw Error(t.file, fmt::format("dimensions[{}].algorithms", i),
                  fmt::format("synth on a domain of {} GPUs; synthesis is offered on domains of at most {} (an "
                              "All-Reduce on a switch of 64 takes about 15 s per message size): use ring or nccl",
                              largest, kMaxSynthDomain));
    }
  }
  for (size_t i = 0; i < last; ++i) {
    if (t.dimensions[i].size.values.front() > static_cast<double>(gpus)) {
      throw Error(
          t.file, fmt::format("dimensions[{}].size", i),
          fmt::format("is at least {}, more than the {} GPUs of --gpus", t.dimensions[i].size.values.front(), gpus));
    }
  }
}

}  // namespace chorus::codesign
