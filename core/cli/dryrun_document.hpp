// File: core/cli/dryrun_document.hpp
//
// What `sortie run --dryrun -o json|yaml` prints: the scheduler's request in a form its backend's
// own tools take from a pipe (docs/cli-json.md, "run --dryrun -o"). The document is the
// `document` member of the scheduler's sortie.dryrun/1 payload when it wrote one, else its
// `request`; the core never looks at what the document means.
#ifndef SORTIE_CLI_DRYRUN_DOCUMENT_HPP
#define SORTIE_CLI_DRYRUN_DOCUMENT_HPP

#include <string>

namespace sortie::cli {

enum class DocumentFormat { kJson, kYaml };

// "json" or "yaml"; anything else is an INVALID_ARGUMENT error naming the option.
DocumentFormat document_format_from_string(const std::string& text);

// The document of a sortie.dryrun/1 payload as pretty JSON, or as a YAML stream with one
// document per item when it is a JSON array or a `"kind": "List"` object with `items`.
// `scheduler` names the plugin in errors.
std::string render_dryrun_document(const std::string& dryrun_json, DocumentFormat format,
                                   const std::string& scheduler);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_DRYRUN_DOCUMENT_HPP
