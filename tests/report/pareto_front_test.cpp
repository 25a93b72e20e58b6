// The time-cost Pareto front of a netopt sweep: the rows no other row beats on both time and cost, cheapest first.
#include <gtest/gtest.h>

#include "chorus/report/pareto_report.hpp"

namespace chorus {
namespace {

TEST(ParetoFront, KeepsTheUndominatedRowsCheapestFirst) {
  netopt::SweepResult result;
  // (cost, time): (2, 7) is beaten by (2, 5); (3, 6) by (2, 5); the front is (1, 10), (2, 5), (4, 1).
  for (const auto& [cost, time] : std::vector<std::pair<double, double>>{{3, 6}, {1, 10}, {2, 7}, {4, 1}, {2, 5}}) {
    netopt::SweepRow row;
    row.design.cost = cost;
    row.design.time_ms = time;
    result.rows.push_back(row);
  }
  EXPECT_EQ(pareto_front(result), (std::vector<size_t>{1, 4, 3}));
  const std::string html = pareto_report_html(result, "front");
  EXPECT_NE(html.find("Pareto front"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

}  // namespace
}  // namespace chorus
