// chorus's own two-tree All-Reduce, `twoTree` (Sanders, Speck and Traff 2009; NCCL's "tree" algorithm). ASTRA-sim's
// `doubleBinaryTree` is a different algorithm (whole chunks, one tree per chunk): see double_binary_tree.cpp.
//
// Two binary trees over the members, each carrying half of the buffer: tree A is the heap-ordered tree on
// members 0..p-1 (parent of position k is (k-1)/2), tree B the same shape on the members in reverse order,
// so that most interior members of one tree are leaves of the other. In each tree a member reduces what its
// children send (endpoint delay plus one reduction per child), sends the partial sum to its parent, and
// after the root has the total, the result flows back down. Whole halves move per hop (no pipelining inside
// a chunk; chunking across `preferred-dataset-splits` pipelines the chunks).
// The trees are not rotation-symmetric, so this algorithm always runs through the full schedule.
#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

namespace {

struct Tree {
  uint32_t p;
  bool reversed;
  uint32_t member_at(uint32_t position) const { return reversed ? p - 1 - position : position; }
  uint32_t position_of(uint32_t member) const { return reversed ? p - 1 - member : member; }
};

// Appends the sends of `member` in one tree carrying `half` bytes. Send indices are assigned in a fixed order
// (up-send, then down-sends to the left and right child) so every member can name its peers' send indices.
void add_tree_sends(const Tree& tree, uint32_t member, Bytes half, const Overheads& overheads, uint32_t index_base,
                    MemberProgram& program) {
  const uint32_t pos = tree.position_of(member);
  std::vector<uint32_t> children;
  for (uint32_t c : {2 * pos + 1, 2 * pos + 2}) {
    if (c < tree.p)
      children.push_back(c);
  }
  // Each member's sends in this tree, by slot: 0 = up to the parent (not at the root), 1 and 2 = down to
  // child 1 and 2. Slot numbers are fixed so that peers can name them: index = index_base + slot.
  const Time reduce = overheads.endpoint_delay + overheads.reduction(half);
  std::vector<Arrival> from_children;
  for (uint32_t c : children)
    from_children.push_back({tree.member_at(c), index_base + 0});
  auto slot = [&](uint32_t s) -> ProgramSend& { return program.sends[index_base + s]; };
  if (pos != 0) {
    const uint32_t parent = tree.member_at((pos - 1) / 2);
    ProgramSend& up = slot(0);
    up.to = parent;
    up.bytes = half;
    up.after = from_children;
    up.pre_delay = overheads.endpoint_delay + Time::ps(reduce.picoseconds() * static_cast<int64_t>(children.size()));
    const uint32_t parent_slot = 1 + ((pos - 1) % 2);  // left child receives slot 1, right child slot 2
    const Arrival from_parent{parent, index_base + parent_slot};
    for (size_t k = 0; k < children.size(); ++k) {
      ProgramSend& down = slot(1 + static_cast<uint32_t>(k));
      down.to = tree.member_at(children[k]);
      down.bytes = half;
      down.after = {from_parent};
      down.pre_delay = overheads.endpoint_delay;
    }
    program.finish.push_back({from_parent, overheads.endpoint_delay});
  } else {
    for (size_t k = 0; k < children.size(); ++k) {
      ProgramSend& down = slot(1 + static_cast<uint32_t>(k));
      down.to = tree.member_at(children[k]);
      down.bytes = half;
      down.after = from_children;
      down.pre_delay = Time::ps(reduce.picoseconds() * static_cast<int64_t>(children.size()));
    }
    for (const Arrival& a : from_children)
      program.finish.push_back({a, reduce});
  }
}

}  // namespace

MemberProgram two_tree(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (p <= 1)
    return program;
  if (phase.kind != CollectiveKind::AllReduce) {
    throw Error("", "algorithm", fmt::format("twoTree implements all_reduce only, not {}", to_string(phase.kind)));
  }
  // Three slots per tree; unused slots (no parent, missing children) stay as zero-byte sends to self and are
  // skipped by the schedule builder.
  program.sends.resize(6);
  for (auto& s : program.sends)
    s.to = member;
  const Bytes first_half = phase.data / 2;
  const Bytes second_half = phase.data + Bytes(-first_half.count());
  add_tree_sends(Tree{p, false}, member, first_half, overheads, 0, program);
  add_tree_sends(Tree{p, true}, member, second_half, overheads, 3, program);
  return program;
}

}  // namespace chorus::algorithms
