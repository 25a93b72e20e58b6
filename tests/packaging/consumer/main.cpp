// A downstream program built against an installed chorus (find_package(chorus) + chorus::chorus): a ring
// All-Gather on ring:8 through the library, printing its time in picoseconds.
#include <cstdio>

#include "chorus/core/version.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/generators.hpp"

int main() {
  const chorus::Topology topology =
      chorus::ring(8, chorus::LinkParams{chorus::Bandwidth::gb_per_s(50), chorus::Time::us(1)});
  const chorus::Collective all_gather{chorus::CollectiveKind::AllGather, chorus::Bytes(8'000'000), 8};
  const chorus::CollectiveRunResult result = chorus::run_collective(topology, all_gather, {});
  std::printf("chorus %s time_ps=%lld\n", CHORUS_VERSION, static_cast<long long>(result.time.picoseconds()));
  return 0;
}
