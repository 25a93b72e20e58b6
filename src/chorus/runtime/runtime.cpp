// The event-driven workload runtime (see runtime.hpp).
#include "chorus/runtime/runtime.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/progress.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/runtime/collective_contention.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/runtime/group_bound.hpp"
#include "chorus/runtime/link_usage.hpp"
#include "chorus/runtime/overlap_slowdown.hpp"
#include "chorus/runtime/replicas.hpp"
#include "chorus/runtime/time_spans.hpp"

namespace chorus {

using chakra::CommType;
using chakra::NodeType;

namespace {

enum class Resource : uint8_t { Compute, Cpu, Comm, Free };
constexpr size_t kLimited = 3;  // Compute, Cpu and Comm hold one node at a time
enum class NodeState : uint8_t { Waiting, Ready, Issued, Done };

struct ReadyEntry {
  int64_t key = 0;  // smaller first: 0, or -comm_priority under EXPLICIT
  uint64_t id = 0;  // then the smallest node id, as Chakra's feeder orders issuable nodes
  uint32_t node = 0;
  auto operator<=>(const ReadyEntry&) const = default;
};
using ReadyQueue = std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>>;

struct Event {
  Time time;
  uint64_t seq = 0;  // issue order breaks ties, so runs are deterministic
  uint32_t npu = 0;  // kCollectiveEnd: the end of contended collective `node`, valid if `version` is current
  uint32_t node = 0;
  uint32_t version = 0;
  auto operator<=>(const Event&) const = default;
};
constexpr uint32_t kCollectiveEnd = UINT32_MAX;

// A collective whose end moves with the collectives it shares links with.
struct ContendedCollective {
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (npu, node)
  size_t report = 0;                                   // index in RunReport::collectives
};

struct Executor {
  std::vector<uint32_t> pending_deps;
  std::vector<NodeState> state;
  std::vector<Time> issued_at;
  std::vector<Time> transfer_start;  // communication nodes: when the data could start moving (all peers there)
  std::array<ReadyQueue, 4> ready;
  std::array<int64_t, kLimited> holder{-1, -1, -1};           // node holding each limited resource
  std::unordered_map<uint32_t, uint32_t> collectives_issued;  // group -> count
  std::vector<uint32_t> collective_index;                     // per node: its k on its group
  uint64_t done = 0;
  Time finish;
  std::vector<Span> compute_spans;
  std::vector<Span> cpu_spans;       // CPU operators (is_cpu_op COMP nodes)
  std::vector<Span> transfer_spans;  // communication moving data
  // With a critical path, transfer spans with their nodes (start, end, node) instead of transfer_spans.
  std::vector<std::tuple<Time, Time, uint32_t>> transfers;
  std::vector<Span> wait_spans;  // communication waiting for a peer to issue its side
};

struct CollectiveInstance {
  CommType type = CommType::AllReduce;
  Bytes bytes;
  Time first_issue;
  Time last_issue;
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (npu, node) in issue order
};

struct SentMessage {
  Time arrival;
  uint32_t npu = 0;
  uint32_t node = 0;
  Bytes bytes;
};

struct PostedReceive {
  Time posted;
  uint32_t npu = 0;
  uint32_t node = 0;
  Bytes bytes;
};

struct Channel {
  std::deque<SentMessage> sent;
  std::deque<PostedReceive> posted;
};

Resource resource_of(const WorkloadNode& n) {
  switch (n.type) {
    case NodeType::Comp:
      return n.is_cpu_op ? Resource::Cpu : Resource::Compute;
    case NodeType::CommColl:
    case NodeType::CommSend:
      return Resource::Comm;
    default:
      return Resource::Free;
  }
}

Time total(const std::vector<Span>& spans) {
  Time t = Time::zero();
  for (const Span& s : spans)
    t += s.second - s.first;
  return t;
}

// Length of the intersection of two merged span lists.
Time overlap(const std::vector<Span>& a, const std::vector<Span>& b) {
  Time t = Time::zero();
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const Time lo = std::max(a[i].first, b[j].first);
    const Time hi = std::min(a[i].second, b[j].second);
    if (lo < hi)
      t += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return t;
}

class Runtime {
 public:
  Runtime(const Workload& workload, const Topology& topology, const RuntimeOptions& options)
      : workload_(workload),
        topology_(topology),
        options_(options),
        timer_(topology,
               CollectiveTimerOptions{options.model, options.system, wants_links(), options.packet, options.nccl,
                                      options.whole_all_to_all_direct, options.synthesize_collectives}),
        p2p_(make_message_cost(topology, options.system != nullptr ? AstraCompat::full() : AstraCompat{})),
        memory_(options.memory) {
    check_inputs();
    if (wants_links()) {
      links_.emplace(topology);
      replicas_.emplace(workload, *links_);
    }
    if (links_ && options.link_load_bins > 0)
      load_.emplace(topology);
    if (options.lower_bounds || options.collectives_at_bound)
      bounds_.emplace(topology);
    if (options.critical_path)
      log_.emplace(workload);
    if (options.overlap_slowdown > 0)
      slowdown_.emplace(options.overlap_slowdown, workload.npus.size());
    if (wants_contention())
      contention_.emplace(topology);
    executors_.resize(workload.npus.size());
    for (uint32_t npu = 0; npu < executors_.size(); ++npu)
      init_executor(npu);
  }

