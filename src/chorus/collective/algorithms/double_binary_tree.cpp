// ASTRA-sim 2.0's `doubleBinaryTree` All-Reduce, message for message (its DoubleBinaryTreeAllReduce over the
// BinaryTree logical topology of one dimension).
//
// Trees. Over p = 2^h members ASTRA-sim builds a complete binary tree of p - 1 nodes numbered in order (left
// subtree, node, right subtree) plus one extra root with a single child, the complete tree's root. In "RootMax"
// the extra root is member p-1 (the complete tree holds members 0..p-2); in "RootMin" it is member 0 (the tree
// holds 1..p-1). With x = member + 1 (RootMax) or x = member (RootMin), a tree node x whose lowest set bit is
// 2^k is a leaf (k = 0) or has children x - 2^(k-1) (left) and x + 2^(k-1) (right); its parent is whichever of
// x - 2^k, x + 2^k has lowest set bit 2^(k+1), and the complete tree's root x = p/2 hangs below the extra root.
// Each NPU's topology hands out RootMax, RootMin, RootMax, ... one tree per chunk: the trees never split data.
//
// Messages (D = the member's whole chunk entering the phase; every message carries all of D; e = the
// endpoint delay, r = the reduction time of D):
//   leaf:          e after the phase starts, send D to the parent; done e after the parent's D arrives.
//   intermediate:  once both children's D have arrived (and the phase started), e + r later send D to the
//                  parent; when the parent's D arrives, e + r later (ASTRA-sim reduces it again) send D to
//                  the left child, then the right child, and be done.
//   root:          e + r after the child's D arrives, send D back to it and be done.
// ASTRA-sim builds this tree only for a power-of-two group (any other size crashes it); chorus refuses the rest.
#include <bit>

#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

namespace {

// Send slots of every member, fixed so that peers can name them.
constexpr uint32_t kUp = 0;
constexpr uint32_t kLeft = 1;  // also the extra root's send to its only child
constexpr uint32_t kRight = 2;
constexpr uint32_t kNone = UINT32_MAX;

// One of ASTRA-sim's two trees over p = 2^h members, in tree coordinates x (see the header comment).
class AstraBinaryTree {
 public:
  AstraBinaryTree(uint32_t p, bool root_max) : p_(p), shift_(root_max ? 1 : 0), extra_root_(root_max ? p : 0) {}

  uint32_t node_of(uint32_t member) const { return member + shift_; }
  uint32_t member_of(uint32_t x) const { return x - shift_; }
  bool is_root(uint32_t x) const { return x == extra_root_; }
  bool is_leaf(uint32_t x) const { return !is_root(x) && (x & 1u) != 0; }

  uint32_t parent(uint32_t x) const {
    if (x == p_ / 2)
      return extra_root_;
    const uint32_t step = low_bit(x);
    return low_bit(x - step) == 2 * step ? x - step : x + step;
  }
  // Children of an intermediate node (the extra root's only child is p/2, returned as left).
  uint32_t left(uint32_t x) const { return is_root(x) ? p_ / 2 : x - low_bit(x) / 2; }
  uint32_t right(uint32_t x) const { return is_root(x) ? kNone : x + low_bit(x) / 2; }
  // The slot in which x's parent sends x its result.
  uint32_t slot_at_parent(uint32_t x) const {
    const uint32_t up = parent(x);
    return is_root(up) || left(up) == x ? kLeft : kRight;
  }

 private:
  static uint32_t low_bit(uint32_t x) { return x & (~x + 1); }

  uint32_t p_;
  uint32_t shift_;
  uint32_t extra_root_;
};

ProgramSend& use_slot(MemberProgram& program, uint32_t slot, uint32_t to, Bytes bytes, Time pre_delay,
                      std::vector<Arrival> after) {
  ProgramSend& send = program.sends[slot];
  send.to = to;
  send.bytes = bytes;
  send.pre_delay = pre_delay;
  send.after = std::move(after);
  return send;
}

}  // namespace

MemberProgram double_binary_tree(const PhaseSpec& phase, const Overheads& overheads, uint32_t member, uint32_t chunk) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (p <= 1)
    return program;
  if (phase.kind != CollectiveKind::AllReduce) {
    throw Error("", "algorithm",
                fmt::format("doubleBinaryTree implements all_reduce only, not {} (ASTRA-sim would run a "
                            "full-size tree All-Reduce in its place); choose ring, direct or halvingDoubling",
                            to_string(phase.kind)));
  }
  if (!std::has_single_bit(p)) {
    throw Error("", "algorithm",
                fmt::format("doubleBinaryTree (ASTRA-sim's) needs a power-of-two group, not {} NPUs; twoTree "
                            "is chorus's double binary tree for any size",
                            p));
  }
  const AstraBinaryTree tree(p, chunk % 2 == 0);
  const Bytes d = phase.data;
  const Time e = overheads.endpoint_delay;
  const Time e_r = e + overheads.reduction(d);
  // Unused slots stay zero-byte sends to self, which the schedule builder skips.
  program.sends.resize(3);
  for (auto& s : program.sends)
    s.to = member;
  const uint32_t x = tree.node_of(member);
  if (tree.is_root(x)) {
    const uint32_t child = tree.member_of(tree.left(x));
    use_slot(program, kLeft, child, d, e_r, {{child, kUp}});
    program.finish.push_back({{child, kUp}, e_r});
    return program;
  }
  const uint32_t parent = tree.member_of(tree.parent(x));
  const Arrival from_parent{parent, tree.slot_at_parent(x)};
  if (tree.is_leaf(x)) {
    use_slot(program, kUp, parent, d, e, {});
    program.finish.push_back({from_parent, e});
    return program;
  }
  const uint32_t left = tree.member_of(tree.left(x));
  const uint32_t right = tree.member_of(tree.right(x));
  use_slot(program, kUp, parent, d, e_r, {{left, kUp}, {right, kUp}});
  use_slot(program, kLeft, left, d, e_r, {from_parent});
  use_slot(program, kRight, right, d, e_r, {from_parent});
  program.finish.push_back({from_parent, e_r});
  return program;
}

}  // namespace chorus::algorithms
