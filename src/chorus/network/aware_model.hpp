// The store-and-forward network model: ASTRA-sim's congestion-aware semantics, on any topology.
//
// A message crosses its route hop by hop. Each link serves one message at a time, first come first served:
// a message that reaches a link at t starts at max(t, link free), holds the link for its serialisation time
// bytes / bandwidth, and reaches the next node latency + bytes / bandwidth after it started (the whole
// message is received before it is forwarded). In ASTRA-sim mode both times are truncated to whole ns per
// hop, as ASTRA-sim's analytical congestion-aware backend does; otherwise they are exact in ps.
// ASTRA-sim runs this only on 1-D topologies; chorus runs it on any.
#pragma once

#include "chorus/collective/astra_compat.hpp"
#include "chorus/collective/schedule.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/resource_routes.hpp"

namespace chorus {

struct AwareRunResult {
  Time makespan;
  uint64_t events = 0;
  LinkStats links;
  std::vector<Time> finish;  // per op
};

AwareRunResult run_aware(const Schedule& schedule, const ResourceRoutes& routes, AstraCompat astra);

// One hop's serialisation time and its total delay (latency + serialisation) under either rounding.
struct HopTime {
  Time serialization;
  Time delay;
};
HopTime hop_time(Bandwidth bandwidth, Time latency, Bytes bytes, AstraCompat astra);

}  // namespace chorus
