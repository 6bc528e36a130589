// sortie._sortie: the compiled part of the Python package, a thin binding of the public C++ APIs
// of libsortie_launch (sortie/xm.hpp, sortie/runner.hpp). It links that shared library, so
// plugins are found from the library's own location, as for the CLI.
#include <pybind11/pybind11.h>

#include <sortie/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_sortie, module) {
  module.doc() = "Bindings of libsortie_launch; use sortie.xm, sortie.runner and sortie.specs.";
  // sortie::Error becomes sortie.Error (a RuntimeError) with the same message; a bad value the
  // caller gave (INVALID_ARGUMENT) is also a ValueError, as Python code expects of one.
  static py::exception<sortie::Error> error(module, "Error", PyExc_RuntimeError);
  static py::exception<sortie::Error> invalid_argument(
      module, "InvalidArgumentError", py::make_tuple(error, py::handle(PyExc_ValueError)).ptr());
  py::register_exception_translator([](std::exception_ptr raised) {
    try {
      if (raised) std::rethrow_exception(raised);
    } catch (const sortie::Error& failure) {
      if (failure.status() == SORTIE_INVALID_ARGUMENT) {
        invalid_argument(failure.what());
      } else {
        error(failure.what());
      }
    }
  });
  sortie::python::bind_experiment(module);
  sortie::python::bind_runner(module);
}
