#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sortie/model/component.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sstream>

#include "json_values.hpp"
#include "model_suggest.hpp"

namespace sortie::model {
namespace {

using json::Value;
using json::Where;
using Allocator = rapidjson::Document::AllocatorType;

const std::vector<std::string> kParamTypes = {"str",  "int",  "float",         "bool",
                                              "list", "dict", "nodes_x_procs", "mounts"};

// A template value {"$if": PARAM, "then": A, "else": B} is A when PARAM is set and not false,
// else B (or dropped, without else).
constexpr const char* kIf = "$if";

// The fields of a nodes_x_procs value, which placeholders name as {{j.FIELD}}.
const std::vector<std::string> kNodesXProcsFields = {"nnodes", "min_nnodes", "nproc_per_node",
                                                     "nnodes_range"};

// A "{{...}}" in a template string: {{p}}, {{*p}} (splice a list), {{p|text}} (always text) or
// {{p.field}} (a field of a nodes_x_procs value).
struct Placeholder {
  size_t begin = 0;  // of "{{"
  size_t end = 0;    // one past "}}"
  std::string param;
  std::string field;
  bool splice = false;
  bool as_text = false;
};

std::vector<Placeholder> find_placeholders(const std::string& text, const std::string& where) {
  std::vector<Placeholder> found;
  size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string::npos) {
    const size_t close = text.find("}}", pos + 2);
    if (close == std::string::npos) {
      throw Error::invalid_argument(where + ": unclosed '{{' in \"" + text +
                                    "\"; placeholders read {{param}}");
    }
    Placeholder placeholder{pos, close + 2, text.substr(pos + 2, close - pos - 2),
                            "",  false,     false};
    if (!placeholder.param.empty() && placeholder.param[0] == '*') {
      placeholder.splice = true;
      placeholder.param.erase(0, 1);
    }
    constexpr std::string_view kTextSuffix = "|text";
    if (placeholder.param.ends_with(kTextSuffix)) {
      placeholder.as_text = true;
      placeholder.param.resize(placeholder.param.size() - kTextSuffix.size());
    }
    if (const size_t dot = placeholder.param.find('.'); dot != std::string::npos) {
      placeholder.field = placeholder.param.substr(dot + 1);
      placeholder.param.resize(dot);
    }
    found.push_back(placeholder);
    pos = close + 2;
  }
  return found;
}

bool is_whole(const std::string& text, const std::vector<Placeholder>& found) {
  return found.size() == 1 && found[0].begin == 0 && found[0].end == text.size();
}

std::string trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

std::string flag_of(const ComponentParam& param) {
  return (param.name.size() == 1 ? "-" : "--") + param.name;
}

const ComponentParam* find_param(const Component& component, std::string_view name) {
  for (const auto& param : component.params) {
    if (param.name == name) return &param;
  }
  return nullptr;
}

std::vector<std::string> param_names(const Component& component) {
  std::vector<std::string> names;
  for (const auto& param : component.params) names.push_back(param.name);
  return names;
}

// TorchX's -j: "[MIN:]NNODESxNPROC_PER_NODE", or "NPROC_PER_NODE" for one node. Returns its
// fields, or nullopt with what is wrong.
std::optional<std::array<int64_t, 3>> parse_nodes_x_procs(std::string_view text,
                                                          std::string& problem) {
  const auto count = [&](std::string_view digits, const char* what) -> int64_t {
    int64_t number = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
        number < 1) {
      if (problem.empty()) problem = std::string(what) + " must be a whole number >= 1";
      return 0;
    }
    return number;
  };
  const size_t x = text.find('x');
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos && (x == std::string_view::npos || colon > x)) {
    problem = "MIN: needs NNODESxNPROC_PER_NODE after it";
    return std::nullopt;
  }
  const int64_t nproc_per_node =
      count(x == std::string_view::npos ? text : text.substr(x + 1), "NPROC_PER_NODE");
  const int64_t nnodes =
      x == std::string_view::npos
          ? 1
          : count(text.substr(colon == std::string_view::npos ? 0 : colon + 1,
                              x - (colon == std::string_view::npos ? 0 : colon + 1)),
                  "NNODES");
  const int64_t min_nnodes =
      colon == std::string_view::npos ? nnodes : count(text.substr(0, colon), "MIN");
  if (problem.empty() && min_nnodes > nnodes) {
    problem = "MIN (" + std::to_string(min_nnodes) + ") is more than NNODES (" +
              std::to_string(nnodes) + ")";
  }
  if (!problem.empty()) return std::nullopt;
  return std::array<int64_t, 3>{min_nnodes, nnodes, nproc_per_node};
}

