// dryrun(): turns a sortie.dryrun_input/1 into a Vertex AI CustomJob (REST JSON, one worker pool
// per role) and the sortie.dryrun/1 payload that carries it to schedule().
#ifndef SORTIE_VERTEX_CUSTOM_JOB_BUILDER_HPP
#define SORTIE_VERTEX_CUSTOM_JOB_BUILDER_HPP

#include <string>
#include <string_view>

namespace sortie::vertex {

// Label keys sortie puts on every CustomJob; list() filters on the session label.
inline constexpr const char* kSessionLabel = "sortie-session";
inline constexpr const char* kAppLabel = "sortie-app";
// Environment variable naming the role in each pool's container; describe() reads it back.
inline constexpr const char* kRoleNameEnv = "SORTIE_ROLE_NAME";

// Returns the sortie.dryrun/1 payload: "request" is the exact CustomJob body, "text" the HTTP
// request as it will be sent (without the token), "vertex" the parent and connection settings.
// Throws INVALID_ARGUMENT naming the role and field for anything Vertex AI cannot run.
std::string build_dryrun(std::string_view input_text, const std::string& default_session);

// A label value derived from free text: lower-cased, other characters turned into '-', at most
// 63 characters.
std::string label_value(std::string_view text);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_CUSTOM_JOB_BUILDER_HPP
