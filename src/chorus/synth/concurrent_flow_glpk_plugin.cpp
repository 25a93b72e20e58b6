// The plugin libchorus_glpk.so: the concurrent-flow LP of concurrent_flow_lp.hpp solved by GLPK (interface in
// concurrent_flow_glpk.hpp). Built as its own shared library, linked with GLPK alone; not part of libchorus.
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "chorus/synth/concurrent_flow_glpk.hpp"

namespace chorus {
namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// GLPK's scaling and basis routines print to stdout; chorus's output is its own. glp_term_out is per thread: it is
// switched off for the solve and restored after it.
class QuietGlpk {
 public:
  QuietGlpk() : previous_(glp_term_out(GLP_OFF)) {}
  ~QuietGlpk() { glp_term_out(previous_); }
  QuietGlpk(const QuietGlpk&) = delete;
  QuietGlpk& operator=(const QuietGlpk&) = delete;

 private:
  int previous_;
};

// Builds the LP in scaled units (demand / the largest demand, bandwidth / the largest bandwidth) so GLPK's
// tolerances see numbers near 1. Columns: T (1), then f_s(e) for source index i at 2 + i * links + e. Rows: the
// conservation row of (source index i, node v) at 1 + i * nodes + v, then one capacity row per link.
class LpBuilder {
 public:
  explicit LpBuilder(const GlpkFlowProblem& g) : g_(g) {
    for (size_t i = 0; i < size_t{g.members} * g.members; ++i)
      d_max_ = std::max(d_max_, static_cast<double>(g.demand[i]));
    for (uint32_t e = 0; e < g.links; ++e)
      c_max_ = std::max(c_max_, g.bandwidth[e]);
  }

  Problem build() const {
    Problem p(glp_create_prob());
    const uint32_t nodes = g_.nodes, links = g_.links, n = g_.members;
    const int rows = static_cast<int>(size_t{g_.source_count} * nodes + links);
    const int cols = static_cast<int>(1 + size_t{g_.source_count} * links);
    glp_set_obj_dir(p.get(), GLP_MIN);
    glp_add_rows(p.get(), rows);
    glp_add_cols(p.get(), cols);
    glp_set_col_bnds(p.get(), 1, GLP_LO, 0, 0);
    glp_set_obj_coef(p.get(), 1, 1);
    for (int c = 2; c <= cols; ++c)
      glp_set_col_bnds(p.get(), c, GLP_LO, 0, 0);
    for (size_t i = 0; i < g_.source_count; ++i) {
      const uint32_t s = g_.sources[i];
      for (uint32_t v = 0; v < nodes; ++v) {
        double supply = 0;
        if (v == s) {
          for (uint32_t t = 0; t < n; ++t)
            supply += t == s ? 0 : static_cast<double>(g_.demand[size_t{s} * n + t]) / d_max_;
        } else if (v < n) {
          supply = -static_cast<double>(g_.demand[size_t{s} * n + v]) / d_max_;
        }
        glp_set_row_bnds(p.get(), row(i, v), GLP_FX, supply, supply);
      }
    }
    for (uint32_t e = 0; e < links; ++e)
      glp_set_row_bnds(p.get(), capacity_row(e), GLP_UP, 0, 0);
    // Each flow column: +1 at its link's source node, -1 at its destination, +1 in the link's capacity row.
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    auto put = [&](int r, int c, double v) {
      ia.push_back(r);
      ja.push_back(c);
      ar.push_back(v);
    };
    for (size_t i = 0; i < g_.source_count; ++i) {
      for (uint32_t e = 0; e < links; ++e) {
        const int c = column(i, e);
        put(row(i, g_.src[e]), c, 1);
        put(row(i, g_.dst[e]), c, -1);
        put(capacity_row(e), c, 1);
      }
    }
    for (uint32_t e = 0; e < links; ++e)
      put(capacity_row(e), 1, -g_.bandwidth[e] / c_max_);
    glp_load_matrix(p.get(), static_cast<int>(ia.size() - 1), ia.data(), ja.data(), ar.data());
    return p;
  }

  void read(glp_prob* p, GlpkFlowSolution& out) const {
    const uint32_t links = g_.links, nodes = g_.nodes;
    std::fill(out.load, out.load + links, 0.0);
    std::fill(out.lengths, out.lengths + links, 0.0);
    out.residual = 0;
    std::vector<double> net(nodes);
    for (size_t i = 0; i < g_.source_count; ++i) {
      std::fill(net.begin(), net.end(), 0);
      for (uint32_t e = 0; e < links; ++e) {
        const double f = std::max(0.0, glp_get_col_prim(p, column(i, e))) * d_max_;
        out.load[e] += f;
        net[g_.src[e]] += f;
        net[g_.dst[e]] -= f;
      }
      for (uint32_t v = 0; v < nodes; ++v)
        out.residual = std::max(out.residual, std::fabs(net[v] - glp_get_row_lb(p, row(i, v)) * d_max_));
    }
    // A capacity row's multiplier in a minimization is <= 0: its negation is the link's length.
    for (uint32_t e = 0; e < links; ++e)
      out.lengths[e] = std::max(0.0, -glp_get_row_dual(p, capacity_row(e)));
  }

 private:
  int row(size_t i, uint32_t v) const { return static_cast<int>(1 + i * g_.nodes + v); }
  int capacity_row(uint32_t e) const { return static_cast<int>(1 + size_t{g_.source_count} * g_.nodes + e); }
  int column(size_t i, uint32_t e) const { return static_cast<int>(2 + i * g_.links + e); }

  const GlpkFlowProblem& g_;
  double d_max_ = 0, c_max_ = 0;
};

bool solve(const GlpkFlowProblem& problem, GlpkFlowSolution& solution) {
  const QuietGlpk quiet;
  const LpBuilder builder(problem);
  const Problem p = builder.build();
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  // Primal simplex from GLPK's standard basis, unscaled (the builder already scales): on an 8x8 torus 1.1 s, where
  // GLPK's scaling and advanced basis took 2.8 s and its dual simplex 10 s.
  if (glp_simplex(p.get(), &parm) != 0 || glp_get_status(p.get()) != GLP_OPT)
    return false;
  // The rational simplex from the floating-point optimum's basis: the optimum exactly (then rounded to doubles).
  if (glp_exact(p.get(), &parm) != 0 || glp_get_status(p.get()) != GLP_OPT)
    return false;
  builder.read(p.get(), solution);
  return true;
}

constexpr GlpkPlugin kTable{{kGlpkPlugin.interface_version, CHORUS_PLUGIN_VERSION}, &solve};

}  // namespace
}  // namespace chorus

CHORUS_PLUGIN_EXPORT const chorus::PluginHeader* chorus_plugin_glpk() {
  return &chorus::kTable.header;
}
