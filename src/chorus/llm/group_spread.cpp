// Group placement and the cost of its collectives (group_spread.hpp).
#include "chorus/llm/group_spread.hpp"

#include <algorithm>

namespace chorus::llm {

int64_t gradient_members_per_domain(const Execution& exe, const System& sys) {
  const int64_t domain = sys.networks.empty() ? 1 : sys.networks.front().size;
  const int64_t tp = std::max<int64_t>(1, exe.tensor_par);
  if (domain <= tp)
    return 1;
  return std::clamp<int64_t>(domain / tp, 1, std::max<int64_t>(1, exe.grad_group()));
}

double spread_op_time(const System& sys, int8_t tier, Collective op, double bytes, int64_t n, int64_t per_domain) {
  const NetworkTier& outer = sys.networks[static_cast<size_t>(tier)];
  const double flat = outer.op_time(op, bytes, n);
  if (tier == 0 || per_domain <= 1 || n <= per_domain || n % per_domain != 0 || op == Collective::kP2p)
    return flat;
  const NetworkTier& inner = sys.networks.front();
  const int64_t domains = n / per_domain;
  const double share = bytes / static_cast<double>(per_domain);
  double t = outer.op_time(op, share, domains);
  if (op == Collective::kAllReduce || op == Collective::kReduceScatter)
    t += inner.op_time(Collective::kReduceScatter, bytes, per_domain);
  if (op == Collective::kAllReduce || op == Collective::kAllGather)
    t += inner.op_time(Collective::kAllGather, bytes, per_domain);
  return std::min(flat, t);
}

double pipeline_cross_domain_share(const Execution& exe, const System& sys) {
  const int64_t domain = sys.networks.empty() ? 1 : sys.networks.front().size;
  const int64_t stage = std::max<int64_t>(1, exe.tensor_par * exe.context_par * exe.data_par);
  const int64_t pp = exe.pipeline_par;
  if (pp <= 1 || stage >= domain || domain % stage != 0)
    return 1.0;
  const int64_t per_domain = domain / stage;  // stages in one domain
  if (pp <= per_domain)
    return 0.0;
  const bool interleaved = exe.pipeline_interleaving > 1;
  // Boundaries s -> s + 1 cross where s + 1 starts a domain; the interleaved wrap (last -> first) always does.
  const double crossing = static_cast<double>(pp / per_domain) - (interleaved ? 0.0 : 1.0);
  const double boundaries = static_cast<double>(interleaved ? pp : pp - 1);
  return crossing / boundaries;
}

}  // namespace chorus::llm