constexpr const char* kNodesXProcsForm =
    "[MIN:]NNODESxNPROC_PER_NODE such as 2x4 or 1:2x4, or NPROC_PER_NODE such as 4";

Value nodes_x_procs_value(const std::string& text, const std::string& where, Allocator& alloc) {
  std::string problem;
  const auto shape = parse_nodes_x_procs(text, problem);
  if (!shape) {
    throw Error::invalid_argument(where + ": expected " + kNodesXProcsForm + ", got '" + text +
                                  "' (" + problem + ")");
  }
  const auto [min_nnodes, nnodes, nproc_per_node] = *shape;
  Value value(rapidjson::kObjectType);
  value.AddMember("nnodes", Value(nnodes), alloc);
  // Unset (so a template's min_replicas is dropped) unless the job is elastic.
  value.AddMember("min_nnodes", min_nnodes == nnodes ? Value() : Value(min_nnodes), alloc);
  value.AddMember("nproc_per_node", Value(nproc_per_node), alloc);
  // torchrun's --nnodes: a range makes the job elastic.
  const std::string range =
      (min_nnodes == nnodes ? "" : std::to_string(min_nnodes) + ":") + std::to_string(nnodes);
  value.AddMember("nnodes_range", Value(range.c_str(), alloc), alloc);
  return value;
}

// The non-empty items of a comma-separated text, trimmed.
std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    std::string item = trim(text.substr(begin, end - begin));
    if (!item.empty()) items.push_back(std::move(item));
    begin = end + 1;
  }
  return items;
}

// TorchX's --mounts: each mount starts with type=bind|volume|device, then src=, dst=, and
// readonly (bind, volume) or perm= (device; dst defaults to src). Returns AppDef mounts.
Value mounts_value(const std::vector<std::string>& items, const std::string& where,
                   Allocator& alloc) {
  const auto fail = [&](const std::string& what) -> Error {
    return Error::invalid_argument(where + ": " + what +
                                   "; write type=bind,src=HOST,dst=CONTAINER[,readonly], "
                                   "type=volume,src=NAME,dst=PATH[,readonly] or "
                                   "type=device,src=PATH[,dst=PATH][,perm=rwm]");
  };
  std::vector<std::map<std::string, std::string>> groups;
  for (const std::string& item : items) {
    const size_t equals = item.find('=');
    const std::string key = item.substr(0, equals);
    if (key == "type") groups.emplace_back();
    if (groups.empty()) throw fail("'" + item + "' comes before any type=");
    if (!groups.back()
             .emplace(key, equals == std::string::npos ? "" : item.substr(equals + 1))
             .second) {
      throw fail("'" + key + "' is given twice in one mount");
    }
  }
  Value mounts(rapidjson::kArrayType);
  for (const auto& group : groups) {
    const std::string& type = group.at("type");
    if (type != "bind" && type != "volume" && type != "device") {
      throw fail("unknown mount type '" + type + "'");
    }
    const std::vector<std::string> known =
        type == "device" ? std::vector<std::string>{"type", "src", "dst", "perm"}
                         : std::vector<std::string>{"type", "src", "dst", "readonly"};
    for (const auto& entry : group) {
      if (std::find(known.begin(), known.end(), entry.first) == known.end()) {
        throw fail("a " + type + " mount has no '" + entry.first + "'");
      }
    }
    if (!group.contains("src") || (type != "device" && !group.contains("dst"))) {
      throw fail("a " + type + " mount needs src=" + (type == "device" ? "" : " and dst="));
    }
    const auto dst = group.find("dst");
    Value mount(rapidjson::kObjectType);
    mount.AddMember("type", Value(type.c_str(), alloc), alloc);
    mount.AddMember("src", Value(group.at("src").c_str(), alloc), alloc);
    mount.AddMember(
        "dst", Value((dst == group.end() ? group.at("src") : dst->second).c_str(), alloc), alloc);
    if (type == "device") {
      const auto perm = group.find("perm");
      mount.AddMember("permissions",
                      Value(perm == group.end() ? "rwm" : perm->second.c_str(), alloc), alloc);
    } else {
      mount.AddMember("read_only", Value(group.contains("readonly")), alloc);
    }
    mounts.PushBack(mount, alloc);
  }
  return mounts;
}

