// Collective synthesis driver (see synthesize.hpp): chunking, the search over chunk counts and priorities, and
// the conversion of spread runs (forward or time-reversed) into one Schedule.
#include "chorus/synth/synthesize.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/progress.hpp"
#include "chorus/synth/all_to_all.hpp"
#include "chorus/synth/all_to_all_bound.hpp"
#include "chorus/synth/rail_restriction.hpp"
#include "chorus/synth/star_direct.hpp"
#include "chorus/topology/hop_diameter.hpp"

namespace chorus {

namespace {

using Clock = std::chrono::steady_clock;

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::Reduce || kind == CollectiveKind::AllReduce;
}
bool rooted(CollectiveKind kind) {
  return kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

Bytes chunk_bytes_for(CollectiveKind kind, Bytes size, uint32_t members, uint32_t k) {
  const int64_t parts = rooted(kind) ? int64_t{k} : int64_t{members} * k;
  return Bytes(std::max<int64_t>(1, ceil_div(size.count(), parts)));
}

std::vector<Time> link_tau(const SynthGraph& g, Bytes chunk) {
  std::vector<Time> tau(g.link_count());
  for (uint32_t l = 0; l < g.link_count(); ++l)
    tau[l] = g.latency(l) + transfer_time(chunk, g.bandwidth(l));
  return tau;
}

// Chunks of a gather-type spread: k per member (All-Gather family) or k at the root.
void set_origins(SpreadProblem& p, uint32_t members, uint32_t k, std::optional<uint32_t> root) {
  p.chunks = root ? k : members * k;
  p.origin.resize(p.chunks);
  for (uint32_t c = 0; c < p.chunks; ++c)
    p.origin[c] = root ? *root : c % members;
}

// Each member's in-link capacity: `needed` chunks must arrive (leave, for out-links), each occupying one link for
// its tau, so T >= needed / sum_e (1 / tau_e); at the worst member, the exact discrete form
// min { T : sum_e floor(T / tau_e) >= needed } (tacos.md §7, "per-node discrete bound").
Time capacity_bound(const SynthGraph& g, const std::vector<Time>& tau, uint64_t needed, bool use_in_links,
                    std::optional<uint32_t> root) {
  double worst = 0;
  uint32_t worst_node = UINT32_MAX;
  for (uint32_t v = 0; v < g.member_count(); ++v) {
    if (root && v == *root)
      continue;
    double rate = 0;  // chunks per ps
    for (uint32_t l : use_in_links ? g.in_links(v) : g.out_links(v))
      rate += 1.0 / static_cast<double>(std::max<int64_t>(1, tau[l].picoseconds()));
    if (rate > 0 && static_cast<double>(needed) / rate > worst) {
      worst = static_cast<double>(needed) / rate;
      worst_node = v;
    }
  }
  if (worst_node == UINT32_MAX)
    return Time::zero();
  const auto links = use_in_links ? g.in_links(worst_node) : g.out_links(worst_node);
  auto served = [&](int64_t t) {
    uint64_t count = 0;
    for (uint32_t l : links)
      count += static_cast<uint64_t>(t / std::max<int64_t>(1, tau[l].picoseconds()));
    return count;
  };
  int64_t lo = static_cast<int64_t>(worst * (1 - 1e-9)), hi = lo;
  while (served(hi) < needed)
    hi = hi * 2 + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (served(mid) >= needed)
      hi = mid;
    else
      lo = mid + 1;
  }
  return Time::ps(lo);
}

// Hop eccentricity: the most hops any chunk must cross (All-Gather family: between any two members; rooted: from
// or to the root). Every hop takes at least the smallest tau. Skipped (0) on graphs too dense for all-pairs BFS.
uint32_t hop_diameter(const SynthGraph& g, std::optional<uint32_t> root, bool forward) {
  if (uint64_t{g.node_count()} * g.link_count() > 50'000'000 && !root)
    return 0;
  // Between all members: bit-parallel searches (topology/hop_diameter.hpp) over the links as a CSR.
  if (!root) {
    std::vector<uint32_t> offset(g.node_count() + 1, 0), target;
    target.reserve(g.link_count());
    for (uint32_t v = 0; v < g.node_count(); ++v) {
      for (uint32_t l : forward ? g.out_links(v) : g.in_links(v))
        target.push_back(forward ? g.dst(l) : g.src(l));
      offset[v + 1] = static_cast<uint32_t>(target.size());
    }
    return chorus::hop_diameter(g.node_count(), offset, target, g.member_count(), g.member_count());
  }
  uint32_t diameter = 0;
  std::vector<uint32_t> dist(g.node_count(), UINT32_MAX), queue{*root};
  dist[*root] = 0;
  for (size_t q = 0; q < queue.size(); ++q) {
    const uint32_t v = queue[q];
    for (uint32_t l : forward ? g.out_links(v) : g.in_links(v)) {
      const uint32_t w = forward ? g.dst(l) : g.src(l);
      if (dist[w] == UINT32_MAX) {
        dist[w] = dist[v] + 1;
        if (g.is_member(w))
          diameter = std::max(diameter, dist[w]);
        queue.push_back(w);
      }
    }
  }
  return diameter;
}

struct Candidate {
  uint32_t k = 0;
  bool rails = false;
  bool direct = false;  // star_direct instead of the matching engine
  ChunkPriority priority = ChunkPriority::Unique;
  Time time = Time::max();
  SpreadResult first;   // the spread (or, for reductions, the spread on the transposed graph)
  SpreadResult second;  // All-Reduce: the All-Gather
  uint64_t events = 0;
};

// Per chunk: when its reduction is complete at its owner, and per link: when its last reduction transfer ends,
// for a spread on the transposed graph reversed in time.
struct ReversedTiming {
  std::vector<Time> chunk_done;
  std::vector<Time> link_free;
};

ReversedTiming reversed_timing(const SpreadResult& s, uint32_t chunks, uint32_t links) {
  ReversedTiming r{std::vector<Time>(chunks, Time::zero()), std::vector<Time>(links, Time::zero())};
  const Time total = s.makespan;
  for (const SpreadTransfer& x : s.transfers) {
    const Time end = total - x.start;
    r.link_free[x.link] = std::max(r.link_free[x.link], end);
    if (x.from == kNoTransfer)
      r.chunk_done[x.chunk] = std::max(r.chunk_done[x.chunk], end);
  }
  return r;
}

class Synthesizer {
 public:
  Synthesizer(const Topology& topology, const SynthOptions& o) : topology_(topology), o_(o) {
    if (o.size.count() <= 0)
      throw Error("synth", Argument{"size"}, fmt::format("is {} bytes; must be > 0", o.size.count()));
    SynthGraphOptions go = o.graph;
    if (rooted(o.kind) && !go.group.empty() && std::find(go.group.begin(), go.group.end(), o.root) == go.group.end())
      throw Error("synth", Argument{"root"}, fmt::format("NPU {} is not in the group", o.root));
    if (o.root >= topology.npu_count())
      throw Error("synth", Argument{"root"}, fmt::format("NPU {} is outside the topology", o.root));
    if (o.demand && o.kind != CollectiveKind::AllToAll)
      throw Error(o.demand->source, Argument{"demand"}, "applies to all_to_all only");
    if (o.demand && o.demand->npus != topology.npu_count()) {
      throw Error(
          o.demand->source, Argument{"demand"},
          fmt::format("is {} x {}; the topology has {} NPUs", o.demand->npus, o.demand->npus, topology.npu_count()));
    }
    go.require_all_pairs = !rooted(o.kind);
    graph_.emplace(make_synth_graph(topology, go));
    transposed_.emplace(graph_->transposed());
    n_ = graph_->member_count();
    if (rooted(o.kind)) {
      for (uint32_t m = 0; m < n_; ++m) {
        if (graph_->global_node(m).value == o.root)
          root_ = m;
      }
      if (!root_)
        throw Error("synth", Argument{"root"}, fmt::format("NPU {} is not in the group (or failed)", o.root));
      check_rooted_reach();
    }
    // The flat engine keeps a transfer per (member, chunk) delivery and a bit per (node, chunk): beyond ~2^30
    // deliveries (a 40,000-NPU group) that is tens of GiB. Say so instead of exhausting memory.
    if (uint64_t{n_} * n_ * std::max<uint32_t>(1, o.chunks_per_npu) > (uint64_t{1} << 30)) {
      throw Error("synth", "topology",
                  fmt::format("{} NPUs need {} chunk deliveries; the flat synthesizer handles up to 2^30; "
                              "larger groups need a dimensional topology (mesh, torus, dims:...) for dimension-wise "
                              "synthesis (synth/dimensional.hpp, chorus synth --dimensional)",
                              n_, uint64_t{n_} * n_ * std::max<uint32_t>(1, o.chunks_per_npu)));
    }
    hops_ = hop_diameter(*graph_, root_, o.kind != CollectiveKind::Reduce);
    if (o.chunks_per_npu > 0 && uint64_t{n_} * o.chunks_per_npu > (uint64_t{1} << 24))
      throw Error("synth", Argument{"chunks"},
                  fmt::format("{} chunks per NPU x {} NPUs is too many", o.chunks_per_npu, n_));
  }

