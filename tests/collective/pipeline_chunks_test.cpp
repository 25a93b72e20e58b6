// Default chunk count of a pipelined chain: the closed-form optimum of T(k) = (p - 2 + k)(a + b / k) and its
// generalisation to unequal hops, checked against hand values and a brute-force search over k.
#include <gtest/gtest.h>

#include "chorus/collective/pipeline_chunks.hpp"

namespace chorus {
namespace {

uint32_t brute_force(const std::vector<ChainHop>& hops, uint32_t cap) {
  uint32_t best = 1;
  for (uint32_t k = 2; k <= cap; ++k) {
    if (chain_time(hops, k) < chain_time(hops, best))
      best = k;
  }
  return best;
}

// ring:8 at 50 GB/s and 1 us: b = 64 MiB / 50 GB/s = 1342177.28 ns on each of 7 hops.
// k0 = sqrt(6 * 1342177.28 / 1000) = 89.74; T(89) = 95 * 16080.64 ns > T(90) = 96 * 15913.08 ns.
TEST(PipelineChunks, EqualHopsMatchTheClosedForm) {
  const std::vector<ChainHop> hops(7, ChainHop{Time::us(1), Time::ps(1342177280)});
  EXPECT_EQ(optimal_chain_chunks(hops, Bytes::mib(64)), 90u);
  EXPECT_EQ(brute_force(hops, kMaxChainChunks), 90u);
  EXPECT_NEAR(chain_time(hops, 90), 96 * (1e6 + 1342177280.0 / 90), 1.0);
  EXPECT_NEAR(chain_time(hops, 1), 7 * (1e6 + 1342177280.0), 1.0);
}

// One slow hop (3 us, twice the data time): T(k) = (A - a*) + (B - b*)/k + k a* + b*, minimised at
// sqrt((B - b*) / a*) = sqrt(6 * 1342177.28 / 3000) = 51.8.
TEST(PipelineChunks, UnequalHopsMatchABruteForceSearch) {
  std::vector<ChainHop> hops(6, ChainHop{Time::us(1), Time::ps(1342177280)});
  hops.push_back({Time::us(3), Time::ps(2684354560)});
  const uint32_t k = optimal_chain_chunks(hops, Bytes::mib(64));
  EXPECT_TRUE(k == 51u || k == 52u) << k;
  EXPECT_EQ(k, brute_force(hops, kMaxChainChunks));
}

TEST(PipelineChunks, ClampsAtTheEdges) {
  // No latency: more chunks always help, up to the cap, and never more chunks than bytes.
  const std::vector<ChainHop> free_hops(7, ChainHop{Time::zero(), Time::us(100)});
  EXPECT_EQ(optimal_chain_chunks(free_hops, Bytes::mib(64)), kMaxChainChunks);
  EXPECT_EQ(optimal_chain_chunks(free_hops, Bytes(10)), 10u);
  // A single hop has nothing to pipeline.
  EXPECT_EQ(optimal_chain_chunks({ChainHop{Time::us(1), Time::us(100)}}, Bytes::mib(64)), 1u);
  // Latency-bound: a tiny buffer stays whole (k0 = sqrt(6 * 1 ns / 1 us) < 1).
  EXPECT_EQ(optimal_chain_chunks(std::vector<ChainHop>(7, ChainHop{Time::us(1), Time::ns(1)}), Bytes(50)), 1u);
}

}  // namespace
}  // namespace chorus
