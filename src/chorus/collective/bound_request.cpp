// Bound options from their text and the bound record (see bound_request.hpp).
#include "chorus/collective/bound_request.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

BoundOptions bound_options(std::string_view sinks, uint32_t root, std::string_view information_bound, uint32_t npus) {
  BoundOptions options;
  const std::optional<BoundMethod> method = parse_bound_method(sinks);
  if (!method)
    throw Error("", Argument{"sinks"},
                fmt::format("unknown value '{}'; expected auto, all, one, brute or symmetric", sinks));
  options.method = *method;
  options.root = NodeId{root};
  if (information_bound != "on" && information_bound != "off" && information_bound != "auto")
    throw Error("", Argument{"information_bound"}, fmt::format("is '{}'; expected auto, on or off", information_bound));
  options.information_bound = information_bound == "on" || (information_bound == "auto" && npus <= 1024);
  return options;
}

nlohmann::json bound_record(const LowerBound& b, const std::string& topology) {
  nlohmann::json j;
  j["collective"] = to_string(b.collective);
  j["topology"] = topology;
  j["size_bytes"] = b.size.count();
  j["npus"] = b.npus;
  j["method"] = to_string(b.method);
  j["bound_ns"] = b.bound.nanoseconds();
  j["bandwidth_bound_ns"] = b.bandwidth_bound.nanoseconds();
  j["latency_bound_ns"] = b.latency_bound.nanoseconds();
  j["worst_cut_npus"] = b.worst_cut_npus;
  j["worst_cut_nodes"] = b.worst_cut.size();
  if (b.all_gather)
    j["all_gather_bandwidth_bound_ns"] = b.all_gather->time.nanoseconds();
  if (b.reduce_scatter)
    j["reduce_scatter_bandwidth_bound_ns"] = b.reduce_scatter->time.nanoseconds();
  j["information_bound_ns"] = b.information_bound ? nlohmann::json(b.information_bound->nanoseconds()) : nullptr;
  j["max_flows"] = b.max_flows;
  return j;
}

}  // namespace chorus
