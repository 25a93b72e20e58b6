// chorus.sim: the workload runtime over Chakra traces, as `chorus sim` runs it. The C++ side returns
// summary.json as a dict and writes the report files into a directory; the Python side reads collectives.csv
// back as records, so Python and the CLI share one writer.
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "bindings.hpp"
#include "chorus/astra/system_config.hpp"
#include "chorus/core/error.hpp"
#include "chorus/runtime/reports.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus::python {

namespace {

struct SimArgs {
  std::string workload, system, memory, comm_groups, model, out;
  bool resource_limits = true, contention = false, timeline = true, bounds = true;
  double injection_scale = 1;
};

py::object sim(const Topology& topology, const SimArgs& a) {
  const std::optional<NetworkModelKind> model = network_model_argument(a.model);
  if (a.contention && *model != NetworkModelKind::Flow)
    throw Error("", Argument{"contention"}, fmt::format("needs model='flow' (got {})", a.model));
  if (!std::isfinite(a.injection_scale) || a.injection_scale < 0)
    throw Error("", Argument{"injection_scale"}, fmt::format("is {}; must be a finite number >= 0", a.injection_scale));
  std::optional<AstraSystemConfig> system;
  if (!a.system.empty())
    system = load_astra_system(a.system);
  if (a.injection_scale != 1 && !system)
    throw Error("", Argument{"injection_scale"},
                "applies only with system= (it scales the system JSON's endpoint-delay)");
  if (system) {
    system->endpoint_delay = Time::ps(static_cast<int64_t>(
        std::llround(static_cast<double>(system->endpoint_delay.picoseconds()) * a.injection_scale)));
  }
  RuntimeOptions options;
  options.model = *model;
  options.system = system ? &*system : nullptr;
  options.memory = load_remote_memory(a.memory);
  options.resource_limits = a.resource_limits;
  options.record_timeline = a.timeline;
  options.lower_bounds = a.bounds;
  options.link_stats = true;  // links.csv (aware and flow only)
  options.contention = a.contention;
  options.critical_path = true;  // summary's critical_path_totals, critical_path and blame, as `chorus sim`

  py::gil_scoped_release release;
  const auto started = std::chrono::steady_clock::now();
  const Workload workload = load_workload(a.workload, a.comm_groups);
  const RunReport report = run_workload(workload, topology, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const ReportContext context{workload, report, to_string(*model), topology.name(), wall_s, &topology};
  write_reports(a.out, context);
  const nlohmann::json summary = summary_json(context);
  py::gil_scoped_acquire acquire;
  return to_python(summary);
}

}  // namespace

void register_sim(py::module_& m) {
  m.def(
      "_sim",
      [](const Topology& topology, const std::string& workload, const std::string& system, const std::string& memory,
         const std::string& comm_groups, const std::string& model, const std::string& out, bool resource_limits,
         bool contention, bool timeline, bool bounds, double injection_scale) {
        return sim(topology, SimArgs{workload, system, memory, comm_groups, model, out, resource_limits, contention,
                                     timeline, bounds, injection_scale});
      },
      "Run a workload (use chorus.sim).");
}

}  // namespace chorus::python