  RunReport run() {
    int64_t nodes = 0;
    for (const auto& npu : workload_.npus)
      nodes += static_cast<int64_t>(npu.nodes.size());
    ProgressScope progress(options_.progress, "sim: trace nodes done", nodes);
    for (uint32_t npu = 0; npu < executors_.size(); ++npu)
      dispatch(npu);
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      if (e.npu != kCollectiveEnd && e.version != 0 && !slowdown_->current(e.npu, e.node, e.version))
        continue;  // a slowed compute node whose end moved after this event was queued
      now_ = e.time;
      ++report_.events;
      if (e.npu == kCollectiveEnd) {
        end_contended(e.node, e.version);
        continue;
      }
      complete(e.npu, e.node);
      progress.advance();
    }
    for (uint32_t npu = 0; npu < executors_.size(); ++npu) {
      if (executors_[npu].done < workload_.npus[npu].nodes.size())
        throw DeadlockError(deadlock_report());
    }
    summarise();
    if (log_)
      report_.critical_path = walk_critical_path(report_, *log_, issued_times());
    if (links_ && options_.link_stats)
      report_.links = links_->stats();
    if (load_)
      report_.link_load = load_->series(report_.collectives, report_.finish, options_.link_load_bins);
    return std::move(report_);
  }

 private:
  bool wants_contention() const {
    return options_.contention && network_models().get(options_.model).info().fair_sharing;
  }
  bool wants_links() const {
    return (options_.link_stats || options_.link_load_bins > 0 || wants_contention()) &&
           network_models().get(options_.model).info().link_stats;
  }

  void check_inputs() const {
    if (workload_.npus.size() != topology_.npu_count()) {
      throw Error(workload_.prefix, "",
                  fmt::format("has {} {} but the network has {} NPUs", workload_.npus.size(),
                              workload_.symmetry ? "ranks (classes.json: npus)" : "rank files", topology_.npu_count()));
    }
    const AstraSystemConfig* sys = options_.system;
    if (sys != nullptr && sys->roofline_enabled && (sys->peak_perf_tflops <= 0 || sys->local_mem_bw_gbps <= 0)) {
      throw Error(sys->path, "roofline-enabled", "needs peak-perf and local-mem-bw > 0");
    }
  }

  std::vector<const std::vector<Time>*> issued_times() const {
    std::vector<const std::vector<Time>*> out;
    for (const Executor& ex : executors_)
      out.push_back(&ex.issued_at);
    return out;
  }

  void init_executor(uint32_t npu) {
    const NpuGraph& g = workload_.npus[npu];
    Executor& ex = executors_[npu];
    const size_t n = g.nodes.size();
    ex.pending_deps.resize(n);
    ex.state.assign(n, NodeState::Waiting);
    ex.issued_at.assign(n, Time::zero());
    ex.transfer_start.assign(n, Time::zero());
    ex.collective_index.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      ex.pending_deps[i] = static_cast<uint32_t>(g.dep_count(i));
      if (ex.pending_deps[i] == 0)
        make_ready(npu, i);
    }
  }

  Resource queue_of(const WorkloadNode& n) const { return options_.resource_limits ? resource_of(n) : Resource::Free; }

  void make_ready(uint32_t npu, uint32_t node) {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    Executor& ex = executors_[npu];
    ex.state[node] = NodeState::Ready;
    const bool explicit_order =
        options_.system != nullptr && options_.system->scheduling_policy == SchedulingPolicy::Explicit;
    const int64_t key = explicit_order && resource_of(n) == Resource::Comm ? -n.priority : 0;
    ex.ready[static_cast<size_t>(queue_of(n))].push(ReadyEntry{key, n.id, node});
  }

  void dispatch(uint32_t npu) {
    Executor& ex = executors_[npu];
    for (size_t r = 0; r < kLimited; ++r) {
      if (ex.holder[r] >= 0 || ex.ready[r].empty())
        continue;
      const uint32_t node = ex.ready[r].top().node;
      ex.ready[r].pop();
      ex.holder[r] = node;
      issue(npu, node);
    }
    ReadyQueue& free_queue = ex.ready[static_cast<size_t>(Resource::Free)];
    while (!free_queue.empty()) {
      const uint32_t node = free_queue.top().node;
      free_queue.pop();
      issue(npu, node);
    }
  }