// Checks a default (or null, meaning "unset unless given") against the parameter's type.
void check_typed(const Value& value, const std::string& type, const Where& where) {
  if (value.IsNull()) return;
  if (type == "str") {
    json::as_string(value, where);
  } else if (type == "int") {
    if (!value.IsInt64()) json::fail_expected(where, "an integer", value);
  } else if (type == "float") {
    json::as_number(value, where);
  } else if (type == "bool") {
    json::as_bool(value, where);
  } else if (type == "list") {
    json::as_string_list(value, where);
  } else if (type == "mounts") {
    json::fail_expected(where, "null (mounts are given on the command line)", value);
  } else if (type == "nodes_x_procs") {
    std::string problem;
    if (!parse_nodes_x_procs(json::as_string(value, where), problem)) {
      json::fail_expected(where, kNodesXProcsForm, value);
    }
  } else {
    json::as_string_map(value, where);
  }
}

// Checks that every placeholder of the template names a parameter and is used where it fits.
void check_template(const Value& value, const Where& where, const Component& component) {
  if (value.IsObject() && value.HasMember(kIf)) {
    const Value& condition = value[kIf];
    const std::string name = condition.IsString() ? condition.GetString() : "";
    if (find_param(component, name) == nullptr) {
      throw Error::invalid_argument((where / kIf).prefix() + "expected the name of a parameter" +
                                    did_you_mean(name, param_names(component)));
    }
    for (const auto& member : value.GetObject()) {
      const std::string key(member.name.GetString(), member.name.GetStringLength());
      if (key != kIf && key != "then" && key != "else") {
        throw Error::invalid_argument((where / key).prefix() +
                                      "a {\"$if\": PARAM} holds only then and else");
      }
      if (key != kIf) check_template(member.value, where / key, component);
    }
    if (!value.HasMember("then")) {
      throw Error::invalid_argument(where.prefix() + "a {\"$if\": PARAM} needs then");
    }
    return;
  }
  if (value.IsObject()) {
    for (const auto& member : value.GetObject()) {
      const std::string key(member.name.GetString(), member.name.GetStringLength());
      if (const auto spliced = find_placeholders(key, where.prefix() + "key");
          is_whole(key, spliced) && spliced[0].splice) {
        const ComponentParam* param = find_param(component, spliced[0].param);
        if (param == nullptr || param->type != "dict" || !member.value.IsNull()) {
          throw Error::invalid_argument(where.prefix() + "a key " + key +
                                        " splices a dict parameter and takes the value null");
        }
        continue;
      }
      if (key.find("{{") != std::string::npos) {
        throw Error::invalid_argument(where.prefix() + "placeholders are not supported in keys ('" +
                                      key + "') but for \"{{*DICT}}\": null; put them in values");
      }
      check_template(member.value, where / key, component);
    }
  } else if (value.IsArray()) {
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
      check_template(value[i], where[i], component);
    }
  } else if (value.IsString()) {
    const std::string text(value.GetString(), value.GetStringLength());
    for (const auto& placeholder : find_placeholders(text, where.prefix() + "template")) {
      const ComponentParam* param = find_param(component, placeholder.param);
      if (param == nullptr) {
        throw Error::invalid_argument(where.prefix() + "{{" + placeholder.param +
                                      "}} names no parameter" +
                                      did_you_mean(placeholder.param, param_names(component)));
      }
      if (placeholder.splice && (param->type != "list" || !is_whole(text, {placeholder}))) {
        throw Error::invalid_argument(
            where.prefix() + "{{*" + placeholder.param +
            "}} splices a list parameter and must be a whole list element");
      }
      const bool has_fields = param->type == "nodes_x_procs";
      if (has_fields != !placeholder.field.empty() ||
          (has_fields && std::find(kNodesXProcsFields.begin(), kNodesXProcsFields.end(),
                                   placeholder.field) == kNodesXProcsFields.end())) {
        throw Error::invalid_argument(
            where.prefix() + "{{" + placeholder.param +
            (placeholder.field.empty() ? "" : "." + placeholder.field) + "}}: " +
            (has_fields ? "name a field of the nodes_x_procs parameter: {{" + placeholder.param +
                              ".nnodes}}, .min_nnodes, .nproc_per_node or .nnodes_range"
                        : "only nodes_x_procs parameters have fields"));
      }
    }
  }
}

