// Node-name patterns, interned per NPU graph (see name_patterns.hpp).
#include "chorus/workload/name_patterns.hpp"

#include <unordered_map>

namespace chorus {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Writes the pattern of `name` into `out`, reusing its storage.
void pattern_into(std::string_view name, std::string& out) {
  out.clear();
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_digit(name[i])) {
      out += name[i];
    } else if (i == 0 || !is_digit(name[i - 1])) {
      out += '#';
    }
  }
}

}  // namespace

std::string name_pattern(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  pattern_into(name, out);
  return out;
}

void intern_name_patterns(NpuGraph& g) {
  std::unordered_map<std::string, uint32_t> index;
  std::string pattern;
  g.patterns.clear();
  for (WorkloadNode& n : g.nodes) {
    pattern_into(n.name, pattern);
    const auto [it, inserted] = index.try_emplace(pattern, static_cast<uint32_t>(g.patterns.size()));
    if (inserted)
      g.patterns.push_back(pattern);
    n.pattern = it->second;
  }
}

}  // namespace chorus