  SynthResult run() {
    const auto started = Clock::now();
    SynthResult result;
    result.kind = o_.kind;
    result.size = o_.size;
    for (uint32_t m = 0; m < n_; ++m)
      result.members.push_back(graph_->global_node(m).value);
    result.root_rank = root_.value_or(0);
    if (o_.kind == CollectiveKind::AllToAll) {
      run_all_to_all(result);
    } else {
      Candidate best = search(result.attempts);
      build(best, result);
    }
    result.synthesis_s = std::chrono::duration<double>(Clock::now() - started).count();
    return result;
  }

 private:
  void check_rooted_reach() {
    const bool down = o_.kind == CollectiveKind::Broadcast;
    const std::vector<uint32_t> bad = unreachable_members(*graph_, *root_, down);
    if (!bad.empty()) {
      throw Error("synth", "topology",
                  fmt::format("NPUs {} can never {} root NPU {}", format_npu_list(bad),
                              down ? "receive from" : "send to", o_.root));
    }
  }

  std::vector<uint32_t> chunk_choices() const {
    if (o_.chunks_per_npu > 0)
      return {o_.chunks_per_npu};
    std::vector<uint32_t> ks;
    // Keep the chunk count (and so the transfers, ~ n^2 k) within what one run handles quickly.
    const uint64_t per_k = rooted(o_.kind) ? n_ : uint64_t{n_} * n_;
    for (uint32_t k : {1u, 2u, 3u, 4u, 6u, 8u, 12u, 16u, 24u, 32u, 48u, 64u}) {
      if (k <= o_.max_chunks_per_npu && (k == 1 || per_k * k <= (uint64_t{1} << 22)))
        ks.push_back(k);
    }
    return ks;
  }

