// chorus.machines(): the device and machine presets (machine/), as `chorus machines --json` prints them.
#include "bindings.hpp"
#include "chorus/machine/machine_json.hpp"

namespace chorus::python {

void register_machines(py::module_& m) {
  m.def(
      "machines",
      [] {
        nlohmann::ordered_json out{{"devices", nlohmann::ordered_json::array()},
                                   {"machines", nlohmann::ordered_json::array()}};
        for (const machine::Device& d : machine::devices())
          out["devices"].push_back(machine::to_json(d));
        for (const machine::Machine& mc : machine::machines())
          out["machines"].push_back(machine::to_json(mc));
        // to_python() takes the plain json type; the key order does not matter to a dict.
        return to_python(nlohmann::json::parse(out.dump()));
      },
      "the device and machine presets: {'devices': [...], 'machines': [...]}, every value with its sources");
}

}  // namespace chorus::python
