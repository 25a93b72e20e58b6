// What `chorus llm run` and `llm search` say when Calculon's tiled TP overlap (tensor_par_overlap ring / pipe)
// finishes a GEMM and its collective sooner than the collective alone takes (TpOverlapBound in block.hpp).
//
//   if (auto b = tp_overlap_below_bound(stats)) fmt::print(stderr, "{}\n", tp_overlap_bound_warning(*b, exe));
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/llm/iteration.hpp"

namespace chorus::llm {

// The block's passes below the collective's own time (a pipeline chunk's last block where it differs, as with
// p2p_rs_ag), or nothing when every pass respects it.
std::optional<TpOverlapBound> tp_overlap_below_bound(const Stats& st);

// One line: "warning: Calculon's tensor_par_overlap 'ring' model hides more communication than ...".
std::string tp_overlap_bound_warning(const TpOverlapBound& b, const Execution& exe);

// {"passes_below", "passes", "collective", "gemm_s", "exposed_s", "gemm_plus_exposed_s", "collective_s"}.
nlohmann::json tp_overlap_bound_json(const TpOverlapBound& b);

}  // namespace chorus::llm