  Time model_bound(uint32_t k) const {
    return chunk_model_bound(*graph_, o_.kind, o_.size, k, root_.value_or(0), hops_);
  }

  Candidate search(std::vector<SynthAttempt>& attempts) {
    std::vector<std::pair<Time, uint32_t>> order;
    for (uint32_t k : chunk_choices())
      order.push_back({model_bound(k), k});
    std::stable_sort(order.begin(), order.end());
    std::vector<ChunkPriority> priorities = {ChunkPriority::Unique};
    if (o_.priority)
      priorities = {*o_.priority};
    else if (n_ <= o_.all_priorities_up_to)
      priorities = {ChunkPriority::Unique, ChunkPriority::Fresh, ChunkPriority::Scarce, ChunkPriority::Random};
    Candidate best;
    // The rail restriction applies only on tiered graphs where it keeps every chunk deliverable. It goes first (it
    // wins on every DGX-like input, so the unrestricted pass then gives up early) and, up to
    // unrestricted_with_rails_up_to NPUs, the unrestricted pass follows with its own effort, so no small input
    // gets worse; above that one pass keeps 1024-NPU groups within a second.
    const bool rails = rails_apply();
    ProgressScope progress(o_.progress, "synth: runs finished", 0);  // how many runs the bounds allow is not known
    // The direct exchange first where it applies: it is cheap, and its time lets the matching runs give up early.
    if (direct_applies())
      direct_pass(order, best, attempts);
    if (rails)
      search_pass(order, priorities, true, best, attempts, progress);
    if (!rails || n_ <= o_.unrestricted_with_rails_up_to)
      search_pass(order, priorities, false, best, attempts, progress);
    CHORUS_ASSERT(best.k != 0, "synth: no candidate finished");
    return best;
  }

