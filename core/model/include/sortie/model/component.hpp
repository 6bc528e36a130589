// File: sortie/model/component.hpp
//
// Components: app templates with typed parameters, shipped as data manifests (group
// sortie.components), after TorchX's builtins (`sortie run utils.echo --msg hi`).
//
// Manifest entry:
//   {"group": "sortie.components", "name": "utils.echo", "description": "...",
//    "component": {
//      "params": [{"name": "msg", "type": "str", "default": "hello", "help": "what to say"},
//                 {"name": "num_replicas", "type": "int", "default": 1, "help": "..."},
//                 {"name": "args", "type": "list", "positional": true, "help": "..."}],
//      "app": APPDEF_JSON with "{{param}}" placeholders}}
//
// Parameter types: str, int, float, bool, list (of strings), dict (k=v,...), nodes_x_procs
// (TorchX's -j, read as {{j.nnodes}}, {{j.nproc_per_node}}, ...), mounts (TorchX's). A string that
// is exactly "{{p}}" becomes the typed value (a number stays a number); "{{p}}" inside a longer
// string is replaced by its text; a list element exactly "{{*p}}" splices the list p, an object
// member "{{*d}}": null the dict d; {"$if": "p", "then": A, "else": B} picks by p. At most one
// parameter is positional (it takes the remaining command-line words). Parameters without a default
// are required. Runtime macros (${app_id}, ${replica_id}, ...) pass through untouched.
#ifndef SORTIE_MODEL_COMPONENT_HPP
#define SORTIE_MODEL_COMPONENT_HPP

#include <map>
#include <optional>
#include <sortie/model/config_file.hpp>
#include <sortie/model/model.hpp>
#include <sortie/model/spec_file.hpp>
#include <string>
#include <vector>

namespace sortie::model {

struct ComponentParam {
  std::string name;
  std::string type;  // str, int, float, bool, list, dict, nodes_x_procs, mounts
  std::optional<std::string> default_json;
  std::string help;
  bool positional = false;
};

struct Component {
  std::string name;
  std::string description;
  std::vector<ComponentParam> params;
  std::string app_template_json;
  std::string origin;  // the manifest file it came from
};

// Parses the "component" member of a manifest entry (JSON text); errors name origin and field.
Component parse_component(const std::string& name, const std::string& description,
                          const std::string& component_json, const std::string& origin);

// Parses the component's command-line words ("--msg hi", "--msg=hi", positional words, "--" to
// end options) with `defaults` from .sortieconfig [component:NAME], and builds the AppDef.
// Unknown flags, missing required parameters and ill-typed values are errors naming the
// parameter (and the FILE:LINE of a default). Help is not handled here (see asks_for_help). A role
// `resource` that is a string after substitution names a named resource (`resource_names` feeds
// "did you mean").
AppDef instantiate(const Component& component, const std::vector<std::string>& words,
                   const std::map<std::string, ConfigValue>& defaults,
                   const NamedResourceLookup& lookup,
                   const std::vector<std::string>& resource_names = {});

// True when the component's options (the words before its positional ones) ask for its help:
// `--help`, or `-h` where the component has no parameter `h` (where it has one, as TorchX's
// builtins do, `-h` is that parameter: the named resource).
bool asks_for_help(const Component& component, const std::vector<std::string>& words);

// Help text for `sortie run COMPONENT --help` and `sortie builtins`.
std::string component_help(const Component& component);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_COMPONENT_HPP
