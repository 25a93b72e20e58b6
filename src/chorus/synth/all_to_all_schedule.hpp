// List scheduling of routed All-to-All chunks on the time-expanded network (all_to_all.hpp routes them): each
// link, when free, takes one of the chunks waiting for it (arrived, not merely planned), so no link idles while a
// chunk waits.
//
// Which chunk: `Fifo` the one that arrived first (most hops still ahead on ties, then the lower route id);
// `Critical` the one with the most hops ahead (then the lower route id). Cost per hop is O(1) for Fifo: a chunk
// waits at one link at a time, so each link's queue is a list threaded through the routes (arrivals come in time
// order; only simultaneous arrivals at one link are sorted, among themselves), and the events (a hop ends: its
// link frees, its chunk arrives at the next link) are kept in one FIFO per distinct hop duration, each sorted by
// construction since every event is pushed at now + duration; a binary heap takes over when durations are too
// many (non-uniform demand on heterogeneous links). Critical keeps a heap per link (small groups only).
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

// Routes as flat arrays: route q crosses links[begin[q] .. begin[q + 1]).
struct AllToAllRoutes {
  std::vector<uint32_t> begin{0};
  std::vector<uint32_t> links;
  std::vector<uint32_t> chunk;        // (j * n + source) * n + destination
  std::vector<uint32_t> chunk_class;  // index into HopDurations::bytes

  uint32_t size() const { return static_cast<uint32_t>(chunk.size()); }
};

// How long a chunk of a given byte class occupies a link: latency + bytes / bandwidth, tabulated per (class, link)
// unless classes x links exceed kMaxTable (a non-uniform demand with many distinct pair sizes).
class HopDurations {
 public:
  HopDurations(const SynthGraph& graph, std::vector<int64_t> class_bytes);
  int64_t operator()(uint32_t link, uint32_t chunk_class) const {
    if (!ps_.empty())
      return ps_[size_t{chunk_class} * links_ + link];
    return (graph_.latency(link) + transfer_time(Bytes(bytes_[chunk_class]), graph_.bandwidth(link))).picoseconds();
  }
  int64_t class_bytes(uint32_t chunk_class) const { return bytes_[chunk_class]; }

 private:
  static constexpr uint64_t kMaxTable = uint64_t{1} << 22;
  const SynthGraph& graph_;
  uint32_t links_;
  std::vector<int64_t> bytes_;
  std::vector<int64_t> ps_;
};

struct AllToAllHop {
  uint32_t link = 0;   // local link id
  uint32_t chunk = 0;  // (j * n + source) * n + destination, local ranks
  Time start, end;
  uint32_t previous = UINT32_MAX;  // the hop that brought the chunk to this hop's source
};

enum class WaitOrder : uint8_t { Fifo, Critical };

struct ListSchedule {
  std::vector<AllToAllHop> hops;  // in start order (a topological order)
  Time makespan;
};

ListSchedule list_schedule(const SynthGraph& graph, const AllToAllRoutes& routes, const HopDurations& durations,
                           WaitOrder order);

}  // namespace chorus
