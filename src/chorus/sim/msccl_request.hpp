// `--algorithm msccl:FILE.xml` of a CollectiveRequest: the MSCCL algorithm read and checked (msccl/schedule.hpp),
// simulated under the request's model, its summary (collective_summary.hpp: the msccl part, and with compare_synth
// chorus's own synthesized algorithm under the same model).
#pragma once

#include <string_view>

#include "chorus/network/model_registry.hpp"
#include "chorus/sim/collective_request.hpp"
#include "chorus/sim/collective_summary.hpp"

namespace chorus {

inline constexpr std::string_view kMscclPrefix = "msccl:";

// Throws chorus::Error naming the file and element on a malformed file, or "algo: coll" / "algo: ngpus" when the
// XML disagrees with the request or the topology.
CollectiveSummary msccl_summary(const Topology& topology, const CollectiveRequest& request, NetworkModelKind model);

}  // namespace chorus
