// Switch paths as GPU-to-GPU transfers (see switch_collapse.hpp).
#include "chorus/synth/switch_collapse.hpp"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

class Collapser {
 public:
  explicit Collapser(const SynthResult& r) : r_(r), s_(r.schedule), gpu_(r.members.begin(), r.members.end()) {
    head_.assign(s_.size(), kNone);
    new_id_.assign(s_.size(), OpId{kNone});
  }

  SynthResult run() {
    SynthResult out = r_;
    out.schedule = Schedule();
    out.ops.clear();
    const bool bundled = !r_.bundle_start.empty();
    if (bundled) {
      out.bundle_start = {0};
      out.bundle_units.clear();
    }
    // A kept op carries its original's units (a path: its last hop's, the same as every hop's).
    auto keep_units = [&](uint32_t i) {
      if (!bundled)
        return;
      const std::span<const uint32_t> units = op_units(r_, i);
      out.bundle_units.insert(out.bundle_units.end(), units.begin(), units.end());
      out.bundle_start.push_back(out.bundle_units.size());
    };
    for (uint32_t i = 0; i < s_.size(); ++i) {
      const OpId op{i};
      if (!s_.is_transfer(op)) {
        deps_.clear();
        add_mapped(op);
        new_id_[i] = out.schedule.add_local(s_.src(op), s_.pre_delay(op), deps_, s_.chunk(op));
        out.ops.push_back(r_.ops[i]);
        keep_units(i);
        continue;
      }
      const bool from_gpu = is_gpu(s_.src(op));
      // The hop that left a GPU: this one, or the first hop of the path that brought the chunk to this switch.
      const uint32_t first = from_gpu ? i : head_[arrival_at_switch(op)];
      if (!is_gpu(s_.dst(op))) {
        head_[i] = first;
        continue;
      }
      deps_.clear();
      add_mapped(OpId{first});
      if (first != i)
        add_mapped(op);  // the last hop's own link order at b (its chunk dependency is a switch hop: skipped)
      new_id_[i] = out.schedule.add_transfer(s_.src(OpId{first}), s_.dst(op), s_.bytes(op), s_.pre_delay(OpId{first}),
                                             deps_, s_.chunk(op));
      SynthOp timing = r_.ops[i];
      timing.start = r_.ops[first].start;
      timing.link = r_.ops[first].link;  // the GPU's own link into the fabric: its sends' order there
      out.ops.push_back(timing);
      keep_units(i);
    }
    return out;
  }

 private:
  bool is_gpu(NodeId node) const { return gpu_.count(node.value) != 0; }

  // The transfer that brought op's chunk to its source, a switch; exactly one (a switch never combines copies).
  uint32_t arrival_at_switch(OpId op) const {
    uint32_t found = kNone;
    for (OpId d : s_.deps(op)) {
      if (!s_.is_transfer(d) || s_.chunk(d) != s_.chunk(op) || s_.dst(d) != s_.src(op))
        continue;
      if (found != kNone) {
        throw Error("msccl", "switch",
                    fmt::format("node {} combines several copies of chunk {}: a switch cannot reduce (no MSCCL "
                                "program runs on it)",
                                s_.src(op).value, s_.chunk(op)));
      }
      found = d.value;
    }
    if (found == kNone || head_[found] == kNone) {
      throw Error("msccl", "switch",
                  fmt::format("transfer {} leaves switch {} with chunk {} that no transfer brought there", op.value,
                              s_.src(op).value, s_.chunk(op)));
    }
    return found;
  }

  // op's dependencies that are kept (GPU-level transfers and local steps), as new ids, without repeats.
  void add_mapped(OpId op) {
    for (OpId d : s_.deps(op)) {
      const OpId mapped = new_id_[d.value];
      if (mapped.value != kNone && std::find(deps_.begin(), deps_.end(), mapped) == deps_.end())
        deps_.push_back(mapped);
    }
  }

  const SynthResult& r_;
  const Schedule& s_;
  std::unordered_set<uint32_t> gpu_;
  std::vector<uint32_t> head_;  // per switch-bound transfer: the first hop of its path (it left a GPU)
  std::vector<OpId> new_id_;    // per op: its op in the collapsed schedule (kNone: a switch-bound hop)
  std::vector<OpId> deps_;
};

}  // namespace

bool passes_through_switches(const SynthResult& result) {
  const std::unordered_set<uint32_t> gpu(result.members.begin(), result.members.end());
  const Schedule& s = result.schedule;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.is_transfer(OpId{i}) && (!gpu.count(s.src(OpId{i}).value) || !gpu.count(s.dst(OpId{i}).value)))
      return true;
  }
  return false;
}

SynthResult collapse_switches(const SynthResult& result) {
  return Collapser(result).run();
}

}  // namespace chorus