  // `version`: a slowed compute node's (overlap_slowdown.hpp); 0 for every other event.
  void schedule(uint32_t npu, uint32_t node, Time at, uint32_t version = 0) {
    // Time additions saturate at Time::max(); a run that reaches it would report a clamped, plausible-looking
    // finish time, so it is an input error naming the node that got there.
    if (at >= Time::max()) {
      const WorkloadNode& n = workload_.npus[npu].nodes[node];
      throw Error(workload_.npus[npu].file, fmt::format("node {}", n.id),
                  "finishes past the 106-day range of simulated time (durations or sizes too large)");
    }
    events_.push(Event{at, seq_++, npu, node, version});
  }

  // Compute slowed by overlapping communication (overlap_slowdown.hpp): communication on `npu` starts or stops
  // moving data, and the ends of its running GPU compute nodes move.
  void transfer_begins(uint32_t npu) {
    if (slowdown_)
      reschedule(npu, slowdown_->comm_begin(npu, now_));
  }
  void transfer_ends(uint32_t npu) {
    if (slowdown_)
      reschedule(npu, slowdown_->comm_end(npu, now_));
  }
  void reschedule(uint32_t npu, const std::vector<OverlapSlowdown::Moved>& moved) {
    for (const OverlapSlowdown::Moved& m : moved)
      schedule(npu, m.node, m.end, m.version);
  }

  void issue(uint32_t npu, uint32_t node) {
    Executor& ex = executors_[npu];
    ex.state[node] = NodeState::Issued;
    ex.issued_at[node] = now_;
    ex.transfer_start[node] = now_;  // a collective or a receive that waits for a peer moves it later
    if (log_)
      log_->npus[npu].issued_by[node] = releaser_;
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    switch (n.type) {
      case NodeType::Comp:
        if (slowdown_ && !n.is_cpu_op) {
          uint32_t version = 0;
          const Time end = slowdown_->start(npu, node, compute_time(npu, n), now_, version);
          schedule(npu, node, end, version);
          return;
        }
        schedule(npu, node, now_ + compute_time(npu, n));
        return;
      case NodeType::CommColl:
        issue_collective(npu, node);
        return;
      case NodeType::CommSend:
        issue_send(npu, node);
        return;
      case NodeType::CommRecv:
        issue_receive(npu, node);
        return;
      case NodeType::MemLoad:
      case NodeType::MemStore:
        issue_memory(npu, node);
        return;
      default:
        schedule(npu, node, now_);
        return;
    }
  }

  Time compute_time(uint32_t npu, const WorkloadNode& n) const {
    const AstraSystemConfig* sys = options_.system;
    if (sys != nullptr && sys->roofline_enabled && !n.is_cpu_op) {
      const double peak = sys->peak_perf_tflops * 1e12;
      const double intensity =
          n.tensor_size.count() > 0 ? static_cast<double>(n.num_ops) / static_cast<double>(n.tensor_size.count()) : 0;
      const double perf = n.tensor_size.count() > 0 ? std::min(sys->local_mem_bw_gbps * 1e9 * intensity, peak) : peak;
      const double seconds = (perf > 0 ? static_cast<double>(n.num_ops) / perf : 0) * options_.compute_scale;
      // num_ops far beyond the peak would overflow Time: an input error, not a silently clamped answer.
      const Time t =
          checked_time_from_seconds(seconds, workload_.npus[npu].file, fmt::format("node {}: num_ops", n.id));
      return std::max(t, Time::ns(1));
    }
    // ASTRA-sim replays microseconds and charges at least one tick (1 ns) for a zero-length node.
    const Time replayed = n.is_cpu_op || options_.compute_scale == 1 ? n.duration : scaled(n.duration);
    return replayed == Time::zero() ? Time::ns(1) : replayed;
  }

  Time scaled(Time t) const {
    return Time::ps(std::llround(static_cast<double>(t.picoseconds()) * options_.compute_scale));
  }

  void issue_memory(uint32_t npu, uint32_t node) {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    if (!memory_.available()) {
      throw Error(workload_.npus[npu].file, fmt::format("node {}", n.id),
                  fmt::format("{} needs a remote memory (--memory with a memory-type other than NO_MEMORY_EXPANSION)",
                              to_string(n.type)));
    }
    schedule(npu, node, memory_.access(npu, n.bytes, now_));
  }

