// The critical-path walk and the blame sums of a workload run (see critical_path.hpp).
#include "chorus/runtime/critical_path.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "chorus/core/assert.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/runtime/time_spans.hpp"

namespace chorus {

using chakra::CommType;
using chakra::NodeType;

std::string_view to_string(PathKind kind) {
  switch (kind) {
    case PathKind::Compute:
      return "compute";
    case PathKind::Collective:
      return "collective";
    case PathKind::P2p:
      return "p2p";
    case PathKind::Other:
      return "other";
  }
  return "other";
}

std::optional<size_t> bounding_dimension(const Topology& topology, const std::vector<uint32_t>& members) {
  const std::vector<Dimension>& dims = topology.dimensions();
  std::optional<size_t> slowest;
  for (size_t d = 0; d < dims.size(); ++d) {
    const uint32_t first = topology.coordinate(NodeId{members.front()}, d);
    const bool spans = std::any_of(members.begin(), members.end(),
                                   [&](uint32_t m) { return topology.coordinate(NodeId{m}, d) != first; });
    if (!spans)
      continue;
    const auto slower = [&](size_t a, size_t b) {
      return dims[a].bandwidth != dims[b].bandwidth ? dims[a].bandwidth < dims[b].bandwidth
                                                    : dims[a].latency > dims[b].latency;
    };
    if (!slowest || slower(d, *slowest))
      slowest = d;
  }
  return slowest;
}

std::vector<std::pair<uint32_t, Time>> charge_exposed(std::vector<std::tuple<Time, Time, uint32_t>>& transfers,
                                                      const std::vector<std::pair<Time, Time>>& compute) {
  std::sort(transfers.begin(), transfers.end());
  std::vector<std::pair<uint32_t, Time>> out;
  Time covered = Time::zero();  // transfers before this instant are charged already
  size_t c = 0;                 // first compute span that may still overlap
  for (const auto& [start, end, node] : transfers) {
    const Time lo = std::max(start, covered);
    if (end <= lo)
      continue;
    covered = end;
    // lo never decreases (transfers sorted by start, covered grows), so compute spans ending before it are done.
    while (c < compute.size() && compute[c].second <= lo)
      ++c;
    Time hidden = Time::zero();
    for (size_t k = c; k < compute.size() && compute[k].first < end; ++k)
      hidden += std::min(end, compute[k].second) - std::max(lo, compute[k].first);
    if (const Time exposed = end - lo - hidden; exposed > Time::zero())
      out.emplace_back(node, exposed);
  }
  return out;
}

std::vector<std::pair<uint32_t, Time>> charge_exposed_blocking_first(
    std::vector<std::tuple<Time, Time, uint32_t>>& transfers, const std::vector<std::pair<Time, Time>>& compute,
    const std::vector<bool>& blocking) {
  const auto is_blocking = [&](const std::tuple<Time, Time, uint32_t>& t) {
    const uint32_t node = std::get<2>(t);
    return node < blocking.size() && blocking[node];
  };
  const auto split = std::stable_partition(transfers.begin(), transfers.end(), is_blocking);
  std::vector<std::tuple<Time, Time, uint32_t>> first(transfers.begin(), split);
  std::vector<std::tuple<Time, Time, uint32_t>> background(split, transfers.end());
  std::vector<std::pair<uint32_t, Time>> out = charge_exposed(first, compute);
  if (background.empty()) {
    transfers = std::move(first);
    return out;
  }
  // What the background transfers may be charged for: neither compute nor a blocking transfer runs.
  std::vector<Span> covered = compute;
  for (const auto& [start, end, node] : first)
    covered.emplace_back(start, end);
  for (const auto& charged : charge_exposed(background, merged(std::move(covered))))
    out.push_back(charged);
  // Both halves come back sorted by start (charge_exposed sorts them).
  std::merge(first.begin(), first.end(), background.begin(), background.end(), transfers.begin());
  return out;
}

namespace {

PathKind kind_of(const WorkloadNode& n) {
  switch (n.type) {
    case NodeType::Comp:
      return PathKind::Compute;
    case NodeType::CommColl:
      return PathKind::Collective;
    case NodeType::CommSend:
    case NodeType::CommRecv:
      return PathKind::P2p;
    default:
      return PathKind::Other;
  }
}

// Follows the release links from the last node to finish back to time 0.
class Walk {
 public:
  Walk(const Workload& workload, const RunReport& report, const ReleaseLog& log,
       const std::vector<const std::vector<Time>*>& issued_at)
      : workload_(workload), report_(report), log_(log), issued_at_(issued_at) {}

