// All-to-All synthesis (see all_to_all.hpp).
#include "chorus/synth/all_to_all.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <random>

#include "chorus/core/assert.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Link cost = tau * (1 + 4 x^8), x = load / the busiest link's load.
double congestion_cost(double x) {
  const double x2 = x * x, x4 = x2 * x2;
  return 1 + 4 * x4 * x4;
}

// The links of every chunk one source sends in one layer j (one chunk per destination), as paths source -> dest.
struct Block {
  std::vector<uint32_t> begin;  // per destination rank, n + 1 offsets into links
  std::vector<uint32_t> links;
};

// One chunk's route: its pair and its links, source to destination.
struct Route {
  uint32_t chunk = 0;  // (j * n + s) * n + d
  uint32_t source = 0, destination = 0;
  std::vector<uint32_t> links;
};

class Router {
 public:
  explicit Router(const AllToAllProblem& p)
      : p_(p), g_(*p.graph), n_(g_.member_count()), load_(g_.link_count(), 0), blocks_(size_t{n_} * p.chunks_per_pair) {
    dist_.assign(g_.node_count(), std::numeric_limits<double>::infinity());
    parent_.assign(g_.node_count(), kNone);
    base_.resize(size_t{n_} * g_.link_count());
    for (uint32_t s = 0; s < n_; ++s) {
      int64_t total = 0, pairs = 0;
      for (uint32_t d = 0; d < n_; ++d) {
        if (d != s && p.pair_bytes[size_t{s} * n_ + d] > 0) {
          total += p.pair_bytes[size_t{s} * n_ + d];
          ++pairs;
        }
      }
      const Bytes mean(pairs == 0 ? 1 : all_to_all_chunk_bytes(total / pairs, p.chunks_per_pair));
      for (uint32_t l = 0; l < g_.link_count(); ++l)
        base_[size_t{s} * g_.link_count() + l] =
            static_cast<double>((g_.latency(l) + transfer_time(mean, g_.bandwidth(l))).picoseconds());
    }
    int64_t first = -1;
    bool uniform = true;
    for (uint32_t s = 0; s < n_ && uniform; ++s) {
      for (uint32_t d = 0; d < n_; ++d) {
        const int64_t b = p.pair_bytes[size_t{s} * n_ + d];
        if (s != d && (first < 0 ? (first = b, false) : b != first)) {
          uniform = false;
          break;
        }
      }
    }
    if (uniform && first > 0) {
      const Bytes c(all_to_all_chunk_bytes(first, p.chunks_per_pair));
      for (uint32_t l = 0; l < g_.link_count(); ++l)
        uniform_tau_.push_back((g_.latency(l) + transfer_time(c, g_.bandwidth(l))).picoseconds());
    }
  }

  // Tree rounds (layer by layer, sources in a seeded order, so loads build up evenly), then, where the problem is
  // small enough, per-chunk rounds: each chunk alone taken out and re-routed.
  std::vector<Route> run() {
    std::vector<uint32_t> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(p_.seed);
    for (uint32_t round = 0; round <= p_.rounds; ++round) {
      std::shuffle(order.begin(), order.end(), rng);
      for (uint32_t j = 0; j < p_.chunks_per_pair; ++j) {
        for (uint32_t s : order) {
          top_ = max_load();
          Block& b = blocks_[size_t{j} * n_ + s];
          if (round > 0)
            apply_block(s, b, -1);
          shortest_paths(s, kNone);
          fill_block(s, b);
          apply_block(s, b, +1);
        }
      }
    }
    std::vector<Route> routes = flatten();
    // Per-chunk rerouting costs a Dijkstra per chunk: only up to 2^23 node visits per round (64-NPU groups).
    const uint64_t cost = uint64_t{routes.size()} * g_.node_count();
    const uint32_t chunk_rounds = cost <= (uint64_t{1} << 23) ? p_.rounds : 0;
    std::vector<uint32_t> visit(routes.size());
    std::iota(visit.begin(), visit.end(), 0);
    for (uint32_t round = 0; round < chunk_rounds; ++round) {
      std::shuffle(visit.begin(), visit.end(), rng);
      for (uint32_t v = 0; v < visit.size(); ++v) {
        const uint32_t i = visit[v];
        if (v % 256 == 0)
          top_ = max_load();  // removals lower the busiest load; refreshed now and then, not per chunk
        Route& r = routes[i];
        apply_route(r, -1);
        shortest_paths(r.source, r.destination);
        r.links.clear();
        for (uint32_t at = r.destination; at != r.source; at = g_.src(parent_[at]))
          r.links.push_back(parent_[at]);
        std::reverse(r.links.begin(), r.links.end());
        apply_route(r, +1);
      }
    }
    return routes;
  }

