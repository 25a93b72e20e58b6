// load_topology (see load.hpp): dispatches to the ASTRA-sim YAML reader, a generator or the edge-list reader,
// and checks the spec and the bandwidth/latency lists so that errors name the argument (the CLI: the option) given.
#include "chorus/topology/load.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <initializer_list>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/topology/astra_network.hpp"
#include "chorus/topology/cluster_generators.hpp"
#include "chorus/topology/edge_list.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/topology/nccl_topo.hpp"

namespace chorus {

namespace {

bool is_generator(std::string_view kind) {
  for (std::string_view known : {"ring", "uniring", "fc", "switch", "mesh2d", "mesh3d", "torus2d", "torus3d",
                                 "hypercube", "dgx", "dims", "fattree", "rail", "dragonfly"}) {
    if (kind == known)
      return true;
  }
  return false;
}

[[noreturn]] void bad_spec(std::string_view spec, const std::string& message) {
  throw Error("", Argument{"topology"}, fmt::format("'{}': {}", spec, message));
}

// One positive size, at most max_npus (larger sizes cannot fit in any topology).
uint32_t parse_size(std::string_view spec, std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > max_npus)) {
    bad_spec(spec, fmt::format("size {} is too large; at most {} NPUs are supported", text, max_npus));
  }
  if (ec != std::errc() || end != text.data() + text.size())
    bad_spec(spec, fmt::format("'{}' is not a size", text));
  if (value == 0)
    bad_spec(spec, "sizes must be >= 1");
  return static_cast<uint32_t>(value);
}

// "16x16" -> {16, 16}; the count must match the generator, and the NPUs must fit in max_npus.
std::vector<uint32_t> parse_sizes(std::string_view spec, std::string_view args, size_t expected) {
  std::vector<uint32_t> sizes;
  uint64_t product = 1;
  for (size_t start = 0;;) {
    const size_t x = args.find('x', start);
    sizes.push_back(parse_size(spec, args.substr(start, x == std::string_view::npos ? x : x - start)));
    product *= sizes.back();
    if (product > max_npus)
      bad_spec(spec, fmt::format("gives more than {} NPUs, the supported maximum", max_npus));
    if (x == std::string_view::npos)
      break;
    start = x + 1;
  }
  if (sizes.size() != expected) {
    bad_spec(spec, fmt::format("expected {} size{} separated by 'x', found {}", expected, expected == 1 ? "" : "s",
                               sizes.size()));
  }
  return sizes;
}

BlockKind parse_block(std::string_view spec, std::string_view name) {
  if (name == "ring")
    return BlockKind::Ring;
  if (name == "uniring")
    return BlockKind::UniRing;
  if (name == "fc")
    return BlockKind::FullyConnected;
  if (name == "switch")
    return BlockKind::Switch;
  if (name == "mesh")
    return BlockKind::Mesh;
  bad_spec(spec, fmt::format("unknown block '{}'; expected ring, uniring, fc, switch or mesh", name));
}

