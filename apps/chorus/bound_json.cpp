// `chorus bound`'s JSON object (see bound_json.hpp).
#include "bound_json.hpp"

namespace chorus::cli {

namespace {

double nanoseconds(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

}  // namespace

nlohmann::json bound_json(const LowerBound& b, const Topology& topology) {
  nlohmann::json j;
  j["collective"] = to_string(b.collective);
  j["topology"] = topology.name();
  j["size_bytes"] = b.size.count();
  j["npus"] = b.npus;
  j["method"] = to_string(b.method);
  j["bound_ns"] = nanoseconds(b.bound);
  j["bandwidth_bound_ns"] = nanoseconds(b.bandwidth_bound);
  j["latency_bound_ns"] = nanoseconds(b.latency_bound);
  j["worst_cut_npus"] = b.worst_cut_npus;
  j["worst_cut_nodes"] = b.worst_cut.size();
  if (b.all_gather)
    j["all_gather_bandwidth_bound_ns"] = nanoseconds(b.all_gather->time);
  if (b.reduce_scatter)
    j["reduce_scatter_bandwidth_bound_ns"] = nanoseconds(b.reduce_scatter->time);
  j["information_bound_ns"] = b.information_bound ? nlohmann::json(nanoseconds(*b.information_bound)) : nullptr;
  j["max_flows"] = b.max_flows;
  return j;
}

}  // namespace chorus::cli
