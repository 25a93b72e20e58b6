// The rail restriction (see rail_restriction.hpp).
#include "chorus/synth/rail_restriction.hpp"

#include <algorithm>
#include <numeric>

namespace chorus {

namespace {

double fastest_bandwidth(const SynthGraph& g) {
  double fastest = 0;
  for (uint32_t l = 0; l < g.link_count(); ++l)
    fastest = std::max(fastest, g.bandwidth(l).bytes_per_second());
  return fastest;
}

// Union-find over the links `joined` says to merge; returns each node's representative.
template <class Joined>
std::vector<uint32_t> components(const SynthGraph& g, Joined joined) {
  std::vector<uint32_t> parent(g.node_count());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](uint32_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (uint32_t l = 0; l < g.link_count(); ++l) {
    if (joined(l))
      parent[find(g.src(l))] = find(g.dst(l));
  }
  for (uint32_t v = 0; v < g.node_count(); ++v)
    parent[v] = find(v);
  return parent;
}

// Whether the fast tier consists of one-hop domains (a DGX's NVLink / NVSwitch nodes): every member reaches each
// member of its fast-tier component over one fast link, or two through a non-member (a switch). Where fast
// components are multi-hop (a mesh's rows), restricting the slow links to their own chunks starves the rows.
bool fast_domains_one_hop(const SynthGraph& g, const std::vector<char>& slow) {
  const std::vector<uint32_t> fast = components(g, [&](uint32_t l) { return !slow[l]; });
  std::vector<uint32_t> members_in(g.node_count(), 0);
  for (uint32_t m = 0; m < g.member_count(); ++m)
    ++members_in[fast[m]];
  std::vector<uint32_t> mark(g.node_count(), UINT32_MAX);
  uint64_t work = 0;
  for (uint32_t v = 0; v < g.member_count(); ++v) {
    uint32_t reached = 0;
    auto reach = [&](uint32_t w) {
      if (g.is_member(w) && w != v && mark[w] != v) {
        mark[w] = v;
        ++reached;
      }
    };
    for (uint32_t l : g.out_links(v)) {
      if (slow[l])
        continue;
      reach(g.dst(l));
      if (g.is_member(g.dst(l)))
        continue;
      for (uint32_t l2 : g.out_links(g.dst(l))) {
        if (!slow[l2])
          reach(g.dst(l2));
        if (++work > (uint64_t{1} << 26))
          return false;
      }
    }
    if (reached + 1 != members_in[fast[v]])
      return false;
  }
  return true;
}

// The nodes reached from `start` over fast links and the slow links of component `own`: along links, or against
// them with `backward` (the nodes that reach `start`).
std::vector<char> reached(const SynthGraph& g, const RailTiers& t, uint32_t own, uint32_t start, bool backward) {
  std::vector<char> seen(g.node_count(), 0);
  std::vector<uint32_t> queue{start};
  seen[start] = 1;
  for (size_t q = 0; q < queue.size(); ++q) {
    for (uint32_t l : backward ? g.in_links(queue[q]) : g.out_links(queue[q])) {
      const uint32_t w = backward ? g.src(l) : g.dst(l);
      if (seen[w] || (t.slow[l] && t.component[g.src(l)] != own))
        continue;
      seen[w] = 1;
      queue.push_back(w);
    }
  }
  return seen;
}

// Whether every member reaches every other member over fast links and its own component's slow links. Members of
// one component see the same links, so per component one member r is enough: all of them reach everyone exactly
// when r reaches every member and every member of the component reaches r (two searches, not one per member).
bool every_member_reaches_all(const SynthGraph& g, const RailTiers& t) {
  std::vector<char> done(g.node_count(), 0);
  for (uint32_t r = 0; r < g.member_count(); ++r) {
    const uint32_t own = t.component[r];
    if (done[own])
      continue;
    done[own] = 1;
    const std::vector<char> from_r = reached(g, t, own, r, false), to_r = reached(g, t, own, r, true);
    for (uint32_t m = 0; m < g.member_count(); ++m) {
      if (!from_r[m] || (t.component[m] == own && !to_r[m]))
        return false;
    }
  }
  return true;
}

}  // namespace

std::optional<RailTiers> rail_tiers(const SynthGraph& g) {
  const double fastest = fastest_bandwidth(g);
  RailTiers t;
  t.slow.resize(g.link_count());
  bool tiered = false;
  for (uint32_t l = 0; l < g.link_count(); ++l) {
    t.slow[l] = g.bandwidth(l).bytes_per_second() < fastest;
    tiered = tiered || t.slow[l];
  }
  if (!tiered || !fast_domains_one_hop(g, t.slow))
    return std::nullopt;
  t.component = components(g, [&](uint32_t l) { return t.slow[l] != 0; });
  if (!every_member_reaches_all(g, t))
    return std::nullopt;
  return t;
}

// Fast links carry every chunk; a slow link carries its component's chunks, one row per component built once and
// copied.
std::vector<uint64_t> rail_rows(const SynthGraph& g, const RailTiers& t, const std::vector<uint32_t>& origin,
                                uint32_t chunks) {
  const uint32_t words = (chunks + 63) / 64;
  std::vector<uint64_t> every(words, 0);
  for (uint32_t c = 0; c < chunks; ++c)
    every[c / 64] |= 1ull << (c % 64);
  std::vector<uint32_t> row_of(g.node_count(), UINT32_MAX);  // component -> its row in `own`
  std::vector<uint64_t> own;
  for (uint32_t c = 0; c < chunks; ++c) {
    const uint32_t k = t.component[origin[c]];
    if (row_of[k] == UINT32_MAX) {
      row_of[k] = static_cast<uint32_t>(own.size() / std::max<uint32_t>(words, 1));
      own.resize(own.size() + words, 0);
    }
    own[size_t{row_of[k]} * words + c / 64] |= 1ull << (c % 64);
  }
  std::vector<uint64_t> allowed(size_t{g.link_count()} * words, 0);
  for (uint32_t l = 0; l < g.link_count(); ++l) {
    const uint64_t* row = every.data();
    if (t.slow[l]) {
      const uint32_t k = row_of[t.component[g.src(l)]];
      if (k == UINT32_MAX)
        continue;  // no chunk starts in this component
      row = own.data() + size_t{k} * words;
    }
    std::copy(row, row + words, allowed.begin() + static_cast<std::ptrdiff_t>(size_t{l} * words));
  }
  return allowed;
}

}  // namespace chorus
