// Output of the LLM planner: statistics as JSON with Calculon's key names (seconds, bytes, FLOPs, rates)
// plus chorus's additions, and the same as a readable table.
//
//   fmt::print("{}\n", stats_to_json(st, sys).dump(2));
//   fmt::print("{}", stats_table(st, sys));
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "chorus/llm/iteration.hpp"
#include "chorus/llm/validation.hpp"

namespace chorus::llm {

nlohmann::json stats_to_json(const Stats& st, const System& sys);
std::string stats_table(const Stats& st, const System& sys);
std::string validation_table(const ValidationReport& r);
nlohmann::json validation_to_json(const ValidationReport& r);

}  // namespace chorus::llm
