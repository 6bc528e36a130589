// Python values to and from the launch API's types. The pure-Python layer (python/sortie/) hands
// the compiled module plain values (tuples, lists, dicts, str, numbers), so the binding stays a
// thin translation and every XManager/TorchX name lives in Python.
#ifndef SORTIE_PYTHON_CONVERSIONS_HPP
#define SORTIE_PYTHON_CONVERSIONS_HPP

#include <pybind11/pybind11.h>

#include <sortie/runner.hpp>
#include <sortie/xm.hpp>

namespace sortie::python {

// None, bool, int, float, str, or a list/tuple of these.
xm::ArgValue arg_value(const pybind11::handle& value);
// A list of (name or None, value) pairs, in order: keywords and positionals.
xm::Args args(const pybind11::handle& items);
pybind11::list args_to_python(const xm::Args& args);

// {"kind": "binary", "path": ...}, one key per member of the spec's struct (xm.hpp).
xm::ExecutableSpec executable_spec(const pybind11::dict& spec);
// {"type", "requirements": [(name, text)], "ports": {int: int}, "volumes", "options"}.
xm::Executor executor(const pybind11::dict& executor);

pybind11::dict work_unit_to_python(const xm::WorkUnit& unit);
pybind11::dict app_status_to_python(const runner::AppStatus& status);

}  // namespace sortie::python

#endif  // SORTIE_PYTHON_CONVERSIONS_HPP
