// sortie._sortie.Experiment: sortie::xm::Experiment for sortie.xm. Every call that may block
// (packaging, launching, asking schedulers) releases the GIL, so other Python threads and an
// asyncio loop keep running.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace sortie::python {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

xm::Options options_of(const std::string& session, const std::string& launch_dir, bool dry_run) {
  xm::Options options;
  options.session = session;
  options.launch_dir = launch_dir;
  options.dry_run = dry_run;
  return options;
}

// (executable, executor dict, name, args, env_vars)
xm::Job job_of(const py::handle& tuple) {
  const auto items = tuple.cast<py::tuple>();
  xm::Job job;
  job.executable = items[0].cast<xm::Executable>();
  job.executor = executor(items[1].cast<py::dict>());
  job.name = items[2].is_none() ? "" : items[2].cast<std::string>();
  job.args = args(items[3]);
  job.env_vars = items[4].cast<xm::EnvVars>();
  return job;
}

// [(name, job tuple or nested group list)]
xm::JobGroup group_of(const py::handle& members) {
  xm::JobGroup group;
  for (const py::handle member : members) {
    const auto pair = member.cast<py::tuple>();
    if (py::isinstance<py::list>(pair[1])) {
      group.add(pair[0].cast<std::string>(), group_of(pair[1]));
    } else {
      group.add(pair[0].cast<std::string>(), job_of(pair[1]));
    }
  }
  return group;
}

// {job name: (args, env_vars)}
xm::JobArgs job_args_of(const py::handle& pair) {
  const auto items = pair.cast<py::tuple>();
  return {args(items[0]), items[1].cast<xm::EnvVars>()};
}

}  // namespace

void bind_experiment(py::module_& module) {
  py::class_<xm::Executable>(module, "Executable")
      .def_readonly("name", &xm::Executable::name)
      .def_readonly("kind", &xm::Executable::kind)
      .def_readonly("entrypoint", &xm::Executable::entrypoint)
      .def_readonly("image", &xm::Executable::image)
      .def_readonly("env_vars", &xm::Executable::env_vars)
      .def_readonly("digest", &xm::Executable::digest)
      .def_property_readonly("args",
                             [](const xm::Executable& self) { return args_to_python(self.args); });

  py::class_<xm::Experiment>(module, "Experiment")
      .def_static(
          "create",
          [](const std::string& title, const std::string& session, const std::string& launch_dir,
             bool dry_run) {
            return xm::Experiment::create(title, options_of(session, launch_dir, dry_run));
          },
          py::arg("title"), py::arg("session"), py::arg("launch_dir"), py::arg("dry_run"),
          Release())
      .def_static(
          "get",
          [](int64_t id, const std::string& session) {
            return xm::Experiment::get(id, options_of(session, "", false));
          },
          py::arg("id"), py::arg("session"), Release())
      .def_static(
          "list_ids",
          [](const std::string& session) {
            return xm::Experiment::list_ids(options_of(session, "", false));
          },
          py::arg("session"), Release())
      .def_property_readonly("id", &xm::Experiment::id, Release())
      .def_property_readonly("title", &xm::Experiment::title)
      .def("package",
           [](xm::Experiment& self, const py::list& packageables) {
             // (spec dict, args, env_vars, name)
             std::vector<xm::Packageable> converted;
             for (const py::handle item : packageables) {
               const auto items = item.cast<py::tuple>();
               converted.push_back({executable_spec(items[0].cast<py::dict>()), args(items[1]),
                                    items[2].cast<xm::EnvVars>(),
                                    items[3].is_none() ? "" : items[3].cast<std::string>()});
             }
             py::gil_scoped_release release;
             return self.package(converted);
           })
      .def("add_job",
           [](xm::Experiment& self, const py::tuple& job, const py::tuple& overrides) {
             const xm::Job converted = job_of(job);
             const xm::JobArgs job_args = job_args_of(overrides);
             xm::WorkUnit unit;
             {
               py::gil_scoped_release release;
               unit = self.add(converted, job_args);
             }
             return work_unit_to_python(unit);
           })
      .def("add_group",
           [](xm::Experiment& self, const py::list& members, const py::dict& overrides) {
             const xm::JobGroup group = group_of(members);
             xm::GroupArgs group_args;
             for (const auto& [name, pair] : overrides) {
               group_args[name.cast<std::string>()] = job_args_of(pair);
             }
             xm::WorkUnit unit;
             {
               py::gil_scoped_release release;
               unit = self.add(group, group_args);
             }
             return work_unit_to_python(unit);
           })
      .def("work_units",
           [](xm::Experiment& self) {
             std::vector<xm::WorkUnit> units;
             {
               py::gil_scoped_release release;
               units = self.work_units();
             }
             py::list result;
             for (const xm::WorkUnit& unit : units) result.append(work_unit_to_python(unit));
             return result;
           })
      .def("cancel", &xm::Experiment::cancel, Release());
}

}  // namespace sortie::python
