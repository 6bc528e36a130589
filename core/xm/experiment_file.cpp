// File: core/xm/experiment_file.cpp
//
// Experiment files (docs/experiments.md). YAML and JSON are first read into one document tree,
// so both forms are validated by the same code and fail with the same messages. Numbers keep
// the text they were written with: "lr: 1e-5" reaches the job as --lr=1e-5.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/xm/experiment_file.hpp>

#include "model_files.hpp"
#include "model_suggest.hpp"
#include "yaml_fields.hpp"

namespace sortie::xm {
namespace {

// ---- The document tree ---------------------------------------------------------------------

struct Node {
  enum class Kind { kNull, kBool, kNumber, kString, kList, kMap };
  Kind kind = Kind::kNull;
  std::string text;  // a scalar as written
  bool boolean = false;
  std::vector<Node> items;
  std::vector<std::pair<std::string, Node>> entries;  // file order
  model::TextMark mark;                               // unknown in JSON text

  const Node* find(const std::string& key) const {
    for (const auto& entry : entries) {
      if (entry.first == key) return &entry.second;
    }
    return nullptr;
  }
  bool is_scalar() const { return kind != Kind::kList && kind != Kind::kMap; }
};

// YAML's core schema, the subset that matters here: plain true/false are booleans, plain
// decimal numbers are numbers; quoted scalars are always strings.
Node::Kind plain_scalar_kind(const std::string& text) {
  static const std::set<std::string> kBooleans = {"true",  "True",  "TRUE",
                                                  "false", "False", "FALSE"};
  static const std::regex kNumber(R"([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)");
  if (kBooleans.count(text)) return Node::Kind::kBool;
  if (std::regex_match(text, kNumber)) return Node::Kind::kNumber;
  return Node::Kind::kString;
}

Node from_yaml(const YAML::Node& yaml, const std::string& origin, const std::string& path) {
  Node node;
  node.mark = model::mark_of(yaml);
  switch (yaml.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      node.kind = Node::Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      node.text = yaml.Scalar();
      node.kind = yaml.Tag() == "?" ? plain_scalar_kind(node.text) : Node::Kind::kString;
      node.boolean = node.kind == Node::Kind::kBool && (node.text[0] == 't' || node.text[0] == 'T');
      break;
    case YAML::NodeType::Sequence:
      node.kind = Node::Kind::kList;
      for (size_t i = 0; i < yaml.size(); ++i) {
        node.items.push_back(from_yaml(yaml[i], origin, model::indexed_field(path, i)));
      }
      break;
    case YAML::NodeType::Map:
      node.kind = Node::Kind::kMap;
      for (const auto& entry : yaml) {
        if (!entry.first.IsScalar())
          model::fail_field(origin, model::mark_of(entry.first), path,
                            "keys must be plain strings");
        const std::string key = entry.first.Scalar();
        node.entries.emplace_back(key,
                                  from_yaml(entry.second, origin, model::join_field(path, key)));
      }
      break;
  }
  return node;
}

// Builds the tree from RapidJSON's SAX events; numbers arrive as their text.
class JsonTreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonTreeBuilder> {
 public:
  bool Null() { return add(Node{}); }
  bool Bool(bool value) {
    Node node;
    node.kind = Node::Kind::kBool;
    node.boolean = value;
    node.text = value ? "true" : "false";
    return add(std::move(node));
  }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    return add(scalar(Node::Kind::kNumber, text, length));
  }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    return add(scalar(Node::Kind::kString, text, length));
  }
  bool StartObject() { return open(Node::Kind::kMap); }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    key_.assign(text, length);
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool StartArray() { return open(Node::Kind::kList); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  Node root;

 private:
  static Node scalar(Node::Kind kind, const char* text, rapidjson::SizeType length) {
    Node node;
    node.kind = kind;
    node.text.assign(text, length);
    return node;
  }

  // Appends to the innermost open container; ancestors' addresses stay valid because only the
  // innermost container's children grow.
  Node* place(Node node) {
    if (stack_.empty()) {
      root = std::move(node);
      return &root;
    }
    Node& parent = *stack_.back();
    if (parent.kind == Node::Kind::kMap) {
      parent.entries.emplace_back(key_, std::move(node));
      return &parent.entries.back().second;
    }
    parent.items.push_back(std::move(node));
    return &parent.items.back();
  }
  bool add(Node node) {
    place(std::move(node));
    return true;
  }
  bool open(Node::Kind kind) {
    Node node;
    node.kind = kind;
    stack_.push_back(place(std::move(node)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::vector<Node*> stack_;
  std::string key_;
};

// nullopt when the text is not JSON; the reason goes to `error`.
std::optional<Node> parse_json(const std::string& text, std::string& error) {
  JsonTreeBuilder builder;
  rapidjson::Reader reader;
  rapidjson::StringStream stream(text.c_str());
  const rapidjson::ParseResult result =
      reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, builder);
  if (result) return std::move(builder.root);
  const size_t offset = result.Offset();
  const size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
  error = "line " + std::to_string(line) + ": " + rapidjson::GetParseError_En(result.Code());
  return std::nullopt;
}

// Both parsers keep repeated keys, so that one check reports them alike.
void check_no_repeated_keys(const Node& node, const std::string& origin, const std::string& path) {
  for (size_t i = 0; i < node.items.size(); ++i) {
    check_no_repeated_keys(node.items[i], origin, model::indexed_field(path, i));
  }
  std::set<std::string> seen;
  for (const auto& [key, value] : node.entries) {
    if (!seen.insert(key).second) model::fail_repeated_key(origin, value.mark, path, key);
    check_no_repeated_keys(value, origin, model::join_field(path, key));
  }
}

// JSON when the text starts with '{': a file starting with {" or {} that is not valid JSON is
// reported as JSON; other text starting with '{' may still be a YAML flow mapping.
Node parse_document(const std::string& text, const std::string& origin) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    // A flow mapping nested this deep is past the YAML limit as well.
    if (json_nesting_exceeds(text, limits::value(limits::kJsonDepth))) {
      model::fail_field(origin, model::TextMark{}, "",
                        limits::exceeded("the JSON nesting", limits::kJsonDepth));
    }
    std::string json_error;
    if (auto json = parse_json(text, json_error)) return std::move(*json);
    const size_t second = text.find_first_not_of(" \t\r\n", first + 1);
    if (second == std::string::npos || text[second] == '"' || text[second] == '}') {
      model::fail_field(origin, model::TextMark{}, "", "invalid JSON at " + json_error);
    }
  }
  return from_yaml(model::load_yaml_document(text, origin), origin, "");
}

// ---- The experiment file -------------------------------------------------------------------

const std::vector<std::string> kTopKeys = {"title",     "executables", "executors", "job",
                                           "job_group", "work_units",  "sweep",     "live_workdir"};
const std::vector<std::string> kJobKeys = {"executable", "executor", "name", "args", "env_vars"};
const std::vector<std::string> kExecutorKeys = {"type", "requirements", "docker_options",
                                                "options"};
const std::vector<std::string> kDockerOptionKeys = {"ports", "volumes"};
const std::vector<std::string> kJobArgsKeys = {"args", "env_vars"};
const std::vector<std::string> kSweepKeys = {"product", "zip"};

// An executable kind: its main member (the short form's value) and its other members.
struct KindFields {
  std::string kind;
  std::string main;
  std::vector<std::string> others;
};
const std::vector<KindFields> kKinds = {
    {"binary", "path", {}},
    {"bazel_binary", "label", {"bazel_args"}},
    {"container", "image_path", {}},
    {"bazel_container", "label", {"bazel_args"}},
    {"python_container",
     "path",
     {"module", "commands", "base_image", "docker_instructions", "use_deep_module"}},
    {"dockerfile", "path", {"dockerfile"}},
};

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const KindFields& kind : kKinds) names.push_back(kind.kind);
  return names;
}