// "ring8,fc8,switch8" -> dimensions with sizes only; bandwidth and latency are filled in later.
std::vector<Dimension> parse_dims(std::string_view spec, std::string_view args) {
  std::vector<Dimension> dims;
  uint64_t product = 1;
  for (size_t start = 0;;) {
    const size_t comma = args.find(',', start);
    const std::string_view entry = args.substr(start, comma == std::string_view::npos ? comma : comma - start);
    const size_t digits = entry.find_first_of("0123456789");
    if (digits == 0 || digits == std::string_view::npos) {
      bad_spec(spec, fmt::format("dimension '{}' must be a block name and a size, e.g. ring8", entry));
    }
    Dimension dim;
    dim.kind = parse_block(spec, entry.substr(0, digits));
    dim.size = parse_size(spec, entry.substr(digits));
    product *= dim.size;
    if (product > max_npus)
      bad_spec(spec, fmt::format("gives more than {} NPUs, the supported maximum", max_npus));
    dims.push_back(dim);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return dims;
}

// "k=16,oversub=2" -> values of the keys in `keys` (in that order), `defaults` for the keys not given; 0 marks
// a key that must be given.
std::vector<uint32_t> parse_keyed(std::string_view spec, std::string_view args,
                                  std::initializer_list<std::string_view> keys, std::vector<uint32_t> values) {
  std::vector<char> seen(keys.size(), 0);
  for (size_t start = 0; !args.empty();) {
    const size_t comma = args.find(',', start);
    const std::string_view entry = args.substr(start, comma == std::string_view::npos ? comma : comma - start);
    const size_t equals = entry.find('=');
    const std::string_view key = entry.substr(0, equals);
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (equals == std::string_view::npos || it == keys.end()) {
      bad_spec(spec, fmt::format("'{}' is not one of {}=, each as key=value", entry, fmt::join(keys, "=, ")));
    }
    const auto index = static_cast<size_t>(it - keys.begin());
    if (seen[index])
      bad_spec(spec, fmt::format("'{}' is given twice", key));
    seen[index] = 1;
    values[index] = parse_size(spec, entry.substr(equals + 1));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (values[i] == 0)
      bad_spec(spec, fmt::format("missing '{}='", *(keys.begin() + i)));
  }
  return values;
}

// Expands the bandwidth and latency arguments to one LinkParams per dimension: a single value applies to all of them.
std::vector<LinkParams> link_params(const TopologyRequest& request, size_t dimensions, const std::string& what) {
  const auto check_count = [&](size_t count, const char* keyword) {
    if (count == 0)
      throw Error("", Argument{keyword}, fmt::format("missing; generator '{}' needs it", request.spec));
    if (count != 1 && count != dimensions) {
      throw Error("", Argument{keyword},
                  fmt::format("has {} values; give one for all or one per {} ({})", count, what, dimensions));
    }
  };
  check_count(request.bandwidths.size(), "bandwidth");
  check_count(request.latencies.size(), "latency");
  std::vector<LinkParams> links;
  for (size_t d = 0; d < dimensions; ++d) {
    const Bandwidth bw = request.bandwidths[request.bandwidths.size() == 1 ? 0 : d];
    const Time lat = request.latencies[request.latencies.size() == 1 ? 0 : d];
    if (!(bw.bytes_per_second() > 0))
      throw Error("", Argument{"bandwidth"}, fmt::format("is {}; must be > 0", to_string(bw)));
    if (lat < Time::zero())
      throw Error("", Argument{"latency"}, fmt::format("is {}; must be >= 0", to_string(lat)));
    if (lat > Time::ps(limits::kMaxLinkLatencyPs))
      throw Error("", Argument{"latency"},
                  fmt::format("is {}; must be at most 1 s (kMaxLinkLatencyPs)", to_string(lat)));
    links.push_back(LinkParams{bw, lat});
  }
  return links;
}

// Refuses a topology of more NPUs than the request allows, before it is built (building 2^24 NPUs alone takes
// most of a minute).
void check_npu_limit(const TopologyRequest& request, const std::string& name, uint64_t npus) {
  if (npus > request.max_npus) {
    throw Error(name, "npus",
                fmt::format("{} NPUs; this command handles at most {} ({} in src/chorus/core/limits.hpp)", npus,
                            request.max_npus, request.max_npus_name));
  }
}

// The NPU count of a generator spec, from its sizes alone (dgx: nodes x GPUs; hypercube: 2^D).
uint64_t generated_npus(std::string_view kind, const std::vector<uint32_t>& sizes) {
  if (kind == "hypercube")
    return sizes[0] >= 64 ? UINT64_MAX : uint64_t{1} << sizes[0];
  uint64_t product = 1;
  for (const uint32_t size : sizes)
    product = __builtin_mul_overflow(product, uint64_t{size}, &product) ? UINT64_MAX : product;
  return product;
}

// The cluster fabrics of cluster_generators.hpp, whose specs are key=value lists.
Topology generate_cluster(const TopologyRequest& request, std::string_view kind, std::string_view args) {
  const std::string_view spec = request.spec;
  const std::string name(spec);
  if (kind == "fattree") {
    const std::vector<uint32_t> v = parse_keyed(spec, args, {"k", "oversub"}, {0, 1});
    check_npu_limit(request, name, generated_npus(kind, {v[0], v[0] / 2, v[0] / 2, v[1]}));
    const std::vector<LinkParams> l = link_params(request, 2, "level: host, fabric");
    return fat_tree(FatTreeShape{v[0], v[1]}, l[0], l[1]);
  }
  if (kind == "rail") {
    const std::vector<uint32_t> v =
        parse_keyed(spec, args, {"nodes", "gpus", "unit", "spines", "oversub"}, {0, 8, 32, 0, 1});
    check_npu_limit(request, name, generated_npus(kind, {v[0], v[1]}));
    const std::vector<LinkParams> l = link_params(request, 2, "level: nvlink, nic");
    return rail_fabric(RailShape{v[0], v[1], v[2], v[3], v[4]}, l[0], l[1]);
  }
  const std::vector<uint32_t> v = parse_keyed(spec, args, {"p", "a", "h"}, {0, 0, 0});
  const auto groups = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{v[1]} * v[2] + 1, UINT32_MAX));
  check_npu_limit(request, name, generated_npus(kind, {groups, v[1], v[0]}));
  const std::vector<LinkParams> l = link_params(request, 3, "level: terminal, local, global");
  return dragonfly(DragonflyShape{v[0], v[1], v[2]}, l[0], l[1], l[2]);
}