bool parse_bool(std::string_view text, bool& value) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "1" || lower == "yes") {
    value = true;
  } else if (lower == "false" || lower == "0" || lower == "no") {
    value = false;
  } else {
    return false;
  }
  return true;
}

// The typed value of a parameter given as text; `where` names it in errors.
Value typed_value(const ComponentParam& param, const std::string& text, const std::string& where,
                  Allocator& alloc) {
  const auto fail = [&](const std::string& expected) -> Error {
    return Error::invalid_argument(where + ": expected " + expected + ", got '" + text + "'");
  };
  const std::string value = trim(text);
  if (param.type == "str") return Value(text.c_str(), alloc);
  if (param.type == "nodes_x_procs") return nodes_x_procs_value(value, where, alloc);
  if (param.type == "int") {
    int64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || error != std::errc() || end != value.data() + value.size()) {
      throw fail("an int");
    }
    return Value(number);
  }
  if (param.type == "float") {
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(number)) {
      throw fail("a float");
    }
    return Value(number);
  }
  if (param.type == "bool") {
    bool flag = false;
    if (!parse_bool(value, flag)) throw fail("a bool (true/false, 1/0, yes/no)");
    return Value(flag);
  }
  if (param.type == "list") {
    Value list(rapidjson::kArrayType);
    for (const std::string& item : comma_items(value)) {
      list.PushBack(Value(item.c_str(), alloc), alloc);
    }
    return list;
  }
  if (param.type == "mounts") return mounts_value(comma_items(value), where, alloc);
  Value dict(rapidjson::kObjectType);
  size_t begin = 0;
  while (begin <= value.size()) {
    size_t end = value.find(',', begin);
    if (end == std::string::npos) end = value.size();
    const std::string item = trim(value.substr(begin, end - begin));
    begin = end + 1;
    if (item.empty()) continue;
    const size_t equals = item.find('=');
    if (equals == std::string::npos || trim(item.substr(0, equals)).empty()) {
      throw fail("KEY=VALUE pairs separated by ',' (item '" + item + "')");
    }
    const std::string key = trim(item.substr(0, equals));
    if (dict.HasMember(key.c_str())) dict.RemoveMember(key.c_str());
    dict.AddMember(Value(key.c_str(), alloc), Value(trim(item.substr(equals + 1)).c_str(), alloc),
                   alloc);
  }
  return dict;
}

std::string text_of(const Value& value) {
  if (value.IsString()) return {value.GetString(), value.GetStringLength()};
  if (value.IsArray()) {
    std::string text;
    for (const auto& item : value.GetArray()) {
      if (!text.empty()) text += ' ';
      text += text_of(item);
    }
    return text;
  }
  if (value.IsObject()) {
    std::string text;
    for (const auto& member : value.GetObject()) {
      if (!text.empty()) text += ',';
      text += text_of(member.name) + "=" + text_of(member.value);
    }
    return text;
  }
  return json::compact(value);
}

// Fills the parameters' values from the command line, then .sortieconfig, then defaults.
class Binder {
 public:
  Binder(const Component& component, rapidjson::Document& values)
      : component_(component), values_(values), alloc_(values.GetAllocator()) {
    values_.SetObject();
  }

