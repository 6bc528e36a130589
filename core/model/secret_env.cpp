#include <algorithm>
#include <cctype>
#include <sortie/model/secret_env.hpp>

namespace sortie::model {
namespace {

std::string upper_case(std::string_view text) {
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper;
}

// AUTH in a word, but not as AUTHOR or AUTHORITY (GIT_AUTHOR_NAME): AUTHORIZATION is a secret.
bool names_auth(std::string_view word) {
  for (size_t at = word.find("AUTH"); at != std::string_view::npos;
       at = word.find("AUTH", at + 1)) {
    const std::string_view rest = word.substr(at + 4);
    if (rest.rfind("OR", 0) != 0 || rest.rfind("ORIZ", 0) == 0 || rest.rfind("ORIS", 0) == 0) {
      return true;
    }
  }
  return false;
}

bool is_secret_env_name(std::string_view name) {
  const std::string upper = upper_case(name);
  constexpr std::string_view kAnywhere[] = {"TOKEN",      "SECRET",     "PASSWORD", "PASSWD",
                                            "PASSPHRASE", "CREDENTIAL", "APIKEY",   "API_KEY",
                                            "ACCESS_KEY", "PRIVATE_KEY"};
  if (std::any_of(std::begin(kAnywhere), std::end(kAnywhere), [&](std::string_view marker) {
        return upper.find(marker) != std::string::npos;
      })) {
    return true;
  }
  std::vector<std::string_view> words;
  const std::string_view text(upper);
  for (size_t start = 0; start < text.size();) {
    size_t end = start;
    while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end])) != 0) ++end;
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (words.empty()) return false;
  // GITHUB_PAT (a personal access token), HF_AUTH, BASIC_AUTH_HEADER; OPENAI_KEY, DB_PASS.
  if (std::any_of(words.begin(), words.end(),
                  [](std::string_view word) { return word == "PAT" || names_auth(word); })) {
    return true;
  }
  return words.back() == "KEY" || words.back() == "PASS";
}

}  // namespace

bool is_secret_env(std::string_view name, std::string_view value) {
  constexpr std::string_view kFlags[] = {"", "0", "1", "TRUE", "FALSE", "YES", "NO", "ON", "OFF"};
  const std::string upper = upper_case(value);
  return is_secret_env_name(name) &&
         std::find(std::begin(kFlags), std::end(kFlags), upper) == std::end(kFlags);
}

std::vector<std::string> secret_env_values(const AppDef& app) {
  std::vector<std::string> values;
  for (const auto& role : app.roles) {
    for (const auto& [name, value] : role.env) {
      if (is_secret_env(name, value)) values.push_back(value);
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
