// The spreading engine: link-chunk matching on a time-expanded network (TACOS, Won et al., MICRO'24,
// arXiv:2304.05301; restated in shared/reference/tacos.md §3), with chorus's own matching.
//
// Problem: chunks start at an origin node (at a release time); every member must end up holding every chunk.
// Model (TACOS's): a chunk crossing link e occupies it for tau[e] = latency + chunk / bandwidth, one chunk per link
// at a time, store-and-forward: a chunk that arrives at t can leave again at t. Relays (switches) store and
// forward but are not destinations; when `relays_replicate` is false a relay forwards each copy it receives once
// (a switch that cannot multicast, and the time-reversed form of a switch that cannot reduce).
//
// Event-driven: at each event time (an arrival, a release, a link becoming free) every free link whose options
// changed is matched, per destination v, with the chunks v lacks and the link's source holds, as a bipartite
// matching between v's free in-links and those chunks (greedy in order of fewest options, repaired by one
// augmenting step), so no free link idles while a useful chunk exists and no two links carry the same chunk to v.
// Unlike TACOS, a transfer is credited only with a chunk its source held when it started (tacos.md: TACOS's
// "replacement" is not causal), and every choice comes from a seeded generator (deterministic per seed).
//
// Which chunk a link takes, when it has several options (ChunkPriority):
//   Random: the first after a random offset (TACOS's uniform choice);
//   Scarce: the chunk held by the fewest nodes (spread what is rare);
//   Unique: the chunk the fewest other in-neighbours of v hold (carry what only this link can carry soon),
//           then Scarce;
//   Fresh:  the chunk that reached the source last (pipelines chunks along the direction they travel).
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/huge_pages.hpp"
#include "chorus/core/units.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

enum class ChunkPriority : uint8_t { Random, Scarce, Unique, Fresh };

const char* to_string(ChunkPriority priority);

inline constexpr uint32_t kNoTransfer = UINT32_MAX;

struct SpreadProblem {
  const SynthGraph* graph = nullptr;
  std::vector<Time> tau;  // per link: how long one chunk occupies it
  uint32_t chunks = 0;
  std::vector<uint32_t> origin;  // per chunk: the local node that holds it first
  std::vector<Time> release;     // per chunk: when it appears at its origin (empty: all at 0)
  std::vector<Time> link_free;   // per link: when it is first free (empty: all at 0)
  bool relays_replicate = true;
  ChunkPriority priority = ChunkPriority::Unique;
  uint64_t seed = 1;
  uint32_t scan_cap = 48;      // options scored per choice (bounds the cost on dense graphs)
  Time give_up = Time::max();  // stop early once the makespan cannot beat this (auto search)
  // Per link, a bit row of (chunks + 63) / 64 words: the chunks it may carry (empty: every chunk). With a
  // restriction some member may never receive some chunk; the run then stops with `stalled` set.
  std::vector<uint64_t> link_allowed;
};

struct SpreadTransfer {
  uint32_t link = 0;  // local link id
  uint32_t chunk = 0;
  Time start, end;
  uint32_t from = kNoTransfer;  // the transfer that brought the chunk to the source (none: the source is its origin)
};

struct SpreadResult {
  HugeVector<SpreadTransfer> transfers;  // in start order (huge-page backed: 32 MiB at 1,024 NPUs)
  Time makespan;                         // last arrival at a member
  uint64_t events = 0;
  bool gave_up = false;  // stopped because the makespan would reach SpreadProblem::give_up
  bool stalled = false;  // link_allowed left some member without some chunk (gave_up is set too)
};

// Throws InternalError if some member can never receive some chunk (make_synth_graph rules that out) without a
// link_allowed restriction.
SpreadResult spread(const SpreadProblem& problem);

}  // namespace chorus
