// Time spans [start, end) of one NPU's activity and their union, shared by the runtime's per-NPU accounting and the
// critical-path blame.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

using Span = std::pair<Time, Time>;

// The union of `spans` as disjoint spans in time order (touching spans join).
inline std::vector<Span> merged(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (const Span& s : spans) {
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace chorus
