// Table-driven collective times of a network tier (see collective_table.hpp).
#include "chorus/llm/collective_table.hpp"

#include <algorithm>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

double CollectiveCurve::at(double b) const {
  if (bytes.size() == 1 || b <= bytes.front())
    return seconds.front();
  auto hi = std::upper_bound(bytes.begin(), bytes.end(), b);
  if (hi == bytes.end())
    hi = bytes.end() - 1;
  const size_t j = static_cast<size_t>(hi - bytes.begin());
  const double slope = (seconds[j] - seconds[j - 1]) / (bytes[j] - bytes[j - 1]);
  return seconds[j - 1] + (b - bytes[j - 1]) * slope;
}

bool CollectiveTable::has(Collective op) const {
  return !curves[static_cast<size_t>(op)].empty();
}

namespace {

double curve_time(const std::vector<int64_t>& sizes, const std::vector<CollectiveCurve>& per_size, double bytes,
                  int64_t n) {
  const auto at = std::lower_bound(sizes.begin(), sizes.end(), n);
  const size_t i = at == sizes.end() ? sizes.size() - 1 : static_cast<size_t>(at - sizes.begin());
  return per_size[i].at(bytes);
}

}  // namespace

double CollectiveTable::time(Collective op, double bytes, int64_t n) const {
  return curve_time(group_sizes, curves[static_cast<size_t>(op)], bytes, n);
}

double CollectiveTable::all_to_all(double bytes, int64_t n) const {
  return curve_time(group_sizes, curves[kAllToAll], bytes, n);
}

}  // namespace chorus::llm
