// Renderings of an HLO analysis: the text tables of `chorus hlo analyze`, its --json object and its --csv rows.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "chorus/hlo/analysis.hpp"

namespace chorus::hlo {

nlohmann::json analysis_to_json(const Module& m, const System& s, const Analysis& a);
std::string analysis_table(const Module& m, const System& s, const Analysis& a);
std::string analysis_csv(const Module& m, const Analysis& a);

}  // namespace chorus::hlo
