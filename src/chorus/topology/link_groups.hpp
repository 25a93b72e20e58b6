// Links grouped the way users read a network: by the dimension they belong to (ring, switch, ... of a
// multi-dimensional topology) or, for links no dimension claims, by a tier named after their bandwidth. The HTML
// report's utilisation heat map and the timeline's link-utilisation counter tracks both use these groups.
//
//   const LinkGroups groups = group_links(topology);
//   groups.names[groups.of_link[l]]   // "dim 0: Ring, 50 GB/s"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

// A link's dimension: where its NPU endpoints' coordinates differ, or the one dimension with its bandwidth and
// latency (links to a switch); otherwise a tier named by its bandwidth.
std::string link_group_name(const Topology& topology, LinkId link);

struct LinkGroups {
  std::vector<std::string> names;   // sorted by name
  std::vector<uint32_t> of_link;    // index into names, per link
  std::vector<Bandwidth> capacity;  // sum of the group's link bandwidths
  std::vector<uint32_t> links;      // links in each group
};

LinkGroups group_links(const Topology& topology);

}  // namespace chorus
