// Exceptions across the boundary: chorus::Error (bad input) becomes chorus.InputError with `file`, `field` and
// `message` attributes; everything else chorus throws (InternalError, deadlocks) becomes RuntimeError.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "chorus/core/error.hpp"

namespace chorus::python {

void register_errors(py::module_& m) {
  py::exception<Error>(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const Error& e) {
      // Looked up here rather than held in a static: the module owns the class.
      const py::object input_error = py::module_::import("chorus._chorus").attr("InputError");
      // The library names an argument by its keyword (chorus::Argument), as Python spells it: what() as is.
      py::object instance = input_error(py::str(e.what()));
      instance.attr("file") = py::str(e.source());
      instance.attr("field") = py::str(e.field());
      instance.attr("message") = py::str(e.message());
      PyErr_SetObject(input_error.ptr(), instance.ptr());
    } catch (const std::logic_error& e) {  // chorus::InternalError and other invariant failures
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace chorus::python
