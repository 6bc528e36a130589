// The parts of the compiled module sortie._sortie, one per launch API.
#ifndef SORTIE_PYTHON_BINDINGS_HPP
#define SORTIE_PYTHON_BINDINGS_HPP

#include <pybind11/pybind11.h>

namespace sortie::python {

void bind_experiment(pybind11::module_& module);  // sortie/xm.hpp
void bind_runner(pybind11::module_& module);      // sortie/runner.hpp

}  // namespace sortie::python

#endif  // SORTIE_PYTHON_BINDINGS_HPP