  // On a star whose switch cannot replicate here, the direct exchange (star_direct.hpp) is one more candidate per k:
  // All-Gather without multicast, Reduce-Scatter, and All-Reduce (both halves direct, its All-Gather without
  // multicast too: a matching-engine All-Gather per k would cost what the direct pass saves, and on the stars
  // measured it was no faster).
  bool direct_applies() const {
    if (!o_.direct_through_switch || rooted(o_.kind) || o_.kind == CollectiveKind::AllToAll)
      return false;
    if (o_.kind == CollectiveKind::AllGather && o_.switches_multicast)
      return false;
    return star_switch(*graph_).has_value();
  }

  void direct_pass(const std::vector<std::pair<Time, uint32_t>>& order, Candidate& best,
                   std::vector<SynthAttempt>& attempts) const {
    Time previous = Time::max();
    for (const auto& [bound, k] : order) {
      if (best.k != 0 && bound >= best.time)
        break;
      Candidate c = attempt(k, ChunkPriority::Unique, false, Time::max(), true);
      attempts.push_back({k, c.priority, bound, c.time, false, c.time == Time::max(), false, true});
      const Time time = c.time;
      if (c.time < best.time)
        best = std::move(c);
      if (time >= previous)
        break;  // more chunks pay more latency than they pipeline: the next k will not be faster
      previous = time;
    }
  }

  // The matching engine's spread, or with `direct` the direct exchange through the switch where it applies.
  static SpreadResult spread_or_direct(const SpreadProblem& p, bool direct) {
    if (direct) {
      if (std::optional<SpreadResult> s = star_direct(p))
        return std::move(*s);
    }
    return spread(p);
  }

  // Whether the rail restriction applies (rail_restriction.hpp) on the graph and its transpose; keeps their tiers.
  bool rails_apply() {
    if (rooted(o_.kind) || o_.kind == CollectiveKind::AllToAll)
      return false;
    tiers_ = rail_tiers(*graph_);
    if (tiers_)
      transposed_tiers_ = rail_tiers(*transposed_);
    return tiers_ && transposed_tiers_;
  }

  void search_pass(const std::vector<std::pair<Time, uint32_t>>& order, const std::vector<ChunkPriority>& priorities,
                   bool rails, Candidate& best, std::vector<SynthAttempt>& attempts, ProgressScope& progress) {
    uint64_t effort = 0;
    for (const auto& [bound, k] : order) {
      // Sorted by bound: once a bound cannot beat the best, no later one can.
      if (best.k != 0 && bound >= best.time)
        break;
      const uint64_t work = (rooted(o_.kind) ? uint64_t{n_} : uint64_t{n_} * (n_ - 1)) * k;
      for (ChunkPriority priority : priorities) {
        if (best.k != 0 && (bound >= best.time || effort + work > o_.search_effort))
          break;
        effort += work;
        Candidate c = attempt(k, priority, rails, best.time);
        attempts.push_back({k, priority, bound, c.time, false, c.time == Time::max(), rails});
        progress.advance();
        if (c.time < best.time)
          best = std::move(c);
      }
    }
  }

  SpreadProblem problem(const SynthGraph& g, uint32_t k, ChunkPriority priority, bool rails, Time give_up,
                        uint64_t salt) const {
    SpreadProblem p;
    p.graph = &g;
    p.tau = link_tau(g, chunk_bytes_for(o_.kind, o_.size, n_, k));
    set_origins(p, n_, k, root_);
    p.relays_replicate = !reduces(o_.kind) && o_.switches_multicast;
    p.priority = priority;
    p.scan_cap = o_.scan_cap > 0 ? o_.scan_cap : (n_ <= 256 ? 48 : 8);
    p.seed = o_.seed * 0x9E3779B97F4A7C15ull + salt;
    p.give_up = give_up;
    if (rails)
      p.link_allowed = rail_rows(g, &g == &*graph_ ? *tiers_ : *transposed_tiers_, p.origin, p.chunks);
    return p;
  }

