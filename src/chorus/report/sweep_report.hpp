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

// Several algorithms over the same sizes in one chart (`chorus collective --algorithm ring,nccl,synth --report`):
// one busbw and one time curve per algorithm, the bound of the first sweep that has one, the measured curves.
struct LabelledSweep {
  std::string label;  // "ring", "nccl (NCCL 2.30.7)", "synth"
  const SizeSweep* sweep = nullptr;
};
std::string sweep_comparison_report_html(const std::vector<LabelledSweep>& sweeps, const std::string& title,
                                         const NcclTestsLog* measured);

// The bounds alone (`chorus bound --size A:B:xF --report FILE`).
std::string bound_sweep_report_html(const std::vector<LowerBound>& bounds, const std::string& title);

}  // namespace chorus