bool is_job_name(const std::string& name) {
  static const std::regex kJobName(R"([A-Za-z0-9][A-Za-z0-9_.-]*)");
  return std::regex_match(name, kJobName);
}

class ExperimentReader {
 public:
  explicit ExperimentReader(const std::string& origin) : origin_(origin) {}

  ExperimentFile read(const Node& root) {
    if (root.kind == Node::Kind::kNull) {
      fail(root, "",
           "the file is empty; an experiment needs title, executables and job or job_group");
    }
    expect_map(root, "", "a mapping of title, executables, job or job_group, ...");
    check_keys(root, "", kTopKeys);
    ExperimentFile file;
    file.title = required_text(root, "title", "");
    read_executables(required(root, "executables", ""), file);
    if (const Node* executors = root.find("executors")) read_executors(*executors);

    const Node* job = root.find("job");
    const Node* group = root.find("job_group");
    if (job && group) fail(*group, "job_group", "give either job or job_group, not both");
    if (!job && !group) {
      fail(root, "", "job or job_group is required: what every work unit runs");
    }
    if (job) {
      file.job = std::make_shared<FileJob>(read_job(*job, "job", ""));
      job_names_.push_back({file.job->name, "job", job->mark});
    } else {
      file.group = std::make_shared<FileJobGroup>(read_group(*group, "job_group", ""));
      check_unique_job_names();
    }
    if (const Node* units = root.find("work_units")) read_work_units(*units, file);
    if (const Node* sweep = root.find("sweep")) read_sweep(*sweep, file);
    if (const Node* live = root.find("live_workdir"))
      file.live_workdir = boolean(*live, "live_workdir");
    if (file.work_units.empty()) file.work_units.emplace_back();
    return file;
  }

