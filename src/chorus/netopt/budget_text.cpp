// Budget and constraint flag parsing (see budget_text.hpp).
#include "chorus/netopt/budget_text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"

namespace chorus::netopt {

void apply_budget(const std::string& text, Budget& budget) {
  const size_t eq = text.find('=');
  const std::string kind = text.substr(0, eq), value = eq == std::string::npos ? "" : text.substr(eq + 1);
  if (kind == "total-bw") {
    const double gbps = parse_bandwidth(value, Argument{"budget"}).gb_per_second();
    if (!(gbps > 0))
      throw Error("", Argument{"budget"}, text + ": total bandwidth must be > 0");
    budget.total_bandwidth_gbps = gbps;
    return;
  }
  if (kind == "dollars") {
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !(v > 0) || !std::isfinite(v)) {
      throw Error("", Argument{"budget"}, text + ": dollars must be a positive number, e.g. dollars=2.5e6");
    }
    budget.dollars = v;
    return;
  }
  throw Error("", Argument{"budget"}, text + ": unknown budget; expected total-bw=<bandwidth> or dollars=<number>");
}

namespace {

// Adds `sign` times the side `side` to coefficients/constant (moving everything to the left-hand side).
void parse_side(const std::string& side, double sign, LinearConstraint& c, double& constant, const std::string& text) {
  size_t i = 0;
  bool any = false;
  auto fail = [&](const std::string& why) { throw Error("", Argument{"constraint"}, text + ": " + why); };
  while (i < side.size()) {
    double term_sign = sign;
    if (side[i] == '+' || side[i] == '-') {
      if (side[i] == '-')
        term_sign = -sign;
      ++i;
    } else if (any) {
      fail("expected + or - between terms");
    }
    double coefficient = 1;
    bool has_number = false;
    if (i < side.size() && (std::isdigit(static_cast<unsigned char>(side[i])) || side[i] == '.')) {
      const auto [end, ec] = std::from_chars(side.data() + i, side.data() + side.size(), coefficient);
      if (ec != std::errc())
        fail("bad number");
      i = static_cast<size_t>(end - side.data());
      has_number = true;
      if (i < side.size() && side[i] == '*')
        ++i;
    }
    if (i < side.size() && (side[i] == 'B' || side[i] == 'b')) {
      size_t d = 0;
      const auto [end, ec] = std::from_chars(side.data() + i + 1, side.data() + side.size(), d);
      if (ec != std::errc())
        fail("expected a dimension index after B, e.g. B0");
      if (d >= c.coefficients.size())
        fail(fmt::format("B{} but the network has {} dimensions", d, c.coefficients.size()));
      c.coefficients[d] += term_sign * coefficient;
      i = static_cast<size_t>(end - side.data());
    } else if (has_number) {
      constant += term_sign * coefficient;
    } else {
      fail("expected a term such as 2*B1 or 500");
    }
    any = true;
  }
  if (!any)
    fail("empty side");
}

}  // namespace

LinearConstraint parse_constraint(const std::string& raw, size_t dimensions) {
  std::string text;
  for (char ch : raw) {
    if (!std::isspace(static_cast<unsigned char>(ch)))
      text += ch;
  }
  LinearConstraint c{std::vector<double>(dimensions, 0.0), false, 0, raw};
  size_t pos = text.find("<=");
  double lhs_sign = 1;  // the relation becomes sum(coef * B) <= rhs or == rhs
  size_t width = 2;
  if (pos == std::string::npos) {
    pos = text.find(">=");
    lhs_sign = -1;
  }
  if (pos == std::string::npos) {
    pos = text.find('=');
    width = 1;
    lhs_sign = 1;
    c.equality = true;
  }
  if (pos == std::string::npos)
    throw Error("", Argument{"constraint"}, raw + ": needs one of =, <=, >=");
  double constant = 0;
  parse_side(text.substr(0, pos), lhs_sign, c, constant, raw);
  parse_side(text.substr(pos + width), -lhs_sign, c, constant, raw);
  c.rhs = -constant;
  if (std::all_of(c.coefficients.begin(), c.coefficients.end(), [](double a) { return a == 0; })) {
    throw Error("", Argument{"constraint"}, raw + ": involves no bandwidth B<d>");
  }
  return c;
}

}  // namespace chorus::netopt
