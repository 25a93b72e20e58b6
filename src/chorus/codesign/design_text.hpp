// How `chorus codesign` writes a design: one text line per design, a JSON object per design, and the HTML report
// with the cost-time Pareto front.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/codesign/solver.hpp"

namespace chorus::codesign {

// "tp8 pp4 dp32 v1 mbs1 none rs_ag zero1" and the optional parts (ep, cp, ZeRO-2/3, offloads).
std::string execution_text(const llm::Execution& e);
// "nvlink 450GB/s x8 ring | rail 100GB/s 2:1 ring"
std::string network_text(const NetworkTemplate& t, const NetworkPoint& p);

nlohmann::json network_json(const NetworkTemplate& t, const NetworkPoint& p);
nlohmann::json design_json(const NetworkTemplate& t, const llm::System& machine, const Design& d,
                           const DimensionTables* tables);
// best, top, pareto, evaluated, pruned and the network counts.
nlohmann::json result_json(const NetworkTemplate& t, const llm::System& machine, const CodesignResult& r,
                           Objective objective);

// A self-contained HTML page: the Pareto front (cost against iteration time), the top designs on it, and a table.
// `simulated`: with --verify sim, each top design's simulated iteration (s; 0: not simulated), drawn and listed
// beside the planner's.
std::string report_html(const NetworkTemplate& t, const CodesignResult& r, const std::string& title,
                        const std::vector<double>& simulated = {});

}  // namespace chorus::codesign
