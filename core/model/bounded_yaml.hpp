// File: core/model/bounded_yaml.hpp (private)
//
// YAML loading for the files people write (specs, experiment files), within limits: yaml-cpp
// shares an aliased node instead of copying it, so a few hundred bytes of nested aliases load
// cheaply and then cost gigabytes in a reader that walks the tree; and an alias inside the node it
// names makes that tree a cycle, which a walking reader follows until its stack overflows. The
// limits are counted, and cycles refused, on the parser's events, before any tree is built, so
// the tree returned is acyclic and every walk of it is within the limits.
#ifndef SORTIE_MODEL_BOUNDED_YAML_HPP
#define SORTIE_MODEL_BOUNDED_YAML_HPP

#include <yaml-cpp/yaml.h>

#include <string>

namespace sortie::model {

// The first document of `text`, as YAML::Load gives it. Throws Error(INVALID_ARGUMENT) naming
// `origin`, the line and the limit when the document nests deeper than limits::kYamlDepth or has
// more than limits::kYamlNodes nodes with every alias expanded, or when an alias is inside the
// node it names ("ORIGIN:LINE:COL: an alias refers to a node that contains it (a cycle); ...");
// throws YAML::ParserException for text that is not YAML.
YAML::Node load_bounded_yaml(const std::string& text, const std::string& origin);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_BOUNDED_YAML_HPP