 private:
  [[noreturn]] void fail(const Node& at, const std::string& field,
                         const std::string& message) const {
    model::fail_field(origin_, at.mark, field, message);
  }

  static std::string describe(const Node& node) {
    switch (node.kind) {
      case Node::Kind::kNull:
        return "null";
      case Node::Kind::kList:
        return "a list";
      case Node::Kind::kMap:
        return "a mapping";
      case Node::Kind::kString:
        return "\"" + node.text + "\"";
      default:
        return node.text;
    }
  }

  [[noreturn]] void fail_expected(const Node& node, const std::string& field,
                                  const std::string& expected) const {
    model::fail_expected_field(origin_, node.mark, field, expected, describe(node));
  }

  void expect_map(const Node& node, const std::string& field, const std::string& what) const {
    if (node.kind != Node::Kind::kMap) fail_expected(node, field, what);
  }

  void check_keys(const Node& node, const std::string& field,
                  const std::vector<std::string>& known) const {
    for (const auto& entry : node.entries) {
      if (std::find(known.begin(), known.end(), entry.first) != known.end()) continue;
      model::fail_unknown_key(origin_, entry.second.mark, field, entry.first, known);
    }
  }

  const Node& required(const Node& parent, const std::string& key, const std::string& field) const {
    const Node* node = parent.find(key);
    if (!node || node->kind == Node::Kind::kNull)
      fail(node ? *node : parent, model::join_field(field, key), "is required");
    return *node;
  }

  // A string; numbers count as their text ("title: 2024").
  std::string text(const Node& node, const std::string& field) const {
    if (node.kind != Node::Kind::kString && node.kind != Node::Kind::kNumber) {
      fail_expected(node, field, model::kExpectedString);
    }
    if (node.text.empty()) fail(node, field, "expected a non-empty string");
    return node.text;
  }

  std::string required_text(const Node& parent, const std::string& key,
                            const std::string& field) const {
    return text(required(parent, key, field), model::join_field(field, key));
  }

  std::vector<std::string> string_list(const Node& node, const std::string& field) const {
    if (node.kind != Node::Kind::kList) fail_expected(node, field, model::kExpectedStringList);
    std::vector<std::string> items;
    for (size_t i = 0; i < node.items.size(); ++i) {
      items.push_back(text(node.items[i], model::indexed_field(field, i)));
    }
    return items;
  }

  // Values of env vars and options: any scalar but null, as written.
  std::map<std::string, std::string> string_map(const Node& node, const std::string& field) const {
    expect_map(node, field, model::kExpectedStringMap);
    std::map<std::string, std::string> values;
    for (const auto& [key, value] : node.entries) {
      if (!value.is_scalar() || value.kind == Node::Kind::kNull) {
        fail_expected(value, model::join_field(field, key), model::kExpectedString);
      }
      values[key] = value.text;
    }
    return values;
  }

