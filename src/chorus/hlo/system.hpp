// The machine an HLO module is costed on: peak FLOP/s per datatype (matrix units and vector units), memory
// bandwidth, the network bandwidth a collective sees, and per-class efficiencies a system file may refine.
//
//   hlo::System s = hlo::system_by_name("tpuv3");   // a preset (system_presets.cpp, every value cited)
//   hlo::System s = hlo::read_system("my.json");    // {"name":..,"matrix_flops":{"bf16":..},...}
#pragma once

#include <map>
#include <string>
#include <vector>

namespace chorus::hlo {

struct System {
  std::string name;
  std::map<std::string, double> matrix_flops;  // convolution/dot peak, FLOP/s, by operand datatype
  double vector_flops = 0;                     // elementwise peak, FLOP/s
  double memory_bandwidth = 0;                 // HBM, B/s
  double network_bandwidth = 0;                // what one device injects into a collective, B/s
  double network_latency = 0;                  // per collective step, s
  // Fractions of peak reached per op class: "matrix", "vector", "memory", "network".
  std::map<std::string, double> efficiency;
  // Fixed time added to every op that does work (not parameters, tuples or control flow), s: the launch and
  // pipeline fill a roofline misses, which dominates small data-formatting ops. 0 keeps the pure roofline.
  double op_overhead = 0;

  double matrix_peak(const std::string& datatype) const;  // falls back to bf16, then the largest entry
  double efficiency_of(const std::string& op_class) const;
};

System system_by_name(const std::string& name);  // throws chorus::Error naming the presets
System read_system(const std::string& path);
// A preset name or a JSON file path.
System load_system(const std::string& name_or_path);
std::vector<std::string> system_presets();
// The system as a JSON system file read_system reads back (every field written out, no "base").
std::string system_json(const System& system);

}  // namespace chorus::hlo