  void issue_collective(uint32_t npu, uint32_t node) {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    Executor& ex = executors_[npu];
    const CommGroup& group = workload_.groups[n.group];
    const uint32_t k = ex.collectives_issued[n.group]++;
    ex.collective_index[node] = k;
    if (n.comm == CommType::Broadcast || group.npus.size() == 1)
      transfer_begins(npu);               // moves data from its issue, with no peer to wait for
    if (n.comm == CommType::Broadcast) {  // replayed, as ASTRA-sim does
      schedule(npu, node, options_.free_communication ? now_ : now_ + n.duration);
      return;
    }
    if (group.npus.size() == 1) {
      schedule(npu, node, now_);
      return;
    }
    const uint64_t key = (uint64_t{n.group} << 32) | k;
    auto [it, inserted] = collectives_.try_emplace(key);
    CollectiveInstance& c = it->second;
    if (inserted) {
      c.type = n.comm;
      c.bytes = n.bytes;
      c.first_issue = now_;
    } else {
      check_same_collective(c, npu, node);
    }
    c.last_issue = now_;
    c.members.emplace_back(npu, node);
    if (c.members.size() == workload_.issuing_members(n.group)) {
      start_collective(n.group, c);
      collectives_.erase(it);
    }
  }

  void check_same_collective(const CollectiveInstance& c, uint32_t npu, uint32_t node) const {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    const auto [first_npu, first_node] = c.members.front();
    const WorkloadNode& first = workload_.npus[first_npu].nodes[first_node];
    if (n.comm == c.type && n.bytes == c.bytes && n.fused_tiles == first.fused_tiles && n.fused_op == first.fused_op)
      return;
    if (n.comm == c.type && n.bytes == c.bytes) {
      throw Error(workload_.npus[npu].file, fmt::format("node {}", n.id),
                  fmt::format("fusion marks differ within one collective: here fused_op '{}' with {} tiles, on NPU "
                              "{} ({} node {}) '{}' with {} tiles",
                              n.fused_op, n.fused_tiles, first_npu, workload_.npus[first_npu].file, first.id,
                              first.fused_op, first.fused_tiles));
    }
    const WorkloadNode& other = first;
    throw Error(workload_.npus[npu].file, fmt::format("node {}", n.id),
                fmt::format("{} of {} bytes is collective #{} on group '{}', but on NPU {} ({} node {}) that "
                            "collective is {} of {} bytes",
                            to_string(n.comm), n.bytes.count(), executors_[npu].collective_index[node],
                            workload_.groups[n.group].name, first_npu, workload_.npus[first_npu].file, other.id,
                            to_string(other.comm), other.bytes.count()));
  }

  // A fused collective (fused_ops.hpp) lasts what its tile pipeline adds after its compute input; others `whole`.
  Time fused_tail(const CollectiveInstance& c, Time whole, const std::vector<uint32_t>& group) {
    const auto [npu, node] = c.members.front();
    const NpuGraph& g = workload_.npus[npu];
    if (g.nodes[node].fused_tiles == 0)
      return whole;
    const Time compute = compute_time(npu, g.nodes[g.deps[g.dep_offsets[node]]]);
    report_.fused_ops.push_back(time_fused_op(g, node, compute, whole, c.type, c.bytes, group, timer_));
    return report_.fused_ops.back().fused - compute;
  }

  void start_collective(uint32_t group_index, const CollectiveInstance& c) {
    const CommGroup& group = workload_.groups[group_index];
    CollectiveReport r;
    r.type = c.type;
    r.group = group_index;
    r.npus = static_cast<uint32_t>(group.npus.size());
    r.comm_size = c.bytes;
    r.nccl_size = c.bytes;
    r.first_issue = c.first_issue;
    r.start = c.last_issue;
    r.end = c.last_issue;
    r.node_id = workload_.npus[c.members.front().first].nodes[c.members.front().second].id;
    r.fused = workload_.npus[c.members.front().first].nodes[c.members.front().second].fused_tiles > 0;
    for (const auto& [npu, node] : c.members) {
      executors_[npu].transfer_start[node] = now_;  // the members before the last waited for it
      transfer_begins(npu);
    }
    if (log_) {
      for (const auto& [npu, node] : c.members)
        log_->npus[npu].ended_by[node] = static_cast<uint32_t>(report_.collectives.size());
      log_->collectives.push_back(c.members.back());
    }
    if (simulated_kind(c.type) && (options_.free_communication || options_.collectives_at_bound)) {
      time_changed_collective(group_index, c, r);
    } else if (simulated_kind(c.type)) {
      const TimedCollective& t = timer_.time(c.type, c.bytes, group.npus);
      const Time duration = fused_tail(c, t.duration, group.npus);
      r.end = r.start + duration;
      r.algorithm = t.algorithm;
      r.nccl_size = t.nccl_size;
      if (bounds_)
        r.lower_bound = bounds_->bound(c.type, c.bytes, group.npus);
      if (links_)
        replicas_->add_collective(group_index, t);
      if (load_)
        load_->add_collective(report_.collectives.size(), replicas_->link_bytes(group_index, t));
      if (contention_) {
        const size_t index = report_.collectives.size();
        report_.collectives.push_back(std::move(r));
        start_contended(group_index, t, duration, c.members, index);
        return;
      }
    } else {
      r.algorithm = "barrier";
    }
    for (const auto& [npu, node] : c.members)
      schedule(npu, node, r.end);
    report_.collectives.push_back(std::move(r));
  }

