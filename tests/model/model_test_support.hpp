// File: tests/model/model_test_support.hpp
//
// Helpers shared by the model's test files.
#ifndef SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP
#define SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/model/model.hpp>
#include <string>

namespace sortie::model::testing {

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

// Pairs by name: the model keeps the order it was given, these tests check what is there.
inline std::map<std::string, std::string> by_name(const StringPairs& pairs) {
  return {pairs.begin(), pairs.end()};
}

// Role metadata as one JSON object in its order ({"k":1,"t":"x"}).
inline std::string metadata_object(const Role& role) {
  std::string json = "{";
  for (const auto& [key, value] : role.metadata) {
    json += (json.size() > 1 ? ",\"" : "\"") + key + "\":" + value;
  }
  return json + "}";
}

// A role's mounts as their JSON form (sortie.role/1 "mounts"), to compare whole.
inline std::string mounts_json(const Role& role) {
  Role alone;
  alone.mounts = role.mounts;
  const std::string json = write_role(alone);
  const size_t start = json.find("\"mounts\":") + 9;
  return json.substr(start, json.find("],\"metadata\"") + 1 - start);
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

}  // namespace sortie::model::testing

#endif  // SORTIE_TESTS_MODEL_TEST_SUPPORT_HPP
