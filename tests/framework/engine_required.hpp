// File: tests/framework/engine_required.hpp
//
// What a test does when something it needs from the machine is missing (an engine, a kernel
// feature): skip on a developer's machine, fail under CI=true, where a missing engine must never
// pass as a skip.
#ifndef SORTIE_TESTS_FRAMEWORK_ENGINE_REQUIRED_HPP
#define SORTIE_TESTS_FRAMEWORK_ENGINE_REQUIRED_HPP

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace sortie::testing {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

}  // namespace sortie::testing

// In SetUp or a test body: fails under CI=true, else skips, with `reason`, unless `condition`.
#define SORTIE_REQUIRE_ENGINE(condition, reason)          \
  do {                                                    \
    if (!(condition)) {                                   \
      if (::sortie::testing::in_ci()) FAIL() << (reason); \
      GTEST_SKIP() << (reason);                           \
    }                                                     \
  } while (false)

#endif  // SORTIE_TESTS_FRAMEWORK_ENGINE_REQUIRED_HPP
