// LIBRA input readers (see libra_inputs.hpp). YAML through yaml-cpp; the workload is whitespace text.
#include "chorus/netopt/libra_inputs.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "chorus/core/error.hpp"
#include "chorus/core/strict_number.hpp"
#include "chorus/io/text_file.hpp"
#include "chorus/topology/astra_network.hpp"

namespace chorus::netopt {

uint64_t NetworkShape::npu_count() const {
  uint64_t n = 1;
  for (uint32_t s : sizes)
    n *= s;
  return n;
}

namespace {

YAML::Node parse_yaml(const std::string& path) {
  YAML::Node root = load_yaml_file(path);
  if (!root.IsMap())
    throw Error(path, "", "expected a mapping at the top level");
  return root;
}

void check_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& prefix = "") {
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (!allowed.count(key)) {
      std::string list;
      for (const std::string& a : allowed)
        list += (list.empty() ? "" : ", ") + a;
      throw Error(path, prefix + key, fmt::format("unknown key; expected {}", list));
    }
  }
}

double parse_number(const std::string& text, const std::string& path, const std::string& field) {
  return parse_strict_number(text, path, field);
}

double yaml_number(const YAML::Node& node, const std::string& path, const std::string& field) {
  if (!node.IsScalar())
    throw Error(path, field, "must be a number");
  return parse_number(node.Scalar(), path, field);
}

YAML::Node yaml_list(const YAML::Node& root, const std::string& key, const std::string& path) {
  const YAML::Node node = root[key];
  if (!node)
    throw Error(path, key, "missing key");
  if (!node.IsSequence() || node.size() == 0)
    throw Error(path, key, "must be a non-empty list, one entry per dimension");
  return node;
}

}  // namespace

std::optional<BlockKind> parse_block(const std::string& name) {
  return parse_astra_block(name);
}

NetworkShape load_libra_network(const std::string& path) {
  const YAML::Node root = parse_yaml(path);
  check_keys(path, root, {"Topology", "NpusCount", "CostDimension"});
  const YAML::Node topology = yaml_list(root, "Topology", path);
  const YAML::Node sizes = yaml_list(root, "NpusCount", path);
  const YAML::Node costs = yaml_list(root, "CostDimension", path);
  if (sizes.size() != topology.size() || costs.size() != topology.size()) {
    throw Error(path, "NpusCount",
                fmt::format("Topology has {} dimensions, NpusCount {} and CostDimension {}; they must match",
                            topology.size(), sizes.size(), costs.size()));
  }
  NetworkShape shape;
  uint64_t npus = 1;  // checked as it grows: 2^24 per dimension would overflow 64 bits by the fourth
  for (size_t d = 0; d < topology.size(); ++d) {
    const std::string field = fmt::format("Topology[{}]", d);
    const auto block = parse_block(topology[d].IsScalar() ? topology[d].Scalar() : "");
    if (!block)
      throw Error(path, field, "unknown building block; expected Ring, FullyConnected or Switch");
    shape.blocks.push_back(*block);
    const double n = yaml_number(sizes[d], path, fmt::format("NpusCount[{}]", d));
    if (n < 2 || n != std::floor(n) || n > double(kMaxNpus)) {
      throw Error(path, fmt::format("NpusCount[{}]", d), fmt::format("is {}; must be an integer >= 2", n));
    }
    shape.sizes.push_back(static_cast<uint32_t>(n));
    npus *= shape.sizes.back();
    if (npus > kMaxNpus) {
      throw Error(path, fmt::format("NpusCount[{}]", d),
                  fmt::format("brings the NPU count above {} (2^24), the most supported", kMaxNpus));
    }
    if (!costs[d].IsScalar())
      throw Error(path, fmt::format("CostDimension[{}]", d), "must be a name");
    shape.cost_dimensions.push_back(costs[d].Scalar());
  }
  return shape;
}

CostModel load_cost_model(const std::string& path) {
  const YAML::Node root = parse_yaml(path);
  CostModel model;
  for (const auto& entry : root) {
    const std::string name = entry.first.Scalar();
    const YAML::Node elements = entry.second;
    if (!elements.IsMap())
      throw Error(path, name, "must map Link/Switch/Nic to $ per GB/s");
    check_keys(path, elements, {"Link", "Switch", "Nic"}, name + ".");
    if (!elements["Link"])
      throw Error(path, name + ".Link", "missing key");
    CostEntry cost;
    cost.link = yaml_number(elements["Link"], path, name + ".Link");
    if (elements["Switch"])
      cost.switch_ = yaml_number(elements["Switch"], path, name + ".Switch");
    if (elements["Nic"])
      cost.nic = yaml_number(elements["Nic"], path, name + ".Nic");
    for (const double v : {cost.link, cost.switch_.value_or(0), cost.nic.value_or(0)}) {
      if (v < 0)
        throw Error(path, name, fmt::format("cost {} is negative", v));
      // Bounded so that a network's cost (up to 2^24 NPUs times bandwidth) and time x cost stay finite.
      if (v > 1e12)
        throw Error(path, name, fmt::format("cost {:g} is above 1e12 $ per GB/s, the most supported", v));
    }
    model[name] = cost;
  }
  if (model.empty())
    throw Error(path, "", "no cost dimensions");
  return model;
}