  Candidate attempt(uint32_t k, ChunkPriority priority, bool rails, Time give_up, bool direct = false) const {
    Candidate c;
    c.k = k;
    c.priority = priority;
    c.rails = rails;
    c.direct = direct;
    const uint64_t salt = uint64_t{k} * 16 + static_cast<uint64_t>(priority) + (rails ? 8 : 0);
    if (!reduces(o_.kind)) {
      c.first = spread_or_direct(problem(*graph_, k, priority, rails, give_up, salt), direct);
      c.events = c.first.events;
      if (!c.first.gave_up)
        c.time = c.first.makespan;
      return c;
    }
    c.first = spread_or_direct(problem(*transposed_, k, priority, rails, give_up, salt), direct);
    c.events = c.first.events;
    if (c.first.gave_up)
      return c;
    if (o_.kind != CollectiveKind::AllReduce) {
      c.time = c.first.makespan;
      return c;
    }
    SpreadProblem ag = problem(*graph_, k, priority, rails, give_up, salt + 7);
    ag.relays_replicate = o_.switches_multicast && !direct;
    const ReversedTiming rs = reversed_timing(c.first, ag.chunks, graph_->link_count());
    ag.release = rs.chunk_done;
    ag.link_free = rs.link_free;
    c.second = spread_or_direct(ag, direct);
    c.events += c.second.events;
    if (!c.second.gave_up)
      c.time = std::max(c.first.makespan, c.second.makespan);
    return c;
  }

  // ---- Schedule construction ----

  void append_forward(const SpreadResult& s, const SynthGraph& g, const std::vector<OpId>& chunk_ready,
                      SynthResult& r) {
    // Transfer i becomes op first + i (nothing else is appended meanwhile): no table from transfers to ops.
    const auto first = static_cast<uint32_t>(r.schedule.size());
    std::vector<OpId> deps;
    for (const SpreadTransfer& x : s.transfers) {
      deps.clear();
      if (x.from != kNoTransfer)
        deps.push_back(OpId{first + x.from});
      else if (!chunk_ready.empty())
        deps.push_back(chunk_ready[x.chunk]);
      add_link_order(x.link, deps);
      last_on_link_[x.link] = r.schedule.add_transfer(g.global_node(g.src(x.link)), g.global_node(g.dst(x.link)),
                                                      r.chunk_bytes, Time::zero(), deps, x.chunk);
      r.ops.push_back({.link = g.global_link(x.link), .reduce = false, .start = x.start, .finish = x.end});
    }
  }

