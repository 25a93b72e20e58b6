// Parsing of the optimizer's budget and constraint flags (the CLI's edge; the optimizer sees numbers only).
//
//   --budget total-bw=500GB/s    sum_d B_d = 500 GB/s (LIBRA's total_bw constraint; GB = 1e9 B)
//   --budget dollars=2.5e6       Cost(B) <= $2.5M
//   --constraint "B0=500"        linear constraints on the per-dimension bandwidths in GB/s, as LIBRA's
//   --constraint "B0>=B1"        multiple_constraints.py writes them: terms [coef*]B<d> or numbers joined by
//   --constraint "B2+B3=200"     + and -, one relation (=, <=, >=)
//
//   apply_budget("total-bw=500GB/s", budget);
//   LinearConstraint c = parse_constraint("B2+B3=200", 4);
#pragma once

#include <string>

#include "chorus/netopt/optimizer.hpp"

namespace chorus::netopt {

// Throws chorus::Error naming Argument{"budget"} for an unknown kind or a bad value.
void apply_budget(const std::string& text, Budget& budget);

// Throws chorus::Error naming Argument{"constraint"} for a syntax error or a dimension >= `dimensions`.
LinearConstraint parse_constraint(const std::string& text, size_t dimensions);

}  // namespace chorus::netopt
