// Default chunk count of a pipelined chain (see pipeline_chunks.hpp).
#include "chorus/collective/pipeline_chunks.hpp"

#include <algorithm>
#include <cmath>

namespace chorus {

namespace {

double ps(Time t) {
  return static_cast<double>(t.picoseconds());
}

// The slowest hop: the largest per-chunk time for k chunks.
const ChainHop& slowest(const std::vector<ChainHop>& hops, uint32_t k) {
  return *std::max_element(hops.begin(), hops.end(), [k](const ChainHop& a, const ChainHop& b) {
    return ps(a.alpha) + ps(a.beta) / k < ps(b.alpha) + ps(b.beta) / k;
  });
}

}  // namespace

double chain_time(const std::vector<ChainHop>& hops, uint32_t k) {
  if (hops.empty())
    return 0;
  double total = 0;
  for (const ChainHop& h : hops)
    total += ps(h.alpha) + ps(h.beta) / k;
  const ChainHop& s = slowest(hops, k);
  return total + (k - 1) * (ps(s.alpha) + ps(s.beta) / k);
}

uint32_t optimal_chain_chunks(const std::vector<ChainHop>& hops, Bytes size) {
  if (hops.size() < 2 || size.count() <= 1)
    return 1;
  uint64_t cap = std::min<uint64_t>(kMaxChainChunks, static_cast<uint64_t>(size.count()));
  cap = std::max<uint64_t>(1, std::min<uint64_t>(cap, kMaxChainTransfers / hops.size()));
  // The slowest hop for large k is the one with the largest alpha (ties: the largest beta).
  const ChainHop& s = slowest(hops, static_cast<uint32_t>(cap));
  double rest = 0;
  for (const ChainHop& h : hops)
    rest += ps(h.beta);
  rest -= ps(s.beta);
  double k0 = s.alpha > Time::zero() ? std::sqrt(std::max(0.0, rest) / ps(s.alpha)) : static_cast<double>(cap);
  k0 = std::clamp(k0, 1.0, static_cast<double>(cap));
  const auto lo = static_cast<uint32_t>(std::floor(k0));
  const auto hi = static_cast<uint32_t>(std::min<double>(std::ceil(k0), static_cast<double>(cap)));
  return chain_time(hops, hi) < chain_time(hops, lo) ? hi : lo;
}

}  // namespace chorus