  std::vector<PathSegment> segments() {
    std::vector<PathSegment> out;
    if (log_.last.first == ReleaseLog::kNone)
      return out;
    auto [npu, node] = log_.last;
    Time frontier = report_.finish;
    while (true) {
      std::tie(npu, node) = step(npu, node, frontier, out);
      const uint32_t cause = log_.npus[npu].issued_by[node];
      if (cause == ReleaseLog::kNone)
        break;
      node = cause;
    }
    CHORUS_ASSERT(frontier == Time::zero(), "critical path stops at {} ps, not at 0", frontier.picoseconds());
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  Time issued(uint32_t npu, uint32_t node) const { return (*issued_at_[npu])[node]; }

  // Adds the segment that ends at `frontier` on (npu, node); returns the node whose issue it starts from and moves
  // the frontier to that issue.
  ReleaseLog::NodeRef step(uint32_t npu, uint32_t node, Time& frontier, std::vector<PathSegment>& out) const {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    const uint32_t ended_by = log_.npus[npu].ended_by[node];
    ReleaseLog::NodeRef from{npu, node};
    PathSegment s{kind_of(n), npu, node, issued(npu, node), frontier, -1};
    if (n.type == NodeType::CommColl && ended_by != ReleaseLog::kNone) {
      from = log_.collectives[ended_by];
      s.collective = ended_by;
      s.start = issued(from.first, from.second);  // the last member's issue starts the collective
    } else if (n.type == NodeType::CommRecv && ended_by != ReleaseLog::kNone && frontier > s.start) {
      from = log_.messages[ended_by];  // the data arrived after the receive was posted: the send decided
      s.npu = from.first;
      s.node = from.second;
      s.start = issued(from.first, from.second);
    }
    if (s.start < s.end)
      out.push_back(s);
    frontier = s.start;
    return from;
  }

  const Workload& workload_;
  const RunReport& report_;
  const ReleaseLog& log_;
  const std::vector<const std::vector<Time>*>& issued_at_;
};

// Blame rows by (kind, name pattern); a slot per (NPU graph, pattern, kind) remembers each one's row.
class BlameTable {
 public:
  explicit BlameTable(const Workload& w) : workload_(w), slots_(w.npus.size()) {}

  BlameRow& row(PathKind kind, uint32_t npu, uint32_t pattern) {
    std::vector<std::array<int32_t, 4>>& slots = slots_[npu];
    if (slots.empty())
      slots.assign(workload_.npus[npu].patterns.size(), {-1, -1, -1, -1});
    int32_t& slot = slots[pattern][static_cast<size_t>(kind)];
    if (slot < 0)
      slot = index_of(kind, workload_.npus[npu].patterns[pattern]);
    return rows_[static_cast<size_t>(slot)];
  }
  BlameRow& row_of_node(PathKind kind, uint32_t npu, uint32_t node) {
    return row(kind, npu, workload_.npus[npu].nodes[node].pattern);
  }

  std::vector<BlameRow> sorted() && {
    std::sort(rows_.begin(), rows_.end(), [](const BlameRow& a, const BlameRow& b) {
      if (a.critical != b.critical)
        return a.critical > b.critical;
      if (a.exposed_npu_time != b.exposed_npu_time)
        return a.exposed_npu_time > b.exposed_npu_time;
      return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
    });
    return std::move(rows_);
  }

 private:
  int32_t index_of(PathKind kind, const std::string& pattern) {
    const auto [it, inserted] = by_pattern_[static_cast<size_t>(kind)].try_emplace(pattern, rows_.size());
    if (inserted)
      rows_.push_back(BlameRow{pattern, kind, 0, 0, Time::zero(), Time::zero()});
    return static_cast<int32_t>(it->second);
  }

