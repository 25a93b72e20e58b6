// Whether a reported collective time respects the physical lower bound, and the warning `chorus collective` and
// `chorus synth` print when it does not (the congestion-unaware model lets concurrent messages share a link at
// full speed each, so it can finish below the cut bound).
#pragma once

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/units.hpp"
#include "chorus/sim/collective_run.hpp"

namespace chorus::cli {

// Prints one "warning ..." line to stdout when `time` is below `bound`; nothing otherwise.
void print_infeasible_warning(Time time, Time bound, NetworkModelKind model);

}  // namespace chorus::cli
