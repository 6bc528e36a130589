#include "conversions.hpp"

#include <pybind11/stl.h>

#include <sortie/error.hpp>

namespace py = pybind11;

namespace sortie::python {
namespace {

std::string text_of(const py::dict& spec, const char* key, const std::string& fallback = "") {
  if (!spec.contains(key) || spec[key].is_none()) return fallback;
  return py::cast<std::string>(spec[key]);
}

std::vector<std::string> words_of(const py::dict& spec, const char* key) {
  if (!spec.contains(key) || spec[key].is_none()) return {};
  return py::cast<std::vector<std::string>>(spec[key]);
}

py::object value_to_python(const xm::ArgValue& value) {
  switch (value.kind()) {
    case xm::ArgValue::Kind::kNull:
      return py::none();
    case xm::ArgValue::Kind::kBool:
      return py::bool_(value.boolean());
    case xm::ArgValue::Kind::kNumber:
    case xm::ArgValue::Kind::kString:
      return py::str(value.text());
    case xm::ArgValue::Kind::kList:
      break;
  }
  py::list items;
  for (const xm::ArgValue& item : value.list()) items.append(value_to_python(item));
  return items;
}

}  // namespace

xm::ArgValue arg_value(const py::handle& value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::bool_>(value)) return xm::ArgValue(value.cast<bool>());
  // Numbers keep the text Python's str() gives them, as XManager passes str(value).
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return xm::ArgValue::number(py::str(value).cast<std::string>());
  }
  if (py::isinstance<py::str>(value)) return xm::ArgValue(value.cast<std::string>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<xm::ArgValue> items;
    for (const py::handle item : value) items.push_back(arg_value(item));
    return xm::ArgValue(std::move(items));
  }
  // Anything else reaches the command line as str(value), as in XManager.
  return xm::ArgValue(py::str(value).cast<std::string>());
}

xm::Args args(const py::handle& items) {
  xm::Args result;
  for (const py::handle item : items) {
    const auto pair = item.cast<py::tuple>();
    if (pair[0].is_none()) {
      result.add_positional(arg_value(pair[1]));
    } else {
      result.set(pair[0].cast<std::string>(), arg_value(pair[1]));
    }
  }
  return result;
}

py::list args_to_python(const xm::Args& args) {
  py::list items;
  for (const xm::Args::Item& item : args.items()) {
    items.append(py::make_tuple(item.name ? py::object(py::str(*item.name)) : py::none(),
                                value_to_python(item.value)));
  }
  return items;
}

xm::ExecutableSpec executable_spec(const py::dict& spec) {
  const std::string kind = text_of(spec, "kind");
  if (kind == "binary") return xm::Binary{text_of(spec, "path")};
  if (kind == "bazel_binary") {
    return xm::BazelBinary{text_of(spec, "label"), words_of(spec, "bazel_args")};
  }
  if (kind == "container") return xm::Container{text_of(spec, "image_path")};
  if (kind == "bazel_container") {
    return xm::BazelContainer{text_of(spec, "label"), words_of(spec, "bazel_args")};
  }
  if (kind == "dockerfile") {
    return xm::Dockerfile{text_of(spec, "path", "."), text_of(spec, "dockerfile")};
  }
  if (kind == "python_container") {
    xm::PythonContainer container;
    container.module = text_of(spec, "module");
    container.commands = words_of(spec, "commands");
    container.path = text_of(spec, "path", ".");
    container.base_image = text_of(spec, "base_image");
    if (spec.contains("docker_instructions") && !spec["docker_instructions"].is_none()) {
      container.docker_instructions = words_of(spec, "docker_instructions");
    }
    container.use_deep_module =
        spec.contains("use_deep_module") && py::cast<bool>(spec["use_deep_module"]);
    return container;
  }
  throw Error::invalid_argument("unknown executable kind '" + kind + "'");
}

xm::Executor executor(const py::dict& executor) {
  xm::Executor result;
  result.type = text_of(executor, "type", "local");
  if (executor.contains("requirements")) {
    result.requirements = xm::JobRequirements::parse(
        py::cast<std::vector<std::pair<std::string, std::string>>>(executor["requirements"]),
        "executor '" + result.type + "': requirements");
  }
  if (executor.contains("ports")) {
    result.docker_options.ports = py::cast<std::map<int, int>>(executor["ports"]);
  }
  if (executor.contains("volumes")) {
    result.docker_options.volumes =
        py::cast<std::map<std::string, std::string>>(executor["volumes"]);
  }
  if (executor.contains("options")) {
    result.options = py::cast<std::map<std::string, std::string>>(executor["options"]);
  }
  return result;
}

py::dict work_unit_to_python(const xm::WorkUnit& unit) {
  py::list jobs;
  for (const xm::JobHandle& job : unit.jobs) {
    py::dict entry;
    entry["name"] = job.name;
    entry["app"] = job.app;
    entry["role"] = job.role;
    entry["state"] = xm::to_string(job.state);
    entry["dryrun_json"] = job.dryrun_json;
    entry["executable_digest"] = job.executable_digest;
    jobs.append(entry);
  }
  py::dict result;
  result["experiment_id"] = unit.experiment_id;
  result["id"] = unit.id;
  result["state"] = xm::to_string(unit.state);
  result["jobs"] = jobs;
  result["args_json"] = unit.args_json;
  result["attempt"] = unit.attempt;
  py::list earlier_apps;
  for (const xm::JobHandle& job : unit.earlier_jobs) earlier_apps.append(job.app);
  result["earlier_apps"] = earlier_apps;
  return result;
}

py::dict app_status_to_python(const runner::AppStatus& status) {
  py::list roles;
  for (const runner::RoleStatus& role : status.roles) {
    py::list replicas;
    for (const runner::ReplicaStatus& replica : role.replicas) {
      py::dict entry;
      entry["id"] = replica.id;
      entry["state"] = runner::to_string(replica.state);
      entry["exit_code"] = replica.exit_code;
      entry["hostname"] = replica.hostname;
      entry["restarts"] = replica.restarts;
      entry["message"] = replica.msg;
      replicas.append(entry);
    }
    py::dict entry;
    entry["role"] = role.role;
    entry["replicas"] = replicas;
    roles.append(entry);
  }
  py::dict result;
  result["app_id"] = status.app_id;
  result["state"] = runner::to_string(status.state);
  result["message"] = status.msg;
  result["num_restarts"] = status.num_restarts;
  result["ui_url"] = status.ui_url;
  result["structured_error_msg"] = status.structured_error_msg;
  result["roles"] = roles;
  return result;
}

}  // namespace sortie::python
