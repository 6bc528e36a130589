// File: tests/model/model_test_support.hpp
//
// Helpers shared by the model's test files.
#ifndef SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP
#define SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP

#include <gtest/gtest.h>

#include <optional>
#include <sortie/core/error.hpp>
#include <sortie/core/model.hpp>
#include <string>

namespace sortie::core::testing {

// Runs `body`, which must throw Error, and returns its message.
template <typename F>
std::string error_of(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

// A named-resource lookup that knows one resource, "gpu.small" (as TorchX defines it).
inline std::optional<Resource> test_resources(const std::string& name) {
  if (name != "gpu.small") return std::nullopt;
  Resource res;
  res.cpu = 8;
  res.gpu = 1;
  res.mem_mb = 32768;
  return res;
}

}  // namespace sortie::core::testing

#endif  // SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP
