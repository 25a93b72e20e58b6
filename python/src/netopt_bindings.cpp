// chorus.netopt.optimize: the per-dimension bandwidth that minimises a workload's step time (or time x cost, or
// cost under a time target) on LIBRA's input files, through run_netopt, as `chorus netopt --json`.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/netopt/request.hpp"

namespace chorus::python {

using netopt::NetoptRequest;

void register_netopt(py::module_& m) {
  m.def(
      "_netopt",
      [](const std::string& network, const std::string& cost, const std::string& workload, const std::string& comm,
         const std::vector<std::string>& budgets, const std::vector<std::string>& constraints,
         const std::string& objective, const std::string& time_target, const std::string& min_bw,
         const std::string& max_bw, const std::string& latency, const std::string& loop, bool block_factors,
         bool cross_check, uint32_t splits) {
        const NetoptRequest q{network, cost,   workload, comm, budgets,       constraints, objective, time_target,
                              min_bw,  max_bw, latency,  loop, block_factors, cross_check, splits};
        nlohmann::json j;
        {
          py::gil_scoped_release release;
          j = netopt::netopt_record(q, netopt::run_netopt(q));
        }
        return to_python(j);
      },
      "Optimise bandwidths (use chorus.netopt.optimize).");
}

}  // namespace chorus::python
