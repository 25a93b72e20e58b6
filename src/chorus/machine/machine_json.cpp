// JSON views of the presets (machine_json.hpp).
#include "chorus/machine/machine_json.hpp"

namespace chorus::machine {
namespace {

nlohmann::ordered_json sources_json(std::span<const Citation> sources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Citation& c : sources)
    out.push_back({{"fields", c.fields}, {"text", c.text}});
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const Device& d) {
  return {{"name", d.name},
          {"label", d.label},
          {"matrix_bf16", d.matrix_bf16},
          {"matrix_fp16", d.matrix_fp16},
          {"matrix_fp8", d.matrix_fp8},
          {"matrix_tf32", d.matrix_tf32},
          {"matrix_int8", d.matrix_int8},
          {"vector_fp16", d.vector_fp16},
          {"vector_fp32", d.vector_fp32},
          {"hbm_gib", d.hbm_gib},
          {"hbm_bandwidth", d.hbm_bandwidth},
          {"compute_units", d.compute_units},
          {"sources", sources_json(d.sources)}};
}

nlohmann::ordered_json to_json(const Machine& m) {
  return {{"name", m.name},
          {"label", m.label},
          {"device", m.device_name},
          {"gpus_per_node", m.gpus_per_node},
          {"scale_up", scale_up_name(m.scale_up)},
          {"scale_up_bandwidth", m.scale_up_bandwidth},
          {"scale_up_links", m.scale_up_links},
          {"peer_bandwidth", m.peer_bandwidth() > 0 ? nlohmann::ordered_json(m.peer_bandwidth()) : nullptr},
          {"torus_shape", m.torus_shape},
          {"in_network_reduction", m.in_network_reduction},
          {"nics_per_node", m.nics_per_node},
          {"nic_bandwidth", m.nic_bandwidth},
          {"host_gib", m.host_gib},
          {"host_bandwidth", m.host_bandwidth},
          {"max_nodes", m.max_nodes},
          {"sources", sources_json(m.sources)}};
}

}  // namespace chorus::machine
