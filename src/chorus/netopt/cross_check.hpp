// Cross-check of the closed-form model against chorus's collective simulation (sim/collective_run.hpp).
//
// Each distinct collective of the training step is simulated on the sub-network its groups span: one
// dimension per involved network dimension, of the group's size and the dimension's building block, with
// the per-NPU bandwidth B_d split over the links as LIBRA's cost model does (Ring: B/2 per link,
// FullyConnected: B/(n-1), Switch: B) and the dimension's latency. Ring and Switch dimensions run the ring
// algorithm, FullyConnected ones direct; All-Reduce uses the localBWAware composition. The simulated
// collective times then go through the same training loop as the model.
//
//   CrossCheck c = cross_check(network, step, {500, 300, 151.18, 48.82}, options, 16);
//   // c.model_ms vs c.simulated_ms
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/netopt/time_model.hpp"

namespace chorus::netopt {

struct CrossCheck {
  double model_ms = 0;
  double simulated_ms = 0;
  std::vector<double> model_collective_ms;      // per distinct collective
  std::vector<double> simulated_collective_ms;  // per distinct collective
};

// `splits` chunks per collective (more chunks pipeline the dimensions, as the model's max assumes).
CrossCheck cross_check(const NetworkShape& network, const TrainingStep& step, const std::vector<double>& bandwidth_gbps,
                       const ModelOptions& options, uint32_t splits);

}  // namespace chorus::netopt
