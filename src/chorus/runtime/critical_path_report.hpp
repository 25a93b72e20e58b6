// The critical path, blame and what-if parts of a workload run's reports (reports.hpp): summary.json's
// critical_path_totals, critical_path, blame and what_if, and the lines the terminal report prints about them.
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "chorus/runtime/reports.hpp"

namespace chorus {

// Adds critical_path_totals, critical_path and blame (when the run recorded a critical path) and what_if (when
// given) to summary.json's object `j`.
void add_critical_path_json(nlohmann::json& j, const ReportContext& context);

// The critical path's split, the top `rows` blame rows and the what-if results, for the terminal.
void print_critical_path(std::ostream& out, const ReportContext& context, size_t rows = 5);

// A what-if's speedup: the run's finish over the changed run's (0 when the changed run takes no time).
double speedup(Time baseline, Time changed);

// The network dimension that bounds a collective segment's group; -1 when there is none (critical_path.hpp).
int64_t segment_dimension(const ReportContext& context, const PathSegment& s);

}  // namespace chorus
