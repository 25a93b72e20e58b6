// Weighted max-min sharing (the runtime's collective-level contention uses it): allocations worked out by hand.
#include <gtest/gtest.h>

#include <array>

#include "chorus/network/flow/maxmin.hpp"

namespace chorus {
namespace {

std::vector<uint32_t> solve(MaxMinSystem& s) {
  std::vector<uint32_t> changed;
  s.solve(changed);
  return changed;
}

TEST(MaxMinWeighted, WeightsShareOneLevel) {
  // Capacity 10; a loads it 1x its rate, b 3x: one common level x with x + 3x = 10, so x = 2.5 for both.
  MaxMinSystem s;
  const uint32_t link = s.add_resource(10);
  const std::array<double, 1> one{1}, three{3};
  const uint32_t a = s.add_flow({&link, 1}, one);
  const uint32_t b = s.add_flow({&link, 1}, three);
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(a), 2.5);
  EXPECT_DOUBLE_EQ(s.rate(b), 2.5);
}

TEST(MaxMinWeighted, ACapResourceBoundsOneFlowAndTheOtherTakesTheRest) {
  // As above, but a also crosses a private resource of capacity 1 (its rate cap): a freezes at 1 first,
  // then b gets (10 - 1) / 3 = 3.
  MaxMinSystem s;
  const uint32_t link = s.add_resource(10);
  const uint32_t cap = s.add_resource(1);
  const std::array<uint32_t, 2> a_route{link, cap};
  const std::array<double, 2> a_weights{1, 1};
  const std::array<double, 1> three{3};
  const uint32_t a = s.add_flow(a_route, a_weights);
  const uint32_t b = s.add_flow({&link, 1}, three);
  solve(s);
  EXPECT_DOUBLE_EQ(s.rate(a), 1);
  EXPECT_DOUBLE_EQ(s.rate(b), 3);
  // When a leaves, b alone gets 10 / 3.
  s.remove_flow(a);
  const std::vector<uint32_t> changed = solve(s);
  EXPECT_EQ(changed, std::vector<uint32_t>{b});
  EXPECT_DOUBLE_EQ(s.rate(b), 10.0 / 3);
}

TEST(MaxMinWeighted, NextFlowIsTheIdAddFlowReturns) {
  MaxMinSystem s;
  const uint32_t link = s.add_resource(1);
  EXPECT_EQ(s.next_flow(), 0u);
  const uint32_t a = s.add_flow({&link, 1});
  const uint32_t b = s.add_flow({&link, 1});
  EXPECT_EQ(s.next_flow(), 2u);
  s.remove_flow(a);
  EXPECT_EQ(s.next_flow(), a);
  EXPECT_EQ(s.add_flow({&link, 1}), a);
  (void)b;
}

}  // namespace
}  // namespace chorus
