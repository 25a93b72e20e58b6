// The HTML report of a workload run (`chorus sim ... --out DIR --report` writes DIR/report.html): where each NPU's
// time goes (compute, exposed communication, pipeline bubble / peer wait, idle), the collectives (all instances)
// against their physical lower bounds, the link utilisation per dimension on an absolute 0-100% scale (aware and
// flow models), the critical path over time with the blame table (top 20), the what-if bars (--what-if), and the
// measured run beside the simulated one (--measured: per rank, and the 20 operations furthest off).
#pragma once

#include <string>

#include "chorus/runtime/reports.hpp"

namespace chorus {

std::string sim_report_html(const ReportContext& context);

}  // namespace chorus
