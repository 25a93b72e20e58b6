// Fast exact evaluation of hierarchical collectives under the congestion-unaware model, without building the
// schedule, for rotation-symmetric algorithms on symmetric dimensions.
//
// Why it is exact: on a Ring, UniRing, FullyConnected or Switch dimension the DimensionalCost of a message
// depends only on the distance between sender and receiver, and in a ring, direct or halving-doubling phase
// every member runs the same program rotated. So every member makes its k-th send at the same instant, and
// member 0's program alone gives the phase time. Chunks then form a flow shop: phase j of chunk c starts when
// phase j-1 of chunk c and phase j of chunk c - active_chunks are done. This is what build_schedule() +
// run_unaware() compute op by op; tests check that both agree.
// Cost: O(sends of one member per phase + chunks * phases), e.g. a 65,536-NPU ring All-Reduce in milliseconds.
#pragma once

#include "chorus/collective/hierarchical.hpp"
#include "chorus/network/message_cost.hpp"

namespace chorus {

bool can_evaluate_symmetrically(const CollectivePlan& plan, const Topology& topology);

// Time from the common start of a phase to the end of member 0's part of it.
Time symmetric_phase_time(const PhaseSpec& phase, const Overheads& overheads, const DimensionalCost& cost,
                          size_t network_dimension);

Time symmetric_collective_time(const CollectivePlan& plan, const DimensionalCost& cost);

}  // namespace chorus
