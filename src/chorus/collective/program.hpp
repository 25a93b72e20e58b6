// Member programs: what one member of a group does in one phase of a collective.
//
// A built-in algorithm (ring, direct, halving-doubling, the two trees) describes each member's part as
// an ordered list of sends. A send waits for some messages to arrive (each named by its sender and the
// sender's send index), then for a local `pre_delay` (endpoint overhead, reduction of what just arrived),
// then goes to the network. The member is finished `finish` after its last awaited arrivals.
//
// Two consumers:
// - schedule building instantiates every member's program into the Schedule DAG (any topology);
// - the symmetric evaluator runs member 0's program alone, using the fact that in a rotation-symmetric
//   algorithm on a symmetric dimension every member does its k-th send at the same time, so the message
//   "member j's send k" leaves at member 0's own send-k time. That makes a 65,536-NPU ring phase cost
//   O(sends of one member) instead of O(N^2).
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/collective/astra_compat.hpp"
#include "chorus/collective/collective.hpp"
#include "chorus/core/units.hpp"

namespace chorus {

// DoubleBinaryTree is ASTRA-sim's (one whole tree per chunk, alternating); TwoTree is chorus's own (both trees at
// once, half of the buffer each).
enum class AlgorithmKind : uint8_t { Ring, Direct, HalvingDoubling, DoubleBinaryTree, TwoTree };

struct AlgorithmChoice {
  AlgorithmKind kind = AlgorithmKind::Ring;
  uint32_t window = 0;  // Direct only: messages in flight at once; 0 = all peers (p - 1)
};

// Per-message local costs at the endpoints, as ASTRA-sim's system layer charges them.
struct Overheads {
  Time endpoint_delay;               // each message bundle passes the endpoint once (ASTRA-sim `endpoint-delay`)
  double reduction_bytes_per_s = 0;  // local memory bandwidth used by reductions; 0 = reductions are free
  AstraCompat astra;                 // ASTRA-sim compatibility (astra_compat.hpp), carried with the plan
  // Time to reduce `size` received bytes into the local buffer: one write and two reads of local memory.
  Time reduction(Bytes size) const;
};

// One phase: a collective among the `group_size` members of each group of one dimension.
struct PhaseSpec {
  CollectiveKind kind = CollectiveKind::AllReduce;
  AlgorithmChoice algorithm;
  uint32_t group_size = 1;
  Bytes data;  // ASTRA-sim convention: each member's buffer entering the phase (All-Gather: its contribution)
};

struct Arrival {
  uint32_t from = 0;        // sending member
  uint32_t send_index = 0;  // which of the sender's sends
};

struct ProgramSend {
  uint32_t to = 0;
  Bytes bytes;
  Time pre_delay;
  std::vector<Arrival> after;  // empty: may start as soon as the phase starts
};

struct FinishStep {
  Arrival after;
  Time delay;
};

struct MemberProgram {
  std::vector<ProgramSend> sends;
  std::vector<FinishStep> finish;  // the member is done at max(arrival + delay); empty: done after its sends
};

// True if every member's program is member 0's rotated (ring, direct, halving-doubling on the all-to-all
// collectives; never a rooted Broadcast or Reduce, nor a tree): the symmetric evaluator may
// then be used on a dimension whose message cost depends only on member distance.
bool is_rotation_symmetric(const PhaseSpec& phase);

// Member `member`'s program for `phase` on chunk number `chunk` (only ASTRA-sim's doubleBinaryTree depends on
// it). Throws chorus::Error if the algorithm cannot run that collective or group size (e.g. halving-doubling on
// a non-power-of-two group).
MemberProgram member_program(const PhaseSpec& phase, const Overheads& overheads, uint32_t member, uint32_t chunk = 0);

std::string to_string(AlgorithmKind kind);

}  // namespace chorus
