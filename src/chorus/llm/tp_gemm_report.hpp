// What `chorus llm run` says about the communication-hiding GEMMs (tp_gemm_overlap): the same execution with and
// without them, the exposed TP communication hidden per iteration, and per GEMM of a block whether the
// decomposition is used and, where it is not, why (small shards: the step GEMMs are slower than the whole; latency-
// bound steps: each of the N - 1 ring steps pays the tier's latency).
//
//   Stats with = model.evaluate(exe), without = model.evaluate(without_tp_gemm_overlap(exe));
//   fmt::print("{}", tp_gemm_table(with, without, exe));
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "chorus/llm/iteration.hpp"

namespace chorus::llm {

// The execution with tp_gemm_overlap none (the baseline the report compares against).
Execution without_tp_gemm_overlap(Execution exe);

// Why one GEMM is or is not decomposed: "hides 81 % of the collective", "small shards: ...", "latency-bound ...".
std::string tp_gemm_reason(const DecomposedGemm& g);

std::string tp_gemm_table(const Stats& with, const Stats& without, const Execution& exe);
nlohmann::json tp_gemm_json(const Stats& with, const Stats& without, const Execution& exe);

}  // namespace chorus::llm