  bool boolean(const Node& node, const std::string& field) const {
    if (node.kind != Node::Kind::kBool) fail_expected(node, field, model::kExpectedBoolean);
    return node.boolean;
  }

  // `text` is a port written at `at` (a mapping's key or value).
  int port(const Node& at, const std::string& text, const std::string& field, int min) const {
    static const std::regex kPort(R"(\d{1,5})");
    if (!std::regex_match(text, kPort) || std::stoi(text) < min || std::stoi(text) > 65535) {
      fail(at, field,
           "expected a port number from " + std::to_string(min) + " to 65535, got '" + text + "'");
    }
    return std::stoi(text);
  }

  ArgValue arg_value(const Node& node, const std::string& field) const {
    switch (node.kind) {
      case Node::Kind::kNull:
        return ArgValue();
      case Node::Kind::kBool:
        return ArgValue(node.boolean);
      case Node::Kind::kNumber:
        return ArgValue::number(node.text);
      case Node::Kind::kString:
        return ArgValue(node.text);
      case Node::Kind::kList: {
        std::vector<ArgValue> items;
        for (size_t i = 0; i < node.items.size(); ++i) {
          items.push_back(arg_value(node.items[i], model::indexed_field(field, i)));
        }
        return ArgValue(std::move(items));
      }
      case Node::Kind::kMap:
        break;
    }
    fail_expected(node, field, "a string, number, true/false, null or a list");
  }

  // A mapping gives --key=value flags in file order; a list gives words passed as they are.
  Args args(const Node& node, const std::string& field) const {
    Args result;
    if (node.kind == Node::Kind::kMap) {
      for (const auto& [key, value] : node.entries) {
        result.set(key, arg_value(value, model::join_field(field, key)));
      }
    } else if (node.kind == Node::Kind::kList) {
      for (size_t i = 0; i < node.items.size(); ++i) {
        result.add_positional(arg_value(node.items[i], model::indexed_field(field, i)));
      }
    } else {
      fail_expected(node, field,
                    "a mapping (passed as --key=value) or a list (passed word for word)");
    }
    return result;
  }

  EnvVars env_vars(const Node& node, const std::string& field) const {
    EnvVars env = string_map(node, field);
    validate_env_vars(env, model::field_location(origin_, node.mark, field));
    return env;
  }

  // ---- executables ----

  void read_executables(const Node& node, ExperimentFile& file) {
    expect_map(node, "executables", "a mapping of executable names to executables");
    if (node.entries.empty()) fail(node, "executables", "define at least one executable");
    for (const auto& [name, spec] : node.entries) {
      file.executables.emplace_back(
          name, read_executable(name, spec, model::join_field("executables", name)));
      executable_names_.push_back(name);
    }
  }

