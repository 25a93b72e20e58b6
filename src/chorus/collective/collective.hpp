// A collective request: which operation, over how many bytes, among which NPUs.
//
// Size convention (NCCL's, used everywhere in chorus unless a compatibility mode says otherwise):
//   AllReduce, ReduceScatter, AllToAll, Broadcast, Reduce: `size` = the buffer each NPU starts with;
//   AllGather: `size` = the gathered output buffer (each NPU contributes size / N).
// algbw = size / time; busbw = algbw * bus_factor(kind, N), bus_factor per NCCL's PERFORMANCE.md:
//   AllReduce 2(N-1)/N; ReduceScatter, AllGather, AllToAll (N-1)/N; Broadcast, Reduce 1.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "chorus/core/units.hpp"

namespace chorus {

enum class CollectiveKind : uint8_t { AllReduce, ReduceScatter, AllGather, AllToAll, Broadcast, Reduce };

// "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce".
std::string to_string(CollectiveKind kind);
// Accepts the names above (also with '-' or no separator, any case); nullopt otherwise.
std::optional<CollectiveKind> parse_collective_kind(std::string_view text);
// The same for a call's `collective` argument: throws chorus::Error naming Argument{"collective"} otherwise.
CollectiveKind collective_kind_argument(std::string_view text);

// NCCL's bus-bandwidth correction factor for `npus` ranks.
double bus_factor(CollectiveKind kind, uint32_t npus);

// nccl-tests' algbw and busbw in GB/s (1e9 bytes/s): `size` in NCCL's convention moved in `time`; both zero for a
// zero time. `chorus collective`, the workload reports and Python all report bandwidths through this.
struct CollectiveBandwidth {
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};
CollectiveBandwidth collective_bandwidth(CollectiveKind kind, Bytes size, uint32_t npus, Time time);

struct Collective {
  CollectiveKind kind = CollectiveKind::AllReduce;
  Bytes size;
  uint32_t npus = 0;
};

}  // namespace chorus
