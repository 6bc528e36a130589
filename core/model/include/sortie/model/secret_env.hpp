// File: sortie/model/secret_env.hpp
//
// Environment variables that hold secrets, masked in what `sortie run --dryrun` and `sortie
// describe` print unless --show-secrets (docs/config-trust.md, TRUST-7): a name containing TOKEN,
// SECRET, PASSWORD, PASSWD, CREDENTIAL, API_KEY, ACCESS_KEY or PRIVATE_KEY, in any case.
#ifndef SORTIE_MODEL_SECRET_ENV_HPP
#define SORTIE_MODEL_SECRET_ENV_HPP

#include <sortie/model/model.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model {

inline constexpr std::string_view kMaskedSecret = "********";

bool is_secret_env_name(std::string_view name);

// The values of the app's secret env vars (every role), longest first.
std::vector<std::string> secret_env_values(const AppDef& app);

// `text` with every occurrence of each secret replaced by kMaskedSecret: whatever a scheduler
// made of the app (a Pod spec, a CustomJob, `docker run` flags), a secret value shows nowhere.
std::string mask_secrets(std::string text, const std::vector<std::string>& secrets);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_SECRET_ENV_HPP
