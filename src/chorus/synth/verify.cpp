// Certificates of a synthesized collective (see verify.hpp) and the routes that replay it (synth_routes.hpp).
#include "chorus/synth/verify.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/network/aware_model.hpp"
#include "chorus/synth/all_to_all.hpp"
#include "chorus/synth/all_to_all_bound.hpp"
#include "chorus/synth/synth_routes.hpp"

namespace chorus {

SynthRoutes::SynthRoutes(const Topology& topology, const SynthResult& result)
    : topology_(topology), link_(result.ops.size()), transfer_(result.ops.size()) {
  for (uint32_t i = 0; i < result.ops.size(); ++i) {
    link_[i] = result.ops[i].link.value;
    transfer_[i] = result.schedule.is_transfer(OpId{i});
  }
}

std::span<const uint32_t> SynthRoutes::route(OpId op) const {
  if (!transfer_[op.value])
    return {};
  return {link_.data() + op.value, 1};
}

namespace {

bool gathers(CollectiveKind kind) {
  return kind == CollectiveKind::AllGather || kind == CollectiveKind::Broadcast || kind == CollectiveKind::AllReduce ||
         kind == CollectiveKind::AllToAll;
}

// A reduced partial: how many contributions it holds and the sum of their random tags (a double-counted or
// missing contribution changes the pair with overwhelming probability; exact sets would cost n bits per op).
struct Partial {
  uint64_t count = 0;
  uint64_t tags = 0;
  Partial& operator+=(const Partial& o) {
    count += o.count;
    tags += o.tags;
    return *this;
  }
};

class Checker {
 public:
  Checker(const Topology& topology, const SynthResult& r) : t_(topology), r_(r), s_(r.schedule) {
    n_ = static_cast<uint32_t>(r.members.size());
    for (uint32_t i = 0; i < n_; ++i)
      rank_[r.members[i]] = i;
    std::mt19937_64 rng(12345);
    for (uint32_t i = 0; i < n_; ++i) {
      tag_.push_back(rng());
      all_.count += 1;
      all_.tags += tag_.back();
    }
  }

  SynthCheck run() {
    timing();
    if (result_.ok)
      data();
    if (result_.ok)
      aware();
    return result_;
  }

 private:
  void fail(std::string problem) {
    if (result_.ok) {
      result_.ok = false;
      result_.problem = std::move(problem);
    }
  }

  int64_t rank(NodeId node) const {
    const auto it = rank_.find(node.value);
    return it == rank_.end() ? int64_t{-1} : static_cast<int64_t>(it->second);
  }

  void timing() {
    std::vector<std::vector<std::pair<Time, Time>>> on_link(t_.link_count());
    for (uint32_t i = 0; i < s_.size() && result_.ok; ++i) {
      const OpId op{i};
      const SynthOp& x = r_.ops[i];
      for (OpId d : s_.deps(op)) {
        if (r_.ops[d.value].finish > x.start)
          fail(fmt::format("op {} starts at {} before its dependency {} ends", i, to_string(x.start), d.value));
      }
      if (!s_.is_transfer(op))
        continue;
      const LinkId l = x.link;
      if (l.value >= t_.link_count() || t_.link_src(l) != s_.src(op) || t_.link_dst(l) != s_.dst(op)) {
        fail(fmt::format("op {} ({} -> {}) is not on its link", i, s_.src(op).value, s_.dst(op).value));
        continue;
      }
      const Time tau = t_.link_latency(l) + transfer_time(s_.bytes(op), t_.link_bandwidth(l));
      if (x.finish - x.start != tau)
        fail(fmt::format("op {} lasts {}, the link needs {}", i, to_string(x.finish - x.start), to_string(tau)));
      on_link[l.value].push_back({x.start, x.finish});
    }
    for (uint32_t l = 0; l < on_link.size() && result_.ok; ++l) {
      auto& v = on_link[l];
      std::sort(v.begin(), v.end());
      for (size_t k = 1; k < v.size(); ++k) {
        if (v[k].first < v[k - 1].second)
          fail(fmt::format("link {} -> {} carries two transfers at {}", t_.link_src(LinkId{l}).value,
                           t_.link_dst(LinkId{l}).value, to_string(v[k].first)));
      }
    }
  }

