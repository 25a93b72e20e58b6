// The concurrent-flow LP (see concurrent_flow_lp.hpp): the problem as plain arrays, solved by the GLPK plugin
// (concurrent_flow_glpk.hpp), loaded on the first call.
#include "chorus/synth/concurrent_flow_lp.hpp"

#include "chorus/synth/concurrent_flow_glpk.hpp"

namespace chorus {

namespace {

std::vector<uint32_t> sources_with_traffic(const SynthGraph& g, const std::vector<int64_t>& d) {
  const uint32_t n = g.member_count();
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < n; ++s) {
    for (uint32_t t = 0; t < n; ++t) {
      if (t != s && d[size_t{s} * n + t] > 0) {
        out.push_back(s);
        break;
      }
    }
  }
  return out;
}

}  // namespace

uint64_t concurrent_flow_lp_variables(const SynthGraph& graph, const std::vector<int64_t>& pair_bytes) {
  return uint64_t{sources_with_traffic(graph, pair_bytes).size()} * graph.link_count();
}

std::optional<LpConcurrentFlow> solve_concurrent_flow_lp(const SynthGraph& graph,
                                                         const std::vector<int64_t>& pair_bytes,
                                                         uint64_t max_variables) {
  const std::vector<uint32_t> sources = sources_with_traffic(graph, pair_bytes);
  if (sources.empty() || uint64_t{sources.size()} * graph.link_count() > max_variables)
    return std::nullopt;
  const uint32_t links = graph.link_count();
  std::vector<uint32_t> src(links), dst(links);
  std::vector<double> bandwidth(links);
  for (uint32_t e = 0; e < links; ++e) {
    src[e] = graph.src(e);
    dst[e] = graph.dst(e);
    bandwidth[e] = graph.bandwidth(e).bytes_per_second();
  }
  const GlpkFlowProblem problem{graph.node_count(),
                                graph.member_count(),
                                links,
                                src.data(),
                                dst.data(),
                                bandwidth.data(),
                                pair_bytes.data(),
                                static_cast<uint32_t>(sources.size()),
                                sources.data()};
  LpConcurrentFlow out;
  out.load.assign(links, 0);
  out.lengths.assign(links, 0);
  GlpkFlowSolution solution{out.load.data(), out.lengths.data(), 0};
  if (!load_plugin<GlpkPlugin>(kGlpkPlugin).solve(problem, solution))
    return std::nullopt;
  out.residual = solution.residual;
  return out;
}

}  // namespace chorus
