// The HTML report of a size sweep (`chorus collective|bound --size A:B:xF --report FILE`): busbw and time against
// size on log axes, with the lower bound's curve and, with --compare, the measured nccl-tests curves.
#pragma once

#include <string>
#include <vector>

#include "chorus/sweep/collective_sweep.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"

namespace chorus {

// `title` names the run (collective, topology, algorithm, model); `measured` may be null.
std::string sweep_report_html(const SizeSweep& sweep, const std::string& title, const NcclTestsLog* measured);

// The bounds alone (`chorus bound --size A:B:xF --report FILE`).
std::string bound_sweep_report_html(const std::vector<LowerBound>& bounds, const std::string& title);

}  // namespace chorus
