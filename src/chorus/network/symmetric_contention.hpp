// Symmetric evaluation of hierarchical collectives under the contention models (aware and flow).
//
// On a dimensional topology whose dimensions are Ring, UniRing, FullyConnected or Switch, ring and direct
// phases are the same for every NPU up to a rotation of each dimension, and halving-doubling phases up to an
// XOR of member indices on FullyConnected and Switch dimensions (where every member pair has its own links).
// Then every NPU's k-th transfer starts and ends at the same time as NPU 0's, and every link of one class
// (a dimension's forward ring links, backward ring links, links to the member at offset o of a full mesh,
// switch up-links, switch down-links) carries the same traffic as NPU 0's. So it suffices to simulate NPU 0's
// transfers over one resource per link class, a message loading a class once per link of that class it crosses:
// a 4096-NPU ring All-Reduce becomes 8190 transfers per chunk instead of 33.5 million.
// The tests check that this gives the same times as the full schedule.
#pragma once

#include <cstdint>

#include "chorus/collective/hierarchical.hpp"
#include "chorus/network/link_stats.hpp"

namespace chorus {

// How the representative transfers share a link class: as the aware model does, or as the flow model does.
enum class ContentionDiscipline : uint8_t { StoreAndForward, MaxMinFair };

bool can_simulate_contention_symmetrically(const CollectivePlan& plan, const Topology& topology);

struct SymmetricContentionResult {
  Time makespan;
  uint64_t events = 0;
  uint64_t representative_transfers = 0;
  // Per physical link: every link of a class carries what NPU 0's traffic puts on that class.
  LinkStats links;
};

SymmetricContentionResult simulate_symmetric_contention(const CollectivePlan& plan, const Topology& topology,
                                                        ContentionDiscipline discipline, AstraCompat astra);

}  // namespace chorus