  void parse_words(const std::vector<std::string>& words) {
    const ComponentParam* positional = positional_param();
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string& word = words[i];
      const bool is_flag = word.size() >= 2 && word[0] == '-' && word != "--";
      if (word == "--" || !is_flag) {
        // The first word that is not an option starts the positional words (as argparse's
        // REMAINDER), so `utils.sh ls -l` passes "-l" on.
        const size_t first = word == "--" ? i + 1 : i;
        if (first < words.size()) take_positional(positional, words, first);
        return;
      }
      const bool long_form = word.starts_with("--");
      const std::string body = word.substr(long_form ? 2 : 1);
      const size_t equals = body.find('=');
      const std::string name = body.substr(0, equals);
      const ComponentParam* param = find_param(component_, name);
      if (param == nullptr || param->positional || (!long_form && name.size() != 1)) {
        throw unknown_option(word.substr(0, word.find('=')), name);
      }
      std::string text;
      if (equals != std::string::npos) {
        text = body.substr(equals + 1);
      } else if (param->type == "bool") {
        text = "true";  // a bare --flag turns it on
      } else if (i + 1 < words.size()) {
        text = words[++i];
      } else {
        throw Error::invalid_argument(context() + ": option " + flag_of(*param) +
                                      " needs a value (" + param->type + ")");
      }
      if (values_.HasMember(name.c_str())) {
        throw Error::invalid_argument(context() + ": option " + flag_of(*param) +
                                      " is given twice");
      }
      set(*param, typed_value(*param, text, context() + ": " + flag_of(*param), alloc_));
    }
  }

  void apply_config_defaults(const std::map<std::string, ConfigValue>& defaults) {
    for (const auto& [name, setting] : defaults) {
      const std::string& text = setting.value;
      const ComponentParam* param = find_param(component_, name);
      const std::string where = setting.origin + ": [component:" + component_.name + "] " + name;
      if (param == nullptr) {
        throw Error::invalid_argument(where + ": " + context() + " has no parameter '" + name +
                                      "'" + did_you_mean(name, param_names(component_)));
      }
      if (values_.HasMember(name.c_str())) continue;
      if (param->positional) {
        Value list(rapidjson::kArrayType);
        std::istringstream words(text);
        for (std::string word; words >> word;) list.PushBack(Value(word.c_str(), alloc_), alloc_);
        set(*param, std::move(list));
      } else {
        set(*param, typed_value(*param, text, where, alloc_));
      }
    }
  }

  void apply_defaults() {
    for (const auto& param : component_.params) {
      if (values_.HasMember(param.name.c_str())) continue;
      if (!param.default_json) {
        const std::string what =
            param.positional ? "positional argument(s) " + param.name : "option " + flag_of(param);
        throw Error::invalid_argument(context() + ": " + what + " is required (" + param.type +
                                      (param.help.empty() ? "" : ": " + param.help) +
                                      "); see `sortie run " + component_.name + " --help`");
      }
      rapidjson::Document parsed(&alloc_);
      parsed.Parse(param.default_json->c_str());
      if (param.type == "nodes_x_procs" && parsed.IsString()) {
        set(param, nodes_x_procs_value(parsed.GetString(),
                                       context() + ": default of " + flag_of(param), alloc_));
      } else {
        set(param, Value(parsed, alloc_));
      }
    }
  }

  void check_one_of(const std::vector<std::vector<std::string>>& groups) {
    for (const auto& group : groups) {
      std::vector<std::string> flags;
      size_t set_count = 0;
      for (const auto& name : group) {
        flags.push_back(flag_of(*find_param(component_, name)));
        if (!values_[name.c_str()].IsNull()) ++set_count;
      }
      if (set_count != 1) {
        std::string list;
        for (const auto& flag : flags) list += (list.empty() ? "" : ", ") + flag;
        throw Error::invalid_argument(context() + ": give exactly one of " + list + " (got " +
                                      std::to_string(set_count) + ")");
      }
    }
  }

 private:
  std::string context() const { return "component " + component_.name; }

  const ComponentParam* positional_param() const {
    for (const auto& param : component_.params) {
      if (param.positional) return &param;
    }
    return nullptr;
  }

  void take_positional(const ComponentParam* positional, const std::vector<std::string>& words,
                       size_t first) {
    if (positional == nullptr) {
      throw Error::invalid_argument(
          context() + ": unexpected argument '" + words[first] +
          "'; this component takes no positional arguments (see `sortie run " + component_.name +
          " --help`)");
    }
    Value list(rapidjson::kArrayType);
    for (size_t i = first; i < words.size(); ++i) {
      list.PushBack(Value(words[i].c_str(), alloc_), alloc_);
    }
    set(*positional, std::move(list));
  }

  Error unknown_option(const std::string& flag, const std::string& name) const {
    std::vector<std::string> flags;
    for (const auto& param : component_.params) {
      if (!param.positional) flags.push_back(param.name);
    }
    std::string known;
    for (const auto& param : component_.params) {
      if (!param.positional) known += (known.empty() ? "" : ", ") + flag_of(param);
    }
    return Error::invalid_argument(context() + ": unknown option '" + flag + "'" +
                                   did_you_mean(name, flags) +
                                   "; options: " + (known.empty() ? "none" : known));
  }

  void set(const ComponentParam& param, Value value) {
    values_.AddMember(Value(param.name.c_str(), alloc_), value, alloc_);
  }

  const Component& component_;
  rapidjson::Document& values_;
  Allocator& alloc_;
};