  int64_t max_load() const { return load_.empty() ? 0 : *std::max_element(load_.begin(), load_.end()); }
  int64_t tau(uint32_t link, uint32_t s, uint32_t d) const {
    if (!uniform_tau_.empty())
      return uniform_tau_[link];
    const Bytes c(all_to_all_chunk_bytes(p_.pair_bytes[size_t{s} * n_ + d], p_.chunks_per_pair));
    return (g_.latency(link) + transfer_time(c, g_.bandwidth(link))).picoseconds();
  }

 private:
  void apply_block(uint32_t s, const Block& b, int sign) {
    for (uint32_t d = 0; d < n_; ++d) {
      for (uint32_t i = b.begin[d]; i < b.begin[d + 1]; ++i)
        load_[b.links[i]] += sign * tau(b.links[i], s, d);
    }
  }
  void apply_route(const Route& r, int sign) {
    for (uint32_t l : r.links) {
      load_[l] += sign * tau(l, r.source, r.destination);
      top_ = std::max(top_, load_[l]);
    }
  }

  // Dijkstra from s under load-dependent costs (stops once `target` is settled; kNone: every node).
  void shortest_paths(uint32_t s, uint32_t target) {
    const double top = static_cast<double>(std::max<int64_t>(1, top_));
    if (target == kNone) {
      std::fill(dist_.begin(), dist_.end(), std::numeric_limits<double>::infinity());
    } else {
      for (uint32_t v : reached_)
        dist_[v] = std::numeric_limits<double>::infinity();  // only what the last early-exit search touched
    }
    reached_.clear();
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist_[s] = 0;
    reached_.push_back(s);
    heap.push({0, s});
    const double* base = &base_[size_t{s} * g_.link_count()];
    while (!heap.empty()) {
      const auto [dv, v] = heap.top();
      heap.pop();
      if (dv > dist_[v])
        continue;
      if (v == target)
        return;
      for (uint32_t l : g_.out_links(v)) {
        const double nd = dv + base[l] * congestion_cost(static_cast<double>(load_[l]) / top);
        const uint32_t w = g_.dst(l);
        if (nd < dist_[w]) {
          if (dist_[w] == std::numeric_limits<double>::infinity())
            reached_.push_back(w);
          dist_[w] = nd;
          parent_[w] = l;
          heap.push({nd, w});
        }
      }
    }
  }

  // The tree paths from s to every destination s sends to.
  void fill_block(uint32_t s, Block& b) {
    b.begin.assign(n_ + 1, 0);
    b.links.clear();
    for (uint32_t d = 0; d < n_; ++d) {
      b.begin[d] = static_cast<uint32_t>(b.links.size());
      if (d == s || p_.pair_bytes[size_t{s} * n_ + d] <= 0)
        continue;
      CHORUS_ASSERT(parent_[d] != kNone, "all-to-all: member {} cannot reach member {}", s, d);
      const size_t first = b.links.size();
      for (uint32_t at = d; at != s; at = g_.src(parent_[at]))
        b.links.push_back(parent_[at]);
      std::reverse(b.links.begin() + static_cast<std::ptrdiff_t>(first), b.links.end());
    }
    b.begin[n_] = static_cast<uint32_t>(b.links.size());
  }

  std::vector<Route> flatten() {
    std::vector<Route> routes;
    for (uint32_t j = 0; j < p_.chunks_per_pair; ++j) {
      for (uint32_t s = 0; s < n_; ++s) {
        Block& b = blocks_[size_t{j} * n_ + s];
        for (uint32_t d = 0; d < n_; ++d) {
          if (b.begin[d] != b.begin[d + 1])
            routes.push_back(
                {(j * n_ + s) * n_ + d, s, d, {b.links.begin() + b.begin[d], b.links.begin() + b.begin[d + 1]}});
        }
        b = Block{};
      }
    }
    return routes;
  }

  const AllToAllProblem& p_;
  const SynthGraph& g_;
  uint32_t n_;
  std::vector<int64_t> load_;  // ps of busy time per link
  std::vector<Block> blocks_;
  std::vector<double> base_;  // per (source, link): tau of the source's mean chunk
  std::vector<double> dist_;  // infinity except at the nodes in reached_
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> reached_;
  std::vector<int64_t> uniform_tau_;  // per link, when every pair sends the same (the common case)
  int64_t top_ = 0;                   // the busiest link's load (refreshed per tree and every 256 chunk re-routes)
};