  const Workload& workload_;
  std::vector<BlameRow> rows_;
  std::array<std::unordered_map<std::string, size_t>, 4> by_pattern_;
  std::vector<std::vector<std::array<int32_t, 4>>> slots_;  // per NPU, per pattern, per kind: row or -1
};

// How many ranks each simulated NPU stands for: its class's size in a symmetric workload, else 1.
uint64_t weight_of(const Workload& w, uint32_t npu) {
  return w.symmetry ? w.symmetry->classes[w.symmetry->class_of[npu]].size : 1;
}

// Collectives timed as instances of their group (report.collectives) are counted there; broadcasts (replayed) and
// collectives of a one-NPU group are counted per node.
bool per_node_collective(const Workload& w, const WorkloadNode& n) {
  return n.comm == CommType::Broadcast || w.groups[n.group].npus.size() == 1;
}

}  // namespace

ReleaseLog::ReleaseLog(const Workload& w) : workload(w), npus(w.npus.size()) {
  for (size_t npu = 0; npu < w.npus.size(); ++npu) {
    const NpuGraph& g = w.npus[npu];
    Npu& n = npus[npu];
    n.issued_by.assign(g.nodes.size(), kNone);
    n.ended_by.assign(g.nodes.size(), kNone);
    CHORUS_ASSERT(g.nodes.empty() || !g.patterns.empty(), "NPU {}: graph without name patterns", npu);
    n.instances.assign(g.patterns.size(), {});
    n.exposed.assign(g.patterns.size(), {});
  }
}

void ReleaseLog::count(uint32_t npu, const WorkloadNode& n) {
  const bool counted = n.type == NodeType::Comp || n.type == NodeType::CommSend || n.type == NodeType::MemLoad ||
                       n.type == NodeType::MemStore ||
                       (n.type == NodeType::CommColl && per_node_collective(workload, n));
  if (counted)
    npus[npu].instances[n.pattern][static_cast<size_t>(kind_of(n))] += weight_of(workload, npu);
}

void ReleaseLog::charge(uint32_t npu, uint32_t node, Time time) {
  const Time weighted = time * static_cast<int64_t>(weight_of(workload, npu));
  NodeRef to{npu, node};
  const WorkloadNode& n = workload.npus[npu].nodes[node];
  if (n.type == NodeType::CommRecv && npus[npu].ended_by[node] != kNone)
    to = messages[npus[npu].ended_by[node]];  // a receive's exposure belongs to its message, named by its send
  const WorkloadNode& charged = workload.npus[to.first].nodes[to.second];
  npus[to.first].exposed[charged.pattern][static_cast<size_t>(kind_of(charged))] += weighted;
}

std::vector<bool> ReleaseLog::waited_for(uint32_t npu) const {
  const std::vector<WorkloadNode>& nodes = workload.npus[npu].nodes;
  const std::vector<uint32_t>& issued_by = npus[npu].issued_by;
  std::vector<bool> waited(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].type != NodeType::Comp)
      continue;
    // The chain of non-compute releasers above a compute node; a chain already marked was walked from there on.
    for (uint32_t r = issued_by[i]; r != kNone && !waited[r] && nodes[r].type != NodeType::Comp; r = issued_by[r])
      waited[r] = true;
  }
  return waited;
}

CriticalPath walk_critical_path(const RunReport& report, const ReleaseLog& log,
                                const std::vector<const std::vector<Time>*>& issued_at) {
  const Workload& workload = log.workload;
  CriticalPath path;
  path.segments = Walk(workload, report, log, issued_at).segments();
  BlameTable table(workload);
  for (uint32_t npu = 0; npu < log.npus.size(); ++npu) {
    const ReleaseLog::Npu& n = log.npus[npu];
    for (uint32_t p = 0; p < n.instances.size(); ++p) {
      for (size_t k = 0; k < 4; ++k) {
        if (n.instances[p][k] == 0 && n.exposed[p][k] == Time::zero())
          continue;
        BlameRow& row = table.row(static_cast<PathKind>(k), npu, p);
        row.instances += n.instances[p][k];
        row.exposed_npu_time += n.exposed[p][k];
      }
    }
  }
  for (const auto& [npu, node] : log.collectives)
    ++table.row_of_node(PathKind::Collective, npu, node).instances;
  for (const PathSegment& s : path.segments) {
    const Time length = s.end - s.start;
    switch (s.kind) {
      case PathKind::Compute:
        path.totals.compute += length;
        break;
      case PathKind::Collective:
        path.totals.collective += length;
        break;
      case PathKind::P2p:
        path.totals.p2p += length;
        break;
      case PathKind::Other:
        path.totals.other += length;
        break;
    }
    BlameRow& row = table.row_of_node(s.kind, s.npu, s.node);
    ++row.on_path;
    row.critical += length;
  }
  path.blame = std::move(table).sorted();
  return path;
}

}  // namespace chorus