Topology generate(const TopologyRequest& request, std::string_view kind, std::string_view args) {
  const std::string_view spec = request.spec;
  const std::string name(spec);
  if (kind == "fattree" || kind == "rail" || kind == "dragonfly")
    return generate_cluster(request, kind, args);
  if (kind == "dgx") {
    const std::vector<uint32_t> s = parse_sizes(spec, args, 2);
    check_npu_limit(request, name, generated_npus(kind, s));
    const std::vector<LinkParams> l = link_params(request, 2, "level: intra-node, inter-node");
    return dgx(s[0], s[1], l[0], l[1]);
  }
  if (kind == "hypercube") {
    const uint32_t d = parse_size(spec, args);
    if (d > 24)
      bad_spec(spec, fmt::format("hypercube of {} dimensions; at most 24 are supported", d));
    check_npu_limit(request, name, generated_npus(kind, {d}));
    return hypercube(d, link_params(request, d, "dimension"));
  }
  if (kind == "dims") {
    std::vector<Dimension> dims = parse_dims(spec, args);
    std::vector<uint32_t> sizes;
    for (const Dimension& dim : dims)
      sizes.push_back(dim.size);
    check_npu_limit(request, name, generated_npus(kind, sizes));
    const std::vector<LinkParams> l = link_params(request, dims.size(), "dimension");
    for (size_t d = 0; d < dims.size(); ++d) {
      dims[d].bandwidth = l[d].bandwidth;
      dims[d].latency = l[d].latency;
    }
    return compose(std::move(dims), std::string(spec));
  }
  const size_t rank = kind.ends_with("3d") ? 3 : kind.ends_with("2d") ? 2 : 1;
  const std::vector<uint32_t> s = parse_sizes(spec, args, rank);
  check_npu_limit(request, name, generated_npus(kind, s));
  const std::vector<LinkParams> l = link_params(request, rank, "dimension");
  if (kind == "ring")
    return ring(s[0], l[0]);
  if (kind == "uniring")
    return uniring(s[0], l[0]);
  if (kind == "fc")
    return fully_connected(s[0], l[0]);
  if (kind == "switch")
    return switch_star(s[0], l[0]);
  if (kind == "mesh2d")
    return mesh2d(s[0], s[1], l[0], l[1]);
  if (kind == "torus2d")
    return torus2d(s[0], s[1], l[0], l[1]);
  if (kind == "mesh3d")
    return mesh3d(s[0], s[1], s[2], l[0], l[1], l[2]);
  return torus3d(s[0], s[1], s[2], l[0], l[1], l[2]);
}

// The file formats carry their own bandwidths and latencies; a flag that would be ignored is an error.
void reject_link_flags(const TopologyRequest& request, const std::string& what) {
  if (!request.bandwidths.empty() || !request.latencies.empty()) {
    throw Error("", Argument{"bandwidth/latency"}, fmt::format("not allowed with {}; the file sets them", what));
  }
}

}  // namespace

Topology load_topology(const TopologyRequest& request) {
  if (request.network_file.empty() == request.spec.empty()) {
    throw Error("", Argument{"network/topology"}, "give exactly one of a network file and a topology spec");
  }
  if (!request.network_file.empty()) {
    reject_link_flags(request, "--network");
    Topology topology = load_astra_network(request.network_file);
    check_npu_limit(request, request.network_file, topology.npu_count());
    return topology;
  }
  const std::string& spec = request.spec;
  const size_t colon = spec.find(':');
  const std::string_view kind = std::string_view(spec).substr(0, colon);
  if (colon != std::string::npos && is_generator(kind)) {
    return generate(request, kind, std::string_view(spec).substr(colon + 1));
  }
  // A path may contain ':'; only a prefix that names no file is reported as an unknown generator.
  if (colon != std::string::npos && !std::filesystem::exists(spec)) {
    bad_spec(spec, fmt::format("unknown topology kind '{}'; expected ring, uniring, fc, switch, mesh2d, mesh3d, "
                               "torus2d, torus3d, hypercube, dgx, dims, fattree, rail, dragonfly, an NCCL topology .xml "
                               "or an edge-list file",
                               kind));
  }
  // NCCL's topology dump (NCCL_TOPO_DUMP_FILE) is XML; every other file is an edge list.
  if (spec.ends_with(".xml")) {
    reject_link_flags(request, "an NCCL topology file");
    Topology topology = load_nccl_topology(spec);
    check_npu_limit(request, spec, topology.npu_count());
    return topology;
  }
  reject_link_flags(request, "an edge-list file");
  Topology topology = load_edge_list(spec);
  check_npu_limit(request, spec, topology.npu_count());
  return topology;
}

}  // namespace chorus
