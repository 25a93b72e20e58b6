// Execution trace -> Chakra nodes for one rank (recover.hpp).
#include "chorus/pytorch/recover.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/units.hpp"

namespace chorus::pytorch {
namespace {

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > text.size())
      return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

bool is_marker(const std::string& name) {  // "[pytorch|profiler|execution_graph|thread]" and the like
  return name.rfind("[pytorch|profiler|", 0) == 0;
}

std::string group_name(const std::vector<int64_t>& ranks, const std::string& pg_name) {
  if (!pg_name.empty())
    return "pt_" + pg_name;
  return fmt::format("pt_ranks_{}", fmt::join(ranks, "_"));
}

class Recovery {
 public:
  Recovery(const ExecutionTrace& t, uint32_t rank, uint32_t world, const KinetoTimes* k)
      : t_(t), rank_(rank), world_(world), k_(k) {}

  RankImport run() {
    index_nodes();
    link_children();
    classify();
    sum_kernels();
    walk();
    finish();
    return std::move(r_);
  }

 private:
  std::string at(uint32_t v) const { return fmt::format("node {}", t_.nodes[v].id); }

  void index_nodes() {
    const size_t n = t_.nodes.size();
    index_.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
      if (!index_.emplace(t_.nodes[v].id, v).second)
        throw Error(t_.path, at(v), "id appears twice");
    order_.resize(n);
    for (uint32_t v = 0; v < n; ++v)
      order_[v] = v;
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return t_.nodes[a].id < t_.nodes[b].id; });
  }

  // Children in CSR form, each list in id (= start) order.
  void link_children() {
    const size_t n = t_.nodes.size();
    parent_.assign(n, UINT32_MAX);
    std::vector<uint32_t> count(n + 1, 0);
    for (uint32_t v = 0; v < n; ++v) {
      const EtNode& node = t_.nodes[v];
      if (node.parent == node.id) {
        roots_.push_back(v);
        continue;
      }
      const auto it = index_.find(node.parent);
      if (it == index_.end())
        throw Error(t_.path, at(v), fmt::format("parent {} names no node in the trace", node.parent));
      parent_[v] = it->second;
      ++count[it->second + 1];
    }
    if (roots_.empty() && n > 0)
      throw Error(t_.path, "nodes", "no root node (a node that is its own parent)");
    for (size_t i = 1; i <= n; ++i)
      count[i] += count[i - 1];
    child_start_ = count;
    children_.resize(count[n]);
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (const uint32_t v : order_)
      if (parent_[v] != UINT32_MAX)
        children_[fill[parent_[v]]++] = v;
  }

  void classify() {
    const size_t n = t_.nodes.size();
    ops_.resize(n);
    comm_below_.assign(n, 0);
    for (uint32_t v = 0; v < n; ++v) {
      const EtNode& node = t_.nodes[v];
      ops_[v] = classify_op(t_.name_of(node), node.comm ? &t_.comms[*node.comm] : nullptr);
      if (!ops_[v])
        continue;
      for (uint32_t u = v; u != UINT32_MAX && !comm_below_[u]; u = parent_[u])
        comm_below_[u] = 1;
    }
  }

  // Kernel time of each subtree (a parent's id is below its children's: ids are handed out at operator entry).
  void sum_kernels() {
    if (k_ == nullptr)
      return;
    gpu_total_ = k_->gpu_us;
    nccl_total_ = k_->nccl_us;
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      if (parent_[*it] != UINT32_MAX) {
        gpu_total_[parent_[*it]] += gpu_total_[*it];
        nccl_total_[parent_[*it]] += nccl_total_[*it];
      }
  }

  bool has_comm_child(uint32_t v) const {
    for (uint32_t i = child_start_[v]; i < child_start_[v + 1]; ++i)
      if (comm_below_[children_[i]])
        return true;
    return false;
  }

  // Depth-first, children in start order: the order the rank's threads ran the operators. Below a
  // communication node only operator-layer communication is taken: 1.13's observer leaves an async op on its
  // thread's stack, so a later c10d::recv_ can be recorded as a child of the c10d::send before it.
  void walk() {
    std::vector<std::pair<uint32_t, bool>> stack;  // node, inside a communication node
    std::vector<uint32_t> roots = roots_;
    std::sort(roots.begin(), roots.end(), [&](uint32_t a, uint32_t b) { return t_.nodes[a].id > t_.nodes[b].id; });
    for (const uint32_t r : roots)
      stack.emplace_back(r, false);
    size_t visited = 0;
    while (!stack.empty()) {
      const auto [v, inside] = stack.back();
      stack.pop_back();
      ++visited;
      bool open = true;
      bool below_comm = inside;
      if (!inside) {
        open = visit(v);
        below_comm = ops_[v].has_value();
      } else if (ops_[v] && ops_[v]->layer == CommLayer::Operator) {
        communication(v);
      }
      if (!open && !below_comm) {
        visited += subtree_size(v) - 1;
        continue;
      }
      for (uint32_t i = child_start_[v + 1]; i > child_start_[v]; --i)
        stack.emplace_back(children_[i - 1], below_comm);
    }
    if (visited != t_.nodes.size())
      for (uint32_t v = 0; v < t_.nodes.size(); ++v)
        if (!reached(v))
          throw Error(t_.path, at(v), "is not reachable from the root (its parent chain forms a cycle)");
  }

  bool reached(uint32_t v) const {
    for (size_t steps = 0; steps <= t_.nodes.size(); ++steps) {
      if (parent_[v] == UINT32_MAX)
        return true;
      v = parent_[v];
    }
    return false;
  }

  size_t subtree_size(uint32_t v) const {
    size_t size = 0;
    std::vector<uint32_t> stack{v};
    while (!stack.empty()) {
      const uint32_t u = stack.back();
      stack.pop_back();
      ++size;
      for (uint32_t i = child_start_[u]; i < child_start_[u + 1]; ++i)
        stack.push_back(children_[i]);
    }
    return size;
  }

  // Handles one node; returns true when its children are to be visited.
  bool visit(uint32_t v) {
    const EtNode& node = t_.nodes[v];
    if (parent_[v] == UINT32_MAX || is_marker(t_.name_of(node)))
      return true;
    if (ops_[v]) {
      communication(v);
      return false;  // its subtree (the backend op) is the same communication
    }
    if (!comm_below_[v]) {
      compute(v, duration(v));
      return false;
    }
    // Opened: its own time outside the children, when known, is a compute node of its own.
    const uint64_t self = self_time(v);
    if (self > 0)
      compute(v, self);
    return true;
  }

  std::optional<uint64_t> measured(uint32_t v) const {
    if (k_ != nullptr) {
      if (gpu_total_[v] > 0)
        return gpu_total_[v];
      if (k_->cpu_us[v])
        return k_->cpu_us[v];
    }
    const auto& dur = t_.nodes[v].dur_us;
    if (dur && *dur > limits::kMaxNodeDurationMicros)  // what chorus sim would refuse in the written trace
      throw Error(t_.path, at(v),
                  fmt::format("dur: is {} us; must be at most 10^12 us (kMaxNodeDurationMicros)", *dur));
    return dur;
  }

  uint64_t duration(uint32_t v) {
    const auto d = measured(v);
    if (d)
      timed_ = true;
    return d.value_or(0);
  }

  uint64_t self_time(uint32_t v) {
    const auto d = measured(v);
    if (!d)
      return 0;
    uint64_t children = 0;
    for (uint32_t i = child_start_[v]; i < child_start_[v + 1]; ++i)
      children += measured(children_[i]).value_or(0);
    timed_ = true;
    return *d > children ? *d - children : 0;
  }

  // Storages touched by v's subtree; the collectives in flight on them are what v waits for.
  std::vector<uint64_t> waited_collectives(uint32_t v) {
    std::vector<uint64_t> deps;
    if (pending_.empty())
      return deps;
    bool any_tensor = false;
    std::vector<uint32_t> stack{v};
    while (!stack.empty()) {
      const uint32_t u = stack.back();
      stack.pop_back();
      const EtNode& n = t_.nodes[u];
      for (uint32_t i = 0; i < n.tensor_count; ++i) {
        any_tensor = true;
        const auto it = pending_.find(t_.tensors[n.first_tensor + i].storage);
        if (it != pending_.end()) {
          deps.push_back(it->second);
          pending_.erase(it);
        }
      }
      for (uint32_t i = child_start_[u]; i < child_start_[u + 1]; ++i)
        stack.push_back(children_[i]);
    }
    if (!any_tensor && t_.name_of(t_.nodes[v]).find("wait") != std::string::npos) {
      for (const auto& [storage, id] : pending_)
        deps.push_back(id);
      pending_.clear();
    }
    return deps;
  }

  chakra::TraceNode& add(uint32_t v, chakra::NodeType type, std::vector<uint64_t> deps) {
    chakra::TraceNode n;
    n.id = r_.trace.nodes.size();
    n.name = t_.name_of(t_.nodes[v]);
    if (!valid_utf8(n.name))  // a Chakra string field must be UTF-8 (protobuf would write it and log an error)
      throw Error(t_.path, at(v), "name is not valid UTF-8");
    n.type = type;
    const auto chain = chain_.find(t_.nodes[v].tid);
    if (chain != chain_.end())
      deps.push_back(chain->second);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    n.data_deps = std::move(deps);
    r_.trace.nodes.push_back(std::move(n));
    return r_.trace.nodes.back();
  }

  bool kineto_measured(uint32_t v) const { return k_ != nullptr && (gpu_total_[v] > 0 || k_->cpu_us[v]); }

  void compute(uint32_t v, uint64_t micros) {
    chakra::TraceNode& n = add(v, chakra::NodeType::Comp, waited_collectives(v));
    n.duration_micros = micros;
    if (kineto_measured(v))
      r_.measured_us.emplace_back(n.id, micros);
    n.is_cpu_op = k_ == nullptr || gpu_total_[v] == 0;
    chain_[t_.nodes[v].tid] = n.id;
  }

  // The node that describes v's process group: v, or the first node below it with communication attributes
  // (an operator's record_param_comms child carries pg_name and the ranks; the operator itself does not).
  uint32_t with_group_attrs(uint32_t v) const {
    std::vector<uint32_t> stack{v};
    while (!stack.empty()) {
      const uint32_t u = stack.back();
      stack.pop_back();
      if (t_.nodes[u].comm)
        return u;
      for (uint32_t i = child_start_[u + 1]; i > child_start_[u]; --i)
        stack.push_back(children_[i - 1]);
    }
    return v;
  }

  // Emits v's collective, or nothing when v is the backend op of an operator already emitted.
  void communication(uint32_t v) {
    const EtNode& node = t_.nodes[v];
    const CommOp op = *ops_[v];
    const uint64_t storage = first_storage(t_, node);
    if (op.layer != CommLayer::Operator) {
      const auto same = std::find_if(unmatched_.begin(), unmatched_.end(), [&](const auto& u) {
        return u.first == op.kind && (u.second == storage || storage == 0);
      });
      if (same != unmatched_.end()) {
        unmatched_.erase(same);
        return;
      }
    } else if (!has_comm_child(v)) {
      unmatched_.emplace_back(op.kind, storage);  // its backend op, if recorded, comes later as a sibling
    }
    RecoveredCollective c;
    c.et_node = node.id;
    c.kind = op.kind;
    c.bytes = comm_bytes(t_, node, op);
    if (c.bytes > static_cast<uint64_t>(kMaxSizeBytes))  // the trace reader's limit on comm_size
      throw Error(t_.path, at(v),
                  fmt::format("tensor of {} bytes; a collective moves at most {} (1 PiB)",
                              c.bytes == UINT64_MAX ? "more than 2^64" : fmt::format("{}", c.bytes), kMaxSizeBytes));
    std::vector<uint64_t> deps;
    for (uint32_t i = 0; i < node.tensor_count; ++i) {
      const auto it = pending_.find(t_.tensors[node.first_tensor + i].storage);
      if (it != pending_.end())
        deps.push_back(it->second);  // two collectives on one buffer run in program order
    }
    chakra::TraceNode* n = nullptr;
    if (op.kind == CommKind::Send || op.kind == CommKind::Recv) {
      c.peer = peer_rank(t_, node);
      if (!c.peer || *c.peer < 0 || *c.peer >= static_cast<int64_t>(world_) || *c.peer == rank_)
        throw Error(t_.path, at(v),
                    fmt::format("{} peer rank {} is not another of the {} ranks given", to_string(op.kind),
                                c.peer ? fmt::format("{}", *c.peer) : "(none recorded)", world_));
      const bool send = op.kind == CommKind::Send;
      n = &add(v, send ? chakra::NodeType::CommSend : chakra::NodeType::CommRecv, std::move(deps));
      (send ? n->comm_dst : n->comm_src) = *c.peer;
      n->comm_tag = tag_of(t_, node);
    } else {
      const EtNode& described = t_.nodes[with_group_attrs(v)];
      c.ranks = group_ranks(t_, described, world_);
      if (!c.ranks.empty() && std::find(c.ranks.begin(), c.ranks.end(), int64_t{rank_}) == c.ranks.end()) {
        const CommAttrs* a = described.comm ? &t_.comms[*described.comm] : nullptr;
        throw Error(
            t_.path, at(v),
            fmt::format("process group '{}' does not hold this rank ({})", a != nullptr ? a->pg_name : "", rank_));
      }
      if (!c.ranks.empty()) {
        const CommAttrs* a = described.comm ? &t_.comms[*described.comm] : nullptr;
        c.pg_name = group_name(c.ranks, a != nullptr ? a->pg_name : "");
        if (!valid_utf8(c.pg_name))
          throw Error(t_.path, at(v), "pg_name is not valid UTF-8");
        groups_.emplace(c.pg_name, c.ranks);
      }
      n = &add(v, chakra::NodeType::CommColl, std::move(deps));
      n->comm_type = static_cast<int64_t>(*chakra_type(op.kind));
      n->pg_name = c.pg_name;
    }
    n->comm_size = static_cast<int64_t>(c.bytes);
    n->tensor_size = static_cast<int64_t>(c.bytes);
    if (k_ != nullptr && nccl_total_[v] > 0) {
      n->duration_micros = nccl_total_[v];  // measured; Broadcast is replayed from it
      c.measured_us = nccl_total_[v];
      r_.measured_us.emplace_back(n->id, nccl_total_[v]);
    } else if (k_ != nullptr && k_->cpu_us[v]) {
      r_.measured_us.emplace_back(n->id, *k_->cpu_us[v]);  // a CPU collective (gloo): its operator's time
    }
    for (uint32_t i = 0; i < node.tensor_count; ++i)
      pending_[t_.tensors[node.first_tensor + i].storage] = n->id;
    r_.comm_bytes += c.bytes;
    r_.collectives.push_back(std::move(c));
  }

  // The groups used, as the METADATA node PyTorch's converter writes (docs/workload.md, communicator groups).
  void finish() {
    r_.et_nodes = t_.nodes.size();
    r_.timing = !timed_ ? Timing::None : k_ != nullptr ? Timing::Kineto : Timing::Trace;
    r_.trace.version = "0.0.4";
    if (groups_.empty())
      return;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [name, ranks] : groups_)
      list.push_back({{"pg_name", name}, {"ranks", ranks}});
    chakra::TraceNode meta;
    meta.id = r_.trace.nodes.size();
    meta.name = "## process_group:init ##";
    meta.type = chakra::NodeType::Metadata;
    meta.inputs_values = list.dump();
    r_.trace.nodes.insert(r_.trace.nodes.begin(), std::move(meta));
  }

  const ExecutionTrace& t_;
  uint32_t rank_, world_;
  const KinetoTimes* k_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint32_t> order_, parent_, roots_, child_start_, children_;
  std::vector<std::optional<CommOp>> ops_;
  std::vector<uint8_t> comm_below_;
  std::vector<uint64_t> gpu_total_, nccl_total_;
  std::unordered_map<uint64_t, uint64_t> chain_;    // thread -> its last compute node
  std::unordered_map<uint64_t, uint64_t> pending_;  // storage -> the collective in flight on it
  std::vector<std::pair<CommKind, uint64_t>> unmatched_;
  std::map<std::string, std::vector<int64_t>> groups_;
  bool timed_ = false;
  RankImport r_;
};

}  // namespace

RankImport recover_rank(const ExecutionTrace& et, uint32_t rank, uint32_t world, const KinetoTimes* kineto) {
  return Recovery(et, rank, world, kineto).run();
}

}  // namespace chorus::pytorch
