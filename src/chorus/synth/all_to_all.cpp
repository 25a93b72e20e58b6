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
    dist_.resize(g_.node_count());
    parent_.resize(g_.node_count());
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
    // Per-chunk rerouting costs a Dijkstra per chunk: up to ~2^26 node visits per round.
    const uint64_t cost = uint64_t{routes.size()} * g_.node_count();
    const uint32_t chunk_rounds = cost <= (uint64_t{1} << 26) ? p_.rounds : 0;
    std::vector<uint32_t> visit(routes.size());
    std::iota(visit.begin(), visit.end(), 0);
    for (uint32_t round = 0; round < chunk_rounds; ++round) {
      std::shuffle(visit.begin(), visit.end(), rng);
      for (uint32_t i : visit) {
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
    for (uint32_t l : r.links)
      load_[l] += sign * tau(l, r.source, r.destination);
  }

  // Dijkstra from s under load-dependent costs (stops once `target` is settled; kNone: every node).
  void shortest_paths(uint32_t s, uint32_t target) {
    const double top = static_cast<double>(std::max<int64_t>(1, max_load()));
    std::fill(dist_.begin(), dist_.end(), std::numeric_limits<double>::infinity());
    std::fill(parent_.begin(), parent_.end(), kNone);
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist_[s] = 0;
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
            routes.push_back({(j * n_ + s) * n_ + d, s, d, {b.links.begin() + b.begin[d], b.links.begin() + b.begin[d + 1]}});
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
  std::vector<double> dist_;
  std::vector<uint32_t> parent_;
};

struct Ready {
  Time at;
  uint32_t remaining = 0;  // hops left, longer first
  uint32_t path = 0;
  uint32_t hop = 0;  // index into the path
  bool operator>(const Ready& o) const {
    if (at != o.at)
      return at > o.at;
    if (remaining != o.remaining)
      return remaining < o.remaining;
    return path > o.path;
  }
};

// FIFO list scheduling: hops in order of the time their chunk reaches the link (longest remaining path first on
// ties); each link serves them in that order, so it never idles while a chunk waits.
AllToAllResult fifo_schedule(const SynthGraph& g, const std::vector<Route>& routes, const Router& router) {
  AllToAllResult r;
  std::vector<Time> link_free(g.link_count(), Time::zero());
  std::vector<uint32_t> last_hop(routes.size(), kNone);
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  size_t hops = 0;
  for (uint32_t q = 0; q < routes.size(); ++q) {
    ready.push({Time::zero(), static_cast<uint32_t>(routes[q].links.size()), q, 0});
    hops += routes[q].links.size();
  }
  r.hops.reserve(hops);
  while (!ready.empty()) {
    const Ready x = ready.top();
    ready.pop();
    const Route& route = routes[x.path];
    const uint32_t l = route.links[x.hop];
    const Time start = std::max(x.at, link_free[l]);
    const Time end = start + Time::ps(router.tau(l, route.source, route.destination));
    link_free[l] = end;
    r.hops.push_back({l, route.chunk, start, end, last_hop[x.path]});
    last_hop[x.path] = static_cast<uint32_t>(r.hops.size() - 1);
    r.makespan = std::max(r.makespan, end);
    if (x.hop + 1 < route.links.size())
      ready.push({end, x.remaining - 1, x.path, x.hop + 1});
  }
  return r;
}

// Critical-path list scheduling: each link, when free, takes among the chunks waiting for it the one with the most
// link time still ahead of it (this hop included), so long routes are not starved behind short ones.
AllToAllResult critical_path_schedule(const SynthGraph& g, const std::vector<Route>& routes, const Router& router) {
  AllToAllResult r;
  std::vector<std::vector<int64_t>> ahead(routes.size());  // per route and hop: tau of this hop and the rest
  for (uint32_t q = 0; q < routes.size(); ++q) {
    const Route& route = routes[q];
    ahead[q].resize(route.links.size());
    int64_t sum = 0;
    for (size_t h = route.links.size(); h-- > 0;) {
      sum += router.tau(route.links[h], route.source, route.destination);
      ahead[q][h] = sum;
    }
  }
  using Waiting = std::tuple<int64_t, uint32_t, uint32_t>;  // (work ahead, -route, hop), largest first
  std::vector<std::priority_queue<Waiting>> queue(g.link_count());
  std::vector<char> busy(g.link_count(), 0);
  std::vector<uint32_t> last_hop(routes.size(), kNone);
  // Events: (time, kind, id): kind 0 = link l becomes free, 1 = route q reaches hop h (id = q, h in a side table).
  using Event = std::tuple<int64_t, uint32_t, uint32_t, uint32_t>;  // (time, route or link, hop, kind)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  for (uint32_t q = 0; q < routes.size(); ++q)
    events.push({0, q, 0, 1});
  std::vector<uint32_t> touched;
  while (!events.empty()) {
    const int64_t now = std::get<0>(events.top());
    touched.clear();
    while (!events.empty() && std::get<0>(events.top()) == now) {
      const auto [t, id, hop, kind] = events.top();
      events.pop();
      if (kind == 0) {
        busy[id] = 0;
        touched.push_back(id);
      } else {
        const uint32_t l = routes[id].links[hop];
        queue[l].push({ahead[id][hop], UINT32_MAX - id, hop});
        touched.push_back(l);
      }
    }
    for (uint32_t l : touched) {
      if (busy[l] || queue[l].empty())
        continue;
      const auto [work, neg, hop] = queue[l].top();
      queue[l].pop();
      const uint32_t q = UINT32_MAX - neg;
      const Route& route = routes[q];
      const Time start = Time::ps(now);
      const Time end = start + Time::ps(router.tau(l, route.source, route.destination));
      busy[l] = 1;
      r.hops.push_back({l, route.chunk, start, end, last_hop[q]});
      last_hop[q] = static_cast<uint32_t>(r.hops.size() - 1);
      r.makespan = std::max(r.makespan, end);
      events.push({end.picoseconds(), l, 0, 0});
      if (hop + 1 < route.links.size())
        events.push({end.picoseconds(), q, hop + 1, 1});
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
  AllToAllResult fifo = fifo_schedule(g, routes, router);
  AllToAllResult critical = critical_path_schedule(g, routes, router);
  AllToAllResult& best = critical.makespan < fifo.makespan ? critical : fifo;
  best.max_link_load = Time::ps(router.max_load());
  return std::move(best);
}

}  // namespace chorus
