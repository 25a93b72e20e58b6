// Direct exchange through one switch (see star_direct.hpp).
#include "chorus/synth/star_direct.hpp"

#include <algorithm>
#include <numeric>

namespace chorus {

std::optional<uint32_t> star_switch(const SynthGraph& g) {
  const uint32_t n = g.member_count();
  if (n < 2 || g.node_count() != n + 1)
    return std::nullopt;
  const uint32_t hub = n;
  for (uint32_t v = 0; v < n; ++v) {
    const auto out = g.out_links(v), in = g.in_links(v);
    if (out.size() != 1 || in.size() != 1 || g.dst(out[0]) != hub || g.src(in[0]) != hub)
      return std::nullopt;
  }
  return hub;
}

namespace {

struct Arrival {
  Time at;        // when the chunk has reached the switch
  uint32_t from;  // the uplink transfer that brought it
  uint32_t source;
};

}  // namespace

std::optional<SpreadResult> star_direct(const SpreadProblem& p) {
  const SynthGraph& g = *p.graph;
  if (p.relays_replicate || !p.link_allowed.empty())
    return std::nullopt;
  const std::optional<uint32_t> hub = star_switch(g);
  if (!hub)
    return std::nullopt;
  const uint32_t n = g.member_count();
  std::vector<std::vector<uint32_t>> own(n);  // each member's chunks, in release order
  for (uint32_t c = 0; c < p.chunks; ++c)
    own[p.origin[c]].push_back(c);
  for (const auto& chunks : own) {
    if (chunks.empty() || chunks.size() != own[0].size())
      return std::nullopt;
  }
  auto release = [&](uint32_t c) { return p.release.empty() ? Time::zero() : p.release[c]; };
  auto link_free = [&](uint32_t l) { return p.link_free.empty() ? Time::zero() : p.link_free[l]; };
  std::vector<uint32_t> down(n);  // the switch's link to each member
  for (uint32_t l : g.out_links(*hub))
    down[g.dst(l)] = l;

  SpreadResult r;
  HugeVector<SpreadTransfer> xs;
  std::vector<std::vector<Arrival>> arriving(n);
  for (uint32_t v = 0; v < n; ++v) {
    std::stable_sort(own[v].begin(), own[v].end(), [&](uint32_t a, uint32_t b) { return release(a) < release(b); });
    const uint32_t up = g.out_links(v)[0];
    Time t = link_free(up);
    for (uint32_t c : own[v]) {
      for (uint32_t k = 1; k < n; ++k) {
        const Time start = std::max(t, release(c));
        t = start + p.tau[up];
        arriving[(v + k) % n].push_back({t, static_cast<uint32_t>(xs.size()), v});
        xs.push_back({up, c, start, t, kNoTransfer});
      }
    }
  }
  for (uint32_t d = 0; d < n; ++d) {
    auto& in = arriving[d];
    std::stable_sort(in.begin(), in.end(), [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    Time t = link_free(down[d]);
    for (const Arrival& a : in) {
      const Time start = std::max(t, a.at);
      t = start + p.tau[down[d]];
      xs.push_back({down[d], xs[a.from].chunk, start, t, a.from});
      r.makespan = std::max(r.makespan, t);
    }
  }
  // SpreadResult lists transfers in start order; an uplink ends before its downlink starts, so `from` stays earlier.
  std::vector<uint32_t> order(xs.size()), index(xs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return xs[a].start < xs[b].start; });
  for (uint32_t i = 0; i < order.size(); ++i)
    index[order[i]] = i;
  r.transfers.reserve(xs.size());
  for (uint32_t i : order) {
    SpreadTransfer x = xs[i];
    if (x.from != kNoTransfer)
      x.from = index[x.from];
    r.transfers.push_back(x);
  }
  r.events = r.transfers.size();
  return r;
}

}  // namespace chorus
