// MoE dispatch/combine All-to-All payload and time (see expert_dispatch.hpp).
#include "chorus/llm/expert_dispatch.hpp"

#include <algorithm>

#include "chorus/llm/memory.hpp"

namespace chorus::llm {

double dispatch_bytes(const Application& app, const Execution& exe, double bytes_per_element) {
  const double tokens =
      static_cast<double>(exe.microbatch_size * app.seq_size / exe.context_par) / static_cast<double>(exe.tensor_par);
  const double pad = app.capacity_factor > 0 ? app.capacity_factor : 1.0;
  const double width = std::max(bytes_per_element, kStoredBytesFp8);
  return tokens * static_cast<double>(app.top_k) * pad * static_cast<double>(app.hidden) * width;
}

int64_t ep_ranks_per_domain(const Execution& exe, int64_t domain_size) {
  if (exe.expert_par <= 1)
    return 1;
  if (exe.expert_par_net == 0)
    return exe.expert_par;
  const int64_t inner = exe.tensor_par * exe.context_par;
  // A group that would fit one domain but is placed on a higher tier is spread over domains by the execution.
  if (inner * exe.expert_par <= domain_size)
    return 1;
  return std::clamp<int64_t>(domain_size / inner, 1, exe.expert_par);
}

double expert_all_to_all_time(const NetworkTier& net, const NetworkTier* scale_up, double bytes, int64_t n,
                              int64_t local) {
  if (n <= 1)
    return 0;
  const double nn = static_cast<double>(n);
  const bool split = scale_up != nullptr && scale_up != &net && local > 1;
  if (!split && net.table && net.table->has_all_to_all())
    return net.table->all_to_all(bytes, n);  // a table's All-to-All (chorus codesign), on one tier only
  const double remote = split ? nn - static_cast<double>(local) : nn - 1;
  double t = bytes * remote / nn / (net.bytes_per_second * net.efficiency);
  if (split) {
    const double near =
        bytes * static_cast<double>(local - 1) / nn / (scale_up->bytes_per_second * scale_up->efficiency);
    t = std::max(t, near);
  }
  return net.latency_s + t;
}

}  // namespace chorus::llm