  // Origin rank of a gathered chunk, or -1 when it only appears through a local "reduced" step (All-Reduce).
  int64_t origin(uint32_t c) const {
    switch (r_.kind) {
      case CollectiveKind::AllGather:
        return c % n_;
      case CollectiveKind::Broadcast:
        return r_.root_rank;
      case CollectiveKind::AllToAll:
        return (c / n_) % n_;
      default:
        return -1;
    }
  }
  int64_t owner(uint32_t c) const {
    switch (r_.kind) {
      case CollectiveKind::Reduce:
        return r_.root_rank;
      case CollectiveKind::AllToAll:
        return c % n_;
      default:
        return c % n_;
    }
  }

  void data() {
    if (!r_.bundle_start.empty())
      return bundle_data();
    const uint32_t chunks = r_.chunk_count;
    std::vector<Partial> partial(s_.size());
    std::vector<char> holds_after(s_.size(), 0);  // gather transfer / local step: the chunk is complete there
    std::vector<std::vector<char>> got(n_, std::vector<char>(r_.kind == CollectiveKind::AllToAll ? 0 : chunks, 0));
    std::vector<char> a2a_done(r_.kind == CollectiveKind::AllToAll ? chunks : 0, 0);
    for (uint32_t i = 0; i < s_.size() && result_.ok; ++i) {
      const OpId op{i};
      const uint32_t c = s_.chunk(op);
      if (!s_.is_transfer(op)) {
        check_local(op, partial);
        holds_after[i] = 1;
        continue;
      }
      const int64_t src = rank(s_.src(op));
      if (r_.kind == CollectiveKind::AllToAll && !a2a_bytes(op))
        return;
      if (r_.ops[i].reduce) {
        Partial p;
        if (src >= 0)
          p = {1, tag_[src]};
        for (OpId d : s_.deps(op)) {
          if (s_.chunk(d) == c && s_.is_transfer(d) && r_.ops[d.value].reduce && s_.dst(d) == s_.src(op))
            p += partial[d.value];
        }
        partial[i] = p;
        continue;
      }
      bool holds = src >= 0 && src == origin(c);
      for (OpId d : s_.deps(op)) {
        holds = holds || (s_.chunk(d) == c && holds_after[d.value] &&
                          (s_.is_transfer(d) ? s_.dst(d) == s_.src(op) : s_.src(d) == s_.src(op)));
      }
      if (!holds) {
        fail(fmt::format("op {} sends chunk {} from {} before it holds it", i, c, s_.src(op).value));
        return;
      }
      holds_after[i] = 1;
      const int64_t dst = rank(s_.dst(op));
      if (dst >= 0 && r_.kind == CollectiveKind::AllToAll && dst == owner(c))
        a2a_done[c] = 1;
      else if (dst >= 0 && r_.kind != CollectiveKind::AllToAll)
        got[dst][c] = 1;
    }
    if (result_.ok)
      check_final(partial, got, a2a_done);
  }

  // All-to-All: a transfer carries one chunk of its pair's demand (pair_bytes), all_to_all_chunk_bytes of it.
  bool a2a_bytes(OpId op) {
    const uint32_t c = s_.chunk(op), s = (c / n_) % n_, d = c % n_;
    const int64_t want = all_to_all_chunk_bytes(pair_demand(s, d), r_.chunks_per_npu);
    if (c >= r_.chunk_count || s == d || want == 0 || s_.bytes(op).count() != want) {
      fail(fmt::format("op {} carries {} bytes of chunk {} (NPU {} to NPU {}), which needs {}", op.value,
                       s_.bytes(op).count(), c, r_.members[s], r_.members[d], want));
      return false;
    }
    return true;
  }
  int64_t pair_demand(uint32_t s, uint32_t d) const {
    if (r_.pair_bytes.empty())  // a result built without the demand: every pair sends chunk_bytes per chunk
      return s == d ? 0 : r_.chunk_bytes.count() * r_.chunks_per_npu;
    return r_.pair_bytes[size_t{s} * n_ + d];
  }

