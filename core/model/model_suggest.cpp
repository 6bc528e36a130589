#include "model_suggest.hpp"

namespace sortie::model {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) {
    if (!text.empty()) text += ", ";
    text += "'" + item + "'";
  }
  return text;
}

}  // namespace sortie::model
