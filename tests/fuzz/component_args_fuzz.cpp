// libFuzzer harness: component arguments (core/model/component.cpp) against the components
// sortie ships. The input's first byte picks the component; its lines are the words.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sortie/model/component.hpp>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"

namespace {

std::vector<sortie::model::Component> shipped_components() {
  std::ifstream in(SORTIE_COMPONENTS_MANIFEST);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document manifest;
  manifest.Parse(text.str().c_str());
  std::vector<sortie::model::Component> components;
  for (const auto& entry : manifest["provides"].GetArray()) {
    rapidjson::StringBuffer json;
    rapidjson::Writer<rapidjson::StringBuffer> writer(json);
    entry["component"].Accept(writer);
    components.push_back(
        sortie::model::parse_component(entry["name"].GetString(), entry["description"].GetString(),
                                       json.GetString(), SORTIE_COMPONENTS_MANIFEST));
  }
  return components;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<sortie::model::Component> components = shipped_components();
  if (size == 0) return 0;
  const sortie::model::Component& component = components[data[0] % components.size()];
  std::vector<std::string> words;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  for (std::string word; std::getline(lines, word);) words.push_back(word);
  const auto lookup = [](const std::string&) -> std::optional<sortie::Resource> {
    return std::nullopt;
  };
  sortie::fuzz::parse_refusing_with_errors_only(
      [&] { sortie::model::instantiate(component, words, {}, lookup); });
  return 0;
}