  // The sum of the reduced partials a step (or the end of the schedule) received for chunk c at node `at`.
  Partial collected(std::span<const OpId> deps, uint32_t c, NodeId at, const std::vector<Partial>& partial) const {
    Partial p;
    const int64_t r = rank(at);
    if (r >= 0)
      p = {1, tag_[r]};
    for (OpId d : deps) {
      if (s_.is_transfer(d) && r_.ops[d.value].reduce && s_.chunk(d) == c && s_.dst(d) == at)
        p += partial[d.value];
    }
    return p;
  }

  void check_local(OpId op, const std::vector<Partial>& partial) {
    const Partial p = collected(s_.deps(op), s_.chunk(op), s_.src(op), partial);
    if (p.count != all_.count || p.tags != all_.tags)
      fail(fmt::format("chunk {} is reduced at {} from {} of {} contributions", s_.chunk(op), s_.src(op).value, p.count,
                       all_.count));
  }

  void check_final(const std::vector<Partial>& partial, const std::vector<std::vector<char>>& got,
                   const std::vector<char>& a2a_done) {
    const CollectiveKind k = r_.kind;
    if (k == CollectiveKind::ReduceScatter || k == CollectiveKind::Reduce) {
      // Every reduction transfer into a chunk's owner counts towards the owner's final sum.
      std::vector<Partial> at_owner(r_.chunk_count);
      for (uint32_t c = 0; c < r_.chunk_count; ++c)
        at_owner[c] = {1, tag_[owner(c)]};
      for (uint32_t i = 0; i < s_.size(); ++i) {
        const OpId op{i};
        if (s_.is_transfer(op) && rank(s_.dst(op)) == owner(s_.chunk(op)))
          at_owner[s_.chunk(op)] += partial[i];
      }
      for (uint32_t c = 0; c < r_.chunk_count; ++c) {
        if (at_owner[c].count != all_.count || at_owner[c].tags != all_.tags)
          return fail(fmt::format("chunk {} ends with {} of {} contributions", c, at_owner[c].count, all_.count));
      }
      return;
    }
    if (k == CollectiveKind::AllToAll) {
      for (uint32_t c = 0; c < r_.chunk_count; ++c) {
        const uint32_t s = (c / n_) % n_, d = c % n_;
        if (s != d && pair_demand(s, d) > 0 && !a2a_done[c])
          return fail(fmt::format("chunk {} never reaches NPU {}", c, r_.members[d]));
      }
      return;
    }
    if (!gathers(k))
      return;
    for (uint32_t m = 0; m < n_; ++m) {
      for (uint32_t c = 0; c < r_.chunk_count; ++c) {
        const bool own = k == CollectiveKind::AllReduce ? owner(c) == m : origin(c) == m;
        if (!own && !got[m][c])
          return fail(fmt::format("NPU {} never receives chunk {}", r_.members[m], c));
      }
    }
  }

