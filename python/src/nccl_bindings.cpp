// chorus.nccl(): one collective as NCCL (RCCL) runs it on a machine, by the library's cost model (docs/nccl.md), as
// `chorus collective --algorithm nccl --json [--explain]` prints it (without the bound, which needs a max-flow).
#include <cmath>
#include <string>

#include "bindings.hpp"
#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/nccl/calibrated_machine.hpp"
#include "chorus/nccl/choice_json.hpp"
#include "chorus/nccl/cost_model.hpp"

namespace chorus::python {

void register_nccl(py::module_& m) {
  m.def(
      "nccl",
      [](const std::string& machine, const std::string& collective, py::object size, uint32_t nodes, bool explain) {
        const nccl::CalibratedMachine c = nccl::resolve_machine(machine, "machine");
        const nccl::CommSystem s = nccl::comm_system(*c.machine, nodes, c.scales);
        const CollectiveKind kind = collective_kind_argument(collective);
        const Bytes bytes = py::isinstance<py::str>(size) ? parse_size(size.cast<std::string>(), Argument{"size"})
                                                          : Bytes(size.cast<int64_t>());
        if (bytes.count() <= 0)
          throw Error("", Argument{"size"}, "must be at least 1 byte");
        const nccl::Choice choice = nccl::choose(s, kind, bytes.count());
        if (!std::isfinite(choice.time_us))
          throw Error("", Argument{"collective"}, "nccl has no algorithm for it here");
        return to_python(nlohmann::json::parse(nccl::choice_json(s, choice, std::nullopt, explain).dump()));
      },
      py::arg("machine"), py::arg("collective"), py::arg("size"), py::kw_only(), py::arg("nodes") = 1,
      py::arg("explain") = false,
      "one collective as NCCL (RCCL) runs it on a machine preset, calibrated machine JSON or topology dump: "
      "{nccl_algorithm, nccl_protocol, channels, time_ns, algbw_GBps, busbw_GBps, ...}; explain=True adds candidates");
}

}  // namespace chorus::python