  // A spread on the transposed graph, reversed in time: transfer i becomes a transfer the other way over the same
  // physical link, depending on the reversed transfers that had taken the chunk onwards from i's destination.
  // Returns, per chunk, the reversed transfers that complete it at its owner.
  std::vector<std::vector<OpId>> append_reversed(const SpreadResult& s, const SynthGraph& gt, uint32_t chunks,
                                                 SynthResult& r) {
    const size_t count = s.transfers.size();
    std::vector<uint32_t> child_begin(count + 1, 0), children(count);
    for (const SpreadTransfer& x : s.transfers) {
      if (x.from != kNoTransfer)
        ++child_begin[x.from + 1];
    }
    std::partial_sum(child_begin.begin(), child_begin.end(), child_begin.begin());
    std::vector<uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
    for (uint32_t j = 0; j < count; ++j) {
      if (s.transfers[j].from != kNoTransfer)
        children[fill[s.transfers[j].from]++] = j;
    }
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    // Reversed start = T - end: later ends first. Every child ends no later than its parent's reversed start.
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return s.transfers[a].end > s.transfers[b].end; });
    const Time total = s.makespan;
    std::vector<OpId> op_of(count);
    std::vector<std::vector<OpId>> done(chunks);
    std::vector<OpId> deps;
    for (uint32_t i : order) {
      const SpreadTransfer& x = s.transfers[i];
      deps.clear();
      for (uint32_t k = child_begin[i]; k < child_begin[i + 1]; ++k)
        deps.push_back(op_of[children[k]]);
      add_link_order(x.link, deps);
      // On the transposed graph the link runs dst -> src of the physical link; reversed, it is the physical one.
      op_of[i] = r.schedule.add_transfer(gt.global_node(gt.dst(x.link)), gt.global_node(gt.src(x.link)), r.chunk_bytes,
                                         Time::zero(), deps, x.chunk);
      last_on_link_[x.link] = op_of[i];
      r.ops.push_back(
          {.link = gt.global_link(x.link), .reduce = true, .start = total - x.end, .finish = total - x.start});
      if (x.from == kNoTransfer)
        done[x.chunk].push_back(op_of[i]);
    }
    return done;
  }

  void add_link_order(uint32_t link, std::vector<OpId>& deps) const {
    if (last_on_link_[link].value != UINT32_MAX)
      deps.push_back(last_on_link_[link]);
  }

  void build(Candidate& best, SynthResult& r) {
    r.chunks_per_npu = best.k;
    r.priority = best.priority;
    r.rails = best.rails;
    r.direct = best.direct;
    r.chunk_bytes = chunk_bytes_for(o_.kind, o_.size, n_, best.k);
    r.chunk_count = rooted(o_.kind) ? best.k : n_ * best.k;
    r.time = best.time;
    r.events = best.events;
    last_on_link_.assign(graph_->link_count(), OpId{UINT32_MAX});
    const size_t transfers = best.first.transfers.size() + best.second.transfers.size();
    r.schedule.reserve(transfers + r.chunk_count, 2 * transfers + r.chunk_count * size_t{n_});
    r.ops.reserve(transfers + r.chunk_count);
    if (!reduces(o_.kind)) {
      append_forward(best.first, *graph_, {}, r);
      return;
    }
    const std::vector<std::vector<OpId>> done = append_reversed(best.first, *transposed_, r.chunk_count, r);
    if (o_.kind != CollectiveKind::AllReduce)
      return;
    // All-Reduce: a local step per chunk marks its reduction complete at its owner; the All-Gather starts there.
    const ReversedTiming rs = reversed_timing(best.first, r.chunk_count, graph_->link_count());
    std::vector<OpId> ready(r.chunk_count);
    for (uint32_t c = 0; c < r.chunk_count; ++c) {
      ready[c] = r.schedule.add_local(graph_->global_node(c % n_), Time::zero(), done[c], c);
      r.ops.push_back({.link = LinkId{0}, .reduce = false, .start = rs.chunk_done[c], .finish = rs.chunk_done[c]});
    }
    append_forward(best.second, *graph_, ready, r);
  }

  // All-to-All: the demand (uniform or --demand), then one routed-and-scheduled run per candidate k = 1, 2, 4, ...
  // until one is no faster than the last; the fastest wins. Candidates keep the chunk count within 2^20 (a 1024-NPU
  // group runs k = 1 only).
  void run_all_to_all(SynthResult& r) {
    // A route per (source, destination, chunk): beyond 4096 NPUs (2^24 pairs) that is gigabytes of routes.
    if (uint64_t{n_} * n_ > kMaxAllToAllPairs) {
      throw Error("synth", "topology",
                  fmt::format("All-to-All of {} NPUs has {} pairs; the All-to-All synthesizer handles up to {} "
                              "(4096 NPUs)",
                              n_, uint64_t{n_} * n_, kMaxAllToAllPairs));
    }
    r.pair_bytes = o_.demand ? member_demand(*o_.demand, *graph_) : uniform_demand(n_, o_.size);
    std::vector<uint32_t> ks;
    if (o_.chunks_per_npu > 0) {
      ks = {o_.chunks_per_npu};
    } else {
      for (uint32_t k : {1u, 2u, 4u, 8u, 16u}) {
        if (k <= o_.max_chunks_per_npu && (k == 1 || uint64_t{n_} * n_ * k <= (uint64_t{1} << 20)))
          ks.push_back(k);
      }
    }
    if (uint64_t{n_} * n_ * ks.back() > (uint64_t{1} << 32))
      throw Error("synth", Argument{"chunks"},
                  fmt::format("{} chunks per pair x {} NPUs squared is too many", ks.back(), n_));
    AllToAllResult best;
    uint32_t best_k = 0;
    for (uint32_t k : ks) {
      AllToAllProblem p;
      p.graph = &*graph_;
      p.pair_bytes = r.pair_bytes;
      p.chunks_per_pair = k;
      p.seed = o_.seed;
      AllToAllResult a = synthesize_all_to_all(p);
      r.attempts.push_back({k, ChunkPriority::Scarce, a.max_link_load, a.makespan, false, false, false});
      if (best_k != 0 && a.makespan >= best.makespan)
        break;  // more chunks only add latency per chunk from here (each k doubles the last)
      best = std::move(a);
      best_k = k;
    }
    r.chunks_per_npu = best_k;
    r.chunk_count = n_ * n_ * best_k;
    r.priority = ChunkPriority::Scarce;
    r.max_link_load = best.max_link_load;
    int64_t largest = 1;
    for (int64_t b : r.pair_bytes)
      largest = std::max(largest, all_to_all_chunk_bytes(b, best_k));
    r.chunk_bytes = Bytes(largest);
    std::vector<OpId> op_of(best.hops.size());
    std::vector<OpId> last(graph_->link_count(), OpId{UINT32_MAX});
    std::vector<OpId> deps;
    r.schedule.reserve(best.hops.size(), 2 * best.hops.size());
    r.ops.reserve(best.hops.size());
    for (size_t i = 0; i < best.hops.size(); ++i) {
      const AllToAllHop& h = best.hops[i];
      deps.clear();
      if (h.previous != kNoTransfer)
        deps.push_back(op_of[h.previous]);
      if (last[h.link].value != UINT32_MAX)
        deps.push_back(last[h.link]);
      const uint32_t s = (h.chunk / n_) % n_, d = h.chunk % n_;
      const Bytes bytes(all_to_all_chunk_bytes(r.pair_bytes[size_t{s} * n_ + d], best_k));
      op_of[i] = r.schedule.add_transfer(graph_->global_node(graph_->src(h.link)),
                                         graph_->global_node(graph_->dst(h.link)), bytes, Time::zero(), deps, h.chunk);
      last[h.link] = op_of[i];
      r.ops.push_back({.link = graph_->global_link(h.link), .reduce = false, .start = h.start, .finish = h.end});
    }
    r.time = best.makespan;
  }

  const Topology& topology_;
  const SynthOptions& o_;
  std::optional<SynthGraph> graph_, transposed_;
  std::optional<RailTiers> tiers_, transposed_tiers_;  // set by rails_apply where the restriction applies
  uint32_t n_ = 0;
  std::optional<uint32_t> root_;
  uint32_t hops_ = 0;
  std::vector<OpId> last_on_link_;
};

}  // namespace