  // Bundled schedules (dimension-wise, SynthResult::bundle_units): the same certificates unit by unit, unit x
  // belonging to rank x / chunks_per_npu; a transfer's bytes are its units' bytes, less under 2 bytes of rounding
  // per unit. A local step without units only synchronizes.
  void bundle_data() {
    const uint64_t k = std::max<uint32_t>(1, r_.chunks_per_npu), units = r_.chunk_count;
    if (r_.bundle_start.size() != s_.size() + 1 || r_.bundle_start.back() != r_.bundle_units.size())
      return fail(fmt::format("the bundle table has {} entries for {} ops", r_.bundle_start.size(), s_.size()));
    std::vector<Partial> partial(r_.bundle_units.size());
    std::vector<char> holds_after(s_.size(), 0);
    std::vector<char> got(gathers(r_.kind) ? size_t{n_} * units : 0, 0);
    std::vector<uint32_t> seen(units, UINT32_MAX);  // stamped with the op whose dependencies delivered the unit
    std::vector<Partial> acc(units);
    for (uint32_t i = 0; i < s_.size() && result_.ok; ++i) {
      const OpId op{i};
      const std::span<const uint32_t> b = op_units(r_, i);
      if (!bundle_well_formed(op, b, units))
        return;
      const int64_t at = rank(s_.src(op));
      const Partial own = at >= 0 ? Partial{1, tag_[at]} : Partial{};
      if (!s_.is_transfer(op) || r_.ops[i].reduce) {
        // The partials its dependencies brought to the sender (the reduced node), per unit.
        for (OpId d : s_.deps(op)) {
          if (!s_.is_transfer(d) || !r_.ops[d.value].reduce || s_.dst(d) != s_.src(op))
            continue;
          const std::span<const uint32_t> db = op_units(r_, d.value);
          for (size_t j = 0; j < db.size(); ++j) {
            if (seen[db[j]] != i)
              acc[db[j]] = {};
            seen[db[j]] = i;
            acc[db[j]] += partial[r_.bundle_start[d.value] + j];
          }
        }
      }
      if (!s_.is_transfer(op)) {
        for (uint32_t x : b) {
          Partial p = own;
          if (seen[x] == i)
            p += acc[x];
          if (p.count != all_.count || p.tags != all_.tags)
            return fail(fmt::format("unit {} is reduced at {} from {} of {} contributions", x, s_.src(op).value,
                                    p.count, all_.count));
          if (!got.empty() && at >= 0)
            got[size_t(at) * units + x] = 1;
        }
        holds_after[i] = !b.empty();
        continue;
      }
      if (r_.ops[i].reduce) {
        for (size_t j = 0; j < b.size(); ++j) {
          partial[r_.bundle_start[i] + j] = own;
          if (seen[b[j]] == i)
            partial[r_.bundle_start[i] + j] += acc[b[j]];
        }
        continue;
      }
      // A gather: every unit is the sender's own (All-Gather) or a dependency delivered it to the sender.
      for (OpId d : s_.deps(op)) {
        const bool brought =
            s_.is_transfer(d) ? !r_.ops[d.value].reduce && s_.dst(d) == s_.src(op) : s_.src(d) == s_.src(op);
        if (brought && holds_after[d.value]) {
          for (uint32_t x : op_units(r_, d.value))
            seen[x] = i;
        }
      }
      for (uint32_t x : b) {
        const bool own_unit = r_.kind == CollectiveKind::AllGather && at >= 0 && x / k == uint64_t(at);
        if (!own_unit && seen[x] != i)
          return fail(fmt::format("op {} sends unit {} from {} before it holds it", i, x, s_.src(op).value));
      }
      holds_after[i] = 1;
      const int64_t dst = rank(s_.dst(op));
      for (uint32_t x : b) {
        if (dst >= 0 && !got.empty())
          got[size_t(dst) * units + x] = 1;
      }
    }
    if (result_.ok)
      bundle_final(partial, got, k, units);
  }

  // Units sorted, distinct and in range; a transfer's bytes match its units.
  bool bundle_well_formed(OpId op, std::span<const uint32_t> b, uint64_t units) {
    for (size_t j = 0; j < b.size(); ++j) {
      if (b[j] >= units || (j > 0 && b[j] <= b[j - 1])) {
        fail(fmt::format("op {} carries unit {} out of order or out of range (units: {})", op.value, b[j], units));
        return false;
      }
    }
    if (!s_.is_transfer(op))
      return true;
    const int64_t full = static_cast<int64_t>(b.size()) * r_.chunk_bytes.count(), bytes = s_.bytes(op).count();
    if (b.empty() || bytes > full || bytes <= full - 2 * static_cast<int64_t>(b.size())) {
      fail(fmt::format("op {} carries {} bytes for {} units of {}", op.value, bytes, b.size(),
                       to_string(r_.chunk_bytes)));
      return false;
    }
    return true;
  }

