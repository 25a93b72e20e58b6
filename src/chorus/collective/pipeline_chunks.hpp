// The default chunk count of a pipelined chain (Broadcast / Reduce with `ring`), as NCCL pipelines its chains.
//
// A chain of hops h = 1..p-1, hop h costing a_h + b_h / k per chunk of a buffer cut into k chunks (a_h: latency
// and per-message overheads; b_h: the whole buffer's serialization and reduction time on that hop), runs in
//   T(k) = sum_h (a_h + b_h / k) + (k - 1) (a* + b* / k)
// where (a*, b*) is the slowest hop's: the first chunk crosses every hop, the other k - 1 follow one slowest hop
// apart. dT/dk = 0 gives k0 = sqrt((sum_h b_h - b*) / a*); on p - 1 equal hops T(k) = (p - 2 + k)(a + b / k) and
// k0 = sqrt((p - 2) b / a). The default is the better of floor(k0) and ceil(k0), clamped to [1, kMaxChainChunks]
// and to at most one chunk per byte and kMaxChainTransfers transfers.
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

inline constexpr uint32_t kMaxChainChunks = 1024;
inline constexpr uint64_t kMaxChainTransfers = uint64_t{1} << 24;

struct ChainHop {
  Time alpha;  // per chunk, whatever its size
  Time beta;   // the whole buffer's size-proportional time
};

// T(k) of the formula above, in picoseconds (rounded down).
double chain_time(const std::vector<ChainHop>& hops, uint32_t k);

// The k that minimises chain_time, clamped as described above; 1 for a chain of fewer than 2 hops.
uint32_t optimal_chain_chunks(const std::vector<ChainHop>& hops, Bytes size);

}  // namespace chorus
