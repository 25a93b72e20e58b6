// Topologies shared by the tests that compare the symmetric evaluation with the full schedule: one of each
// symmetric dimension kind, a heterogeneous 2D torus and a 3-level Ring x FullyConnected x Switch network.
#pragma once

#include <vector>

#include "chorus/topology/generators.hpp"

namespace chorus::testing_support {

inline std::vector<Topology> symmetric_test_topologies() {
  const LinkParams link{Bandwidth::gb_per_s(50), Time::us(1)};
  std::vector<Topology> v;
  v.push_back(ring(8, link));
  v.push_back(fully_connected(8, link));
  v.push_back(switch_star(8, link));
  v.push_back(torus2d(4, 4, link, LinkParams{Bandwidth::gb_per_s(25), Time::ns(700)}));
  v.push_back(compose({Dimension{BlockKind::Ring, 4, Bandwidth::gb_per_s(200), Time::ns(100)},
                       Dimension{BlockKind::FullyConnected, 2, Bandwidth::gb_per_s(100), Time::ns(500)},
                       Dimension{BlockKind::Switch, 4, Bandwidth::gb_per_s(50), Time::ns(1000)}}));
  return v;
}

}  // namespace chorus::testing_support