  // What-if runs: free, or at the group's physical lower bound; uncontended, and fused operators unfused.
  void time_changed_collective(uint32_t group_index, const CollectiveInstance& c, CollectiveReport& r) {
    const std::vector<uint32_t>& members = workload_.groups[group_index].npus;
    if (bounds_)
      r.lower_bound = bounds_->bound(c.type, c.bytes, members);
    r.algorithm = options_.free_communication ? "free" : "lower bound";
    r.end = r.start + (options_.free_communication ? Time::zero() : r.lower_bound);
  }

  void start_contended(uint32_t group, const TimedCollective& t, Time duration,
                       const std::vector<std::pair<uint32_t, uint32_t>>& members, size_t report) {
    const std::vector<EndChange>& changes = contention_->start(now_, duration, replicas_->link_bytes(group, t));
    // The new collective is always among the changes; its id may reuse a finished one's slot.
    for (const EndChange& e : changes) {
      if (e.id >= contended_.size())
        contended_.resize(e.id + 1);
    }
    const uint32_t id = changes.back().id;
    contended_[id] = ContendedCollective{members, report};
    queue_ends(changes);
  }

  void queue_ends(const std::vector<EndChange>& changes) {
    for (const EndChange& e : changes)
      events_.push(Event{e.end, seq_++, kCollectiveEnd, e.id, e.version});
  }

  void end_contended(uint32_t id, uint32_t version) {
    if (!contention_->current(id, version))
      return;  // superseded: the collective's rate changed after this end was queued
    const ContendedCollective done = std::move(contended_[id]);
    report_.collectives[done.report].end = now_;
    for (const auto& [npu, node] : done.members)
      schedule(npu, node, now_);
    queue_ends(contention_->finish(id, now_));
  }

  static std::tuple<uint32_t, uint32_t, int64_t> channel_key(uint32_t src, uint32_t dst, int64_t tag) {
    return {src, dst, tag};
  }

  void check_sizes(uint32_t send_npu, uint32_t send_node, uint32_t recv_npu, uint32_t recv_node) const {
    const WorkloadNode& s = workload_.npus[send_npu].nodes[send_node];
    const WorkloadNode& r = workload_.npus[recv_npu].nodes[recv_node];
    if (s.bytes == r.bytes)
      return;
    throw Error(workload_.npus[recv_npu].file, fmt::format("node {}", r.id),
                fmt::format("receives {} bytes (tag {}) from NPU {}, but the matching send ({} node {}) sends {} bytes",
                            r.bytes.count(), r.tag, send_npu, workload_.npus[send_npu].file, s.id, s.bytes.count()));
  }

  void issue_send(uint32_t npu, uint32_t node) {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    const auto dst = static_cast<uint32_t>(n.peer);
    const Time arrival = options_.free_communication ? now_ : now_ + p2p_->delay(NodeId{npu}, NodeId{dst}, n.bytes);
    if (links_) {
      const std::vector<LinkShare>& added = replicas_->add_message(npu, dst, n.bytes);
      if (load_)
        load_->add_message(now_, arrival, added);
    }
    schedule(npu, node, arrival);
    transfer_begins(npu);
    Channel& ch = channels_[channel_key(npu, dst, n.tag)];
    if (!ch.posted.empty()) {
      const PostedReceive r = ch.posted.front();
      ch.posted.pop_front();
      check_sizes(npu, node, r.npu, r.node);
      if (options_.record_timeline)
        report_.flows.push_back(MessageFlow{npu, node, r.npu, r.node});
      log_message(npu, node, r.npu, r.node);
      executors_[r.npu].transfer_start[r.node] = now_;  // the receive waited for this send until now
      transfer_begins(r.npu);
      schedule(r.npu, r.node, std::max(arrival, r.posted));
      return;
    }
    ch.sent.push_back(SentMessage{arrival, npu, node, n.bytes});
  }

