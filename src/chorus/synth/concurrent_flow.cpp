// Maximum concurrent flow bounds (see concurrent_flow.hpp).
#include "chorus/synth/concurrent_flow.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "chorus/synth/concurrent_flow_lp.hpp"

namespace chorus {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Shortest paths from one source under link lengths; `order` lists the nodes in the order they were settled.
struct Tree {
  std::vector<double> dist;
  std::vector<uint32_t> parent;  // link into the node, UINT32_MAX at the source / unreached
  std::vector<uint32_t> order;
};

class Solver {
 public:
  Solver(const SynthGraph& g, const std::vector<int64_t>& demand, const ConcurrentFlowOptions& o)
      : g_(g), d_(demand), o_(o), n_(g.member_count()), cap_(g.link_count()) {
    for (uint32_t e = 0; e < g.link_count(); ++e)
      cap_[e] = g.bandwidth(e).bytes_per_second();
    tree_.dist.resize(g.node_count());
    tree_.parent.resize(g.node_count());
  }

  ConcurrentFlow run() {
    ConcurrentFlow r;
    if (!any_demand())
      return r;
    consider(std::vector<double>(g_.link_count(), 1.0), "hops", r);
    std::vector<double> inverse(g_.link_count());
    for (uint32_t e = 0; e < g_.link_count(); ++e)
      inverse[e] = 1 / cap_[e];
    consider(inverse, "inverse-bandwidth", r);
    if (r.lower_s <= 0)
      return r;
    if (const auto lp = solve_concurrent_flow_lp(g_, d_, o_.exact_variables)) {
      certify(*lp, r);
      if (r.exact)
        return r;
    }
    phases(inverse, r);
    return r;
  }

 private:
  bool any_demand() const {
    for (uint32_t s = 0; s < n_; ++s)
      for (uint32_t t = 0; t < n_; ++t)
        if (s != t && d_[size_t{s} * n_ + t] > 0)
          return true;
    return false;
  }

  void dijkstra(uint32_t s, const std::vector<double>& len) {
    std::fill(tree_.dist.begin(), tree_.dist.end(), kInf);
    std::fill(tree_.parent.begin(), tree_.parent.end(), UINT32_MAX);
    tree_.order.clear();
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    tree_.dist[s] = 0;
    heap.push({0, s});
    while (!heap.empty()) {
      const auto [dv, v] = heap.top();
      heap.pop();
      if (dv > tree_.dist[v])
        continue;
      tree_.order.push_back(v);
      for (uint32_t e : g_.out_links(v)) {
        ++work_;
        const uint32_t w = g_.dst(e);
        const double nd = dv + len[e];
        if (nd < tree_.dist[w]) {
          tree_.dist[w] = nd;
          tree_.parent[w] = e;
          heap.push({nd, w});
        }
      }
    }
  }

  // The dual bound of lengths `len`: sum_k D_k dist(k) / sum_e c_e len_e.
  double dual(const std::vector<double>& len) {
    double volume = 0;
    for (uint32_t e = 0; e < g_.link_count(); ++e)
      volume += cap_[e] * len[e];
    double routed = 0;
    for (uint32_t s = 0; s < n_; ++s) {
      if (!has_demand(s))
        continue;
      dijkstra(s, len);
      for (uint32_t t = 0; t < n_; ++t) {
        const int64_t d = d_[size_t{s} * n_ + t];
        if (t != s && d > 0)
          routed += static_cast<double>(d) * tree_.dist[t];
      }
    }
    return volume > 0 ? routed / volume : 0;
  }

  void consider(const std::vector<double>& len, const char* name, ConcurrentFlow& r) {
    const double b = dual(len) * (1 - 1e-12);  // round against the bound's favour
    if (b > r.lower_s) {
      r.lower_s = b;
      r.binding = name;
    }
  }

