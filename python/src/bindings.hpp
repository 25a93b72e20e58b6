// The pieces of the chorus._chorus extension module: one register function per area, and the conversion of
// nlohmann::json records into Python objects (dicts, lists, numbers, strings).
#pragma once

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace chorus::python {

namespace py = pybind11;

py::object to_python(const nlohmann::json& value);

void register_errors(py::module_& m);
void register_topology(py::module_& m);
void register_collectives(py::module_& m);
void register_synth(py::module_& m);
void register_sim(py::module_& m);
void register_llm(py::module_& m);
void register_netopt(py::module_& m);
void register_machines(py::module_& m);
void register_nccl(py::module_& m);

}  // namespace chorus::python

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/synth/synthesize.hpp"

namespace chorus::python {

// Synthesizer options from the keyword arguments of chorus.synth / chorus.collective(algorithm="synth").
SynthOptions synth_options(CollectiveKind kind, Bytes size, std::optional<uint32_t> chunks, uint64_t seed,
                           const std::string& priority, const std::vector<uint32_t>& npus,
                           const std::vector<std::pair<uint32_t, uint32_t>>& fail_links,
                           const std::vector<uint32_t>& fail_npus, uint32_t root);

}  // namespace chorus::python
