// File: sortie/model/secret_env.hpp
//
// Environment variables that hold secrets, masked in what `sortie run --dryrun` and `sortie
// describe` print unless --show-secrets (docs/config-trust.md, TRUST-7, which lists the name
// shapes: GITHUB_PAT, HF_AUTH, OPENAI_KEY, ... as well as any name containing TOKEN or SECRET).
#ifndef SORTIE_MODEL_SECRET_ENV_HPP
#define SORTIE_MODEL_SECRET_ENV_HPP

#include <sortie/model/model.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model {

inline constexpr std::string_view kMaskedSecret = "********";

// Whether the variable holds a secret: its name (any case, its words split at every character
// but a letter or digit) has a secret's shape, and its value is no on/off flag (NO_AUTH=1 is not
// masked, or every "1" of a log would be).
bool is_secret_env(std::string_view name, std::string_view value);

// The values of the app's secret env vars (every role), longest first.
std::vector<std::string> secret_env_values(const AppDef& app);

// `text` with every occurrence of each secret replaced by kMaskedSecret: whatever a scheduler
// made of the app (a Pod spec, a CustomJob, `docker run` flags), a secret value shows nowhere.
std::string mask_secrets(std::string text, const std::vector<std::string>& secrets);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_SECRET_ENV_HPP