// List scheduling on the time-expanded network: each link, when free, takes one of the chunks waiting for it
// (arrived, not merely planned), so no link idles while a chunk waits. Which one: `critical` takes the chunk with
// the most hops still ahead (long routes are not starved behind short ones), otherwise the one that arrived first
// (most hops ahead on ties). Events (a link frees, a chunk in flight arrives) number at most two per link at any
// time, so the heaps stay small even with millions of chunks.
AllToAllResult list_schedule(const SynthGraph& g, const std::vector<Route>& routes, const Router& router,
                             bool critical) {
  AllToAllResult r;
  // Flat copies of what every step touches (one cache line per chunk instead of a route and its link vector).
  std::vector<uint32_t> begin(routes.size() + 1, 0), links;
  for (uint32_t q = 0; q < routes.size(); ++q) {
    links.insert(links.end(), routes[q].links.begin(), routes[q].links.end());
    begin[q + 1] = static_cast<uint32_t>(links.size());
  }
  // Waiting chunk: (priority, tie-break, route); larger first.
  using Waiting = std::tuple<int64_t, int64_t, uint32_t>;
  std::vector<std::priority_queue<Waiting>> queue(g.link_count());
  std::vector<uint32_t> at(begin.begin(), begin.end() - 1);  // index into links of the chunk's next hop
  std::vector<char> busy(g.link_count(), 0);
  std::vector<uint32_t> last_hop(routes.size(), kNone);
  auto wait = [&](uint32_t q, int64_t now) {
    const int64_t ahead = static_cast<int64_t>(begin[q + 1] - at[q]);
    queue[links[at[q]]].push(critical ? Waiting{ahead, -static_cast<int64_t>(q), q}
                                      : Waiting{-now, ahead * (int64_t{1} << 32) - q, q});
  };
  for (uint32_t q = 0; q < routes.size(); ++q)
    wait(q, 0);
  r.hops.reserve(links.size());
  // Events: (time, id, kind): kind 0 = link id frees, 1 = route id arrives at its next link.
  using Event = std::tuple<int64_t, uint32_t, uint32_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::vector<uint32_t> touched(g.link_count());
  std::iota(touched.begin(), touched.end(), 0);
  int64_t now = 0;
  while (true) {
    for (uint32_t l : touched) {
      if (busy[l] || queue[l].empty())
        continue;
      const uint32_t q = std::get<2>(queue[l].top());
      queue[l].pop();
      const Time start = Time::ps(now);
      const Time end = start + Time::ps(router.tau(l, routes[q].source, routes[q].destination));
      busy[l] = 1;
      r.hops.push_back({l, routes[q].chunk, start, end, last_hop[q]});
      last_hop[q] = static_cast<uint32_t>(r.hops.size() - 1);
      r.makespan = std::max(r.makespan, end);
      events.push({end.picoseconds(), l, 0});
      if (++at[q] < begin[q + 1])
        events.push({end.picoseconds(), q, 1});
    }
    if (events.empty())
      break;
    now = std::get<0>(events.top());
    touched.clear();
    while (!events.empty() && std::get<0>(events.top()) == now) {
      const auto [t, id, kind] = events.top();
      events.pop();
      if (kind == 0) {
        busy[id] = 0;
        touched.push_back(id);
      } else {
        wait(id, now);
        touched.push_back(links[at[id]]);
      }
    }
  }
  return r;
}

}  // namespace

int64_t all_to_all_chunk_bytes(int64_t bytes, uint32_t k) {
  return bytes <= 0 ? 0 : std::max<int64_t>(1, (bytes + k - 1) / k);
}

AllToAllResult synthesize_all_to_all(const AllToAllProblem& p) {
  const SynthGraph& g = *p.graph;
  const uint32_t n = g.member_count(), k = p.chunks_per_pair;
  CHORUS_ASSERT(p.pair_bytes.size() == size_t{n} * n && k > 0, "all-to-all: bad problem");
  Router router(p);
  const std::vector<Route> routes = router.run();
  AllToAllResult fifo = list_schedule(g, routes, router, false);
  // Both orders on groups of moderate size (each costs a pass over every hop); first-come above.
  AllToAllResult critical = routes.size() <= (uint32_t{1} << 18) ? list_schedule(g, routes, router, true) : fifo;
  AllToAllResult& best = critical.makespan < fifo.makespan ? critical : fifo;
  best.max_link_load = Time::ps(router.max_load());
  return std::move(best);
}

}  // namespace chorus