  Packageable read_executable(const std::string& name, const Node& node,
                              const std::string& field) const {
    expect_map(node, field, "a mapping such as {binary: ./train.sh}");
    const Node* kind_node = node.find("kind");
    const std::string declared =
        kind_node ? text(*kind_node, model::join_field(field, "kind")) : "";
    // Kind keys present; in the long form a kind's own member of the same name does not count
    // ({kind: dockerfile, dockerfile: web/Dockerfile}).
    std::vector<std::string> kind_keys;
    for (const KindFields& kind : kKinds) {
      if (!node.find(kind.kind)) continue;
      const auto declared_kind = std::find_if(
          kKinds.begin(), kKinds.end(), [&](const KindFields& k) { return k.kind == declared; });
      if (declared_kind != kKinds.end() &&
          std::find(declared_kind->others.begin(), declared_kind->others.end(), kind.kind) !=
              declared_kind->others.end()) {
        continue;
      }
      kind_keys.push_back(kind.kind);
    }
    if (kind_node && !kind_keys.empty()) {
      fail(*node.find(kind_keys[0]), model::join_field(field, kind_keys[0]),
           "give the kind either as kind: " + kind_keys[0] + " or as " + kind_keys[0] +
               ": VALUE, not both");
    }
    if (kind_keys.size() > 1) {
      fail(*node.find(kind_keys[1]), model::join_field(field, kind_keys[1]),
           "an executable has one kind, and " + kind_keys[0] + " is given too; keep one");
    }
    if (!kind_node && kind_keys.empty()) {
      fail(node, field,
           "the kind is missing: give one of binary: PATH, bazel_binary: LABEL, container: "
           "IMAGE, bazel_container: LABEL, python_container: PATH, dockerfile: PATH, or kind: "
           "KIND with its members");
    }
    const bool long_form = kind_node != nullptr;
    const std::string kind_name = long_form ? declared : kind_keys.front();
    const auto kind = std::find_if(kKinds.begin(), kKinds.end(),
                                   [&](const KindFields& k) { return k.kind == kind_name; });
    if (kind == kKinds.end()) {
      fail(*kind_node, model::join_field(field, "kind"),
           "unknown kind '" + kind_name + "'" + model::did_you_mean(kind_name, kind_names()) +
               "; the kinds are " + model::quoted_list(kind_names()));
    }
    std::vector<std::string> allowed = {long_form ? "kind" : kind->kind, "args", "env_vars"};
    if (long_form) allowed.push_back(kind->main);
    allowed.insert(allowed.end(), kind->others.begin(), kind->others.end());
    check_keys(node, field, allowed);

    const std::string main_key = long_form ? kind->main : kind->kind;
    const Node* main_node = node.find(main_key);
    std::string main_value;
    if (main_node) {
      main_value = text(*main_node, model::join_field(field, main_key));
    } else if (kind->kind != "python_container" && kind->kind != "dockerfile") {
      fail(node, model::join_field(field, main_key), "is required for a " + kind->kind);
    }

    Packageable packageable;
    packageable.name = name;
    packageable.spec =
        read_spec(kind->kind, main_value, model::join_field(field, main_key), node, field);
    if (const Node* v = node.find("args"))
      packageable.args = args(*v, model::join_field(field, "args"));
    if (const Node* v = node.find("env_vars")) {
      packageable.env_vars = env_vars(*v, model::join_field(field, "env_vars"));
    }
    return packageable;
  }

  std::string label(const Node& at, const std::string& value, const std::string& field) const {
    if (value.rfind("//", 0) != 0 && value.rfind("@", 0) != 0) {
      fail(at, field,
           "'" + value + "' is not an absolute Bazel label; write it as //package:target");
    }
    return value;
  }

  // `main` is the value of the kind's main member (empty when not given), at `main_field`.
  ExecutableSpec read_spec(const std::string& kind, const std::string& main,
                           const std::string& main_field, const Node& node,
                           const std::string& field) const {
    const auto member = [&](const char* key) { return node.find(key); };
    const auto at = [&](const char* key) { return model::join_field(field, key); };
    if (kind == "binary") return Binary{main};
    if (kind == "container") return Container{main};
    if (kind == "bazel_binary" || kind == "bazel_container") {
      std::vector<std::string> bazel_args;
      if (const Node* v = member("bazel_args")) bazel_args = string_list(*v, at("bazel_args"));
      const std::string target = label(node, main, main_field);
      if (kind == "bazel_binary") return BazelBinary{target, bazel_args};
      return BazelContainer{target, bazel_args};
    }
    if (kind == "dockerfile") {
      Dockerfile spec;
      if (!main.empty()) spec.path = main;
      if (const Node* v = member("dockerfile")) spec.dockerfile = text(*v, at("dockerfile"));
      return spec;
    }
    PythonContainer spec;
    if (!main.empty()) spec.path = main;
    const Node* module = member("module");
    const Node* commands = member("commands");
    if (module && commands) fail(*commands, at("commands"), "give module or commands, not both");
    if (!module && !commands) {
      fail(node, field,
           "a python_container needs module: MODULE (run as python -m MODULE) or "
           "commands: [...]");
    }
    if (module) spec.module = text(*module, at("module"));
    if (commands) {
      spec.commands = string_list(*commands, at("commands"));
      if (spec.commands.empty()) fail(*commands, at("commands"), "expected at least one command");
    }
    if (const Node* v = member("base_image")) spec.base_image = text(*v, at("base_image"));
    if (const Node* v = member("docker_instructions"); v && v->kind != Node::Kind::kNull) {
      spec.docker_instructions = string_list(*v, at("docker_instructions"));
    }
    if (const Node* v = member("use_deep_module")) {
      spec.use_deep_module = boolean(*v, at("use_deep_module"));
    }
    return spec;
  }

