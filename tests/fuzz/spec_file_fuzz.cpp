// libFuzzer harness: the app spec reader (core/model/spec_file.cpp), YAML and JSON alike.
#include <sortie/model/spec_file.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto lookup = [](const std::string&) -> std::optional<sortie::Resource> {
    return std::nullopt;
  };
  sortie::fuzz::parse_refusing_with_errors_only(
      [&] { sortie::model::parse_app_spec(text, "fuzz.yaml", lookup, {}); });
  return 0;
}