  void log_message(uint32_t send_npu, uint32_t send_node, uint32_t recv_npu, uint32_t recv_node) {
    if (!log_)
      return;
    log_->npus[recv_npu].ended_by[recv_node] = static_cast<uint32_t>(log_->messages.size());
    log_->messages.emplace_back(send_npu, send_node);
  }

  void issue_receive(uint32_t npu, uint32_t node) {
    const WorkloadNode& n = workload_.npus[npu].nodes[node];
    Channel& ch = channels_[channel_key(static_cast<uint32_t>(n.peer), npu, n.tag)];
    if (!ch.sent.empty()) {
      const SentMessage m = ch.sent.front();
      ch.sent.pop_front();
      check_sizes(m.npu, m.node, npu, node);
      if (options_.record_timeline)
        report_.flows.push_back(MessageFlow{m.npu, m.node, npu, node});
      log_message(m.npu, m.node, npu, node);
      transfer_begins(npu);
      schedule(npu, node, std::max(m.arrival, now_));
      return;
    }
    ch.posted.push_back(PostedReceive{now_, npu, node, n.bytes});
  }

  void complete(uint32_t npu, uint32_t node) {
    Executor& ex = executors_[npu];
    const NpuGraph& g = workload_.npus[npu];
    const WorkloadNode& n = g.nodes[node];
    ex.state[node] = NodeState::Done;
    ++ex.done;
    ex.finish = std::max(ex.finish, now_);
    if (log_) {
      log_->last = {npu, node};  // events complete in time order: the last one finishes the run
      releaser_ = node;          // whatever this completion issues, it released
    }
    const Resource r = queue_of(n);
    if (r != Resource::Free)
      ex.holder[static_cast<size_t>(r)] = -1;
    if (slowdown_ && n.type == NodeType::Comp && !n.is_cpu_op)
      slowdown_->finish(npu, node);
    if (n.type == NodeType::CommColl || n.type == NodeType::CommSend || n.type == NodeType::CommRecv)
      transfer_ends(npu);
    record(npu, node, n);
    for (uint32_t k = g.child_offsets[node]; k < g.child_offsets[node + 1]; ++k) {
      const uint32_t child = g.children[k];
      if (--ex.pending_deps[child] == 0)
        make_ready(npu, child);
    }
    dispatch(npu);
  }

  void record(uint32_t npu, uint32_t node, const WorkloadNode& n) {
    Executor& ex = executors_[npu];
    const Span span{ex.issued_at[node], now_};
    const Span wait{ex.issued_at[node], ex.transfer_start[node]};
    Track track = Track::Compute;
    switch (n.type) {
      case NodeType::Comp:
        (n.is_cpu_op ? ex.cpu_spans : ex.compute_spans).push_back(span);
        break;
      case NodeType::CommColl:
      case NodeType::CommSend:
      case NodeType::CommRecv:
        if (wait.first < wait.second)
          ex.wait_spans.push_back(wait);
        if (log_) {
          ex.transfers.emplace_back(wait.second, now_, node);
        } else {
          ex.transfer_spans.emplace_back(wait.second, now_);
        }
        track = Track::Comm;
        break;
      case NodeType::MemLoad:
      case NodeType::MemStore:
        track = Track::Memory;
        break;
      default:
        return;
    }
    if (options_.record_timeline)
      report_.timeline.push_back(TimelineEvent{npu, node, track, span.first, span.second});
  }

  void summarise() {
    report_.npus.resize(executors_.size());
    for (uint32_t npu = 0; npu < executors_.size(); ++npu) {
      Executor& ex = executors_[npu];
      NpuReport& r = report_.npus[npu];
      const std::vector<Span> compute = merged(std::move(ex.compute_spans));
      const std::vector<Span> transfer = log_ ? log_exposed(npu, compute) : merged(std::move(ex.transfer_spans));
      const std::vector<Span> wait = merged(std::move(ex.wait_spans));
      std::vector<Span> busy = compute;
      busy.insert(busy.end(), transfer.begin(), transfer.end());
      busy = merged(std::move(busy));
      r.finish = ex.finish;
      r.compute = total(compute);
      r.exposed_comm = total(transfer) - overlap(transfer, compute);
      r.peer_wait = total(wait) - overlap(wait, busy);
      // CPU operators are counted only where nothing above runs: on a GPU trace they launch kernels beside the
      // compute; on a CPU run (gloo) they are the compute, and the GPU columns stay empty.
      std::vector<Span> accounted = busy;
      accounted.insert(accounted.end(), wait.begin(), wait.end());
      const std::vector<Span> cpu = merged(std::move(ex.cpu_spans));
      r.cpu = total(cpu) - overlap(cpu, merged(std::move(accounted)));
      r.idle = r.finish - r.compute - r.exposed_comm - r.peer_wait - r.cpu;
      r.nodes = workload_.npus[npu].nodes.size();
      count_compute_sources(workload_.npus[npu].nodes);
      if (log_) {
        for (const WorkloadNode& n : workload_.npus[npu].nodes)
          log_->count(npu, n);  // while this NPU's nodes are in cache
      }
      report_.finish = std::max(report_.finish, r.finish);
    }
  }

