// Max-min fair sharing: small systems whose fair allocation is worked out by hand (progressive filling).
#include <gtest/gtest.h>

#include "chorus/network/flow/maxmin.hpp"

namespace chorus {
namespace {

std::vector<uint32_t> solve(MaxMinSystem& s) {
  std::vector<uint32_t> changed;
  s.solve(changed);
  return changed;
}

TEST(MaxMin, FlowsOnOneLinkShareEqually) {
  MaxMinSystem s;
  const uint32_t link = s.add_resource(50e9);
  const uint32_t a = s.add_flow({&link, 1});
  const uint32_t b = s.add_flow({&link, 1});
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(a), 25e9);
  EXPECT_DOUBLE_EQ(s.rate(b), 25e9);
}

TEST(MaxMin, ParkingLot) {
  // Three links of capacity 1 in a row; a long flow crosses all three, one short flow per link.
  // Every link has two flows, so everyone gets 1/2.
  MaxMinSystem s;
  const uint32_t l[3] = {s.add_resource(1), s.add_resource(1), s.add_resource(1)};
  const uint32_t longest = s.add_flow({l, 3});
  uint32_t shorts[3];
  for (int i = 0; i < 3; ++i)
    shorts[i] = s.add_flow({&l[i], 1});
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(longest), 0.5);
  for (uint32_t f : shorts)
    EXPECT_DOUBLE_EQ(s.rate(f), 0.5);
}

TEST(MaxMin, BottleneckLeavesTheRestToOthers) {
  // Link 1 (capacity 1): A, B. Link 2 (capacity 10): B, C. Link 1 is the bottleneck: A = B = 1/2, then C takes
  // what B leaves on link 2: 10 - 1/2 = 9.5.
  MaxMinSystem s;
  const uint32_t l1 = s.add_resource(1), l2 = s.add_resource(10);
  const uint32_t both[2] = {l1, l2};
  const uint32_t a = s.add_flow({&l1, 1});
  const uint32_t b = s.add_flow(both);
  const uint32_t c = s.add_flow({&l2, 1});
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(a), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(b), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(c), 9.5);
}

TEST(MaxMin, RepeatedResourceCountsAsWeight) {
  // A class of symmetric links: a flow that crosses the class twice loads each link with two copies of itself.
  // Capacity 3 shared by f (twice) and g (once) at a common rate r: 2r + r = 3, r = 1.
  MaxMinSystem s;
  const uint32_t link = s.add_resource(3);
  const uint32_t twice[2] = {link, link};
  const uint32_t f = s.add_flow(twice);
  const uint32_t g = s.add_flow({&link, 1});
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(f), 1);
  EXPECT_DOUBLE_EQ(s.rate(g), 1);
  s.remove_flow(g);
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(f), 1.5);
  EXPECT_EQ(s.flow_count(link), 2u);
}

TEST(MaxMin, OnlyTheAffectedComponentIsResolved) {
  MaxMinSystem s;
  const uint32_t l1 = s.add_resource(1), l2 = s.add_resource(1);
  const uint32_t a = s.add_flow({&l1, 1});
  const uint32_t b = s.add_flow({&l2, 1});
  solve(s);
  const uint32_t c = s.add_flow({&l2, 1});
  const std::vector<uint32_t> changed = solve(s);
  // a's link was not touched: a is neither re-solved nor reported.
  EXPECT_EQ(std::count(changed.begin(), changed.end(), a), 0);
  EXPECT_EQ(std::count(changed.begin(), changed.end(), b), 1);
  EXPECT_EQ(std::count(changed.begin(), changed.end(), c), 1);
  EXPECT_DOUBLE_EQ(s.rate(a), 1);
  EXPECT_DOUBLE_EQ(s.rate(b), 0.5);
  // Removing b gives c the whole link; the freed id is reused.
  s.remove_flow(b);
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(c), 1);
  EXPECT_EQ(s.add_flow({&l1, 1}), b);
}

}  // namespace
}  // namespace chorus