  void bundle_final(const std::vector<Partial>& partial, const std::vector<char>& got, uint64_t k, uint64_t units) {
    if (r_.kind == CollectiveKind::ReduceScatter) {
      // Every partial delivered to a unit's owner counts towards the owner's final sum.
      std::vector<Partial> at_owner(units);
      for (uint64_t x = 0; x < units; ++x)
        at_owner[x] = {1, tag_[x / k]};
      for (uint32_t i = 0; i < s_.size(); ++i) {
        if (!s_.is_transfer(OpId{i}) || !r_.ops[i].reduce)
          continue;
        const std::span<const uint32_t> b = op_units(r_, i);
        for (size_t j = 0; j < b.size(); ++j) {
          if (uint64_t(rank(s_.dst(OpId{i}))) == b[j] / k)
            at_owner[b[j]] += partial[r_.bundle_start[i] + j];
        }
      }
      for (uint64_t x = 0; x < units; ++x) {
        if (at_owner[x].count != all_.count || at_owner[x].tags != all_.tags)
          return fail(fmt::format("unit {} ends with {} of {} contributions", x, at_owner[x].count, all_.count));
      }
      return;
    }
    for (uint32_t m = 0; m < n_; ++m) {
      for (uint64_t x = 0; x < units; ++x) {
        const bool own = r_.kind == CollectiveKind::AllGather && x / k == m;
        if (!own && !got[size_t(m) * units + x])
          return fail(fmt::format("NPU {} never receives unit {}", r_.members[m], x));
      }
    }
  }

  void aware() {
    const SynthRoutes routes(t_, r_);
    const AwareRunResult a = run_aware(s_, routes, AstraCompat{});
    result_.aware_time = a.makespan;
    if (a.makespan > r_.time)
      fail(fmt::format("the aware model needs {}, more than the estimate {}", to_string(a.makespan),
                       to_string(r_.time)));
  }

  const Topology& t_;
  const SynthResult& r_;
  const Schedule& s_;
  uint32_t n_ = 0;
  std::unordered_map<uint32_t, uint32_t> rank_;
  std::vector<uint64_t> tag_;
  Partial all_;
  SynthCheck result_;
};

}  // namespace

SynthCheck check_synthesis(const Topology& topology, const SynthResult& result) {
  return Checker(topology, result).run();
}

SynthBound synth_lower_bound(const Topology& topology, const SynthOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SynthGraphOptions go = options.graph;
  go.require_all_pairs = false;
  const SynthGraph graph = make_synth_graph(topology, go);
  const Topology sub = as_topology(graph, topology.name());
  BoundOptions bo;
  bo.information_bound = false;
  for (uint32_t m = 0; m < graph.member_count(); ++m) {
    if (graph.global_node(m).value == options.root)
      bo.root = NodeId{m};
  }
  SynthBound r;
  if (options.kind == CollectiveKind::AllToAll &&
      uint64_t{graph.member_count()} * graph.member_count() <= kMaxAllToAllPairs) {
    // The concurrent-flow bound with the demand (all_to_all_bound.hpp); with a uniform demand also chorus bound's
    // cut bound (exact by enumeration on small graphs), whichever is larger.
    const std::vector<int64_t> demand =
        options.demand ? member_demand(*options.demand, graph) : uniform_demand(graph.member_count(), options.size);
    ConcurrentFlowOptions flow;
    flow.exact_variables = options.exact_bound_limit;
    r.all_to_all = all_to_all_bound(graph, demand, flow);
    r.bound = r.all_to_all->bound;
    r.kind = r.all_to_all->binding;
  }
  if (options.kind != CollectiveKind::AllToAll || !options.demand) {
    const LowerBound b = lower_bound(sub, Collective{options.kind, options.size, graph.member_count()}, bo);
    if (b.bound > r.bound) {
      r.bound = b.bound;
      r.kind = "cut (chorus bound)";
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace chorus