  // ---- executors ----

  void read_executors(const Node& node) {
    expect_map(node, "executors", "a mapping of executor names to executors");
    for (const auto& [name, executor] : node.entries) {
      executors_[name] = read_executor(executor, model::join_field("executors", name));
      executor_names_.push_back(name);
    }
  }

  Executor read_executor(const Node& node, const std::string& field) const {
    expect_map(node, field, "an executor mapping such as {type: local}");
    check_keys(node, field, kExecutorKeys);
    Executor executor;
    if (const Node* v = node.find("type"))
      executor.type = text(*v, model::join_field(field, "type"));
    if (const Node* v = node.find("requirements")) {
      const std::string at = model::join_field(field, "requirements");
      expect_map(*v, at, "a mapping of resources such as {cpu: 2, ram: 4GiB}");
      std::vector<std::pair<std::string, std::string>> entries;
      for (const auto& [key, value] : v->entries) {
        if (!value.is_scalar() || value.kind == Node::Kind::kNull ||
            value.kind == Node::Kind::kBool) {
          fail_expected(value, model::join_field(at, key),
                        "a number or a text such as 16GiB or 2x2");
        }
        entries.emplace_back(key, value.text);
      }
      executor.requirements =
          JobRequirements::parse(entries, model::field_location(origin_, v->mark, at));
    }
    if (const Node* v = node.find("docker_options")) {
      executor.docker_options = read_docker_options(*v, model::join_field(field, "docker_options"));
    }
    if (const Node* v = node.find("options"))
      executor.options = string_map(*v, model::join_field(field, "options"));
    return executor;
  }

  DockerOptions read_docker_options(const Node& node, const std::string& field) const {
    expect_map(node, field, "a mapping of ports and volumes");
    check_keys(node, field, kDockerOptionKeys);
    DockerOptions options;
    if (const Node* ports = node.find("ports")) {
      const std::string at = model::join_field(field, "ports");
      expect_map(*ports, at, "a mapping of container ports to host ports");
      for (const auto& [container, host] : ports->entries) {
        const std::string entry = model::join_field(at, container);
        if (host.kind != Node::Kind::kNumber && host.kind != Node::Kind::kString) {
          fail_expected(host, entry, "a host port number");
        }
        options.ports[port(host, container, entry, 1)] = port(host, host.text, entry, 0);
      }
    }
    if (const Node* volumes = node.find("volumes")) {
      options.volumes = string_map(*volumes, model::join_field(field, "volumes"));
    }
    return options;
  }

  // ---- jobs ----

  Executor executor_of(const Node& node, const std::string& field) const {
    if (node.kind == Node::Kind::kMap) return read_executor(node, field);
    const std::string name = text(node, field);
    const auto found = executors_.find(name);
    if (found != executors_.end()) return found->second;
    if (executor_names_.empty()) {
      fail(node, field,
           "no executor named '" + name +
               "': the file defines no executors; define it under executors, or write "
               "the executor inline ({type: local, ...})");
    }
    fail(node, field,
         "no executor named '" + name + "'" + model::did_you_mean(name, executor_names_) +
             "; the executors are " + model::quoted_list(executor_names_));
  }

  FileJob read_job(const Node& node, const std::string& field, const std::string& group_path) {
    expect_map(node, field, "a job mapping such as {executable: trainer}");
    check_keys(node, field, kJobKeys);
    FileJob job;
    job.executable = required_text(node, "executable", field);
    if (std::find(executable_names_.begin(), executable_names_.end(), job.executable) ==
        executable_names_.end()) {
      fail(*node.find("executable"), model::join_field(field, "executable"),
           "no executable named '" + job.executable + "'" +
               model::did_you_mean(job.executable, executable_names_) + "; the executables are " +
               model::quoted_list(executable_names_));
    }
    if (const Node* v = node.find("executor"))
      job.executor = executor_of(*v, model::join_field(field, "executor"));
    job.name = group_path.empty() ? job.executable : group_path;
    if (const Node* v = node.find("name")) {
      job.name = text(*v, model::join_field(field, "name"));
      check_job_name(*v, job.name, model::join_field(field, "name"));
    }
    if (const Node* v = node.find("args")) job.args = args(*v, model::join_field(field, "args"));
    if (const Node* v = node.find("env_vars"))
      job.env_vars = env_vars(*v, model::join_field(field, "env_vars"));
    return job;
  }

