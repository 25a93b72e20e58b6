// The NCCL model's answer for one size as JSON, the fields scripts read (`chorus collective --algorithm nccl --json`,
// `--jsonl`, and chorus.nccl() in Python): the choice, its time and bandwidths, the bound, and with `explain` every
// candidate.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "chorus/core/units.hpp"
#include "chorus/nccl/cost_model.hpp"

namespace chorus::nccl {

// {collective, size, machine, nodes, ranks, library, nccl_algorithm, nccl_protocol, channels, time_ns, algbw_GBps,
//  busbw_GBps, bound_ns (null without a bound), candidates: [{algorithm, protocol, channels, time_ns, latency_ns,
//  bandwidth_GBps} or {algorithm, protocol, channels, time_ns: null, disabled}] with `explain`}
nlohmann::ordered_json choice_json(const CommSystem& system, const Choice& choice, const std::optional<Time>& bound,
                                   bool explain);

}  // namespace chorus::nccl
