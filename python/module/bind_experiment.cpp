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

xm::Options options_of(const std::string& session, const std::string& launch_dir, bool dry_run,
                       const std::string& launch_script = "", bool live_workdir = false) {
  xm::Options options;
  options.session = session;
  options.launch_dir = launch_dir;
  options.dry_run = dry_run;
  options.launch_script = launch_script;
  options.live_workdir = live_workdir;
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

py::list work_units_to_python(const std::vector<xm::WorkUnit>& units) {
  py::list result;
  for (const xm::WorkUnit& unit : units) result.append(work_unit_to_python(unit));
  return result;
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
             bool dry_run, const std::string& launch_script, bool live_workdir) {
            return xm::Experiment::create(
                title, options_of(session, launch_dir, dry_run, launch_script, live_workdir));
          },
          py::arg("title"), py::arg("session"), py::arg("launch_dir"), py::arg("dry_run"),
          py::arg("launch_script"), py::arg("live_workdir"), Release())
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
             // (spec dict, args, env_vars, name, remote_destination)
             std::vector<xm::Packageable> converted;
             for (const py::handle item : packageables) {
               const auto items = item.cast<py::tuple>();
               converted.push_back({executable_spec(items[0].cast<py::dict>()), args(items[1]),
                                    items[2].cast<xm::EnvVars>(),
                                    items[3].is_none() ? "" : items[3].cast<std::string>(),
                                    items[4].cast<bool>()});
             }
             py::gil_scoped_release release;
             return self.package(converted);
           })
      // One work unit per job (per group), launched together (Experiment::add_units): a sweep
      // on a scheduler that submits batches (ABI-14) is one submission.
      .def("add_jobs",
           [](xm::Experiment& self, const py::list& jobs) {
             std::vector<xm::Job> units;
             for (const py::handle job : jobs) units.push_back(job_of(job));
             std::vector<xm::WorkUnit> added;
             {
               py::gil_scoped_release release;
               added = self.add_units(units);
             }
             return work_units_to_python(added);
           })
      .def("add_groups",
           [](xm::Experiment& self, const py::list& groups) {
             std::vector<xm::JobGroup> units;
             for (const py::handle members : groups) units.push_back(group_of(members));
             std::vector<xm::WorkUnit> added;
             {
               py::gil_scoped_release release;
               added = self.add_units(units);
             }
             return work_units_to_python(added);
           })
      // Experiment::rerun: the selected units as their next attempt (docs/experiments.md XF-34).
      .def(
          "rerun",
          [](xm::Experiment& self, bool failed, bool cancelled, const std::vector<int>& units) {
            std::vector<xm::WorkUnit> rerun;
            {
              py::gil_scoped_release release;
              rerun = self.rerun({failed, cancelled, units});
            }
            return work_units_to_python(rerun);
          },
          py::arg("failed"), py::arg("cancelled"), py::arg("units"))
      .def("work_units",
           [](xm::Experiment& self) {
             std::vector<xm::WorkUnit> units;
             {
               py::gil_scoped_release release;
               units = self.work_units();
             }
             return work_units_to_python(units);
           })
      // The `with` block of a launch script is one launch (XF-27): killed inside it, the
      // experiment reads PARTIAL.
      .def(
          "begin_launch", [](xm::Experiment& self) { self.begin_launch(std::nullopt); }, Release())
      .def("finish_launch", &xm::Experiment::finish_launch, Release())
      .def("cancel", &xm::Experiment::cancel, Release())
      .def("notes", &xm::Experiment::notes, Release())
      .def("set_notes", &xm::Experiment::set_notes, py::arg("notes"), Release())
      .def("tags", &xm::Experiment::tags, Release())
      .def("add_tags", &xm::Experiment::add_tags, py::arg("tags"), Release())
      .def("remove_tags", &xm::Experiment::remove_tags, py::arg("tags"), Release())
      .def("code_record", &xm::Experiment::code_record, Release());
}

}  // namespace sortie::python
