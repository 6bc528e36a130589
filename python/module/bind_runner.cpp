// sortie._sortie.Runner: sortie::runner::Runner for sortie.runner. Blocking calls release the
// GIL; waits take a timeout so the Python side can wake regularly and let Ctrl-C through.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <chrono>
#include <exception>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace sortie::python {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

runner::AppSpec app_spec(const std::string& spec_file, const std::string& component,
                         const std::vector<std::string>& component_args) {
  runner::AppSpec app;
  app.spec_file = spec_file;
  app.component = component;
  app.component_args = component_args;
  return app;
}

// Runner::run and Runner::dryrun as the module takes them: (spec_file, component,
// component_args, scheduler, cfg), exactly one of spec_file and component non-empty.
auto submitting(std::string (runner::Runner::*submit)(const runner::AppSpec&,
                                                      const runner::RunOptions&)) {
  return [submit](runner::Runner& self, const std::string& spec_file, const std::string& component,
                  const std::vector<std::string>& component_args, const std::string& scheduler,
                  const std::map<std::string, std::string>& cfg) {
    return (self.*submit)(app_spec(spec_file, component, component_args), {scheduler, cfg});
  };
}

runner::Streams streams_of(const std::string& name) {
  if (name == "stdout") return runner::Streams::kStdout;
  if (name == "stderr") return runner::Streams::kStderr;
  return runner::Streams::kCombined;
}

std::chrono::system_clock::time_point time_of(int64_t ns) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(ns)));
}

}  // namespace

void bind_runner(py::module_& module) {
  py::class_<runner::Runner>(module, "Runner")
      .def(py::init([](const std::string& session) {
             runner::Options options;
             options.session = session;
             return runner::Runner::create(options);
           }),
           py::arg("session"), Release())
      .def("run", submitting(&runner::Runner::run), Release())
      .def("dryrun", submitting(&runner::Runner::dryrun), Release())
      .def(
          "app_json",
          [](runner::Runner& self, const std::string& component,
             const std::vector<std::string>& component_args) {
            return self.app_json(app_spec("", component, component_args));
          },
          py::arg("component"), py::arg("component_args"), Release())
      .def("registered_names", &runner::Runner::registered_names, py::arg("group"), Release())
      .def("named_resource_json", &runner::Runner::named_resource_json, py::arg("name"), Release())
      .def("status",
           [](runner::Runner& self, const std::string& handle) -> py::object {
             std::optional<runner::AppStatus> status;
             {
               py::gil_scoped_release release;
               status = self.status(handle);
             }
             if (!status) return py::none();
             return app_status_to_python(*status);
           })
      .def(
          "metrics",
          [](runner::Runner& self, const std::string& handle, const std::string& key) {
            std::vector<runner::MetricSeries> found;
            {
              py::gil_scoped_release release;
              found = self.metrics(handle, key);
            }
            const auto point_dict = [](const runner::MetricPoint& point) {
              py::dict result;
              result["index"] = point.index;
              result["step"] = point.step;
              result["at_ns"] = point.at_ns;
              result["value"] = point.value;
              return result;
            };
            py::list result;
            for (const runner::MetricSeries& series : found) {
              py::dict one;
              one["role"] = series.role;
              one["replica"] = series.replica;
              one["rank"] = series.rank < 0 ? py::object(py::none()) : py::int_(series.rank);
              one["key"] = series.key;
              one["count"] = series.count;
              one["first"] = point_dict(series.first);
              one["last"] = point_dict(series.last);
              one["min"] = point_dict(series.min);
              one["max"] = point_dict(series.max);
              py::list points;
              for (const runner::MetricPoint& point : series.points)
                points.append(point_dict(point));
              one["points"] = points;
              result.append(one);
            }
            return result;
          },
          py::arg("handle"), py::arg("key"))
      .def("describe",
           [](runner::Runner& self, const std::string& handle) -> py::object {
             std::optional<runner::AppDescription> description;
             {
               py::gil_scoped_release release;
               description = self.describe(handle);
             }
             if (!description) return py::none();
             py::dict result;
             result["handle"] = description->handle;
             result["app_json"] = description->app_json;
             result["cfg_json"] = description->cfg_json;
             return result;
           })
      .def("wait",
           [](runner::Runner& self, const std::string& handle, int64_t timeout_ms) {
             runner::AppStatus status;
             {
               py::gil_scoped_release release;
               status = self.wait(handle, std::chrono::milliseconds(timeout_ms));
             }
             return app_status_to_python(status);
           })
      .def("cancel", &runner::Runner::cancel, py::arg("handle"), py::arg("reason"), Release())
      .def("list",
           [](runner::Runner& self, const std::string& scheduler, bool active_only) {
             runner::AppList list;
             {
               py::gil_scoped_release release;
               list = self.list({scheduler, active_only, 0, {}});
             }
             py::list apps;
             for (const runner::ListedApp& app : list.apps) {
               py::dict entry;
               entry["handle"] = app.handle;
               entry["name"] = app.name;
               entry["state"] = app.state;
               apps.append(entry);
             }
             return apps;
           })
      // on_lines(list of str) -> bool is called with the GIL held; False stops reading.
      .def("log_lines",
           [](runner::Runner& self, const std::string& handle, const std::string& role,
              const std::set<uint32_t>& replicas, const std::string& regex,
              std::optional<int64_t> since_ns, std::optional<int64_t> until_ns, bool should_tail,
              const std::string& streams, const py::function& on_lines) {
             runner::LogOptions options;
             options.role = role;
             options.replicas = replicas;
             options.regex = regex;
             if (since_ns) options.since = time_of(*since_ns);
             if (until_ns) options.until = time_of(*until_ns);
             options.should_tail = should_tail;
             options.streams = streams_of(streams);
             // An exception of the callback stops reading and is raised once the runner returned.
             std::exception_ptr raised;
             const auto deliver = [&](const std::vector<runner::LogLine>& lines) {
               py::gil_scoped_acquire acquire;
               try {
                 py::list texts;
                 for (const runner::LogLine& line : lines) texts.append(line.text);
                 return on_lines(texts).cast<bool>();
               } catch (...) {
                 raised = std::current_exception();
                 return false;
               }
             };
             bool ended = false;
             {
               py::gil_scoped_release release;
               ended = self.log_lines(handle, options, deliver);
             }
             if (raised) std::rethrow_exception(raised);
             return ended;
           });
}

}  // namespace sortie::python