  // Charges the NPU's exposed communication to its transfers (critical_path.hpp); returns the transfers merged,
  // from the one sort both need.
  std::vector<Span> log_exposed(uint32_t npu, const std::vector<Span>& compute) {
    std::vector<std::tuple<Time, Time, uint32_t>> transfers = std::move(executors_[npu].transfers);
    for (const auto& [node, time] : charge_exposed_blocking_first(transfers, compute, log_->waited_for(npu)))
      log_->charge(npu, node, time);
    std::vector<Span> out;
    for (const auto& [start, end, node] : transfers) {
      if (!out.empty() && start <= out.back().second) {
        out.back().second = std::max(out.back().second, end);
      } else {
        out.emplace_back(start, end);
      }
    }
    return out;
  }

  // Where each COMP node's time came from (the rule of compute_time()).
  void count_compute_sources(const std::vector<WorkloadNode>& nodes) {
    const AstraSystemConfig* sys = options_.system;
    for (const WorkloadNode& n : nodes) {
      if (n.type != NodeType::Comp)
        continue;
      if (n.is_cpu_op)
        ++report_.compute_sources.cpu_ops;
      else if (sys != nullptr && sys->roofline_enabled)
        ++report_.compute_sources.roofline;
      else
        ++report_.compute_sources.replayed;
    }
  }

  std::string deadlock_report() const;
  std::string waiting_reason(uint32_t npu, uint32_t node) const;
  std::string cycle_in(uint32_t npu) const;

  const Workload& workload_;
  const Topology& topology_;
  const RuntimeOptions& options_;
  CollectiveTimer timer_;
  std::unique_ptr<MessageCost> p2p_;
  RemoteMemory memory_;
  std::optional<LinkUsage> links_;
  std::optional<ReplicaLinks> replicas_;  // link loads of collectives with their replicas (symmetric workloads)
  std::optional<LinkLoadRecorder> load_;
  std::optional<GroupBounds> bounds_;
  std::optional<CollectiveContention> contention_;
  std::optional<OverlapSlowdown> slowdown_;     // with RuntimeOptions::overlap_slowdown > 0
  std::optional<ReleaseLog> log_;               // with RuntimeOptions::critical_path
  uint32_t releaser_ = ReleaseLog::kNone;       // the node whose completion is being processed (issue causes)
  std::vector<ContendedCollective> contended_;  // by contention id
  std::vector<Executor> executors_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::unordered_map<uint64_t, CollectiveInstance> collectives_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, Channel> channels_;
  Time now_;
  uint64_t seq_ = 0;
  RunReport report_;
};

std::string Runtime::waiting_reason(uint32_t npu, uint32_t node) const {
  const NpuGraph& g = workload_.npus[npu];
  const Executor& ex = executors_[npu];
  const WorkloadNode& n = g.nodes[node];
  if (ex.state[node] == NodeState::Waiting) {
    std::string deps;
    int listed = 0;
    for (uint32_t k = g.dep_offsets[node]; k < g.dep_offsets[node + 1] && listed < 4; ++k) {
      if (ex.state[g.deps[k]] == NodeState::Done)
        continue;
      deps += fmt::format("{}{}", listed++ == 0 ? "" : ", ", g.nodes[g.deps[k]].id);
    }
    return fmt::format("waits for node(s) {}", deps);
  }
  if (ex.state[node] == NodeState::Ready) {
    const int64_t holder = ex.holder[static_cast<size_t>(queue_of(n))];
    return fmt::format("ready, waiting for its resource, held by node {}", holder >= 0 ? g.nodes[holder].id : 0);
  }
  if (n.type == NodeType::CommRecv) {
    return fmt::format("receive of {} bytes from NPU {} (tag {}): no matching send was issued", n.bytes.count(), n.peer,
                       n.tag);
  }
  if (n.type == NodeType::CommColl) {
    const CommGroup& group = workload_.groups[n.group];
    const uint32_t k = ex.collective_index[node];
    std::string missing;
    int listed = 0;
    int absent = 0;
    for (uint32_t member : group.npus) {
      if (workload_.symmetry && !workload_.symmetry->is_representative(member))
        continue;  // copies of a representative issue nothing themselves
      const auto it = executors_[member].collectives_issued.find(n.group);
      if (it != executors_[member].collectives_issued.end() && it->second > k)
        continue;
      ++absent;
      if (listed < 8)
        missing += fmt::format("{}{}", listed++ == 0 ? "" : ", ", member);
    }
    return fmt::format("{} #{} on group '{}' ({} NPUs): never reached by NPU(s) {}{}", to_string(n.comm), k, group.name,
                       group.npus.size(), missing, absent > listed ? fmt::format(" and {} more", absent - listed) : "");
  }
  return "issued, not finished";
}

