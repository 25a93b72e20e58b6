// The congestion-unaware model replayed on the links a synthesized Schedule was placed on (SynthRoutes): every
// transfer pays its link's latency plus its bytes over that link's bandwidth, as soon as its dependencies end.
// Synthesized transfers are single hops that may start or end at a switch, so routing them NPU to NPU (RoutedCost)
// does not apply.
#pragma once

#include "chorus/synth/synthesize.hpp"

namespace chorus {

Time synth_unaware_time(const Topology& topology, const SynthResult& result);

}  // namespace chorus