// Substitutes parameter values into a copy of the template. A string that mentions an unset
// (null) parameter is dropped: as a list element it disappears, as a member the member does.
class Substituter {
 public:
  Substituter(const rapidjson::Document& values, Allocator& alloc)
      : values_(values), alloc_(alloc) {}

  // Returns false when the value is to be dropped.
  bool substitute(const Value& in, Value& out) {
    if (in.IsObject() && in.HasMember(kIf)) {
      const Value& condition = values_[in[kIf].GetString()];
      const bool holds = !condition.IsNull() && !(condition.IsBool() && !condition.GetBool());
      const char* branch = holds ? "then" : "else";
      return in.HasMember(branch) && substitute(in[branch], out);
    }
    if (in.IsObject()) {
      out.SetObject();
      for (const auto& member : in.GetObject()) {
        const std::string key(member.name.GetString(), member.name.GetStringLength());
        if (const auto spliced = find_placeholders(key, "template");
            is_whole(key, spliced) && spliced[0].splice) {
          const Value& dict = values_[spliced[0].param.c_str()];
          if (dict.IsObject()) {
            for (const auto& entry : dict.GetObject()) set_member(out, entry.name, entry.value);
          }
          continue;
        }
        Value item;
        if (substitute(member.value, item)) set_member(out, member.name, item);
      }
      return true;
    }
    if (in.IsArray()) {
      out.SetArray();
      for (const auto& element : in.GetArray()) {
        if (element.IsArray()) {
          splice_group(element, out);
          continue;
        }
        if (element.IsString()) {
          const std::string text(element.GetString(), element.GetStringLength());
          const auto found = find_placeholders(text, "template");
          if (is_whole(text, found) && found[0].splice) {
            const Value& list = values_[found[0].param.c_str()];
            if (list.IsArray()) {
              for (const auto& item : list.GetArray()) out.PushBack(Value(item, alloc_), alloc_);
            }
            continue;
          }
        }
        Value item;
        if (substitute(element, item)) out.PushBack(item, alloc_);
      }
      return true;
    }
    if (!in.IsString()) {
      out.CopyFrom(in, alloc_);
      return true;
    }
    const std::string text(in.GetString(), in.GetStringLength());
    const auto found = find_placeholders(text, "template");
    for (const auto& placeholder : found) {
      if (value_of(placeholder).IsNull()) return false;
    }
    if (is_whole(text, found) && !found[0].as_text) {
      out.CopyFrom(value_of(found[0]), alloc_);
      return true;
    }
    std::string result;
    size_t pos = 0;
    for (const auto& placeholder : found) {
      result += text.substr(pos, placeholder.begin - pos);
      result += text_of(value_of(placeholder));
      pos = placeholder.end;
    }
    result += text.substr(pos);
    out.SetString(result.c_str(), static_cast<rapidjson::SizeType>(result.size()), alloc_);
    return true;
  }

 private:
  // A later member of the same name (a spliced dict's, or the template's) replaces the earlier.
  void set_member(Value& object, const Value& name, const Value& value) {
    if (auto found = object.FindMember(name); found != object.MemberEnd()) {
      found->value.CopyFrom(value, alloc_);
    } else {
      object.AddMember(Value(name, alloc_), Value(value, alloc_), alloc_);
    }
  }

