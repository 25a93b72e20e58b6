// The HTML report of a synthesized collective (`chorus synth ... --report FILE`): when each link is busy in the
// schedule (the busiest links, one row each), the schedule's time against its lower bound, and the ratio.
#pragma once

#include <string>

#include "chorus/synth/synthesize.hpp"

namespace chorus {

std::string synth_report_html(const SynthResult& result, const Topology& topology, Time bound);

}  // namespace chorus
