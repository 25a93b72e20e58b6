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

// One chunk's route while it is re-routed alone: its pair and its links, source to destination.
struct Route {
  uint32_t chunk = 0;  // (j * n + s) * n + d
  uint32_t source = 0, destination = 0;
  std::vector<uint32_t> links;
};

// Chunk byte classes: the distinct chunk sizes of the pairs (one for a uniform demand), and each pair's class.
struct ChunkClasses {
  std::vector<int64_t> bytes;
  std::vector<uint32_t> of_pair;  // n^2
};

ChunkClasses chunk_classes(const std::vector<int64_t>& pair_bytes, uint32_t k) {
  ChunkClasses c;
  for (int64_t b : pair_bytes)
    c.bytes.push_back(all_to_all_chunk_bytes(b, k));
  std::sort(c.bytes.begin(), c.bytes.end());
  c.bytes.erase(std::unique(c.bytes.begin(), c.bytes.end()), c.bytes.end());
  c.of_pair.reserve(pair_bytes.size());
  for (int64_t b : pair_bytes) {
    const int64_t chunk = all_to_all_chunk_bytes(b, k);
    c.of_pair.push_back(
        static_cast<uint32_t>(std::lower_bound(c.bytes.begin(), c.bytes.end(), chunk) - c.bytes.begin()));
  }
  return c;
}

class Router {
 public:
  explicit Router(const AllToAllProblem& p)
      : p_(p),
        g_(*p.graph),
        n_(g_.member_count()),
        classes_(chunk_classes(p.pair_bytes, p.chunks_per_pair)),
        durations_(g_, classes_.bytes),
        load_(g_.link_count(), 0),
        blocks_(size_t{n_} * p.chunks_per_pair) {
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
  }

  // Tree rounds (layer by layer, sources in a seeded order, so loads build up evenly), then, where the problem is
  // small enough, per-chunk rounds: each chunk alone taken out and re-routed.
  AllToAllRoutes run() {
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
    // Per-chunk rerouting costs a Dijkstra per chunk: only up to 2^23 node visits per round (64-NPU groups).
    uint64_t chunks = 0;
    for (const Block& b : blocks_) {
      for (uint32_t d = 0; d < n_; ++d)
        chunks += b.begin[d] != b.begin[d + 1] ? 1 : 0;
    }
    if (chunks * g_.node_count() > (uint64_t{1} << 23) || p_.rounds == 0)
      return flatten();
    std::vector<Route> routes = separate();
    const uint32_t chunk_rounds = p_.rounds;
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
    // Route ids break the list scheduler's ties: in shifted order (see flatten()).
    std::vector<uint32_t> shifted(routes.size());
    std::iota(shifted.begin(), shifted.end(), 0);
    std::stable_sort(shifted.begin(), shifted.end(), [&](uint32_t a, uint32_t b) {
      return shifted_key(routes[a].chunk) < shifted_key(routes[b].chunk);
    });
    AllToAllRoutes flat;
    for (uint32_t i : shifted) {
      const Route& r = routes[i];
      append_route(flat, r.chunk, r.source, r.destination, r.links.data(), r.links.size());
    }
    return flat;
  }

  // Chunk (j, s, d) in shifted order: layer j, source s, then destinations s + 1, s + 2, ... (mod n), the pairwise
  // exchange's order. Route ids break the list scheduler's ties, so at any moment the sources' first hops lead to
  // different destinations; in plain order every source starts with destination 0, and on a switch the downlinks
  // then take their chunks one destination at a time (switch:8 at one chunk per pair: 14 tau, against 8 shifted).
  uint64_t shifted_key(uint32_t chunk) const {
    const uint32_t d = chunk % n_, s = (chunk / n_) % n_, j = chunk / n_ / n_;
    return (uint64_t{j} * n_ + s) * n_ + (d + n_ - s) % n_;
  }

  int64_t max_load() const { return load_.empty() ? 0 : *std::max_element(load_.begin(), load_.end()); }
  int64_t tau(uint32_t link, uint32_t s, uint32_t d) const {
    return durations_(link, classes_.of_pair[size_t{s} * n_ + d]);
  }
  const HopDurations& durations() const { return durations_; }

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

  void append_route(AllToAllRoutes& flat, uint32_t chunk, uint32_t s, uint32_t d, const uint32_t* links,
                    size_t count) const {
    flat.links.insert(flat.links.end(), links, links + count);
    flat.begin.push_back(static_cast<uint32_t>(flat.links.size()));
    flat.chunk.push_back(chunk);
    flat.chunk_class.push_back(classes_.of_pair[size_t{s} * n_ + d]);
  }

  // Every block's paths as flat routes (layer by layer, source by source); the blocks are released as they go.
  AllToAllRoutes flatten() {
    AllToAllRoutes flat;
    size_t hops = 0;
    for (const Block& b : blocks_)
      hops += b.links.size();
    flat.links.reserve(hops);
    for (uint32_t j = 0; j < p_.chunks_per_pair; ++j) {
      for (uint32_t s = 0; s < n_; ++s) {
        Block& b = blocks_[size_t{j} * n_ + s];
        for (uint32_t shift = 1; shift < n_; ++shift) {  // shifted order (shifted_key)
          const uint32_t d = (s + shift) % n_;
          if (b.begin[d] != b.begin[d + 1])
            append_route(flat, (j * n_ + s) * n_ + d, s, d, b.links.data() + b.begin[d], b.begin[d + 1] - b.begin[d]);
        }
        b = Block{};
      }
    }
    return flat;
  }

  // Every block's paths as separate routes, for per-chunk rerouting.
  std::vector<Route> separate() {
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
  ChunkClasses classes_;
  HopDurations durations_;
  std::vector<int64_t> load_;  // ps of busy time per link
  std::vector<Block> blocks_;
  std::vector<double> base_;  // per (source, link): tau of the source's mean chunk
  std::vector<double> dist_;  // infinity except at the nodes in reached_
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> reached_;
  int64_t top_ = 0;  // the busiest link's load (refreshed per tree and every 256 chunk re-routes)
};

}  // namespace

int64_t all_to_all_chunk_bytes(int64_t bytes, uint32_t k) {
  return bytes <= 0 ? 0 : std::max<int64_t>(1, (bytes + k - 1) / k);
}

AllToAllResult synthesize_all_to_all(const AllToAllProblem& p) {
  const SynthGraph& g = *p.graph;
  const uint32_t n = g.member_count(), k = p.chunks_per_pair;
  CHORUS_ASSERT(p.pair_bytes.size() == size_t{n} * n && k > 0, "all-to-all: bad problem");
  Router router(p);
  const AllToAllRoutes routes = router.run();
  ListSchedule best = list_schedule(g, routes, router.durations(), WaitOrder::Fifo);
  // Both orders on groups of moderate size (each costs a pass over every hop); first-come above.
  if (routes.size() <= (uint32_t{1} << 18)) {
    ListSchedule critical = list_schedule(g, routes, router.durations(), WaitOrder::Critical);
    if (critical.makespan < best.makespan)
      best = std::move(critical);
  }
  AllToAllResult r;
  r.hops = std::move(best.hops);
  r.makespan = best.makespan;
  r.max_link_load = Time::ps(router.max_load());
  return r;
}

}  // namespace chorus
