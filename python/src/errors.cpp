// Exceptions across the boundary: chorus::Error (bad input) becomes chorus.InputError with `file`, `field` and
// `message` attributes; everything else chorus throws (InternalError, deadlocks) becomes RuntimeError.
#include <string>

#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "chorus/core/error.hpp"

namespace chorus::python {

namespace {

// The shared loaders name CLI flags ("--bandwidth/--latency"); Python users know them as keywords.
std::string keyword_field(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field.compare(i, 2, "--") == 0) {
      ++i;
      continue;
    }
    const bool in_flag = i > 0 && field[i] == '-' && out.size() > 0 && out.back() != '/';
    out += in_flag ? '_' : field[i];
  }
  return out;
}

}  // namespace

void register_errors(py::module_& m) {
  py::exception<Error>(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const Error& e) {
      // Looked up here rather than held in a static: the module owns the class.
      const py::object input_error = py::module_::import("chorus._chorus").attr("InputError");
      const std::string field = keyword_field(e.field());
      std::string text = e.source().empty() ? "" : e.source() + ": ";
      text += field.empty() ? e.message() : field + ": " + e.message();
      py::object instance = input_error(py::str(text));
      instance.attr("file") = py::str(e.source());
      instance.attr("field") = py::str(field);
      instance.attr("message") = py::str(e.message());
      PyErr_SetObject(input_error.ptr(), instance.ptr());
    } catch (const std::logic_error& e) {  // chorus::InternalError and other invariant failures
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace chorus::python
