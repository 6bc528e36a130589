// File: tests/framework/scoped_env.hpp
//
// An environment variable set for one scope and restored after it, e.g. a limit lowered
// (SORTIE_LIMIT_<NAME>, docs/limits.md) so a test reaches it with a small input.
#ifndef SORTIE_TESTS_FRAMEWORK_SCOPED_ENV_HPP
#define SORTIE_TESTS_FRAMEWORK_SCOPED_ENV_HPP

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace sortie::testing {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (previous_) {
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_FRAMEWORK_SCOPED_ENV_HPP