  // `name` is written at `at` (a name's value or a group's member).
  void check_job_name(const Node& at, const std::string& name, const std::string& field) const {
    if (!is_job_name(name)) {
      fail(at, field,
           "'" + name +
               "' is not a valid job name; use letters, digits, '_', '-' and '.', "
               "starting with a letter or digit");
    }
  }

  FileJobGroup read_group(const Node& node, const std::string& field, const std::string& prefix) {
    expect_map(node, field, "a mapping of job names to jobs");
    if (node.entries.empty()) fail(node, field, "a job group needs at least one job");
    FileJobGroup group;
    for (const auto& [key, member_node] : node.entries) {
      const std::string at = model::join_field(field, key);
      check_job_name(member_node, key, at);
      const std::string path = prefix.empty() ? key : prefix + "_" + key;
      expect_map(member_node, at, "a job mapping, or {job_group: {...}}");
      FileJobGroup::Member member;
      member.name = key;
      if (const Node* nested = member_node.find("job_group")) {
        if (member_node.entries.size() > 1) {
          fail(member_node, at,
               "a nested group holds only job_group; move the other keys into its jobs");
        }
        member.group = std::make_shared<FileJobGroup>(
            read_group(*nested, model::join_field(at, "job_group"), path));
      } else {
        member.job = std::make_shared<FileJob>(read_job(member_node, at, path));
        job_names_.push_back({member.job->name, at, member_node.mark});
      }
      group.members.push_back(std::move(member));
    }
    return group;
  }

  void check_unique_job_names() const {
    std::map<std::string, std::string> seen;
    for (const auto& [name, field, mark] : job_names_) {
      const auto [previous, inserted] = seen.emplace(name, field);
      if (!inserted) {
        model::fail_field(origin_, mark, field,
                          "the job name '" + name + "' is also the name of " + previous->second +
                              " (nested names join with '_'); give one of them another name");
      }
    }
  }

  std::vector<std::string> job_name_list() const {
    std::vector<std::string> names;
    for (const auto& entry : job_names_) names.push_back(entry.name);
    return names;
  }

  // ---- work units ----

  JobArgs job_args(const Node& node, const std::string& field) const {
    expect_map(node, field, "a mapping of args and env_vars");
    check_keys(node, field, kJobArgsKeys);
    JobArgs overrides;
    if (const Node* v = node.find("args"))
      overrides.args = args(*v, model::join_field(field, "args"));
    if (const Node* v = node.find("env_vars")) {
      overrides.env_vars = env_vars(*v, model::join_field(field, "env_vars"));
    }
    return overrides;
  }

  void read_work_units(const Node& node, ExperimentFile& file) const {
    if (node.kind != Node::Kind::kList) fail_expected(node, "work_units", "a list of work units");
    if (node.items.empty()) {
      fail(node, "work_units",
           "the list is empty; remove it to run one work unit, or list one "
           "mapping per work unit");
    }
    for (size_t i = 0; i < node.items.size(); ++i) {
      const Node& unit = node.items[i];
      const std::string at = model::indexed_field("work_units", i);
      GroupArgs overrides;
      if (file.job) {
        overrides[file.job->name] = job_args(unit, at);
      } else {
        expect_map(unit, at, "a mapping of job names to {args, env_vars}");
        for (const auto& [name, value] : unit.entries) {
          const auto names = job_name_list();
          if (std::find(names.begin(), names.end(), name) == names.end()) {
            fail(value, model::join_field(at, name),
                 "no job named '" + name + "' in job_group" + model::did_you_mean(name, names) +
                     "; the jobs are " + model::quoted_list(names));
          }
          overrides[name] = job_args(value, model::join_field(at, name));
        }
      }
      file.work_units.push_back(std::move(overrides));
    }
  }

