// ASTRA-sim network YAML reader (see astra_network.hpp). Validation is strict and names the key, because a
// silently ignored typo (say "latencey") would give a plausible-looking but wrong simulation.
#include "chorus/topology/astra_network.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/strict_number.hpp"
#include "chorus/io/text_file.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

namespace {

void check_keys(const std::string& path, const YAML::Node& root) {
  constexpr std::array<std::string_view, 4> kKeys = {"topology", "npus_count", "bandwidth", "latency"};
  if (!root.IsMap()) {
    throw Error(path, "", "expected a mapping with the keys topology, npus_count, bandwidth and latency");
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      throw Error(path, key, "unknown key; expected topology, npus_count, bandwidth or latency");
    }
  }
}

YAML::Node get_list(const std::string& path, const YAML::Node& root, const std::string& key) {
  const YAML::Node node = root[key];
  if (!node)
    throw Error(path, key, "missing key");
  if (!node.IsSequence())
    throw Error(path, key, "must be a list with one entry per dimension");
  return node;
}

// Parses a scalar strictly: yaml-cpp's own conversion would also take ".inf" and leading garbage.
double get_number(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar())
    throw Error(path, field, "must be a number");
  return parse_strict_number(node.Scalar(), path, field);
}

BlockKind get_block(const std::string& path, const YAML::Node& node, const std::string& field) {
  const std::string name = node.IsScalar() ? node.Scalar() : "";
  if (const std::optional<BlockKind> block = parse_astra_block(name))
    return *block;
  if (!node.IsScalar())
    throw Error(path, field, "must be a block name: Ring, FullyConnected or Switch");
  throw Error(path, field, fmt::format("unknown block '{}'; expected Ring, FullyConnected or Switch", name));
}

uint32_t get_npus(const std::string& path, const YAML::Node& node, const std::string& field) {
  const double value = get_number(path, node, field);
  if (value < 2 || value != std::floor(value)) {
    throw Error(path, field, fmt::format("is {}; must be an integer >= 2", node.Scalar()));
  }
  if (value > static_cast<double>(max_npus)) {
    throw Error(path, field, fmt::format("is {}; at most {} NPUs are supported", node.Scalar(), max_npus));
  }
  return static_cast<uint32_t>(value);
}

Bandwidth get_bandwidth(const std::string& path, const YAML::Node& node, const std::string& field) {
  const double value = get_number(path, node, field);
  if (value <= 0)
    throw Error(path, field, fmt::format("is {} GB/s; must be > 0", node.Scalar()));
  const Bandwidth bandwidth = Bandwidth::gib_per_s(value);  // ASTRA-sim's analytical backend reads "GB" as 2^30 B
  if (bandwidth.bytes_per_second() < kMinBandwidthBytesPerS || bandwidth.bytes_per_second() > kMaxBandwidthBytesPerS)
    throw Error(path, field, fmt::format("is {} GB/s; must be between 1e-6 and 1e9 GB/s", node.Scalar()));
  return bandwidth;  // ASTRA-sim's analytical backend reads "GB" as 2^30 bytes
}

Time get_latency(const std::string& path, const YAML::Node& node, const std::string& field) {
  const double value = get_number(path, node, field);
  if (value < 0)
    throw Error(path, field, fmt::format("is {} ns; must be >= 0", node.Scalar()));
  // A second of latency is already absurd; the bound keeps sums of latencies far from overflow.
  if (value * 1000.0 > static_cast<double>(limits::kMaxLinkLatencyPs))
    throw Error(path, field, fmt::format("is {} ns; must be at most 1 s (kMaxLinkLatencyPs)", node.Scalar()));
  return Time::ps(std::llround(value * 1000.0));  // exact for fractional ns such as 936.25
}

std::vector<Dimension> read_dimensions(const std::string& path, const YAML::Node& root) {
  const YAML::Node blocks = get_list(path, root, "topology");
  const YAML::Node npus = get_list(path, root, "npus_count");
  const YAML::Node bandwidths = get_list(path, root, "bandwidth");
  const YAML::Node latencies = get_list(path, root, "latency");
  if (blocks.size() == 0)
    throw Error(path, "topology", "is empty; a network needs at least one dimension");
  const auto check_length = [&](const char* key, const YAML::Node& list) {
    if (list.size() != blocks.size()) {
      throw Error(path, key, fmt::format("has {} entries but topology has {}", list.size(), blocks.size()));
    }
  };
  check_length("npus_count", npus);
  check_length("bandwidth", bandwidths);
  check_length("latency", latencies);
  std::vector<Dimension> dimensions;
  uint64_t total = 1;
  for (size_t d = 0; d < blocks.size(); ++d) {
    Dimension dim;
    dim.kind = get_block(path, blocks[d], fmt::format("topology[{}]", d));
    dim.size = get_npus(path, npus[d], fmt::format("npus_count[{}]", d));
    dim.bandwidth = get_bandwidth(path, bandwidths[d], fmt::format("bandwidth[{}]", d));
    dim.latency = get_latency(path, latencies[d], fmt::format("latency[{}]", d));
    total *= dim.size;
    if (total > max_npus) {
      throw Error(path, "npus_count",
                  fmt::format("multiplies to more than {} NPUs; at most {} are supported", max_npus, max_npus));
    }
    dimensions.push_back(dim);
  }
  return dimensions;
}

}  // namespace

std::optional<BlockKind> parse_astra_block(std::string_view name) {
  if (name == "Ring")
    return BlockKind::Ring;
  if (name == "FullyConnected")
    return BlockKind::FullyConnected;
  if (name == "Switch")
    return BlockKind::Switch;
  return std::nullopt;
}

Topology load_astra_network(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(path, root);
  std::vector<Dimension> dimensions = read_dimensions(path, root);
  return compose(std::move(dimensions), std::filesystem::path(path).stem().string(), path);
}

}  // namespace chorus