  // The LP's optimum, trusted only as far as checked here: its dual lengths' bound by this file's shortest paths,
  // its routing's congestion (flow conserved to 1e-9 of the traffic), and the two equal to 1e-9.
  void certify(const LpConcurrentFlow& lp, ConcurrentFlow& r) {
    consider(lp.lengths, "exact", r);
    double traffic = 0, congestion = 0;
    for (int64_t x : d_)
      traffic += static_cast<double>(std::max<int64_t>(x, 0));
    for (uint32_t e = 0; e < g_.link_count(); ++e)
      congestion = std::max(congestion, lp.load[e] / cap_[e]);
    if (lp.residual > 1e-9 * traffic || congestion > r.lower_s * (1 + 1e-9))
      return;
    r.upper_s = congestion;
    r.exact = true;
  }

  bool has_demand(uint32_t s) const {
    for (uint32_t t = 0; t < n_; ++t)
      if (t != s && d_[size_t{s} * n_ + t] > 0)
        return true;
    return false;
  }

  // Routes every demand of source s once, on shortest-path trees under `len`, adding to x and lengthening links.
  void route_source(uint32_t s, std::vector<double>& len, std::vector<double>& x, double scale) {
    std::vector<double> rem(g_.node_count(), 0), through(g_.node_count(), 0);
    for (uint32_t t = 0; t < n_; ++t)
      rem[t] = t == s ? 0 : static_cast<double>(d_[size_t{s} * n_ + t]);
    for (int step = 0; step < 8; ++step) {
      dijkstra(s, len);
      std::fill(through.begin(), through.end(), 0);
      double sigma = 1;
      for (auto it = tree_.order.rbegin(); it != tree_.order.rend(); ++it) {
        const uint32_t v = *it;
        through[v] += rem[v];
        const uint32_t e = tree_.parent[v];
        if (e == UINT32_MAX)
          continue;
        through[g_.src(e)] += through[v];
        sigma = std::max(sigma, through[v] / (cap_[e] * scale));
      }
      if (step == 7)
        sigma = 1;  // route the rest: the primal stays exact, only one step is longer than the theory's
      for (uint32_t v : tree_.order) {
        const uint32_t e = tree_.parent[v];
        if (e == UINT32_MAX || through[v] <= 0)
          continue;
        const double f = through[v] / sigma;
        x[e] += f;
        len[e] *= 1 + o_.epsilon * f / (cap_[e] * scale);
      }
      if (sigma <= 1)
        return;
      for (double& r : rem)
        r -= r / sigma;
    }
  }

  // Fleischer's phases: each routes every demand once. The primal is measured over the phases since the last
  // power of two (early phases, routed under poor lengths, are forgotten); the dual is evaluated every phase.
  void phases(std::vector<double> len, ConcurrentFlow& r) {
    const double scale = r.lower_s;
    std::vector<double> x(g_.link_count(), 0);
    uint32_t window = 0;
    for (uint32_t p = 1; work_ < o_.work; ++p) {
      for (uint32_t s = 0; s < n_; ++s) {
        if (has_demand(s))
          route_source(s, len, x, scale);
      }
      ++window;
      r.phases = p;
      double congestion = 0;
      for (uint32_t e = 0; e < g_.link_count(); ++e)
        congestion = std::max(congestion, x[e] / cap_[e]);
      congestion /= window;
      if (r.upper_s == 0 || congestion < r.upper_s)
        r.upper_s = congestion;
      const double top = *std::max_element(len.begin(), len.end());
      for (double& l : len)
        l /= top;  // scale-free: keeps the exponential lengths finite
      consider(len, "flow", r);
      if (r.upper_s <= r.lower_s * (1 + o_.gap))
        return;
      if ((p & (p - 1)) == 0) {
        std::fill(x.begin(), x.end(), 0);
        window = 0;
      }
    }
  }

  const SynthGraph& g_;
  const std::vector<int64_t>& d_;
  const ConcurrentFlowOptions& o_;
  uint32_t n_;
  std::vector<double> cap_;
  Tree tree_;
  uint64_t work_ = 0;
};

}  // namespace

ConcurrentFlow concurrent_flow(const SynthGraph& graph, const std::vector<int64_t>& pair_bytes,
                               const ConcurrentFlowOptions& options) {
  return Solver(graph, pair_bytes, options).run();
}

}  // namespace chorus