  void read_sweep(const Node& node, ExperimentFile& file) const {
    expect_map(node, "sweep", "a mapping with product or zip");
    check_keys(node, "sweep", kSweepKeys);
    if (node.entries.size() != 1) {
      fail(node, "sweep",
           node.entries.empty() ? "give product: {ARG: [values]} or zip: {...}"
                                : "give product or zip, not both");
    }
    const auto& [mode, axes_node] = node.entries.front();
    const std::string at = model::join_field("sweep", mode);
    expect_map(axes_node, at, "a mapping of argument names to lists of values");
    if (axes_node.entries.empty()) fail(axes_node, at, "give at least one argument to sweep");
    std::vector<std::pair<std::string, std::vector<ArgValue>>> axes;
    for (const auto& [name, values] : axes_node.entries) {
      const std::string axis = model::join_field(at, name);
      if (values.kind != Node::Kind::kList) fail_expected(values, axis, "a list of values");
      if (values.items.empty()) fail(values, axis, "the list is empty; give at least one value");
      // rfind, not starts_with: the fuzz build compiles this file as C++17 (tests/fuzz).
      const bool env_axis = name.rfind(kEnvAxisPrefix, 0) == 0;
      if (env_axis) {
        validate_env_vars({{name.substr(kEnvAxisPrefix.size()), ""}},
                          model::field_location(origin_, values.mark, axis));
      }
      axes.emplace_back(name, std::vector<ArgValue>{});
      for (size_t i = 0; i < values.items.size(); ++i) {
        const Node& value = values.items[i];
        if (env_axis && (!value.is_scalar() || value.kind == Node::Kind::kNull)) {
          fail_expected(value, model::indexed_field(axis, i), model::kExpectedString);
        }
        axes.back().second.push_back(env_axis ? ArgValue(value.text)
                                              : arg_value(value, model::indexed_field(axis, i)));
      }
    }
    std::vector<Args> combinations;
    try {
      combinations = mode == "product" ? product(axes) : zip(axes);
    } catch (const Error& e) {
      fail(node, "", "sweep." + std::string(e.what()));  // "zip: ..." names its own field
    }
    for (const Args& combination : combinations) {
      JobArgs unit;
      for (const Args::Item& item : combination.items()) {
        if (item.name->rfind(kEnvAxisPrefix, 0) == 0) {
          unit.env_vars[item.name->substr(kEnvAxisPrefix.size())] = item.value.text();
        } else {
          unit.args.set(*item.name, item.value);
        }
      }
      GroupArgs overrides;
      for (const auto& entry : job_names_) overrides[entry.name] = unit;
      file.work_units.push_back(std::move(overrides));
    }
  }

  // A sweep axis named env_vars.NAME varies the variable NAME instead of an argument (XF-23).
  static constexpr std::string_view kEnvAxisPrefix = "env_vars.";

  const std::string& origin_;
  std::vector<std::string> executable_names_;
  std::map<std::string, Executor> executors_;
  std::vector<std::string> executor_names_;
  // Every job's name, where it is declared, in file order.
  struct JobNameAt {
    std::string name;
    std::string field;
    model::TextMark mark;
  };
  std::vector<JobNameAt> job_names_;
};

}  // namespace

ExperimentFile read_experiment_file(const std::string& path) {
  const std::string content =
      model::read_text_file(path, "experiment file", limits::kExperimentFileBytes);
  const Node root = parse_document(content, path);
  check_no_repeated_keys(root, path, "");
  ExperimentFile file = ExperimentReader(path).read(root);
  file.path = path;
  file.launch_dir = std::filesystem::absolute(path).lexically_normal().parent_path().string();
  return file;
}

Job resolve_job(const FileJob& job, const std::map<std::string, Executable>& packaged) {
  const auto found = packaged.find(job.executable);
  if (found == packaged.end()) {
    throw Error::invalid_argument("job '" + job.name + "': the executable '" + job.executable +
                                  "' was not packaged; package every executable "
                                  "of the file first");
  }
  return Job{found->second, job.executor, job.name, job.args, job.env_vars};
}

JobGroup resolve_group(const FileJobGroup& group,
                       const std::map<std::string, Executable>& packaged) {
  JobGroup result;
  for (const FileJobGroup::Member& member : group.members) {
    if (member.group) {
      result.add(member.name, resolve_group(*member.group, packaged));
    } else {
      result.add(member.name, resolve_job(*member.job, packaged));
    }
  }
  return result;
}

}  // namespace sortie::xm
