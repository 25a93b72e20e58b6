// A subgroup's collectives as the runtime times them: All-to-All direct on a logical switch (each member's port
// carries its n - 1 shares once), the others on the logical ring, worked out by hand.
#include <gtest/gtest.h>

#include "chorus/runtime/collective_timer.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

TEST(CollectiveTimer, SubgroupAllToAllRunsDirectNearItsBound) {
  // 16 NPUs on one switch at 100 GB/s per port, no latency; the group is NPUs 0-7. Each member sends 7 shares of
  // 8 MiB / 8 through its port: 7/8 x 8 MiB / 100 GB/s = 73.400 us (a ring All-to-All would carry each share up to
  // 4 hops: about 4x this).
  const Topology t = compose({Dimension{BlockKind::Switch, 16, Bandwidth::gb_per_s(100), Time::zero()}});
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  CollectiveTimer timer(t, options);
  const std::vector<uint32_t> members{0, 1, 2, 3, 4, 5, 6, 7};
  const TimedCollective a2a = timer.time(chakra::CommType::AllToAll, Bytes(8 << 20), members);
  EXPECT_NEAR(a2a.duration.microseconds(), 7.0 / 8 * (8 << 20) / 100e9 * 1e6, 0.01);
  // The All-Reduce of the same group stays a ring: 2 x 7/8 x 8 MiB / 100 GB/s.
  const TimedCollective ar = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), members);
  EXPECT_NEAR(ar.duration.microseconds(), 2 * 7.0 / 8 * (8 << 20) / 100e9 * 1e6, 0.01);
}

}  // namespace
}  // namespace chorus
