// Synthesized schedules as Chakra per-rank traces (see chakra_export.hpp).
#include "chorus/synth/chakra_export.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/chakra/trace.hpp"
#include "chorus/chakra/trace_directory.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

namespace {

// Chakra stores durations in whole microseconds; a positive delay is never written as 0.
uint64_t micros(Time t) {
  return t <= Time::zero() ? 0 : std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(t.microseconds())));
}

class TraceBuilder {
 public:
  TraceBuilder(const SynthResult& result, const Topology& topology)
      : result_(result),
        topology_(topology),
        traces_(result.members.size()),
        send_node_(result.schedule.size()),
        recv_node_(result.schedule.size()),
        local_node_(result.schedule.size()) {
    for (uint32_t r = 0; r < result.members.size(); ++r)
      rank_of_[result.members[r]] = r;
  }

  std::vector<chakra::ChakraTrace> build() {
    const Schedule& s = result_.schedule;
    for (uint32_t i = 0; i < s.size(); ++i) {
      const OpId op{i};
      if (s.is_transfer(op)) {
        add_transfer(op);
      } else {
        add_local(op);
      }
    }
    return std::move(traces_);
  }

 private:
  uint32_t rank(NodeId node) const {
    const auto it = rank_of_.find(node.value);
    if (!topology_.is_npu(node) || it == rank_of_.end()) {
      throw Error("", Argument{"chakra"},
                  fmt::format("the schedule routes through {} {}; Chakra traces carry NPU-to-NPU messages only",
                              topology_.is_npu(node) ? "NPU outside the group" : "switch", node.value));
    }
    return it->second;
  }

  chakra::TraceNode& append(uint32_t r, chakra::NodeType type, std::string name) {
    chakra::TraceNode n;
    n.id = traces_[r].nodes.size();
    n.name = std::move(name);
    n.type = type;
    traces_[r].nodes.push_back(std::move(n));
    return traces_[r].nodes.back();
  }

  // The node of rank `r` that stands for schedule op `dep`, if `dep` happened on that rank.
  std::optional<uint64_t> node_on_rank(OpId dep, uint32_t r) const {
    if (local_node_[dep.value] && local_rank_.at(dep.value) == r)
      return local_node_[dep.value];
    if (recv_node_[dep.value] && rank(result_.schedule.dst(dep)) == r)
      return recv_node_[dep.value];
    if (send_node_[dep.value] && rank(result_.schedule.src(dep)) == r)
      return send_node_[dep.value];
    return std::nullopt;
  }

  std::vector<uint64_t> deps_on_rank(OpId op, uint32_t r) const {
    std::vector<uint64_t> deps;
    for (OpId d : result_.schedule.deps(op)) {
      if (const auto n = node_on_rank(d, r))
        deps.push_back(*n);
    }
    return deps;
  }

  void add_transfer(OpId op) {
    const Schedule& s = result_.schedule;
    const uint32_t src = rank(s.src(op)), dst = rank(s.dst(op));
    std::vector<uint64_t> deps = deps_on_rank(op, src);
    if (s.pre_delay(op) > Time::zero()) {
      chakra::TraceNode& comp = append(src, chakra::NodeType::Comp, fmt::format("pre_{}", op.value));
      comp.duration_micros = micros(s.pre_delay(op));
      comp.data_deps = std::move(deps);
      deps = {comp.id};
    }
    chakra::TraceNode& send = append(src, chakra::NodeType::CommSend, fmt::format("send_{}", op.value));
    send.data_deps = std::move(deps);
    send.comm_dst = dst;
    send.comm_size = s.bytes(op).count();
    send.comm_tag = op.value;
    send_node_[op.value] = send.id;
    chakra::TraceNode& recv = append(dst, chakra::NodeType::CommRecv, fmt::format("recv_{}", op.value));
    recv.comm_src = src;
    recv.comm_size = s.bytes(op).count();
    recv.comm_tag = op.value;
    recv_node_[op.value] = recv.id;
  }

  void add_local(OpId op) {
    const uint32_t r = rank(result_.schedule.src(op));
    chakra::TraceNode& comp = append(r, chakra::NodeType::Comp, fmt::format("step_{}", op.value));
    comp.duration_micros = micros(result_.schedule.pre_delay(op));
    comp.data_deps = deps_on_rank(op, r);
    local_node_[op.value] = comp.id;
    local_rank_[op.value] = r;
  }

  const SynthResult& result_;
  const Topology& topology_;
  std::unordered_map<uint32_t, uint32_t> rank_of_;
  std::vector<chakra::ChakraTrace> traces_;
  std::vector<std::optional<uint64_t>> send_node_, recv_node_, local_node_;
  std::unordered_map<uint32_t, uint32_t> local_rank_;
};

}  // namespace

void write_chakra_schedule(const std::string& prefix, const SynthResult& result, const Topology& topology) {
  const std::vector<chakra::ChakraTrace> traces = TraceBuilder(result, topology).build();
  const std::filesystem::path path(prefix);
  if (path.has_parent_path())
    (void)make_trace_directory(path.parent_path().string(), "", Argument{"chakra"});
  for (size_t r = 0; r < traces.size(); ++r) {
    chakra::ChakraTrace t = traces[r];
    t.version = "0.0.4";
    chakra::write_chakra_trace(rank_file(prefix, r), t, false);
  }
}

}  // namespace chorus
