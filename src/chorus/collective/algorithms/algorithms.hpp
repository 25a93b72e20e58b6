// Internal: the member-program generators of the built-in algorithms, one file each.
#pragma once

#include "chorus/collective/program.hpp"

namespace chorus::algorithms {

MemberProgram ring(const PhaseSpec& phase, const Overheads& overheads, uint32_t member);
MemberProgram direct(const PhaseSpec& phase, const Overheads& overheads, uint32_t member);
MemberProgram halving_doubling(const PhaseSpec& phase, const Overheads& overheads, uint32_t member);
// ASTRA-sim's doubleBinaryTree: chunk `chunk` runs on one whole binary tree, the two trees alternating by chunk.
MemberProgram double_binary_tree(const PhaseSpec& phase, const Overheads& overheads, uint32_t member, uint32_t chunk);
// chorus's two-tree All-Reduce: both trees at once, each carrying half of the buffer.
MemberProgram two_tree(const PhaseSpec& phase, const Overheads& overheads, uint32_t member);
// Broadcast from / Reduce to member 0: a chain (ring) or a star (direct).
MemberProgram rooted(const PhaseSpec& phase, const Overheads& overheads, uint32_t member);

// ASTRA-sim's packet bookkeeping: the k-th packet a stream inserts alternates between a round of `zero`
// packets that go straight to the memory bus and a round of `nonzero` packets received from the network;
// a received packet is reduced if the phase is a Reduce-Scatter, or the first half of an All-Reduce.
struct InsertRule {
  uint32_t zero_per_round = 1;
  uint32_t nonzero_per_round = 1;
  bool reduce_scatter = false;
  bool all_reduce = false;
  // Local delay of the bundle of insert #k carrying `bytes`.
  Time delay(uint64_t k, Bytes bytes, const Overheads& overheads) const;
};

}  // namespace chorus::algorithms
