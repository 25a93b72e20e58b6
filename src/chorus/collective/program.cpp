// Dispatch to the built-in algorithms and the shared endpoint-cost rules.
#include "chorus/collective/program.hpp"

#include <cmath>

#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

Time Overheads::reduction(Bytes size) const {
  if (reduction_bytes_per_s <= 0)
    return Time::zero();
  if (astra.whole_ns_rounding) {
    // ASTRA-sim: 3 * floor(bytes / local-mem-bw[GB/s]) ns, with GB = 1e9 B.
    const double per_ns = reduction_bytes_per_s / 1e9;
    return Time::ns(3 * static_cast<int64_t>(std::floor(static_cast<double>(size.count()) / per_ns)));
  }
  return transfer_time(size * 3, Bandwidth::bytes_per_s(reduction_bytes_per_s));
}

bool is_rotation_symmetric(const PhaseSpec& phase) {
  const bool rooted = phase.kind == CollectiveKind::Broadcast || phase.kind == CollectiveKind::Reduce;
  const bool tree =
      phase.algorithm.kind == AlgorithmKind::DoubleBinaryTree || phase.algorithm.kind == AlgorithmKind::TwoTree;
  return !rooted && !tree;
}

std::string to_string(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::Ring:
      return "ring";
    case AlgorithmKind::Direct:
      return "direct";
    case AlgorithmKind::HalvingDoubling:
      return "halvingDoubling";
    case AlgorithmKind::DoubleBinaryTree:
      return "doubleBinaryTree";
    case AlgorithmKind::TwoTree:
      return "twoTree";
  }
  return "?";
}

MemberProgram member_program(const PhaseSpec& phase, const Overheads& overheads, uint32_t member, uint32_t chunk) {
  if (phase.kind == CollectiveKind::Broadcast || phase.kind == CollectiveKind::Reduce)
    return algorithms::rooted(phase, overheads, member);
  switch (phase.algorithm.kind) {
    case AlgorithmKind::Ring:
      return algorithms::ring(phase, overheads, member);
    case AlgorithmKind::Direct:
      return algorithms::direct(phase, overheads, member);
    case AlgorithmKind::HalvingDoubling:
      return algorithms::halving_doubling(phase, overheads, member);
    case AlgorithmKind::DoubleBinaryTree:
      return algorithms::double_binary_tree(phase, overheads, member, chunk);
    case AlgorithmKind::TwoTree:
      return algorithms::two_tree(phase, overheads, member);
  }
  return {};
}

namespace algorithms {

Time InsertRule::delay(uint64_t k, Bytes bytes, const Overheads& overheads) const {
  const uint64_t round_length = zero_per_round + nonzero_per_round;
  const uint64_t round = k / round_length;
  const bool zero = k % round_length < zero_per_round;
  // The first round of an All-Reduce reduces (its reduce-scatter half); later rounds only forward.
  const bool reduces = !zero && (reduce_scatter || (all_reduce && round % 2 == 0));
  return overheads.endpoint_delay + (reduces ? overheads.reduction(bytes) : Time::zero());
}

}  // namespace algorithms
}  // namespace chorus