  const Value& value_of(const Placeholder& placeholder) const {
    const Value& value = values_[placeholder.param.c_str()];
    return placeholder.field.empty() || value.IsNull() ? value : value[placeholder.field.c_str()];
  }

  // A list inside a list is an optional group: spliced into its parent, or dropped whole when
  // one of its elements mentions an unset parameter (["-m", "{{m}}"] appears only with --m).
  void splice_group(const Value& group, Value& out) {
    if (mentions_unset(group)) return;
    Value items;
    substitute(group, items);
    for (auto& item : items.GetArray()) out.PushBack(item, alloc_);
  }

  bool mentions_unset(const Value& value) const {
    if (value.IsArray()) {
      return std::any_of(value.Begin(), value.End(),
                         [&](const Value& item) { return mentions_unset(item); });
    }
    if (!value.IsString()) return false;
    const auto found = find_placeholders(value.GetString(), "template");
    return std::any_of(found.begin(), found.end(), [&](const Placeholder& placeholder) {
      return value_of(placeholder).IsNull();
    });
  }

  const rapidjson::Document& values_;
  Allocator& alloc_;
};

std::vector<std::vector<std::string>> read_one_of(const Value& component, const Where& where,
                                                  const Component& result) {
  std::vector<std::vector<std::string>> groups;
  const Value* one_of = json::find(component, "one_of");
  if (one_of == nullptr) return groups;
  json::as_array(*one_of, where / "one_of");
  for (rapidjson::SizeType i = 0; i < one_of->Size(); ++i) {
    const Where at = (where / "one_of")[i];
    auto group = json::as_string_list((*one_of)[i], at);
    for (const auto& name : group) {
      const ComponentParam* param = find_param(result, name);
      if (param == nullptr) {
        throw Error::invalid_argument(at.prefix() + "'" + name + "' is not a parameter" +
                                      did_you_mean(name, param_names(result)));
      }
      if (!param->default_json || *param->default_json != "null") {
        throw Error::invalid_argument(at.prefix() + "parameter '" + name +
                                      "' must have default null to be one of a group");
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

Component parse_component(const std::string& name, const std::string& description,
                          const std::string& component_json, const std::string& origin) {
  const std::string document_origin = origin + ": component " + name;
  const auto document = json::parse(component_json, document_origin);
  const Where where{document_origin, ""};
  json::as_object(document, where);
  Component component{name, description, {}, "", origin};
  std::set<std::string> names;
  bool has_positional = false;
  if (const Value* params = json::find(document, "params")) {
    json::as_array(*params, where / "params");
    for (rapidjson::SizeType i = 0; i < params->Size(); ++i) {
      const Where at = (where / "params")[i];
      const Value& entry = json::as_object((*params)[i], at);
      ComponentParam param;
      const Value* param_name = json::find(entry, "name");
      if (param_name == nullptr) throw Error::invalid_argument(at.prefix() + "name is required");
      param.name = json::as_string(*param_name, at / "name");
      if (param.name.empty() || param.name.find_first_not_of(
                                    "abcdefghijklmnopqrstuvwxyz"
                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos) {
        json::fail_expected(at / "name", "a name of letters, digits and '_'", *param_name);
      }
      if (!names.insert(param.name).second) {
        throw Error::invalid_argument(at.prefix() + "parameter '" + param.name +
                                      "' is declared twice");
      }
      const Value* type = json::find(entry, "type");
      if (type == nullptr) throw Error::invalid_argument(at.prefix() + "type is required");
      param.type = json::as_string(*type, at / "type");
      if (std::find(kParamTypes.begin(), kParamTypes.end(), param.type) == kParamTypes.end()) {
        json::fail_expected(
            at / "type", "one of str, int, float, bool, list, dict, nodes_x_procs, mounts", *type);
      }
      const auto default_member = entry.FindMember("default");
      if (default_member != entry.MemberEnd()) {
        check_typed(default_member->value, param.type, at / "default");
        param.default_json = json::compact(default_member->value);
      }
      if (const Value* help = json::find(entry, "help"))
        param.help = json::as_string(*help, at / "help");
      if (const Value* positional = json::find(entry, "positional")) {
        param.positional = json::as_bool(*positional, at / "positional");
      }
      if (param.positional) {
        if (param.type != "list") {
          throw Error::invalid_argument(at.prefix() + "positional parameter '" + param.name +
                                        "' must have type list (it takes the remaining words)");
        }
        if (has_positional)
          throw Error::invalid_argument(at.prefix() + "only one parameter may be positional");
        has_positional = true;
      }
      component.params.push_back(std::move(param));
    }
  }
  read_one_of(document, where, component);
  const Value* app = json::find(document, "app");
  if (app == nullptr)
    throw Error::invalid_argument(where.prefix() + "app is required (the AppDef template)");
  check_template(json::as_object(*app, where / "app"), where / "app", component);
  component.app_template_json = json::compact(document);
  return component;
}

AppDef instantiate(const Component& component, const std::vector<std::string>& words,
                   const std::map<std::string, ConfigValue>& defaults,
                   const NamedResourceLookup& lookup,
                   const std::vector<std::string>& resource_names) {
  const std::string context = "component " + component.name;
  const auto document = json::parse(component.app_template_json, context);
  rapidjson::Document values;
  Binder binder(component, values);
  binder.parse_words(words);
  binder.apply_config_defaults(defaults);
  binder.apply_defaults();
  binder.check_one_of(read_one_of(document, Where{context, ""}, component));

  rapidjson::Document app(&values.GetAllocator());
  Substituter(values, values.GetAllocator()).substitute(document["app"], app);
  if (app.HasMember("roles") && app["roles"].IsArray()) {
    for (rapidjson::SizeType i = 0; i < app["roles"].Size(); ++i) {
      Value& role = app["roles"][i];
      if (!role.IsObject() || !role.HasMember("resource") || !role["resource"].IsString()) {
        continue;
      }
      const std::string name = role["resource"].GetString();
      const std::string where = context + ": roles[" + std::to_string(i) + "].resource";
      if (!lookup)
        throw Error::invalid_argument(where + ": named resource '" + name +
                                      "' cannot be resolved here");
      const auto resource = lookup(name);
      if (!resource) {
        throw Error::not_found(where + ": unknown named resource '" + name + "'" +
                               did_you_mean(name, resource_names));
      }
      rapidjson::Document resolved(&values.GetAllocator());
      resolved.Parse(write_resource(*resource).c_str());
      role["resource"] = Value(resolved, values.GetAllocator());
    }
  }
  return appdef_from_json(json::compact(app), context + " (" + component.origin + ")");
}

bool asks_for_help(const Component& component, const std::vector<std::string>& words) {
  const bool h_is_help = find_param(component, "h") == nullptr;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--help" || (h_is_help && word == "-h")) return true;
    // As Binder::parse_words: options end at "--" or at the first word that is not one.
    if (word == "--" || word.size() < 2 || word[0] != '-') return false;
    const std::string name = word.substr(word.starts_with("--") ? 2 : 1);
    const ComponentParam* param = find_param(component, name);
    if (param != nullptr && param->type != "bool") ++i;  // its value, which may start with '-'
  }
  return false;
}

std::string component_help(const Component& component) {
  std::string usage = "usage: sortie run " + component.name;
  std::string details;
  for (const auto& param : component.params) {
    std::string label;
    if (param.positional) {
      label = param.name + "...";
      usage += " [--] " + label;
    } else {
      label = flag_of(param) + (param.type == "bool" ? "" : " " + param.type);
      usage += " [" + label + "]";
    }
    std::string traits = param.type;
    if (param.positional) traits += ", positional";
    if (!param.default_json) {
      traits += ", required";
    } else if (*param.default_json == "null") {
      traits += ", optional";
    } else {
      traits += ", default " + *param.default_json;
    }
    details += "  " + label + "  (" + traits + ")\n";
    if (!param.help.empty()) details += "      " + param.help + "\n";
  }
  std::string text = component.name;
  if (!component.description.empty()) text += ": " + component.description;
  text += "\n" + usage + "\n";
  if (!details.empty()) text += "\nparameters:\n" + details;
  return text;
}

}  // namespace sortie::model