// A dependency cycle among the NPU's unfinished nodes, as "a -> b -> a", or "" when there is none.
std::string Runtime::cycle_in(uint32_t npu) const {
  const NpuGraph& g = workload_.npus[npu];
  const Executor& ex = executors_[npu];
  // Peel off unfinished nodes whose unfinished dependencies can all be peeled (Kahn); what remains hangs on a cycle.
  std::vector<uint32_t> pending(g.nodes.size(), 0);
  std::vector<uint32_t> queue;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (ex.state[i] == NodeState::Done)
      continue;
    for (uint32_t k = g.dep_offsets[i]; k < g.dep_offsets[i + 1]; ++k)
      pending[i] += ex.state[g.deps[k]] != NodeState::Done;
    if (pending[i] == 0)
      queue.push_back(i);
  }
  while (!queue.empty()) {
    const uint32_t i = queue.back();
    queue.pop_back();
    for (uint32_t k = g.child_offsets[i]; k < g.child_offsets[i + 1]; ++k) {
      if (--pending[g.children[k]] == 0)
        queue.push_back(g.children[k]);
    }
  }
  auto on_cycle_side = [&](uint32_t i) { return ex.state[i] != NodeState::Done && pending[i] > 0; };
  uint32_t start = UINT32_MAX;
  for (uint32_t i = 0; i < g.nodes.size() && start == UINT32_MAX; ++i) {
    if (on_cycle_side(i))
      start = i;
  }
  if (start == UINT32_MAX)
    return "";
  // Walk backwards along unpeeled dependencies until a node repeats: that loop is a cycle.
  std::vector<uint32_t> path;
  std::vector<int64_t> position(g.nodes.size(), -1);
  uint32_t at = start;
  while (position[at] < 0) {
    position[at] = static_cast<int64_t>(path.size());
    path.push_back(at);
    for (uint32_t k = g.dep_offsets[at]; k < g.dep_offsets[at + 1]; ++k) {
      if (on_cycle_side(g.deps[k])) {
        at = g.deps[k];
        break;
      }
    }
  }
  std::string text;
  for (auto i = static_cast<size_t>(position[at]); i < path.size(); ++i)
    text += fmt::format("{} <- ", g.nodes[path[i]].id);
  return text + std::to_string(g.nodes[at].id);
}

std::string Runtime::deadlock_report() const {
  std::string text = fmt::format("deadlock at {} ns: no event is pending but nodes remain", now_.picoseconds() / 1000);
  size_t stuck = 0;
  for (uint32_t npu = 0; npu < executors_.size(); ++npu) {
    const Executor& ex = executors_[npu];
    const NpuGraph& g = workload_.npus[npu];
    if (ex.done == g.nodes.size())
      continue;
    if (++stuck > 16)
      continue;
    text += fmt::format("\n  NPU {} ({}): {} of {} nodes unfinished", npu, g.file, g.nodes.size() - ex.done,
                        g.nodes.size());
    const std::string cycle = cycle_in(npu);
    if (!cycle.empty())
      text += fmt::format("\n    dependency cycle: node {}", cycle);
    int listed = 0;
    // Issued nodes first: they say what the NPU is blocked on; then the first waiting ones.
    for (int pass = 0; pass < 2 && listed < 3; ++pass) {
      for (uint32_t i = 0; i < g.nodes.size() && listed < 3; ++i) {
        const bool issued = ex.state[i] == NodeState::Issued;
        if (ex.state[i] == NodeState::Done || issued != (pass == 0))
          continue;
        text += fmt::format("\n    node {} ({} '{}'): {}", g.nodes[i].id, to_string(g.nodes[i].type), g.nodes[i].name,
                            waiting_reason(npu, i));
        ++listed;
      }
    }
  }
  if (stuck > 16)
    text += fmt::format("\n  ... and {} more NPUs", stuck - 16);
  return text;
}

}  // namespace

RunReport run_workload(const Workload& workload, const Topology& topology, const RuntimeOptions& options) {
  Runtime runtime(workload, topology, options);
  RunReport report = runtime.run();
  expand_class_reports(workload, report);
  return report;
}

}  // namespace chorus
