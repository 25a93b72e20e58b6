// `--algorithm msccl:FILE.xml` of a CollectiveRequest: the MSCCL algorithm read and checked (msccl/schedule.hpp),
// simulated under the request's model, its record (the keys of `chorus collective --json` plus msccl_name,
// chunk_bytes, steps, semantics_checked; with compare_synth also synth_time_ns and msccl_over_synth).
#pragma once

#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "chorus/network/model_registry.hpp"
#include "chorus/sim/collective_request.hpp"

namespace chorus {

inline constexpr std::string_view kMscclPrefix = "msccl:";

// Throws chorus::Error naming the file and element on a malformed file, or "algo: coll" / "algo: ngpus" when the
// XML disagrees with the request or the topology.
std::pair<nlohmann::json, Time> msccl_record(const Topology& topology, const CollectiveRequest& request,
                                             NetworkModelKind model);

}  // namespace chorus
