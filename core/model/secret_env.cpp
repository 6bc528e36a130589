#include <algorithm>
#include <cctype>
#include <sortie/model/secret_env.hpp>

namespace sortie::model {

bool is_secret_env_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  constexpr std::string_view kMarkers[] = {"TOKEN",      "SECRET",  "PASSWORD",   "PASSWD",
                                           "CREDENTIAL", "API_KEY", "ACCESS_KEY", "PRIVATE_KEY"};
  return std::any_of(std::begin(kMarkers), std::end(kMarkers), [&](std::string_view marker) {
    return upper.find(marker) != std::string::npos;
  });
}

std::vector<std::string> secret_env_values(const AppDef& app) {
  std::vector<std::string> values;
  for (const auto& role : app.roles) {
    for (const auto& [name, value] : role.env) {
      if (!value.empty() && is_secret_env_name(name)) values.push_back(value);
    }
  }
  // A secret that contains another is replaced whole first.
  std::sort(values.begin(), values.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return values;
}

std::string mask_secrets(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kMaskedSecret.size())) {
      text.replace(at, secret.size(), kMaskedSecret);
    }
  }
  return text;
}

}  // namespace sortie::model
