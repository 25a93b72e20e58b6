// Links grouped by dimension or bandwidth tier (see link_groups.hpp).
#include "chorus/topology/link_groups.hpp"

#include <map>
#include <optional>

#include <fmt/format.h>

namespace chorus {

std::string link_group_name(const Topology& t, LinkId l) {
  const NodeId a = t.link_src(l);
  const NodeId b = t.link_dst(l);
  const auto& dims = t.dimensions();
  if (t.is_npu(a) && t.is_npu(b)) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (t.coordinate(a, d) != t.coordinate(b, d))
        return fmt::format("dim {}: {}, {}", d, to_string(dims[d].kind), to_string(dims[d].bandwidth));
    }
  }
  std::optional<size_t> match;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].bandwidth == t.link_bandwidth(l) && dims[d].latency == t.link_latency(l))
      match = match ? std::optional<size_t>() : std::optional<size_t>(d);
  }
  if (match)
    return fmt::format("dim {}: {}, {}", *match, to_string(dims[*match].kind), to_string(dims[*match].bandwidth));
  return fmt::format("tier {}", to_string(t.link_bandwidth(l)));
}

LinkGroups group_links(const Topology& t) {
  std::vector<std::string> link_names(t.link_count());
  std::map<std::string, uint32_t> index;
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    link_names[l] = link_group_name(t, LinkId{l});
    index.emplace(link_names[l], 0);
  }
  LinkGroups g;
  for (auto& [name, i] : index) {
    i = static_cast<uint32_t>(g.names.size());
    g.names.push_back(name);
  }
  g.of_link.resize(t.link_count());
  g.capacity.assign(g.names.size(), Bandwidth{});
  g.links.assign(g.names.size(), 0);
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    const uint32_t group = index.at(link_names[l]);
    g.of_link[l] = group;
    g.capacity[group] = g.capacity[group] + t.link_bandwidth(LinkId{l});
    ++g.links[group];
  }
  return g;
}

}  // namespace chorus
