// The HTML report of a workload run (`chorus sim ... --out DIR --report` writes DIR/report.html): where each NPU's
// time goes (compute, exposed communication, pipeline bubble / peer wait, idle), the collectives against their
// physical lower bounds, the link utilisation per dimension (aware and flow models), and what the runtime cannot
// provide (a critical path).
#pragma once

#include <string>

#include "chorus/runtime/reports.hpp"

namespace chorus {

std::string sim_report_html(const ReportContext& context);

}  // namespace chorus