namespace {

// Sizes and times must be exact in double arithmetic (<= 2^53), which also keeps the time model's terms
// (bytes times group sizes up to 2^24) finite and the convex solver well scaled. 2^53 bytes is 9 PB per
// collective; 2^53 ns is 104 days per layer.
constexpr double kMaxWorkloadValue = 9007199254740992.0;  // 2^53

double workload_value(const std::string& text, const std::string& path, const std::string& field, const char* unit) {
  const double v = parse_number(text, path, field);
  if (v < 0)
    throw Error(path, field, fmt::format("is {}; must be >= 0 {}", v, unit));
  if (v > kMaxWorkloadValue)
    throw Error(path, field,
                fmt::format("is {:g} {}; at most 2^53 = {:.0f} are supported", v, unit, kMaxWorkloadValue));
  return v;
}

LayerCollective parse_collective(const std::string& type, const std::string& bytes, const std::string& path,
                                 const std::string& field) {
  LayerCollective c;
  c.bytes = workload_value(bytes, path, field + "_bytes", "bytes");
  if (type == "NONE")
    return c;
  if (type == "ALLREDUCE")
    c.kind = CollectiveKind::AllReduce;
  if (type == "ALLGATHER")
    c.kind = CollectiveKind::AllGather;
  if (type == "REDUCESCATTER")
    c.kind = CollectiveKind::ReduceScatter;
  if (type == "ALLTOALL")
    c.kind = CollectiveKind::AllToAll;
  if (!c.kind) {
    throw Error(
        path, field + "_type",
        fmt::format("unknown collective '{}'; expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL", type));
  }
  return c;
}

double parse_compute(const std::string& text, const std::string& path, const std::string& field) {
  return workload_value(text, path, field, "ns");
}

}  // namespace

Workload load_workload(const std::string& path) {
  std::istringstream in(read_text_file(path));
  Workload workload;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;)
      f.push_back(w);
    if (f.empty())
      continue;
    // ASTRA-sim 1.0 files may open with a parallelism keyword and a layer count; LIBRA's do not.
    if (workload.layers.empty() && f.size() <= 2 && line_no <= 2)
      continue;
    const std::string where = fmt::format("line {}", line_no);
    if (f.size() != 12) {
      throw Error(path, where, fmt::format("has {} fields; an ASTRA-sim 1.0 layer has 12", f.size()));
    }
    Layer layer;
    layer.name = f[0];
    layer.forward_ns = parse_compute(f[2], path, where + ": fwd_compute");
    layer.forward = parse_collective(f[3], f[4], path, where + ": fwd_comm");
    layer.input_grad_ns = parse_compute(f[5], path, where + ": ig_compute");
    layer.input_grad = parse_collective(f[6], f[7], path, where + ": ig_comm");
    layer.weight_grad_ns = parse_compute(f[8], path, where + ": wg_compute");
    layer.weight_grad = parse_collective(f[9], f[10], path, where + ": wg_comm");
    layer.update_ns = parse_compute(f[11], path, where + ": update_time");
    workload.layers.push_back(std::move(layer));
  }
  if (workload.layers.empty())
    throw Error(path, "", "no layers");
  return workload;
}

void check_communicator(const Communicator& comm, const NetworkShape& network, const std::string& source) {
  constexpr std::array<const char*, 3> kNames = {"Forward", "InputGrad", "WeightGrad"};
  for (size_t p = 0; p < 3; ++p) {
    const auto& groups = comm.groups[p];
    if (groups.size() != network.dimension_count()) {
      throw Error(
          source, kNames[p],
          fmt::format("has {} entries but the network has {} dimensions", groups.size(), network.dimension_count()));
    }
    for (size_t d = 0; d < groups.size(); ++d) {
      if (groups[d] == 0 || network.sizes[d] % groups[d] != 0) {
        throw Error(source, fmt::format("{}[{}]", kNames[p], d),
                    fmt::format("group of {} does not fit dimension {} of {} NPUs (must divide it)", groups[d], d,
                                network.sizes[d]));
      }
    }
  }
}

Communicator load_communicator(const std::string& path, const NetworkShape& network) {
  const YAML::Node root = parse_yaml(path);
  check_keys(path, root, {"Forward", "InputGrad", "WeightGrad"});
  Communicator comm;
  constexpr std::array<const char*, 3> kNames = {"Forward", "InputGrad", "WeightGrad"};
  for (size_t p = 0; p < 3; ++p) {
    const YAML::Node list = yaml_list(root, kNames[p], path);
    for (size_t d = 0; d < list.size(); ++d) {
      const std::string field = fmt::format("{}[{}]", kNames[p], d);
      const double v = yaml_number(list[d], path, field);
      if (v == -1) {
        comm.groups[p].push_back(1);
      } else if (v >= 1 && v == std::floor(v) && v <= double(kMaxNpus)) {
        comm.groups[p].push_back(static_cast<uint32_t>(v));
      } else {
        throw Error(path, field, fmt::format("is {}; must be a group size >= 1 or -1 (not involved)", v));
      }
    }
  }
  check_communicator(comm, network, path);
  return comm;
}

}  // namespace chorus::netopt