static Time capacity_part(const SynthGraph& graph, const std::vector<Time>& tau, CollectiveKind kind, uint32_t k,
                          uint64_t all, uint32_t root) {
  switch (kind) {
    case CollectiveKind::AllGather:
      return capacity_bound(graph, tau, all, true, std::nullopt);
    case CollectiveKind::ReduceScatter:
      return capacity_bound(graph, tau, all, false, std::nullopt);
    case CollectiveKind::AllReduce:
      return std::max(capacity_bound(graph, tau, all, true, std::nullopt),
                      capacity_bound(graph, tau, all, false, std::nullopt));
    case CollectiveKind::Broadcast:
      return capacity_bound(graph, tau, k, true, root);
    case CollectiveKind::Reduce:
      return capacity_bound(graph, tau, k, false, root);
    case CollectiveKind::AllToAll:
      return Time::zero();
  }
  return Time::zero();
}

Time chunk_model_bound(const SynthGraph& graph, CollectiveKind kind, Bytes size, uint32_t k, uint32_t root,
                       uint32_t hops) {
  const uint32_t n = graph.member_count();
  if (n < 2 || k == 0)
    return Time::zero();
  const std::vector<Time> tau = link_tau(graph, chunk_bytes_for(kind, size, n, k));
  const uint64_t all = uint64_t{n - 1} * k;
  Time min_tau = Time::max();
  for (Time t : tau)
    min_tau = std::min(min_tau, t);
  const Time path = graph.link_count() == 0 ? Time::zero() : min_tau * hops;
  return std::max(path, capacity_part(graph, tau, kind, k, all, root));
}

SynthResult synthesize(const Topology& topology, const SynthOptions& options) {
  return Synthesizer(topology, options).run();
}

}  // namespace chorus
