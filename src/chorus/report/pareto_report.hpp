// The HTML report of a network-shape sweep (`chorus netopt ... --sweep shapes.yml --report FILE`): every ranked
// shape's optimised (cost, time), and the Pareto front, the shapes no other shape beats on both.
#pragma once

#include <string>
#include <vector>

#include "chorus/netopt/sweep.hpp"

namespace chorus {

// Indices of result.rows on the time-cost Pareto front, cheapest first (no other row is at most as slow and as
// expensive with one of the two strictly smaller).
std::vector<size_t> pareto_front(const netopt::SweepResult& result);

std::string pareto_report_html(const netopt::SweepResult& result, const std::string& title);

}  // namespace chorus
