// Entry point of the extension module chorus._chorus; python/chorus/__init__.py wraps it in the public API.
#include "bindings.hpp"

PYBIND11_MODULE(_chorus, m) {
  m.doc() = "chorus C++ core (use the `chorus` package, not this module)";
  m.attr("__version__") = CHORUS_VERSION;
  chorus::python::register_errors(m);
  chorus::python::register_topology(m);
  chorus::python::register_collectives(m);
  chorus::python::register_synth(m);
  chorus::python::register_sim(m);
  chorus::python::register_llm(m);
  chorus::python::register_netopt(m);
  chorus::python::register_machines(m);
  chorus::python::register_nccl(m);
}
