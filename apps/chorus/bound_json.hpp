// The JSON object `chorus bound --json` prints for one size (and `--jsonl` once per size of a sweep).
#pragma once

#include <nlohmann/json.hpp>

#include "chorus/collective/lower_bound.hpp"

namespace chorus::cli {

nlohmann::json bound_json(const LowerBound& b, const Topology& topology);

}  // namespace chorus::cli
