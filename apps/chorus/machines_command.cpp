// `chorus machines`: every device and machine preset in one table (the same presets the LLM planner, the trace
// generators, the fused-operator model and the HLO cost model use), or one preset with the source of each value.
//
//   chorus machines                  # two tables: devices, machines
//   chorus machines --show dgx-h100  # every field of one preset, then its sources
//   chorus machines --json           # {"devices": [...], "machines": [...]}, every field and its sources
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/machine/machine.hpp"
#include "chorus/machine/machine_json.hpp"
#include "commands.hpp"

namespace chorus::cli {
namespace {

struct MachinesOptions {
  std::string show;
  bool json = false;
};

// A rate for the table: "-" where the preset has none.
std::string per_1e12(double v) {
  return v > 0 ? fmt::format("{:g}", v / 1e12) : "-";
}
std::string per_1e9(double v) {
  return v > 0 ? fmt::format("{:g}", v / 1e9) : "-";
}

void print_tables() {
  fmt::print("Devices (dense peaks in TFLOP/s; HBM in GiB and GB/s)\n");
  fmt::print("{:<10} {:<28} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>6} {:>5}\n", "device", "label", "bf16", "fp8",
             "tf32", "vec16", "vec32", "HBM", "GB/s", "units");
  for (const machine::Device& d : machine::devices()) {
    fmt::print("{:<10} {:<28} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5g} {:>6g} {:>5}\n", d.name, d.label,
               per_1e12(d.matrix_bf16), per_1e12(d.matrix_fp8), per_1e12(d.matrix_tf32), per_1e12(d.vector_fp16),
               per_1e12(d.vector_fp32), d.hbm_gib, d.hbm_bandwidth / 1e9,
               d.compute_units > 0 ? fmt::format("{}", d.compute_units) : "-");
  }
  fmt::print("\nMachines (bandwidths per GPU and per direction, GB/s; a node is one scale-up domain)\n");
  fmt::print("{:<14} {:<10} {:>5} {:<16} {:>6} {:>5} {:>6} {:>5} {:>8} {:>5} {:>5}\n", "machine", "device", "GPUs",
             "scale-up", "GB/s", "links", "peer", "NICs", "NIC GB/s", "SHARP", "nodes");
  for (const machine::Machine& m : machine::machines()) {
    const std::string scale_up = m.scale_up == machine::ScaleUp::kTorus
                                     ? fmt::format("torus {}", m.torus_shape)
                                     : std::string(machine::scale_up_name(m.scale_up));
    fmt::print("{:<14} {:<10} {:>5} {:<16} {:>6g} {:>5} {:>6} {:>5} {:>8} {:>5} {:>5}\n", m.name, m.device_name,
               m.gpus_per_node, scale_up, m.scale_up_bandwidth / 1e9, m.scale_up_links, per_1e9(m.peer_bandwidth()),
               m.nics_per_node, per_1e9(m.nic_bandwidth), m.in_network_reduction ? "yes" : "no", m.max_nodes);
  }
  fmt::print("\n`chorus machines --show NAME` prints one preset with the source of each value.\n");
}

// One field in the unit a reader expects: TFLOP/s for peaks, GB/s for bandwidths, GiB for capacities.
std::string field_text(const std::string& key, const nlohmann::ordered_json& value) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_null())
    return "-";
  if (!value.is_number_float())
    return value.dump();
  const double v = value.get<double>();
  if (key.starts_with("matrix_") || key.starts_with("vector_"))
    return v > 0 ? fmt::format("{:g} TFLOP/s", v / 1e12) : "-";
  if (key.ends_with("bandwidth"))
    return v > 0 ? fmt::format("{:g} GB/s per direction", v / 1e9) : "-";
  if (key.ends_with("_gib"))
    return fmt::format("{:g} GiB", v);
  return fmt::format("{:g}", v);
}

void print_fields(const nlohmann::ordered_json& j) {
  for (const auto& [key, value] : j.items()) {
    if (key != "sources" && key != "name" && key != "label")
      fmt::print("  {:<22} {}\n", key, field_text(key, value));
  }
  fmt::print("sources:\n");
  for (const auto& s : j.at("sources"))
    fmt::print("  [{}]\n    {}\n", s.at("fields").get<std::string>(), s.at("text").get<std::string>());
}

void run_machines(const MachinesOptions& o) {
  if (!o.show.empty()) {
    nlohmann::ordered_json j;
    if (const machine::Machine* m = machine::find_machine(o.show)) {
      j = machine::to_json(*m);
    } else if (const machine::Device* d = machine::find_device(o.show)) {
      j = machine::to_json(*d);
    } else {
      machine::machine(o.show, "show");  // throws, naming the nearest machine preset
    }
    if (o.json) {
      fmt::print("{}\n", j.dump(2));
      return;
    }
    fmt::print("{} ({})\n", j.at("name").get<std::string>(), j.at("label").get<std::string>());
    print_fields(j);
    return;
  }
  if (o.json) {
    nlohmann::ordered_json out{{"devices", nlohmann::ordered_json::array()},
                               {"machines", nlohmann::ordered_json::array()}};
    for (const machine::Device& d : machine::devices())
      out["devices"].push_back(machine::to_json(d));
    for (const machine::Machine& m : machine::machines())
      out["machines"].push_back(machine::to_json(m));
    fmt::print("{}\n", out.dump(2));
    return;
  }
  print_tables();
}

}  // namespace

void register_machines_command(CLI::App& app) {
  auto o = std::make_shared<MachinesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "machines",
      "the device and machine presets (GPUs, nodes, fabrics) that every model of chorus uses, with sources");
  cmd->add_option("--show", o->show, "print one preset (a machine or a device) with the source of each value");
  cmd->add_flag("--json", o->json, "print JSON: every field in FLOP/s, B/s and GiB, with its sources");
  cmd->callback([o] { run_machines(*o); });
}

}  // namespace chorus::cli
